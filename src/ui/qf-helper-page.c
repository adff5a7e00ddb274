/* qf-helper-page.c — the helper machine's page (src/ui): this PC answers the network tests of
 * the PC under test with the same services as `qualify-cli serve` (QfHelper, src/core), so that
 * nobody needs a terminal on the helper. Shows whether the helper runs (Stop / Start), the
 * pairing code when one is required, the machine's name and ports, each interface with its
 * addresses (link-local ones included) and link state, and the clients testing now, read from
 * the core twice a second. A failure (port taken, no interface up, a service that died) is
 * shown with its cause, its fix and Retry. Disposing the page stops the helper: nothing keeps
 * running after the window closes. Template: ui/qf-helper-page.ui. */
#include "config.h"


#include "qf-helper-page.h"
#include "qf-helper.h"
#include "qf-i18n.h"
#include "qf-netifaces.h"
#include "qf-row-text.h"
#include "qf-step.h"
#include "qf-text.h"
#include "qf-verdict.h"

#define CLIENT_POLL_MS 500

struct _QfHelperPage
{
  AdwBin               parent_instance;

  /* template widgets */
  AdwPreferencesGroup *error_group;
  GtkLabel            *error_label;
  GtkButton           *retry_button;
  AdwActionRow        *state_row;
  GtkImage            *state_icon;
  GtkButton           *stop_button;
  GtkButton           *start_button;
  GtkSwitch           *code_switch;
  GtkBox              *code_box;
  GtkLabel            *code_label;
  GtkListBox          *clients_list;
  GtkLabel            *name_label;
  GtkLabel            *ports_label;
  char                *announce_note;   /* the state row's subtitle while not announced */
  AdwPreferencesGroup *ifaces_group;
  GtkListBox          *ifaces_list;

  /* owned */
  QfHelper            *helper;
  QfNetIfaces         *ifaces;
  GHashTable          *client_rows;  /* "address test" -> AdwActionRow (the list holds it) */
  guint                poll_id;
};

G_DEFINE_FINAL_TYPE (QfHelperPage, qf_helper_page, ADW_TYPE_BIN)

gboolean
qf_helper_page_is_running (QfHelperPage *self)
{
  g_return_val_if_fail (QF_IS_HELPER_PAGE (self), FALSE);
  return self->helper != NULL && qf_helper_is_running (self->helper);
}

/* ---- clients ------------------------------------------------------------------------------- */

/* "Socket latency (sockperf ping-pong) over TCP": the test's title from its one description in core, and the
 * protocol when the responder names one. */
static char *
client_test_title (const char *test)
{
  g_auto(GStrv) parts = g_strsplit (test, "-", 2);
  const QfStepInfo *info = qf_step_lookup (parts[0]);
  const char *title = info != NULL ? _(info->title) : test;

  if (info != NULL && parts[1] != NULL)
    {
      g_autofree char *protocol = g_ascii_strup (parts[1], -1);

      /* TRANSLATORS: a test of the helper's client and its protocol, "… over TCP" */
      return g_strdup_printf (_("%s over %s"), title, protocol);
    }
  return g_strdup (title);
}

static char *
format_duration (gint64 elapsed_us)
{
  guint seconds = (guint) MAX (elapsed_us, 0) / G_USEC_PER_SEC;

  if (seconds < 60)
    return g_strdup_printf (_("%u s"), seconds);
  return g_strdup_printf (_("%u min %u s"), seconds / 60, seconds % 60);
}

static char *
client_subtitle (const QfPeerClient *client,
                 gint64              now_us)
{
  g_autofree char *title = client_test_title (client->test);
  g_autofree char *duration = format_duration (now_us - client->started_us);
  g_autofree char *figure = qf_verdict_format_value (client->figure, client->unit);

  /* TRANSLATORS: a client of the helper: test · for how long · its live figure */
  return g_strdup_printf (_("%s · for %s · %s"), title, duration, figure);
}

