/* qf-report-steps.c — the section of one test in the report (src/core, report model).
 *
 * Heading and description, status table (status, error, duration, real-time priority, validity,
 * parameters), the equivalent classic command, the measured figures as the engine stored them,
 * the test's own verdicts, then its figures (qf-report-figures.c).
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "qf-report-figures.h"
#include "qf-report-format.h"
#include "qf-report-json.h"
#include "qf-report-steps.h"

void
_qf_report_add_step_section (QfReport   *report,
                             JsonObject *step,
                             guint       index)
{
  const char *test = str (step, "test"), *status = str (step, "status");
  const QfStepInfo *info = qf_step_lookup (test != NULL ? test : "");
  JsonObject *params = obj (step, "params"), *result = obj (step, "result");
  JsonArray *verdicts = arr (step, "verdicts");
  const char *desc = _qf_report_step_description (report, test, str (step, "key"));
  g_autofree char *heading = g_strdup_printf ("%u. %s", index, _qf_report_step_title (report, step));
  QfBlock *b;

  b = _qf_report_add_block (report, QF_BLOCK_HEADING, heading);
  b->level = 1;
  if (desc != NULL)
    _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, desc);

  b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
  {
    const char *label = TR (N_("Not run"));
    if (g_strcmp0 (status, "done") == 0)
      label = TR (N_("Done"));
    else if (g_strcmp0 (status, "failed") == 0)
      label = TR (N_("Failed"));
    else if (g_strcmp0 (status, "cancelled") == 0)
      label = TR (N_("Cancelled"));
    else if (g_strcmp0 (status, "skipped") == 0)
      label = TR (N_("Skipped"));
    else if (g_strcmp0 (status, "pending") == 0 || g_strcmp0 (status, "running") == 0)
      label = TR (N_("Not finished"));
    if (str (step, "status_reason") != NULL)
      {
        g_autofree char *s = g_strdup_printf ("%s — %s", label, str (step, "status_reason"));
        _qf_report_kv (b, TR (N_("Status")), s);
      }
    else
      _qf_report_kv (b, TR (N_("Status")), label);
  }
  if (obj (step, "error") != NULL && str (obj (step, "error"), "message") != NULL)
    _qf_report_kv (b, TR (N_("Error")), str (obj (step, "error"), "message"));
  {
    gdouble d;
    if (num (step, "duration_s", &d))
      {
        g_autofree char *s = _qf_report_format_value_unit (round (d * 10) / 10, "s");
        _qf_report_kv (b, TR (N_("Duration")), s);
      }
  }
  if (result != NULL && str (result, "policy") != NULL)
    {
      /* The rt engine says which policy its threads really ran with. */
      const char *policy = str (result, "policy");
      gdouble prio = 0;
      gboolean rt = g_str_equal (policy, "SCHED_FIFO") || g_str_equal (policy, "SCHED_RR");
      g_autofree char *v = NULL;
      num (result, "priority", &prio);
      v = g_strdup_printf ("%s — %s %.0f", rt ? TR (N_("yes")) : TR (N_("no — the figures are not representative")),
                           policy, prio);
      _qf_report_kv (b, TR (N_("Real-time priority obtained")), v);
    }
  if (result != NULL && json_object_has_member (result, "valid") &&
      !json_object_get_boolean_member_with_default (result, "valid", TRUE))
    _qf_report_kv (b, TR (N_("Valid")), str (result, "reason") ? str (result, "reason") : TR (N_("no")));
  if (json_object_get_boolean_member_with_default (step, "partial", FALSE))
    _qf_report_kv (b, TR (N_("Partial result")), TR (N_("yes — not judged")));

  if (params != NULL && json_object_get_size (params) > 0)
    {
      g_autoptr(GList) keys = json_object_get_members (params);
      g_autoptr(GString) s = g_string_new (NULL);
      for (GList *l = keys; l != NULL; l = l->next)
        {
          JsonNode *n = json_object_get_member (params, l->data);
          g_autofree char *v = NULL;
          if (JSON_NODE_TYPE (n) == JSON_NODE_VALUE)
            v = json_node_get_value_type (n) == G_TYPE_STRING ? g_strdup (json_node_get_string (n))
                : json_node_get_value_type (n) == G_TYPE_BOOLEAN ? g_strdup (json_node_get_boolean (n) ? "true" : "false")
                : _qf_report_format_number (n);
          else
            v = json_to_string (n, FALSE);
          g_string_append_printf (s, "%s%s = %s", s->len ? ", " : "", (const char *) l->data, v);
        }
      _qf_report_kv (b, TR (N_("Parameters")), s->str);
    }

  if (str (step, "classic_command") != NULL)
    {
      b = _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Equivalent classic command:")));
      _qf_report_add_block (report, QF_BLOCK_CODE, str (step, "classic_command"));
    }

  if (result != NULL)
    {
      g_autoptr(GList) keys = json_object_get_members (result);
      QfBlock *t = NULL;
      for (GList *l = keys; l != NULL; l = l->next)
        {
          JsonNode *n = json_object_get_member (result, l->data);
          g_autofree char *v = NULL, *cell = NULL;
          const char *unit;
          if (JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
            continue;
          if (json_node_get_value_type (n) != G_TYPE_INT64 && json_node_get_value_type (n) != G_TYPE_DOUBLE)
            continue;
          if (t == NULL)
            {
              _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Measured figures:")));
              t = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
            }
          unit = _qf_report_figure_unit (info, l->data);
          v = _qf_report_format_number (n);
          cell = unit ? (g_str_equal (unit, "%") ? g_strdup_printf ("%s%%", v) : g_strdup_printf ("%s %s", v, unit))
                      : g_strdup (v);
          _qf_report_kv (t, _qf_report_figure_label (report, info, l->data), cell);
        }
    }

  if (verdicts != NULL && json_array_get_length (verdicts) > 0)
    {
      QfBlock *t = _qf_report_add_table (report, QF_BLOCK_TABLE);
      t->verdict_col = 3;
      g_ptr_array_add (t->header, g_strdup (TR (N_("Criterion"))));
      g_ptr_array_add (t->header, g_strdup (TR (N_("Measured"))));
      g_ptr_array_add (t->header, g_strdup (TR (N_("Limit"))));
      g_ptr_array_add (t->header, g_strdup (TR (N_("Verdict"))));
      for (guint i = 0; i < json_array_get_length (verdicts); i++)
        {
          JsonObject *c = json_array_get_object_element (verdicts, i);
          gdouble m, lim;
          g_autofree char *ms = NULL, *ls = NULL, *vs = NULL, *lv = NULL;
          if (c == NULL)
            continue;
          ms = num (c, "measured", &m) ? _qf_report_format_value_unit (m, str (c, "unit")) : g_strdup ("—");
          lv = num (c, "limit", &lim) ? _qf_report_format_value_unit (lim, str (c, "unit")) : g_strdup ("—");
          ls = g_strdup_printf ("%s %s", g_strcmp0 (str (c, "comparison"), ">=") == 0 ? "≥" : "≤", lv);
          vs = _qf_report_verdict_text (report, str (c, "verdict"));
          if (str (c, "reason") != NULL)
            {
              char *tmp = g_strdup_printf ("%s (%s)", vs, str (c, "reason"));
              g_free (vs);
              vs = tmp;
            }
          _qf_report_table_add_row (t, str (c, "verdict"), TR (str (c, "label") ? str (c, "label") : ""), ms, ls, vs, NULL);
        }
    }

  _qf_report_add_figures (report, step, result);
}
