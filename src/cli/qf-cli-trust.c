/* qf-cli-trust.c — `qualify-cli trust`: the signers this user chose to trust (src/cli), the same
 * list the wizard's verify view shows and prunes (qf-trust.h). `verify --trust-signer` adds the
 * signer of a report; `trust add` a certificate file the installer handed over. */
#include "config.h"


#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-trust.h"

static JsonObject *
signer_json (const QfTrustedSigner *s)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "sha256_fingerprint", s->fingerprint);
  json_object_set_string_member (o, "subject", s->subject);
  json_object_set_string_member (o, "name", s->name);
  json_object_set_string_member (o, "organization", s->organization);
  json_object_set_string_member (o, "not_after", s->not_after);
  json_object_set_string_member (o, "file", s->path);
  return o;
}

static int
trust_list (gboolean json)
{
  g_autoptr(GPtrArray) list = qf_trust_list ();
  g_autofree char *dir = qf_trust_get_dir ();
  g_autoptr(GError) unsafe = NULL;

  if (!qf_trust_check_store (&unsafe))
    return qf_cli_error ("trust list", unsafe);
  if (json)
    {
      g_autoptr(JsonObject) o = json_object_new ();
      JsonArray *signers = json_array_new ();

      for (guint i = 0; i < list->len; i++)
        json_array_add_object_element (signers, signer_json (g_ptr_array_index (list, i)));
      json_object_set_string_member (o, "store", dir);
      json_object_set_array_member (o, "signers", signers);
      qf_cli_print_json (o);
      return QF_CLI_EXIT_OK;
    }
  if (list->len == 0)
    g_print ("%s\n", _("No trusted signers yet."));
  for (guint i = 0; i < list->len; i++)
    {
      const QfTrustedSigner *s = g_ptr_array_index (list, i);
      g_print ("%s\n  %-12s %s\n  %-12s %s\n", s->subject ? s->subject : "?", _("SHA-256:"),
               s->fingerprint, _("Valid until:"), s->not_after ? s->not_after : "?");
    }
  return QF_CLI_EXIT_OK;
}

static int
trust_add (const char *path,
           gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autofree char *data = NULL;
  gsize size = 0;

  if (!g_file_get_contents (path, &data, &size, &error))
    return qf_cli_error ("trust add", error);
  bytes = g_bytes_new_take (g_steal_pointer (&data), size);
  added = qf_trust_add (bytes, &error);
  if (added == NULL)
    return qf_cli_error ("trust add", error);
  if (json)
    {
      g_autoptr(JsonObject) o = signer_json (added);
      qf_cli_print_json (o);
    }
  else
    g_print (_("Trusting %s (SHA-256 %s)\n"), added->subject, added->fingerprint);
  return QF_CLI_EXIT_OK;
}

int
qf_cli_trust (int    argc,
              char **argv)
{
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("trust", _("list | add CERT | remove SHA-256"),
                             _("List, add or remove the signers you trust. A report signed with a trusted "
                               "signer's certificate verifies as trusted (also in the wizard's verify view)."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc == 2 && g_str_equal (argv[1], "list"))
    return trust_list (json);
  if (argc == 3 && g_str_equal (argv[1], "add"))
    return trust_add (argv[2], json);
  if (argc == 3 && g_str_equal (argv[1], "remove"))
    {
      if (!qf_trust_remove (argv[2], &error))
        return qf_cli_error ("trust remove", error);
      return QF_CLI_EXIT_OK;
    }
  return qf_cli_errorf ("trust", _("give “list”, “add CERT” or “remove SHA-256”; see “qualify-cli trust --help”"));
}
