/* qf-plan-page.h — step 4: the tests, their parameters and classic commands, toggles (src/ui). */
#pragma once

#include <adwaita.h>

#include "qf-profile.h"

G_BEGIN_DECLS

#define QF_TYPE_PLAN_PAGE (qf_plan_page_get_type ())
G_DECLARE_FINAL_TYPE (QfPlanPage, qf_plan_page, QF, PLAN_PAGE, AdwBin)

/* Shows the tests of profile (the one that will run: quick or full, wired or wireless) with the
 * classic commands for peer_host (NULL when there is no helper machine). */
void    qf_plan_page_set_profile      (QfPlanPage *self,
                                       QfProfile  *profile,
                                       const char *peer_host);
/* The keys of the tests switched on, or NULL when all are (free with g_strfreev). */
char  **qf_plan_page_get_enabled_keys (QfPlanPage *self);
/* Whether "Find the cause of spikes" is on (off by default). */
gboolean qf_plan_page_get_trace      (QfPlanPage *self);

G_END_DECLS
