/* qf-message-dialog.h — a question or a message with a row of answers (src/ui): libadwaita 1.2's
 * AdwMessageDialog on every release from libadwaita 1.1 on. A heading, a body, an optional extra
 * widget, and responses: buttons with an id, a label and an appearance. Any response closes the
 * dialog and emits "response" (detailed by the id) with the id; closing it any other way (Escape,
 * the window manager) emits the close response, "close" unless set. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

typedef enum
{
  QF_RESPONSE_DEFAULT,
  QF_RESPONSE_SUGGESTED,   /* the answer the dialog asks for: in the accent colour */
  QF_RESPONSE_DESTRUCTIVE, /* an answer that loses something: in the destructive colour */
} QfResponseAppearance;

#define QF_TYPE_MESSAGE_DIALOG (qf_message_dialog_get_type ())
G_DECLARE_FINAL_TYPE (QfMessageDialog, qf_message_dialog, QF, MESSAGE_DIALOG, GtkWindow)

/* A modal dialog over parent (transient for it, destroyed with it). */
GtkWidget *qf_message_dialog_new                     (GtkWindow            *parent,
                                                      const char           *heading,
                                                      const char           *body);
/* A widget under the body, such as a field to fill in; NULL removes it. */
void       qf_message_dialog_set_extra_child         (QfMessageDialog      *self,
                                                      GtkWidget            *child);
/* A button at the end of the row; label may have a mnemonic ("_Close"). */
void       qf_message_dialog_add_response            (QfMessageDialog      *self,
                                                      const char           *id,
                                                      const char           *label);
/* Several: id, label, id, label, …, NULL. */
void       qf_message_dialog_add_responses           (QfMessageDialog      *self,
                                                      const char           *first_id,
                                                      ...) G_GNUC_NULL_TERMINATED;
void       qf_message_dialog_set_response_appearance (QfMessageDialog      *self,
                                                      const char           *id,
                                                      QfResponseAppearance  appearance);
void       qf_message_dialog_set_response_enabled    (QfMessageDialog      *self,
                                                      const char           *id,
                                                      gboolean              enabled);
/* The response Enter takes (the window's default widget) and that has the focus at first. */
void       qf_message_dialog_set_default_response    (QfMessageDialog      *self,
                                                      const char           *id);
/* The response emitted when the dialog is closed without a button. */
void       qf_message_dialog_set_close_response      (QfMessageDialog      *self,
                                                      const char           *id);

G_END_DECLS
