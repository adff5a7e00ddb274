/* qf-cert-dialog.c — one dialog to create the installer's own signing certificate (holder's
 * name and the installer's own company: remembered in the `company` setting, else the last
 * certificate's O=, never the customer's) or to import one (a PEM key with its chain, or a PKCS#12 file with its
 * password) (src/ui). The work is the core's (qf_cert_create, qf_cert_import, the same calls
 * as `qualify-cli cert`), on a worker thread; errors come back as the core wrote them: cause
 * and fix, translated. No key material or password is shown or logged. Template:
 * ui/qf-cert-dialog.ui. */
#include "config.h"

#include <string.h>

#include "qf-cert-dialog.h"
#include "qf-cert.h"
#include "qf-entry-row.h"
#include "qf-i18n.h"
#include "qf-password-entry-row.h"

struct _QfCertDialog
{
  AdwWindow parent_instance;

  /* template widgets */
  AdwPreferencesGroup *intro_group;
  GtkLabel            *error_label;
  QfEntryRow          *name_row;
  QfEntryRow          *company_row;
  QfEntryRow          *chain_row;
  QfEntryRow          *key_row;
  QfEntryRow          *p12_row;
  QfPasswordEntryRow  *password_row;
  GtkWidget           *page;
  GtkSpinner          *spinner;

  /* owned */
  GCancellable        *cancellable;
  GSettings           *settings;
  gboolean             finished;
};

enum { FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (QfCertDialog, qf_cert_dialog, ADW_TYPE_WINDOW)

typedef struct
{
  char *name, *company;              /* create */
  char *chain, *key, *p12, *password; /* import */
} Job;

static void
job_free (Job *job)
{
  if (job->password != NULL)
    explicit_bzero (job->password, strlen (job->password));
  g_free (job->name);
  g_free (job->company);
  g_free (job->chain);
  g_free (job->key);
  g_free (job->p12);
  g_free (job->password);
  g_free (job);
}

static void
finish (QfCertDialog *self,
        gboolean      created)
{
  if (self->finished)
    return;
  self->finished = TRUE;
  g_signal_emit (self, signals[FINISHED], 0, created);
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
job_thread (GTask        *task,
            gpointer      source,
            gpointer      task_data,
            GCancellable *cancellable)
{
  Job *job = task_data;
  g_autoptr(QfSigner) signer = NULL;
  GError *error = NULL;

  if (job->name != NULL)
    signer = qf_cert_create (job->name, job->company, &error);
  else
    signer = qf_cert_import (job->chain, job->key, job->p12, job->password, &error);
  if (signer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
show_error (QfCertDialog *self,
            const char   *message)
{
  gtk_label_set_text (self->error_label, message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

/* The installer's company, for the next certificate: what the new one holds as O=. */
static void
remember_company (QfCertDialog *self)
{
  g_autoptr(JsonObject) summary = qf_cert_summarize_stored (NULL);

  if (summary != NULL)
    g_settings_set_string (self->settings, "company", json_object_get_string_member (summary, "company"));
}

/* The installer's own company: the setting, else the certificate in use's O=; "" when neither. */
static char *
installer_company (QfCertDialog *self)
{
  g_autofree char *company = g_settings_get_string (self->settings, "company");
  g_autoptr(JsonObject) summary = NULL;

  if (*company != '\0')
    return g_steal_pointer (&company);
  summary = qf_cert_summarize_stored (NULL);
  return g_strdup (summary != NULL ? json_object_get_string_member (summary, "company") : "");
}

static void
job_done (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  QfCertDialog *self;
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error)
      && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = QF_CERT_DIALOG (object);
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_sensitive (self->page, TRUE);
  if (error != NULL)
    {
      show_error (self, error->message);
      return;
    }
  remember_company (self);
  finish (self, TRUE);
}

static void
run_job (QfCertDialog *self,
         Job          *job)
{
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, job_done, NULL);

  show_error (self, NULL);
  gtk_spinner_start (self->spinner);
  gtk_widget_set_sensitive (self->page, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, job_thread);
}

/* A row's text, NULL when empty. */
static char *
row_text (gpointer row)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));

  return *text != '\0' ? g_steal_pointer (&text) : NULL;
}

static void
create_clicked (QfCertDialog *self)
{
  Job *job = g_new0 (Job, 1);

  job->name = row_text (self->name_row);
  job->company = row_text (self->company_row);
  if (job->name == NULL)
    {
      job_free (job);
      show_error (self, _("Type the holder's name: it is the name the customer sees on the signature."));
      return;
    }
  run_job (self, job);
}

static void
import_pem_clicked (QfCertDialog *self)
{
  Job *job = g_new0 (Job, 1);

  job->chain = row_text (self->chain_row);
  job->key = row_text (self->key_row);
  if (job->chain == NULL || job->key == NULL)
    {
      job_free (job);
      show_error (self, _("Choose both files: the certificate chain and its private key."));
      return;
    }
  run_job (self, job);
}

static void
import_p12_clicked (QfCertDialog *self)
{
  Job *job = g_new0 (Job, 1);

  job->p12 = row_text (self->p12_row);
  job->password = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->password_row)));
  if (job->p12 == NULL)
    {
      job_free (job);
      show_error (self, _("Choose the PKCS#12 file (.p12 or .pfx) first."));
      return;
    }
  run_job (self, job);
}

