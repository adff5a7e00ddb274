/* qf-report.c — the report model: session JSON in, blocks in the chosen language out
 * (src/core).
 *
 * Reads the session as docs/session-format.md describes it and turns it into the blocks both
 * writers render: header, overall verdict, criteria table, one section per test (description,
 * parameters, classic command, figures, plots), advice, audit, inventory, network, sign-off and
 * the appendix note. Figures are printed as the engines stored them; nothing is recomputed.
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "qf-paths.h"
#include "qf-report-private.h"
#include "qf-step.h"

G_DEFINE_QUARK (qf-report-error-quark, qf_report_error)

#define TR(s) _qf_report_tr (report, s)

static const char *const languages[] = { "en", "zh_CN", NULL };

const char *const *
qf_report_languages (void)
{
  return languages;
}

/* Blocks */

static void
block_free (QfBlock *b)
{
  g_free (b->text);
  g_free (b->text2);
  g_free (b->css);
  g_free (b->id);
  g_clear_pointer (&b->header, g_ptr_array_unref);
  g_clear_pointer (&b->rows, g_ptr_array_unref);
  g_clear_pointer (&b->row_css, g_ptr_array_unref);
  g_clear_pointer (&b->result, json_object_unref);
  g_free (b->fig_title);
  g_free (b->x_label);
  g_free (b->y_label);
  for (guint i = 0; i < b->n_limits; i++)
    g_free (b->limit_labels[i]);
  g_free (b);
}

static QfBlock *
add_block (QfReport   *report,
           QfBlockKind kind,
           const char *text)
{
  QfBlock *b = g_new0 (QfBlock, 1);

  b->kind = kind;
  b->text = g_strdup (text);
  g_ptr_array_add (report->blocks, b);
  return b;
}

static QfBlock *
add_table (QfReport   *report,
           QfBlockKind kind)
{
  QfBlock *b = add_block (report, kind, NULL);

  b->header = g_ptr_array_new_with_free_func (g_free);
  b->verdict_col = -1;
  b->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  b->row_css = g_ptr_array_new_with_free_func (g_free);
  return b;
}

static void
table_add_row (QfBlock    *b,
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

static void
kv (QfBlock    *b,
    const char *key,
    const char *value)
{
  table_add_row (b, NULL, key, value && *value ? value : "—", NULL);
}

/* Catalogue: a .mo file read directly (GNU gettext's format: magic, count, two tables of
 * (length, offset) pairs). Plural and context entries are not used by the report. */

static GHashTable *
load_catalogue (const char *language,
                GError    **error)
{
  g_autofree char *path = g_build_filename (qf_paths_get_localedir (), language, "LC_MESSAGES",
                                            GETTEXT_PACKAGE ".mo", NULL);
  g_autofree char *data = NULL;
  gsize len;
  GHashTable *table;
  guint32 magic, n, orig, trans;
  gboolean swap;

#define RD(off) (swap ? GUINT32_SWAP_LE_BE (*(guint32 *) (data + (off))) : *(guint32 *) (data + (off)))
  if (!g_file_get_contents (path, &data, &len, NULL) || len < 28)
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_LANGUAGE,
                   _("No translation for “%s” found (%s). Reinstall Qualify or choose English."),
                   language, path);
      return NULL;
    }
  magic = *(guint32 *) data;
  swap = magic == 0xde120495;
  if (magic != 0x950412de && !swap)
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_LANGUAGE,
                   _("%s is not a gettext catalogue."), path);
      return NULL;
    }
  n = RD (8);
  orig = RD (12);
  trans = RD (16);
  if ((guint64) orig + 8ull * n > len || (guint64) trans + 8ull * n > len)
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_LANGUAGE,
                   _("%s is truncated."), path);
      return NULL;
    }
  table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint32 i = 0; i < n; i++)
    {
      guint32 olen = RD (orig + 8 * i), ooff = RD (orig + 8 * i + 4);
      guint32 tlen = RD (trans + 8 * i), toff = RD (trans + 8 * i + 4);
      if ((guint64) ooff + olen >= len || (guint64) toff + tlen >= len || olen == 0 || tlen == 0)
        continue;
      g_hash_table_insert (table, g_strndup (data + ooff, olen), g_strndup (data + toff, tlen));
    }
#undef RD
  return table;
}

const char *
_qf_report_tr (QfReport   *report,
               const char *msgid)
{
  const char *s;

  if (msgid == NULL || report->catalogue == NULL)
    return msgid;
  s = g_hash_table_lookup (report->catalogue, msgid);
  return s != NULL && *s != '\0' ? s : msgid;
}

/* Shape of the session (issue 11): well-formed JSON whose members have the wrong type would
 * otherwise make an empty-looking report. Every member the report reads must be absent, null or
 * of the type docs/session-format.md gives; the error names the key path that is wrong. */

static JsonObject *obj (JsonObject *o,
                        const char *key);

