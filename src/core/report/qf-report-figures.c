/* qf-report-figures.c — the plots of a test's section and how they are drawn (src/core, report
 * model).
 *
 * A step's histogram and its time series (interval series, per-sample series or the step's
 * stored live samples) become figure blocks, with the step's limits drawn as lines; the writers
 * paint a figure block through _qf_report_draw_figure, which hands it to qf-plot, the code the
 * wizard draws with.
 */
#include "config.h"

#include "qf-format.h"

#include "qf-i18n.h"
#include "qf-report-figures.h"
#include "qf-report-format.h"
#include "qf-report-json.h"
#include "qf-spike-plot.h"
#include "qf-step.h"

/* A criterion's limit as a labelled line ("Maximum latency ≤ 100 µs"); at most
 * QF_REPORT_MAX_LIMITS per figure. */
static void
add_limit (QfReport   *report,
           QfBlock    *b,
           JsonObject *criterion)
{
  gdouble limit;
  g_autofree char *value = NULL;
  const char *unit = str (criterion, "unit"), *label = str (criterion, "label");

  if (b->n_limits >= QF_REPORT_MAX_LIMITS || !num (criterion, "limit", &limit))
    return;
  value = qf_format_limit (str (criterion, "comparison"), limit, unit);
  b->limits[b->n_limits].value = limit;
  b->limit_labels[b->n_limits] = g_strdup_printf ("%s %s", TR (label ? label : ""), value);
  b->limits[b->n_limits].label = b->limit_labels[b->n_limits];
  b->n_limits++;
}

/* A histogram as qf_step_histogram_to_json writes it (buckets in µs; a result in ms, like
 * ping's, is drawn in ms by qf-plot), for the whole run or per thread (the rt test fixtures
 * carry per-thread histograms beside the total), or one per phase. */
static gboolean
has_histogram (JsonObject *result)
{
  JsonArray *threads = arr (result, "threads");
  const QfStepInfo *info = qf_step_lookup (str (result, "test") != NULL ? str (result, "test") : "");

  if (obj (result, "histogram") != NULL)
    return TRUE;
  /* One distribution per phase (QfStepPlot.phase_keys: loaded-latency's idle and loaded). */
  for (guint i = 0; info != NULL && info->plot.phase_keys != NULL && info->plot.phase_keys[i] != NULL; i++)
    if (obj (obj (result, info->plot.phase_keys[i]), "histogram") != NULL)
      return TRUE;
  for (guint i = 0; threads != NULL && i < json_array_get_length (threads); i++)
    {
      JsonNode *n = json_array_get_element (threads, i);
      if (JSON_NODE_HOLDS_OBJECT (n) && obj (json_node_get_object (n), "histogram") != NULL)
        return TRUE;
    }
  return FALSE;
}

/* The step's decimated live samples as a time series result ({"samples": [{t_s, value}]}). */
static JsonObject *
samples_as_series (JsonObject *step,
                   gboolean    in_ms)
{
  JsonObject *samples = obj (step, "samples");
  JsonArray *t = arr (samples, "t_ns"), *v = arr (samples, "value_ns");
  JsonObject *result;
  JsonArray *out;
  guint n;

  if (t == NULL || v == NULL || json_array_get_length (t) == 0)
    return NULL;
  n = MIN (json_array_get_length (t), json_array_get_length (v));
  result = json_object_new ();
  out = json_array_sized_new (n);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = json_object_new ();
      json_object_set_double_member (o, "t_s", json_array_get_double_element (t, i) / 1e9);
      json_object_set_double_member (o, "value", json_array_get_double_element (v, i) / (in_ms ? 1e6 : 1e3));
      json_array_add_object_element (out, o);
    }
  json_object_set_array_member (result, "samples", out);
  return result;
}

/* The plots' rule (qf-plot): milliseconds when the result states its figures in ms only. */
static gboolean
result_in_ms (JsonObject *result)
{
  gdouble ignored;

  return result != NULL && (num (result, "max_ms", &ignored) || num (result, "avg_ms", &ignored))
         && !num (result, "max_us", &ignored) && !num (result, "avg_us", &ignored);
}

/* A figure block titled "test — host", drawing source. */
static QfBlock *
add_figure_block (QfReport     *report,
                  JsonObject   *step,
                  QfFigureKind  kind,
                  JsonObject   *source)
{
  const char *host = str (obj (report->session, "pc"), "hostname");
  QfBlock *b = _qf_report_add_block (report, QF_BLOCK_FIGURE, NULL);

  b->figure = kind;
  b->result = json_object_ref (source);
  b->fig_title = g_strdup_printf ("%s — %s", _qf_report_step_title (report, step),
                                  host ? host : "");
  return b;
}

/* The step's limits stated in unit, or those the figure's chart shows, as lines on it. */
static void
add_limits (QfReport   *report,
            QfBlock    *b,
            JsonObject *step,
            const char *unit)
{
  JsonArray *verdicts = arr (step, "verdicts");

  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      JsonObject *c = json_array_get_object_element (verdicts, i);
      if (c != NULL && (b->chart != NULL ? qf_step_chart_shows_limit (b->chart, c)
                                         : g_strcmp0 (str (c, "unit"), unit) == 0))
        add_limit (report, b, c);
    }
}

