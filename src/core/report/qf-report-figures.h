/* qf-report-figures.h — the figure blocks of a test's section (src/core, report model;
 * qf-report-figures.c). Drawing a figure block is _qf_report_draw_figure in qf-report-private.h.
 */
#pragma once

#include "qf-report-private.h"

G_BEGIN_DECLS

/* Appends the step's histogram and time series figures, with its limits, when it has them. */
void _qf_report_add_figures (QfReport   *report,
                             JsonObject *step,
                             JsonObject *result);

G_END_DECLS