typedef enum
{
  SHAPE_OBJECT,
  SHAPE_ARRAY,
  SHAPE_STRING,
  SHAPE_NUMBER,
} Shape;

typedef struct
{
  const char *key;
  Shape       shape;
} ShapeRule;

static const ShapeRule session_rules[] = {
  { "id", SHAPE_STRING }, { "state", SHAPE_STRING }, { "app_version", SHAPE_STRING },
  { "created_at", SHAPE_STRING }, { "finished_at", SHAPE_STRING }, { "customer", SHAPE_STRING },
  { "site", SHAPE_STRING }, { "schema_version", SHAPE_NUMBER }, { "pc", SHAPE_OBJECT },
  { "profile", SHAPE_OBJECT }, { "network", SHAPE_OBJECT }, { "peer", SHAPE_OBJECT },
  { "verdict", SHAPE_OBJECT }, { "comparison", SHAPE_OBJECT }, { "steps", SHAPE_ARRAY },
  { "notes", SHAPE_ARRAY }, { "advice", SHAPE_ARRAY }, { NULL, 0 }
};
static const ShapeRule step_rules[] = {
  { "key", SHAPE_STRING }, { "test", SHAPE_STRING }, { "title", SHAPE_STRING },
  { "status", SHAPE_STRING }, { "params", SHAPE_OBJECT }, { "result", SHAPE_OBJECT },
  { "error", SHAPE_OBJECT }, { "samples", SHAPE_OBJECT }, { "verdicts", SHAPE_ARRAY }, { NULL, 0 }
};
static const ShapeRule verdict_rules[] = { { "criteria", SHAPE_ARRAY }, { NULL, 0 } };
static const ShapeRule comparison_rules[] = { { "metrics", SHAPE_ARRAY }, { NULL, 0 } };

static const char *
shape_name (Shape shape)
{
  switch (shape)
    {
    case SHAPE_OBJECT:
      return _("an object");
    case SHAPE_ARRAY:
      return _("a list");
    case SHAPE_STRING:
      return _("text");
    case SHAPE_NUMBER:
    default:
      return _("a number");
    }
}

static const char *
node_shape_name (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    return _("an object");
  if (JSON_NODE_HOLDS_ARRAY (node))
    return _("a list");
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return _("text");
  if (json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    return _("true or false");
  return _("a number");
}

static gboolean
node_has_shape (JsonNode *node,
                Shape     shape)
{
  switch (shape)
    {
    case SHAPE_OBJECT:
      return JSON_NODE_HOLDS_OBJECT (node);
    case SHAPE_ARRAY:
      return JSON_NODE_HOLDS_ARRAY (node);
    case SHAPE_STRING:
      return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
    case SHAPE_NUMBER:
    default:
      return JSON_NODE_HOLDS_VALUE (node)
             && (json_node_get_value_type (node) == G_TYPE_INT64
                 || json_node_get_value_type (node) == G_TYPE_DOUBLE);
    }
}

static gboolean
shape_fail (const char  *path,
            JsonNode    *node,
            const char  *expected,
            GError     **error)
{
  if (node == NULL)
    g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT,
                 _("the session has no “%s” (%s expected). This is not a session Qualify wrote, "
                   "or it was edited; report from the session.json Qualify saved."),
                 path, expected);
  else
    g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT,
                 _("the session's “%s” is %s where %s is expected. This is not a session Qualify "
                   "wrote, or it was edited; report from the session.json Qualify saved."),
                 path, node_shape_name (node), expected);
  return FALSE;
}

static gboolean
check_members (JsonObject      *o,
               const char      *prefix,
               const ShapeRule *rules,
               GError         **error)
{
  for (guint i = 0; rules[i].key != NULL; i++)
    {
      JsonNode *n = json_object_get_member (o, rules[i].key);
      if (n != NULL && !JSON_NODE_HOLDS_NULL (n) && !node_has_shape (n, rules[i].shape))
        {
          g_autofree char *path = g_strconcat (prefix, rules[i].key, NULL);
          return shape_fail (path, n, shape_name (rules[i].shape), error);
        }
    }
  return TRUE;
}

/* Every element of o.key (when it is a list) must be an object. */
static gboolean
check_objects (JsonObject  *o,
               const char  *prefix,
               const char  *key,
               GError     **error)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, key) : NULL;
  JsonArray *a;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    return TRUE;
  a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (a, i)))
      {
        g_autofree char *path = g_strdup_printf ("%s%s[%u]", prefix, key, i);
        return shape_fail (path, json_array_get_element (a, i), shape_name (SHAPE_OBJECT), error);
      }
  return TRUE;
}

