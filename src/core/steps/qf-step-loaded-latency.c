/* qf-step-loaded-latency.c — the "loaded-latency" step: latency on the idle link, then while the
 * bandwidth test saturates it in both directions against the same helper (src/core). What a
 * camera stream or a file copy does to the robot's link: a deep queue in a switch, a driver or
 * this PC's qdisc ("bufferbloat") adds its length to every exchange.
 *
 * Params (all optional): host (default: the context's peer), iface, port (the latency port,
 * 11111), probe (the step whose measurement runs: "latency", sockperf's ping-pong, the
 * procedure's 14-byte TCP exchange; or "cycle", the control cycle), protocol ("tcp" or "udp", ping-pong), msg_size (14), rate_hz
 * (1000, cycle), interval_ms (10: the ping-pong's pace, at most one exchange per interval in
 * both phases, as sockperf --mps=100; 0 = back to back), idle_time_s (10), loaded_time_s (10),
 * token_file, and the load's (load,
 * load_port, load_streams, settle_s: qf-step-netload.h).
 * Result: {"idle": {…}, "loaded": {…}, "added_us", "load": {…}}, each phase with avg_us, p50_us,
 * p99_us, p999_us, max_us, min_us and loss_pct as one-way figures (half the round trip, as
 * sockperf reports them). The TCP exchange is blocking: each request waits for its own reply,
 * so a full queue times as its true round trip. It is paced: back to back, the exchanges crowd
 * into the moments a queue is empty (thousands of 10 µs exchanges in a millisecond against a
 * few of 40 ms in a second), so their median tells the empty queue, as sockperf pp's does
 * (docs/benchmarks.md); one per interval weighs each moment alike, as ping does. Samples: channel 0 idle, channel 1 loaded.
 * A stop request is honoured within a second.
 */
#include "config.h"

#include "qf-cycle.h"
#include "qf-json.h"
#include "qf-sockperf.h"
#include "qf-step-net-private.h"
#include "qf-step-netload.h"
#include "qf-steps.h"
#include "qf-text.h"

/* Each phase's distribution, drawn on one axis: 1 µs buckets up to 200 ms, the overflow beyond. */
#define HIST_BUCKET_NS  1000
#define HIST_BUCKETS    200000

/* A UDP reply later than this counts as lost: long enough for the queues met in practice, short
 * enough that a request lost to a full queue costs little of the phase. */
#define UDP_REPLY_TIMEOUT_NS  (500 * G_GINT64_CONSTANT (1000000))

typedef struct
{
  gboolean         cycle;
  QfSockperfConfig pingpong;
  QfCycleConfig    cyc;
  gdouble          idle_time_s;
  gdouble          loaded_time_s;
  QfStepNetLoad    load;
} Config;

typedef struct
{
  QfStepContext *ctx;
  const char    *phase;
  gdouble        from, span;
} Progress;

static void
config_clear (Config *c)
{
  _qf_step_netload_clear (&c->load);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Config, config_clear)

static void
report_progress (Progress *p,
                 gdouble   fraction,
                 gint64    last_ns)
{
  g_autoptr(JsonObject) live = json_object_new ();

  if (p->ctx == NULL || p->ctx->progress == NULL)
    return;
  json_object_set_string_member (live, "phase", p->phase);
  if (last_ns > 0)
    json_object_set_double_member (live, "last_us", _qf_step_net_round3 (last_ns / 1000.0));
  p->ctx->progress (p->ctx, p->from + fraction * p->span, live, p->ctx->user_data);
}

static void
on_pingpong_progress (gdouble fraction, guint64 received, gint64 last_ns, gpointer user_data)
{
  report_progress (user_data, fraction, last_ns);
}

static void
on_cycle_progress (gdouble fraction, guint64 cycles, guint64 misses, gpointer user_data)
{
  report_progress (user_data, fraction, 0);
}

static gdouble
us (gint64 ns)
{
  return _qf_step_net_round3 (ns / 1000.0);
}

