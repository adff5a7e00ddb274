/* qf-net-audit-group.c — "Network readiness" on the network page (src/ui): the core's network
 * audit of the chosen interface (qf-net-audit.h) as the system page shows its audit
 * (qf-check-row.h), read on a worker thread and read again when the interface changes or
 * NetworkManager reports a change of it. A finding NetworkManager can hold (qf-nm-fix.h) gets an
 * "Apply" button: a dialog shows the exact change and its nmcli equivalent first, and only its
 * "Apply the change" changes the connection; then "Undo" writes the settings of before back.
 * NetworkManager asks polkit with user interaction allowed for every settings change, so where a
 * desktop session runs an authentication agent the person is asked for a password, as GNOME
 * Settings has them asked; Qualify sees no password. Template: ui/qf-net-audit-group.ui. */
#include "config.h"


#include "qf-check-row.h"
#include "qf-i18n.h"
#include "qf-message-dialog.h"
#include "qf-net-audit-group.h"
#include "qf-net-audit.h"
#include "qf-nm-fix.h"

/* NetworkManager's signals come in bursts (a reactivation passes through several states): one
 * audit after the burst. */
#define SETTLE_MS 400

struct _QfNetAuditGroup
{
  AdwPreferencesGroup  parent_instance;

  /* template widgets */
  GtkSpinner          *spinner;
  GtkButton           *recheck_button;

  /* owned */
  GCancellable        *cancellable;      /* the client and the fixes; cancelled on dispose */
  GCancellable        *run_cancellable;  /* the audit running now */
  NMClient            *client;           /* NULL: NetworkManager not (yet) answering */
  NMDevice            *device;           /* watched: the chosen interface's device */
  NMRemoteConnection  *connection;       /* watched: its connection */
  char                *iface;
  char                *peer;
  char                *shown_iface;      /* the interface the rows show */
  GPtrArray           *checks;           /* of QfNetAuditCheck, shown */
  GPtrArray           *rows;
  GHashTable          *applied;          /* "IFACE/CHECK" -> QfNmFix applied, to undo */
  guint                settle_id;
  gboolean             busy;             /* a fix is being applied or undone */
  gboolean             running;          /* an audit runs or is about to ("running") */
};

G_DEFINE_FINAL_TYPE (QfNetAuditGroup, qf_net_audit_group, ADW_TYPE_PREFERENCES_GROUP)

enum { PROP_0, PROP_RUNNING, N_PROPS };
static GParamSpec *properties[N_PROPS];

/* "running" follows the audit job and the pause before one. */
static void
update_running (QfNetAuditGroup *self)
{
  gboolean running = self->run_cancellable != NULL || self->settle_id != 0;

  if (running == self->running)
    return;
  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

gboolean
qf_net_audit_group_get_running (QfNetAuditGroup *self)
{
  g_return_val_if_fail (QF_IS_NET_AUDIT_GROUP (self), FALSE);
  return self->running;
}

typedef struct
{
  char      *iface;
  char      *peer;
  QfNmFacts *facts;
  gboolean   nm_asked;   /* a client asked NetworkManager: facts NULL means not running */
} Job;

static void
job_free (Job *job)
{
  g_free (job->iface);
  g_free (job->peer);
  qf_nm_facts_free (job->facts);
  g_free (job);
}

static char *
fix_key (const char *iface,
         const char *check_id)
{
  return g_strconcat (iface, "/", check_id, NULL);
}

/* ---------------------------------------------------------------- rows */

static void
clear_rows (QfNetAuditGroup *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (ADW_PREFERENCES_GROUP (self), g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
}

/* What the row opens to: why it matters, the value recommended and both fixes. */
static char *
detail_text (const QfNetAuditCheck *check)
{
  GString *text = g_string_new (check->advice);

  g_string_append (text, "\n\n");
  g_string_append_printf (text, _("Recommended: %s"), check->recommended);
  if (check->fix != NULL && *check->fix != '\0')
    {
      g_string_append_c (text, '\n');
      g_string_append_printf (text, _("Command: %s"), check->fix);
    }
  if (check->fix_nm != NULL)
    {
      g_string_append_c (text, '\n');
      g_string_append_printf (text, _("To keep it after a reboot: %s"), check->fix_nm);
    }
  return g_string_free (text, FALSE);
}

static void apply_clicked (GtkButton *button, QfNetAuditGroup *self);
static void undo_clicked  (GtkButton *button, QfNetAuditGroup *self);

static void
add_fix_button (QfNetAuditGroup       *self,
                GtkWidget             *row,
                const QfNetAuditCheck *check,
                QfNmFix               *fix,
                gboolean               applied)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (applied ? _("_Undo") : _("_Apply…"));
  g_autofree char *accessible = applied ? g_strdup_printf (_("Undo the change to “%s”"), check->title)
                                        : g_strdup_printf (_("Apply the fix for “%s”"), check->title);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_sensitive (button, !self->busy);
  if (!applied)
    gtk_widget_add_css_class (button, "suggested-action");
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  g_object_set_data_full (G_OBJECT (button), "qf-fix", g_object_ref (fix), g_object_unref);
  g_signal_connect_object (button, "clicked", G_CALLBACK (applied ? undo_clicked : apply_clicked), self, 0);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), button);
}

