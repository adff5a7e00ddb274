/* qf-helper-page.h — the helper machine's page: this PC answers the network tests of the PC
 * under test, with no terminal (src/ui). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_HELPER_PAGE (qf_helper_page_get_type ())
G_DECLARE_FINAL_TYPE (QfHelperPage, qf_helper_page, QF, HELPER_PAGE, AdwBin)

/* Starts the helper's services (latency, cycle, bandwidth) and its announcement; a failure is
 * shown on the page with its cause, its fix and Retry. TRUE when it runs. */
gboolean qf_helper_page_start      (QfHelperPage *self);
/* Stops every service; nothing of the helper keeps running. */
void     qf_helper_page_stop       (QfHelperPage *self);
gboolean qf_helper_page_is_running (QfHelperPage *self);

G_END_DECLS