static JsonObject *
pingpong_phase (const QfSockperfResult *r,
                gdouble                 time_s)
{
  JsonObject *obj = json_object_new ();

  json_object_set_double_member (obj, "time_s", time_s);
  json_object_set_int_member (obj, "sent", (gint64) r->valid_sent);
  json_object_set_int_member (obj, "samples", (gint64) r->samples);
  json_object_set_int_member (obj, "dropped", (gint64) r->dropped);
  json_object_set_double_member (obj, "loss_pct", r->valid_sent > 0
                                 ? _qf_step_net_round3 (100.0 * r->dropped / r->valid_sent) : 0);
  if (r->samples == 0)
    return obj;
  json_object_set_double_member (obj, "avg_us", us (r->avg_ns));
  json_object_set_double_member (obj, "stddev_us", us (r->stddev_ns));
  json_object_set_double_member (obj, "min_us", us (r->min_ns));
  json_object_set_double_member (obj, "p50_us", us (r->percentile_ns[QF_SOCKPERF_P50]));
  json_object_set_double_member (obj, "p99_us", us (r->percentile_ns[QF_SOCKPERF_P99]));
  json_object_set_double_member (obj, "p999_us", us (r->percentile_ns[QF_SOCKPERF_P999]));
  json_object_set_double_member (obj, "max_us", us (r->max_ns));
  return obj;
}

/* The cycle's round trips halved, so both probes report one-way figures. */
static JsonObject *
cycle_phase (const QfCycleResult *r,
             gdouble              time_s)
{
  JsonObject *obj = json_object_new ();

  json_object_set_double_member (obj, "time_s", time_s);
  json_object_set_int_member (obj, "sent", (gint64) r->cycles);
  json_object_set_int_member (obj, "samples", (gint64) r->replies);
  json_object_set_int_member (obj, "dropped", (gint64) r->lost);
  json_object_set_double_member (obj, "loss_pct", r->cycles > 0
                                 ? _qf_step_net_round3 (100.0 * r->lost / r->cycles) : 0);
  json_object_set_int_member (obj, "misses", (gint64) r->misses);
  json_object_set_double_member (obj, "miss_pct", r->cycles > 0
                                 ? _qf_step_net_round3 (100.0 * r->misses / r->cycles) : 0);
  if (r->replies == 0)
    return obj;
  json_object_set_double_member (obj, "avg_us", us (r->avg_rtt_ns / 2));
  json_object_set_double_member (obj, "min_us", us (r->min_rtt_ns / 2));
  json_object_set_double_member (obj, "p50_us", us (r->p50_rtt_ns / 2));
  json_object_set_double_member (obj, "p99_us", us (r->p99_rtt_ns / 2));
  json_object_set_double_member (obj, "p999_us", us (r->p999_rtt_ns / 2));
  json_object_set_double_member (obj, "max_us", us (r->max_rtt_ns / 2));
  return obj;
}

/* One phase of the probe; *phase gets its figures when anything was measured. */
static gboolean
run_phase (Config         *c,
           QfStepContext  *ctx,
           gboolean        loaded,
           Progress       *progress,
           JsonObject    **phase,
           GError        **error)
{
  QfRing *ring = ctx != NULL ? ctx->samples : NULL;
  const gint *cancel = ctx != NULL ? ctx->cancel : NULL;
  gdouble time_s = loaded ? c->loaded_time_s : c->idle_time_s;
  QfHistogram *hist = qf_histogram_new (HIST_BUCKET_NS, HIST_BUCKETS);
  GError *net_error = NULL;
  gboolean ok;

  *phase = NULL;
  c->pingpong.histogram = hist;
  c->cyc.histogram = hist;
  if (c->cycle)
    {
      g_autoptr(QfCycleTest) test = NULL;
      QfCycleResult r;

      c->cyc.time_s = time_s;
      c->cyc.ring_channel = loaded ? 1 : 0;
      test = qf_cycle_test_new (&c->cyc, &net_error);
      ok = test != NULL && qf_cycle_test_run (test, ring, cancel, on_cycle_progress, progress,
                                              &r, &net_error);
      if (test != NULL && r.cycles > 0)
        *phase = cycle_phase (&r, time_s);
    }
  else
    {
      g_autoptr(QfSockperfClient) client = NULL;
      QfSockperfResult r;

      c->pingpong.time_s = time_s;
      c->pingpong.ring_channel = loaded ? 1 : 0;
      client = qf_sockperf_client_new (&c->pingpong, &net_error);
      ok = client != NULL && qf_sockperf_client_run (client, ring, cancel, on_pingpong_progress,
                                                     progress, &r, &net_error);
      if (client != NULL && r.sent > 0)
        *phase = pingpong_phase (&r, time_s);
    }
  if (*phase != NULL && hist->count > 0)
    json_object_set_object_member (*phase, "histogram", qf_step_histogram_to_json (hist));
  qf_histogram_free (hist);
  c->pingpong.histogram = NULL;
  c->cyc.histogram = NULL;
  if (!ok)
    _qf_step_net_propagate (error, net_error);
  return ok;
}

