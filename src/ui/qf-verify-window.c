/* qf-verify-window.c — the verify view (src/ui): a large status saying whether a report is valid
 * and from a trusted signer, valid but from a signer not yet trusted, changed after signing, not
 * signed or not a Qualify report; then the signer, when it was signed, the PC, profile and overall
 * verdict from the signed data and, for a report that fails, what is wrong. "Trust This Signer"
 * remembers the signer's certificate (qf-trust.h); "Trusted Signers" lists and prunes them.
 * The check itself is qf_verify_file(), the one `qualify-cli verify` runs, on a GTask thread.
 * Template: ui/qf-verify-window.ui. */
#include "config.h"


#include "qf-cert.h"
#include "qf-i18n.h"
#include "qf-row-text.h"
#include "qf-trust.h"
#include "qf-verdict.h"
#include "qf-verify-window.h"
#include "qf-verify.h"

struct _QfVerifyWindow
{
  AdwWindow          parent_instance;

  /* template widgets */
  AdwWindowTitle    *title_widget;
  GtkToggleButton   *signers_button;
  GtkStack          *views;
  GtkImage          *status_icon;
  GtkLabel          *status_label;
  GtkLabel          *explanation_label;
  GtkButton         *trust_button;
  AdwPreferencesGroup *problems_group;
  GtkLabel          *problems_label;
  AdwPreferencesGroup *signer_group;
  AdwActionRow      *signer_row;
  AdwActionRow      *company_row;
  AdwActionRow      *fingerprint_row;
  AdwActionRow      *signed_at_row;
  AdwPreferencesGroup *report_group;
  AdwActionRow      *pc_row;
  AdwActionRow      *profile_row;
  AdwActionRow      *verdict_row;
  AdwActionRow      *file_row;
  GtkLabel          *store_problem_label;
  GtkLabel          *no_signers_label;
  GtkListBox        *signers_list;

  /* owned */
  GFile             *file;
  QfVerifyResult    *result;
  GCancellable      *cancellable;
};

G_DEFINE_FINAL_TYPE (QfVerifyWindow, qf_verify_window, ADW_TYPE_WINDOW)

typedef struct
{
  const char *icon;
  const char *css;        /* colour of the status */
  const char *explanation;
} OutcomeLook;

static const OutcomeLook outcome_looks[] = {
  [QF_VERIFY_OUTCOME_TRUSTED] = { "security-high-symbolic", "success",
    N_("The report is exactly as it was signed, by a signer you trust.") },
  [QF_VERIFY_OUTCOME_UNTRUSTED] = { "security-medium-symbolic", "warning",
    N_("The report is exactly as it was signed. Compare the fingerprint below with the one the installer gave you; if they match, choose “Trust This Signer”.") },
  [QF_VERIFY_OUTCOME_CHANGED] = { "dialog-error-symbolic", "error",
    N_("Someone changed this file after it was signed, or the signature is not one Qualify writes. Do not rely on what it says; ask the installer for the original.") },
  [QF_VERIFY_OUTCOME_NOT_SIGNED] = { "security-low-symbolic", "error",
    N_("This report carries no signature, so anyone could have written or changed it. Ask the installer for a signed report.") },
  [QF_VERIFY_OUTCOME_NOT_REPORT] = { "dialog-question-symbolic", "dim-label",
    N_("This file is not a report written by Qualify, or it cannot be read.") },
};

static const char *const status_classes[] = { "success", "warning", "error", "dim-label" };

/* A fact row: its value as subtitle, hidden when there is none. */
static void
set_fact (AdwActionRow *row,
          const char   *value)
{
  qf_row_set_subtitle_text (GTK_WIDGET (row), value);
  gtk_widget_set_visible (GTK_WIDGET (row), value != NULL && *value != '\0');
}

