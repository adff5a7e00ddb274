/* qf-report-format.c — the pieces every part of the report model prints with (src/core, report
 * model).
 *
 * Block constructors (paragraphs, tables, key–value rows), numbers with their units, verdict
 * words with their icons, dates, test titles and descriptions, a test's figures and parameters
 * as a person reads them (labels, sizes in KiB/MiB/GiB, words translated),
 * and the criteria table and overall verdict exactly as printed (the verifier compares against
 * these). Nothing here calls the writers.
 */
#include "config.h"

#include "qf-format.h"
#include <math.h>

#include "qf-i18n.h"
#include "qf-report-format.h"
#include "qf-report-json.h"
#include "qf-step-bandwidth.h"
#include "qf-stress.h"

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
  return qf_format_number (json_node_get_double (n));
}

char *
_qf_report_format_value_unit (gdouble     v,
                              const char *unit)
{
  return qf_format_value (v, unit);
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
  if (g_strcmp0 (verdict, "not-over-link") == 0)
    return TR (N_("NOT OVER THE LINK"));
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
  else if (g_strcmp0 (verdict, "not-over-link") == 0)
    icon = "~";
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

/* Figures and parameters */

/* A size in bytes in the binary unit that reads best: "56 B", "1 KiB", "256 MiB", "1.05 GiB". */
static char *
format_size (gdouble bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
  g_autofree char *v = NULL;
  guint i = 0;

  if (fabs (bytes) < 1024)
    return g_strdup_printf ("%.0f B", bytes);
  bytes /= 1024;
  while (fabs (bytes) >= 1024 && i + 1 < G_N_ELEMENTS (units))
    bytes /= 1024, i++;
  v = qf_plot_format_value (bytes);
  return g_strdup_printf ("%s %s", v, units[i]);
}

/* A rate in bit/s in the decimal unit that reads best: "500 kbit/s", "100 Mbit/s". */
static char *
format_bit_rate (gdouble bps)
{
  static const char *const units[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s" };
  g_autofree char *v = NULL;
  guint i = 0;

  while (fabs (bps) >= 1000 && i + 1 < G_N_ELEMENTS (units))
    bps /= 1000, i++;
  v = qf_plot_format_value (bps);
  return g_strdup_printf ("%s %s", v, units[i]);
}

/* A word of the engines' in the report's language; a word not listed as it is. */
static char *
format_word (QfReport   *report,
             const char *word)
{
  static const struct { const char *word, *text; } words[] = {
    { "tcp", "TCP" }, { "udp", "UDP" },
    { "up", N_("PC to helper") }, { "down", N_("helper to PC") },
    { "bidir", N_("both directions") },
    { "raw", N_("raw socket") }, { "datagram", N_("datagram socket") },
    { "blocking", N_("blocking") }, { "spin", N_("busy polling") },
    { "direct", N_("direct I/O") }, { "fsync", N_("written and synced") },
    /* rt's rt_source: who made the measuring threads real-time */
    { "self", N_("the test itself (root, capabilities or limits.d)") },
    { "qualifyd", N_("qualifyd, Qualify’s system service") }, { "rtkit", "rtkit" },
    { "none", N_("nobody") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_str_equal (word, words[i].word))
      return g_strdup (TR (words[i].text));
  return _qf_report_isolate (word);
}

static gboolean
node_number (JsonNode *n,
             gdouble  *v)
{
  if (!JSON_NODE_HOLDS_VALUE (n) || (json_node_get_value_type (n) != G_TYPE_INT64
                                     && json_node_get_value_type (n) != G_TYPE_DOUBLE))
    return FALSE;
  *v = json_node_get_double (n);
  return TRUE;
}

static const char *
node_string (JsonNode *n)
{
  return JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
           ? json_node_get_string (n) : NULL;
}

/* A number in the figure's unit ("12.3 µs", "0%"), integers in full. */
static char *
format_number (JsonNode   *n,
               const char *unit)
{
  g_autofree char *v = _qf_report_format_number (n);

  if (unit == NULL || *unit == '\0')
    return g_steal_pointer (&v);
  return g_strdup_printf ("%s %s", v, unit);
}

/* Text as it is (a folder, a host); a list (rt's cpus) as "0, 1". */
static char *
format_text (JsonNode *n)
{
  if (JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      g_autoptr(GString) s = g_string_new (NULL);

      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          g_autofree char *item = format_text (json_array_get_element (a, i));
          g_string_append_printf (s, "%s%s", i ? ", " : "", item ? item : "");
        }
      return _qf_report_isolate (s->str);
    }
  if (node_string (n) != NULL)
    return _qf_report_isolate (node_string (n));
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return _qf_report_format_number (n);
  return NULL;
}

/* A size or a rate: a number, or a text the step parses ("256M"); other text as it is. */
static char *
format_quantity (const QfStepFigure *figure,
                 JsonNode           *n)
{
  const char *text = node_string (n);
  gdouble v;
  guint64 parsed;

  if (node_number (n, &v))
    {
      if (figure->format == QF_FIGURE_KIB)
        return format_size (v * 1024);
      return figure->format == QF_FIGURE_BYTES ? format_size (v) : format_bit_rate (v);
    }
  if (text == NULL)
    return NULL;
  if (figure->format == QF_FIGURE_BYTES && qf_stress_parse_size (text, &parsed))
    return format_size ((gdouble) parsed);
  if (figure->format == QF_FIGURE_BIT_RATE && qf_step_bandwidth_parse_rate (text, &parsed))
    return format_bit_rate ((gdouble) parsed);
  return _qf_report_isolate (text);
}

/* An object's members as its figure's table labels them, in the table's order: "label: value;
 * …"; members the table does not list are left out. */
static char *
format_object (QfReport           *report,
               const QfStepFigure *members,
               JsonObject         *obj)
{
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; members != NULL && members[i].key != NULL; i++)
    {
      JsonNode *n = json_object_get_member (obj, members[i].key);
      g_autofree char *value = NULL;

      if (n == NULL || (value = _qf_report_format_figure (report, &members[i], n)) == NULL)
        continue;
      if (s->len > 0)
        g_string_append (s, TR (N_("; ")));
      g_string_append (s, TR (members[i].label));
      g_string_append (s, TR (N_(": ")));
      g_string_append (s, value);
    }
  return s->len > 0 ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
}

char *
_qf_report_format_figure (QfReport           *report,
                          const QfStepFigure *figure,
                          JsonNode           *n)
{
  gdouble v;

  g_return_val_if_fail (figure != NULL && n != NULL, NULL);
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN)
    return g_strdup (json_node_get_boolean (n) ? TR (N_("yes")) : TR (N_("no")));
  switch (figure->format)
    {
    case QF_FIGURE_HIDDEN:
      return NULL;
    case QF_FIGURE_BYTES:
    case QF_FIGURE_KIB:
    case QF_FIGURE_BIT_RATE:
      return format_quantity (figure, n);
    case QF_FIGURE_THOUSANDS:
      return node_number (n, &v) ? g_strdup_printf ("%.0f", v * 1000) : NULL;
    case QF_FIGURE_WORD:
      return node_string (n) != NULL ? format_word (report, node_string (n)) : NULL;
    case QF_FIGURE_TEXT:
      return format_text (n);
    case QF_FIGURE_OBJECT:
      return JSON_NODE_HOLDS_OBJECT (n) ? format_object (report, figure->members,
                                                         json_node_get_object (n))
                                        : NULL;
    case QF_FIGURE_UNDER_LOAD:
      return JSON_NODE_HOLDS_OBJECT (n)
               ? _qf_report_format_params (report, qf_step_lookup ("stress"), json_node_get_object (n))
               : NULL;
    case QF_FIGURE_NUMBER:
    default:
      return node_number (n, &v) ? format_number (n, figure->unit) : NULL;
    }
}

char *
_qf_report_format_params (QfReport         *report,
                          const QfStepInfo *info,
                          JsonObject       *params)
{
  g_autoptr(GList) keys = NULL;
  g_autoptr(GString) s = g_string_new (NULL);

  if (info == NULL || params == NULL)
    return NULL;
  keys = json_object_get_members (params);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      const QfStepFigure *param = qf_step_find_param (info, l->data);
      g_autofree char *value = NULL;

      if (param == NULL
          || (value = _qf_report_format_figure (report, param, json_object_get_member (params, l->data))) == NULL)
        continue;
      if (s->len > 0)
        /* TRANSLATORS: between two parameters of a test ("Threads: 1; Interval: 1000 µs") */
        g_string_append (s, TR (N_("; ")));
      g_string_append (s, TR (param->label));
      /* TRANSLATORS: between a parameter of a test and its value ("Threads: 1") */
      g_string_append (s, TR (N_(": ")));
      g_string_append (s, value);
    }
  return s->len > 0 ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
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
        g_ptr_array_add (row, qf_format_limit (cmp, limit, unit));
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