static AdwActionRow *
client_row_new (const QfPeerClient *client)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());

  qf_row_set_title_text (ADW_PREFERENCES_ROW (row), client->address);
  adw_action_row_set_icon_name (row, "network-transmit-receive-symbolic");
  return row;
}

static void
update_state (QfHelperPage *self,
              guint         n_clients);

/* Updates the rows in place (a row per client and test), so that a screen reader keeps its
 * place; adds the new ones and removes those that ended. */
static void
show_clients (QfHelperPage *self,
              GPtrArray    *clients)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gint64 now_us = g_get_monotonic_time ();
  GHashTableIter iter;
  gpointer key, row;

  for (guint i = 0; clients != NULL && i < clients->len; i++)
    {
      const QfPeerClient *client = g_ptr_array_index (clients, i);
      g_autofree char *id = g_strdup_printf ("%s %s", client->address, client->test);
      g_autofree char *subtitle = client_subtitle (client, now_us);

      row = g_hash_table_lookup (self->client_rows, id);
      if (row == NULL)
        {
          row = client_row_new (client);
          gtk_list_box_append (self->clients_list, row);
          g_hash_table_insert (self->client_rows, g_strdup (id), row);
        }
      qf_row_set_subtitle_text (row, subtitle);
      g_hash_table_add (seen, g_steal_pointer (&id));
    }
  g_hash_table_iter_init (&iter, self->client_rows);
  while (g_hash_table_iter_next (&iter, &key, &row))
    if (!g_hash_table_contains (seen, key))
      {
        gtk_list_box_remove (self->clients_list, row);
        g_hash_table_iter_remove (&iter);
      }
  update_state (self, g_hash_table_size (self->client_rows));
}

static gboolean
poll_clients (gpointer data)
{
  QfHelperPage *self = data;
  g_autoptr(GPtrArray) clients = qf_helper_list_clients (self->helper);

  show_clients (self, clients);
  return G_SOURCE_CONTINUE;
}

static void
watch_ifaces (QfHelperPage *self);

/* ---- state --------------------------------------------------------------------------------- */

/* Under the state: why the PC under test will not find this helper by itself, or "". */
static const char *
announce_text (QfHelperPage *self,
               gboolean      running)
{
  const char *why_not = NULL;

  g_clear_pointer (&self->announce_note, g_free);
  if (!running || qf_helper_is_announcing (self->helper, &why_not))
    return "";
  /* TRANSLATORS: %s says why, e.g. "discovery is turned off in the settings" */
  self->announce_note = g_strdup_printf (_("Not announced: %s — the other PC must type this machine’s address"),
                                         why_not);
  return self->announce_note;
}

static void
update_state (QfHelperPage *self,
              guint         n_clients)
{
  gboolean running = qf_helper_page_is_running (self);
  const char *code = running ? qf_helper_get_code (self->helper) : NULL;
  g_autofree char *title = NULL;
  g_autofree char *ports = NULL;

  if (!running)
    title = g_strdup (_("Stopped: the PC under test cannot use this helper"));
  else if (n_clients == 0)
    title = g_strdup (_("Running: waiting for the PC under test"));
  else
    title = g_strdup_printf (qf_ngettext ("Running: %u test in progress",
                                          "Running: %u tests in progress", n_clients), n_clients);
  qf_row_set_title_text (ADW_PREFERENCES_ROW (self->state_row), title);
  qf_row_set_subtitle_text (GTK_WIDGET (self->state_row), announce_text (self, running));
  gtk_image_set_from_icon_name (self->state_icon, running ? "emblem-ok-symbolic"
                                                          : "media-playback-stop-symbolic");
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), running);
  gtk_widget_set_visible (GTK_WIDGET (self->start_button), !running);

  /* the code itself is only ever shown here: never logged, never saved */
  gtk_label_set_text (self->code_label, code != NULL ? code : "");
  gtk_widget_set_visible (GTK_WIDGET (self->code_box), code != NULL);

  gtk_label_set_text (self->name_label, qf_helper_get_name (self->helper));
  if (running)
    ports = g_strdup_printf (_("latency and cycle %u, bandwidth %u (TCP and UDP)"),
                             qf_helper_get_latency_port (self->helper),
                             qf_helper_get_bandwidth_port (self->helper));
  gtk_label_set_text (self->ports_label, ports != NULL ? ports : _("none while stopped"));
}

