/* qf-report-html.c — the report as one self-contained HTML file (src/core).
 *
 * Inline CSS (prints on A4 too), plots as inline SVG drawn by qf-plot on cairo's SVG surface, no
 * script needed to read it. The session JSON is embedded as <script type="application/json"
 * id="qf-session">, and a signed report ends with
 *   <script type="application/pkcs7-signature" id="qf-signature">BASE64 CMS</script>
 * just before </body>: a detached CMS signature over every byte of the file except that one
 * element — the rendered body and the embedded JSON included — so changing a figure anywhere,
 * or appending anything, breaks it.
 */
#include "config.h"

#include <cairo-svg.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-report-private.h"

#define FIGURE_W 520.0
#define FIGURE_H 210.0

static const char css[] =
  "body{font-family:'Noto Sans CJK SC','Noto Sans',sans-serif;font-size:10.5pt;color:#1a1a1a;"
  "max-width:52em;margin:1.5em auto;padding:0 1em;line-height:1.4}"
  "header.qf-page{display:flex;justify-content:space-between;color:#555;font-size:9pt;"
  "border-bottom:1px solid #999;margin-bottom:1em}"
  "h1{font-size:19pt;color:#1a3359;margin:.3em 0 0}"
  "p.qf-subtitle{color:#555;font-size:11pt;margin:.2em 0 1em}"
  "h2{font-size:14pt;color:#1a3359;border-bottom:1px solid #1a3359;margin-top:1.6em}"
  "h3{font-size:12pt;color:#1a3359;margin-top:1.3em}"
  "table{border-collapse:collapse;width:100%;margin:.4em 0 .9em;font-size:9.5pt}"
  "th{background:#e0e0e0;text-align:left}"
  "th,td{padding:3px 5px;border-bottom:1px solid #bbb;vertical-align:top;white-space:pre-line}"
  "table.qf-kv td:first-child{font-weight:bold;color:#444;width:30%}"
  "tr.pass{background:#e8f7eb}tr.fail{background:#fde6e6}tr.warn{background:#fff5d9}"
  "tr.invalid{background:#f2e8f7}tr.not-run{background:#f2f2f2}"
  "td.qf-verdict{font-weight:bold}"
  "tr.pass td.qf-verdict,.qf-overall.pass{color:#1a7333}"
  "tr.fail td.qf-verdict,.qf-overall.fail{color:#b81a1a}"
  "tr.warn td.qf-verdict,.qf-overall.warn{color:#9e6600}"
  "tr.invalid td.qf-verdict,.qf-overall.invalid{color:#73338c}"
  ".qf-overall{border:2px solid currentColor;padding:.5em 1em;margin:1em 0;color:#555}"
  ".qf-overall.pass{background:#e8f7eb}.qf-overall.fail{background:#fde6e6}"
  ".qf-overall.warn{background:#fff5d9}.qf-overall.invalid{background:#f2e8f7}"
  ".qf-overall .qf-big{font-size:26pt;font-weight:bold;display:block}"
  ".qf-overall .qf-small{color:#444;font-size:9.5pt}"
  ".qf-note{border-left:3px solid #264d8c;background:#ebf2fc;padding:.3em .7em;margin:.5em 0}"
  ".qf-note.fail{border-color:#b81a1a;background:#fde6e6;font-weight:bold}"
  ".qf-note.warn{border-color:#9e6600;background:#fff5d9;font-weight:bold}"
  "pre{background:#f0f0f0;padding:.4em .6em;white-space:pre-wrap;font-family:'Noto Sans Mono CJK SC',monospace}"
  "figure{margin:.6em 0}figure svg{max-width:100%;height:auto}"
  ".qf-signoff{display:grid;grid-template-columns:1fr 1fr 1fr;gap:1.2em;margin:.3em 0 1.6em}"
  ".qf-signoff div{border-top:1px solid #333;padding-top:2px;font-size:8.5pt;color:#555;margin-top:2.2em}"
  "@media print{body{max-width:none;margin:0}h2{break-after:avoid}figure,tr{break-inside:avoid}"
  ".qf-break{break-before:page}}";

static void
escape (GString    *out,
        const char *text)
{
  g_autofree char *e = g_markup_escape_text (text ? text : "", -1);
  g_string_append (out, e);
}

static void
html_table (GString *out,
            QfBlock *b)
{
  g_string_append (out, "<table");
  if (b->kind == QF_BLOCK_KEY_VALUE)
    g_string_append (out, " class=\"qf-kv\"");
  else
    g_string_append (out, " class=\"qf-table\"");
  if (b->id != NULL)
    g_string_append_printf (out, " id=\"%s\"", b->id);
  g_string_append (out, ">\n");
  if (b->header != NULL && b->header->len > 0)
    {
      g_string_append (out, "<tr>");
      for (guint c = 0; c < b->header->len; c++)
        {
          g_string_append (out, "<th>");
          escape (out, g_ptr_array_index (b->header, c));
          g_string_append (out, "</th>");
        }
      g_string_append (out, "</tr>\n");
    }
  for (guint r = 0; r < b->rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (b->rows, r);
      const char *rc = g_ptr_array_index (b->row_css, r);

      if (rc != NULL)
        g_string_append_printf (out, "<tr class=\"%s\">", rc);
      else
        g_string_append (out, "<tr>");
      for (guint c = 0; c < row->len; c++)
        {
          g_string_append (out, (int) c == b->verdict_col ? "<td class=\"qf-verdict\">" : "<td>");
          escape (out, g_ptr_array_index (row, c));
          g_string_append (out, "</td>");
        }
      g_string_append (out, "</tr>\n");
    }
  g_string_append (out, "</table>\n");
}

