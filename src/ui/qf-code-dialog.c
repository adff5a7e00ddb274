/* qf-code-dialog.c — asks for the helper machine's pairing code again (src/ui): an
 * QfMessageDialog with a password entry; the core's qf_pairing_code_to_token checks the code
 * as it is typed and makes the token. The code itself is never kept: only its token goes to the caller. */
#include "config.h"


#include "qf-code-dialog.h"
#include "qf-i18n.h"
#include "qf-message-dialog.h"
#include "qf-pairing.h"

typedef struct
{
  QfCodeDialogDone done;
  gpointer         user_data;
  QfMessageDialog *dialog; /* borrowed: it owns this */
  GtkEditable     *entry;   /* borrowed: a child of the dialog */
  GtkLabel        *error;   /* borrowed */
  gboolean         answered; /* done was called: once, by a response or the dialog's end */
} CodeAsk;

/* "Resume" only for a well-formed code; what is wrong is said under the field once the person
 * has typed as many characters as a code has (QfMessageDialog closes on any response). */
static void
code_changed (GtkEditable *entry,
              gpointer     data)
{
  CodeAsk *ask = data;
  const char *text = gtk_editable_get_text (entry);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) token = qf_pairing_code_to_token (text, &error);
  gsize typed = 0;

  for (const char *c = text; *c != '\0'; c++)
    typed += g_ascii_isalnum (*c) ? 1 : 0;
  qf_message_dialog_set_response_enabled (ask->dialog, "resume", token != NULL);
  gtk_label_set_text (ask->error, error != NULL ? error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (ask->error), error != NULL && typed >= QF_PAIRING_CODE_CHARS);
}

static void
code_response (QfMessageDialog *dialog,
               const char       *response,
               gpointer          data)
{
  CodeAsk *ask = data;
  g_autoptr(GBytes) token = NULL;

  if (ask->answered)
    return;
  if (g_strcmp0 (response, "resume") == 0)
    token = qf_pairing_code_to_token (gtk_editable_get_text (ask->entry), NULL);
  gtk_editable_set_text (ask->entry, "");
  ask->answered = TRUE;
  ask->done (token, ask->user_data);
}

/* Destroyed with no response (its window closed, the application quit): the caller still hears
 * that no code came, so what waits for it is freed. */
static void
code_destroyed (GtkWidget *dialog,
                gpointer   data)
{
  CodeAsk *ask = data;

  if (ask->answered)
    return;
  ask->answered = TRUE;
  ask->done (NULL, ask->user_data);
}

void
qf_code_dialog_ask (GtkWindow        *parent,
                    const char       *peer,
                    QfCodeDialogDone  done,
                    gpointer          user_data)
{
  CodeAsk *ask = g_new0 (CodeAsk, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *entry = gtk_password_entry_new ();
  GtkWidget *error = gtk_label_new (NULL);
  g_autofree char *body = NULL;
  QfMessageDialog *dialog;

  body = g_strdup_printf (_("This run used the pairing code of the helper machine %s. The code "
                            "is never stored: type the code the helper machine shows now (a new "
                            "code is drawn each time its helper mode starts)."),
                          peer != NULL ? peer : "");
  dialog = QF_MESSAGE_DIALOG (qf_message_dialog_new (parent, _("Pairing Code"), body));
  gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (entry), TRUE);
  /* Enter takes the default response, "Resume" (while it is enabled) */
  g_object_set (entry, "activates-default", TRUE, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Pairing code"), -1);
  gtk_label_set_wrap (GTK_LABEL (error), TRUE);
  gtk_widget_add_css_class (error, "error");
  gtk_widget_set_visible (error, FALSE);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), error);
  qf_message_dialog_set_extra_child (dialog, box);
  qf_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "resume", _("_Resume"), NULL);
  qf_message_dialog_set_response_appearance (dialog, "resume", QF_RESPONSE_SUGGESTED);
  qf_message_dialog_set_default_response (dialog, "resume");
  qf_message_dialog_set_close_response (dialog, "cancel");
  qf_message_dialog_set_response_enabled (dialog, "resume", FALSE);
  ask->dialog = dialog;
  ask->done = done;
  ask->user_data = user_data;
  ask->entry = GTK_EDITABLE (entry);
  ask->error = GTK_LABEL (error);
  g_signal_connect (entry, "changed", G_CALLBACK (code_changed), ask);
  g_signal_connect (dialog, "destroy", G_CALLBACK (code_destroyed), ask);
  g_signal_connect_data (dialog, "response", G_CALLBACK (code_response), ask,
                         (GClosureNotify) (void (*) (void)) g_free, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}
