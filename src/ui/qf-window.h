/* qf-window.h — the wizard's main window (src/ui). */
#pragma once

#include <adwaita.h>

#include "qf-application.h"

G_BEGIN_DECLS

#define QF_TYPE_WINDOW (qf_window_get_type ())
G_DECLARE_FINAL_TYPE (QfWindow, qf_window, QF, WINDOW, AdwApplicationWindow)

QfWindow   *qf_window_new           (QfApplication *app);
/* The Mallard page id of the step on screen ("welcome", "system", …) for F1. */
const char *qf_window_get_help_page (QfWindow      *self);
/* Training: plays back the recorded session at path on the run page (speed 1 = real time). */
gboolean    qf_window_replay        (QfWindow      *self,
                                     const char    *path,
                                     gdouble        speed);
/* Shows the helper page and starts the helper ("Be the helper machine", `qualify --helper`);
 * Back returns to the step it was entered from, and leaving the page stops the helper. Refused
 * while a test runs (a toast says why): FALSE. */
gboolean    qf_window_show_helper   (QfWindow      *self);
/* Shows a short message at the bottom of the window. */
void        qf_window_toast         (QfWindow      *self,
                                     const char    *message);

G_END_DECLS