static void
add_histogram_figure (QfReport   *report,
                      JsonObject *step,
                      JsonObject *result,
                      gboolean    in_ms)
{
  QfBlock *b = add_figure_block (report, step, QF_FIGURE_HISTOGRAM, result);

  b->data_unit = in_ms ? "ms" : "µs";
  b->x_label = g_strdup (in_ms ? TR (N_("Latency (ms)")) : TR (N_("Latency (µs)")));
  b->y_label = g_strdup (TR (N_("Samples (log scale)")));
  add_limits (report, b, step, in_ms ? "ms" : "µs");
}

/* The time series: the result's bandwidth intervals or latency series, else the step's stored
 * live samples (in ms for a step whose live plot is in ms, like ping). */
static void
add_series_figure (QfReport   *report,
                   JsonObject *step,
                   JsonObject *result,
                   gboolean    in_ms)
{
  const QfStepInfo *info = qf_step_lookup (str (step, "test") ? str (step, "test") : "");
  gboolean samples_in_ms = info != NULL && g_strcmp0 (info->plot.unit, "ms") == 0;
  g_autoptr(JsonObject) samples = NULL;
  JsonObject *source = NULL;
  const char *unit;
  QfBlock *b;

  if (result != NULL && (arr (result, "intervals") != NULL || arr (result, "series") != NULL))
    {
      source = result;
      unit = arr (result, "intervals") != NULL ? "Mbit/s" : (in_ms ? "ms" : "µs");
    }
  else if ((samples = samples_as_series (step, in_ms || samples_in_ms)) != NULL)
    {
      source = samples;
      in_ms = in_ms || samples_in_ms;
      unit = in_ms ? "ms" : "µs";
    }
  else
    return;
  b = add_figure_block (report, step, QF_FIGURE_TIME_SERIES, source);
  /* the values drawn: the result's own, else the live samples in the step's plot unit */
  b->data_unit = source == samples && info != NULL && info->plot.unit != NULL ? info->plot.unit : unit;
  b->x_label = g_strdup (TR (N_("Time (s)")));
  if (g_str_equal (unit, "Mbit/s"))
    b->y_label = g_strdup (TR (N_("Throughput (Mbit/s)")));
  else
    b->y_label = g_strdup (in_ms ? TR (N_("Round-trip time (ms)")) : TR (N_("Latency (µs)")));
  add_limits (report, b, step, unit);
}

/* The step's own figures (QfStepInfo.charts): those its result holds points for, each with
 * the criteria the chart shows as limit lines. */
static void
add_chart_figures (QfReport         *report,
                   JsonObject       *step,
                   JsonObject       *result,
                   const QfStepInfo *info)
{
  for (const QfStepChart *chart = info->charts; chart->axis != NULL; chart++)
    {
      g_autoptr(GPtrArray) lines = qf_step_chart_read (chart, result);
      QfBlock *b;

      if (lines->len == 0)
        continue;
      b = add_figure_block (report, step, QF_FIGURE_TIME_SERIES, result);
      b->chart = chart;
      b->data_unit = chart->unit;
      b->x_label = g_strdup (TR (N_("Time (s)")));
      b->y_label = g_strdup (TR (chart->axis));
      add_limits (report, b, step, chart->unit);
    }
}

void
_qf_report_add_figures (QfReport   *report,
                        JsonObject *step,
                        JsonObject *result)
{
  gboolean in_ms = result_in_ms (result);
  const QfStepInfo *info = qf_step_lookup (str (step, "test") ? str (step, "test") : "");

  if (result != NULL && has_histogram (result))
    add_histogram_figure (report, step, result, in_ms);
  if (info != NULL && info->charts != NULL && result != NULL)
    add_chart_figures (report, step, result, info);
  else
    add_series_figure (report, step, result, in_ms);
}

void
_qf_report_draw_figure (QfReport *report,
                        QfBlock  *block,
                        cairo_t  *cr,
                        gdouble   width,
                        gdouble   height)
{
  QfPlotOptions opt;

  qf_plot_options_init (&opt);
  opt.title = block->fig_title;
  opt.x_label = block->x_label;
  opt.y_label = block->y_label;
  opt.font_family = QF_REPORT_FONT;
  opt.font_size = 7;
  opt.legend = TRUE;
  opt.max_format = TR (N_("max %s"));
  opt.empty_text = TR (N_("No samples"));
  if (block->figure == QF_FIGURE_SPIKE_TIMELINE)
    qf_spike_plot_draw (cr, width, height, &opt, block->result, _qf_report_translate, report);
  else if (block->chart != NULL)
    qf_plot_result_chart (cr, width, height, &opt, block->chart, block->result, _qf_report_translate,
                          report, block->limits, block->n_limits);
  else if (block->figure == QF_FIGURE_HISTOGRAM)
    qf_plot_result_histogram (cr, width, height, &opt, block->result, block->limits, block->n_limits);
  else
    qf_plot_result_time_series (cr, width, height, &opt, block->result, block->limits, block->n_limits);
}