/* Under the advice of a finding whose fix is applied: what changed, and how it took effect. */
static void
add_applied_note (GtkWidget *row,
                  QfNmFix   *fix)
{
  g_autofree char *text = NULL;

  text = qf_nm_fix_get_note (fix) != NULL
           ? g_strdup_printf (_("Applied: %s\n%s"), qf_nm_fix_get_description (fix), qf_nm_fix_get_note (fix))
           : g_strdup_printf (_("Applied: %s"), qf_nm_fix_get_description (fix));
  qf_check_row_add_text (row, text);
}

static void
add_row (QfNetAuditGroup       *self,
         const QfNetAuditCheck *check)
{
  g_autofree char *detail = detail_text (check);
  g_autofree char *key = fix_key (self->shown_iface, check->id);
  GtkWidget *row = qf_check_row_new (check->title, check->status, check->found, detail);
  QfNmFix *applied = g_hash_table_lookup (self->applied, key);

  if (applied != NULL)
    {
      add_fix_button (self, row, check, applied, TRUE);
      add_applied_note (row, applied);
    }
  else if (self->client != NULL && check->nm_settings != NULL
           && (check->status == QF_AUDIT_WARN || check->status == QF_AUDIT_FAIL))
    {
      /* only where the core can make the row's own change exactly; otherwise the row shows the
       * commands */
      g_autoptr(GError) error = NULL;
      g_autoptr(QfNmFix) fix = qf_nm_fix_new_for_check (self->client, self->shown_iface, check, &error);

      if (fix != NULL)
        {
          g_object_set_data_full (G_OBJECT (fix), "qf-key", g_steal_pointer (&key), g_free);
          add_fix_button (self, row, check, fix, FALSE);
        }
      else
        g_debug ("no fix for %s on %s: %s", check->id, self->shown_iface, error->message);
    }
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self), row);
  g_ptr_array_add (self->rows, g_object_ref (row));
}

static void
describe (QfNetAuditGroup *self,
          const char      *error)
{
  QfAuditStatus worst = QF_AUDIT_OK;
  const char *text;

  for (guint i = 0; self->checks != NULL && i < self->checks->len; i++)
    {
      QfNetAuditCheck *check = g_ptr_array_index (self->checks, i);

      if (check->status == QF_AUDIT_FAIL || (check->status == QF_AUDIT_WARN && worst != QF_AUDIT_FAIL))
        worst = check->status;
    }
  if (error != NULL)
    text = error;
  else if (self->iface == NULL)
    text = _("Choose an interface above: its settings are checked here.");
  else if (worst == QF_AUDIT_FAIL)
    text = _("Some settings of this interface will spoil the network tests: open a row for the fix.");
  else if (worst == QF_AUDIT_WARN)
    text = _("Some settings of this interface add delay: open a row for the advice.");
  else
    text = _("This interface is set up for low latency.");
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self), text);
}

static void
show (QfNetAuditGroup *self,
      const char      *iface,
      GPtrArray       *checks)   /* taken */
{
  clear_rows (self);
  g_clear_pointer (&self->checks, g_ptr_array_unref);
  g_free (self->shown_iface);
  self->shown_iface = g_strdup (iface);
  self->checks = checks;
  for (guint i = 0; checks != NULL && i < checks->len; i++)
    add_row (self, g_ptr_array_index (checks, i));
}

/* ---------------------------------------------------------------- the audit */

static void
audit_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Job *job = task_data;
  QfNetAuditConfig config = { .root = "/", .iface = job->iface, .nm = job->facts, .nm_asked = job->nm_asked,
                              .peer = job->peer };
  GError *error = NULL;
  GPtrArray *checks = qf_net_audit_run (&config, &error);

  if (checks != NULL)
    g_task_return_pointer (task, checks, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

static void
audit_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  QfNetAuditGroup *self = QF_NET_AUDIT_GROUP (object);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  GPtrArray *checks = g_task_propagate_pointer (G_TASK (result), &error);

  /* cancelled: a newer audit runs, or the page is gone */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->run_cancellable);
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->recheck_button), TRUE);
  show (self, job->iface, checks);
  describe (self, error != NULL ? error->message : NULL);
  update_running (self);
}

