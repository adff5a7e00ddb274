/* qf-plot-view.h — a live plot widget drawing through the core's qf-plot (src/ui). */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

#include "qf-plot.h"
#include "qf-ring.h"

G_BEGIN_DECLS

typedef enum
{
  QF_PLOT_VIEW_HISTOGRAM,
  QF_PLOT_VIEW_TIME_SERIES,
} QfPlotViewKind;

#define QF_TYPE_PLOT_VIEW (qf_plot_view_get_type ())
G_DECLARE_FINAL_TYPE (QfPlotView, qf_plot_view, QF, PLOT_VIEW, GtkWidget)

/* name: the accessible name ("Latency histogram"). */
GtkWidget *qf_plot_view_new         (QfPlotViewKind    kind,
                                     const char       *name);
/* Forgets the data and sets how samples map to the plot: value_ns / unit_ns in the unit named
 * by axis_label ("Latency (µs)"); area draws series as filled throughput. Limits are copied. */
void       qf_plot_view_reset       (QfPlotView       *self,
                                     gdouble           unit_ns,
                                     const char       *axis_label,
                                     gboolean          area,
                                     const QfPlotLimit *limits,
                                     guint             n_limits);
/* Histogram bucket width in ns, after reset (which makes it one unit): ping's RTT is plotted
 * in ms with 1 µs buckets. */
void       qf_plot_view_set_bucket  (QfPlotView       *self,
                                     gdouble           bucket_ns);
/* Legend names of the sample channels 0, 1, … (before the samples arrive); NULL: "Channel N". */
void       qf_plot_view_set_channel_names (QfPlotView *self,
                                     const char *const *names);
/* Queues samples (t_ns on CLOCK_MONOTONIC); they are folded in on the next frame. Main thread. */
void       qf_plot_view_add_samples (QfPlotView       *self,
                                     const QfSample   *samples,
                                     guint             n);
/* Folds the queued samples into the display data now (the frame clock does it otherwise). */
void       qf_plot_view_flush       (QfPlotView       *self);
/* Draws a finished step's result instead (qf_plot_result_*), as the step's chart when chart is
 * not NULL (QfStepInfo.charts, as in the report); NULL result goes back to live samples. */
void       qf_plot_view_set_result  (QfPlotView        *self,
                                     JsonObject        *result,
                                     const QfStepChart *chart);
/* The largest value the engine reported (marked on the histogram); NAN when unknown. */
void       qf_plot_view_set_max     (QfPlotView       *self,
                                     gdouble           max_value);
/* Text alternative of the plot for screen readers (the figures the engine reported). */
void       qf_plot_view_set_summary (QfPlotView       *self,
                                     const char       *summary);
void       qf_plot_view_set_fixed_scale (QfPlotView   *self,
                                     gboolean          fixed);
/* Draws the current picture on cr (for the benchmark and tests). */
void       qf_plot_view_draw        (QfPlotView       *self,
                                     cairo_t          *cr,
                                     gdouble           width,
                                     gdouble           height);

G_END_DECLS
