/* qf-step-cycle.c — the "cycle" step: a robot-control-shaped UDP request/response loop against
 * our responder (src/core). No classic tool measures this.
 *
 * Params (all optional): host (default: the context's peer), iface, port (11111), rate_hz (1000;
 * the procedure's robots also run at 500), time_s (10), token_file (the responder's access token,
 * `serve --token-file`; only the path is stored), trace (record the kernel's trace and explain
 * the slowest round trips, qf-step-trace.h), trace_threshold_us.
 * Result: the `qualify-cli cycle --json` object. Samples: RTT ns per reply, flags 1 when that
 * cycle missed its deadline. A stop request is honoured within one period + 0.5 s.
 */
#include "config.h"

#include "qf-cycle.h"
#include "qf-step-net-private.h"
#include "qf-step-trace.h"
#include "qf-steps.h"

static void
on_progress (gdouble  fraction,
             guint64  cycles,
             guint64  misses,
             gpointer user_data)
{
  QfStepContext *ctx = user_data;
  g_autoptr(JsonObject) live = json_object_new ();

  if (ctx == NULL || ctx->progress == NULL)
    return;
  json_object_set_int_member (live, "cycles", (gint64) cycles);
  ctx->progress (ctx, fraction, live, ctx->user_data);
}

static gdouble
us (gint64 ns)
{
  return _qf_step_net_round3 (ns / 1000.0);
}

static JsonObject *
build_result (const QfCycleConfig *config,
              const QfCycleResult *r)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "test", "cycle");
  json_object_set_string_member (obj, "host", config->host);
  json_object_set_int_member (obj, "port", config->port ? config->port : 11111);
  json_object_set_int_member (obj, "rate_hz", r->rate_hz);
  json_object_set_double_member (obj, "period_us", 1e6 / r->rate_hz);
  json_object_set_double_member (obj, "time_s", config->time_s);
  json_object_set_int_member (obj, "cycles", (gint64) r->cycles);
  json_object_set_int_member (obj, "replies", (gint64) r->replies);
  json_object_set_int_member (obj, "misses", (gint64) r->misses);
  json_object_set_double_member (obj, "miss_pct",
                                 r->cycles ? _qf_step_net_round3 (100.0 * r->misses / r->cycles) : 0);
  json_object_set_int_member (obj, "late", (gint64) r->late);
  json_object_set_int_member (obj, "longest_miss_burst", (gint64) r->longest_miss_burst);
  json_object_set_int_member (obj, "lost", (gint64) r->lost);
  json_object_set_int_member (obj, "duplicates", (gint64) r->duplicates);
  json_object_set_int_member (obj, "send_overruns", (gint64) r->send_overruns);
  if (r->replies > 0)
    {
      json_object_set_double_member (obj, "avg_rtt_us", us (r->avg_rtt_ns));
      json_object_set_double_member (obj, "p50_rtt_us", us (r->p50_rtt_ns));
      json_object_set_double_member (obj, "p99_rtt_us", us (r->p99_rtt_ns));
      json_object_set_double_member (obj, "p999_rtt_us", us (r->p999_rtt_ns));
      json_object_set_double_member (obj, "min_rtt_us", us (r->min_rtt_ns));
      json_object_set_double_member (obj, "max_rtt_us", us (r->max_rtt_ns));
    }
  return obj;
}

