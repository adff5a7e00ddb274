/* qf-report-page.c — step 7 of the wizard (src/ui): the sign-off names (stored in the session),
 * the report language (GSettings), and the export through the report module's
 * qf_report_export_dir() on a worker thread — signed with the installer's certificate when the
 * store has one, as `qualify-cli report` does. Template: ui/qf-report-page.ui. */
#include "config.h"

#include <glib/gi18n.h>

#include "qf-cert.h"
#include "qf-json.h"
#include "qf-report.h"
#include "qf-report-page.h"
#include "qf-session-check.h"

struct _QfReportPage
{
  AdwBin        parent_instance;

  /* template widgets */
  AdwEntryRow  *operator_row;
  AdwEntryRow  *customer_row;
  AdwEntryRow  *site_row;
  AdwComboRow  *language_row;
  AdwActionRow *export_row;
  AdwPreferencesGroup *report_group;
  GtkSpinner   *spinner;
  GtkButton    *open_button;
  GtkButton    *export_button;

  /* owned */
  QfSession    *session;
  GSettings    *settings;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (QfReportPage, qf_report_page, ADW_TYPE_BIN)

static const char *languages[] = { "en", "zh_CN" };

typedef struct
{
  char     *dir;
  char     *language;
  gboolean  signed_;
} Export;

static void
export_free (Export *export)
{
  g_free (export->dir);
  g_free (export->language);
  g_free (export);
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

  if (qf_cert_store_exists ())
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
  text = g_strdup_printf (export->signed_ ? _("Written and signed: report.pdf and report.html in %s")
                                          : _("Written (not signed): report.pdf and report.html in %s"),
                          export->dir);
  adw_action_row_set_subtitle (self->export_row, text);
  gtk_widget_set_sensitive (GTK_WIDGET (self->open_button), TRUE);
}

static void
export_clicked (QfReportPage *self)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  Export *export;
  guint language = adw_combo_row_get_selected (self->language_row);

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
  export = g_new0 (Export, 1);
  export->dir = g_strdup (qf_session_get_dir (self->session));
  export->language = g_strdup (languages[MIN (language, G_N_ELEMENTS (languages) - 1)]);
  gtk_spinner_start (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), FALSE);
  adw_action_row_set_subtitle (self->export_row, _("Writing the report…"));
  task = g_task_new (self, self->cancellable, export_done, NULL);
  g_task_set_task_data (task, export, (GDestroyNotify) export_free);
  g_task_run_in_thread (task, export_thread);
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
  gtk_widget_dispose_template (GTK_WIDGET (self), QF_TYPE_REPORT_PAGE);
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
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-report-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, operator_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, customer_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, site_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, language_row);
  gtk_widget_class_bind_template_child (widget_class, QfReportPage, export_row);
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
      AdwEntryRow *row = i == 0 ? self->operator_row : i == 1 ? self->customer_row : self->site_row;
      GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (row));
      if (GTK_IS_TEXT (text))
        gtk_text_set_max_length (GTK_TEXT (text), QF_SESSION_MAX_NAME_CHARS);
    }
  self->settings = g_settings_new (APP_ID);
  self->cancellable = g_cancellable_new ();
  language = g_settings_get_string (self->settings, "report-language");
  adw_combo_row_set_selected (self->language_row, g_strcmp0 (language, "zh_CN") == 0 ? 1 : 0);
  g_signal_connect_object (self->language_row, "notify::selected", G_CALLBACK (language_changed),
                           self, G_CONNECT_SWAPPED);
}
