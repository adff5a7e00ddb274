/* qf-cli-sysinfo.c — `qualify-cli sysinfo`: the PC's identity, kernel and the real-time
 * readiness audit with the privilege checks (src/cli). --json adds them as a `checks` array;
 * --iface IF adds the network readiness audit of IF (`network_audit`). */
#include "config.h"


#include "qf-audit.h"
#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-net-audit.h"
#include "qf-privileges.h"
#include "qf-sysinfo.h"

static void
print_text (const QfSysinfo *info,
            GPtrArray       *checks)
{
  g_autofree char *release = qf_os_release_describe (info->os.id, info->os.version_id,
                                                     info->os.codename, info->os.pretty_name);

  g_print ("%-18s %s\n", _("Host name:"), info->hostname);
  g_print ("%-18s %s\n", _("CPU:"), info->cpu_model);
  g_print ("%-18s %u\n", _("CPUs:"), info->cpu_count);
  g_print ("%-18s %.1f GiB\n", _("Memory:"), info->mem_total_kb / (1024.0 * 1024.0));
  g_print ("%-18s %s\n", _("Release:"), release != NULL ? release : _("unknown"));
  g_print ("%-18s %s\n", _("Kernel:"), info->kernel_release);
  g_print ("%-18s %s\n", _("Kernel build:"), info->kernel_version ? info->kernel_version : "");
  g_print ("%-18s %s\n", _("Preemption:"), info->preempt_model);
  g_print ("%-18s %s\n", _("PREEMPT_RT:"), info->preempt_rt ? _("yes") : _("no"));

  g_print ("\n%s\n", _("Real-time readiness:"));
  for (guint i = 0; i < checks->len; i++)
    {
      QfAuditCheck *check = g_ptr_array_index (checks, i);

      g_print ("  %-8s %s: %s\n", qf_cli_status_mark (check->status), check->title, check->value);
      if (check->status != QF_AUDIT_OK)
        g_print ("           %s\n", check->advice);
    }
}

int
qf_cli_sysinfo (int    argc,
                char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSysinfo) info = NULL;
  g_autoptr(GPtrArray) checks = NULL;
  g_autoptr(GPtrArray) network = NULL;
  g_autofree char *root = NULL;
  g_autofree char *iface = NULL;
  g_autofree char *peer = NULL;
  gboolean json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &iface,
      N_("Add the network readiness audit of interface IF"), N_("IF") },
    { "peer", 0, 0, G_OPTION_ARG_STRING, &peer,
      N_("With --iface: check that the path to ADDRESS carries full-size frames unfragmented"),
      N_("ADDRESS") },
    { "root", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &root,
      N_("Read /proc and /sys below DIR (for tests)"), N_("DIR") },
    { NULL }
  };

  if (!qf_cli_parse_options ("sysinfo", "", _("Show this PC's identity, kernel and real-time readiness."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("sysinfo", _("unexpected argument “%s”"), argv[1]);
  if (peer != NULL && iface == NULL)
    return qf_cli_errorf ("sysinfo", _("--peer needs --iface: the path to the peer is checked as part of that interface's network readiness audit"));

  info = qf_sysinfo_read (root, &error);
  if (info == NULL)
    return qf_cli_error ("sysinfo", error);
  checks = qf_audit_run (root, &error);
  if (checks == NULL)
    return qf_cli_error ("sysinfo", error);
  /* How this process gets real-time priority, locked memory and ICMP (privilege.* ids): a fact
   * about the running program, so not for a fixture tree. */
  if (root == NULL)
    g_ptr_array_extend_and_steal (checks, qf_privileges_check ());
  if (iface != NULL && (network = qf_cli_network_audit (root, iface, peer, &error)) == NULL)
    return qf_cli_error ("sysinfo", error);

  if (json)
    {
      g_autoptr(JsonObject) obj = qf_sysinfo_to_json (info);
      json_object_set_string_member (obj, "test", "sysinfo");
      json_object_set_array_member (obj, "checks", qf_audit_to_json (checks));
      if (network != NULL)
        {
          json_object_set_string_member (obj, "iface", iface);
          json_object_set_array_member (obj, "network_audit", qf_net_audit_to_json (network));
        }
      qf_cli_print_json (obj);
      return QF_CLI_EXIT_OK;
    }

  print_text (info, checks);
  if (network != NULL)
    qf_cli_print_network_audit (network, iface);
  return QF_CLI_EXIT_OK;
}