static gboolean
cycle_run (JsonObject     *params,
           QfStepContext  *ctx,
           JsonObject    **result,
           GError        **error)
{
  g_autoptr(QfCycleTest) test = NULL;
  QfCycleConfig config = { 0 };
  g_autoptr(GBytes) token = NULL;
  QfCycleResult r;
  QfStepTrace *trace;
  GError *net_error = NULL;
  gint64 port, rate_hz;
  gboolean ok;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;

  if (!_qf_step_net_host (params, ctx, &config.host, error) ||
      !_qf_step_net_iface (params, ctx, &config.iface, error) ||
      !qf_step_param_int (params, "port", 11111, 1, 65535, &port, error) ||
      !qf_step_param_int (params, "rate_hz", 1000, 1, 10000, &rate_hz, error) ||
      !qf_step_param_double (params, "time_s", 10, 0.01, 86400, &config.time_s, error) ||
      !_qf_step_net_token (params, ctx, &token, error))
    return FALSE;
  config.token = token;
  config.port = (guint16) port;
  config.rate_hz = (guint) rate_hz;

  trace = qf_step_trace_start (params, NULL, 0);
  config.marks = qf_step_trace_marks (trace);
  test = qf_cycle_test_new (&config, &net_error);
  if (test == NULL)
    {
      qf_step_trace_finish (trace, &qf_step_cycle, 120, NULL);
      _qf_step_net_propagate (error, net_error);
      return FALSE;
    }
  ok = qf_cycle_test_run (test, ctx != NULL ? ctx->samples : NULL,
                          ctx != NULL ? ctx->cancel : NULL, on_progress, ctx, &r, &net_error);
  *result = build_result (&config, &r);
  qf_step_trace_finish (trace, &qf_step_cycle, 120, *result);
  if (!ok)
    _qf_step_net_propagate (error, net_error);
  return ok;
}

/* No classic tool runs a control cycle: the empty string says so. */
static char *
cycle_classic (JsonObject *params,
               const char *peer)
{
  return g_strdup ("");
}

static gdouble
cycle_duration (JsonObject *params)
{
  gdouble time_s = 10;

  qf_step_param_double (params, "time_s", 10, 0.01, 86400, &time_s, NULL);
  return time_s + 0.5;
}

static const QfStepFigure cycle_figures[] = {
  { "avg_rtt_us", N_("Average round trip"), "µs" },
  { "min_rtt_us", N_("Minimum round trip"), "µs" },
  { "max_rtt_us", N_("Maximum round trip"), "µs" },
  { "p50_rtt_us", N_("Median round trip"), "µs" },
  { "p99_rtt_us", N_("99th percentile round trip"), "µs" },
  { "p999_rtt_us", N_("99.9th percentile round trip"), "µs" },
  { "cycles", N_("Cycles"), NULL },
  { "replies", N_("Replies"), NULL },
  { "misses", N_("Missed cycles"), NULL },
  { "miss_pct", N_("Missed cycles"), "%" },
  { "late", N_("Late replies"), NULL },
  { "longest_miss_burst", N_("Longest run of missed cycles"), NULL },
  { "lost", N_("Lost"), NULL },
  { "duplicates", N_("Duplicates"), NULL },
  { "send_overruns", N_("Cycles sent late"), NULL },
  { "rate_hz", N_("Cycle rate"), "Hz" },
  { "period_us", N_("Cycle period"), "µs" },
  { "time_s", N_("Duration"), "s" },
  { "port", N_("Port"), NULL },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "latency_causes", N_("Why it was slow"), NULL, QF_FIGURE_HIDDEN },
  { "trace", N_("Kernel trace"), NULL, QF_FIGURE_HIDDEN },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

/* Its parameters. */
static const QfStepFigure cycle_params[] = {
  { "rate_hz", N_("Cycle rate"), "Hz" },
  { "period_us", N_("Cycle period"), "µs" },
  { "time_s", N_("Duration"), "s" },
  { "port", N_("Port"), NULL },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "iface", N_("Network interface"), NULL, QF_FIGURE_TEXT },
  { "token_file", N_("Access token file"), NULL, QF_FIGURE_TEXT },
  { "trace", N_("Kernel trace recorded"), NULL },
  { "trace_threshold_us", N_("Trace mark threshold"), "µs" },
  { "trace_spikes", N_("Worst spikes explained"), NULL },
  { NULL }
};

const QfStepInfo qf_step_cycle = {
  .id = "cycle",
  .title = N_("Control cycle"),
  .description = N_("A periodic control cycle exchanged with the helper machine, as a robot controller runs it."),
  .peer_service = QF_PEER_SERVICE_LATENCY,
  .measures = QF_STEP_MEASURES_NET_LATENCY,
  .run = cycle_run,
  .classic_command = cycle_classic,
  .estimate_duration = cycle_duration,
  .plot = {
    .unit = "µs", .axis = N_("Round trip (µs)"), .unit_ns = 1000, .histogram = TRUE,
    .channels = { N_("Round trip"), NULL },
  },
  .figures = cycle_figures,
  .params = cycle_params,
  .spikes = QF_STEP_SPIKES_ROUND_TRIP,
};
