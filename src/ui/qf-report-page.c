/* qf-report-page.c — step 7 of the wizard (src/ui): the sign-off names (stored in the session),
 * the report language (GSettings; unset, the interface's), who will sign, and the export through the report module's
 * qf_report_export_dir() on a worker thread — signed with the installer's certificate when the
 * store has one, as `qualify-cli report` does. The first export without a certificate offers
 * to create or import one (QfCertDialog); cancelling exports unsigned and says so.
 * Template: ui/qf-report-page.ui. */
#include "config.h"


#include "qf-cert-dialog.h"
#include "qf-cert.h"
#include "qf-entry-row.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-message-dialog.h"
#include "qf-report-page.h"
#include "qf-report.h"
#include "qf-session-check.h"

struct _QfReportPage
{
  AdwBin        parent_instance;

  /* template widgets */
  QfEntryRow   *operator_row;
  QfEntryRow   *customer_row;
  QfEntryRow   *site_row;
  AdwComboRow  *language_row;
  AdwActionRow *export_row;
  AdwActionRow *signer_row;
  AdwPreferencesGroup *report_group;
  GtkSpinner   *spinner;
  GtkButton    *open_button;
  GtkButton    *export_button;

  /* owned */
  QfSession    *session;
  GSettings    *settings;
  GCancellable *cancellable;
  gboolean      offered;        /* the certificate dialog was offered once already */
  gboolean      declined;       /* … and cancelled: exports go unsigned until one exists */
  gboolean      draft;          /* this export: an unsigned draft, the names not all given */
};

G_DEFINE_FINAL_TYPE (QfReportPage, qf_report_page, ADW_TYPE_BIN)

static const char *languages[] = { "en", "zh_CN" };

typedef struct
{
  char     *dir;
  char     *language;
  gboolean  signed_;
  gboolean  declined;
  gboolean  draft;
} Export;

static void
export_free (Export *export)
{
  g_free (export->dir);
  g_free (export->language);
  g_free (export);
}

void
qf_report_page_refresh_signer (QfReportPage *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) summary = NULL;
  g_autofree char *text = NULL, *label = NULL;
  const char *holder, *company, *fingerprint;

  g_return_if_fail (QF_IS_REPORT_PAGE (self));
  summary = qf_cert_summarize_stored (&error);
  if (summary == NULL)
    {
      text = g_strdup_printf ("%s %s", _("This export will not be signed: there is no signing certificate."),
                              self->declined ? _("Create or import one under Main Menu › Signing Certificate.")
                                             : _("Export offers to create or import one."));
      adw_action_row_set_subtitle (self->signer_row, text);
      return;
    }
  holder = json_object_get_string_member (summary, "holder");
  company = json_object_get_string_member (summary, "company");
  fingerprint = json_object_get_string_member (summary, "fingerprint");
  label = qf_cert_signer_label (holder, company, NULL);
  /* Translators: "Signed by Li Wei, Example Robotics — fingerprint 3F2A 9C01 …" */
  text = g_strdup_printf (_("Signed by %s — fingerprint %s"), label != NULL ? label : "?", fingerprint);
  adw_action_row_set_subtitle (self->signer_row, text);
}

void
qf_report_page_set_session (QfReportPage *self,
                            QfSession    *session)
{
  JsonObject *root;

  g_return_if_fail (QF_IS_REPORT_PAGE (self));
  g_return_if_fail (QF_IS_SESSION (session));
  g_set_object (&self->session, session);
  root = qf_session_get_json (session);
  gtk_editable_set_text (GTK_EDITABLE (self->operator_row), qf_json_get_string (root, "operator", ""));
  gtk_editable_set_text (GTK_EDITABLE (self->customer_row), qf_json_get_string (root, "customer", ""));
  gtk_editable_set_text (GTK_EDITABLE (self->site_row), qf_json_get_string (root, "site", ""));
  /* a training run's report is never an acceptance: say so before it is exported */
  adw_preferences_group_set_description (self->report_group, qf_session_get_training (session) != NULL
                                         ? _("Training session: the report says so in its title and on every page. It is not an acceptance report.")
                                         : NULL);
  adw_action_row_set_subtitle (self->export_row, qf_session_get_dir (session));
  gtk_widget_set_sensitive (GTK_WIDGET (self->open_button), FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), qf_session_get_dir (session) != NULL);
  qf_report_page_refresh_signer (self);
}

