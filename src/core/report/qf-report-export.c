/* qf-report-export.c — writing a report to files: the top of the report code (src/core).
 *
 * Asks a writer (qf-report-pdf.c, qf-report-html.c) for the bytes and stores them atomically, so
 * a failure leaves no partial file; qf_report_export_dir writes both formats of a session folder.
 * The arrows go one way: this file → the writers → the report model (qf-report.c and friends).
 */
#include "config.h"


#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-report.h"

gboolean
qf_report_write_file (const char *path,
                      const void *data,
                      gsize       length,
                      GError    **error)
{
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  /* Temp file beside the target, fsync, rename (qf-json.h): nothing partial is ever left. */
  if (!qf_file_write_atomic (path, data, length, 0644, &local))
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_WRITE,
                   _("Cannot write the report into %s: %s. Choose a folder you can write to, with free space."),
                   dir, local->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_report_write_pdf (QfReport   *report,
                     const char *path,
                     QfSigner   *signer,
                     GError    **error)
{
  g_autoptr(GBytes) pdf = qf_report_render_pdf (report, signer, error);

  if (pdf == NULL)
    return FALSE;
  return qf_report_write_file (path, g_bytes_get_data (pdf, NULL), g_bytes_get_size (pdf), error);
}

gboolean
qf_report_write_html (QfReport   *report,
                      const char *path,
                      QfSigner   *signer,
                      GError    **error)
{
  g_autoptr(GBytes) html = qf_report_render_html (report, signer, error);

  if (html == NULL)
    return FALSE;
  return qf_report_write_file (path, g_bytes_get_data (html, NULL), g_bytes_get_size (html), error);
}

gboolean
qf_report_export_dir (const char *session_dir,
                      const char *language,
                      QfSigner   *signer,
                      GError    **error)
{
  g_autoptr(QfReport) report = qf_report_new_from_path (session_dir, error);
  g_autofree char *pdf = g_build_filename (session_dir, "report.pdf", NULL);
  g_autofree char *html = g_build_filename (session_dir, "report.html", NULL);

  return report != NULL &&
         qf_report_set_language (report, language, error) &&
         qf_report_write_pdf (report, pdf, signer, error) &&
         qf_report_write_html (report, html, signer, error);
}
