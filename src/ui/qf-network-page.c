/* qf-network-page.c — step 3 of the wizard (src/ui): the interfaces from the core's
 * QfNetIfaces (NetworkManager, live, or the kernel with a note), one radio row each with its
 * state, addresses, speed, Wi-Fi network and signal, USB flag; the choice survives the list's
 * live rebuilds by interface name. Then the helper machine: "This PC only", or the helper
 * machines heard on the chosen interface (the core's qf-discover, a short DNS-SD browse on a
 * worker thread, repeated while the page is shown), the address (picked from the list, or typed),
 * the pairing code when the helper asks for one, and "Check peer" (the core's qf-peer-check on a
 * worker thread). On a wired interface with no routable address (a direct cable, no DHCP) the
 * page says that this is fine and the helper's link-local address with its scope is used.
 * Last, "Network readiness": the audit of the chosen interface (qf-net-audit-group.c).
 * Template: ui/qf-network-page.ui. */
#include "config.h"


#include <string.h>

#include "qf-discover.h"
#include "qf-entry-row.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-net-audit-group.h"
#include "qf-network-page.h"
#include "qf-pairing.h"
#include "qf-password-entry-row.h"
#include "qf-peer-check.h"
#include "qf-row-text.h"
#include "qf-text.h"

/* One browse listens this long; the next starts this long after it ended. */
#define BROWSE_MS         3000
#define BROWSE_PAUSE_MS   2000
/* A wired interface still waiting for its address this long is taken for a direct cable: an
 * ordinary DHCP exchange is over well before. */
#define DIRECT_WAIT_S     10

struct _QfNetworkPage
{
  AdwBin          parent_instance;

  /* template widgets */
  GtkLabel       *note_label;
  GtkListBox     *ifaces_list;
  GtkSwitch      *builtin_switch;
  AdwPreferencesGroup *found_group;
  GtkSpinner     *browse_spinner;
  GtkLabel       *direct_label;
  GtkListBox     *helpers_list;
  GtkLabel       *helpers_status;
  AdwPreferencesGroup *peer_group;
  QfEntryRow     *peer_row;
  GtkButton      *check_button;
  QfEntryRow     *code_row;
  GtkLabel       *code_error;
  AdwPreferencesGroup *token_group;
  AdwExpanderRow *token_expander;
  QfEntryRow     *token_row;
  GtkLabel       *peer_status;
  QfNetAuditGroup *audit_group;

  /* owned */
  GCancellable   *cancellable;
  QfNetIfaces    *ifaces;
  GSettings      *settings;
  char           *selected;       /* interface name */
  GCancellable   *browse_cancellable;  /* the browse running now, or NULL */
  guint           browse_timeout_id;   /* the pause before the next browse */
  char           *browse_iface;   /* the interface the helpers below were heard on */
  GPtrArray      *helpers;        /* of QfHelperInfo, heard by the last browse; NULL: none yet */
  char           *helpers_shown;  /* what the rows show, to rebuild them only on a change */
  char           *chosen;         /* helper_key of the helper chosen, or NULL */
  char           *filled;         /* the address the page put into peer_row, or NULL */
  gboolean        updating;       /* the page itself changes a widget: not the person */
  gboolean        builtin_touched;  /* the person set "This PC only" */
  gboolean        builtin_forced;   /* training holds "This PC only" on */
  gboolean        code_refused;   /* the last check was turned away for the code */
  char           *waiting_iface;  /* the interface seen waiting for its address (connecting) */
  guint           waiting_id;     /* DIRECT_WAIT_S from then; 0 once over (or none waits) */
};

G_DEFINE_FINAL_TYPE (QfNetworkPage, qf_network_page, ADW_TYPE_BIN)

enum { PROP_0, PROP_AUDIT_RUNNING, PROP_PEER_CHOSEN, N_PROPS };
static GParamSpec *properties[N_PROPS];

gboolean
qf_network_page_get_audit_running (QfNetworkPage *self)
{
  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), FALSE);
  return qf_net_audit_group_get_running (self->audit_group);
}

static void
audit_running_changed (QfNetworkPage *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUDIT_RUNNING]);
}

gboolean
qf_network_page_get_peer_chosen (QfNetworkPage *self)
{
  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), FALSE);
  return !g_str_equal (qf_network_page_get_peer_kind (self), "none");
}

static void
peer_chosen_changed (QfNetworkPage *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PEER_CHOSEN]);
}

static void
qf_network_page_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_AUDIT_RUNNING:
      g_value_set_boolean (value, qf_network_page_get_audit_running (QF_NETWORK_PAGE (object)));
      break;
    case PROP_PEER_CHOSEN:
      g_value_set_boolean (value, qf_network_page_get_peer_chosen (QF_NETWORK_PAGE (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

QfNetIface *
qf_network_page_get_iface (QfNetworkPage *self)
{
  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), NULL);
  return qf_net_ifaces_lookup (self->ifaces, self->selected);
}

const char *
qf_network_page_get_peer_kind (QfNetworkPage *self)
{
  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), "none");
  if (gtk_switch_get_active (self->builtin_switch))
    return "builtin";
  if (qf_network_page_get_peer_address (self) != NULL)
    return "remote";
  return "none";
}