char *
_qf_report_html_criteria_table (QfReport *report)
{
  _qf_report_build (report);
  for (guint i = 0; i < report->blocks->len; i++)
    {
      QfBlock *b = g_ptr_array_index (report->blocks, i);
      if (b->kind == QF_BLOCK_TABLE && g_strcmp0 (b->id, "qf-criteria") == 0)
        {
          GString *out = g_string_new (NULL);
          html_table (out, b);
          return g_string_free (out, FALSE);
        }
    }
  return NULL;
}

static cairo_status_t
append_svg (void                *closure,
            const unsigned char *data,
            unsigned int         length)
{
  g_string_append_len (closure, (const char *) data, length);
  return CAIRO_STATUS_SUCCESS;
}

/* The figure as inline SVG. cairo names its glyphs and clips "glyph0-1", "clip1", …; in one
 * HTML document the ids of all figures share one namespace, so each figure gets a prefix. */
static void
html_figure (QfReport *report,
             GString  *out,
             QfBlock  *b,
             guint     index)
{
  g_autoptr(GString) svg = g_string_new (NULL);
  g_autofree char *prefix = g_strdup_printf ("f%u-", index);
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (append_svg, svg, FIGURE_W, FIGURE_H);
  cairo_t *cr = cairo_create (surface);
  const char *start;
  g_autofree char *prefixed = NULL;
  g_autofree char *id_attr = g_strdup_printf ("id=\"%s", prefix);
  g_autofree char *href_attr = g_strdup_printf ("href=\"#%s", prefix);
  g_autofree char *url_attr = g_strdup_printf ("url(#%s", prefix);

  _qf_report_draw_figure (report, b, cr, FIGURE_W, FIGURE_H);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  cairo_surface_destroy (surface);

  start = strstr (svg->str, "<svg");
  if (start == NULL)
    return;
  {
    GString *s = g_string_new (start);
    g_string_replace (s, "id=\"", id_attr, 0);
    g_string_replace (s, "href=\"#", href_attr, 0);
    g_string_replace (s, "url(#", url_attr, 0);
    prefixed = g_string_free (s, FALSE);
  }
  g_string_append_printf (out, "<figure>\n%s</figure>\n", prefixed);
}

static void
html_title (GString *out,
            QfBlock *b)
{
  g_string_append (out, "<h1>");
  escape (out, b->text);
  g_string_append (out, "</h1>\n");
  if (b->text2 != NULL)
    {
      g_string_append (out, "<p class=\"qf-subtitle\">");
      escape (out, b->text2);
      g_string_append (out, "</p>\n");
    }
}

static void
html_verdict (GString *out,
              QfBlock *b)
{
  g_string_append_printf (out, "<div class=\"qf-overall %s\" id=\"qf-overall\"><span class=\"qf-small\">",
                          b->css ? b->css : "");
  escape (out, b->text2);
  g_string_append (out, "</span><span class=\"qf-big\">");
  escape (out, b->text);
  g_string_append (out, "</span></div>\n");
}

/* Per row: the role and name, then a line per header cell (name, date, signature). */
static void
html_signoff (GString *out,
              QfBlock *b)
{
  for (guint r = 0; r < b->rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (b->rows, r);
      g_string_append (out, "<p><strong>");
      escape (out, g_ptr_array_index (row, 0));
      g_string_append (out, "</strong> ");
      escape (out, row->len > 1 ? g_ptr_array_index (row, 1) : "");
      g_string_append (out, "</p>\n<div class=\"qf-signoff\">");
      for (guint c = 0; c < b->header->len; c++)
        {
          g_string_append (out, "<div>");
          escape (out, g_ptr_array_index (b->header, c));
          g_string_append (out, "</div>");
        }
      g_string_append (out, "</div>\n");
    }
}

