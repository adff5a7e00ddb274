/* qf-report.c — the report model's base: a QfReport loaded from session JSON, in a language
 * (src/core, the bottom of the report code).
 *
 * Reads the session as docs/session-format.md describes it and checks its shape, loads the
 * chosen language's catalogue and translates through it, and owns the blocks that
 * qf-report-build.c lays out and the writers (qf-report-pdf.c, qf-report-html.c) render. The
 * arrows go one way: export (qf-report-export.c) → writers → model; nothing here calls up.
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <string.h>

#include "qf-paths.h"
#include "qf-report-json.h"
#include "qf-report-private.h"

G_DEFINE_QUARK (qf-report-error-quark, qf_report_error)

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

/* Shape of the session: well-formed JSON whose members have the wrong type would otherwise make
 * an empty-looking report. Every member the report reads must be absent, null or of the type
 * docs/session-format.md gives; the error names the key path that is wrong. */

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