const char *
qf_network_page_get_peer_address (QfNetworkPage *self)
{
  const char *text;

  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), NULL);
  if (gtk_switch_get_active (self->builtin_switch))
    return "127.0.0.1";
  text = gtk_editable_get_text (GTK_EDITABLE (self->peer_row));
  return text != NULL && *text != '\0' ? text : NULL;
}

GPtrArray *
qf_network_page_get_network_audit (QfNetworkPage *self)
{
  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), NULL);
  return qf_net_audit_group_get_checks (self->audit_group, self->selected);
}

const char *
qf_network_page_get_token_file (QfNetworkPage *self)
{
  const char *text;

  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), NULL);
  if (gtk_switch_get_active (self->builtin_switch))
    return NULL;
  text = gtk_editable_get_text (GTK_EDITABLE (self->token_row));
  return text != NULL && *text != '\0' ? text : NULL;
}

static char *
describe (QfNetIface *iface)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  const char *const *v4 = qf_net_iface_get_ipv4 (iface);
  const char *const *v6 = qf_net_iface_get_ipv6 (iface);

  g_ptr_array_add (parts, g_strdup (qf_net_iface_state_to_string (qf_net_iface_get_state (iface))));
  if (qf_net_iface_get_ssid (iface) != NULL)
    {
      /* A network's name is whatever anyone in radio range announces. */
      g_autofree char *ssid = qf_text_clean (qf_net_iface_get_ssid (iface), -1);

      if (qf_net_iface_get_signal (iface) >= 0)
        g_ptr_array_add (parts, g_strdup_printf (_("“%s”, signal %d %%"), ssid,
                                                 qf_net_iface_get_signal (iface)));
      else
        g_ptr_array_add (parts, g_strdup_printf ("“%s”", ssid));
    }
  else if (qf_net_iface_get_signal (iface) >= 0)
    g_ptr_array_add (parts, g_strdup_printf (_("signal %d %%"), qf_net_iface_get_signal (iface)));
  for (guint i = 0; v4 != NULL && v4[i] != NULL; i++)
    g_ptr_array_add (parts, g_strdup (v4[i]));
  for (guint i = 0; v6 != NULL && v6[i] != NULL; i++)
    g_ptr_array_add (parts, g_strdup (v6[i]));
  if (qf_net_iface_get_speed_mbps (iface) > 0)
    g_ptr_array_add (parts, g_strdup_printf (_("%u Mbit/s"), qf_net_iface_get_speed_mbps (iface)));
  if (qf_net_iface_get_is_usb (iface))
    g_ptr_array_add (parts, g_strdup (_("USB adapter: latency may be higher and less steady")));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (" · ", (GStrv) parts->pdata);
}

static void iface_chosen (QfNetworkPage *self);

static void
radio_toggled (GtkCheckButton *radio,
               QfNetworkPage  *self)
{
  if (!gtk_check_button_get_active (radio))
    return;
  g_free (self->selected);
  self->selected = g_strdup (g_object_get_data (G_OBJECT (radio), "qf-iface"));
  iface_chosen (self);
}

static GtkWidget *
create_row (gpointer item,
            gpointer user_data)
{
  QfNetIface *iface = item;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *radio = gtk_check_button_new ();
  GtkWidget *icon;
  g_autofree char *title = NULL;
  g_autofree char *subtitle = describe (iface);
  g_autofree char *accessible = NULL;
  g_autofree char *name = qf_text_clean (qf_net_iface_get_name (iface), -1);
  gboolean wireless = qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRELESS;

  title = g_strdup_printf ("%s — %s", name, wireless ? _("Wireless") : _("Wired"));
  qf_row_set_title_text (ADW_PREFERENCES_ROW (row), title);
  qf_row_set_subtitle_text (row, subtitle);
  icon = gtk_image_new_from_icon_name (wireless ? "network-wireless-symbolic" : "network-wired-symbolic");
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), radio);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), radio);

  g_object_set_data_full (G_OBJECT (radio), "qf-iface", g_strdup (qf_net_iface_get_name (iface)), g_free);
  accessible = g_strdup_printf ("%s: %s", title, subtitle);
  gtk_accessible_update_property (GTK_ACCESSIBLE (radio), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  return row;
}

/* After every rebuild: one radio group, the remembered choice (or the first connected wired
 * interface, else the first) active. */
