/* qf-report-figures.c — the plots of a test's section and how they are drawn (src/core, report
 * model).
 *
 * A step's histogram and its time series (interval series, per-sample series or the step's
 * stored live samples) become figure blocks, with the step's limits drawn as lines; the writers
 * paint a figure block through _qf_report_draw_figure, which hands it to qf-plot, the code the
 * wizard draws with.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "qf-report-figures.h"
#include "qf-report-format.h"
#include "qf-report-json.h"

static void
add_limit (QfReport   *report,
           QfBlock    *b,
           JsonObject *criterion)
{
  gdouble limit;
  g_autofree char *value = NULL;
  const char *unit = str (criterion, "unit");

  if (b->n_limits >= QF_REPORT_MAX_LIMITS || !num (criterion, "limit", &limit))
    return;
  value = _qf_report_format_value_unit (limit, unit);
  b->limits[b->n_limits].value = limit;
  b->limit_labels[b->n_limits] = g_strdup_printf ("%s %s %s", TR (str (criterion, "label") ? str (criterion, "label") : ""),
                                                  g_strcmp0 (str (criterion, "comparison"), ">=") == 0 ? "≥" : "≤",
                                                  value);
  b->limits[b->n_limits].label = b->limit_labels[b->n_limits];
  b->n_limits++;
}

static gboolean
has_histogram (JsonObject *result)
{
  JsonArray *threads = arr (result, "threads");

  if (obj (result, "histogram") != NULL)
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

void
_qf_report_add_figures (QfReport   *report,
                        JsonObject *step,
                        JsonObject *result)
{
  const QfStepInfo *info = qf_step_lookup (str (step, "test") ? str (step, "test") : "");
  /* A step whose live samples are in ms (ping) draws its stored samples in ms too. */
  gboolean samples_in_ms = info != NULL && g_strcmp0 (info->plot.unit, "ms") == 0;
  const char *host = str (obj (report->session, "pc"), "hostname");
  JsonArray *verdicts = arr (step, "verdicts");
  /* The plots' rule (qf-plot): milliseconds when the result states its figures in ms only. */
  gdouble ignored;
  gboolean in_ms = result != NULL && (num (result, "max_ms", &ignored) || num (result, "avg_ms", &ignored)) &&
                   !num (result, "max_us", &ignored) && !num (result, "avg_us", &ignored);
  g_autoptr(JsonObject) series_result = NULL;
  JsonObject *series_source = NULL;
  const char *series_unit = NULL;

  if (result != NULL && has_histogram (result))
    {
      QfBlock *b = _qf_report_add_block (report, QF_BLOCK_FIGURE, NULL);
      JsonObject *h = obj (result, "histogram");

      b->figure = QF_FIGURE_HISTOGRAM;
      b->result = json_object_ref (result);
      b->fig_title = g_strdup_printf ("%s — %s", _qf_report_step_title (report, step), host ? host : "");
      in_ms = in_ms || (h != NULL && (json_object_has_member (h, "bucket_ms") || json_object_has_member (h, "bucket_width_ms")));
      b->x_label = g_strdup (in_ms ? TR (N_("Latency (ms)")) : TR (N_("Latency (µs)")));
      b->y_label = g_strdup (TR (N_("Samples (log scale)")));
      for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
        {
          JsonObject *c = json_array_get_object_element (verdicts, i);
          if (c != NULL && g_strcmp0 (str (c, "unit"), in_ms ? "ms" : "µs") == 0)
            add_limit (report, b, c);
        }
    }

  if (result != NULL && (arr (result, "intervals") != NULL || arr (result, "series") != NULL))
    {
      series_source = result;
      series_unit = arr (result, "intervals") != NULL ? "Mbit/s" : (in_ms ? "ms" : "µs");
    }
  else if ((series_result = samples_as_series (step, in_ms || samples_in_ms)) != NULL)
    {
      series_source = series_result;
      in_ms = in_ms || samples_in_ms;
      series_unit = in_ms ? "ms" : "µs";
    }
  if (series_source != NULL)
    {
      QfBlock *b = _qf_report_add_block (report, QF_BLOCK_FIGURE, NULL);

      b->figure = QF_FIGURE_TIME_SERIES;
      b->result = json_object_ref (series_source);
      b->fig_title = g_strdup_printf ("%s — %s", _qf_report_step_title (report, step), host ? host : "");
      b->x_label = g_strdup (TR (N_("Time (s)")));
      if (g_str_equal (series_unit, "Mbit/s"))
        b->y_label = g_strdup (TR (N_("Throughput (Mbit/s)")));
      else
        b->y_label = g_strdup (in_ms ? TR (N_("Round-trip time (ms)")) : TR (N_("Latency (µs)")));
      for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
        {
          JsonObject *c = json_array_get_object_element (verdicts, i);
          if (c != NULL && g_strcmp0 (str (c, "unit"), series_unit) == 0)
            add_limit (report, b, c);
        }
    }
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
  if (block->figure == QF_FIGURE_HISTOGRAM)
    qf_plot_result_histogram (cr, width, height, &opt, block->result, block->limits, block->n_limits);
  else
    qf_plot_result_time_series (cr, width, height, &opt, block->result, block->limits, block->n_limits);
}
