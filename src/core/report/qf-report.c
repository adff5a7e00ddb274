/* qf-report.c — the report model's base: a QfReport loaded from session JSON, in a language
 * (src/core, the bottom of the report code).
 *
 * Reads the session as docs/session-format.md describes it, checked by the session's own check
 * (qf-session-check.c, the same for resume and replay), loads the
 * chosen language's catalogue and translates through it, and owns the blocks that
 * qf-report-build.c lays out and the writers (qf-report-pdf.c, qf-report-html.c) render. The
 * arrows go one way: export (qf-report-export.c) → writers → model; nothing here calls up.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-paths.h"
#include "qf-report-private.h"
#include "qf-session-check.h"
#include "qf-text.h"
#include "qf-verdict.h"

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
 * (length, offset) pairs). Plural and context entries are not used by the report. A translation
 * whose printf conversions differ from its original's is left out (the report prints the
 * original), exactly as the translation layer does for _() (qf-i18n.h), and said once. */

static gboolean
catalogue_entry_usable (const char *original,
                        gsize       original_len,
                        const char *translation)
{
  g_autofree char *shown = NULL;

  if (memchr (original, '\0', original_len) != NULL)
    return FALSE;   /* a plural entry */
  if (qf_text_format_compatible (original, translation, FALSE))
    return TRUE;
  shown = qf_text_clean (original, -1);
  g_warning ("The translation of “%s” in the report's catalogue does not use the same %% "
             "conversions as the original; the report prints the original instead.", shown);
  return FALSE;
}

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
      g_autofree char *original = NULL, *translation = NULL;

      if ((guint64) ooff + olen >= len || (guint64) toff + tlen >= len || olen == 0 || tlen == 0)
        continue;
      original = g_strndup (data + ooff, olen);
      translation = g_strndup (data + toff, tlen);
      if (catalogue_entry_usable (data + ooff, olen, translation))
        g_hash_table_insert (table, g_steal_pointer (&original), g_steal_pointer (&translation));
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

const char *
_qf_report_translate (const char *msgid,
                      gpointer    report)
{
  return _qf_report_tr (report, msgid);
}

/* Loading */

/* Every criterion judged again (qf-verdict.h): the report prints judged verdicts only. When
 * they disagree with the stored ones, the error goes to *disagreement if the caller asks for it
 * (the verifier), else the session is refused. */
static gboolean
report_judge (QfReport  *report,
              GError   **disagreement,
              GError   **error)
{
  g_autoptr(GError) local = NULL;

  report->judged = qf_verdict_judge_session (report->session, &report->judged_steps, &local);
  if (report->judged != NULL)
    return TRUE;
  if (disagreement != NULL)
    {
      g_propagate_error (disagreement, g_steal_pointer (&local));
      return TRUE;
    }
  if (g_error_matches (local, QF_VERDICT_ERROR, QF_VERDICT_ERROR_DISAGREES))
    g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_VERDICT,
                 _("its stored verdicts are not what its measured figures give (the session was edited or damaged), so no report is made from it: %s"),
                 local->message);
  else
    g_set_error_literal (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT, local->message);
  return FALSE;
}

/* The session's own check (qf-session-check.h) is the report's: one set of rules for every
 * reader. Its errors become the report's format errors. */
static QfReport *
report_new (char     *text,
            gsize     length,
            gboolean  complete,
            GError  **disagreement,
            GError  **error)
{
  g_autoptr(QfReport) report = g_new0 (QfReport, 1);
  g_autoptr(GError) local = NULL;

  report->session_text = text;
  report->language = g_strdup ("en");
  report->blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) block_free);
  report->root = qf_session_parse_text (text, length, &local);
  if (report->root == NULL
      || !qf_session_check (json_node_get_object (report->root), complete, &local))
    {
      g_set_error_literal (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT, local->message);
      return NULL;
    }
  report->session = json_node_get_object (report->root);
  if (!report_judge (report, disagreement, error))
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
  return report_new (g_strndup (json, len), len, FALSE, NULL, error);
}

QfReport *
_qf_report_new_for_verify (const char  *json,
                           gsize        length,
                           GError     **disagreement,
                           GError     **error)
{
  g_return_val_if_fail (json != NULL && disagreement != NULL, NULL);
  return report_new (g_strndup (json, length), length, FALSE, disagreement, error);
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
  if (!qf_session_read_file (file, &text, &len, &local))
    {
      g_set_error_literal (error, QF_REPORT_ERROR, QF_REPORT_ERROR_READ, local->message);
      return NULL;
    }
  /* Messages name the file: the person has to find the damaged one. */
  report = report_new (text, len, TRUE, NULL, &local);
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
  g_clear_pointer (&report->judged, json_object_unref);
  g_clear_pointer (&report->judged_steps, json_array_unref);
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

JsonArray *
_qf_report_step_verdicts (QfReport *report,
                          guint     index)
{
  JsonNode *node;

  if (report->judged_steps == NULL || index >= json_array_get_length (report->judged_steps))
    return NULL;
  node = json_array_get_element (report->judged_steps, index);
  return JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

