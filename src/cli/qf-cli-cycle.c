/* qf-cli-cycle.c — `qualify-cli cycle`: the control-cycle test against `qualify-cli serve`
 * (src/cli). */
#include "config.h"


#include "qf-cli.h"
#include "qf-cli-load.h"
#include "qf-cli-net.h"
#include "qf-cli-step.h"
#include "qf-i18n.h"
#include "qf-steps.h"

static void
print_summary (JsonObject *r)
{
  g_print (_("%lld cycles at %lld Hz (period %.0f µs): %lld missed the deadline (%.3f %%), "
             "%lld of them late and %lld lost; longest run of misses %lld\n"),
           (long long) qf_cli_net_int (r, "cycles"), (long long) qf_cli_net_int (r, "rate_hz"),
           qf_cli_net_double (r, "period_us"), (long long) qf_cli_net_int (r, "misses"),
           qf_cli_net_double (r, "miss_pct"), (long long) qf_cli_net_int (r, "late"),
           (long long) qf_cli_net_int (r, "lost"),
           (long long) qf_cli_net_int (r, "longest_miss_burst"));
  if (json_object_has_member (r, "avg_rtt_us"))
    g_print (_("round trip min/avg/p50/p99/max = %.1f/%.1f/%.1f/%.1f/%.1f µs\n"),
             qf_cli_net_double (r, "min_rtt_us"), qf_cli_net_double (r, "avg_rtt_us"),
             qf_cli_net_double (r, "p50_rtt_us"), qf_cli_net_double (r, "p99_rtt_us"),
             qf_cli_net_double (r, "max_rtt_us"));
  if (qf_cli_net_int (r, "send_overruns") > 0)
    g_print (_("%lld requests left more than one period late: this PC could not keep the rate\n"),
             (long long) qf_cli_net_int (r, "send_overruns"));
}

int
qf_cli_cycle (int    argc,
              char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *iface = NULL;
  g_autofree char *token_file = NULL;
  g_autofree char *pairing_code = NULL;
  g_autoptr(GBytes) token = NULL;
  QfStepContext ctx = { 0 };
  int port = 11111, rate_hz = 1000;
  g_auto(QfCliLoadOptions) load = QF_CLI_LOAD_OPTIONS_INIT;
  gdouble time_s = 10;
  gboolean json = FALSE, trace = FALSE, ok;
  int exit_code;
  const GOptionEntry entries[] = {
    { "port", 'p', 0, G_OPTION_ARG_INT, &port, N_("Responder's UDP port (default 11111)"), N_("P") },
    { "rate-hz", 'r', 0, G_OPTION_ARG_INT, &rate_hz,
      N_("Cycles per second (default 1000; robots also run at 500)"), N_("HZ") },
    { "time", 't', 0, G_OPTION_ARG_DOUBLE, &time_s, N_("Run for S seconds (default 10)"), N_("S") },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &iface, N_("Send from this interface"), N_("IF") },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file,
      N_("Prove the responder's access token read from FILE (serve --token-file)"), N_("FILE") },
    { "pairing-code", 0, 0, G_OPTION_ARG_STRING, &pairing_code,
      N_("Prove the pairing code the helper machine shows (serve --pairing-code); “-” reads it from standard input, out of the process list"), N_("CODE") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { "trace", 0, 0, G_OPTION_ARG_NONE, &trace,
      N_("Record the kernel’s trace and name what delayed the slowest round trips (root, or through Qualify’s system service qualifyd)"), NULL },
    { "under-load", 0, 0, G_OPTION_ARG_NONE, &load.under_load,
      N_("Run on the idle link, then while the bandwidth test saturates it both ways (-t each)"),
      NULL },
    QF_CLI_LOAD_ENTRIES (load),
    { NULL }
  };

  if (!qf_cli_parse_options ("cycle", "HOST",
                             _("Run a periodic UDP request/response at a robot's control rate "
                               "against `qualify-cli serve` and count missed deadlines."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc < 2)
    return qf_cli_errorf ("cycle", _("give the address of the peer, e.g. qualify-cli cycle 192.168.1.2"));
  if (argc > 2)
    return qf_cli_errorf ("cycle", _("unexpected argument “%s”"), argv[2]);

  json_object_set_string_member (params, "host", argv[1]);
  json_object_set_int_member (params, "port", port);
  json_object_set_int_member (params, "rate_hz", rate_hz);
  if (load.under_load && trace)
    return qf_cli_errorf ("cycle", _("--trace is not taken with --under-load"));
  if (load.under_load)
    {
      json_object_set_string_member (params, "probe", qf_step_cycle.id);
      json_object_set_double_member (params, "idle_time_s", time_s);
      json_object_set_double_member (params, "loaded_time_s", time_s);
      qf_cli_load_params (&load, "load_port", params);
    }
  else
    json_object_set_double_member (params, "time_s", time_s);
  if (iface != NULL)
    json_object_set_string_member (params, "iface", iface);
  if (qf_cli_client_token ("cycle", token_file, &pairing_code, &token) != QF_CLI_EXIT_OK)
    return QF_CLI_EXIT_ERROR;
  ctx.token = token;
  if (token_file != NULL)
    json_object_set_string_member (params, "token_file", token_file);
  if (trace)
    json_object_set_boolean_member (params, "trace", TRUE);

  ok = qf_cli_step_run (load.under_load ? &qf_step_loaded_latency : &qf_step_cycle, params, &ctx,
                        &result, &error);
  qf_cli_trace_warning ("cycle", result);
  if (json && result != NULL)
    qf_cli_print_json (result);
  else if (result != NULL && load.under_load)
    qf_cli_load_print_loaded (result);
  else if (result != NULL)
    {
      print_summary (result);
      qf_cli_print_latency_causes (result);
    }
  if (!ok)
    return qf_cli_error ("cycle", error);
  return QF_CLI_EXIT_OK;
}