static void schedule (QfNetAuditGroup *self);

/* Follows the chosen interface's device and connection in NetworkManager. */
static void
watch (QfNetAuditGroup *self)
{
  NMDevice *device = self->client != NULL && self->iface != NULL
                       ? nm_client_get_device_by_iface (self->client, self->iface) : NULL;
  NMRemoteConnection *connection = device != NULL ? qf_nm_device_connection (device) : NULL;

  if (device != self->device)
    {
      if (self->device != NULL)
        g_signal_handlers_disconnect_by_data (self->device, self);
      g_set_object (&self->device, device);
      if (device != NULL)
        {
          g_signal_connect_swapped (device, "state-changed", G_CALLBACK (schedule), self);
          g_signal_connect_swapped (device, "notify::active-connection", G_CALLBACK (schedule), self);
          g_signal_connect_swapped (device, "notify::available-connections", G_CALLBACK (schedule), self);
        }
    }
  if (connection != self->connection)
    {
      if (self->connection != NULL)
        g_signal_handlers_disconnect_by_data (self->connection, self);
      g_set_object (&self->connection, connection);
      if (connection != NULL)
        g_signal_connect_swapped (connection, "changed", G_CALLBACK (schedule), self);
    }
}

void
qf_net_audit_group_refresh (QfNetAuditGroup *self)
{
  g_autoptr(GTask) task = NULL;
  Job *job;

  g_return_if_fail (QF_IS_NET_AUDIT_GROUP (self));
  g_clear_handle_id (&self->settle_id, g_source_remove);
  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
  g_clear_object (&self->run_cancellable);
  watch (self);
  if (self->iface == NULL)
    {
      gtk_spinner_stop (self->spinner);
      show (self, NULL, NULL);
      describe (self, NULL);
      update_running (self);
      return;
    }
  job = g_new0 (Job, 1);
  job->iface = g_strdup (self->iface);
  job->peer = g_strdup (self->peer);
  /* libnm's objects belong to this thread: its facts are copied here, the rest read there */
  job->facts = self->client != NULL ? qf_nm_facts_from_client (self->client, self->iface) : NULL;
  job->nm_asked = self->client != NULL;
  self->run_cancellable = g_cancellable_new ();
  gtk_spinner_start (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->recheck_button), FALSE);
  task = g_task_new (self, self->run_cancellable, audit_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, audit_thread);
  update_running (self);
}

static gboolean
settled (gpointer data)
{
  QfNetAuditGroup *self = data;

  self->settle_id = 0;
  qf_net_audit_group_refresh (self);
  return G_SOURCE_REMOVE;
}

static void
schedule (QfNetAuditGroup *self)
{
  g_clear_handle_id (&self->settle_id, g_source_remove);
  self->settle_id = g_timeout_add (SETTLE_MS, settled, self);
  update_running (self);
}

void
qf_net_audit_group_set_iface (QfNetAuditGroup *self,
                              const char      *iface)
{
  g_return_if_fail (QF_IS_NET_AUDIT_GROUP (self));
  if (g_strcmp0 (iface, self->iface) == 0)
    return;
  g_free (self->iface);
  self->iface = g_strdup (iface);
  qf_net_audit_group_refresh (self);
}

void
qf_net_audit_group_set_peer (QfNetAuditGroup *self,
                             const char      *peer)
{
  g_return_if_fail (QF_IS_NET_AUDIT_GROUP (self));
  if (g_strcmp0 (peer, self->peer) == 0)
    return;
  g_free (self->peer);
  self->peer = g_strdup (peer);
  if (self->iface != NULL)
    qf_net_audit_group_refresh (self);
}

GPtrArray *
qf_net_audit_group_get_checks (QfNetAuditGroup *self,
                               const char      *iface)
{
  g_return_val_if_fail (QF_IS_NET_AUDIT_GROUP (self), NULL);
  return iface != NULL && g_strcmp0 (iface, self->shown_iface) == 0 ? self->checks : NULL;
}

/* ---------------------------------------------------------------- apply and undo */

