/* qf-cli-report.c — `qualify-cli report`: the PDF and HTML acceptance reports of a session
 * (src/cli). */
#include "config.h"

#include <glib/gstdio.h>

#include "qf-cert.h"
#include "qf-cli.h"
#include "qf-env.h"
#include "qf-i18n.h"
#include "qf-report.h"
#include "qf-session-check.h"
#include "qf-text.h"

/* The signer the options ask for: --p12, --cert/--key, else the store's unless --no-sign.
 * *signer stays NULL (and TRUE is returned) when the report goes unsigned. */
static gboolean
load_signer (const char *command,
                    const char *cert,
                    const char *key,
                    const char *p12,
                    const char *password,
                    gboolean    sign,
                    gboolean    no_sign,
                    QfSigner  **signer,
                    int        *exit_code)
{
  g_autoptr(GError) error = NULL;

  *signer = NULL;
  if (sign && no_sign)
    {
      *exit_code = qf_cli_errorf (command, _("--sign and --no-sign contradict each other; give one."));
      return FALSE;
    }
  if ((cert != NULL) != (key != NULL))
    {
      *exit_code = qf_cli_errorf (command, _("--cert and --key go together: give both, or --p12."));
      return FALSE;
    }
  if (no_sign)
    return TRUE;
  if (p12 != NULL)
    *signer = qf_signer_load_pkcs12 (p12, password ? password : qf_env_get ("QUALIFY_P12_PASSWORD"), &error);
  else if (cert != NULL)
    *signer = qf_signer_load_pem (cert, key, &error);
  else if (sign || qf_cert_store_exists ())
    *signer = qf_signer_load_default (&error);
  else
    return TRUE;
  if (*signer == NULL)
    {
      *exit_code = qf_cli_error (command, error);
      return FALSE;
    }
  return TRUE;
}

/* Says which files were written and whether they are signed: one JSON object with --json. An
 * unsigned report gets advice on signing only when no --no-sign asked for it unsigned. */
static void
print_written (const char *pdf,
               const char *html,
               QfReport   *report,
               QfSigner   *signer,
               gboolean    no_sign,
               gboolean    json)
{
  if (json)
    {
      g_autoptr(JsonObject) obj = json_object_new ();
      if (pdf != NULL)
        json_object_set_string_member (obj, "pdf", pdf);
      else
        json_object_set_null_member (obj, "pdf");
      if (html != NULL)
        json_object_set_string_member (obj, "html", html);
      else
        json_object_set_null_member (obj, "html");
      json_object_set_string_member (obj, "language", qf_report_get_language (report));
      json_object_set_boolean_member (obj, "signed", signer != NULL);
      if (signer != NULL)
        {
          g_autofree char *subject = qf_signer_get_subject (signer);
          json_object_set_string_member (obj, "signer", subject);
        }
      qf_cli_print_json (obj);
    }
  else
    {
      if (pdf != NULL)
        g_printerr (_("Wrote %s\n"), pdf);
      if (html != NULL)
        g_printerr (_("Wrote %s\n"), html);
      if (signer == NULL && no_sign)
        g_printerr ("%s\n", _("The reports are not signed: --no-sign was given."));
      else if (signer == NULL)
        g_printerr ("%s\n", _("The reports are not signed. Create a certificate with “qualify-cli cert create --name NAME” to sign them."));
    }
}

/* A signed report names who qualified the PC, for whom and where: refused without them. */
static gboolean
sign_off_complete (QfReport   *report,
                   const char *source,
                   int        *exit_code)
{
  g_autofree char *missing = qf_session_missing_sign_off (qf_report_get_session (report));
  g_autofree char *quoted = NULL;

  if (missing == NULL)
    return TRUE;
  quoted = qf_text_shell_word (source);
  /* Translators: %s (first) is e.g. "the customer and the site"; %s (second) the session's path */
  *exit_code = qf_cli_errorf ("report", _("cannot sign: the session does not name %s, and a signed report says "
                                          "who qualified the PC, for whom and where. Fill in “operator”, "
                                          "“customer” and “site” in %s (or give --operator, --customer and "
                                          "--site to “qualify-cli run”), or write an unsigned draft with --no-sign."),
                              missing, quoted);
  return FALSE;
}

