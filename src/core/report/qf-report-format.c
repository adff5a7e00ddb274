/* qf-report-format.c — the pieces every part of the report model prints with (src/core, report
 * model).
 *
 * Block constructors (paragraphs, tables, key–value rows), numbers with their units, verdict
 * words with their icons, dates, test titles and descriptions, the labels of a test's figures,
 * and the criteria table and overall verdict exactly as printed (the verifier compares against
 * these). Nothing here calls the writers.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "qf-report-format.h"
#include "qf-report-json.h"

/* Text Qualify did not write */

char *
_qf_report_isolate (const char *text)
{
  GString *out;

  if (text == NULL)
    return NULL;
  out = g_string_new ("\u2068");
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        break;
      if (c < 0x2066 || c > 0x2069)
        g_string_append_unichar (out, c);
    }
  g_string_append (out, "\u2069");
  return g_string_free (out, FALSE);
}

/* Blocks */

QfBlock *
_qf_report_add_block (QfReport   *report,
                      QfBlockKind kind,
                      const char *text)
{
  QfBlock *b = g_new0 (QfBlock, 1);

  b->kind = kind;
  b->text = g_strdup (text);
  g_ptr_array_add (report->blocks, b);
  return b;
}

QfBlock *
_qf_report_add_table (QfReport   *report,
                      QfBlockKind kind)
{
  QfBlock *b = _qf_report_add_block (report, kind, NULL);

  b->header = g_ptr_array_new_with_free_func (g_free);
  b->verdict_col = -1;
  b->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  b->row_css = g_ptr_array_new_with_free_func (g_free);
  return b;
}