static void
show_status (QfVerifyWindow  *self,
             QfVerifyOutcome  outcome)
{
  const OutcomeLook *look = &outcome_looks[outcome];

  gtk_image_set_from_icon_name (self->status_icon, look->icon);
  gtk_label_set_text (self->status_label, qf_verify_outcome_text (outcome));
  for (guint i = 0; i < G_N_ELEMENTS (status_classes); i++)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), status_classes[i]);
      gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), status_classes[i]);
    }
  gtk_widget_add_css_class (GTK_WIDGET (self->status_label), look->css);
  gtk_widget_add_css_class (GTK_WIDGET (self->status_icon), look->css);
  gtk_label_set_text (self->explanation_label, _(look->explanation));
  gtk_widget_set_visible (GTK_WIDGET (self->trust_button), outcome == QF_VERIFY_OUTCOME_UNTRUSTED);
}

static void
show_problems (QfVerifyWindow *self,
               GPtrArray      *problems,
               const char     *error_message)
{
  g_autoptr(GString) text = g_string_new (error_message);

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    g_string_append_printf (text, "%s• %s", text->len ? "\n" : "", (const char *) g_ptr_array_index (problems, i));
  gtk_label_set_text (self->problems_label, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->problems_group), text->len > 0);
}

/* "2024-05-01 14:03 (local time)" from ISO 8601 UTC; the input when it cannot be read. */
static char *
local_time (const char *iso)
{
  g_autoptr(GDateTime) utc = iso ? g_date_time_new_from_iso8601 (iso, NULL) : NULL;
  g_autoptr(GDateTime) local = utc ? g_date_time_to_local (utc) : NULL;

  return local ? g_date_time_format (local, "%Y-%m-%d %H:%M:%S %Z") : g_strdup (iso);
}

static char *
verdict_words (const char *overall)
{
  QfOverall value;

  if (overall == NULL)
    return NULL;
  if (!qf_overall_from_string (overall, &value))
    return g_strdup (overall);
  return g_strdup (qf_overall_to_label (value));
}

static void
show_facts (QfVerifyWindow       *self,
            const QfVerifyResult *r)
{
  g_autofree char *signed_at = local_time (r->signing_time);
  g_autofree char *verdict = verdict_words (r->overall_verdict);
  g_autofree char *path = g_file_get_path (self->file);
  g_autofree char *fingerprint = qf_cert_group_fingerprint_hex (r->signer_fingerprint);
  g_autofree char *label = qf_cert_signer_label (r->signer_name, r->signer_organization, r->signer);

  set_fact (self->signer_row, label);
  set_fact (self->company_row, r->signer_organization);
  set_fact (self->fingerprint_row, fingerprint);
  set_fact (self->signed_at_row, signed_at);
  gtk_widget_set_visible (GTK_WIDGET (self->signer_group), r->signer != NULL);
  set_fact (self->pc_row, r->pc);
  set_fact (self->profile_row, r->profile);
  set_fact (self->verdict_row, verdict);
  set_fact (self->file_row, path);
  gtk_widget_set_visible (GTK_WIDGET (self->report_group), TRUE);
}

static void
show_result (QfVerifyWindow *self,
             QfVerifyResult *result,
             const GError   *error)
{
  QfVerifyOutcome outcome = qf_verify_result_outcome (result);
  g_autofree char *warning = result != NULL ? qf_verify_result_warning (result) : NULL;

  g_clear_pointer (&self->result, qf_verify_result_free);
  self->result = result;
  show_status (self, outcome);
  /* An intact report by a not-yet-trusted signer is no problem to list: the status says it,
   * unless its certificate repeats the name of a signer the reader trusts. */
  show_problems (self, outcome == QF_VERIFY_OUTCOME_UNTRUSTED ? NULL : (result ? result->problems : NULL),
                 error ? error->message : warning);
  if (result != NULL)
    show_facts (self, result);
  else
    {
      gtk_widget_set_visible (GTK_WIDGET (self->signer_group), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->report_group), FALSE);
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "verify.trust-signer", outcome == QF_VERIFY_OUTCOME_UNTRUSTED);
}

static void
verify_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;
  QfVerifyResult *result = qf_verify_file (task_data, NULL, &error);

  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) qf_verify_result_free);
}