static gboolean
parse_probe (JsonObject     *params,
             QfStepContext  *ctx,
             Config         *c,
             GError        **error)
{
  const char *host, *iface, *probe, *protocol;
  gint64 port, msg_size, rate_hz;
  gdouble interval_ms;

  if (!_qf_step_net_host (params, ctx, &host, error)
      || !_qf_step_net_iface (params, ctx, &iface, error)
      || !qf_step_param_int (params, "port", QF_SOCKPERF_DEFAULT_PORT, 1, 65535, &port, error)
      || !qf_step_param_string (params, "probe", qf_step_latency.id, &probe, error)
      || !qf_step_param_string (params, "protocol", "tcp", &protocol, error)
      || !qf_step_param_int (params, "msg_size", QF_SOCKPERF_MIN_MSG_SIZE,
                             QF_SOCKPERF_MIN_MSG_SIZE, 65507, &msg_size, error)
      || !qf_step_param_int (params, "rate_hz", 1000, 1, 10000, &rate_hz, error)
      || !qf_step_param_double (params, "interval_ms", 10, 0, 1000, &interval_ms, error)
      || !qf_step_param_double (params, "idle_time_s", 10, 0.1, 3600, &c->idle_time_s, error)
      || !qf_step_param_double (params, "loaded_time_s", 10, 0.1, 3600, &c->loaded_time_s, error))
    return FALSE;
  if (!g_str_equal (probe, qf_step_latency.id) && !g_str_equal (probe, qf_step_cycle.id))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: expected “%s” or “%s”, got “%s”"), "probe",
                   qf_step_latency.id, qf_step_cycle.id, probe);
      return FALSE;
    }
  if (g_ascii_strcasecmp (protocol, "tcp") != 0 && g_ascii_strcasecmp (protocol, "udp") != 0)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: expected “tcp” or “udp”, got “%s”"), "protocol", protocol);
      return FALSE;
    }
  c->cycle = g_str_equal (probe, qf_step_cycle.id);
  c->pingpong = (QfSockperfConfig) {
    .host = host, .port = (guint16) port, .iface = iface, .msg_size = (guint) msg_size,
    .protocol = g_ascii_strcasecmp (protocol, "udp") == 0 ? QF_SOCKPERF_UDP : QF_SOCKPERF_TCP,
    .reply_timeout_ns = UDP_REPLY_TIMEOUT_NS, .interval_ns = (gint64) (interval_ms * 1e6),
  };
  c->cyc = (QfCycleConfig) { .host = host, .port = (guint16) port, .iface = iface,
                             .rate_hz = (guint) rate_hz };
  return TRUE;
}

static JsonObject *
build_result (const Config *c,
              JsonObject   *idle,
              JsonObject   *loaded,
              JsonObject   *load)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "test", "loaded-latency");
  json_object_set_string_member (obj, "host", c->pingpong.host);
  json_object_set_int_member (obj, "port", c->pingpong.port);
  json_object_set_string_member (obj, "probe", c->cycle ? qf_step_cycle.id : qf_step_latency.id);
  if (c->cycle)
    json_object_set_int_member (obj, "rate_hz", c->cyc.rate_hz);
  else
    {
      json_object_set_string_member (obj, "protocol",
                                     c->pingpong.protocol == QF_SOCKPERF_UDP ? "udp" : "tcp");
      json_object_set_int_member (obj, "msg_size", c->pingpong.msg_size);
      json_object_set_double_member (obj, "interval_ms", c->pingpong.interval_ns / 1e6);
    }
  json_object_set_boolean_member (obj, "one_way", TRUE);
  if (idle != NULL)
    json_object_set_object_member (obj, "idle", idle);
  if (loaded != NULL)
    json_object_set_object_member (obj, "loaded", loaded);
  if (idle != NULL && loaded != NULL && json_object_has_member (idle, "p50_us")
      && json_object_has_member (loaded, "p50_us"))
    json_object_set_double_member (obj, "added_us",
                                   _qf_step_net_round3 (json_object_get_double_member (loaded, "p50_us")
                                                        - json_object_get_double_member (idle, "p50_us")));
  if (load != NULL)
    json_object_set_object_member (obj, "load", load);
  return obj;
}