static void
sync_radios (QfNetworkPage *self)
{
  GtkCheckButton *leader = NULL;
  GtkCheckButton *fallback = NULL;
  GtkCheckButton *chosen = NULL;
  GtkWidget *child;

  for (child = gtk_widget_get_first_child (GTK_WIDGET (self->ifaces_list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *radio = adw_action_row_get_activatable_widget (ADW_ACTION_ROW (child));
      const char *name;
      QfNetIface *iface;

      if (!GTK_IS_CHECK_BUTTON (radio))
        continue;
      name = g_object_get_data (G_OBJECT (radio), "qf-iface");
      iface = qf_net_ifaces_lookup (self->ifaces, name);
      if (leader == NULL)
        leader = GTK_CHECK_BUTTON (radio);
      else
        gtk_check_button_set_group (GTK_CHECK_BUTTON (radio), leader);
      if (g_signal_handler_find (radio, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, radio_toggled, NULL) == 0)
        g_signal_connect (radio, "toggled", G_CALLBACK (radio_toggled), self);
      if (g_strcmp0 (name, self->selected) == 0)
        chosen = GTK_CHECK_BUTTON (radio);
      if (fallback == NULL && iface != NULL && qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRED
          && qf_net_iface_get_state (iface) == QF_NET_IFACE_STATE_CONNECTED)
        fallback = GTK_CHECK_BUTTON (radio);
    }
  if (chosen == NULL)
    chosen = fallback ? fallback : leader;
  if (chosen != NULL)
    gtk_check_button_set_active (chosen, TRUE);
  else
    g_clear_pointer (&self->selected, g_free);
}

static void
ifaces_changed (QfNetworkPage *self)
{
  /* the list box has rebuilt its rows already (bind_model connects first) */
  sync_radios (self);
  iface_chosen (self);
}

static void
note_changed (QfNetworkPage *self)
{
  const char *note = qf_net_ifaces_get_note (self->ifaces);

  gtk_label_set_text (self->note_label, note ? note : "");
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note != NULL);
}


/* ---------------------------------------------------------------- direct cable */

/* fe80::/10 (with or without its %scope) or 169.254/16; prefix lengths are ignored. */
static gboolean
is_link_local (const char *address)
{
  g_autofree char *host = g_strdup (address);
  char *cut = strpbrk (host, "%/");
  g_autoptr(GInetAddress) inet = NULL;

  if (cut != NULL)
    *cut = '\0';
  inet = g_inet_address_new_from_string (host);
  return inet != NULL && g_inet_address_get_is_link_local (inet);
}

static void update_direct_note (QfNetworkPage *self);

static gboolean
waited_long (gpointer data)
{
  QfNetworkPage *self = data;

  self->waiting_id = 0;
  update_direct_note (self);
  return G_SOURCE_REMOVE;
}

/* Whether iface has been connecting (waiting for DHCP) for DIRECT_WAIT_S since the page first saw
 * it so; starts counting when it has not. */
static gboolean
waited_for_address (QfNetworkPage *self,
                    QfNetIface    *iface)
{
  const char *name = qf_net_iface_get_name (iface);

  if (g_strcmp0 (name, self->waiting_iface) == 0)
    return self->waiting_id == 0;
  g_clear_handle_id (&self->waiting_id, g_source_remove);
  g_free (self->waiting_iface);
  self->waiting_iface = g_strdup (name);
  self->waiting_id = g_timeout_add_seconds (DIRECT_WAIT_S, waited_long, self);
  return FALSE;
}

static void
stop_waiting (QfNetworkPage *self)
{
  g_clear_handle_id (&self->waiting_id, g_source_remove);
  g_clear_pointer (&self->waiting_iface, g_free);
}

/* A wired interface with a carrier and no address beyond its link — DHCP failed, or still
 * pending after DIRECT_WAIT_S, or connected with link-local addresses only, as on a direct cable
 * between two PCs: the helper is reached on its link-local address then. An ordinary DHCP
 * exchange in progress is not one. */
static gboolean
iface_is_direct (QfNetworkPage *self,
                 QfNetIface    *iface)
{
  const char *const *lists[2];
  QfNetIfaceState state;
  guint addresses = 0;

  if (iface == NULL || qf_net_iface_get_kind (iface) != QF_NET_IFACE_WIRED)
    return FALSE;
  state = qf_net_iface_get_state (iface);
  if (state == QF_NET_IFACE_STATE_CONNECTING)
    return waited_for_address (self, iface);
  if (g_strcmp0 (qf_net_iface_get_name (iface), self->waiting_iface) == 0)
    stop_waiting (self);
  if (state == QF_NET_IFACE_STATE_FAILED)
    return TRUE;
  if (state != QF_NET_IFACE_STATE_CONNECTED)
    return FALSE;
  lists[0] = qf_net_iface_get_ipv4 (iface);
  lists[1] = qf_net_iface_get_ipv6 (iface);
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] != NULL && lists[l][i] != NULL; i++, addresses++)
      if (!is_link_local (lists[l][i]))
        return FALSE;
  return addresses > 0;
}

