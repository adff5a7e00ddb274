/* qf-network-page.c — step 3 of the wizard (src/ui): the interfaces from the core's
 * QfNetIfaces (NetworkManager, live, or the kernel with a note), one radio row each with its
 * state, addresses, speed, Wi-Fi network and signal, USB flag; and the helper machine's address
 * with "Check peer" (the core's qf-peer-check on a worker thread), or "This PC only". The choice survives the list's live rebuilds by interface name.
 * Template: ui/qf-network-page.ui. */
#include "config.h"

#include <glib/gi18n.h>

#include "qf-json.h"
#include "qf-network-page.h"
#include "qf-peer-check.h"

struct _QfNetworkPage
{
  AdwBin          parent_instance;

  /* template widgets */
  GtkLabel       *note_label;
  GtkListBox     *ifaces_list;
  GtkSwitch      *builtin_switch;
  AdwEntryRow    *peer_row;
  GtkButton      *check_button;
  AdwEntryRow    *token_row;
  GtkLabel       *peer_status;

  /* owned */
  GCancellable   *cancellable;
  QfNetIfaces    *ifaces;
  GSettings      *settings;
  char           *selected;       /* interface name */
  GtkCheckButton *group_leader;   /* first radio of the current rows (borrowed) */
};

G_DEFINE_FINAL_TYPE (QfNetworkPage, qf_network_page, ADW_TYPE_BIN)

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
      if (qf_net_iface_get_signal (iface) >= 0)
        g_ptr_array_add (parts, g_strdup_printf (_("“%s”, signal %d %%"), qf_net_iface_get_ssid (iface),
                                                 qf_net_iface_get_signal (iface)));
      else
        g_ptr_array_add (parts, g_strdup_printf ("“%s”", qf_net_iface_get_ssid (iface)));
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

static void
radio_toggled (GtkCheckButton *radio,
               QfNetworkPage  *self)
{
  if (!gtk_check_button_get_active (radio))
    return;
  g_free (self->selected);
  self->selected = g_strdup (g_object_get_data (G_OBJECT (radio), "qf-iface"));
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
  gboolean wireless = qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRELESS;

  title = g_strdup_printf ("%s — %s", qf_net_iface_get_name (iface), wireless ? _("Wireless") : _("Wired"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
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
}

static void
note_changed (QfNetworkPage *self)
{
  const char *note = qf_net_ifaces_get_note (self->ifaces);

  gtk_label_set_text (self->note_label, note ? note : "");
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note != NULL);
}

static void
builtin_changed (QfNetworkPage *self)
{
  gboolean builtin = gtk_switch_get_active (self->builtin_switch);

  gtk_widget_set_sensitive (GTK_WIDGET (self->peer_row), !builtin);
  gtk_widget_set_sensitive (GTK_WIDGET (self->token_row), !builtin);
  gtk_widget_set_visible (GTK_WIDGET (self->peer_status), FALSE);
}

void
qf_network_page_set_builtin_only (QfNetworkPage *self,
                                  gboolean       only)
{
  g_return_if_fail (QF_IS_NETWORK_PAGE (self));
  if (only)
    gtk_switch_set_active (self->builtin_switch, TRUE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->builtin_switch), !only);
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
  gtk_label_set_text (self->peer_status, answer ? qf_json_get_string (answer, "summary", "") : error->message);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->peer_status), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_label_get_text (self->peer_status), -1);
  gtk_widget_set_visible (GTK_WIDGET (self->peer_status), TRUE);
}

static void
check_clicked (QfNetworkPage *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->check_button), FALSE);
  gtk_label_set_text (self->peer_status, _("Checking the helper machine…"));
  gtk_widget_set_visible (GTK_WIDGET (self->peer_status), TRUE);
  qf_peer_check_async (gtk_editable_get_text (GTK_EDITABLE (self->peer_row)),
                       QF_PEER_DEFAULT_LATENCY_PORT, QF_PEER_DEFAULT_BANDWIDTH_PORT,
                       qf_network_page_get_token_file (self), NULL, self->cancellable, check_done,
                       g_object_ref (self));
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
qf_network_page_dispose (GObject *object)
{
  QfNetworkPage *self = QF_NETWORK_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  if (self->ifaces_list != NULL)
    gtk_list_box_bind_model (self->ifaces_list, NULL, NULL, NULL, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), QF_TYPE_NETWORK_PAGE);
  g_clear_object (&self->ifaces);
  G_OBJECT_CLASS (qf_network_page_parent_class)->dispose (object);
}

static void
qf_network_page_finalize (GObject *object)
{
  QfNetworkPage *self = QF_NETWORK_PAGE (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_free (self->selected);
  G_OBJECT_CLASS (qf_network_page_parent_class)->finalize (object);
}

static void
qf_network_page_class_init (QfNetworkPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_network_page_dispose;
  object_class->finalize = qf_network_page_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-network-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, note_label);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, ifaces_list);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, builtin_switch);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, peer_row);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, check_button);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, peer_status);
  gtk_widget_class_bind_template_child (widget_class, QfNetworkPage, token_row);
  gtk_widget_class_bind_template_callback (widget_class, check_clicked);
  gtk_widget_class_bind_template_callback (widget_class, token_choose_clicked);
}

static void
qf_network_page_init (QfNetworkPage *self)
{
  g_autofree char *peer = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new (APP_ID);
  self->ifaces = qf_net_ifaces_new ();
  gtk_list_box_bind_model (self->ifaces_list, G_LIST_MODEL (self->ifaces), create_row, self, NULL);
  g_signal_connect_object (self->ifaces, "items-changed", G_CALLBACK (ifaces_changed), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->ifaces, "notify::note", G_CALLBACK (note_changed), self,
                           G_CONNECT_SWAPPED);
  /* an empty remembered peer means the built-in one */
  peer = g_settings_get_string (self->settings, "peer");
  gtk_editable_set_text (GTK_EDITABLE (self->peer_row), peer);
  gtk_switch_set_active (self->builtin_switch, *peer == '\0');
  builtin_changed (self);
  g_signal_connect_object (self->builtin_switch, "notify::active", G_CALLBACK (builtin_changed),
                           self, G_CONNECT_SWAPPED);
  g_settings_bind (self->settings, "peer", self->peer_row, "text", G_SETTINGS_BIND_SET);
  g_settings_bind (self->settings, "token-file", self->token_row, "text", G_SETTINGS_BIND_DEFAULT);
}
