/* qf-verify-window.h — the verify view: is this report intact, who signed it, do I trust them
 * (src/ui). The same check and outcomes as `qualify-cli verify` (qf-verify.h). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_VERIFY_WINDOW (qf_verify_window_get_type ())
G_DECLARE_FINAL_TYPE (QfVerifyWindow, qf_verify_window, QF, VERIFY_WINDOW, AdwWindow)

/* The application's verify window (created when there is none), presented and checking file
 * (NULL: as it is). */
QfVerifyWindow *qf_verify_window_present  (GtkApplication *app,
                                           GFile          *file);
void            qf_verify_window_open     (QfVerifyWindow *self,
                                           GFile          *file);
/* Asks for a PDF or HTML report (modal to parent) and verifies it. */
void            qf_verify_window_choose   (GtkWindow      *parent);
/* Files dropped on widget open in the verify view (the first one is checked). */
void            qf_verify_window_accept_drops (GtkWidget  *widget);

G_END_DECLS