/* The loaded phase: the load started, the probe run while it lasts, the load stopped. */
static gboolean
run_loaded (Config         *c,
            QfStepContext  *ctx,
            Progress       *progress,
            JsonObject    **loaded,
            JsonObject    **load,
            GError        **error)
{
  GError *load_error = NULL;
  QfNetLoad *running;
  gboolean ok;

  *loaded = NULL;
  *load = NULL;
  running = _qf_step_netload_start (&c->load, c->loaded_time_s + 1, ctx, error);
  if (running == NULL)
    return FALSE;
  ok = run_phase (c, ctx, TRUE, progress, loaded, error);
  *load = _qf_step_netload_stop (&c->load, running, &load_error);
  if (ok && load_error != NULL)
    {
      g_propagate_prefixed_error (error, load_error,
                                  _("The loaded figures are not valid: the load stopped during "
                                    "the measurement: "));
      return FALSE;
    }
  g_clear_error (&load_error);
  return ok;
}

static gboolean
loaded_latency_run (JsonObject     *params,
                    QfStepContext  *ctx,
                    JsonObject    **result,
                    GError        **error)
{
  g_auto(Config) c = { 0 };
  g_autoptr(GBytes) token = NULL;
  JsonObject *idle = NULL, *loaded = NULL, *load = NULL;
  Progress progress = { ctx, "idle", 0, 0 };
  gdouble total;
  gboolean ok;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;

  if (!parse_probe (params, ctx, &c, error) || !_qf_step_net_token (params, ctx, &token, error)
      || !_qf_step_netload_config (params, ctx, c.pingpong.host, "load_port", token, &c.load,
                                   error))
    return FALSE;
  c.pingpong.token = token;
  c.cyc.token = token;
  total = c.idle_time_s + c.loaded_time_s + c.load.settle_s;
  progress.span = c.idle_time_s / total;
  ok = run_phase (&c, ctx, FALSE, &progress, &idle, error);
  if (ok)
    {
      progress = (Progress) { ctx, "loaded", (c.idle_time_s + c.load.settle_s) / total,
                              c.loaded_time_s / total };
      ok = run_loaded (&c, ctx, &progress, &loaded, &load, error);
    }
  if (idle != NULL || loaded != NULL)
    *result = build_result (&c, idle, loaded, load);
  else if (load != NULL)
    json_object_unref (load);
  return ok;
}

static char *
loaded_latency_classic (JsonObject *params,
                        const char *peer)
{
  g_auto(Config) c = { 0 };
  QfStepContext ctx = { .peer = peer != NULL ? peer : "PEER" };
  g_autofree char *host = NULL;
  g_autofree char *load = NULL;
  g_autofree char *mps = NULL;

  if (!parse_probe (params, &ctx, &c, NULL)
      || !_qf_step_netload_config (params, &ctx, c.pingpong.host, "load_port", NULL, &c.load, NULL))
    return g_strdup ("sockperf pp -i PEER --tcp -m 14; iperf3 -c PEER --bidir & sockperf pp -i PEER --tcp -m 14");
  host = qf_text_shell_word (c.pingpong.host);
  load = _qf_step_netload_classic (&c.load);
  if (c.cycle)
    return g_steal_pointer (&load);
  mps = c.pingpong.interval_ns > 0
          ? g_strdup_printf (" --mps=%.0f", 1e9 / c.pingpong.interval_ns) : g_strdup ("");
  return g_strdup_printf ("sockperf pp -i %s%s -t %g -m %u%s; %s & sockperf pp -i %s%s -t %g -m %u%s",
                          host, c.pingpong.protocol == QF_SOCKPERF_TCP ? " --tcp" : "",
                          c.idle_time_s, c.pingpong.msg_size, mps, load,
                          host, c.pingpong.protocol == QF_SOCKPERF_TCP ? " --tcp" : "",
                          c.loaded_time_s, c.pingpong.msg_size, mps);
}

