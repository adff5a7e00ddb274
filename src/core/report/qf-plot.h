/* qf-plot.h — the one drawing module for measurement plots (src/core).
 *
 * The wizard's live charts (src/ui, inside a GtkDrawingArea / snapshot cairo node) and the
 * report's figures (PDF pages, SVG in the HTML) call these same functions, so the screen and the
 * paper show the same picture. Everything draws on any cairo_t into the rectangle
 * (0, 0, width, height) in user units, from plain data: bucket arrays and sample arrays as found
 * in step results. Nothing here owns data or keeps state between calls; call from any one thread
 * per cairo_t (the UI's main thread, or the export task's thread).
 *
 * Conventions (docs ux.md): latency histogram OSADL style — linear x from 0 to a little past the
 * largest sample (log x on request or when the tail is long), logarithmic count axis
 * (1, 10, 100, …), one colour per thread/CPU, limits as labelled dashed lines, the current
 * maximum marked. Time series decimated to min/max per pixel column, scaled to the data with
 * far limits marked at the edge; throughput as an area with the target as a line. Tick labels have at most 3 significant digits; axis labels carry units.
 * Text goes through pango so Chinese labels render with the same fonts as the report.
 */
#pragma once

#include <cairo.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "qf-step.h"

G_BEGIN_DECLS

typedef struct
{
  const char *title;        /* drawn above the plot area; NULL or "" for none */
  const char *x_label;      /* with the unit, e.g. "Latency (µs)"; NULL for none */
  const char *y_label;      /* e.g. "Samples" or "Throughput (Mbit/s)"; NULL for none */
  const char *font_family;  /* NULL: "Noto Sans, Noto Sans CJK SC, Sans" */
  gdouble     font_size;    /* in user units (pt on a PDF); 0: 8 */
  gboolean    dark;         /* light ink for a dark background (the UI's dark style) */
  gboolean    paint_background; /* fill the rectangle first (white, or dark grey when dark) */
  gboolean    log_x;        /* histogram: force a logarithmic latency axis */
  gboolean    legend;       /* draw a legend of the series labels (top right) */

  /* "Fixed scale": when set, the axes use these ranges instead of following the data, so a
   * demonstration does not jump and two runs compare at a glance. */
  gboolean    fixed_scale;
  gdouble     x_min, x_max; /* histogram: latency in the x unit; time series: seconds */
  gdouble     y_min, y_max; /* histogram: counts (log axis, y_min >= 1); series: value */

  /* Time series only: when > 0, show the last window_s seconds ending at the newest sample
   * (the scrolling 60 s view); 0 shows everything. Ignored with fixed_scale. */
  gdouble     window_s;

  /* Texts drawn inside the plot, for a report in another language than the process's:
   * "max %s" (the current maximum's marker) and "No samples yet". NULL: gettext's. */
  const char *max_format;
  const char *empty_text;
} QfPlotOptions;

/* One histogram (one measurement thread / CPU). counts[i] holds the samples in
 * [i * bucket_width, (i + 1) * bucket_width), in the x unit of the plot (µs, or ms for ping). */
typedef struct
{
  const char    *label;         /* legend, e.g. "CPU 0"; may be NULL */
  const guint64 *counts;
  guint          n_buckets;
  gdouble        bucket_width;  /* > 0 */
  guint64        overflow;      /* samples beyond the last bucket: drawn as one bar at the end */
  gdouble        max_value;     /* the exact largest sample, or NAN when unknown */
} QfPlotHistogram;

/* One time series. Either t_s gives each sample's time, or (t_s == NULL) sample i is at
 * t0_s + i * dt_s. Values are in the plot's y unit. NAN values leave a gap. */
typedef struct
{
  const char    *label;
  const gdouble *t_s;
  const gdouble *values;
  gsize          n_values;
  gdouble        t0_s;
  gdouble        dt_s;
  gboolean       area;          /* fill down to zero (throughput) instead of a line */
} QfPlotSeries;

/* A limit or target: a dashed vertical line at x (histogram) or horizontal line at y (time
 * series), labelled, e.g. "Max limit 100 µs". */
typedef struct
{
  const char *label;
  gdouble     value;
} QfPlotLimit;

/* Fills options with the defaults (everything 0/NULL/FALSE, paint_background TRUE). */
void     qf_plot_options_init    (QfPlotOptions          *options);