static void
set_busy (QfNetAuditGroup *self,
          gboolean         busy)
{
  self->busy = busy;
  for (guint i = 0; i < self->rows->len; i++)
    gtk_widget_set_sensitive (g_ptr_array_index (self->rows, i), !busy);
  if (busy)
    gtk_spinner_start (self->spinner);
  else
    gtk_spinner_stop (self->spinner);
}

static GtkWindow *
parent_window (QfNetAuditGroup *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

static gboolean
permission_denied (const GError *error)
{
  return g_error_matches (error, NM_SETTINGS_ERROR, NM_SETTINGS_ERROR_PERMISSION_DENIED)
         || g_error_matches (error, NM_MANAGER_ERROR, NM_MANAGER_ERROR_PERMISSION_DENIED)
         || g_error_matches (error, NM_DEVICE_ERROR, NM_DEVICE_ERROR_NOT_ALLOWED)
         || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED)
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
}

/* The cause and what to do about it, for the person. */
static char *
explain_error (const GError *error,
               QfNmFix      *fix,
               gboolean      undoing)
{
  g_autoptr(GError) plain = g_error_copy (error);

  g_dbus_error_strip_remote_error (plain);
  if (error->domain == QF_NM_FIX_ERROR)
    return g_strdup (plain->message);
  if (permission_denied (error))
    return g_strdup_printf (_("NetworkManager did not allow the change (%s): this account may not change "
                              "network settings, or no password was given. Click the button again and "
                              "give an administrator’s password when asked, or run as an administrator: %s"),
                            plain->message, undoing ? "nmcli connection edit" : qf_nm_fix_get_command (fix));
  if (undoing)
    return g_strdup_printf (_("NetworkManager could not restore the connection “%s” (%s). Its changed "
                              "settings stay as they are; click Undo again once NetworkManager runs and "
                              "manages the interface."),
                            qf_nm_fix_get_connection_id (fix), plain->message);
  return g_strdup_printf (_("NetworkManager could not change the connection “%s” (%s); nothing was changed. "
                            "Check that NetworkManager runs and manages the interface, or run the command "
                            "in a terminal to see its full answer: %s"),
                          qf_nm_fix_get_connection_id (fix), plain->message, qf_nm_fix_get_command (fix));
}

