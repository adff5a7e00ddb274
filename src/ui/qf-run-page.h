/* qf-run-page.h — step 5: the tests running, with progress, figures and live plots (src/ui). */
#pragma once

#include <adwaita.h>

#include "qf-runner.h"

G_BEGIN_DECLS

#define QF_TYPE_RUN_PAGE (qf_run_page_get_type ())
G_DECLARE_FINAL_TYPE (QfRunPage, qf_run_page, QF, RUN_PAGE, AdwBin)

/* Shows runner's session and starts it. Emits "finished" (gboolean cancelled) at the end. */
gboolean qf_run_page_start      (QfRunPage  *self,
                                 QfRunner   *runner,
                                 GError    **error);
gboolean qf_run_page_is_running (QfRunPage  *self);
/* Stops the current test and the run (quick: each step honours a stop within 1 s). */
void     qf_run_page_cancel     (QfRunPage  *self);
QfRunner *qf_run_page_get_runner (QfRunPage *self);

G_END_DECLS