static void
set_label (GtkLabel   *label,
           const char *text)
{
  gtk_label_set_text (label, text != NULL ? text : "");
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  text != NULL ? text : "", -1);
  gtk_widget_set_visible (GTK_WIDGET (label), text != NULL && *text != '\0');
}

static void
update_direct_note (QfNetworkPage *self)
{
  QfNetIface *iface = qf_network_page_get_iface (self);
  g_autofree char *text = NULL;
  g_autofree char *name = iface != NULL ? qf_text_clean (qf_net_iface_get_name (iface), -1) : NULL;

  if (iface_is_direct (self, iface))
    text = g_strdup_printf (_("%s has no address of its own: no DHCP server answers, as on a direct cable "
                              "between two PCs. That is fine: a direct cable needs no DHCP and no "
                              "address setting. Qualify finds the helper machine on the cable and uses "
                              "its link-local address (fe80::…%%%s)."),
                            name, name);
  set_label (self->direct_label, text);
}

/* ---------------------------------------------------------------- helper machines found */

/* Which helper a row or the choice means: its instance and the least of its addresses, which
 * does not depend on the order the answers came in (two responders can answer for one instance
 * name: each is a helper of its own). */
static char *
helper_key (const QfHelperInfo *helper)
{
  const char *least = "";

  for (guint i = 0; helper->addresses != NULL && helper->addresses[i] != NULL; i++)
    if (i == 0 || strcmp (helper->addresses[i], least) < 0)
      least = helper->addresses[i];
  return g_strdup_printf ("%s\n%s", helper->instance ? helper->instance : "", least);
}

static QfHelperInfo *
lookup_helper (QfNetworkPage *self,
               const char    *key)
{
  for (guint i = 0; key != NULL && self->helpers != NULL && i < self->helpers->len; i++)
    {
      QfHelperInfo *helper = g_ptr_array_index (self->helpers, i);
      g_autofree char *this_key = helper_key (helper);

      if (g_str_equal (this_key, key))
        return helper;
    }
  return NULL;
}

/* The address to use: on a direct cable the helper's link-local one with its scope, else the
 * engine's choice (the first that is not link-local). */
static const char *
helper_address (QfNetworkPage      *self,
                const QfHelperInfo *helper)
{
  if (iface_is_direct (self, qf_network_page_get_iface (self)))
    for (guint i = 0; helper->addresses != NULL && helper->addresses[i] != NULL; i++)
      if (strchr (helper->addresses[i], '%') != NULL && is_link_local (helper->addresses[i]))
        return helper->addresses[i];
  return qf_helper_info_best_address (helper);
}

static char *
describe_helper (QfNetworkPage      *self,
                 const QfHelperInfo *helper)
{
  const char *address = helper_address (self, helper);
  g_autofree char *version = g_strdup_printf (_("Qualify %s"), helper->version ? helper->version : "?");

  return g_strdup_printf ("%s · %s · %s", address ? address : _("no address announced"),
                          helper->token_required ? _("pairing code needed") : _("no code needed"),
                          version);
}

/* The radios show self->chosen; the page sets them, not the person. */
static void
sync_helper_radios (QfNetworkPage *self)
{
  gboolean was_updating = self->updating;

  self->updating = TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->helpers_list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *radio = adw_action_row_get_activatable_widget (ADW_ACTION_ROW (child));

      if (GTK_IS_CHECK_BUTTON (radio))
        gtk_check_button_set_active (GTK_CHECK_BUTTON (radio),
                                     g_strcmp0 (g_object_get_data (G_OBJECT (radio), "qf-helper"),
                                                self->chosen) == 0);
    }
  self->updating = was_updating;
}

static void
update_code_row (QfNetworkPage *self)
{
  QfHelperInfo *helper = lookup_helper (self, self->chosen);
  const char *code = gtk_editable_get_text (GTK_EDITABLE (self->code_row));

  gtk_widget_set_visible (GTK_WIDGET (self->code_row),
                          (helper != NULL && helper->token_required) || self->code_refused
                          || (code != NULL && *code != '\0'));
}

/* helper becomes the helper machine: its address goes into the address row. The page chooses
 * by itself only until the person sets "This PC only"; a person's pick switches it off. */
static void
choose_helper (QfNetworkPage      *self,
               const QfHelperInfo *helper,
               gboolean            by_person)
{
  const char *address = helper_address (self, helper);

  g_free (self->chosen);
  self->chosen = helper_key (helper);
  self->code_refused = FALSE;
  self->updating = TRUE;
  if (address != NULL)
    {
      gtk_editable_set_text (GTK_EDITABLE (self->peer_row), address);
      g_free (self->filled);
      self->filled = g_strdup (address);
    }
  if (gtk_widget_get_sensitive (GTK_WIDGET (self->builtin_switch))
      && (by_person || !self->builtin_touched))
    gtk_switch_set_active (self->builtin_switch, FALSE);
  sync_helper_radios (self);
  self->updating = FALSE;
  update_code_row (self);
  gtk_widget_set_visible (GTK_WIDGET (self->peer_status), FALSE);
}

