/* qf-step-latency.c — the "latency" step: socket ping-pong against `sockperf sr` or our responder,
 * as the procedure's `sockperf pp -i PC --tcp -t 30 -m 14` (src/core).
 *
 * Params (all optional): host (default: the context's peer), iface, port (11111), protocol
 * ("tcp" or "udp"; "tcp"), time_s (30), msg_size (14), full_rtt (false: half the round trip, as
 * sockperf reports), spin (false: blocking receive, sockperf's default and the way the standard
 * value was obtained; true: busy-polling, the link's floor), interval_ms (0: each request as soon
 * as the last reply is in, as sockperf; else at most one per interval, as --mps), token_file (the responder's access
 * token, `serve --token-file`; only the path is stored).
 * Result: the `qualify-cli latency --json` object; "mode" always says which mode measured it and
 * "one_way" whether the figures are half round trips. A stop request is honoured within 100 ms.
 */
#include "config.h"

#include "qf-sockperf.h"
#include "qf-step-net-private.h"
#include "qf-steps.h"

static const char *const percentile_keys[QF_SOCKPERF_N_PERCENTILES] = {
  "p25_us", "p50_us", "p75_us", "p90_us", "p99_us", "p999_us", "p9999_us", "p99999_us",
};

static void
on_progress (gdouble  fraction,
             guint64  received,
             gint64   last_ns,
             gpointer user_data)
{
  QfStepContext *ctx = user_data;
  g_autoptr(JsonObject) live = json_object_new ();

  if (ctx == NULL || ctx->progress == NULL)
    return;
  json_object_set_int_member (live, "received", (gint64) received);
  json_object_set_double_member (live, "last_us", _qf_step_net_round3 (last_ns / 1000.0));
  ctx->progress (ctx, fraction, live, ctx->user_data);
}

static gdouble
us (gint64 ns)
{
  return _qf_step_net_round3 (ns / 1000.0);
}

static JsonObject *
build_result (const QfSockperfConfig *config,
              const QfSockperfResult *r)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "test", "latency");
  json_object_set_string_member (obj, "host", config->host);
  json_object_set_int_member (obj, "port", config->port ? config->port : QF_SOCKPERF_DEFAULT_PORT);
  json_object_set_string_member (obj, "protocol", config->protocol == QF_SOCKPERF_UDP ? "udp" : "tcp");
  json_object_set_string_member (obj, "mode", config->spin ? "spin" : "blocking");
  json_object_set_int_member (obj, "msg_size", config->msg_size);
  json_object_set_boolean_member (obj, "one_way", !config->full_rtt);
  json_object_set_double_member (obj, "time_s", config->time_s);
  if (config->interval_ns > 0)
    json_object_set_double_member (obj, "interval_ms", config->interval_ns / 1e6);
  json_object_set_int_member (obj, "sent", (gint64) r->sent);
  json_object_set_int_member (obj, "samples", (gint64) r->samples);
  json_object_set_double_member (obj, "valid_run_time_s", _qf_step_net_round3 (r->valid_run_time_s));
  if (r->samples > 0)
    {
      json_object_set_double_member (obj, "avg_us", us (r->avg_ns));
      json_object_set_double_member (obj, "stddev_us", us (r->stddev_ns));
      for (guint p = 0; p < QF_SOCKPERF_N_PERCENTILES; p++)
        if (r->percentile_valid[p])
          json_object_set_double_member (obj, percentile_keys[p], us (r->percentile_ns[p]));
      json_object_set_double_member (obj, "min_us", us (r->min_ns));
      json_object_set_double_member (obj, "max_us", us (r->max_ns));
    }
  json_object_set_int_member (obj, "dropped", (gint64) r->dropped);
  json_object_set_int_member (obj, "out_of_order", (gint64) r->out_of_order);
  json_object_set_int_member (obj, "duplicates", (gint64) r->duplicates);
  return obj;
}

