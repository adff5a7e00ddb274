/* qf-results-page.h — step 6: the verdict, the criteria, the advice, the comparison (src/ui). */
#pragma once

#include <adwaita.h>

#include "qf-session.h"

G_BEGIN_DECLS

#define QF_TYPE_RESULTS_PAGE (qf_results_page_get_type ())
G_DECLARE_FINAL_TYPE (QfResultsPage, qf_results_page, QF, RESULTS_PAGE, AdwBin)

void qf_results_page_show (QfResultsPage *self,
                           QfSession     *session);

G_END_DECLS