static void
helper_toggled (GtkCheckButton *radio,
                QfNetworkPage  *self)
{
  QfHelperInfo *helper;

  if (self->updating || !gtk_check_button_get_active (radio))
    return;
  helper = lookup_helper (self, g_object_get_data (G_OBJECT (radio), "qf-helper"));
  if (helper != NULL)
    choose_helper (self, helper, TRUE);
}

static GtkWidget *
create_helper_row (QfNetworkPage      *self,
                   const QfHelperInfo *helper,
                   GtkCheckButton     *leader)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *radio = gtk_check_button_new ();
  const char *title = helper->name != NULL && *helper->name != '\0' ? helper->name : helper->instance;
  g_autofree char *subtitle = describe_helper (self, helper);
  g_autofree char *accessible = g_strdup_printf ("%s: %s", title, subtitle);

  qf_row_set_title_text (ADW_PREFERENCES_ROW (row), title);
  qf_row_set_subtitle_text (row, subtitle);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), radio);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("computer-symbolic"));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), radio);
  if (leader != NULL)
    gtk_check_button_set_group (GTK_CHECK_BUTTON (radio), leader);
  g_object_set_data_full (G_OBJECT (radio), "qf-helper", helper_key (helper), g_free);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (radio),
                               g_strcmp0 (g_object_get_data (G_OBJECT (radio), "qf-helper"), self->chosen) == 0);
  g_signal_connect (radio, "toggled", G_CALLBACK (helper_toggled), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (radio), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  return row;
}

/* One row per helper heard; rebuilt only when what they show changed, so a radio does not move
 * under the person's finger every few seconds. */
static void
rebuild_helpers (QfNetworkPage *self)
{
  g_autoptr(GString) shown = g_string_new (NULL);
  GtkCheckButton *leader = NULL;
  GtkWidget *child;

  for (guint i = 0; self->helpers != NULL && i < self->helpers->len; i++)
    {
      QfHelperInfo *helper = g_ptr_array_index (self->helpers, i);
      g_autofree char *subtitle = describe_helper (self, helper);

      g_string_append_printf (shown, "%s\t%s\t%s\n", helper->instance, helper->name ? helper->name : "", subtitle);
    }
  if (g_strcmp0 (shown->str, self->helpers_shown) == 0)
    return;
  g_free (self->helpers_shown);
  self->helpers_shown = g_string_free (g_steal_pointer (&shown), FALSE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->helpers_list))) != NULL)
    gtk_list_box_remove (self->helpers_list, child);
  for (guint i = 0; self->helpers != NULL && i < self->helpers->len; i++)
    {
      GtkWidget *row = create_helper_row (self, g_ptr_array_index (self->helpers, i), leader);

      if (leader == NULL)
        leader = GTK_CHECK_BUTTON (adw_action_row_get_activatable_widget (ADW_ACTION_ROW (row)));
      gtk_list_box_append (self->helpers_list, row);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->helpers_list), leader != NULL);
}

/* After each browse: the helper whose address is in the address row is the chosen one; with
 * exactly one helper heard, it is chosen — unless the person typed another address. */
static void
auto_choose (QfNetworkPage *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->peer_row));

  if (self->helpers == NULL || lookup_helper (self, self->chosen) != NULL)
    return;
  for (guint i = 0; *text != '\0' && i < self->helpers->len; i++)
    {
      QfHelperInfo *helper = g_ptr_array_index (self->helpers, i);

      if (helper->addresses != NULL && g_strv_contains ((const char *const *) helper->addresses, text))
        {
          g_free (self->chosen);
          self->chosen = helper_key (helper);
          sync_helper_radios (self);
          return;
        }
    }
  if (self->helpers->len == 1 && (*text == '\0' || g_strcmp0 (text, self->filled) == 0))
    choose_helper (self, g_ptr_array_index (self->helpers, 0), FALSE);
}

static void
update_helpers_status (QfNetworkPage *self,
                       const GError  *error)
{
  g_autofree char *iface = self->browse_iface != NULL ? qf_text_clean (self->browse_iface, -1) : NULL;
  g_autofree char *text = NULL;
  guint heard = self->helpers != NULL ? self->helpers->len : 0;

  if (!g_settings_get_boolean (self->settings, "discovery"))
    text = g_strdup (_("Discovery is turned off: type the helper machine's address."));
  else if (iface == NULL)
    text = g_strdup (_("Choose a network interface to look for helper machines on it."));
  else if (error != NULL)
    text = g_strdup_printf (_("Cannot look for helper machines on %s: %s"), iface, error->message);
  else if (self->helpers == NULL)
    text = g_strdup_printf (_("Looking for helper machines on %s…"), iface);
  else if (heard == 0)
    text = g_strdup_printf (_("No helper machine answers on %s. Check that the helper machine shows "
                              "Qualify's helper page (“Be the helper machine” on its first page) or runs "
                              "“qualify-cli serve”, that the cable is plugged in at both ends, and that "
                              "both PCs are on the same network. You can still type its address."), iface);
  else if (heard == 1)
    text = g_strdup_printf (_("One helper machine answers on %s."), iface);
  else
    text = g_strdup_printf (qf_ngettext ("%u helper machine answers on %s: choose one.",
                                      "%u helper machines answer on %s: choose one.", heard),
                            heard, iface);
  if (self->helpers != NULL && error == NULL)
    {
      /* two hosts claiming one name: said as loudly as the CLI does (qf-discover.h) */
      g_autofree char *conflicts = qf_discover_describe_conflicts (self->helpers);

      if (conflicts != NULL)
        {
          char *both = g_strconcat (text, "\n", conflicts, NULL);

          g_free (text);
          text = both;
        }
    }
  set_label (self->helpers_status, text);
}

