/* qf-system-page.h — step 2: the readiness audit and the privileges the tests need (src/ui). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_SYSTEM_PAGE (qf_system_page_get_type ())
G_DECLARE_FINAL_TYPE (QfSystemPage, qf_system_page, QF, SYSTEM_PAGE, AdwBin)

/* Runs the audit and the privilege checks again on a worker thread. */
void qf_system_page_refresh (QfSystemPage *self);

G_END_DECLS