int
qf_cli_report (int    argc,
               char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = NULL;
  g_autoptr(QfSigner) signer = NULL;
  g_autofree char *pdf = NULL, *html = NULL, *lang = NULL;
  g_autofree char *cert = NULL, *key = NULL, *p12 = NULL, *password = NULL;
  gboolean sign = FALSE, no_sign = FALSE, json = FALSE;
  const char *source;
  int exit_code;
  const GOptionEntry entries[] = {
    { "pdf", 0, 0, G_OPTION_ARG_FILENAME, &pdf, N_("Write the PDF report to FILE"), N_("FILE") },
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &html, N_("Write the HTML report to FILE"), N_("FILE") },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &lang, N_("Language of the report: en or zh_CN (default: en)"), N_("LANG") },
    { "sign", 0, 0, G_OPTION_ARG_NONE, &sign, N_("Sign the reports (fails when there is no certificate)"), NULL },
    { "no-sign", 0, 0, G_OPTION_ARG_NONE, &no_sign, N_("Do not sign the reports"), NULL },
    { "cert", 0, 0, G_OPTION_ARG_FILENAME, &cert, N_("Sign with this certificate chain (PEM)"), N_("FILE") },
    { "key", 0, 0, G_OPTION_ARG_FILENAME, &key, N_("Private key of --cert (PEM)"), N_("FILE") },
    { "p12", 0, 0, G_OPTION_ARG_FILENAME, &p12, N_("Sign with the key and chain of this PKCS#12 file"), N_("FILE") },
    { "password", 0, 0, G_OPTION_ARG_STRING, &password, N_("Password of --p12 (or QUALIFY_P12_PASSWORD)"), N_("PASSWORD") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("report", _("SESSION_DIR_OR_JSON"),
                             _("Write the PDF and HTML acceptance report of a session. Without --pdf and --html, "
                               "report.pdf and report.html are written beside the session. The reports are signed "
                               "when a certificate exists (see “qualify-cli cert”) unless --no-sign."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc < 2)
    return qf_cli_errorf ("report", _("give the session folder or its session.json, e.g. “qualify-cli report ~/.local/share/qualify/sessions/…”"));
  if (argc > 2)
    return qf_cli_errorf ("report", _("unexpected argument “%s”"), argv[2]);
  source = argv[1];

  report = qf_report_new_from_path (source, &error);
  if (report == NULL || !qf_report_set_language (report, lang, &error))
    return qf_cli_error ("report", error);
  if (!load_signer ("report", cert, key, p12, password, sign, no_sign, &signer, &exit_code))
    return exit_code;
  if (signer != NULL && !sign_off_complete (report, source, &exit_code))
    return exit_code;

  if (pdf == NULL && html == NULL)
    {
      g_autofree char *dir = g_file_test (source, G_FILE_TEST_IS_DIR) ? g_strdup (source) : g_path_get_dirname (source);
      pdf = g_build_filename (dir, "report.pdf", NULL);
      html = g_build_filename (dir, "report.html", NULL);
    }
  if (pdf != NULL && !qf_report_write_pdf (report, pdf, signer, &error))
    return qf_cli_error ("report", error);
  if (html != NULL && !qf_report_write_html (report, html, signer, &error))
    {
      /* Both or neither: do not leave a PDF whose HTML twin failed. */
      if (pdf != NULL)
        g_remove (pdf);
      return qf_cli_error ("report", error);
    }

  print_written (pdf, html, report, signer, no_sign, json);
  return QF_CLI_EXIT_OK;
}

gboolean
qf_cli_report_session_dir (const char *session_dir,
                           const char *language,
                           gboolean    no_sign,
                           gboolean    json,
                           GError    **error)
{
  g_autoptr(QfSigner) signer = NULL;
  g_autoptr(GError) local = NULL;

  if (session_dir == NULL)
    return TRUE;
  if (!no_sign && qf_cert_store_exists ())
    {
      signer = qf_signer_load_default (&local);
      if (signer == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
    }
  if (!qf_report_export_dir (session_dir, language, signer, error))
    return FALSE;
  if (!json)
    g_printerr (_("Reports written to %s (report.pdf, report.html), %s.\n"), session_dir,
                signer != NULL ? _("signed") : _("not signed"));
  return TRUE;
}
