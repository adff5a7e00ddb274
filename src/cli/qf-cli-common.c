/* qf-cli-common.c — option parsing, error and JSON printing shared by every subcommand
 * (src/cli). See qf-cli.h for the conventions. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "qf-auth.h"
#include "qf-pairing.h"
#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-json.h"

gboolean
qf_cli_parse_options (const char          *command,
                      const char          *parameter_string,
                      const char          *summary,
                      const GOptionEntry  *entries,
                      int                 *argc,
                      char              ***argv,
                      int                 *exit_code)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = g_strdup_printf ("%s %s", command, parameter_string ? parameter_string : "");
  gboolean help = FALSE;
  const GOptionEntry help_entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, N_("Show this help and exit"), NULL },
    { NULL }
  };

  context = g_option_context_new (title);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_help_enabled (context, FALSE);
  if (summary != NULL)
    g_option_context_set_summary (context, summary);
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, help_entries, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      g_printerr ("qualify-cli %s: %s\n", command, error->message);
      g_printerr (_("Run “qualify-cli %s --help” to see the options.\n"), command);
      *exit_code = QF_CLI_EXIT_ERROR;
      return FALSE;
    }
  if (help)
    {
      g_autofree char *text = g_option_context_get_help (context, TRUE, NULL);
      /* GOption titles its usage with the program name; show the subcommand too. */
      g_print ("%s", text);
      *exit_code = QF_CLI_EXIT_OK;
      return FALSE;
    }
  *exit_code = QF_CLI_EXIT_OK;
  return TRUE;
}

int
qf_cli_error (const char   *command,
              const GError *error)
{
  g_printerr ("qualify-cli %s: %s\n", command, error ? error->message : _("unknown error"));
  return QF_CLI_EXIT_ERROR;
}

int
qf_cli_errorf (const char *command,
               const char *format,
               ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("qualify-cli %s: %s\n", command, message);
  return QF_CLI_EXIT_ERROR;
}

int
qf_cli_check_token_file (const char *command,
                         const char *token_file)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) token = NULL;

  if (token_file == NULL)
    return QF_CLI_EXIT_OK;
  token = qf_auth_token_load (token_file, &error);
  if (token == NULL)
    return qf_cli_error (command, error);
  return QF_CLI_EXIT_OK;
}

/* `--pairing-code -`: one line of standard input. On a terminal it is asked for like a
 * password (echo off), so the code shows neither on the screen nor in the process list. NULL
 * when nothing was given. */
static char *
read_pairing_code (void)
{
  struct termios saved, quiet;
  gboolean tty = isatty (STDIN_FILENO) && tcgetattr (STDIN_FILENO, &saved) == 0;
  char line[256];
  char *code = NULL;

  if (tty)
    {
      g_printerr ("%s", _("Pairing code (not shown as you type): "));
      quiet = saved;
      quiet.c_lflag &= ~(tcflag_t) ECHO;
      quiet.c_lflag |= ECHONL;
      tty = tcsetattr (STDIN_FILENO, TCSAFLUSH, &quiet) == 0;
    }
  if (fgets (line, sizeof line, stdin) != NULL)
    code = g_strdup (g_strstrip (line));
  if (tty)
    tcsetattr (STDIN_FILENO, TCSAFLUSH, &saved);
  explicit_bzero (line, sizeof line);
  if (code != NULL && *code == '\0')
    g_clear_pointer (&code, g_free);
  return code;
}

int
qf_cli_client_token (const char  *command,
                     const char  *token_file,
                     char       **pairing_code,
                     GBytes     **token)
{
  g_autoptr(GError) error = NULL;

  *token = NULL;
  if (*pairing_code == NULL)
    return qf_cli_check_token_file (command, token_file);
  if (token_file != NULL)
    return qf_cli_errorf (command, _("give the helper machine's pairing code or its token file, not both"));
  if (g_str_equal (*pairing_code, "-"))
    {
      g_free (*pairing_code);
      *pairing_code = read_pairing_code ();
      if (*pairing_code == NULL)
        return qf_cli_errorf (command, _("--pairing-code -: no code on standard input; type the code the helper machine shows, or pipe it in"));
    }
  *token = qf_pairing_code_to_token (*pairing_code, &error);
  if (*token == NULL)
    return qf_cli_error (command, error);
  return QF_CLI_EXIT_OK;
}

void
qf_cli_print_json (JsonObject *obj)
{
  g_autofree char *text = qf_json_to_text (obj, TRUE);

  fputs (text, stdout);
  fflush (stdout);
}

const char *
qf_cli_status_mark (QfAuditStatus status)
{
  switch (status)
    {
    case QF_AUDIT_OK:
      return _("ok");
    case QF_AUDIT_WARN:
      return _("warning");
    case QF_AUDIT_FAIL:
      return _("FAIL");
    case QF_AUDIT_UNKNOWN:
    default:
      return _("unknown");
    }
}
