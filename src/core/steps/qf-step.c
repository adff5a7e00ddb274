/* qf-step.c — what every measurement step shares (src/core/steps): the step error domain, the
 * figure and parameter look-up in a QfStepInfo, the histogram's stored form and typed parameter readers.
 * See qf-step.h. The list of steps is qf-steps.c, above the steps; this file is below them. */
#include "config.h"


#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-step.h"

G_DEFINE_QUARK (qf-step-error-quark, qf_step_error)

static const QfStepFigure *
find_in (const QfStepFigure *table,
         const char         *key)
{
  for (const QfStepFigure *f = table; f != NULL && f->key != NULL; f++)
    if (g_str_equal (f->key, key))
      return f;
  return NULL;
}

const QfStepFigure *
qf_step_find_figure (const QfStepInfo *info,
                     const char       *key)
{
  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return find_in (info->figures, key);
}

const QfStepFigure *
qf_step_find_param (const QfStepInfo *info,
                    const char       *key)
{
  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return find_in (info->params, key);
}

JsonObject *
qf_step_histogram_to_json (const QfHistogram *hist)
{
  JsonObject *obj = json_object_new ();
  JsonArray *buckets = json_array_new ();
  JsonArray *counts = json_array_new ();
  guint last = qf_histogram_last_used_bucket (hist);

  /* Only the buckets that hold samples: a 10 ms histogram is mostly empty. */
  for (guint i = 0; i < last; i++)
    if (hist->counts[i] != 0)
      {
        json_array_add_int_element (buckets, (gint64) i * hist->bucket_ns / QF_NSEC_PER_USEC);
        json_array_add_int_element (counts, (gint64) hist->counts[i]);
      }
  json_object_set_int_member (obj, "bucket_width_us", hist->bucket_ns / QF_NSEC_PER_USEC);
  json_object_set_array_member (obj, "bucket_us", buckets);
  json_object_set_array_member (obj, "count", counts);
  json_object_set_int_member (obj, "overflow", (gint64) hist->overflow);
  json_object_set_int_member (obj, "overflow_from_us",
                              (gint64) hist->n_buckets * hist->bucket_ns / QF_NSEC_PER_USEC);
  return obj;
}

static gboolean
get_member (JsonObject  *params,
            const char  *key,
            JsonNode   **node)
{
  *node = (params != NULL && json_object_has_member (params, key))
            ? json_object_get_member (params, key) : NULL;
  return *node != NULL && !JSON_NODE_HOLDS_NULL (*node);
}

gboolean
qf_step_param_int (JsonObject  *params,
                   const char  *key,
                   gint64       def,
                   gint64       min,
                   gint64       max,
                   gint64      *out,
                   GError     **error)
{
  JsonNode *node;
  gint64 value = def;

  if (get_member (params, key, &node))
    {
      GType type = json_node_get_value_type (node);

      if (!JSON_NODE_HOLDS_VALUE (node) || (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE))
        {
          g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                       _("Parameter “%s”: expected a whole number"), key);
          return FALSE;
        }
      if (type == G_TYPE_DOUBLE)
        {
          gdouble d = json_node_get_double (node);
          if (d != (gdouble) (gint64) d)
            {
              g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                           _("Parameter “%s”: expected a whole number, got %g"), key, d);
              return FALSE;
            }
          value = (gint64) d;
        }
      else
        value = json_node_get_int (node);
    }
  if (value < min || value > max)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: %lld is outside %lld…%lld"),
                   key, (long long) value, (long long) min, (long long) max);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

gboolean
qf_step_param_double (JsonObject  *params,
                      const char  *key,
                      gdouble      def,
                      gdouble      min,
                      gdouble      max,
                      gdouble     *out,
                      GError     **error)
{
  JsonNode *node;
  gdouble value = def;

  if (get_member (params, key, &node))
    {
      GType type = json_node_get_value_type (node);

      if (!JSON_NODE_HOLDS_VALUE (node) || (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE))
        {
          g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                       _("Parameter “%s”: expected a number"), key);
          return FALSE;
        }
      value = json_node_get_double (node);
    }
  if (!(value >= min && value <= max))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: %g is outside %g…%g"), key, value, min, max);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

gboolean
qf_step_param_bool (JsonObject  *params,
                    const char  *key,
                    gboolean     def,
                    gboolean    *out,
                    GError     **error)
{
  JsonNode *node;

  *out = def;
  if (!get_member (params, key, &node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: expected true or false"), key);
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
qf_step_param_string (JsonObject  *params,
                      const char  *key,
                      const char  *def,
                      const char **out,
                      GError     **error)
{
  JsonNode *node;

  *out = def;
  if (!get_member (params, key, &node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: expected a text value"), key);
      return FALSE;
    }
  *out = json_node_get_string (node);
  return TRUE;
}