static void
render_body (QfReport *report,
             GString  *out)
{
  guint figures = 0;

  for (guint i = 0; i < report->blocks->len; i++)
    {
      QfBlock *b = g_ptr_array_index (report->blocks, i);

      switch (b->kind)
        {
        case QF_BLOCK_TITLE:
          html_title (out, b);
          break;
        case QF_BLOCK_HEADING:
          g_string_append (out, b->level == 2 ? "<h2>" : "<h3>");
          escape (out, b->text);
          g_string_append (out, b->level == 2 ? "</h2>\n" : "</h3>\n");
          break;
        case QF_BLOCK_PARAGRAPH:
          g_string_append (out, "<p>");
          escape (out, b->text);
          g_string_append (out, "</p>\n");
          break;
        case QF_BLOCK_NOTE:
          g_string_append_printf (out, "<p class=\"qf-note%s%s\">", b->css ? " " : "", b->css ? b->css : "");
          escape (out, b->text);
          g_string_append (out, "</p>\n");
          break;
        case QF_BLOCK_VERDICT:
          html_verdict (out, b);
          break;
        case QF_BLOCK_TABLE:
        case QF_BLOCK_KEY_VALUE:
          html_table (out, b);
          break;
        case QF_BLOCK_CODE:
          g_string_append (out, "<pre><code>");
          escape (out, b->text);
          g_string_append (out, "</code></pre>\n");
          break;
        case QF_BLOCK_FIGURE:
          html_figure (report, out, b, figures++);
          break;
        case QF_BLOCK_SIGNOFF:
          html_signoff (out, b);
          break;
        case QF_BLOCK_PAGE_BREAK:
          g_string_append (out, "<div class=\"qf-break\"></div>\n");
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

/* JSON inside <script>: "<", ">" and "&" only occur inside strings, where \u escapes mean the
 * same characters, so no "</script>" can end the block early and no marker can be forged. */
static void
append_json (GString    *out,
             const char *json)
{
  for (const char *p = json; *p; p++)
    switch (*p)
      {
      case '<':
        g_string_append (out, "\\u003c");
        break;
      case '>':
        g_string_append (out, "\\u003e");
        break;
      case '&':
        g_string_append (out, "\\u0026");
        break;
      default:
        g_string_append_c (out, *p);
      }
}

/* Signs the whole file as it is, then inserts the signature element at insert_at (just before
 * </body>): the signature covers every byte of the file except that element. */
static gboolean
insert_signature (GString   *out,
                  gsize      insert_at,
                  QfSigner  *signer,
                  GError   **error)
{
  g_autoptr(GBytes) cms = qf_signer_sign_detached (signer, (const guint8 *) out->str, out->len,
                                                   error);
  g_autofree char *b64 = NULL, *element = NULL;

  if (cms == NULL)
    return FALSE;
  b64 = g_base64_encode (g_bytes_get_data (cms, NULL), g_bytes_get_size (cms));
  element = g_strconcat (QF_HTML_SIGNATURE_OPEN, b64, QF_HTML_SCRIPT_CLOSE, NULL);
  g_string_insert (out, insert_at, element);
  return TRUE;
}

/* Who signs, as the PDF's signature box and the wizard say it: "Li Wei, Example Robotics" and the
 * certificate's fingerprint in groups of four — outside <main>, which holds what the session says. */
static void
signed_by (QfReport  *report,
           GString   *out,
           QfSigner  *signer)
{
  g_autoptr(JsonObject) summary = qf_signer_summarize (signer);
  g_autofree char *holder = NULL, *company = NULL, *subject = NULL, *label = NULL;

  qf_signer_get_names (signer, &holder, &company);
  subject = qf_signer_get_subject (signer);
  label = qf_cert_signer_label (holder, company, subject);
  g_string_append (out, "<footer class=\"qf-signed-by\"><p>");
  escape (out, _qf_report_tr (report, N_("Digitally signed by")));
  g_string_append (out, " <b>");
  escape (out, label != NULL ? label : "?");
  g_string_append (out, "</b><br>");
  escape (out, _qf_report_tr (report, N_("Certificate SHA-256")));
  g_string_append (out, ": <code>");
  escape (out, json_object_get_string_member_with_default (summary, "fingerprint", ""));
  g_string_append (out, "</code></p></footer>\n");
}

GBytes *
qf_report_render_html (QfReport *report,
                       QfSigner *signer,
                       GError  **error)
{
  GString *out = g_string_sized_new (256 * 1024);
  const char *lang;
  gsize signature_at;  /* where a signature element goes: before </body> */

  g_return_val_if_fail (report != NULL, NULL);
  _qf_report_build (report);
  lang = g_str_equal (report->language, "zh_CN") ? "zh-CN" : "en";

  g_string_append_printf (out, "<!DOCTYPE html>\n<html lang=\"%s\" data-qf-lang=\"%s\">\n<head>\n"
                               "<meta charset=\"utf-8\">\n"
                               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                               "<meta name=\"generator\" content=\"Qualify " PACKAGE_VERSION "\">\n<title>",
                          lang, report->language);
  escape (out, report->header_left);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header class=\"qf-page\"><span>", css);
  escape (out, report->header_left);
  g_string_append (out, "</span><span>");
  escape (out, report->header_right);
  g_string_append (out, "</span></header>\n<main id=\"qf-report\">\n");
  render_body (report, out);
  g_string_append (out, "</main>\n");
  if (signer != NULL)
    signed_by (report, out, signer);
  g_string_append (out, QF_HTML_SESSION_OPEN);
  append_json (out, report->session_text);
  g_string_append (out, QF_HTML_SCRIPT_CLOSE "\n");
  signature_at = out->len;
  g_string_append (out, QF_HTML_SIGNATURE_AFTER);
  if (signer != NULL && !insert_signature (out, signature_at, signer, error))
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free_to_bytes (out);
}