static gboolean
parse_config (JsonObject        *params,
              QfStepContext     *ctx,
              QfSockperfConfig  *config,
              GError           **error)
{
  const char *protocol;
  gint64 port, msg_size;
  gdouble time_s, interval_ms;
  gboolean full_rtt, spin;

  if (!_qf_step_net_host (params, ctx, &config->host, error) ||
      !_qf_step_net_iface (params, ctx, &config->iface, error) ||
      !qf_step_param_int (params, "port", QF_SOCKPERF_DEFAULT_PORT, 1, 65535, &port, error) ||
      !qf_step_param_string (params, "protocol", "tcp", &protocol, error) ||
      !qf_step_param_double (params, "time_s", 30, 0.1, 3600, &time_s, error) ||
      !qf_step_param_bool (params, "full_rtt", FALSE, &full_rtt, error) ||
      !qf_step_param_bool (params, "spin", FALSE, &spin, error) ||
      !qf_step_param_double (params, "interval_ms", 0, 0, 1000, &interval_ms, error))
    return FALSE;
  if (g_ascii_strcasecmp (protocol, "tcp") == 0)
    config->protocol = QF_SOCKPERF_TCP;
  else if (g_ascii_strcasecmp (protocol, "udp") == 0)
    config->protocol = QF_SOCKPERF_UDP;
  else
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “protocol”: expected \"tcp\" or \"udp\", got \"%s\""), protocol);
      return FALSE;
    }
  if (!qf_step_param_int (params, "msg_size", QF_SOCKPERF_MIN_MSG_SIZE, QF_SOCKPERF_MIN_MSG_SIZE,
                          config->protocol == QF_SOCKPERF_UDP ? QF_SOCKPERF_MAX_UDP_MSG_SIZE
                                                              : QF_SOCKPERF_MAX_TCP_MSG_SIZE,
                          &msg_size, error))
    return FALSE;
  config->port = (guint16) port;
  config->msg_size = (guint) msg_size;
  config->time_s = time_s;
  config->full_rtt = full_rtt;
  config->spin = spin;
  config->interval_ns = (gint64) (interval_ms * 1e6);
  return TRUE;
}

static gboolean
latency_run (JsonObject     *params,
             QfStepContext  *ctx,
             JsonObject    **result,
             GError        **error)
{
  g_autoptr(QfSockperfClient) client = NULL;
  g_autoptr(GBytes) token = NULL;
  QfSockperfConfig config = { 0 };
  QfSockperfResult r;
  GError *net_error = NULL;
  gboolean ok;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;

  if (!parse_config (params, ctx, &config, error) || !_qf_step_net_token (params, ctx, &token, error))
    return FALSE;
  config.token = token;
  client = qf_sockperf_client_new (&config, &net_error);
  if (client == NULL)
    {
      _qf_step_net_propagate (error, net_error);
      return FALSE;
    }
  ok = qf_sockperf_client_run (client, ctx != NULL ? ctx->samples : NULL,
                               ctx != NULL ? ctx->cancel : NULL, on_progress, ctx, &r, &net_error);
  /* A partial result when something was measured or the run was stopped; none when the peer
   * could not be reached at all. */
  if (ok || r.sent > 0 || g_error_matches (net_error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED))
    *result = build_result (&config, &r);
  if (!ok)
    _qf_step_net_propagate (error, net_error);
  return ok;
}

static char *
latency_classic (JsonObject *params,
                 const char *peer)
{
  QfSockperfConfig config = { 0 };
  QfStepContext ctx = { .peer = peer != NULL ? peer : "PEER" };
  GString *cmd;

  if (!parse_config (params, &ctx, &config, NULL))
    return g_strdup ("sockperf pp -i PEER --tcp -t 30 -m 14");
  cmd = g_string_new ("sockperf pp");
  g_string_append_printf (cmd, " -i %s", config.host);
  if (config.port != QF_SOCKPERF_DEFAULT_PORT)
    g_string_append_printf (cmd, " -p %u", config.port);
  if (config.protocol == QF_SOCKPERF_TCP)
    g_string_append (cmd, " --tcp");
  g_string_append_printf (cmd, " -t %g -m %u", config.time_s, config.msg_size);
  if (config.full_rtt)
    g_string_append (cmd, " --full-rtt");
  if (config.spin)
    g_string_append (cmd, " --nonblocked");
  if (config.interval_ns > 0)
    g_string_append_printf (cmd, " --mps=%.0f", 1e9 / config.interval_ns);
  return g_string_free (cmd, FALSE);
}