static void
export_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Export *export = task_data;
  g_autoptr(QfSigner) signer = NULL;
  GError *error = NULL;

  if (!export->draft && qf_cert_store_exists ())
    {
      signer = qf_signer_load_default (&error);
      if (signer == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
    }
  export->signed_ = signer != NULL;
  if (!qf_report_export_dir (export->dir, export->language, signer, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
export_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  QfReportPage *self;
  Export *export = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error)
      && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = QF_REPORT_PAGE (object);
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), TRUE);
  if (error != NULL)
    {
      text = g_strdup_printf (_("Export failed: %s"), error->message);
      adw_action_row_set_subtitle (self->export_row, text);
      return;
    }
  if (export->signed_)
    text = g_strdup_printf (_("Written and signed: report.pdf and report.html in %s"), export->dir);
  else if (export->draft)
    text = g_strdup_printf (_("Written as an unsigned draft, because Operator, Customer or Site is empty: report.pdf and report.html in %s"),
                            export->dir);
  else if (export->declined)
    text = g_strdup_printf (_("Written without a signature, because no certificate was created: report.pdf and report.html in %s"),
                            export->dir);
  else
    text = g_strdup_printf (_("Written (not signed): report.pdf and report.html in %s"), export->dir);
  adw_action_row_set_subtitle (self->export_row, text);
  gtk_widget_set_sensitive (GTK_WIDGET (self->open_button), TRUE);
  qf_report_page_refresh_signer (self);
}

static void
start_export (QfReportPage *self)
{
  g_autoptr(GTask) task = NULL;
  Export *export;
  guint language = adw_combo_row_get_selected (self->language_row);

  export = g_new0 (Export, 1);
  export->dir = g_strdup (qf_session_get_dir (self->session));
  export->language = g_strdup (languages[MIN (language, G_N_ELEMENTS (languages) - 1)]);
  export->declined = self->declined;
  export->draft = self->draft;
  gtk_spinner_start (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), FALSE);
  adw_action_row_set_subtitle (self->export_row, _("Writing the report…"));
  task = g_task_new (self, self->cancellable, export_done, NULL);
  g_task_set_task_data (task, export, (GDestroyNotify) export_free);
  g_task_run_in_thread (task, export_thread);
}

static void
cert_dialog_finished (QfReportPage *self,
                      gboolean      created)
{
  self->declined = !created;
  self->draft = FALSE;
  qf_report_page_refresh_signer (self);
  if (self->session != NULL && qf_session_get_dir (self->session) != NULL)
    start_export (self);
}

/* The first export without a certificate: create or import one, in one dialog, prefilled
 * with the operator's name (the company is the installer's, which the dialog remembers); the export goes on when it closes, signed or not. */
