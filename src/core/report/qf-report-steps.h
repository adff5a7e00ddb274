/* qf-report-steps.h — the section of one test in the report (src/core, report model;
 * qf-report-steps.c).
 */
#pragma once

#include "qf-report-private.h"

G_BEGIN_DECLS

/* Appends the section of step, numbered index (from 1). */
void _qf_report_add_step_section (QfReport   *report,
                                  JsonObject *step,
                                  guint       index);

G_END_DECLS