static gdouble
latency_duration (JsonObject *params)
{
  gdouble time_s = 30;

  qf_step_param_double (params, "time_s", 30, 0.1, 3600, &time_s, NULL);
  return time_s + (QF_SOCKPERF_WARMUP_MS + QF_SOCKPERF_COOLDOWN_MS) / 1000.0;
}

static const QfStepFigure latency_figures[] = {
  { "min_us", N_("Minimum"), "µs" },
  { "avg_us", N_("Average"), "µs" },
  { "max_us", N_("Maximum"), "µs" },
  { "stddev_us", N_("Standard deviation"), "µs" },
  { "p25_us", N_("25th percentile"), "µs" },
  { "p50_us", N_("Median"), "µs" },
  { "p75_us", N_("75th percentile"), "µs" },
  { "p90_us", N_("90th percentile"), "µs" },
  { "p99_us", N_("99th percentile"), "µs" },
  { "p999_us", N_("99.9th percentile"), "µs" },
  { "p9999_us", N_("99.99th percentile"), "µs" },
  { "p99999_us", N_("99.999th percentile"), "µs" },
  { "samples", N_("Samples"), NULL },
  { "sent", N_("Sent"), NULL },
  { "received", N_("Received"), NULL },
  { "dropped", N_("Dropped"), NULL },
  { "out_of_order", N_("Out of order"), NULL },
  { "duplicates", N_("Duplicates"), NULL },
  { "time_s", N_("Duration"), "s" },
  { "interval_ms", N_("Interval between exchanges"), "ms" },
  { "valid_run_time_s", N_("Measured time"), "s" },
  { "msg_size", N_("Message size"), NULL, QF_FIGURE_BYTES },
  { "port", N_("Port"), NULL },
  { "protocol", N_("Protocol"), NULL, QF_FIGURE_WORD },
  { "mode", N_("Waiting for replies"), NULL, QF_FIGURE_WORD },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

/* Its parameters. */
static const QfStepFigure latency_params[] = {
  { "protocol", N_("Protocol"), NULL, QF_FIGURE_WORD },
  { "msg_size", N_("Message size"), NULL, QF_FIGURE_BYTES },
  { "time_s", N_("Duration"), "s" },
  { "port", N_("Port"), NULL },
  { "full_rtt", N_("Full round trip"), NULL },
  { "spin", N_("Busy polling"), NULL },
  { "interval_ms", N_("Interval between exchanges"), "ms" },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "iface", N_("Network interface"), NULL, QF_FIGURE_TEXT },
  { "token_file", N_("Access token file"), NULL, QF_FIGURE_TEXT },
  { NULL }
};

const QfStepInfo qf_step_latency = {
  .id = "latency",
  .title = N_("Socket latency (sockperf ping-pong)"),
  .description = N_("Round-trip latency of small messages over a socket to the helper machine (like sockperf ping-pong)."),
  .peer_service = QF_PEER_SERVICE_LATENCY,
  .measures = QF_STEP_MEASURES_NET_LATENCY,
  .run = latency_run,
  .classic_command = latency_classic,
  .estimate_duration = latency_duration,
  .plot = {
    .unit = "µs", .axis = N_("Latency (µs)"), .unit_ns = 1000, .histogram = TRUE,
    .channels = { N_("Half round trip"), NULL },
  },
  .figures = latency_figures,
  .params = latency_params,
};