static void
show_error (QfHelperPage *self,
            const char   *message)
{
  gtk_label_set_text (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_group), message != NULL);
  if (message != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (self->retry_button));
}

static void
stop_polling (QfHelperPage *self)
{
  g_clear_handle_id (&self->poll_id, g_source_remove);
  show_clients (self, NULL);
}

void
qf_helper_page_stop (QfHelperPage *self)
{
  g_return_if_fail (QF_IS_HELPER_PAGE (self));
  qf_helper_stop (self->helper);
  stop_polling (self);
}

gboolean
qf_helper_page_start (QfHelperPage *self)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (QF_IS_HELPER_PAGE (self), FALSE);
  watch_ifaces (self);
  if (qf_helper_is_running (self->helper))
    return TRUE;
  {
    /* announced for discovery unless the person turned it off (sites that forbid multicast) */
    g_autoptr(GSettings) settings = g_settings_new (APP_ID);

    qf_helper_set_announce (self->helper, g_settings_get_boolean (settings, "discovery"));
  }
  if (!qf_helper_start (self->helper, gtk_switch_get_active (self->code_switch), &error))
    {
      show_error (self, error->message);
      update_state (self, 0);
      return FALSE;
    }
  show_error (self, NULL);
  if (self->poll_id == 0)
    self->poll_id = g_timeout_add (CLIENT_POLL_MS, poll_clients, self);
  update_state (self, 0);
  return TRUE;
}

/* A service thread ended with an error: stop the rest, say why, offer Retry. */
static void
helper_failed (QfHelperPage *self,
               const char   *message)
{
  qf_helper_page_stop (self);
  show_error (self, message);
}

static void
stop_clicked (QfHelperPage *self)
{
  qf_helper_page_stop (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->start_button));
}

static void
start_clicked (QfHelperPage *self)
{
  if (qf_helper_page_start (self))
    gtk_widget_grab_focus (GTK_WIDGET (self->stop_button));
}

static void
retry_clicked (QfHelperPage *self)
{
  qf_helper_page_start (self);
}

/* The code is drawn when the helper starts: switching it on or off restarts a running helper
 * (a test in progress is cut; the PC under test runs it again). */
static void
code_switch_changed (QfHelperPage *self)
{
  if (!qf_helper_page_is_running (self))
    return;
  qf_helper_page_stop (self);
  qf_helper_page_start (self);
}

/* ---- interfaces ---------------------------------------------------------------------------- */

/* "fe80::1%eth0 (link-local)" as the other PC would type it; others as listed ("10.0.0.2/24"). */
static char *
format_address (const char *address,
                const char *iface)
{
  g_autofree char *bare = g_strndup (address, strcspn (address, "/"));
  g_autofree char *name = NULL;

  if (g_ascii_strncasecmp (bare, "fe80:", 5) == 0)
    {
      name = qf_text_clean (iface, -1);
      return g_strdup_printf (_("%s%%%s (link-local)"), bare, name);
    }
  return g_strdup (address);
}

