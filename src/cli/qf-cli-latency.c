/* qf-cli-latency.c — `qualify-cli latency`: socket ping-pong like `sockperf pp` (src/cli).
 *
 * Works against `sockperf sr` or `qualify-cli serve`; prints sockperf's summary lines (valid
 * duration, avg-latency with std-dev, drops, percentiles) and always says which receive mode
 * measured the figure and that it is half the round trip.
 */
#include "config.h"


#include "qf-cli.h"
#include "qf-cli-load.h"
#include "qf-cli-net.h"
#include "qf-cli-step.h"
#include "qf-i18n.h"
#include "qf-sockperf.h"
#include "qf-steps.h"

static void
print_summary (JsonObject *r)
{
  static const struct { const char *key, *label; } percentiles[] = {
    { "p99999_us", "99.999" }, { "p9999_us", "99.990" }, { "p999_us", "99.900" },
    { "p99_us", "99.000" }, { "p90_us", "90.000" }, { "p75_us", "75.000" },
    { "p50_us", "50.000" }, { "p25_us", "25.000" },
  };
  gboolean one_way = json_object_get_boolean_member (r, "one_way");
  gboolean spin = g_str_equal (json_object_get_string_member (r, "mode"), "spin");

  g_print (_("[Valid Duration] RunTime=%.3f sec; ReceivedMessages=%lld\n"),
           qf_cli_net_double (r, "valid_run_time_s"), (long long) qf_cli_net_int (r, "samples"));
  if (json_object_has_member (r, "avg_us"))
    g_print ("====> %s=%.3f (std-dev=%.3f) µs\n", one_way ? "avg-latency" : "avg-rtt",
             qf_cli_net_double (r, "avg_us"), qf_cli_net_double (r, "stddev_us"));
  g_print (_("# dropped messages = %lld; # duplicated messages = %lld; # out-of-order messages = %lld\n"),
           (long long) qf_cli_net_int (r, "dropped"), (long long) qf_cli_net_int (r, "duplicates"),
           (long long) qf_cli_net_int (r, "out_of_order"));
  if (!json_object_has_member (r, "avg_us"))
    return;
  g_print ("---> <MAX> observation = %8.3f\n", qf_cli_net_double (r, "max_us"));
  for (guint i = 0; i < G_N_ELEMENTS (percentiles); i++)
    if (json_object_has_member (r, percentiles[i].key))
      g_print ("---> percentile %s = %8.3f\n", percentiles[i].label,
               qf_cli_net_double (r, percentiles[i].key));
  g_print ("---> <MIN> observation = %8.3f\n", qf_cli_net_double (r, "min_us"));
  g_print ("%s\n", one_way ? _("Latency is half the round trip, as sockperf reports it (--full-rtt for the whole).")
                           : _("Figures are whole round trips (--full-rtt)."));
  g_print ("%s\n", spin ? _("Mode: spin (busy-polling receive): the link's floor, not comparable with a blocking standard value.")
                        : _("Mode: blocking receive, as sockperf's default and the procedure's standard value."));
}