/* ---------------------------------------------------------------- browsing */

static void browse_start (QfNetworkPage *self);

static gboolean
browse_again (gpointer data)
{
  QfNetworkPage *self = data;

  self->browse_timeout_id = 0;
  browse_start (self);
  return G_SOURCE_REMOVE;
}

static void
browse_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(QfNetworkPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) helpers = qf_discover_finish (result, &error);

  /* cancelled: the page hid, the interface changed or the window closed; a newer browse may run */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->browse_cancellable);
  gtk_spinner_stop (self->browse_spinner);
  g_clear_pointer (&self->helpers, g_ptr_array_unref);
  self->helpers = helpers != NULL ? g_steal_pointer (&helpers)
                                  : g_ptr_array_new_with_free_func ((GDestroyNotify) qf_helper_info_free);
  rebuild_helpers (self);
  auto_choose (self);
  update_code_row (self);
  update_helpers_status (self, error);
  self->browse_timeout_id = g_timeout_add (BROWSE_PAUSE_MS, browse_again, self);
}

/* Not for training against the emulated link: that measures the built-in peer only; not where
 * the person turned discovery off (the "discovery" setting: sites that forbid multicast). */
static gboolean
browsing_wanted (QfNetworkPage *self)
{
  return gtk_widget_get_sensitive (GTK_WIDGET (self->builtin_switch)) && self->browse_iface != NULL
         && g_settings_get_boolean (self->settings, "discovery");
}

static void
browse_start (QfNetworkPage *self)
{
  if (self->browse_cancellable != NULL || self->browse_timeout_id != 0 || !browsing_wanted (self))
    return;
  self->browse_cancellable = g_cancellable_new ();
  gtk_spinner_start (self->browse_spinner);
  qf_discover_async (self->browse_iface, BROWSE_MS, self->browse_cancellable, browse_done,
                     g_object_ref (self));
}

static void
browse_stop (QfNetworkPage *self)
{
  g_clear_handle_id (&self->browse_timeout_id, g_source_remove);
  if (self->browse_cancellable != NULL)
    g_cancellable_cancel (self->browse_cancellable);
  g_clear_object (&self->browse_cancellable);
  if (self->browse_spinner != NULL)
    gtk_spinner_stop (self->browse_spinner);
}

/* The "discovery" setting changed: look for helpers again, or stop, and say which. */
static void
discovery_changed (QfNetworkPage *self)
{
  if (!g_settings_get_boolean (self->settings, "discovery"))
    browse_stop (self);
  else if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    browse_start (self);
  update_helpers_status (self, NULL);
}

/* The interface chosen (again, after each rebuild of the list): its note, and the helpers heard
 * on it — a new interface starts a new list. */
static void
iface_chosen (QfNetworkPage *self)
{
  update_direct_note (self);
  qf_net_audit_group_set_iface (self->audit_group, self->selected);
  if (g_strcmp0 (self->selected, self->browse_iface) == 0)
    return;
  browse_stop (self);
  g_free (self->browse_iface);
  self->browse_iface = g_strdup (self->selected);
  g_clear_pointer (&self->helpers, g_ptr_array_unref);
  g_clear_pointer (&self->chosen, g_free);
  rebuild_helpers (self);
  update_helpers_status (self, NULL);
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    browse_start (self);
}

static void
peer_changed (QfNetworkPage *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->peer_row));

  peer_chosen_changed (self);
  /* typing overrides the helper chosen from the list */
  if (self->updating || self->chosen == NULL || g_strcmp0 (text, self->filled) == 0)
    return;
  g_clear_pointer (&self->chosen, g_free);
  g_clear_pointer (&self->filled, g_free);
  sync_helper_radios (self);
  update_code_row (self);
}

/* ---------------------------------------------------------------- the helper machine */

static void
builtin_changed (QfNetworkPage *self)
{
  gboolean builtin = gtk_switch_get_active (self->builtin_switch);

  if (!self->updating)
    self->builtin_touched = TRUE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->peer_group), !builtin);
  gtk_widget_set_sensitive (GTK_WIDGET (self->token_group), !builtin);
  gtk_widget_set_visible (GTK_WIDGET (self->peer_status), FALSE);
  peer_chosen_changed (self);
}