static void
verify_done (GObject      *source,
             GAsyncResult *res,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  QfVerifyResult *result = g_task_propagate_pointer (G_TASK (res), &error);
  QfVerifyWindow *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = QF_VERIFY_WINDOW (source);
  show_result (self, result, error);
}

void
qf_verify_window_open (QfVerifyWindow *self,
                       GFile          *file)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *path = NULL, *name = NULL;

  g_return_if_fail (QF_IS_VERIFY_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  g_set_object (&self->file, file);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  path = g_file_get_path (file);
  name = g_file_get_basename (file);
  adw_window_title_set_subtitle (self->title_widget, name ? name : "");
  gtk_toggle_button_set_active (self->signers_button, FALSE);
  gtk_label_set_text (self->status_label, _("Checking…"));
  gtk_label_set_text (self->explanation_label, "");
  gtk_widget_set_visible (GTK_WIDGET (self->trust_button), FALSE);
  task = g_task_new (self, self->cancellable, verify_done, NULL);
  g_task_set_return_on_cancel (task, TRUE);
  if (path == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("%s is not a local file; save it first, then verify the saved copy."), name);
      return;
    }
  g_task_set_task_data (task, g_steal_pointer (&path), g_free);
  g_task_run_in_thread (task, verify_thread);
}

static void refresh_signers (QfVerifyWindow *self);

static void
recheck (QfVerifyWindow *self)
{
  refresh_signers (self);
  if (self->file != NULL)
    qf_verify_window_open (self, self->file);
}

static void
remove_clicked (GtkButton      *button,
                QfVerifyWindow *self)
{
  const char *fingerprint = g_object_get_data (G_OBJECT (button), "qf-fingerprint");
  g_autoptr(GError) error = NULL;

  if (!qf_trust_remove (fingerprint, &error))
    g_warning ("%s", error->message);
  recheck (self);
}

static GtkWidget *
signer_row_new (QfVerifyWindow        *self,
                const QfTrustedSigner *signer)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
  const char *name = signer->name ? signer->name : signer->subject;
  g_autofree char *title = qf_cert_signer_label (signer->name, signer->organization, signer->subject);
  g_autofree char *remove_name = g_strdup_printf (_("Remove %s"), name);
  g_autofree char *shown_fingerprint = qf_cert_group_fingerprint_hex (signer->fingerprint);

  qf_row_set_title_text (ADW_PREFERENCES_ROW (row), title);
  qf_row_set_subtitle_text (row, shown_fingerprint);
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_set_tooltip_text (remove, remove_name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_name, -1);
  g_object_set_data_full (G_OBJECT (remove), "qf-fingerprint", g_strdup (signer->fingerprint), g_free);
  g_signal_connect_object (remove, "clicked", G_CALLBACK (remove_clicked), self, 0);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), remove);
  return row;
}

static void
refresh_signers (QfVerifyWindow *self)
{
  g_autoptr(GPtrArray) signers = qf_trust_list ();
  g_autoptr(GError) unsafe = NULL;
  GtkWidget *child;

  /* A store someone else could change counts for nothing (qf_trust_check_store): say why. */
  gtk_widget_set_visible (GTK_WIDGET (self->store_problem_label), !qf_trust_check_store (&unsafe));
  gtk_label_set_text (self->store_problem_label, unsafe != NULL ? unsafe->message : "");

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->signers_list))) != NULL)
    gtk_list_box_remove (self->signers_list, child);
  for (guint i = 0; i < signers->len; i++)
    gtk_list_box_append (self->signers_list, signer_row_new (self, g_ptr_array_index (signers, i)));
  gtk_widget_set_visible (GTK_WIDGET (self->signers_list), signers->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->no_signers_label), signers->len == 0);
}

static void
signers_toggled (QfVerifyWindow *self)
{
  gboolean show = gtk_toggle_button_get_active (self->signers_button);

  if (show)
    refresh_signers (self);
  gtk_stack_set_visible_child_name (self->views, show ? "signers" : "report");
}