static GtkWidget *
iface_row_new (QfNetIface *iface)
{
  const char *name = qf_net_iface_get_name (iface);
  const char *const *lists[] = { qf_net_iface_get_ipv4 (iface), qf_net_iface_get_ipv6 (iface) };
  g_autoptr(GString) subtitle = g_string_new (qf_net_iface_state_to_string (qf_net_iface_get_state (iface)));
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  gboolean any = FALSE;

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] != NULL && lists[l][i] != NULL; i++)
      {
        g_autofree char *text = format_address (lists[l][i], name);

        g_string_append_printf (subtitle, "\n%s", text);
        any = TRUE;
      }
  if (!any)
    g_string_append_printf (subtitle, "\n%s", _("no address yet"));
  qf_row_set_title_text (ADW_PREFERENCES_ROW (row), name);
  qf_row_set_subtitle_text (GTK_WIDGET (row), subtitle->str);
  adw_action_row_set_subtitle_lines (row, 0);
  adw_action_row_set_icon_name (row, qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRELESS
                                     ? "network-wireless-symbolic" : "network-wired-symbolic");
  return GTK_WIDGET (row);
}

static void
ifaces_changed (QfHelperPage *self)
{
  GtkListBoxRow *old;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->ifaces));

  while ((old = gtk_list_box_get_row_at_index (self->ifaces_list, 0)) != NULL)
    gtk_list_box_remove (self->ifaces_list, GTK_WIDGET (old));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(QfNetIface) iface = g_list_model_get_item (G_LIST_MODEL (self->ifaces), i);

      gtk_list_box_append (self->ifaces_list, iface_row_new (iface));
    }
  adw_preferences_group_set_description (self->ifaces_group, qf_net_ifaces_get_note (self->ifaces));
}

/* The interface list is asked for the first time the page starts, not when the window opens. */
static void
watch_ifaces (QfHelperPage *self)
{
  if (self->ifaces != NULL)
    return;
  self->ifaces = qf_net_ifaces_new ();
  g_signal_connect_object (self->ifaces, "items-changed", G_CALLBACK (ifaces_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->ifaces, "notify::source", G_CALLBACK (ifaces_changed), self,
                           G_CONNECT_SWAPPED);
  ifaces_changed (self);
}

static GtkWidget *
placeholder_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_top (label, 12);
  gtk_widget_set_margin_bottom (label, 12);
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

/* ---- object -------------------------------------------------------------------------------- */

static void
qf_helper_page_dispose (GObject *object)
{
  QfHelperPage *self = QF_HELPER_PAGE (object);

  g_clear_handle_id (&self->poll_id, g_source_remove);
  if (self->helper != NULL)
    qf_helper_stop (self->helper);
  g_clear_object (&self->helper);
  g_clear_object (&self->ifaces);
  g_clear_pointer (&self->client_rows, g_hash_table_unref);
  g_clear_pointer (&self->announce_note, g_free);
  adw_bin_set_child (ADW_BIN (self), NULL);
  G_OBJECT_CLASS (qf_helper_page_parent_class)->dispose (object);
}

static void
qf_helper_page_class_init (QfHelperPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_helper_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-helper-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, error_group);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, error_label);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, retry_button);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, state_row);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, state_icon);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, stop_button);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, start_button);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, code_switch);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, code_box);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, code_label);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, clients_list);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, name_label);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, ports_label);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, ifaces_group);
  gtk_widget_class_bind_template_child (widget_class, QfHelperPage, ifaces_list);
  gtk_widget_class_bind_template_callback (widget_class, stop_clicked);
  gtk_widget_class_bind_template_callback (widget_class, start_clicked);
  gtk_widget_class_bind_template_callback (widget_class, retry_clicked);
  gtk_widget_class_bind_template_callback (widget_class, code_switch_changed);
}

static void
qf_helper_page_init (QfHelperPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->helper = qf_helper_new ();
  self->client_rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_signal_connect_object (self->helper, "failed", G_CALLBACK (helper_failed), self,
                           G_CONNECT_SWAPPED);
  gtk_list_box_set_placeholder (self->clients_list,
                                placeholder_new (_("No PC is testing against this helper right now.")));
  gtk_list_box_set_placeholder (self->ifaces_list,
                                placeholder_new (_("No network interface found. Plug the cable in or turn the interface on.")));
  update_state (self, 0);
}