/* The colour of series number index (stable palette, distinguishable in grey as well). */
void     qf_plot_series_color    (guint                   index,
                                  gboolean                dark,
                                  gdouble                *r,
                                  gdouble                *g,
                                  gdouble                *b);

/* Formats value with at most 3 significant digits: 0.125, 12.5, 125, 1250 (an integer part
 * longer than 3 digits is rounded, not abbreviated). Returns a new string without a unit. */
char    *qf_plot_format_value    (gdouble                 value);

/* OSADL-style latency histogram. Series with no samples are skipped; with no samples at all the
 * axes and a "No samples yet" note are drawn. The largest max_value of all series is marked
 * ("max 95.0"). */
void     qf_plot_histogram       (cairo_t                *cr,
                                  gdouble                 width,
                                  gdouble                 height,
                                  const QfPlotOptions    *options,
                                  const QfPlotHistogram  *histograms,
                                  guint                   n_histograms,
                                  const QfPlotLimit      *limits,
                                  guint                   n_limits);

/* Time series (latency per cycle, RTT per ping, throughput per interval). Each series is
 * decimated to min/max per device pixel column, so 10 million samples draw as fast as 1000. */
void     qf_plot_time_series     (cairo_t                *cr,
                                  gdouble                 width,
                                  gdouble                 height,
                                  const QfPlotOptions    *options,
                                  const QfPlotSeries     *series,
                                  guint                   n_series,
                                  const QfPlotLimit      *limits,
                                  guint                   n_limits);

/* The value axis qf_plot_time_series draws these series with, in *y_min and *y_max: the fixed
 * scale when options ask for one; else the samples on the time axis (from zero unless one is
 * negative), rounded out to a tick, so they fill most of the height. A limit joins the range
 * only when the samples still fill at least half of it; one further away is drawn as a marker
 * at the edge it lies beyond ("Maximum latency ≤ 2335 µs ↑") instead of as a line. With no
 * samples the limits set the range. */
void     qf_plot_series_scale    (const QfPlotOptions    *options,
                                  const QfPlotSeries     *series,
                                  guint                   n_series,
                                  const QfPlotLimit      *limits,
                                  guint                   n_limits,
                                  gdouble                *y_min,
                                  gdouble                *y_max);

/* Conveniences for step results (the objects `qualify-cli <test> --json` prints, stored in the
 * session): they find the data and draw with the functions above.
 *
 * qf_plot_result_histogram: uses result.threads[].histogram when present (one colour per
 * thread), else result.histogram; a histogram object is the steps' sparse form {bucket_width_us,
 * bucket_us: [start of each listed bucket], count: [its samples], overflow} with max from
 * result.max_us / max_ms (or per thread); drawn in ms when the result states its figures in ms
 * only (ping). Returns FALSE and draws nothing when the result has no histogram.
 *
 * qf_plot_result_time_series: uses result.intervals [{t_s, mbps}] (drawn as an area), else
 * result.series / result.samples [{t_s, value}] or a plain number array with result.interval_s.
 * Returns FALSE and draws nothing when there is none.
 *
 * options may carry title and axis labels; when x_label/y_label are NULL they are derived from
 * the result's units (translated). limits as for the functions above. */
gboolean qf_plot_result_histogram   (cairo_t             *cr,
                                     gdouble              width,
                                     gdouble              height,
                                     const QfPlotOptions *options,
                                     JsonObject          *result,
                                     const QfPlotLimit   *limits,
                                     guint                n_limits);
gboolean qf_plot_result_time_series (cairo_t             *cr,
                                     gdouble              width,
                                     gdouble              height,
                                     const QfPlotOptions *options,
                                     JsonObject          *result,
                                     const QfPlotLimit   *limits,
                                     guint                n_limits);

/* Draws a step's chart (QfStepInfo.charts) of its stored result: the lines the step names,
 * their legends translated through tr (NULL: gettext), options' y_label defaulting to the
 * chart's axis. Returns FALSE (drawing nothing) when the result holds none of its points. */
gboolean qf_plot_result_chart       (cairo_t             *cr,
                                     gdouble              width,
                                     gdouble              height,
                                     const QfPlotOptions *options,
                                     const QfStepChart   *chart,
                                     JsonObject          *result,
                                     QfStepTranslate      tr,
                                     gpointer             tr_data,
                                     const QfPlotLimit   *limits,
                                     guint                n_limits);

G_END_DECLS