static gdouble
loaded_latency_duration (JsonObject *params)
{
  gdouble idle_s = 10, loaded_s = 10;

  qf_step_param_double (params, "idle_time_s", 10, 0.1, 3600, &idle_s, NULL);
  qf_step_param_double (params, "loaded_time_s", 10, 0.1, 3600, &loaded_s, NULL);
  return idle_s + loaded_s + 1.0 + _qf_step_netload_overhead_s (params);
}

/* A median this much above the idle one is a queue that grows with load. */
#define QUEUE_ADDED_US 1000.0

/* Where the queue is likely to sit, from this PC's queue facts (the load's "queue"). */
static char *
queue_whereabouts (JsonObject *queue)
{
  const char *qdisc = queue != NULL && json_object_has_member (queue, "default_qdisc")
                        ? json_object_get_string_member (queue, "default_qdisc") : NULL;
  g_autofree char *shown = qdisc != NULL ? qf_text_clean (qdisc, -1) : NULL;
  gboolean short_qdisc = qdisc != NULL && (g_str_equal (qdisc, "fq_codel")
                                           || g_str_equal (qdisc, "cake")
                                           || g_str_equal (qdisc, "fq"));

  if (qdisc == NULL)
    return g_strdup (_("this PC's queueing discipline could not be read, so the queue may sit on this PC or in the path"));
  if (short_qdisc && json_object_has_member (queue, "tx_ring"))
    return g_strdup_printf (_("this PC gives its interfaces %s, which keeps its own queue short, and its card's transmit ring holds %lld descriptors (at most %lld), so the queue most likely sits in the path: a switch or the helper's side"),
                            shown, (long long) json_object_get_int_member (queue, "tx_ring"),
                            (long long) json_object_get_int_member (queue, "tx_ring_max"));
  if (short_qdisc)
    return g_strdup_printf (_("this PC gives its interfaces %s, which keeps its own queue short, so the queue most likely sits in the path: a switch or the helper's side"),
                            shown);
  return g_strdup_printf (_("this PC gives its interfaces %s, a plain first-in first-out queue that lets a bulk transfer queue in front of every control message"),
                          shown);
}

static gboolean
loaded_latency_explain (JsonObject  *result,
                        char       **cause,
                        char       **fix)
{
  JsonObject *idle = qf_json_get_object (result, "idle");
  JsonObject *loaded = qf_json_get_object (result, "loaded");
  JsonObject *load = qf_json_get_object (result, "load");
  JsonObject *queue = qf_json_get_object (load, "queue");
  const char *iface = queue != NULL ? json_object_get_string_member (queue, "iface") : NULL;
  g_autofree char *word = qf_text_shell_word (iface != NULL ? iface : "IFACE");
  g_autofree char *where = NULL;
  gdouble added_us;

  if (idle == NULL || loaded == NULL || !json_object_has_member (result, "added_us"))
    return FALSE;
  added_us = json_object_get_double_member (result, "added_us");
  if (added_us < QUEUE_ADDED_US)
    return FALSE;
  where = queue_whereabouts (queue);
  *cause = g_strdup_printf (_("a queue that grows with load: the median one-way latency rose from %.0f µs on the idle link to %.1f ms while the bandwidth test ran (+%.1f ms), the time each message waited behind the load; %s"),
                            json_object_get_double_member (idle, "p50_us"),
                            json_object_get_double_member (loaded, "p50_us") / 1000,
                            added_us / 1000, where);
  *fix = g_strdup_printf (_("Keep queues short and the robot's messages first: give this PC fq_codel or cake (tc qdisc replace dev %s root fq_codel; with NetworkManager: nmcli connection modify \"$(nmcli -g GENERAL.CONNECTION device show %s)\" tc.qdiscs 'root fq_codel'), keep the card's transmit ring small so the byte queue limit holds the queue (ethtool -G %s tx 256), and put the robot on a link or VLAN of its own, or give its traffic priority in the switches (802.1p or DSCP), so a camera stream or a file copy never queues in front of it."),
                          word, word, word);
  return TRUE;
}

