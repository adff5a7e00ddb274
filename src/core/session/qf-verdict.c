/* qf-verdict.c — criteria judged on the engines' result JSON (src/core). See qf-verdict.h. */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "qf-json.h"
#include "qf-verdict.h"

static const char *const verdict_names[] = { "pass", "fail", "warn", "not-run", "invalid" };
static const char *const overall_names[] = { "pass", "fail", "invalid", "incomplete" };

const char *
qf_verdict_to_string (QfVerdict verdict)
{
  g_return_val_if_fail (verdict <= QF_VERDICT_INVALID, "invalid");
  return verdict_names[verdict];
}

gboolean
qf_verdict_from_string (const char *text,
                        QfVerdict  *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (verdict_names); i++)
    if (g_strcmp0 (text, verdict_names[i]) == 0)
      {
        *out = (QfVerdict) i;
        return TRUE;
      }
  return FALSE;
}

const char *
qf_verdict_to_label (QfVerdict verdict)
{
  switch (verdict)
    {
    case QF_VERDICT_PASS:
      return _("PASS");
    case QF_VERDICT_FAIL:
      return _("FAIL");
    case QF_VERDICT_WARN:
      return _("WARN");
    case QF_VERDICT_NOT_RUN:
      return _("NOT RUN");
    case QF_VERDICT_INVALID:
    default:
      return _("INVALID");
    }
}

const char *
qf_verdict_to_symbol (QfVerdict verdict)
{
  static const char *const symbols[] = { "✓", "✗", "!", "—", "?" };

  g_return_val_if_fail (verdict <= QF_VERDICT_INVALID, "?");
  return symbols[verdict];
}

const char *
qf_overall_to_string (QfOverall overall)
{
  g_return_val_if_fail (overall <= QF_OVERALL_INCOMPLETE, "incomplete");
  return overall_names[overall];
}

gboolean
qf_overall_from_string (const char *text,
                        QfOverall  *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (overall_names); i++)
    if (g_strcmp0 (text, overall_names[i]) == 0)
      {
        *out = (QfOverall) i;
        return TRUE;
      }
  return FALSE;
}

const char *
qf_overall_to_label (QfOverall overall)
{
  switch (overall)
    {
    case QF_OVERALL_PASS:
      return _("PASS");
    case QF_OVERALL_FAIL:
      return _("FAIL");
    case QF_OVERALL_INVALID:
      return _("INVALID");
    case QF_OVERALL_INCOMPLETE:
    default:
      return _("INCOMPLETE");
    }
}

JsonObject *
qf_verdict_judge (const char        *key,
                  guint              index,
                  const QfCriterion *criterion,
                  gboolean           done,
                  JsonObject        *result,
                  const char        *not_run_reason)
{
  JsonObject *v = json_object_new ();
  QfVerdict verdict;
  const char *reason = NULL;
  g_autofree char *reason_owned = NULL;
  gdouble measured = 0;
  gboolean have_measured = FALSE;

  g_return_val_if_fail (key != NULL && criterion != NULL, v);

  json_object_set_string_member (v, "key", key);
  json_object_set_int_member (v, "index", index);
  json_object_set_string_member (v, "metric", criterion->metric);
  json_object_set_string_member (v, "label", criterion->label);
  json_object_set_string_member (v, "comparison", qf_comparison_to_string (criterion->comparison));
  json_object_set_double_member (v, "limit", criterion->limit);
  json_object_set_string_member (v, "unit", criterion->unit);
  json_object_set_string_member (v, "role", qf_role_to_string (criterion->role));

  if (!done || result == NULL)
    {
      verdict = QF_VERDICT_NOT_RUN;
      reason = not_run_reason != NULL ? not_run_reason : _("The test was not run.");
    }
  else
    {
      JsonNode *valid = json_object_get_member (result, "valid");
      JsonNode *figure;

      have_measured = qf_json_get_path_double (result, criterion->metric, &measured);
      if (valid != NULL && JSON_NODE_HOLDS_VALUE (valid) &&
          json_node_get_value_type (valid) == G_TYPE_BOOLEAN && !json_node_get_boolean (valid))
        {
          verdict = QF_VERDICT_INVALID;
          reason = qf_json_get_string (result, "reason", NULL);
          if (reason == NULL)
            reason = _("The test reported its own result as not valid.");
        }
      else if (!have_measured && (figure = qf_json_get_path (result, criterion->metric)) != NULL &&
               JSON_NODE_HOLDS_NULL (figure))
        {
          /* The engine says it had nothing to measure (e.g. no disk did any I/O). */
          verdict = QF_VERDICT_NOT_RUN;
          reason = reason_owned = g_strdup_printf (_("The test measured no figure “%s” (null in its result)."),
                                                   criterion->metric);
        }
      else if (!have_measured || !isfinite (measured))
        {
          verdict = QF_VERDICT_INVALID;
          have_measured = FALSE;
          reason = reason_owned = g_strdup_printf (_("The result holds no figure “%s”."),
                                                   criterion->metric);
        }
      else
        {
          gboolean within = criterion->comparison == QF_COMPARISON_AT_MOST
                              ? measured <= criterion->limit
                              : measured >= criterion->limit;
          if (within)
            verdict = QF_VERDICT_PASS;
          else
            verdict = criterion->role == QF_ROLE_DECIDES ? QF_VERDICT_FAIL : QF_VERDICT_WARN;
        }
    }

  if (have_measured)
    json_object_set_double_member (v, "measured", measured);
  else
    json_object_set_null_member (v, "measured");
  json_object_set_string_member (v, "verdict", qf_verdict_to_string (verdict));
  if (reason != NULL)
    json_object_set_string_member (v, "reason", reason);
  else
    json_object_set_null_member (v, "reason");
  return v;
}