void
_qf_report_table_add_row (QfBlock    *b,
                          const char *css,
                          ...)
{
  GPtrArray *row = g_ptr_array_new_with_free_func (g_free);
  va_list ap;
  const char *cell;

  va_start (ap, css);
  while ((cell = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (row, g_strdup (cell));
  va_end (ap);
  g_ptr_array_add (b->rows, row);
  g_ptr_array_add (b->row_css, g_strdup (css));
}

void
_qf_report_table_set_header (QfBlock    *b,
                             const char *first,
                             ...)
{
  va_list ap;

  va_start (ap, first);
  for (const char *cell = first; cell != NULL; cell = va_arg (ap, const char *))
    g_ptr_array_add (b->header, g_strdup (cell));
  va_end (ap);
}

void
_qf_report_kv (QfBlock    *b,
               const char *key,
               const char *value)
{
  _qf_report_table_add_row (b, NULL, key, value && *value ? value : "—", NULL);
}

/* Formatting */

/* Integers in full (sample counts), other values to 3 significant digits (docs ux.md). */
char *
_qf_report_format_number (JsonNode *n)
{
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return g_strdup_printf ("%lld", (long long) json_node_get_int (n));
  return qf_plot_format_value (json_node_get_double (n));
}

char *
_qf_report_format_value_unit (gdouble     v,
                              const char *unit)
{
  g_autofree char *s = NULL;

  if (v == floor (v) && fabs (v) < 1e15)
    s = g_strdup_printf ("%.0f", v);
  else
    s = qf_plot_format_value (v);
  if (unit == NULL || *unit == '\0')
    return g_steal_pointer (&s);
  if (g_str_equal (unit, "%"))
    return g_strdup_printf ("%s%%", s);
  return g_strdup_printf ("%s %s", s, unit);
}

/* The unit a key's suffix names, or NULL. */
static const char *
unit_of_key (const char *key)
{
  static const struct { const char *suffix, *unit; } units[] = {
    { "_us", "µs" }, { "_ns", "ns" }, { "_ms", "ms" }, { "_s", "s" }, { "_mbps", "Mbit/s" },
    { "_kbps", "kB/s" }, { "_kBps", "kB/s" }, { "_kbytes_per_s", "kB/s" }, { "_pct", "%" }, { "_kb", "kB" },
    { "_bytes", "B" }, { "_bps", "bit/s" }, { "_mhz", "MHz" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_has_suffix (key, units[i].suffix))
      return units[i].unit;
  return NULL;
}

const char *
_qf_report_verdict_word (QfReport   *report,
                         const char *verdict)
{
  if (g_strcmp0 (verdict, "pass") == 0)
    return TR (N_("PASS"));
  if (g_strcmp0 (verdict, "fail") == 0)
    return TR (N_("FAIL"));
  if (g_strcmp0 (verdict, "warn") == 0)
    return TR (N_("WARN"));
  if (g_strcmp0 (verdict, "invalid") == 0)
    return TR (N_("INVALID"));
  if (g_strcmp0 (verdict, "incomplete") == 0)
    return TR (N_("INCOMPLETE"));
  return TR (N_("NOT RUN"));
}

/* Icon + word, so the verdict survives black-and-white printing (docs ux.md). */
char *
_qf_report_verdict_text (QfReport   *report,
                         const char *verdict)
{
  const char *icon = "—";

  if (g_strcmp0 (verdict, "pass") == 0)
    icon = "✓";
  else if (g_strcmp0 (verdict, "fail") == 0)
    icon = "✗";
  else if (g_strcmp0 (verdict, "warn") == 0)
    icon = "!";
  else if (g_strcmp0 (verdict, "invalid") == 0 || g_strcmp0 (verdict, "incomplete") == 0)
    icon = "?";
  return g_strdup_printf ("%s %s", icon, _qf_report_verdict_word (report, verdict));
}

char *
_qf_report_format_time (const char *iso)
{
  g_autoptr(GDateTime) dt = NULL;

  if (iso == NULL)
    return g_strdup ("—");
  dt = g_date_time_new_from_iso8601 (iso, NULL);
  if (dt == NULL)
    return g_strdup (iso);
  return g_date_time_format (dt, "%Y-%m-%d %H:%M:%S (UTC%:z)");
}

const char *
_qf_report_step_title (QfReport   *report,
                       JsonObject *step)
{
  const QfStepInfo *info = qf_step_lookup (str (step, "test") ? str (step, "test") : "");
  const char *key = str (step, "key");

  /* "receive" runs the bandwidth step in the other direction: keep the session's title. */
  if (info != NULL && g_strcmp0 (key, str (step, "test")) == 0)
    return TR (info->title);
  if (str (step, "title") != NULL)
    return TR (str (step, "title"));
  return key ? key : "?";
}

const char *
_qf_report_step_description (QfReport   *report,
                             const char *test,
                             const char *key)
{
  const QfStepInfo *info = qf_step_lookup (test != NULL ? test : "");

  if (g_strcmp0 (key, "receive") == 0)
    return TR (N_("How fast this PC receives data from the helper machine (like iperf3 -R); judged as a receive rate."));
  return info != NULL ? TR (info->description) : NULL;
}

/* A figure of a step's result as the step describes it (QfStepInfo.figures); one it does not
 * list is shown by its key, in the unit its suffix names. */
const char *
_qf_report_figure_label (QfReport         *report,
                         const QfStepInfo *info,
                         const char       *key)
{
  const QfStepFigure *figure = info != NULL ? qf_step_find_figure (info, key) : NULL;

  return figure != NULL ? TR (figure->label) : key;
}

const char *
_qf_report_figure_unit (const QfStepInfo *info,
                        const char       *key)
{
  const QfStepFigure *figure = info != NULL ? qf_step_find_figure (info, key) : NULL;

  return figure != NULL ? figure->unit : unit_of_key (key);
}

/* The criteria table */

GPtrArray *
_qf_report_criteria_rows (QfReport   *report,
                          GPtrArray **row_css)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  JsonArray *steps = arr (report->session, "steps");
  JsonArray *criteria = arr (report->judged, "criteria");

  if (row_css != NULL)
    *row_css = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; criteria != NULL && i < json_array_get_length (criteria); i++)
    {
      JsonNode *node = json_array_get_element (criteria, i);
      JsonObject *c, *step = NULL;
      GPtrArray *row;
      gdouble measured, limit;
      const char *unit, *cmp, *verdict;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      c = json_node_get_object (node);
      for (guint s = 0; steps != NULL && s < json_array_get_length (steps); s++)
        {
          JsonObject *st = json_array_get_object_element (steps, s);
          if (st != NULL && g_strcmp0 (str (st, "key"), str (c, "key")) == 0)
            step = st;
        }
      unit = str (c, "unit") ? str (c, "unit") : "";
      cmp = str (c, "comparison") ? str (c, "comparison") : "<=";
      verdict = str (c, "verdict") ? str (c, "verdict") : "not-run";
      row = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (row, _qf_report_isolate (step ? _qf_report_step_title (report, step) : str (c, "key")));
      g_ptr_array_add (row, _qf_report_isolate (TR (str (c, "label") ? str (c, "label") : str (c, "metric"))));
      g_ptr_array_add (row, num (c, "measured", &measured) ? _qf_report_format_value_unit (measured, unit)
                                                          : g_strdup ("—"));
      if (num (c, "limit", &limit))
        {
          g_autofree char *l = _qf_report_format_value_unit (limit, unit);
          g_ptr_array_add (row, g_strdup_printf ("%s %s", g_str_equal (cmp, ">=") ? "≥" : "≤", l));
        }
      else
        g_ptr_array_add (row, g_strdup ("—"));
      g_ptr_array_add (row, _qf_report_verdict_text (report, verdict));
      g_ptr_array_add (rows, row);
      if (row_css != NULL)
        g_ptr_array_add (*row_css, g_strdup (verdict));
    }
  return rows;
}

char *
_qf_report_overall_text (QfReport    *report,
                         const char **css)
{
  const char *overall = str (report->judged, "overall");

  if (overall == NULL)
    overall = "incomplete";
  if (css != NULL)
    *css = g_str_equal (overall, "incomplete") ? "not-run" : overall;
  return _qf_report_verdict_text (report, overall);
}
