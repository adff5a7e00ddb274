/* qf-spike-plot.h — the timeline of the worst spike, drawn on any cairo_t (src/core/report).
 *
 * The wizard's results page and the report (PDF and HTML) call this one function with a traced
 * result's "trace"."timeline" (qf-step-trace.h), so the screen and the paper show the same
 * picture: time from the deadline (or the send) on the x axis, one lane per thing that held the
 * CPU — the interrupts, softirqs, tasks, the scheduler and the time with no event — each piece
 * a bar where it happened, and the landmarks as labelled lines: the timer's expiry, the
 * thread's wake-up, the switch to it, and the end of the spike. Same frame, ink and fonts as
 * qf-plot.
 */
#pragma once

#include <cairo.h>
#include <json-glib/json-glib.h>

#include "qf-plot.h"
#include "qf-step-trace.h"

G_BEGIN_DECLS

/* Draws timeline into (0, 0, width, height). Texts are translated through tr (NULL: gettext).
 * Returns FALSE (after drawing the frame and a note) when timeline holds no piece. */
gboolean qf_spike_plot_draw (cairo_t             *cr,
                             gdouble              width,
                             gdouble              height,
                             const QfPlotOptions *options,
                             JsonObject          *timeline,
                             QfStepTranslate      tr,
                             gpointer             tr_data);

/* The result's worst-spike timeline ("trace"."timeline"), or NULL. Borrowed. */
JsonObject *qf_spike_plot_timeline (JsonObject *result);

G_END_DECLS
