/* qf-plot-private.h — the frame, axes and text of qf-plot, for the other drawings of the report
 * layer (the spike timeline, qf-spike-plot.c) so every figure has the same ink, fonts and ticks.
 * Internal to src/core/report. */
#pragma once

#include "qf-plot.h"

G_BEGIN_DECLS

typedef struct
{
  cairo_t             *cr;
  const QfPlotOptions *opt;
  gdouble              fg[3];
  gdouble              grid[3];
  /* plot area */
  gdouble              x0, y0, w, h;
} QfPlotFrame;

typedef struct
{
  gdouble  min, max;
  gboolean log;
} QfPlotAxis;

/* Background, title and axis labels; the plot area leaves room for tick labels as wide as
 * sample_y_tick. */
void    _qf_plot_frame_init   (QfPlotFrame         *f,
                               cairo_t             *cr,
                               gdouble              width,
                               gdouble              height,
                               const QfPlotOptions *opt,
                               const char          *sample_y_tick);
void    _qf_plot_text_size    (QfPlotFrame         *f,
                               const char          *text,
                               gdouble              scale,
                               gdouble             *width,
                               gdouble             *height);
/* Text anchored at (x, y); ax/ay: 0 = left/top, 0.5 = centre, 1 = right/bottom. */
void    _qf_plot_draw_text    (QfPlotFrame         *f,
                               const char          *text,
                               gdouble              x,
                               gdouble              y,
                               gdouble              ax,
                               gdouble              ay,
                               gdouble              scale,
                               gboolean             rotate);
void    _qf_plot_set_rgb      (cairo_t             *cr,
                               const gdouble        c[3],
                               gdouble              alpha);
/* Rounds the axis out to a tick (from zero when asked). */
void    _qf_plot_nice_linear  (QfPlotAxis          *a,
                               gboolean             from_zero);
gdouble _qf_plot_map_x        (QfPlotFrame         *f,
                               const QfPlotAxis    *a,
                               gdouble              v);
/* The x axis's grid lines and tick labels. */
void    _qf_plot_draw_x_ticks (QfPlotFrame         *f,
                               const QfPlotAxis    *a);
void    _qf_plot_draw_box     (QfPlotFrame         *f);
/* A note in the middle of the plot area ("No samples yet"). */
void    _qf_plot_draw_note    (QfPlotFrame         *f,
                               const char          *note);

G_END_DECLS