static void
chooser_response (GtkNativeDialog *chooser,
                  int              response,
                  QfEntryRow      *row)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path != NULL)
        gtk_editable_set_text (GTK_EDITABLE (row), path);
    }
  g_object_unref (chooser);
}

static void
choose_file (QfCertDialog *self,
             QfEntryRow   *row)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)),
                                         GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Choose"), _("_Cancel"));
  g_signal_connect_object (chooser, "response", G_CALLBACK (chooser_response), row, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void choose_chain_clicked (QfCertDialog *self) { choose_file (self, self->chain_row); }
static void choose_key_clicked (QfCertDialog *self) { choose_file (self, self->key_row); }
static void choose_p12_clicked (QfCertDialog *self) { choose_file (self, self->p12_row); }

static void
cancel_clicked (QfCertDialog *self)
{
  g_cancellable_cancel (self->cancellable);
  finish (self, FALSE);
}

static gboolean
qf_cert_dialog_close_request (GtkWindow *window)
{
  QfCertDialog *self = QF_CERT_DIALOG (window);

  g_cancellable_cancel (self->cancellable);
  if (!self->finished)
    {
      self->finished = TRUE;
      g_signal_emit (self, signals[FINISHED], 0, FALSE);
    }
  return GTK_WINDOW_CLASS (qf_cert_dialog_parent_class)->close_request (window);
}

static void
qf_cert_dialog_dispose (GObject *object)
{
  QfCertDialog *self = QF_CERT_DIALOG (object);

  g_cancellable_cancel (self->cancellable);
  adw_window_set_content (ADW_WINDOW (self), NULL);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (qf_cert_dialog_parent_class)->dispose (object);
}

static void
qf_cert_dialog_class_init (QfCertDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_cert_dialog_dispose;
  GTK_WINDOW_CLASS (klass)->close_request = qf_cert_dialog_close_request;
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  g_type_ensure (QF_TYPE_ENTRY_ROW);
  g_type_ensure (QF_TYPE_PASSWORD_ENTRY_ROW);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-cert-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, intro_group);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, name_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, company_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, chain_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, key_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, p12_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, password_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, page);
  gtk_widget_class_bind_template_child (widget_class, QfCertDialog, spinner);
  gtk_widget_class_bind_template_callback (widget_class, create_clicked);
  gtk_widget_class_bind_template_callback (widget_class, import_pem_clicked);
  gtk_widget_class_bind_template_callback (widget_class, import_p12_clicked);
  gtk_widget_class_bind_template_callback (widget_class, choose_chain_clicked);
  gtk_widget_class_bind_template_callback (widget_class, choose_key_clicked);
  gtk_widget_class_bind_template_callback (widget_class, choose_p12_clicked);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
qf_cert_dialog_init (QfCertDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new (APP_ID);
}

QfCertDialog *
qf_cert_dialog_new (GtkWindow  *parent,
                    const char *intro,
                    const char *name)
{
  g_autofree char *company = NULL;

  QfCertDialog *self = g_object_new (QF_TYPE_CERT_DIALOG,
                                     "transient-for", parent,
                                     "modal", TRUE,
                                     NULL);

  adw_preferences_group_set_description (self->intro_group, intro);
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), name != NULL ? name : "");
  company = installer_company (self);
  gtk_editable_set_text (GTK_EDITABLE (self->company_row), company);
  return self;
}
