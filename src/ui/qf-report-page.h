/* qf-report-page.h — step 7: sign-off, language, export, open the folder (src/ui). */
#pragma once

#include <adwaita.h>

#include "qf-session.h"

G_BEGIN_DECLS

#define QF_TYPE_REPORT_PAGE (qf_report_page_get_type ())
G_DECLARE_FINAL_TYPE (QfReportPage, qf_report_page, QF, REPORT_PAGE, AdwBin)

void qf_report_page_set_session (QfReportPage *self,
                                 QfSession    *session);
/* Says again who will sign the next export (the certificate in the store, or none). */
void qf_report_page_refresh_signer (QfReportPage *self);

G_END_DECLS