static void
show_error (QfNetAuditGroup *self,
            const char      *heading,
            const char      *body)
{
  GtkWidget *dialog = qf_message_dialog_new (parent_window (self), heading, body);

  qf_message_dialog_add_response (QF_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
fix_done (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(QfNetAuditGroup) self = user_data;
  QfNmFix *fix = QF_NM_FIX (object);
  gboolean undoing = g_task_get_source_tag (G_TASK (result)) == qf_nm_fix_undo_async;
  const char *key = g_object_get_data (object, "qf-key");
  g_autoptr(GError) error = NULL;
  gboolean ok = undoing ? qf_nm_fix_undo_finish (fix, result, &error)
                        : qf_nm_fix_apply_finish (fix, result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  set_busy (self, FALSE);
  if (!ok)
    {
      g_autofree char *body = explain_error (error, fix, undoing);

      show_error (self, undoing ? _("The change was not undone") : _("The change was not applied"), body);
    }
  else if (undoing)
    g_hash_table_remove (self->applied, key);
  else
    g_hash_table_replace (self->applied, g_strdup (key), g_object_ref (fix));
  /* check again at once: what the rows say now comes from the interface, not from the click */
  qf_net_audit_group_refresh (self);
}

static void
start (QfNetAuditGroup *self,
       QfNmFix         *fix,
       gboolean         undoing)
{
  if (self->busy)
    return;
  set_busy (self, TRUE);
  if (undoing)
    qf_nm_fix_undo_async (fix, self->cancellable, fix_done, g_object_ref (self));
  else
    qf_nm_fix_apply_async (fix, self->cancellable, fix_done, g_object_ref (self));
}

static void
apply_response (QfMessageDialog *dialog,
                const char       *response,
                QfNetAuditGroup  *self)
{
  if (g_str_equal (response, "apply"))
    start (self, g_object_get_data (G_OBJECT (dialog), "qf-fix"), FALSE);
}

/* The exact change first; nothing changes until "Apply the change". */
static void
apply_clicked (GtkButton       *button,
               QfNetAuditGroup *self)
{
  QfNmFix *fix = g_object_get_data (G_OBJECT (button), "qf-fix");
  g_autofree char *heading = g_strdup_printf (_("Change the connection “%s”?"), qf_nm_fix_get_connection_id (fix));
  g_autofree char *body = g_strdup_printf (_("%s\n\nNetworkManager stores the change in the connection, so it "
                                             "stays after a reboot, and may ask for your password. The link "
                                             "may drop for a moment. “Undo” puts the connection’s settings "
                                             "back exactly as they are now.\n\nThe same change with nmcli:"),
                                           qf_nm_fix_get_description (fix));
  GtkWidget *dialog = qf_message_dialog_new (parent_window (self), heading, body);
  GtkWidget *command = gtk_label_new (qf_nm_fix_get_command (fix));

  gtk_label_set_selectable (GTK_LABEL (command), TRUE);
  gtk_label_set_wrap (GTK_LABEL (command), TRUE);
  gtk_widget_add_css_class (command, "monospace");
  qf_message_dialog_set_extra_child (QF_MESSAGE_DIALOG (dialog), command);
  qf_message_dialog_add_responses (QF_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"),
                                   "apply", _("_Apply the change"), NULL);
  qf_message_dialog_set_response_appearance (QF_MESSAGE_DIALOG (dialog), "apply", QF_RESPONSE_SUGGESTED);
  qf_message_dialog_set_default_response (QF_MESSAGE_DIALOG (dialog), "cancel");
  qf_message_dialog_set_close_response (QF_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "qf-fix", g_object_ref (fix), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (apply_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
undo_clicked (GtkButton       *button,
              QfNetAuditGroup *self)
{
  start (self, g_object_get_data (G_OBJECT (button), "qf-fix"), TRUE);
}

/* ---------------------------------------------------------------- NetworkManager */

static void
client_ready (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(QfNetAuditGroup) self = user_data;
  g_autoptr(GError) error = NULL;
  NMClient *client = nm_client_new_finish (result, &error);

  if (client == NULL)
    {
      /* no system bus, or the window closed: the audit goes on with the kernel's facts */
      g_debug ("NetworkManager: %s", error->message);
      return;
    }
  self->client = client;
  g_signal_connect_swapped (client, "notify::nm-running", G_CALLBACK (schedule), self);
  g_signal_connect_swapped (client, "device-added", G_CALLBACK (schedule), self);
  g_signal_connect_swapped (client, "device-removed", G_CALLBACK (schedule), self);
  g_signal_connect_swapped (client, "connection-added", G_CALLBACK (schedule), self);
  g_signal_connect_swapped (client, "connection-removed", G_CALLBACK (schedule), self);
  if (self->iface != NULL)
    qf_net_audit_group_refresh (self);
}

static void
qf_net_audit_group_dispose (GObject *object)
{
  QfNetAuditGroup *self = QF_NET_AUDIT_GROUP (object);

  g_cancellable_cancel (self->cancellable);
  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
  g_clear_object (&self->run_cancellable);
  g_clear_handle_id (&self->settle_id, g_source_remove);
  if (self->device != NULL)
    g_signal_handlers_disconnect_by_data (self->device, self);
  if (self->connection != NULL)
    g_signal_handlers_disconnect_by_data (self->connection, self);
  if (self->client != NULL)
    g_signal_handlers_disconnect_by_data (self->client, self);
  g_clear_object (&self->device);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->applied, g_hash_table_unref);
  g_clear_object (&self->client);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  adw_preferences_group_set_header_suffix (ADW_PREFERENCES_GROUP (self), NULL);
  G_OBJECT_CLASS (qf_net_audit_group_parent_class)->dispose (object);
}

static void
qf_net_audit_group_finalize (GObject *object)
{
  QfNetAuditGroup *self = QF_NET_AUDIT_GROUP (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->checks, g_ptr_array_unref);
  g_free (self->iface);
  g_free (self->peer);
  g_free (self->shown_iface);
  G_OBJECT_CLASS (qf_net_audit_group_parent_class)->finalize (object);
}

static void
qf_net_audit_group_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  QfNetAuditGroup *self = QF_NET_AUDIT_GROUP (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
qf_net_audit_group_class_init (QfNetAuditGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_net_audit_group_dispose;
  object_class->finalize = qf_net_audit_group_finalize;
  object_class->get_property = qf_net_audit_group_get_property;
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-net-audit-group.ui");
  gtk_widget_class_bind_template_child (widget_class, QfNetAuditGroup, spinner);
  gtk_widget_class_bind_template_child (widget_class, QfNetAuditGroup, recheck_button);
  gtk_widget_class_bind_template_callback (widget_class, qf_net_audit_group_refresh);
}

static void
qf_net_audit_group_init (QfNetAuditGroup *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
  self->applied = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  describe (self, NULL);
  nm_client_new_async (self->cancellable, client_ready, g_object_ref (self));
}