void
qf_network_page_set_builtin_only (QfNetworkPage *self,
                                  gboolean       only)
{
  g_return_if_fail (QF_IS_NETWORK_PAGE (self));
  self->updating = TRUE;
  if (only)
    gtk_switch_set_active (self->builtin_switch, TRUE);
  /* training held it on; a real run chooses its peer again, never the built-in one by default */
  else if (self->builtin_forced)
    gtk_switch_set_active (self->builtin_switch, FALSE);
  self->builtin_forced = only;
  self->updating = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->builtin_switch), !only);
  gtk_widget_set_visible (GTK_WIDGET (self->found_group), !only);
  if (only)
    browse_stop (self);
  else if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    browse_start (self);
}

const char *
qf_network_page_get_pairing_code (QfNetworkPage *self)
{
  const char *text;

  g_return_val_if_fail (QF_IS_NETWORK_PAGE (self), NULL);
  if (gtk_switch_get_active (self->builtin_switch) || !gtk_widget_get_visible (GTK_WIDGET (self->code_row)))
    return NULL;
  text = gtk_editable_get_text (GTK_EDITABLE (self->code_row));
  return text != NULL && *text != '\0' ? text : NULL;
}

/* The typed code as the access token; NULL when none is typed, or (said under the field) when
 * it cannot be a code. */
static GBytes *
code_token (QfNetworkPage  *self,
            gboolean       *malformed)
{
  const char *code = qf_network_page_get_pairing_code (self);
  g_autoptr(GError) error = NULL;
  GBytes *token = NULL;

  if (code != NULL)
    token = qf_pairing_code_to_token (code, &error);
  set_label (self->code_error, error != NULL ? error->message : NULL);
  *malformed = error != NULL;
  return token;
}

/* While typing, a code is judged once it is long enough to be whole. */
static void
code_changed (QfNetworkPage *self)
{
  const char *code = gtk_editable_get_text (GTK_EDITABLE (self->code_row));
  g_autoptr(GBytes) token = NULL;
  guint chars = 0;
  gboolean malformed;

  for (const char *c = code; c != NULL && *c != '\0'; c++)
    chars += g_ascii_isalnum (*c) ? 1 : 0;
  if (chars >= QF_PAIRING_CODE_CHARS)
    token = code_token (self, &malformed);
  else
    set_label (self->code_error, NULL);
}

static void
check_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(QfNetworkPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = qf_peer_check_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (self->check_button), TRUE);
  set_label (self->peer_status, answer ? qf_json_get_string (answer, "summary", "") : error->message);
  /* a helper that answers: the audit checks the path to it carries the interface's MTU */
  if (answer != NULL && !json_object_has_member (answer, "refused"))
    qf_net_audit_group_set_peer (self->audit_group, qf_network_page_get_peer_address (self));
  /* turned away for the code (or the token): ask for the code */
  if (answer != NULL && json_object_has_member (answer, "refused"))
    {
      self->code_refused = TRUE;
      update_code_row (self);
      if (qf_network_page_get_pairing_code (self) == NULL)
        gtk_widget_grab_focus (GTK_WIDGET (self->code_row));
    }
}

void
qf_network_page_get_peer_ports (QfNetworkPage *self,
                                guint16       *latency_port,
                                guint16       *bandwidth_port)
{
  const char *host;
  QfHelperInfo *helper;

  g_return_if_fail (QF_IS_NETWORK_PAGE (self));
  *latency_port = QF_PEER_DEFAULT_LATENCY_PORT;
  *bandwidth_port = QF_PEER_DEFAULT_BANDWIDTH_PORT;
  helper = lookup_helper (self, self->chosen);
  host = gtk_editable_get_text (GTK_EDITABLE (self->peer_row));
  if (gtk_switch_get_active (self->builtin_switch) || helper == NULL
      || g_strcmp0 (helper_address (self, helper), host) != 0)
    return;
  if (helper->latency_port != 0)
    *latency_port = helper->latency_port;
  if (helper->bandwidth_port != 0)
    *bandwidth_port = helper->bandwidth_port;
}

static void
check_clicked (QfNetworkPage *self)
{
  const char *host = gtk_editable_get_text (GTK_EDITABLE (self->peer_row));
  g_autoptr(GBytes) token = NULL;
  guint16 latency_port, bandwidth_port;
  gboolean malformed;

  token = code_token (self, &malformed);
  if (malformed)
    return;
  /* the chosen helper's own ports, as it announced them */
  qf_network_page_get_peer_ports (self, &latency_port, &bandwidth_port);
  gtk_widget_set_sensitive (GTK_WIDGET (self->check_button), FALSE);
  set_label (self->peer_status, _("Checking the helper machine…"));
  qf_peer_check_async (host, latency_port, bandwidth_port, qf_network_page_get_token_file (self),
                       token, self->cancellable, check_done, g_object_ref (self));
}