static void
trust_signer_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  QfVerifyWindow *self = QF_VERIFY_WINDOW (widget);
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autoptr(GError) error = NULL;

  if (self->result == NULL || self->result->signer_certificate == NULL ||
      qf_verify_result_outcome (self->result) != QF_VERIFY_OUTCOME_UNTRUSTED)
    return;
  added = qf_trust_add (self->result->signer_certificate, &error);
  if (added == NULL)
    {
      show_problems (self, NULL, error->message);
      return;
    }
  recheck (self);
}

static void
open_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  qf_verify_window_choose (GTK_WINDOW (widget));
}

static void
qf_verify_window_dispose (GObject *object)
{
  QfVerifyWindow *self = QF_VERIFY_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);
  g_clear_pointer (&self->result, qf_verify_result_free);
  G_OBJECT_CLASS (qf_verify_window_parent_class)->dispose (object);
}

static void
qf_verify_window_class_init (QfVerifyWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = qf_verify_window_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-verify-window.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, QfVerifyWindow, name)
  BIND (title_widget); BIND (signers_button); BIND (views); BIND (status_icon); BIND (status_label);
  BIND (explanation_label); BIND (trust_button); BIND (problems_group); BIND (problems_label);
  BIND (signer_group); BIND (signer_row); BIND (company_row); BIND (fingerprint_row);
  BIND (signed_at_row); BIND (report_group); BIND (pc_row); BIND (profile_row); BIND (verdict_row);
  BIND (file_row); BIND (store_problem_label); BIND (no_signers_label); BIND (signers_list);
#undef BIND
  gtk_widget_class_bind_template_callback (widget_class, signers_toggled);
  gtk_widget_class_install_action (widget_class, "verify.trust-signer", NULL, trust_signer_activated);
  gtk_widget_class_install_action (widget_class, "verify.open", NULL, open_activated);
}

static void
qf_verify_window_init (QfVerifyWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "verify.trust-signer", FALSE);
  qf_verify_window_accept_drops (GTK_WIDGET (self));
  refresh_signers (self);
}

QfVerifyWindow *
qf_verify_window_present (GtkApplication *app,
                          GFile          *file)
{
  QfVerifyWindow *self = NULL;

  g_return_val_if_fail (GTK_IS_APPLICATION (app), NULL);
  for (GList *l = gtk_application_get_windows (app); l != NULL && self == NULL; l = l->next)
    if (QF_IS_VERIFY_WINDOW (l->data))
      self = l->data;
  if (self == NULL)
    self = g_object_new (QF_TYPE_VERIFY_WINDOW, "application", app, NULL);
  if (file != NULL)
    qf_verify_window_open (self, file);
  gtk_window_present (GTK_WINDOW (self));
  return self;
}

static void
report_chosen (GtkNativeDialog *dialog,
               int              response,
               GtkApplication  *app)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  g_object_unref (dialog);
  if (file != NULL)
    qf_verify_window_present (app, file);
}

void
qf_verify_window_choose (GtkWindow *parent)
{
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  g_return_if_fail (GTK_IS_WINDOW (parent));
  chooser = gtk_file_chooser_native_new (_("Choose a report to verify"), parent,
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Verify"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("Reports (PDF, HTML)"));
  gtk_file_filter_add_mime_type (filter, "application/pdf");
  gtk_file_filter_add_mime_type (filter, "text/html");
  gtk_file_filter_add_pattern (filter, "*.pdf");
  gtk_file_filter_add_pattern (filter, "*.html");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (report_chosen), gtk_window_get_application (parent));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static gboolean
files_dropped (GtkDropTarget *target,
               const GValue  *value,
               double         x,
               double         y,
               gpointer       user_data)
{
  GSList *files = g_value_get_boxed (value);
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (target));
  GtkWindow *window = GTK_WINDOW (gtk_widget_get_root (widget));
  GtkApplication *app = gtk_window_get_application (window);

  if (files == NULL || app == NULL)
    return FALSE;
  qf_verify_window_present (app, files->data);
  return TRUE;
}

void
qf_verify_window_accept_drops (GtkWidget *widget)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (target, "drop", G_CALLBACK (files_dropped), NULL);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (target));
}
