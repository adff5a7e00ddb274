/* qf-report-steps.c — the section of one test in the report (src/core, report model).
 *
 * Heading and description, status table (status, error, duration, real-time priority, validity,
 * parameters), the equivalent classic command, the measured figures as the engine stored them,
 * the test's own verdicts, then its figures (qf-report-figures.c) and, when the kernel's trace
 * was recorded, why it was slow (qf-report-causes.c).
 */
#include "config.h"

#include "qf-format.h"
#include <math.h>

#include "qf-i18n.h"
#include "qf-report-causes.h"
#include "qf-report-figures.h"
#include "qf-report-format.h"
#include "qf-report-json.h"
#include "qf-report-steps.h"

/* The step's status in the report's language. */
static const char *
status_label (QfReport   *report,
              const char *status)
{
  if (g_strcmp0 (status, "done") == 0)
    return TR (N_("Done"));
  if (g_strcmp0 (status, "failed") == 0)
    return TR (N_("Failed"));
  if (g_strcmp0 (status, "cancelled") == 0)
    return TR (N_("Cancelled"));
  if (g_strcmp0 (status, "skipped") == 0)
    return TR (N_("Skipped"));
  if (g_strcmp0 (status, "pending") == 0 || g_strcmp0 (status, "running") == 0)
    return TR (N_("Not finished"));
  return TR (N_("Not run"));
}

/* Status (with its reason), error and duration. */
static void
add_status_rows (QfReport   *report,
                 QfBlock    *b,
                 JsonObject *step)
{
  const char *label = status_label (report, str (step, "status"));
  g_autofree char *reason = _qf_report_isolate (str (step, "status_reason"));
  g_autofree char *error = _qf_report_isolate (str (obj (step, "error"), "message"));
  gdouble duration_s;

  if (reason != NULL)
    {
      g_autofree char *s = g_strdup_printf ("%s — %s", label, reason);
      _qf_report_kv (b, TR (N_("Status")), s);
    }
  else
    _qf_report_kv (b, TR (N_("Status")), label);
  if (error != NULL)
    _qf_report_kv (b, TR (N_("Error")), error);
  if (num (step, "duration_s", &duration_s))
    {
      g_autofree char *s = _qf_report_format_value_unit (round (duration_s * 10) / 10, "s");
      _qf_report_kv (b, TR (N_("Duration")), s);
    }
}

/* What makes the figures trustworthy or not: the real-time priority the rt engine's threads
 * really ran with, a result the engine marked invalid, a partial result. */
static void
add_validity_rows (QfReport   *report,
                   QfBlock    *b,
                   JsonObject *step,
                   JsonObject *result)
{
  const char *policy = str (result, "policy");

  if (policy != NULL)
    {
      gdouble prio = 0;
      gboolean rt = g_str_equal (policy, "SCHED_FIFO") || g_str_equal (policy, "SCHED_RR");
      g_autofree char *v = NULL;

      num (result, "priority", &prio);
      v = g_strdup_printf ("%s — %s %.0f",
                           rt ? TR (N_("yes")) : TR (N_("no — the figures are not representative")),
                           policy, prio);
      _qf_report_kv (b, TR (N_("Real-time priority obtained")), v);
    }
  if (result != NULL && json_object_has_member (result, "valid") &&
      !json_object_get_boolean_member_with_default (result, "valid", TRUE))
    {
      g_autofree char *reason = _qf_report_isolate (str (result, "reason"));
      _qf_report_kv (b, TR (N_("Valid")), reason ? reason : TR (N_("no")));
    }
  if (json_object_get_boolean_member_with_default (step, "partial", FALSE))
    _qf_report_kv (b, TR (N_("Partial result")), TR (N_("yes — not judged")));
}

/* The parameters the step lists, labelled and in the units a person uses. */
static void
add_params_row (QfReport         *report,
                QfBlock          *b,
                const QfStepInfo *info,
                JsonObject       *params)
{
  g_autofree char *text = _qf_report_format_params (report, info, params);

  if (text != NULL)
    _qf_report_kv (b, TR (N_("Parameters")), text);
}

static void
add_classic_command (QfReport   *report,
                     JsonObject *step)
{
  g_autofree char *command = _qf_report_isolate (str (step, "classic_command"));

  if (command == NULL)
    return;
  _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Equivalent classic command:")));
  _qf_report_add_block (report, QF_BLOCK_CODE, command);
}

