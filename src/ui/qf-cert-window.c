/* qf-cert-window.c — "Signing certificate" from the primary menu (src/ui): who signs the
 * reports (holder, company), the fingerprint in groups of four to read aloud over the phone,
 * the validity; "Export certificate…" writes the public part for customers and "Replace…"
 * opens the create / import dialog. Reads the store through the core (qf_cert_summarize_stored,
 * qf_cert_export_stored: the certificates only, never the key). Template: ui/qf-cert-window.ui. */
#include "config.h"


#include "qf-cert.h"
#include "qf-cert-dialog.h"
#include "qf-cert-window.h"
#include "qf-i18n.h"

struct _QfCertWindow
{
  AdwWindow parent_instance;

  /* template widgets */
  AdwPreferencesGroup *cert_group;
  AdwActionRow        *holder_row;
  AdwActionRow        *company_row;
  AdwActionRow        *fingerprint_row;
  AdwActionRow        *valid_row;
  GtkButton           *export_button;
  GtkButton           *replace_button;
  GtkLabel            *status_label;

  /* owned */
  char                *holder;
};

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (QfCertWindow, qf_cert_window, ADW_TYPE_WINDOW)

/* "2026-11-30" in local time, from the core's ISO 8601 text. */
static char *
local_date (const char *iso)
{
  g_autoptr(GDateTime) utc = g_date_time_new_from_iso8601 (iso, NULL);
  g_autoptr(GDateTime) local = utc ? g_date_time_to_local (utc) : NULL;

  return local ? g_date_time_format (local, "%Y-%m-%d") : g_strdup (iso);
}

static void
show_status (QfCertWindow *self,
             const char   *text)
{
  gtk_label_set_text (self->status_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), text != NULL && *text != '\0');
}

static void
refresh (QfCertWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) summary = qf_cert_summarize_stored (&error);
  g_autofree char *from = NULL, *until = NULL, *valid = NULL;
  const char *company;
  gboolean have = summary != NULL;

  g_clear_pointer (&self->holder, g_free);
  for (GtkWidget **row = (GtkWidget *[]) { GTK_WIDGET (self->holder_row), GTK_WIDGET (self->company_row),
                                           GTK_WIDGET (self->fingerprint_row), GTK_WIDGET (self->valid_row), NULL };
       *row != NULL; row++)
    gtk_widget_set_visible (*row, have);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), have);
  gtk_button_set_label (self->replace_button, have ? _("_Replace…") : _("_Create or import…"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->replace_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  have ? _("Replace…") : _("Create or import…"), -1);
  if (!have)
    {
      adw_preferences_group_set_description (self->cert_group, error->message);
      return;
    }
  adw_preferences_group_set_description (self->cert_group,
                                         _("Reports you export are signed with this certificate."));
  self->holder = g_strdup (json_object_get_string_member (summary, "holder"));
  company = json_object_get_string_member (summary, "company");
  adw_action_row_set_subtitle (self->holder_row, self->holder);
  adw_action_row_set_subtitle (self->company_row, *company != '\0' ? company : _("(none)"));
  adw_action_row_set_subtitle (self->fingerprint_row, json_object_get_string_member (summary, "fingerprint"));
  from = local_date (json_object_get_string_member (summary, "not_before"));
  until = local_date (json_object_get_string_member (summary, "not_after"));
  valid = g_strdup_printf (json_object_get_boolean_member (summary, "expired")
                           ? _("%s to %s — not valid today: replace it") : _("%s to %s"), from, until);
  adw_action_row_set_subtitle (self->valid_row, valid);
}

static void
export_response (GtkNativeDialog *chooser,
                 int              response,
                 QfCertWindow    *self)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL, *text = NULL;
  g_autoptr(GError) error = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  g_object_unref (chooser);
  path = file ? g_file_get_path (file) : NULL;
  if (path == NULL)
    return;
  if (!qf_cert_export_stored (path, &error))
    {
      show_status (self, error->message);
      return;
    }
  text = g_strdup_printf (_("Certificate written to %s. Give this file to the customer: it holds no secret."), path);
  show_status (self, text);
}

static void
export_clicked (QfCertWindow *self)
{
  GtkFileChooserNative *chooser;
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());
  g_autofree char *name = NULL;

  chooser = gtk_file_chooser_native_new (_("Export certificate"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  /* a file name from the holder's name, without characters a file system may refuse */
  name = g_strdup_printf ("%s-certificate.pem", self->holder != NULL ? self->holder : "qualify");
  g_strdelimit (name, "/\\:*?\"<>| ", '-');
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), home, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  g_signal_connect_object (chooser, "response", G_CALLBACK (export_response), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
dialog_finished (QfCertWindow *self,
                 gboolean      created)
{
  if (!created)
    return;
  refresh (self);
  show_status (self, NULL);
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
replace_clicked (QfCertWindow *self)
{
  QfCertDialog *dialog;

  dialog = qf_cert_dialog_new (GTK_WINDOW (self),
                               self->holder != NULL
                               ? _("The new certificate replaces the one in use. Reports already signed stay valid.")
                               : _("Reports are signed with your certificate, so the customer can check who wrote them and that nothing changed since."),
                               self->holder);
  g_signal_connect_object (dialog, "finished", G_CALLBACK (dialog_finished), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
qf_cert_window_finalize (GObject *object)
{
  g_free (QF_CERT_WINDOW (object)->holder);
  G_OBJECT_CLASS (qf_cert_window_parent_class)->finalize (object);
}

static void
qf_cert_window_dispose (GObject *object)
{
  adw_window_set_content (ADW_WINDOW (object), NULL);
  G_OBJECT_CLASS (qf_cert_window_parent_class)->dispose (object);
}

static void
qf_cert_window_class_init (QfCertWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_cert_window_dispose;
  object_class->finalize = qf_cert_window_finalize;
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-cert-window.ui");
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, cert_group);
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, holder_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, company_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, fingerprint_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, valid_row);
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, export_button);
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, replace_button);
  gtk_widget_class_bind_template_child (widget_class, QfCertWindow, status_label);
  gtk_widget_class_bind_template_callback (widget_class, export_clicked);
  gtk_widget_class_bind_template_callback (widget_class, replace_clicked);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
qf_cert_window_init (QfCertWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  refresh (self);
}

QfCertWindow *
qf_cert_window_new (GtkWindow *parent)
{
  return g_object_new (QF_TYPE_CERT_WINDOW, "transient-for", parent, "modal", TRUE, NULL);
}
