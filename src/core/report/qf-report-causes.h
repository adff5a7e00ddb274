/* qf-report-causes.h — "Why it was slow": a traced test's spikes in the report (src/core, report
 * model; qf-report-causes.c).
 */
#pragma once

#include "qf-report-private.h"
#include "qf-step.h"

G_BEGIN_DECLS

/* Appends what the kernel's trace says about the step's spikes when the step explains them
 * (QfStepInfo.spikes) and its result holds a trace: what was recorded or why nothing was, each
 * spike's sentence and fix in the report's language, the worst one's breakdown and timeline. */
void _qf_report_add_latency_causes (QfReport         *report,
                                    const QfStepInfo *info,
                                    JsonObject       *step,
                                    JsonObject       *result);

G_END_DECLS