JsonArray *
qf_verdict_judge_test (const QfProfileTest *test,
                       gboolean             done,
                       JsonObject          *result,
                       const char          *not_run_reason)
{
  JsonArray *verdicts = json_array_new ();

  g_return_val_if_fail (test != NULL, verdicts);

  for (guint i = 0; i < test->criteria->len; i++)
    json_array_add_object_element (verdicts,
                                   qf_verdict_judge (test->key, i, g_ptr_array_index (test->criteria, i),
                                                     done, result, not_run_reason));
  return verdicts;
}

static void
count_verdicts (JsonArray *verdicts,
                guint      counts[5],
                gboolean   deciding[5])
{
  for (guint i = 0; i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      QfVerdict verdict;

      if (v == NULL || !qf_verdict_from_string (qf_json_get_string (v, "verdict", NULL), &verdict))
        continue;
      counts[verdict]++;
      if (g_strcmp0 (qf_json_get_string (v, "role", NULL), "decides") == 0)
        deciding[verdict] = TRUE;
    }
}

QfOverall
qf_verdict_overall (JsonArray *verdicts,
                    guint     *warnings)
{
  guint counts[5] = { 0 };
  gboolean deciding[5] = { FALSE };

  g_return_val_if_fail (verdicts != NULL, QF_OVERALL_INCOMPLETE);

  count_verdicts (verdicts, counts, deciding);
  if (warnings != NULL)
    *warnings = counts[QF_VERDICT_WARN];
  if (deciding[QF_VERDICT_FAIL])
    return QF_OVERALL_FAIL;
  if (deciding[QF_VERDICT_INVALID])
    return QF_OVERALL_INVALID;
  if (deciding[QF_VERDICT_NOT_RUN])
    return QF_OVERALL_INCOMPLETE;
  /* A profile whose deciding criteria were all left out decides nothing. */
  if (!deciding[QF_VERDICT_PASS])
    return QF_OVERALL_INCOMPLETE;
  return QF_OVERALL_PASS;
}

JsonObject *
qf_verdict_summary (JsonArray *verdicts)
{
  JsonObject *summary = json_object_new ();
  JsonObject *counts_obj = json_object_new ();
  JsonArray *copy = json_array_new ();
  guint counts[5] = { 0 };
  gboolean deciding[5] = { FALSE };
  guint warnings = 0;
  QfOverall overall = qf_verdict_overall (verdicts, &warnings);

  count_verdicts (verdicts, counts, deciding);
  for (guint i = 0; i < G_N_ELEMENTS (verdict_names); i++)
    json_object_set_int_member (counts_obj, verdict_names[i], counts[i]);
  for (guint i = 0; i < json_array_get_length (verdicts); i++)
    json_array_add_element (copy, qf_json_node_deep_copy (json_array_get_element (verdicts, i)));

  json_object_set_string_member (summary, "overall", qf_overall_to_string (overall));
  json_object_set_int_member (summary, "warnings", warnings);
  json_object_set_object_member (summary, "counts", counts_obj);
  json_object_set_array_member (summary, "criteria", copy);
  return summary;
}

char *
qf_verdict_format_value (gdouble     value,
                         const char *unit)
{
  g_autofree char *number = NULL;
  gdouble magnitude = fabs (value);

  if (magnitude >= 1000 || magnitude == 0 || value == rint (value))
    number = g_strdup_printf ("%.0f", value);
  else if (magnitude >= 100)
    number = g_strdup_printf ("%.0f", value);
  else if (magnitude >= 10)
    number = g_strdup_printf ("%.1f", value);
  else if (magnitude >= 1)
    number = g_strdup_printf ("%.2f", value);
  else
    number = g_strdup_printf ("%#.3g", value);
  if (unit == NULL || *unit == '\0')
    return g_steal_pointer (&number);
  if (g_str_equal (unit, "%"))
    return g_strdup_printf ("%s %%", number);
  return g_strdup_printf ("%s %s", number, unit);
}
