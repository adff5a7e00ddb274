/* qf-code-dialog.h — asks for the helper machine's pairing code again (src/ui).
 *
 * A session made with a pairing code keeps only the fact that it used one, never the code
 * (qf_session_get_pairing_code_used): resuming it asks the person to type the code the helper
 * machine shows now. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Called once: token is the code's access token (qf_pairing_code_to_token), or NULL when the
 * person cancelled. */
typedef void (*QfCodeDialogDone) (GBytes   *token,
                                  gpointer  user_data);

/* A modal dialog over parent naming the helper machine (peer may be NULL). "Resume" waits for a
 * well-formed code; what is wrong with a typed one is said in the dialog (cause and fix). */
void qf_code_dialog_ask (GtkWindow        *parent,
                         const char       *peer,
                         QfCodeDialogDone  done,
                         gpointer          user_data);

G_END_DECLS
