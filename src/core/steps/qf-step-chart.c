/* qf-step-chart.c — reading a step's charts (QfStepChart, qf-step.h) from its stored result
 * (src/core/steps).
 *
 * The step says which series its figures draw; this file reads them, so the report and the
 * wizard draw what the step measured without knowing the result's keys. Each value is the
 * result's own, except a line with `per`, divided as the step's summary divides it.
 */
#include "config.h"

#include <math.h>

#include "qf-json.h"
#include "qf-step.h"

static void
line_data_free (gpointer data)
{
  QfStepLineData *d = data;

  g_free (d->name);
  g_array_unref (d->t_s);
  g_array_unref (d->values);
  g_free (d);
}

static QfStepLineData *
line_data_new (const char *label,
               const char *name)
{
  QfStepLineData *d = g_new0 (QfStepLineData, 1);

  d->label = label;
  d->name = g_strdup (name);
  d->t_s = g_array_new (FALSE, FALSE, sizeof (gdouble));
  d->values = g_array_new (FALSE, FALSE, sizeof (gdouble));
  return d;
}

/* A point's number: a member that is a number, else FALSE (a gap, not a zero). */
static gboolean
number (JsonObject *o,
        const char *key,
        gdouble    *out)
{
  return o != NULL && qf_json_get_path_double (o, key, out);
}

static void
append (QfStepLineData *d,
        gdouble         t,
        gdouble         v)
{
  g_array_append_val (d->t_s, t);
  g_array_append_val (d->values, v);
}

/* The line of an each element named name, added to lines when new. */
static QfStepLineData *
each_line (GPtrArray        *lines,
           guint             first,
           const QfStepLine *line,
           const char       *name)
{
  QfStepLineData *d;

  for (guint i = first; i < lines->len; i++)
    {
      d = g_ptr_array_index (lines, i);
      if (g_strcmp0 (d->name, name) == 0)
        return d;
    }
  d = line_data_new (line->label, name);
  g_ptr_array_add (lines, d);
  return d;
}

/* One QfStepLine over every point: its line(s) appended to lines. */
static void
read_line (GPtrArray        *lines,
           const QfStepLine *line,
           JsonArray        *points,
           gdouble           divisor)
{
  guint first = lines->len;
  QfStepLineData *plain = NULL;

  if (line->each == NULL)
    g_ptr_array_add (lines, plain = line_data_new (line->label, NULL));
  for (guint i = 0; i < json_array_get_length (points); i++)
    {
      JsonNode *node = json_array_get_element (points, i);
      JsonObject *p = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonArray *elements = line->each != NULL ? qf_json_get_array (p, line->each) : NULL;
      gdouble t, v;

      if (!number (p, "t_s", &t))
        continue;
      if (plain != NULL && number (p, line->key, &v))
        append (plain, t, v / divisor);
      for (guint e = 0; elements != NULL && e < json_array_get_length (elements); e++)
        {
          JsonNode *en = json_array_get_element (elements, e);
          JsonObject *eo = JSON_NODE_HOLDS_OBJECT (en) ? json_node_get_object (en) : NULL;
          const char *name = qf_json_get_string (eo, "name", NULL);
          if (name != NULL && number (eo, line->key, &v))
            append (each_line (lines, first, line, name), t, v / divisor);
        }
    }
  if (plain != NULL && plain->values->len == 0)
    g_ptr_array_remove (lines, plain);
}

GPtrArray *
qf_step_chart_read (const QfStepChart *chart,
                    JsonObject        *result)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (line_data_free);
  JsonNode *node;
  JsonArray *points;
  gdouble divisor = 1;

  g_return_val_if_fail (chart != NULL, lines);
  node = result != NULL ? qf_json_get_path (result, chart->points) : NULL;
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return lines;
  points = json_node_get_array (node);
  for (const QfStepLine *l = chart->lines; l < chart->lines + G_N_ELEMENTS (chart->lines) && l->key != NULL; l++)
    {
      if (l->per != NULL && !(qf_json_get_path_double (result, l->per, &divisor) && divisor > 0))
        continue;   /* no divisor: the line cannot be told, rather than drawn wrong */
      read_line (lines, l, points, l->per != NULL ? divisor : 1);
    }
  if (lines->len == 0 && chart->fallback.key != NULL)
    read_line (lines, &chart->fallback, points, 1);
  return lines;
}

gboolean
qf_step_chart_shows_limit (const QfStepChart *chart,
                           JsonObject        *criterion)
{
  const char *metric = qf_json_get_string (criterion, "metric", NULL);
  const char *unit = qf_json_get_string (criterion, "unit", "");

  g_return_val_if_fail (chart != NULL, FALSE);
  if (g_strcmp0 (unit, chart->unit) != 0)
    return FALSE;
  if (chart->limit_metrics == NULL)
    return TRUE;
  return metric != NULL && g_strv_contains ((const char *const *) chart->limit_metrics, metric);
}