static gboolean
check_session_shape (JsonObject  *s,
                     gboolean     complete,
                     GError     **error)
{
  static const char *const required[] = { "id", "profile", "steps", NULL };
  JsonObject *verdict = obj (s, "verdict"), *cmp = obj (s, "comparison");
  JsonNode *steps_node;

  if (complete)
    for (guint i = 0; required[i] != NULL; i++)
      {
        JsonNode *n = json_object_get_member (s, required[i]);
        if (n == NULL || JSON_NODE_HOLDS_NULL (n))
          return shape_fail (required[i], NULL,
                             g_str_equal (required[i], "id") ? shape_name (SHAPE_STRING)
                             : g_str_equal (required[i], "profile") ? shape_name (SHAPE_OBJECT)
                             : shape_name (SHAPE_ARRAY), error);
      }
  if (!check_members (s, "", session_rules, error)
      || !check_objects (s, "", "steps", error) || !check_objects (s, "", "notes", error)
      || !check_objects (s, "", "advice", error)
      || (verdict != NULL && !check_members (verdict, "verdict.", verdict_rules, error))
      || (cmp != NULL && !check_members (cmp, "comparison.", comparison_rules, error))
      || !check_objects (cmp, "comparison.", "metrics", error))
    return FALSE;
  steps_node = json_object_get_member (s, "steps");
  if (steps_node != NULL && JSON_NODE_HOLDS_ARRAY (steps_node))
    {
      JsonArray *steps = json_node_get_array (steps_node);
      for (guint i = 0; i < json_array_get_length (steps); i++)
        {
          JsonObject *step = json_array_get_object_element (steps, i);
          g_autofree char *prefix = g_strdup_printf ("steps[%u].", i);
          if (!check_members (step, prefix, step_rules, error)
              || !check_objects (step, prefix, "verdicts", error))
            return FALSE;
        }
    }
  return TRUE;
}

/* Loading */

static QfReport *
report_new (char     *text,
            gsize     length,
            gboolean  complete,
            GError  **error)
{
  g_autoptr(QfReport) report = g_new0 (QfReport, 1);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;
  JsonNode *root;
  const char *format;

  report->session_text = text;
  report->language = g_strdup ("en");
  report->blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) block_free);
  if (!json_parser_load_from_data (parser, text, length, &local))
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT,
                   _("The session is not valid JSON: %s"), local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT,
                   _("The session is not a JSON object."));
      return NULL;
    }
  report->root = json_node_copy (root);
  report->session = json_node_get_object (report->root);
  format = json_object_has_member (report->session, "format")
           ? json_object_get_string_member_with_default (report->session, "format", "") : "";
  if (g_strcmp0 (format, "qualify-session") != 0)
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT,
                   _("This is not a Qualify session (its “format” is not “qualify-session”)."));
      return NULL;
    }
  if (json_object_get_int_member_with_default (report->session, "schema_version", 1) > 1)
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT,
                   _("The session was written by a newer Qualify (schema %lld). Update Qualify to report it."),
                   (long long) json_object_get_int_member (report->session, "schema_version"));
      return NULL;
    }
  if (!check_session_shape (report->session, complete, error))
    return NULL;
  return g_steal_pointer (&report);
}

QfReport *
qf_report_new_from_data (const char *json,
                         gssize      length,
                         GError    **error)
{
  gsize len;

  g_return_val_if_fail (json != NULL, NULL);
  len = length < 0 ? strlen (json) : (gsize) length;
  return report_new (g_strndup (json, len), len, FALSE, error);
}

QfReport *
qf_report_new_from_path (const char *path,
                         GError    **error)
{
  g_autofree char *file = NULL;
  char *text = NULL;
  gsize len;
  g_autoptr(GError) local = NULL;
  QfReport *report;

  g_return_val_if_fail (path != NULL, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    file = g_build_filename (path, "session.json", NULL);
  else
    file = g_strdup (path);
  if (!g_file_get_contents (file, &text, &len, &local))
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_READ,
                   _("Cannot read the session %s: %s"), file, local->message);
      return NULL;
    }
  /* Messages name the file: the person has to find the damaged one. */
  report = report_new (text, len, TRUE, &local);
  if (report == NULL)
    g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", file);
  return report;
}

void
qf_report_free (QfReport *report)
{
  if (report == NULL)
    return;
  g_free (report->session_text);
  g_clear_pointer (&report->root, json_node_unref);
  g_free (report->language);
  g_clear_pointer (&report->catalogue, g_hash_table_unref);
  g_clear_pointer (&report->blocks, g_ptr_array_unref);
  g_free (report->header_left);
  g_free (report->header_right);
  g_free (report->title);
  g_free (report);
}

