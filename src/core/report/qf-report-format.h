/* qf-report-format.h — block constructors and the printed forms of numbers, verdicts, dates and
 * test names, shared by the files that build the report's blocks (src/core, report model;
 * qf-report-format.c).
 */
#pragma once

#include "qf-report-private.h"
#include "qf-step.h"

G_BEGIN_DECLS

/* The string in the report's language; needs a `report` in scope. */
#define TR(s) _qf_report_tr (report, s)

/* text between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (U+2068 … U+2069), for every
 * string Qualify did not write (names people typed, host, interface and network names, the
 * session's free text): its direction is its own and no override or embedding in it (a
 * right-to-left override, say) reorders the text around it, in the PDF (pango) and in the HTML
 * (browsers) alike. Isolate controls inside are dropped, so it can neither close the isolate
 * early nor leave one open. NULL for NULL; a newly allocated string. */
char       *_qf_report_isolate           (const char       *text);

/* Blocks appended to report->blocks; a table starts with no header, no rows and no verdict
 * column. */
QfBlock    *_qf_report_add_block         (QfReport         *report,
                                          QfBlockKind       kind,
                                          const char       *text);
QfBlock    *_qf_report_add_table         (QfReport         *report,
                                          QfBlockKind       kind);
/* A row of cells (const char *, NULL-terminated) with its verdict class (or NULL). */
void        _qf_report_table_add_row     (QfBlock          *b,
                                          const char       *css,
                                          ...) G_GNUC_NULL_TERMINATED;
/* The header cells (const char *, NULL-terminated), appended to the table's header. */
void        _qf_report_table_set_header  (QfBlock          *b,
                                          const char       *first,
                                          ...) G_GNUC_NULL_TERMINATED;
/* A key–value row; an absent or empty value prints as "—". */
void        _qf_report_kv                (QfBlock          *b,
                                          const char       *key,
                                          const char       *value);

/* Integers in full, other numbers to 3 significant digits. */
char       *_qf_report_format_number     (JsonNode         *n);
/* A value and its unit ("12 µs", "0.5%"); integers in full. */
char       *_qf_report_format_value_unit (gdouble           v,
                                          const char       *unit);
/* "2026-11-30 15:18:30 (UTC+00:00)"; the text itself when it is no ISO 8601 date, "—" for
 * NULL. */
char       *_qf_report_format_time       (const char       *iso);

/* "PASS", "FAIL", … in the report's language. */
const char *_qf_report_verdict_word      (QfReport         *report,
                                          const char       *verdict);
/* Icon and word ("✓ PASS"), readable in black and white. */
char       *_qf_report_verdict_text      (QfReport         *report,
                                          const char       *verdict);

/* A step's title and description in the report's language. */
const char *_qf_report_step_title        (QfReport         *report,
                                          JsonObject       *step);
const char *_qf_report_step_description  (QfReport         *report,
                                          const char       *test,
                                          const char       *key);
/* A figure of a step's result or one of its parameters, printed for a person as the step's
 * table describes it (QfStepFigure: unit, size, rate, word, text); NULL when it is not printed
 * (QF_FIGURE_HIDDEN, or a value of another type than the figure's). */
char       *_qf_report_format_figure     (QfReport           *report,
                                          const QfStepFigure *figure,
                                          JsonNode           *value);
/* The parameters the step lists, labelled, in the session's order ("Threads: 1; Interval:
 * 1000 µs"); NULL when none is. A parameter the step does not list is left out. */
char       *_qf_report_format_params     (QfReport           *report,
                                          const QfStepInfo   *info,
                                          JsonObject         *params);

G_END_DECLS
