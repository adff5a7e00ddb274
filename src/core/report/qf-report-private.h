/* qf-report-private.h — the report model as the writers and the verifier see it (src/core).
 *
 * The report code is layered, arrows pointing down only:
 *   export   qf-report-export.c   writes files, asks a writer for the bytes
 *   writers  qf-report-pdf.c, qf-report-html.c   render the blocks
 *   model    qf-report-build.c → qf-report-steps.c → qf-report-figures.c → qf-report-format.c
 *            → qf-report.c (loading, language, translation; owns the blocks)
 * This header is the model's face upwards: the block types, the report's fields, building the
 * blocks, drawing a figure block, and the criteria table and overall verdict as printed. */
#pragma once

#include <cairo.h>

#include "qf-plot.h"
#include "qf-report.h"

G_BEGIN_DECLS

typedef enum
{
  QF_BLOCK_TITLE,       /* the report's title (text) and subtitle (text2) */
  QF_BLOCK_HEADING,     /* level 1 or 2 */
  QF_BLOCK_PARAGRAPH,
  QF_BLOCK_NOTE,        /* an emphasised paragraph (e.g. built-in peer) */
  QF_BLOCK_VERDICT,     /* the overall verdict: text = "✓ PASS", text2 = detail, css = class */
  QF_BLOCK_TABLE,       /* header + rows of cells, row classes for verdict colours */
  QF_BLOCK_KEY_VALUE,   /* two-column table without header */
  QF_BLOCK_CODE,        /* a classic command line */
  QF_BLOCK_FIGURE,      /* a plot of a step result */
  QF_BLOCK_SIGNOFF,     /* sign-off lines: rows of (role) */
  QF_BLOCK_PAGE_BREAK,
} QfBlockKind;

typedef enum
{
  QF_FIGURE_HISTOGRAM,
  QF_FIGURE_TIME_SERIES,
  QF_FIGURE_SPIKE_TIMELINE,   /* result: a traced result's "trace"."timeline" (qf-spike-plot) */
} QfFigureKind;

#define QF_REPORT_MAX_LIMITS 4

typedef struct
{
  QfBlockKind   kind;
  int           level;
  char         *text;
  char         *text2;
  char         *css;          /* verdict class: "pass", "fail", "warn", "not-run", "invalid" */
  char         *id;           /* HTML id / anchor (e.g. "qf-criteria") or NULL */
  GPtrArray    *header;       /* char* */
  GPtrArray    *rows;         /* GPtrArray of char* */
  GPtrArray    *row_css;      /* char* or NULL per row */
  int           verdict_col;  /* the column printed as a verdict (bold, coloured), or -1 */
  /* figure */
  QfFigureKind  figure;
  JsonObject   *result;       /* a ref */
  char         *fig_title;
  char         *x_label;
  char         *y_label;
  const char   *data_unit;    /* the unit of the values drawn on the value axis ("" for none) */
  const QfStepChart *chart;   /* the step's chart drawn (QF_FIGURE_TIME_SERIES), or NULL */
  QfPlotLimit   limits[QF_REPORT_MAX_LIMITS];
  char         *limit_labels[QF_REPORT_MAX_LIMITS];
  guint         n_limits;
} QfBlock;

struct _QfReport
{
  char        *session_text;   /* exactly as read */
  JsonNode    *root;
  JsonObject  *session;        /* borrowed from root */
  JsonObject  *judged;         /* the verdicts judged again on loading: overall, warnings,
                                  counts, criteria (qf_verdict_judge_session); NULL when
                                  they disagree with the stored ones (verify only) */
  JsonArray   *judged_steps;   /* per entry of "steps": its judged verdicts */
  char        *language;       /* "en" or "zh_CN" */
  GHashTable  *catalogue;      /* msgid → msgstr, NULL for English */
  GPtrArray   *blocks;         /* QfBlock*, built lazily for the current language */
  char        *header_left;    /* page header: "Acceptance report — host" */
  char        *header_right;   /* the date */
  char        *title;
};

/* For the verifier: the model of session text as qf_report_new_from_data reads it, but a session
 * whose stored verdicts disagree with its figures is returned too, with no judged verdicts (no
 * criteria rows, overall "incomplete") and the disagreement in *disagreement. */
QfReport   *_qf_report_new_for_verify (const char  *json,
                                       gsize        length,
                                       GError     **disagreement,
                                       GError     **error);
/* The judged verdicts of the step at index (from 0) of "steps"; NULL when none. */
JsonArray  *_qf_report_step_verdicts (QfReport    *report,
                                      guint        index);

/* The string in the report's language (msgid itself when untranslated or English). */
const char *_qf_report_tr           (QfReport    *report,
                                     const char  *msgid);
/* _qf_report_tr in the form the steps' texts take it (QfStepTranslate; user_data: the report). */
const char *_qf_report_translate    (const char  *msgid,
                                     gpointer     report);
/* Builds report->blocks for the current language (idempotent). */
void        _qf_report_build        (QfReport    *report);

/* One row of the criteria table as printed: cells[0..4] = test, criterion, measured, limit,
 * verdict; css = verdict class. Used by both writers and by the verifier, so what verify
 * expects is exactly what was printed. */
GPtrArray  *_qf_report_criteria_rows (QfReport   *report,
                                      GPtrArray **row_css);
/* The overall verdict as printed, e.g. "✓ PASS" / "✗ 不合格". */
char       *_qf_report_overall_text (QfReport    *report,
                                     const char **css);
/* The criteria table exactly as the HTML writer prints it (qf-report-html.c; for the verifier). */
char       *_qf_report_html_criteria_table (QfReport *report);

/* Draws a figure block into (0, 0, width, height) of cr. */
void        _qf_report_draw_figure  (QfReport    *report,
                                     QfBlock     *block,
                                     cairo_t     *cr,
                                     gdouble      width,
                                     gdouble      height);

/* Fonts the writers use (fontconfig families; Noto Sans CJK covers Latin and Chinese). */
#define QF_REPORT_FONT "Noto Sans CJK SC"
#define QF_REPORT_MONO_FONT "Noto Sans Mono CJK SC"

/* HTML markers the verifier looks for. */
#define QF_HTML_SESSION_OPEN "<script type=\"application/json\" id=\"qf-session\">"
#define QF_HTML_SIGNATURE_OPEN "<script type=\"application/pkcs7-signature\" id=\"qf-signature\">"
#define QF_HTML_SCRIPT_CLOSE "</script>"
/* What the writer puts right after the signature element, the last bytes of every report: the
 * verifier accepts the element only there. */
#define QF_HTML_SIGNATURE_AFTER "</body>\n</html>\n"

G_END_DECLS
