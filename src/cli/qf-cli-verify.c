/* qf-cli-verify.c — `qualify-cli verify`: is this report signed, unchanged, by whom, trusted,
 * and does its printed verdict table match its data? (src/cli)
 * Exit 0 valid, 1 invalid or tampered (saying what), 2 not a Qualify report or unreadable.
 * The outcome line is the status the wizard's verify view shows for the same file. */
#include "config.h"


#include "qf-cert.h"
#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-trust.h"
#include "qf-verify.h"

static const char *
yes_no (gboolean value)
{
  return value ? _("yes") : _("no");
}

/* The signer and the fingerprint as the wizard and the report show them: "Li Wei, Example
 * Robotics", "345F 4E86 …". */
static void
print_signature (const QfVerifyResult *result)
{
  g_autofree char *label = qf_cert_signer_label (result->signer_name, result->signer_organization, result->signer);
  g_autofree char *fingerprint = qf_cert_group_fingerprint_hex (result->signer_fingerprint);

  g_print ("%-22s %s\n", _("Signature valid:"), yes_no (result->signature_valid));
  g_print ("%-22s %s\n", _("Covers whole document:"), yes_no (result->covers_whole));
  g_print ("%-22s %s\n", _("Signed by:"), label != NULL ? label : "?");
  if (fingerprint != NULL)
    g_print ("%-22s %s\n", _("Certificate SHA-256:"), fingerprint);
  g_print ("%-22s %s\n", _("Signed at:"), result->signing_time ? result->signing_time : "?");
  if (result->trusted_by_reader)
    g_print ("%-22s %s\n", _("Signer trusted:"), _("yes, you chose to trust this signer"));
  else if (result->trusted)
    g_print ("%-22s %s\n", _("Signer trusted:"), _("yes"));
  else
    g_print ("%-22s %s — %s\n", _("Signer trusted:"), _("no"),
             result->trust_detail ? result->trust_detail : _("unknown issuer"));
}

static void
print_text (const QfVerifyResult *result,
            gboolean              ok)
{
  g_autofree char *warning = qf_verify_result_warning (result);

  g_print ("%-22s %s (%s)\n", _("Report:"), result->path, result->format);
  g_print ("%-22s %s\n", _("Outcome:"), qf_verify_outcome_text (qf_verify_result_outcome (result)));
  if (warning != NULL)
    g_print ("%-22s %s\n", _("WARNING:"), warning);
  g_print ("%-22s %s\n", _("Signed:"), yes_no (result->is_signed));
  if (result->is_signed)
    print_signature (result);
  if (result->pc)
    g_print ("%-22s %s\n", _("PC:"), result->pc);
  if (result->profile)
    g_print ("%-22s %s\n", _("Profile:"), result->profile);
  g_print ("%-22s %s\n", _("Contents:"), result->contents_detail ? result->contents_detail : "?");
  if (result->overall_verdict)
    g_print ("%-22s %s\n", _("Verdict in the data:"), result->overall_verdict);
  for (guint i = 0; i < result->problems->len; i++)
    g_print ("%-22s %s\n", _("Problem:"), (const char *) g_ptr_array_index (result->problems, i));
  if (ok && warning != NULL)
    g_print ("%s\n", _("Result: the signature is intact, but the certificate is NOT the one you "
                       "trust under that name (see WARNING above)."));
  else if (ok && !result->trusted)
    g_print ("%s %s\n", _("Result: VALID, but the signer is not in your trust store;"),
             _("compare the certificate fingerprint with the installer's, or give --trust CERT."));
  else
    g_print ("%s\n", ok ? _("Result: VALID") : _("Result: INVALID"));
}

/* --trust-signer: remembers the signer of an intact report (qf-trust.h) and checks again, so
 * what is printed is what the next check of any report by this signer will say. */
static QfVerifyResult *
trust_signer (QfVerifyResult     *result,
              const char *const  *trust,
              GError            **error)
{
  g_autoptr(QfTrustedSigner) added = NULL;
  QfVerifyOutcome outcome = qf_verify_result_outcome (result);

  if (outcome != QF_VERIFY_OUTCOME_UNTRUSTED && outcome != QF_VERIFY_OUTCOME_TRUSTED)
    {
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_CERT,
                   _("%s: only the signer of an unchanged, signed report can be trusted (%s)."),
                   result->path, qf_verify_outcome_text (outcome));
      return NULL;
    }
  added = qf_trust_add (result->signer_certificate, error);
  if (added == NULL)
    return NULL;
  g_printerr (_("Trusting %s (SHA-256 %s) from now on; “qualify-cli trust remove” forgets it.\n"),
              added->subject, added->fingerprint);
  return qf_verify_file (result->path, trust, error);
}

int
qf_cli_verify (int    argc,
               char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) result = NULL;
  g_auto(GStrv) trust = NULL;
  gboolean json = FALSE, trust_it = FALSE, ok;
  int exit_code;
  const GOptionEntry entries[] = {
    { "trust", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &trust,
      N_("Trust signers certified by this certificate (PEM or DER; repeatable). Default: the system's store"), N_("CERT") },
    { "trust-signer", 0, 0, G_OPTION_ARG_NONE, &trust_it,
      N_("Remember this report's signer as trusted (the report must be unchanged)"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("verify", _("REPORT.pdf|REPORT.html"),
                             _("Check a report's signature, that it covers the whole document, who signed it and "
                               "when, whether the signer is trusted, and that the printed verdict table matches "
                               "the embedded session data. Exit 0 valid, 1 invalid or changed, 2 not a Qualify report."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc < 2)
    return qf_cli_errorf ("verify", _("give the report to check, e.g. “qualify-cli verify report.pdf”"));
  if (argc > 2)
    return qf_cli_errorf ("verify", _("unexpected argument “%s”"), argv[2]);

  result = qf_verify_file (argv[1], (const char *const *) trust, &error);
  if (result != NULL && trust_it)
    {
      QfVerifyResult *again = trust_signer (result, (const char *const *) trust, &error);
      if (again != result)
        {
          g_clear_pointer (&result, qf_verify_result_free);
          result = again;
        }
    }
  if (result == NULL)
    return qf_cli_error ("verify", error);
  ok = qf_verify_result_ok (result);

  if (json)
    {
      g_autoptr(JsonObject) obj = qf_verify_result_to_json (result);
      qf_cli_print_json (obj);
    }
  else
    print_text (result, ok);
  return ok ? QF_CLI_EXIT_OK : QF_CLI_EXIT_FAIL;
}