gboolean
qf_report_set_language (QfReport   *report,
                        const char *language,
                        GError    **error)
{
  GHashTable *catalogue = NULL;

  g_return_val_if_fail (report != NULL, FALSE);
  if (language == NULL || *language == '\0' || g_str_equal (language, "en") ||
      g_str_equal (language, "C"))
    language = "en";
  else if (g_str_equal (language, "zh_CN") || g_str_equal (language, "zh-CN") ||
           g_str_has_prefix (language, "zh_CN."))
    {
      language = "zh_CN";
      catalogue = load_catalogue (language, error);
      if (catalogue == NULL)
        return FALSE;
    }
  else
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_LANGUAGE,
                   _("Reports can be written in English (en) or Simplified Chinese (zh_CN), not “%s”."),
                   language);
      return FALSE;
    }
  g_clear_pointer (&report->catalogue, g_hash_table_unref);
  report->catalogue = catalogue;
  g_free (report->language);
  report->language = g_strdup (language);
  g_ptr_array_set_size (report->blocks, 0);
  return TRUE;
}

const char *
qf_report_get_language (QfReport *report)
{
  return report->language;
}

JsonObject *
qf_report_get_session (QfReport *report)
{
  return report->session;
}

/* JSON helpers (absent and null read as the default) */

static JsonNode *
member (JsonObject *o,
        const char *key)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, key) : NULL;
  return n != NULL && !JSON_NODE_HOLDS_NULL (n) ? n : NULL;
}

static const char *
str (JsonObject *o,
     const char *key)
{
  JsonNode *n = member (o, key);
  return n != NULL && JSON_NODE_TYPE (n) == JSON_NODE_VALUE &&
         json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n) : NULL;
}

