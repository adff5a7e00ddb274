/* qf-report.h — the acceptance report of a session, as PDF and as HTML (src/core).
 *
 * A QfReport reads a session (docs/session-format.md) and lays it out once as a list of blocks
 * (headings, tables, figures, …) in the language chosen for the export; the PDF writer
 * (cairo + pango, qf-report-pdf.c) and the HTML writer (qf-report-html.c) render the same blocks,
 * so both formats say the same. Plots come from qf-plot, the code the wizard draws with.
 *
 * Language: the report does not touch the process's locale or gettext state. It looks its
 * strings up in the catalogue of the chosen language directly (the qualify.mo that gettext
 * itself would use, parsed once per report), so a Chinese report can be written from an English
 * wizard — from any thread, with several exports at once.
 *
 * Both writers write atomically: a temp file in the target folder, fsync, rename. A failure
 * (read-only folder, full disk) leaves no file behind and says which folder and why.
 *
 * A QfReport is used from one thread at a time (the export task's thread).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "qf-cert.h"

G_BEGIN_DECLS

#define QF_REPORT_ERROR (qf_report_error_quark ())
GQuark qf_report_error_quark (void);

typedef enum
{
  QF_REPORT_ERROR_READ,       /* the session cannot be read */
  QF_REPORT_ERROR_FORMAT,     /* not a session file, or a newer schema */
  QF_REPORT_ERROR_LANGUAGE,   /* no translation for the requested language */
  QF_REPORT_ERROR_WRITE,      /* the report cannot be written (message names the folder) */
  QF_REPORT_ERROR_RENDER,     /* cairo failed */
  QF_REPORT_ERROR_SIGN,       /* signing failed */
  QF_REPORT_ERROR_VERDICT,    /* the session's stored verdicts are not what its figures give */
} QfReportError;

typedef struct _QfReport QfReport;

/* From SESSION_DIR (reads SESSION_DIR/session.json) or a .json file.
 * Every criterion is judged again on loading (qf_verdict_judge_session): from the figure in the
 * step's result and the limit and role of the profile the session holds. A session whose stored
 * verdicts say otherwise is refused (QF_REPORT_ERROR_VERDICT, naming the test and the metric);
 * the report prints only judged verdicts, the same rows in the criteria table and in each test's
 * section. */
QfReport   *qf_report_new_from_path   (const char   *path,
                                       GError      **error);
/* From session JSON text; the text is embedded in the reports byte for byte. */
QfReport   *qf_report_new_from_data   (const char   *json,
                                       gssize        length,
                                       GError      **error);
void        qf_report_free            (QfReport     *report);

/* "en" (default) or "zh_CN"; the language of every string the report prints. */
gboolean    qf_report_set_language    (QfReport     *report,
                                       const char   *language,
                                       GError      **error);
const char *qf_report_get_language    (QfReport     *report);
/* The languages a report can be written in ("en", "zh_CN"). */
const char *const *qf_report_languages (void);

JsonObject *qf_report_get_session     (QfReport     *report);

/* The files, signed with signer when it is not NULL. */
GBytes     *qf_report_render_pdf      (QfReport     *report,
                                       QfSigner     *signer,
                                       GError      **error);
GBytes     *qf_report_render_html     (QfReport     *report,
                                       QfSigner     *signer,
                                       GError      **error);
gboolean    qf_report_write_pdf       (QfReport     *report,
                                       const char   *path,
                                       QfSigner     *signer,
                                       GError      **error);
gboolean    qf_report_write_html      (QfReport     *report,
                                       const char   *path,
                                       QfSigner     *signer,
                                       GError      **error);

/* Writes data to path atomically (temp file in the same folder, fsync, rename); on failure no
 * file is left and the error (QF_REPORT_ERROR_WRITE) names the folder and the cause. */
gboolean    qf_report_write_file      (const char   *path,
                                       const void   *data,
                                       gsize         length,
                                       GError      **error);

/* Convenience for `qualify-cli run --out DIR` and the wizard: writes DIR/report.pdf and
 * DIR/report.html from DIR/session.json in language, signed when signer is not NULL. */
gboolean    qf_report_export_dir      (const char   *session_dir,
                                       const char   *language,
                                       QfSigner     *signer,
                                       GError      **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfReport, qf_report_free)

G_END_DECLS
