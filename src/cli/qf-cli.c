/* qf-cli.c — main() of qualify-cli: the headless front end (src/cli).
 *
 * Dispatches to one subcommand per file (qf-cli-<name>.c). A subcommand whose engine is not in
 * this build yet says so and exits 2; nothing here pretends to measure. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "qf-cli.h"
#include "qf-env.h"
#include "qf-i18n.h"
#include "qf-paths.h"
#include "qf-text.h"

typedef int (*QfCliFunc) (int argc, char **argv);

typedef struct
{
  const char *name;
  const char *summary;   /* N_() marked, translated when printed */
  QfCliFunc   func;      /* NULL: not part of this build yet */
} QfCliCommand;

static const QfCliCommand commands[] = {
  { "sysinfo",   N_("Show this PC's identity, kernel and real-time readiness"), qf_cli_sysinfo },
  { "interfaces", N_("List the network interfaces, from NetworkManager or the kernel"), qf_cli_interfaces },
  { "rt",        N_("Measure real-time scheduling latency (like cyclictest)"), qf_cli_rt },
  { "stress",    N_("Load CPU, I/O, memory and disk while monitoring (like stress)"), qf_cli_stress },
  { "monitor",   N_("Watch CPU, memory, disks and network (like top, iostat, sar)"), qf_cli_monitor },
  { "ping",      N_("Measure ICMP round-trip time to a peer (like ping)"), qf_cli_ping },
  { "latency",   N_("Measure socket ping-pong latency to a peer (like sockperf)"), qf_cli_latency },
  { "cycle",     N_("Run a periodic control-cycle test against a peer"), qf_cli_cycle },
  { "bandwidth", N_("Measure TCP/UDP throughput to a peer (like iperf3)"), qf_cli_bandwidth },
  { "serve",     N_("Run the responder for the helper machine"), qf_cli_serve },
  { "discover",  N_("List the helper machines that answer on the local network"), qf_cli_discover },
  { "run",       N_("Run a whole qualification against a profile"), qf_cli_run },
  { "report",    N_("Write the PDF and HTML acceptance report of a session"), qf_cli_report },
  { "verify",    N_("Check the signature and contents of a report"), qf_cli_verify },
  { "cert",      N_("Create, import or show the certificate that signs reports"), qf_cli_cert },
  { "trust",     N_("List, add or remove the report signers you trust"), qf_cli_trust },
  { "profiles",  N_("List and show threshold profiles"), qf_cli_profiles },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s\n\n", _("Usage: qualify-cli COMMAND [OPTION…]"));
  fprintf (out, "%s\n\n", _("Qualify a PC and its network for real-time robot control, without a display."));
  fprintf (out, "%s\n", _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n", _("Options:"));
  fprintf (out, "  %-14s %s\n", "-h, --help", _("Show this help and exit"));
  fprintf (out, "  %-14s %s\n", "--version", _("Show the version and exit"));
  fprintf (out, "\n%s\n", _("Run “qualify-cli COMMAND --help” for the options of one command."));
  fprintf (out, "%s\n", _("Exit status: 0 success or pass, 1 measured and failed, 2 error."));
}

static const QfCliCommand *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, name))
      return &commands[i];
  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  const QfCliCommand *command;

  qf_env_init ();
  qf_i18n_init ();
  g_set_prgname ("qualify-cli");

  if (argc < 2)
    {
      print_usage (stderr);
      return QF_CLI_EXIT_ERROR;
    }
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    {
      print_usage (stdout);
      return QF_CLI_EXIT_OK;
    }
  if (g_str_equal (argv[1], "--version") || g_str_equal (argv[1], "-V"))
    {
      g_print ("qualify-cli %s\n", PACKAGE_VERSION);
      return QF_CLI_EXIT_OK;
    }
  if (g_str_equal (argv[1], "help") && argc >= 3 && find_command (argv[2]) != NULL)
    {
      char *help_argv[] = { argv[2], (char *) "--help", NULL };
      command = find_command (argv[2]);
      if (command->func != NULL)
        return command->func (2, help_argv);
    }

  command = find_command (argv[1]);
  if (command == NULL)
    {
      g_autofree char *shown = qf_text_clean (argv[1], -1);

      g_printerr (_("qualify-cli: unknown command “%s”. Run “qualify-cli --help” to see the commands.\n"),
                  shown);
      return QF_CLI_EXIT_ERROR;
    }
  if (command->func == NULL)
    {
      g_printerr (_("qualify-cli: “%s” is not part of this build yet. See docs/architecture.md for what each release contains.\n"),
                  command->name);
      return QF_CLI_EXIT_ERROR;
    }
  return command->func (argc - 1, argv + 1);
}