static JsonObject *
obj (JsonObject *o,
     const char *key)
{
  JsonNode *n = member (o, key);
  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonArray *
arr (JsonObject *o,
     const char *key)
{
  JsonNode *n = member (o, key);
  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static gboolean
num (JsonObject *o,
     const char *key,
     gdouble    *out)
{
  JsonNode *n = member (o, key);
  GType t;

  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return FALSE;
  t = json_node_get_value_type (n);
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return FALSE;
  *out = json_node_get_double (n);
  return TRUE;
}

/* Formatting */

/* Integers in full (sample counts), other values to 3 significant digits (docs ux.md). */
static char *
format_number (JsonNode *n)
{
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return g_strdup_printf ("%lld", (long long) json_node_get_int (n));
  return qf_plot_format_value (json_node_get_double (n));
}

static char *
format_value_unit (gdouble     v,
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

static const char *
verdict_word (QfReport   *report,
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
static char *
verdict_text (QfReport   *report,
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
  return g_strdup_printf ("%s %s", icon, verdict_word (report, verdict));
}

static char *
format_time (const char *iso)
{
  g_autoptr(GDateTime) dt = NULL;

  if (iso == NULL)
    return g_strdup ("—");
  dt = g_date_time_new_from_iso8601 (iso, NULL);
  if (dt == NULL)
    return g_strdup (iso);
  return g_date_time_format (dt, "%Y-%m-%d %H:%M:%S (UTC%:z)");
}

static const char *
step_title (QfReport   *report,
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

static const char *
step_description (QfReport   *report,
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
static const char *
figure_label (QfReport         *report,
              const QfStepInfo *info,
              const char       *key)
{
  const QfStepFigure *figure = info != NULL ? qf_step_find_figure (info, key) : NULL;

  return figure != NULL ? TR (figure->label) : key;
}

static const char *
figure_unit (const QfStepInfo *info,
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
  JsonArray *criteria = arr (obj (report->session, "verdict"), "criteria");

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
      g_ptr_array_add (row, g_strdup (step ? step_title (report, step) : str (c, "key")));
      g_ptr_array_add (row, g_strdup (TR (str (c, "label") ? str (c, "label") : str (c, "metric"))));
      g_ptr_array_add (row, num (c, "measured", &measured) ? format_value_unit (measured, unit)
                                                          : g_strdup ("—"));
      if (num (c, "limit", &limit))
        {
          g_autofree char *l = format_value_unit (limit, unit);
          g_ptr_array_add (row, g_strdup_printf ("%s %s", g_str_equal (cmp, ">=") ? "≥" : "≤", l));
        }
      else
        g_ptr_array_add (row, g_strdup ("—"));
      g_ptr_array_add (row, verdict_text (report, verdict));
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
  const char *overall = str (obj (report->session, "verdict"), "overall");

  if (overall == NULL)
    overall = "incomplete";
  if (css != NULL)
    *css = g_str_equal (overall, "incomplete") ? "not-run" : overall;
  return verdict_text (report, overall);
}

/* Figures */

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
  value = format_value_unit (limit, unit);
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

static void
add_figures (QfReport   *report,
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
      QfBlock *b = add_block (report, QF_BLOCK_FIGURE, NULL);
      JsonObject *h = obj (result, "histogram");

      b->figure = QF_FIGURE_HISTOGRAM;
      b->result = json_object_ref (result);
      b->fig_title = g_strdup_printf ("%s — %s", step_title (report, step), host ? host : "");
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
      QfBlock *b = add_block (report, QF_BLOCK_FIGURE, NULL);

      b->figure = QF_FIGURE_TIME_SERIES;
      b->result = json_object_ref (series_source);
      b->fig_title = g_strdup_printf ("%s — %s", step_title (report, step), host ? host : "");
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

/* Building */

static void
add_step_section (QfReport   *report,
                  JsonObject *step,
                  guint       index)
{
  const char *test = str (step, "test"), *status = str (step, "status");
  const QfStepInfo *info = qf_step_lookup (test != NULL ? test : "");
  JsonObject *params = obj (step, "params"), *result = obj (step, "result");
  JsonArray *verdicts = arr (step, "verdicts");
  const char *desc = step_description (report, test, str (step, "key"));
  g_autofree char *heading = g_strdup_printf ("%u. %s", index, step_title (report, step));
  QfBlock *b;

  b = add_block (report, QF_BLOCK_HEADING, heading);
  b->level = 1;
  if (desc != NULL)
    add_block (report, QF_BLOCK_PARAGRAPH, desc);

  b = add_table (report, QF_BLOCK_KEY_VALUE);
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
        kv (b, TR (N_("Status")), s);
      }
    else
      kv (b, TR (N_("Status")), label);
  }
  if (obj (step, "error") != NULL && str (obj (step, "error"), "message") != NULL)
    kv (b, TR (N_("Error")), str (obj (step, "error"), "message"));
  {
    gdouble d;
    if (num (step, "duration_s", &d))
      {
        g_autofree char *s = format_value_unit (round (d * 10) / 10, "s");
        kv (b, TR (N_("Duration")), s);
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
      kv (b, TR (N_("Real-time priority obtained")), v);
    }
  if (result != NULL && json_object_has_member (result, "valid") &&
      !json_object_get_boolean_member_with_default (result, "valid", TRUE))
    kv (b, TR (N_("Valid")), str (result, "reason") ? str (result, "reason") : TR (N_("no")));
  if (json_object_get_boolean_member_with_default (step, "partial", FALSE))
    kv (b, TR (N_("Partial result")), TR (N_("yes — not judged")));

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
                : format_number (n);
          else
            v = json_to_string (n, FALSE);
          g_string_append_printf (s, "%s%s = %s", s->len ? ", " : "", (const char *) l->data, v);
        }
      kv (b, TR (N_("Parameters")), s->str);
    }

  if (str (step, "classic_command") != NULL)
    {
      b = add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Equivalent classic command:")));
      add_block (report, QF_BLOCK_CODE, str (step, "classic_command"));
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
              add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Measured figures:")));
              t = add_table (report, QF_BLOCK_KEY_VALUE);
            }
          unit = figure_unit (info, l->data);
          v = format_number (n);
          cell = unit ? (g_str_equal (unit, "%") ? g_strdup_printf ("%s%%", v) : g_strdup_printf ("%s %s", v, unit))
                      : g_strdup (v);
          kv (t, figure_label (report, info, l->data), cell);
        }
    }

  if (verdicts != NULL && json_array_get_length (verdicts) > 0)
    {
      QfBlock *t = add_table (report, QF_BLOCK_TABLE);
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
          ms = num (c, "measured", &m) ? format_value_unit (m, str (c, "unit")) : g_strdup ("—");
          lv = num (c, "limit", &lim) ? format_value_unit (lim, str (c, "unit")) : g_strdup ("—");
          ls = g_strdup_printf ("%s %s", g_strcmp0 (str (c, "comparison"), ">=") == 0 ? "≥" : "≤", lv);
          vs = verdict_text (report, str (c, "verdict"));
          if (str (c, "reason") != NULL)
            {
              char *tmp = g_strdup_printf ("%s (%s)", vs, str (c, "reason"));
              g_free (vs);
              vs = tmp;
            }
          table_add_row (t, str (c, "verdict"), TR (str (c, "label") ? str (c, "label") : ""), ms, ls, vs, NULL);
        }
    }

  add_figures (report, step, result);
}

void
_qf_report_build (QfReport *report)
{
  JsonObject *s = report->session, *pc = obj (s, "pc"), *profile = obj (s, "profile");
  JsonObject *network = obj (s, "network"), *peer = obj (s, "peer"), *audit = obj (s, "audit");
  JsonArray *steps = arr (s, "steps"), *notes = arr (s, "notes"), *advice = arr (s, "advice");
  JsonObject *training = obj (s, "training");
  g_autofree char *training_note = NULL;
  const char *host = str (pc, "hostname") ? str (pc, "hostname") : "?";
  g_autofree char *date = format_time (str (s, "finished_at") ? str (s, "finished_at") : str (s, "created_at"));
  QfBlock *b;

  if (report->blocks->len > 0)
    return;

  g_free (report->title);
  /* a training run must never pass for an acceptance: it says so in the title and every header */
  report->title = g_strdup (training != NULL ? TR (N_("Training session — not an acceptance report"))
                                             : TR (N_("Acceptance report")));
  g_free (report->header_left);
  report->header_left = g_strdup_printf ("%s — %s", report->title, host);
  g_free (report->header_right);
  report->header_right = g_strdup (date);

  b = add_block (report, QF_BLOCK_TITLE, training != NULL ? report->title : TR (N_("Real-time PC acceptance report")));
  b->text2 = g_strdup_printf ("%s · %s", host, str (s, "customer") && *str (s, "customer") ? str (s, "customer") : "—");

  b = add_table (report, QF_BLOCK_KEY_VALUE);
  kv (b, TR (N_("Customer")), str (s, "customer"));
  kv (b, TR (N_("Site")), str (s, "site"));
  {
    g_autofree char *pcs = NULL;
    const char *vendor = str (pc, "dmi_vendor"), *product = str (pc, "dmi_product");
    if (vendor || product)
      pcs = g_strdup_printf ("%s (%s%s%s)", host, vendor ? vendor : "", vendor && product ? " " : "", product ? product : "");
    else
      pcs = g_strdup (host);
    kv (b, TR (N_("PC under test")), pcs);
  }
  if (str (pc, "dmi_serial") != NULL)
    kv (b, TR (N_("Serial number")), str (pc, "dmi_serial"));
  kv (b, TR (N_("Operator")), str (s, "operator"));
  kv (b, TR (N_("Date and time")), date);
  {
    g_autofree char *v = g_strdup_printf ("%s (%s %s)", str (s, "app_version") ? str (s, "app_version") : "?",
                                          TR (N_("report written by")), PACKAGE_VERSION);
    kv (b, TR (N_("Qualify version")), v);
  }
  {
    gdouble version = 0;
    g_autofree char *p = NULL;
    num (profile, "version", &version);
    p = g_strdup_printf ("%s, %s %.0f%s%s%s", str (profile, "id") ? str (profile, "id") : "?",
                         TR (N_("version")), version,
                         str (profile, "name") ? " — " : "", str (profile, "name") ? TR (str (profile, "name")) : "",
                         json_object_get_boolean_member_with_default (s, "quick", FALSE) ? TR (N_(" (quick run)")) : "");
    kv (b, TR (N_("Profile")), p);
  }
  kv (b, TR (N_("Session")), str (s, "id"));

  {
    const char *css = NULL;
    g_autofree char *overall = _qf_report_overall_text (report, &css);
    JsonObject *v = obj (s, "verdict");
    gdouble warnings = 0;
    b = add_block (report, QF_BLOCK_VERDICT, overall);
    b->css = g_strdup (css);
    b->id = g_strdup ("qf-overall");
    num (v, "warnings", &warnings);
    if (warnings > 0)
      b->text2 = g_strdup_printf ("%s: %.0f", TR (N_("Warnings")), warnings);
    else
      b->text2 = g_strdup (TR (N_("Overall verdict")));
    if (training != NULL)
      {
        g_autofree char *with = g_strdup_printf ("%s — %s", b->text2, TR (N_("training run, not an acceptance")));
        g_free (b->text2);
        b->text2 = g_steal_pointer (&with);
      }
  }

  for (guint i = 0; notes != NULL && i < json_array_get_length (notes); i++)
    {
      JsonObject *n = json_array_get_object_element (notes, i);
      const char *id = str (n, "id"), *text = str (n, "text");
      if (g_strcmp0 (id, "builtin-peer") == 0)
        text = TR (N_("Network figures were measured on this PC's loopback with the built-in peer, not over a real link to a helper machine."));
      else if (g_strcmp0 (id, "training") == 0 && training != NULL)
        {
          gdouble delay_ms = 0, jitter_ms = 0, loss_pct = 0;
          g_autofree char *delay = (num (training, "delay_ms", &delay_ms), g_strdup_printf ("%.3g", delay_ms));
          g_autofree char *jitter = (num (training, "jitter_ms", &jitter_ms), g_strdup_printf ("%.3g", jitter_ms));
          g_autofree char *loss = (num (training, "loss_pct", &loss_pct), g_strdup_printf ("%.3g", loss_pct));

          g_free (training_note);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
          text = training_note = g_strdup_printf (TR (N_("Training run, not an acceptance test: the built-in peer imitated a link that holds each reply %s ms ± %s ms and loses %s %% of UDP replies. Only the socket-latency and control-cycle tests go through it; ping and bandwidth measure this PC's loopback.")),
                                                  delay, jitter, loss);
#pragma GCC diagnostic pop
        }
      else if (g_strcmp0 (id, "demo-profile") == 0)
        text = TR (N_("The limits come from a demonstration profile, not from the procedure."));
      if (text != NULL)
        add_block (report, QF_BLOCK_NOTE, text);
    }

  add_block (report, QF_BLOCK_HEADING, TR (N_("Criteria")))->level = 2;
  {
    g_autoptr(GPtrArray) row_css = NULL;
    g_autoptr(GPtrArray) rows = _qf_report_criteria_rows (report, &row_css);
    b = add_table (report, QF_BLOCK_TABLE);
    b->id = g_strdup ("qf-criteria");
    b->verdict_col = 4;
    g_ptr_array_add (b->header, g_strdup (TR (N_("Test"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Criterion"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Measured"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Limit"))));
    g_ptr_array_add (b->header, g_strdup (TR (N_("Verdict"))));
    for (guint i = 0; i < rows->len; i++)
      {
        g_ptr_array_add (b->rows, g_ptr_array_ref (g_ptr_array_index (rows, i)));
        g_ptr_array_add (b->row_css, g_strdup (g_ptr_array_index (row_css, i)));
      }
    if (rows->len == 0)
      add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("No criterion was judged.")));
  }

  add_block (report, QF_BLOCK_PAGE_BREAK, NULL);
  add_block (report, QF_BLOCK_HEADING, TR (N_("Tests")))->level = 2;
  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      if (step != NULL)
        add_step_section (report, step, i + 1);
    }

  add_block (report, QF_BLOCK_HEADING, TR (N_("Advice")))->level = 2;
  if (advice == NULL || json_array_get_length (advice) == 0)
    add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("Every criterion passed: no advice.")));
  for (guint i = 0; advice != NULL && i < json_array_get_length (advice); i++)
    {
      JsonObject *a = json_array_get_object_element (advice, i);
      g_autofree char *head = NULL;
      if (a == NULL)
        continue;
      head = g_strdup_printf ("%s — %s", verdict_word (report, str (a, "verdict")),
                              str (a, "summary") ? str (a, "summary") : "");
      b = add_block (report, QF_BLOCK_NOTE, head);
      b->css = g_strdup (str (a, "verdict"));
      if (str (a, "text") != NULL && g_strcmp0 (str (a, "text"), str (a, "summary")) != 0)
        add_block (report, QF_BLOCK_PARAGRAPH, str (a, "text"));
      else if (str (a, "fix") != NULL)
        add_block (report, QF_BLOCK_PARAGRAPH, str (a, "fix"));
    }

  add_block (report, QF_BLOCK_HEADING, TR (N_("Readiness audit")))->level = 2;
  {
    JsonArray *checks = audit != NULL ? arr (audit, "checks") : NULL;
    if (checks == NULL && member (s, "audit") != NULL && JSON_NODE_HOLDS_ARRAY (member (s, "audit")))
      checks = json_node_get_array (member (s, "audit"));
    if (checks == NULL || json_array_get_length (checks) == 0)
      add_block (report, QF_BLOCK_PARAGRAPH, TR (N_("No readiness audit was recorded in this session.")));
    else
      {
        b = add_table (report, QF_BLOCK_TABLE);
        b->verdict_col = 2;
        g_ptr_array_add (b->header, g_strdup (TR (N_("Check"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Found"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Status"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Advice"))));
        for (guint i = 0; i < json_array_get_length (checks); i++)
          {
            JsonObject *c = json_array_get_object_element (checks, i);
            const char *st = str (c, "status");
            const char *css = g_strcmp0 (st, "ok") == 0 ? "pass" : g_strcmp0 (st, "unknown") == 0 ? "not-run" : st;
            const char *word = g_strcmp0 (st, "ok") == 0 ? TR (N_("OK")) : g_strcmp0 (st, "warn") == 0 ? TR (N_("WARN"))
                             : g_strcmp0 (st, "fail") == 0 ? TR (N_("FAIL")) : TR (N_("unknown"));
            if (c == NULL)
              continue;
            table_add_row (b, css, str (c, "title") ? TR (str (c, "title")) : str (c, "id"),
                           str (c, "value") ? str (c, "value") : "—", word,
                           g_strcmp0 (st, "ok") == 0 ? "" : (str (c, "advice") ? str (c, "advice") : ""), NULL);
          }
      }
  }

  add_block (report, QF_BLOCK_HEADING, TR (N_("System inventory")))->level = 2;
  b = add_table (report, QF_BLOCK_KEY_VALUE);
  kv (b, TR (N_("Host name")), host);
  kv (b, TR (N_("CPU")), str (pc, "cpu_model"));
  {
    gdouble cpus = 0, mem = 0;
    g_autofree char *c = num (pc, "cpu_count", &cpus) ? g_strdup_printf ("%.0f", cpus) : NULL;
    g_autofree char *m = num (pc, "mem_total_kb", &mem) ? g_strdup_printf ("%.1f GiB", mem / 1048576.0) : NULL;
    kv (b, TR (N_("CPUs")), c);
    kv (b, TR (N_("Memory")), m);
  }
  kv (b, TR (N_("Kernel")), str (pc, "kernel_release"));
  kv (b, TR (N_("Kernel build")), str (pc, "kernel_version"));
  kv (b, TR (N_("Preemption model")), str (pc, "preempt_model"));
  kv (b, TR (N_("PREEMPT_RT")), json_object_get_boolean_member_with_default (pc ? pc : s, "preempt_rt", FALSE)
                                ? TR (N_("yes")) : TR (N_("no")));
  kv (b, TR (N_("Machine ID (SHA-256)")), str (pc, "machine_id_sha256"));

  add_block (report, QF_BLOCK_HEADING, TR (N_("Network")))->level = 2;
  b = add_table (report, QF_BLOCK_KEY_VALUE);
  kv (b, TR (N_("Interface")), str (network, "iface"));
  {
    const char *kind = str (network, "kind");
    kv (b, TR (N_("Kind")), g_strcmp0 (kind, "wired") == 0 ? TR (N_("wired"))
                           : g_strcmp0 (kind, "wireless") == 0 ? TR (N_("wireless"))
                           : g_strcmp0 (kind, "loopback") == 0 ? TR (N_("loopback")) : kind);
  }
  {
    gdouble speed;
    g_autofree char *sp = num (network, "speed_mbps", &speed) ? g_strdup_printf ("%.0f Mbit/s", speed) : NULL;
    kv (b, TR (N_("Link speed")), sp);
  }
  if (str (network, "ssid") != NULL)
    kv (b, TR (N_("Wireless network")), str (network, "ssid"));
  {
    const char *kind = str (peer, "kind");
    g_autofree char *p = g_strdup_printf ("%s (%s)", str (peer, "address") ? str (peer, "address") : "—",
                                          g_strcmp0 (kind, "builtin") == 0 ? TR (N_("built-in peer on loopback"))
                                          : g_strcmp0 (kind, "remote") == 0 ? TR (N_("helper machine"))
                                          : TR (N_("none")));
    kv (b, TR (N_("Peer")), p);
  }

  {
    JsonObject *cmp = obj (s, "comparison");
    JsonArray *metrics = arr (cmp, "metrics");
    if (metrics != NULL && json_array_get_length (metrics) > 0)
      {
        JsonObject *prev = obj (cmp, "previous");
        g_autofree char *when = format_time (str (prev, "created_at"));
        g_autofree char *intro = g_strdup_printf ("%s %s (%s)", TR (N_("Compared with the previous session of this PC:")),
                                                  str (prev, "id") ? str (prev, "id") : "?", when);
        add_block (report, QF_BLOCK_HEADING, TR (N_("Comparison")))->level = 2;
        add_block (report, QF_BLOCK_PARAGRAPH, intro);
        b = add_table (report, QF_BLOCK_TABLE);
        g_ptr_array_add (b->header, g_strdup (TR (N_("Criterion"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Before"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Now"))));
        g_ptr_array_add (b->header, g_strdup (TR (N_("Change"))));
        for (guint i = 0; i < json_array_get_length (metrics); i++)
          {
            JsonObject *m = json_array_get_object_element (metrics, i);
            gdouble before, after, delta;
            g_autofree char *bs = NULL, *as = NULL, *ds = NULL;
            if (m == NULL)
              continue;
            bs = num (m, "before", &before) ? format_value_unit (before, str (m, "unit")) : g_strdup ("—");
            as = num (m, "after", &after) ? format_value_unit (after, str (m, "unit")) : g_strdup ("—");
            if (num (m, "delta", &delta))
              {
                g_autofree char *d = format_value_unit (fabs (delta), str (m, "unit"));
                ds = g_strdup_printf ("%s%s", delta > 0 ? "+" : delta < 0 ? "−" : "", d);
              }
            else
              ds = g_strdup ("—");
            table_add_row (b, str (m, "after_verdict"), TR (str (m, "label") ? str (m, "label") : str (m, "metric")),
                           bs, as, ds, NULL);
          }
      }
  }

  add_block (report, QF_BLOCK_HEADING, TR (N_("Sign-off")))->level = 2;
  add_block (report, QF_BLOCK_PARAGRAPH,
             TR (N_("The undersigned confirm that the tests above were run on the PC named in this report and that the results were presented to the customer.")));
  b = add_table (report, QF_BLOCK_SIGNOFF);
  table_add_row (b, NULL, TR (N_("Installer")), str (s, "operator") ? str (s, "operator") : "", NULL);
  table_add_row (b, NULL, TR (N_("Customer representative")), "", NULL);
  g_ptr_array_add (b->header, g_strdup (TR (N_("Name"))));
  g_ptr_array_add (b->header, g_strdup (TR (N_("Date"))));
  g_ptr_array_add (b->header, g_strdup (TR (N_("Signature"))));

  add_block (report, QF_BLOCK_HEADING, TR (N_("Appendix: session data")))->level = 2;
  {
    g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, report->session_text, -1);
    g_autofree char *text = g_strdup_printf ("%s SHA-256: %s",
                                             TR (N_("The complete session data (session.json) travels with this report: attached to the PDF as a file and embedded in the HTML.")),
                                             sha);
    add_block (report, QF_BLOCK_PARAGRAPH, text);
  }
}
