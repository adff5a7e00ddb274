/* qf-cli-cert.c — `qualify-cli cert`: create, import, show and export the installer's signing
 * certificate (src/cli). The private key stays in $XDG_DATA_HOME/qualify/keys/ (mode 0600). */
#include "config.h"


#include "qf-cert.h"
#include "qf-cli.h"
#include "qf-env.h"
#include "qf-i18n.h"

/* The words a person reads first (holder, company, the fingerprint to read aloud, validity),
 * then what an expert checks. */
static int
print_signer (QfSigner *signer,
              gboolean  json)
{
  g_autoptr(JsonObject) info = qf_signer_describe (signer);
  g_autoptr(JsonObject) summary = qf_signer_summarize (signer);
  g_autofree char *dir = qf_cert_get_store_dir ();
  const char *company = json_object_get_string_member (summary, "company");

  json_object_set_string_member (info, "store", dir);
  if (json)
    {
      for (const char *const *key = (const char *const[]) { "holder", "company", "fingerprint", NULL };
           *key != NULL; key++)
        json_object_set_string_member (info, *key, json_object_get_string_member (summary, *key));
      qf_cli_print_json (info);
      return QF_CLI_EXIT_OK;
    }
  g_print ("%-20s %s\n", _("Holder:"), json_object_get_string_member (summary, "holder"));
  g_print ("%-20s %s\n", _("Company:"), *company != '\0' ? company : _("(none)"));
  g_print ("%-20s %s\n", _("Fingerprint:"), json_object_get_string_member (summary, "fingerprint"));
  g_print ("%-20s %s\n", _("Valid from:"), json_object_get_string_member (summary, "not_before"));
  g_print ("%-20s %s\n", _("Valid until:"), json_object_get_string_member (summary, "not_after"));
  g_print ("%-20s %s\n", _("Issuer:"), json_object_get_string_member (info, "issuer"));
  g_print ("%-20s %s\n", _("Key:"), json_object_get_string_member (info, "key_algorithm"));
  g_print ("%-20s %s\n", _("Trust anchor:"), json_object_get_string_member (info, "anchor_subject"));
  g_print ("%-20s %s\n", _("Stored in:"), dir);
  return QF_CLI_EXIT_OK;
}

static int
cert_create (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSigner) signer = NULL;
  g_autofree char *name = NULL, *org = NULL;
  gboolean force = FALSE, json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, N_("Your name, as it appears on the signature"), N_("NAME") },
    { "org", 0, 0, G_OPTION_ARG_STRING, &org, N_("Your company"), N_("ORG") },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, N_("Replace an existing certificate"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("cert create", "",
                             _("Create your signing certificate (ECDSA P-256, for signing documents) and the personal root that issues it."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (name == NULL || *name == '\0')
    return qf_cli_errorf ("cert create", _("give your name with --name, e.g. --name \"Li Wei\""));
  if (qf_cert_store_exists () && !force)
    return qf_cli_errorf ("cert create", _("a certificate already exists (see “qualify-cli cert show”); add --force to replace it"));
  signer = qf_cert_create (name, org, &error);
  if (signer == NULL)
    return qf_cli_error ("cert create", error);
  return print_signer (signer, json);
}

static int
cert_import (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSigner) signer = NULL;
  g_autofree char *cert = NULL, *key = NULL, *p12 = NULL, *password = NULL;
  gboolean force = FALSE, json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "cert", 0, 0, G_OPTION_ARG_FILENAME, &cert, N_("Certificate chain, signer first (PEM)"), N_("FILE") },
    { "key", 0, 0, G_OPTION_ARG_FILENAME, &key, N_("Private key of the certificate (PEM, unencrypted)"), N_("FILE") },
    { "p12", 0, 0, G_OPTION_ARG_FILENAME, &p12, N_("PKCS#12 file with key and chain"), N_("FILE") },
    { "password", 0, 0, G_OPTION_ARG_STRING, &password, N_("Password of --p12 (or QUALIFY_P12_PASSWORD)"), N_("PASSWORD") },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, N_("Replace an existing certificate"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("cert import", "",
                             _("Import a company-issued signing certificate: --cert and --key, or --p12."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (p12 == NULL && (cert == NULL || key == NULL))
    return qf_cli_errorf ("cert import", _("give --cert FILE --key FILE, or --p12 FILE"));
  if (qf_cert_store_exists () && !force)
    return qf_cli_errorf ("cert import", _("a certificate already exists (see “qualify-cli cert show”); add --force to replace it"));
  if (password == NULL)
    password = g_strdup (qf_env_get ("QUALIFY_P12_PASSWORD"));
  signer = qf_cert_import (p12 ? NULL : cert, p12 ? NULL : key, p12, password, &error);
  if (signer == NULL && g_error_matches (error, QF_CERT_ERROR, QF_CERT_ERROR_PASSWORD))
    return qf_cli_errorf ("cert import", "%s %s", error->message,
                          _("On the command line, give it with --password or QUALIFY_P12_PASSWORD."));
  if (signer == NULL)
    return qf_cli_error ("cert import", error);
  return print_signer (signer, json);
}

static int
cert_show (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSigner) signer = NULL;
  g_autofree char *export = NULL;
  gboolean json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "export", 0, 0, G_OPTION_ARG_FILENAME, &export,
      N_("Also write the root certificate (never a key) to FILE, for “verify --trust” and the customer's trust store"), N_("FILE") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("cert show", "", _("Show the signing certificate in use."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  signer = qf_signer_load_default (&error);
  if (signer == NULL)
    return qf_cli_error ("cert show", error);
  if (export != NULL)
    {
      if (!qf_cert_export_public (signer, export, &error))
        return qf_cli_error ("cert show", error);
    }
  return print_signer (signer, json);
}

int
qf_cli_cert (int    argc,
             char **argv)
{
  if (argc >= 2 && g_str_equal (argv[1], "create"))
    return cert_create (argc - 1, argv + 1);
  if (argc >= 2 && g_str_equal (argv[1], "import"))
    return cert_import (argc - 1, argv + 1);
  if (argc >= 2 && g_str_equal (argv[1], "show"))
    return cert_show (argc - 1, argv + 1);
  if (argc >= 2 && (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h")))
    {
      g_print ("%s\n\n", _("Usage: qualify-cli cert create|import|show [OPTION…]"));
      g_print ("  create  %s\n", _("Create your own signing certificate (--name NAME [--org ORG])"));
      g_print ("  import  %s\n", _("Import a company certificate (--cert FILE --key FILE, or --p12 FILE)"));
      g_print ("  show    %s\n", _("Show the certificate in use (--export FILE writes it for others)"));
      return QF_CLI_EXIT_OK;
    }
  return qf_cli_errorf ("cert", _("give “create”, “import” or “show”; see “qualify-cli cert --help”"));
}