static const char *const phase_keys[] = { "idle", "loaded", NULL };

/* One phase's one-way figures, in the order a person reads them. */
static const QfStepFigure phase_figures[] = {
  { "p50_us", N_("Median"), "µs" },
  { "avg_us", N_("Average"), "µs" },
  { "p99_us", N_("99th percentile"), "µs" },
  { "p999_us", N_("99.9th percentile"), "µs" },
  { "max_us", N_("Maximum"), "µs" },
  { "min_us", N_("Minimum"), "µs" },
  { "stddev_us", N_("Standard deviation"), "µs" },
  { "loss_pct", N_("Loss"), "%" },
  { "miss_pct", N_("Missed cycles"), "%" },
  { "samples", N_("Samples"), NULL },
  { "time_s", N_("Duration"), "s" },
  { "histogram", N_("Distribution"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

static const QfStepFigure loaded_latency_figures[] = {
  { "idle", N_("On the idle link"), NULL, QF_FIGURE_OBJECT, phase_figures },
  { "loaded", N_("While the link is loaded"), NULL, QF_FIGURE_OBJECT, phase_figures },
  { "added_us", N_("Added by the load (median)"), "µs" },
  { "load", N_("Load on the link"), NULL, QF_FIGURE_OBJECT, _qf_step_netload_figures },
  { "probe", N_("Probe"), NULL, QF_FIGURE_WORD },
  { "protocol", N_("Protocol"), NULL, QF_FIGURE_WORD },
  { "msg_size", N_("Message size"), NULL, QF_FIGURE_BYTES },
  { "rate_hz", N_("Cycle rate"), "Hz" },
  { "interval_ms", N_("Interval between exchanges"), "ms" },
  { "one_way", N_("Half the round trip"), NULL, QF_FIGURE_HIDDEN },
  { "port", N_("Port"), NULL },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

static const QfStepFigure loaded_latency_params[] = {
  { "probe", N_("Probe"), NULL, QF_FIGURE_WORD },
  { "protocol", N_("Protocol"), NULL, QF_FIGURE_WORD },
  { "msg_size", N_("Message size"), NULL, QF_FIGURE_BYTES },
  { "rate_hz", N_("Cycle rate"), "Hz" },
  { "interval_ms", N_("Interval between exchanges"), "ms" },
  { "idle_time_s", N_("Idle phase"), "s" },
  { "loaded_time_s", N_("Loaded phase"), "s" },
  { "settle_s", N_("Load before measuring"), "s" },
  { "load", N_("Load on the link"), NULL, QF_FIGURE_TEXT },
  { "load_streams", N_("Load streams per direction"), NULL },
  { "load_port", N_("Bandwidth port"), NULL },
  { "port", N_("Port"), NULL },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "iface", N_("Network interface"), NULL, QF_FIGURE_TEXT },
  { "token_file", N_("Access token file"), NULL, QF_FIGURE_TEXT },
  { NULL }
};

const QfStepInfo qf_step_loaded_latency = {
  .id = "loaded-latency",
  .title = N_("Latency under load"),
  .description = N_("Socket latency to the helper machine on the idle link, then while the bandwidth test saturates it in both directions."),
  .peer_service = QF_PEER_SERVICE_LATENCY,
  .load_service = QF_PEER_SERVICE_BANDWIDTH,
  .measures = QF_STEP_MEASURES_NET_LATENCY,
  .run = loaded_latency_run,
  .classic_command = loaded_latency_classic,
  .estimate_duration = loaded_latency_duration,
  .plot = {
    .unit = "µs", .axis = N_("Latency (µs)"), .unit_ns = 1000, .histogram = TRUE,
    .channels = { N_("Idle link"), N_("Loaded link"), NULL },
    .phase_keys = phase_keys,
  },
  .figures = loaded_latency_figures,
  .params = loaded_latency_params,
  .explain = loaded_latency_explain,
};