int
qf_cli_latency (int    argc,
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
  int port = QF_SOCKPERF_DEFAULT_PORT, msg_size = QF_SOCKPERF_MIN_MSG_SIZE;
  g_auto(QfCliLoadOptions) load = QF_CLI_LOAD_OPTIONS_INIT;
  gdouble time_s = -1, interval_ms = -1;
  gboolean tcp = FALSE, udp = FALSE, full_rtt = FALSE, spin = FALSE, json = FALSE, ok;
  int exit_code;
  const GOptionEntry entries[] = {
    { "port", 'p', 0, G_OPTION_ARG_INT, &port, N_("Peer's port (default 11111, as sockperf)"), N_("P") },
    { "tcp", 0, 0, G_OPTION_ARG_NONE, &tcp, N_("Use TCP (the default, as the procedure)"), NULL },
    { "udp", 0, 0, G_OPTION_ARG_NONE, &udp, N_("Use UDP"), NULL },
    { "time", 't', 0, G_OPTION_ARG_DOUBLE, &time_s,
      N_("Measure for S seconds (default 30, as the procedure; under load 10 for each phase)"),
      N_("S") },
    { "msg-size", 'm', 0, G_OPTION_ARG_INT, &msg_size,
      N_("Message size in bytes (default and minimum 14, as sockperf)"), N_("N") },
    { "full-rtt", 0, 0, G_OPTION_ARG_NONE, &full_rtt,
      N_("Report whole round trips instead of half"), NULL },
    { "spin", 0, 0, G_OPTION_ARG_NONE, &spin,
      N_("Busy-poll the receive (like sockperf --nonblocked): the link's floor"), NULL },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &iface, N_("Send from this interface"), N_("IF") },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file,
      N_("Prove the responder's access token read from FILE (serve --token-file)"), N_("FILE") },
    { "pairing-code", 0, 0, G_OPTION_ARG_STRING, &pairing_code,
      N_("Prove the pairing code the helper machine shows (serve --pairing-code); “-” reads it from standard input, out of the process list"), N_("CODE") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { "under-load", 0, 0, G_OPTION_ARG_NONE, &load.under_load,
      N_("Measure on the idle link, then while the bandwidth test saturates it both ways"), NULL },
    QF_CLI_LOAD_ENTRIES (load),
    { "interval-ms", 0, 0, G_OPTION_ARG_DOUBLE, &interval_ms,
      N_("At most one exchange per MS milliseconds, as sockperf --mps (default: back to back; "
         "with --under-load 10 in both phases)"), N_("MS") },
    { NULL }
  };

  if (!qf_cli_parse_options ("latency", "HOST",
                             _("Measure socket ping-pong latency to `qualify-cli serve` or "
                               "`sockperf sr`, like sockperf pp (the procedure runs sockperf pp "
                               "--tcp -t 30 -m 14)."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc < 2)
    return qf_cli_errorf ("latency", _("give the address of the peer, e.g. qualify-cli latency 192.168.1.2"));
  if (argc > 2)
    return qf_cli_errorf ("latency", _("unexpected argument “%s”"), argv[2]);
  if (tcp && udp)
    return qf_cli_errorf ("latency", _("choose --tcp or --udp, not both"));
  if (load.under_load && (spin || full_rtt))
    return qf_cli_errorf ("latency", _("--under-load measures with blocking receive and one-way "
                                       "figures: leave out --spin and --full-rtt"));
  if (time_s < 0)
    time_s = load.under_load ? 10 : 30;
  if (interval_ms < 0)
    interval_ms = load.under_load ? 10 : 0;
  if (interval_ms > 1000)
    return qf_cli_errorf ("latency", _("--interval-ms takes 0 to 1000"));
  json_object_set_double_member (params, "interval_ms", interval_ms);

  json_object_set_string_member (params, "host", argv[1]);
  json_object_set_int_member (params, "port", port);
  json_object_set_string_member (params, "protocol", udp ? "udp" : "tcp");
  json_object_set_int_member (params, "msg_size", msg_size);
  if (load.under_load)
    {
      json_object_set_double_member (params, "idle_time_s", time_s);
      json_object_set_double_member (params, "loaded_time_s", time_s);
      qf_cli_load_params (&load, "load_port", params);
    }
  else
    {
      json_object_set_double_member (params, "time_s", time_s);
      json_object_set_boolean_member (params, "full_rtt", full_rtt);
      json_object_set_boolean_member (params, "spin", spin);
    }
  if (iface != NULL)
    json_object_set_string_member (params, "iface", iface);
  if (qf_cli_client_token ("latency", token_file, &pairing_code, &token) != QF_CLI_EXIT_OK)
    return QF_CLI_EXIT_ERROR;
  ctx.token = token;
  if (token_file != NULL)
    json_object_set_string_member (params, "token_file", token_file);

  if (!json && load.under_load)
    g_printerr (_("%s ping-pong to %s port %d, %d-byte messages: %g s on the idle link, then "
                  "%g s under load (%s both ways)\n"),
                udp ? "UDP" : "TCP", argv[1], port, msg_size, time_s, time_s,
                load.load != NULL ? load.load : "tcp");
  else if (!json)
    g_printerr (_("%s ping-pong to %s port %d, %d-byte messages, %g s (+0.45 s warm-up and "
                  "cool-down), %s receive\n"),
                udp ? "UDP" : "TCP", argv[1], port, msg_size, time_s,
                spin ? _("busy-polling") : _("blocking"));
  ok = qf_cli_step_run (load.under_load ? &qf_step_loaded_latency : &qf_step_latency, params,
                        &ctx, &result, &error);
  if (json && result != NULL)
    qf_cli_print_json (result);
  else if (result != NULL && load.under_load)
    qf_cli_load_print_loaded (result);
  else if (result != NULL)
    print_summary (result);
  if (!ok)
    return qf_cli_error ("latency", error);
  return QF_CLI_EXIT_OK;
}