/* Every number and word of the result the step's table lists (QfStepInfo.figures), labelled
 * and in the units a person uses; what it does not list (plot data, flags) is left out. */
static void
add_measured_figures (QfReport         *report,
                      const QfStepInfo *info,
                      JsonObject       *result)
{
  g_autoptr(GList) keys = NULL;
  QfBlock *t = NULL;

  if (result == NULL || info == NULL)
    return;
  keys = json_object_get_members (result);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      JsonNode *n = json_object_get_member (result, l->data);
      const QfStepFigure *figure = qf_step_find_figure (info, l->data);
      g_autofree char *cell = NULL;

      /* Values, and the objects whose members the figure's own table labels. */
      if (figure == NULL
          || (JSON_NODE_TYPE (n) != JSON_NODE_VALUE && figure->format != QF_FIGURE_OBJECT)
          || (JSON_NODE_TYPE (n) == JSON_NODE_VALUE && json_node_get_value_type (n) == G_TYPE_BOOLEAN)
          || (cell = _qf_report_format_figure (report, figure, n)) == NULL)
        continue;
      if (t == NULL)
        {
          _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Measured figures:")));
          t = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
        }
      _qf_report_kv (t, TR (figure->label), cell);
    }
}

/* One criterion the step was judged on: label, measured, limit, verdict (with its reason), from
 * the verdicts judged again on loading, as the criteria table prints them. */
static void
add_verdict_row (QfReport   *report,
                 QfBlock    *t,
                 JsonObject *c)
{
  const char *unit = str (c, "unit");
  g_autofree char *reason = _qf_report_isolate (str (c, "reason"));
  g_autofree char *label = _qf_report_isolate (TR (str (c, "label") ? str (c, "label") : ""));
  gdouble measured, limit;
  g_autofree char *ms = NULL, *ls = NULL, *vs = NULL;

  ms = num (c, "measured", &measured) ? _qf_report_format_value_unit (measured, unit)
                                      : g_strdup ("—");
  ls = num (c, "limit", &limit) ? qf_format_limit (str (c, "comparison"), limit, unit) : g_strdup ("—");
  vs = _qf_report_verdict_text (report, str (c, "verdict"));
  if (reason != NULL)
    {
      char *with = g_strdup_printf ("%s (%s)", vs, reason);
      g_free (vs);
      vs = with;
    }
  _qf_report_table_add_row (t, str (c, "verdict"), label, ms, ls, vs, NULL);
}

static void
add_verdicts (QfReport  *report,
              JsonArray *verdicts)
{
  QfBlock *t;

  if (verdicts == NULL || json_array_get_length (verdicts) == 0)
    return;
  t = _qf_report_add_table (report, QF_BLOCK_TABLE);
  t->verdict_col = 3;
  _qf_report_table_set_header (t, TR (N_("Criterion")), TR (N_("Measured")), TR (N_("Limit")),
                               TR (N_("Verdict")), NULL);
  for (guint i = 0; i < json_array_get_length (verdicts); i++)
    {
      JsonObject *c = json_array_get_object_element (verdicts, i);
      if (c != NULL)
        add_verdict_row (report, t, c);
    }
}

void
_qf_report_add_step_section (QfReport   *report,
                             JsonObject *step,
                             guint       index)
{
  const char *test = str (step, "test");
  const QfStepInfo *info = qf_step_lookup (test != NULL ? test : "");
  JsonObject *result = obj (step, "result");
  const char *desc = _qf_report_step_description (report, test, str (step, "key"));
  g_autofree char *title = _qf_report_isolate (_qf_report_step_title (report, step));
  g_autofree char *heading = g_strdup_printf ("%u. %s", index, title);
  QfBlock *b;

  _qf_report_add_block (report, QF_BLOCK_HEADING, heading)->level = 1;
  if (desc != NULL)
    _qf_report_add_block (report, QF_BLOCK_PARAGRAPH, desc);
  b = _qf_report_add_table (report, QF_BLOCK_KEY_VALUE);
  add_status_rows (report, b, step);
  add_validity_rows (report, b, step, result);
  add_params_row (report, b, info, obj (step, "params"));
  add_classic_command (report, step);
  add_measured_figures (report, info, result);
  add_verdicts (report, _qf_report_step_verdicts (report, index - 1));
  _qf_report_add_figures (report, step, result);
  _qf_report_add_latency_causes (report, info, step, result);
}