static void
token_chosen (GtkNativeDialog *dialog,
              int              response,
              QfNetworkPage   *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        gtk_editable_set_text (GTK_EDITABLE (self->token_row), path);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
token_choose_clicked (QfNetworkPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Access token file"),
                                        GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Choose"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (token_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}


static void
qf_network_page_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (qf_network_page_parent_class)->map (widget);
  browse_start (QF_NETWORK_PAGE (widget));
}

static void
qf_network_page_unmap (GtkWidget *widget)
{
  browse_stop (QF_NETWORK_PAGE (widget));
  GTK_WIDGET_CLASS (qf_network_page_parent_class)->unmap (widget);
}

static void
qf_network_page_dispose (GObject *object)
{
  QfNetworkPage *self = QF_NETWORK_PAGE (object);

  browse_stop (self);
  stop_waiting (self);
  g_cancellable_cancel (self->cancellable);
  if (self->ifaces_list != NULL)
    gtk_list_box_bind_model (self->ifaces_list, NULL, NULL, NULL, NULL);
  adw_bin_set_child (ADW_BIN (self), NULL);
  g_clear_object (&self->ifaces);
  G_OBJECT_CLASS (qf_network_page_parent_class)->dispose (object);
}

static void
qf_network_page_finalize (GObject *object)
{
  QfNetworkPage *self = QF_NETWORK_PAGE (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->helpers, g_ptr_array_unref);
  g_free (self->selected);
  g_free (self->browse_iface);
  g_free (self->helpers_shown);
  g_free (self->chosen);
  g_free (self->filled);
  G_OBJECT_CLASS (qf_network_page_parent_class)->finalize (object);
}

static void
qf_network_page_class_init (QfNetworkPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_network_page_dispose;
  object_class->finalize = qf_network_page_finalize;
  object_class->get_property = qf_network_page_get_property;
  properties[PROP_AUDIT_RUNNING] =
    g_param_spec_boolean ("audit-running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PEER_CHOSEN] =
    g_param_spec_boolean ("peer-chosen", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  widget_class->map = qf_network_page_map;
  widget_class->unmap = qf_network_page_unmap;
  g_type_ensure (QF_TYPE_NET_AUDIT_GROUP);
  g_type_ensure (QF_TYPE_ENTRY_ROW);
  g_type_ensure (QF_TYPE_PASSWORD_ENTRY_ROW);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-network-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, note_label);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, ifaces_list);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, builtin_switch);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, found_group);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, browse_spinner);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, direct_label);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, helpers_list);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, helpers_status);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, peer_group);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, peer_row);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, check_button);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, code_row);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, code_error);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, peer_status);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, token_group);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, token_expander);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, token_row);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, audit_group);
  gtk_widget_class_bind_template_callback (widget_class, check_clicked);
  gtk_widget_class_bind_template_callback (widget_class, token_choose_clicked);
}

static void
qf_network_page_init (QfNetworkPage *self)
{
  g_autofree char *peer = NULL;
  g_autofree char *token_file = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new (APP_ID);
  self->ifaces = qf_net_ifaces_new ();
  gtk_list_box_bind_model (self->ifaces_list, G_LIST_MODEL (self->ifaces), create_row, self, NULL);
  g_signal_connect_object (self->ifaces, "items-changed", G_CALLBACK (ifaces_changed), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->ifaces, "notify::note", G_CALLBACK (note_changed), self,
                           G_CONNECT_SWAPPED);
  /* The built-in peer is never chosen for the installer: its network figures are of this PC's
   * loopback, not of the link (verdict "not-over-link"). Until a helper machine answers, is
   * typed or remembered, or "This PC only" is set, there is no peer and Next waits. */
  peer = g_settings_get_string (self->settings, "peer");
  gtk_editable_set_text (GTK_EDITABLE (self->peer_row), peer);
  self->updating = TRUE;
  gtk_switch_set_active (self->builtin_switch, FALSE);
  builtin_changed (self);
  self->updating = FALSE;
  update_helpers_status (self, NULL);
  g_signal_connect_object (self->settings, "changed::discovery", G_CALLBACK (discovery_changed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->audit_group, "notify::running", G_CALLBACK (audit_running_changed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->builtin_switch, "notify::active", G_CALLBACK (builtin_changed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->peer_row, "changed", G_CALLBACK (peer_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->code_row, "changed", G_CALLBACK (code_changed), self, G_CONNECT_SWAPPED);
  g_settings_bind (self->settings, "peer", self->peer_row, "text", G_SETTINGS_BIND_SET);
  g_settings_bind (self->settings, "token-file", self->token_row, "text", G_SETTINGS_BIND_DEFAULT);
  token_file = g_settings_get_string (self->settings, "token-file");
  adw_expander_row_set_expanded (self->token_expander, *token_file != '\0');
}