static void
offer_certificate (QfReportPage *self)
{
  QfCertDialog *dialog;

  self->offered = TRUE;
  dialog = qf_cert_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                               _("Reports are signed with your certificate, so the customer can check who wrote them and that nothing changed since. You have none yet: create one or import your company's. Cancel exports this report without a signature."),
                               gtk_editable_get_text (GTK_EDITABLE (self->operator_row)));
  g_signal_connect_object (dialog, "finished", G_CALLBACK (cert_dialog_finished), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Signing, or about to offer a certificate to sign with: what export goes on to do. */
static void
export_signed (QfReportPage *self)
{
  self->draft = FALSE;
  if (qf_cert_store_exists ())
    self->declined = FALSE;
  else if (!self->offered)
    {
      offer_certificate (self);
      return;
    }
  start_export (self);
}

static void
names_response (QfMessageDialog *dialog,
                const char      *response,
                QfReportPage    *self)
{
  GtkWidget *rows[] = { GTK_WIDGET (self->operator_row), GTK_WIDGET (self->customer_row),
                        GTK_WIDGET (self->site_row) };

  if (g_strcmp0 (response, "draft") == 0)
    {
      self->draft = TRUE;
      start_export (self);
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    if (*gtk_editable_get_text (GTK_EDITABLE (rows[i])) == '\0')
      {
        gtk_widget_grab_focus (rows[i]);
        break;
      }
}

/* A signed report names who qualified the PC, for whom and where: ask for what is missing
 * before signing, or write an unsigned draft. */
static void
ask_for_names (QfReportPage *self,
               const char   *missing)
{
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  /* Translators: %s is e.g. "the customer and the site" */
  body = g_strdup_printf (_("A signed report says who qualified the PC, for whom and where, and this one does not name %s yet. "
                            "Fill them in to sign it, or export an unsigned draft now and sign it when they are known."),
                          missing);
  dialog = qf_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                  _("Names Missing for the Signature"), body);
  qf_message_dialog_add_responses (QF_MESSAGE_DIALOG (dialog), "draft", _("Export Unsigned _Draft"),
                                   "fill", _("_Fill In"), NULL);
  qf_message_dialog_set_response_appearance (QF_MESSAGE_DIALOG (dialog), "fill", QF_RESPONSE_SUGGESTED);
  qf_message_dialog_set_default_response (QF_MESSAGE_DIALOG (dialog), "fill");
  qf_message_dialog_set_close_response (QF_MESSAGE_DIALOG (dialog), "fill");
  g_signal_connect_object (dialog, "response", G_CALLBACK (names_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
export_clicked (QfReportPage *self)
{
  g_autofree char *missing = NULL;
  g_autoptr(GError) error = NULL;

  if (self->session == NULL || qf_session_get_dir (self->session) == NULL)
    return;
  /* the names as the session would take them back: ≤ 200 characters, no control characters */
  if (!qf_session_check_name (_("The operator's name"), gtk_editable_get_text (GTK_EDITABLE (self->operator_row)), &error)
      || !qf_session_check_name (_("The customer's name"), gtk_editable_get_text (GTK_EDITABLE (self->customer_row)), &error)
      || !qf_session_check_name (_("The site's name"), gtk_editable_get_text (GTK_EDITABLE (self->site_row)), &error))
    {
      adw_action_row_set_subtitle (self->export_row, error->message);
      return;
    }
  qf_session_set_people (self->session,
                         gtk_editable_get_text (GTK_EDITABLE (self->operator_row)),
                         gtk_editable_get_text (GTK_EDITABLE (self->customer_row)),
                         gtk_editable_get_text (GTK_EDITABLE (self->site_row)));
  if (!qf_session_save (self->session, &error))
    {
      adw_action_row_set_subtitle (self->export_row, error->message);
      return;
    }
  /* an export that would be signed, or offer a certificate to sign with */
  missing = qf_session_missing_sign_off (qf_session_get_json (self->session));
  if (missing != NULL && (qf_cert_store_exists () || !self->offered))
    {
      ask_for_names (self, missing);
      return;
    }
  export_signed (self);
}

static void
open_clicked (QfReportPage *self)
{
  g_autofree char *uri = NULL;

  if (self->session == NULL || qf_session_get_dir (self->session) == NULL)
    return;
  uri = g_filename_to_uri (qf_session_get_dir (self->session), NULL, NULL);
  if (uri != NULL)
    gtk_show_uri (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), uri, GDK_CURRENT_TIME);
}

static void
language_changed (QfReportPage *self)
{
  guint language = adw_combo_row_get_selected (self->language_row);

  if (language < G_N_ELEMENTS (languages))
    g_settings_set_string (self->settings, "report-language", languages[language]);
}

static void
qf_report_page_dispose (GObject *object)
{
  QfReportPage *self = QF_REPORT_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  adw_bin_set_child (ADW_BIN (self), NULL);
  g_clear_object (&self->session);
  G_OBJECT_CLASS (qf_report_page_parent_class)->dispose (object);
}

static void
qf_report_page_finalize (GObject *object)
{
  QfReportPage *self = QF_REPORT_PAGE (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (qf_report_page_parent_class)->finalize (object);
}

static void
qf_report_page_class_init (QfReportPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_report_page_dispose;
  object_class->finalize = qf_report_page_finalize;
  g_type_ensure (QF_TYPE_ENTRY_ROW);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-report-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, operator_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, customer_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, site_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, language_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, export_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, signer_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, report_group);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, open_button);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, export_button);
  gtk_widget_class_bind_template_callback (widget_class, export_clicked);
  gtk_widget_class_bind_template_callback (widget_class, open_clicked);
}

static void
qf_report_page_init (QfReportPage *self)
{
  g_autofree char *language = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  /* names longer than a session takes cannot be typed */
  for (guint i = 0; i < 3; i++)
    {
      QfEntryRow *row = i == 0 ? self->operator_row : i == 1 ? self->customer_row : self->site_row;
      GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (row));
      if (GTK_IS_TEXT (text))
        gtk_text_set_max_length (GTK_TEXT (text), QF_SESSION_MAX_NAME_CHARS);
    }
  self->settings = g_settings_new (APP_ID);
  self->cancellable = g_cancellable_new ();
  language = g_settings_get_string (self->settings, "report-language");
  /* unset: the interface's language */
  if (*language == '\0')
    {
      g_free (language);
      language = qf_i18n_interface_language ();
    }
  adw_combo_row_set_selected (self->language_row, g_strcmp0 (language, "zh_CN") == 0 ? 1 : 0);
  g_signal_connect_object (self->language_row, "notify::selected", G_CALLBACK (language_changed),
                           self, G_CONNECT_SWAPPED);
}
