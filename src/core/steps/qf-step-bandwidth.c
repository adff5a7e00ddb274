/* qf-step-bandwidth.c — the "bandwidth" step: TCP/UDP throughput to the helper machine, as the
 * procedure's `iperf -c PEER -t 60 -d`, plus the interface rates `sar -n DEV 1` shows (src/core).
 *
 * Params (all optional; keys mirror `qualify-cli bandwidth`'s long options): host (default: the
 * context's peer), port (5201), protocol ("tcp" | "udp"), bitrate (bit/s per stream, a number
 * or text such as "100M"; 0 = TCP unlimited, UDP 1 Mbit/s), time_s (10), omit_s (0),
 * parallel (1), direction ("up" | "down" | "bidir"), len (bytes; 0 = from the MSS),
 * interval_s (1), iface (default: the context's, else the one the test uses), window (bytes),
 * nodelay, zerocopy, connect_timeout_s (5), stall_timeout_s (10), token_file (the responder's
 * access token, `serve --token-file`; only the path is stored).
 * Result: the `qualify-cli bandwidth --json` object. Progress: per interval, live = {t_s, mbps,
 * up_mbps, down_mbps, retransmits?, streams: [{id, direction, mbps}]}.
 * Samples: one per interval, value_ns = bit/s,
 * channel 0 = all streams, 1 = up, 2 = down (bidir). A stop request ends the run within 1 s;
 * a peer that vanishes fails with QF_STEP_ERROR_PEER and the intervals measured so far.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-bandwidth.h"
#include "qf-i18n.h"
#include "qf-step-bandwidth.h"
#include "qf-step-net-private.h"
#include "qf-steps.h"

gboolean
qf_step_bandwidth_parse_rate (const char *text,
                              guint64    *bps)
{
  return qf_bw_parse_rate (text, bps);
}

static gboolean
param_rate (JsonObject  *params,
            guint64     *bps,
            GError     **error)
{
  JsonNode *node = params != NULL && json_object_has_member (params, "bitrate")
                     ? json_object_get_member (params, "bitrate") : NULL;

  *bps = 0;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      if (qf_step_bandwidth_parse_rate (json_node_get_string (node), bps))
        return TRUE;
    }
  else
    {
      gint64 v;
      gdouble d;
      if (qf_step_param_double (params, "bitrate", 0, 0, 1e15, &d, NULL))
        {
          v = (gint64) d;
          *bps = (guint64) v;
          return TRUE;
        }
    }
  g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
               _("Parameter “%s”: expected bit/s as a number or text like “100M”"), "bitrate");
  return FALSE;
}

typedef struct
{
  QfStepContext *ctx;
  gdouble        time_s;
} Progress;

static void
on_interval (const QfBwInterval       *iv,
             const QfBwStreamInterval *streams,
             guint                     n_streams,
             gpointer                  user_data)
{
  Progress *p = user_data;
  g_autoptr(JsonObject) live = NULL;
  JsonArray *per_stream;

  if (p->ctx == NULL || p->ctx->progress == NULL)
    return;
  live = json_object_new ();
  json_object_set_double_member (live, "t_s", iv->t_s);
  json_object_set_double_member (live, "mbps", iv->mbps);
  json_object_set_double_member (live, "up_mbps", iv->up_mbps);
  json_object_set_double_member (live, "down_mbps", iv->down_mbps);
  if (iv->retransmits >= 0)
    json_object_set_int_member (live, "retransmits", iv->retransmits);
  per_stream = json_array_new ();
  for (guint i = 0; i < n_streams; i++)
    {
      JsonObject *o = json_object_new ();
      json_object_set_int_member (o, "id", streams[i].id);
      json_object_set_string_member (o, "direction", streams[i].sender ? "up" : "down");
      json_object_set_double_member (o, "mbps", streams[i].mbps);
      json_array_add_object_element (per_stream, o);
    }
  json_object_set_array_member (live, "streams", per_stream);
  p->ctx->progress (p->ctx, MIN (iv->t_s / p->time_s, 1.0), live, p->ctx->user_data);
}

static JsonObject *
build_result (const char       *host,
              const QfBwConfig *c,
              const QfBwResult *r)
{
  JsonObject *obj = json_object_new ();
  JsonArray *intervals = json_array_new ();
  gboolean udp = r->protocol == QF_BW_UDP;

  json_object_set_string_member (obj, "test", "bandwidth");
  json_object_set_string_member (obj, "host", host);
  json_object_set_int_member (obj, "port", c->port ? c->port : 5201);
  json_object_set_string_member (obj, "protocol", udp ? "udp" : "tcp");
  json_object_set_string_member (obj, "direction", qf_bw_direction_to_string (r->direction));
  json_object_set_int_member (obj, "streams", r->streams);
  json_object_set_int_member (obj, "len", r->len);
  json_object_set_double_member (obj, "duration_s", _qf_step_net_round3 (r->duration_s));
  json_object_set_double_member (obj, "sent_mbps", _qf_step_net_round3 (r->sent_mbps));
  json_object_set_double_member (obj, "received_mbps", _qf_step_net_round3 (r->received_mbps));
  if (r->direction == QF_BW_BIDIR)
    {
      json_object_set_double_member (obj, "up_mbps", _qf_step_net_round3 (r->up_mbps));
      json_object_set_double_member (obj, "down_mbps", _qf_step_net_round3 (r->down_mbps));
    }
  if (!udp && r->retransmits >= 0)
    json_object_set_int_member (obj, "retransmits", r->retransmits);
  else
    json_object_set_null_member (obj, "retransmits");
  if (udp)
    {
      json_object_set_double_member (obj, "jitter_ms", _qf_step_net_round3 (r->jitter_ms));
      json_object_set_double_member (obj, "lost_pct", _qf_step_net_round3 (r->lost_pct));
      json_object_set_int_member (obj, "lost_packets", (gint64) r->lost_packets);
      json_object_set_int_member (obj, "total_packets", (gint64) r->total_packets);
      json_object_set_int_member (obj, "out_of_order", (gint64) r->out_of_order);
    }
  else
    {
      json_object_set_null_member (obj, "jitter_ms");
      json_object_set_null_member (obj, "lost_pct");
    }
  for (guint i = 0; r->intervals != NULL && i < r->intervals->len; i++)
    {
      const QfBwInterval *iv = &g_array_index (r->intervals, QfBwInterval, i);
      JsonObject *o = json_object_new ();

      json_object_set_double_member (o, "t_s", _qf_step_net_round3 (iv->t_s));
      json_object_set_double_member (o, "mbps", _qf_step_net_round3 (iv->mbps));
      if (r->direction == QF_BW_BIDIR)
        {
          json_object_set_double_member (o, "up_mbps", _qf_step_net_round3 (iv->up_mbps));
          json_object_set_double_member (o, "down_mbps", _qf_step_net_round3 (iv->down_mbps));
        }
      json_array_add_object_element (intervals, o);
    }
  json_object_set_array_member (obj, "intervals", intervals);
  if (r->have_iface)
    {
      json_object_set_string_member (obj, "iface", r->iface);
      json_object_set_double_member (obj, "rx_kBps", _qf_step_net_round3 (r->rx_kBps));
      json_object_set_double_member (obj, "tx_kBps", _qf_step_net_round3 (r->tx_kBps));
    }
  else
    {
      json_object_set_null_member (obj, "rx_kBps");
      json_object_set_null_member (obj, "tx_kBps");
    }
  json_object_set_string_member (obj, "peer_kind", r->peer_is_qualify ? "qualify" : "iperf3");
  return obj;
}

/* The bandwidth engine's errors as step errors. Unlike the other network steps
 * (_qf_step_net_propagate), a permission error of the engine counts as the peer's: the token
 * file is read before the engine runs (_qf_step_net_token), so what remains is the link. */
static void
propagate (GError **dest,
           GError  *src)
{
  QfStepError code;

  switch ((QfNetError) src->code)
    {
    case QF_NET_ERROR_INVALID: code = QF_STEP_ERROR_INVALID_PARAMS; break;
    case QF_NET_ERROR_CANCELLED: code = QF_STEP_ERROR_CANCELLED; break;
    case QF_NET_ERROR_IO: code = QF_STEP_ERROR_FAILED; break;
    case QF_NET_ERROR_PERMISSION:
    case QF_NET_ERROR_RESOLVE:
    case QF_NET_ERROR_UNREACHABLE:
    case QF_NET_ERROR_PROTOCOL:
    case QF_NET_ERROR_PEER_LOST:
    case QF_NET_ERROR_BUSY:
    default: code = QF_STEP_ERROR_PEER; break;
    }
  g_set_error_literal (dest, QF_STEP_ERROR, code, src->message);
  g_error_free (src);
}

static gboolean
bandwidth_config (JsonObject     *params,
                          QfStepContext  *ctx,
                          QfBwConfig     *c,
                          GError        **error)
{
  const char *host, *protocol, *direction, *iface;
  gint64 port, parallel, len, window;
  gdouble time_s, omit_s, interval_s, connect_s, stall_s;
  gboolean nodelay, zerocopy;

  memset (c, 0, sizeof *c);
  if (!qf_step_param_string (params, "host", ctx != NULL ? ctx->peer : NULL, &host, error)
      || !qf_step_param_int (params, "port", 5201, 1, 65535, &port, error)
      || !qf_step_param_string (params, "protocol", "tcp", &protocol, error)
      || !param_rate (params, &c->bitrate_bps, error)
      || !qf_step_param_double (params, "time_s", 10, 0.1, 86400, &time_s, error)
      || !qf_step_param_double (params, "omit_s", 0, 0, 600, &omit_s, error)
      || !qf_step_param_int (params, "parallel", 1, 1, 128, &parallel, error)
      || !qf_step_param_string (params, "direction", "up", &direction, error)
      || !qf_step_param_int (params, "len", 0, 0, 1024 * 1024, &len, error)
      || !qf_step_param_double (params, "interval_s", 1, 0.1, 60, &interval_s, error)
      || !qf_step_param_string (params, "iface", ctx != NULL ? ctx->iface : NULL, &iface, error)
      || !qf_step_param_int (params, "window", 0, 0, G_MAXINT32, &window, error)
      || !qf_step_param_bool (params, "nodelay", FALSE, &nodelay, error)
      || !qf_step_param_bool (params, "zerocopy", FALSE, &zerocopy, error)
      || !qf_step_param_double (params, "connect_timeout_s", 5, 0.1, 600, &connect_s, error)
      || !qf_step_param_double (params, "stall_timeout_s", 10, 0.5, 600, &stall_s, error))
    return FALSE;
  if (host == NULL || host[0] == '\0')
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("No peer to measure: give the helper machine's address"));
      return FALSE;
    }
  if (g_ascii_strcasecmp (protocol, "tcp") == 0)
    c->protocol = QF_BW_TCP;
  else if (g_ascii_strcasecmp (protocol, "udp") == 0)
    c->protocol = QF_BW_UDP;
  else
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: expected “tcp” or “udp”, got “%s”"), "protocol", protocol);
      return FALSE;
    }
  if (g_str_equal (direction, "up"))
    c->direction = QF_BW_UP;
  else if (g_str_equal (direction, "down"))
    c->direction = QF_BW_DOWN;
  else if (g_str_equal (direction, "bidir"))
    c->direction = QF_BW_BIDIR;
  else
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: expected “up”, “down” or “bidir”, got “%s”"), "direction", direction);
      return FALSE;
    }
  c->host = host;
  c->port = (guint16) port;
  c->time_s = time_s;
  c->omit_s = omit_s;
  c->parallel = (guint) parallel;
  c->len = (guint) len;
  c->interval_s = interval_s;
  c->iface = iface != NULL && iface[0] != '\0' ? iface : NULL;
  c->window_bytes = (gint) window;
  c->nodelay = nodelay;
  c->zerocopy = zerocopy;
  c->connect_timeout_s = connect_s;
  c->stall_timeout_s = stall_s;
  return TRUE;
}

static gboolean
bandwidth_run (JsonObject     *params,
               QfStepContext  *ctx,
               JsonObject    **result,
               GError        **error)
{
  g_autoptr(QfBwClient) client = NULL;
  g_autoptr(GBytes) token = NULL;
  GError *bw_error = NULL;
  QfBwConfig c;
  QfBwResult r = { 0 };
  Progress progress = { ctx, 0 };
  gboolean ok;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;

  if (!bandwidth_config (params, ctx, &c, error) || !_qf_step_net_token (params, ctx, &token, error))
    return FALSE;
  c.token = token;
  progress.time_s = c.time_s;
  c.ring = ctx != NULL ? ctx->samples : NULL;
  c.on_interval = on_interval;
  c.user_data = &progress;

  client = qf_bw_client_new (&c, &bw_error);
  if (client == NULL)
    {
      propagate (error, bw_error);
      return FALSE;
    }
  ok = qf_bw_client_run (client, ctx != NULL ? ctx->cancel : NULL, &r, &bw_error);
  *result = build_result (c.host, &c, &r);
  qf_bw_result_clear (&r);
  if (!ok)
    propagate (error, bw_error);
  return ok;
}

static char *
bandwidth_classic (JsonObject *params,
                   const char *peer)
{
  QfBwConfig c;
  GString *cmd = g_string_new ("iperf3 -c ");
  g_autoptr(GError) error = NULL;
  QfStepContext ctx = { 0 };

  ctx.peer = peer != NULL ? peer : "PEER";
  if (!bandwidth_config (params, &ctx, &c, &error))
    {
      g_string_append (cmd, ctx.peer);
      g_string_append (cmd, " -t 60 --bidir");
      return g_string_free (cmd, FALSE);
    }
  g_string_append (cmd, c.host);
  if (c.port != 5201)
    g_string_append_printf (cmd, " -p %u", c.port);
  if (c.protocol == QF_BW_UDP)
    g_string_append (cmd, " -u");
  if (c.bitrate_bps > 0)
    g_string_append_printf (cmd, " -b %llu", (unsigned long long) c.bitrate_bps);
  g_string_append_printf (cmd, " -t %g", c.time_s);
  if (c.omit_s > 0)
    g_string_append_printf (cmd, " -O %g", c.omit_s);
  if (c.parallel > 1)
    g_string_append_printf (cmd, " -P %u", c.parallel);
  if (c.direction == QF_BW_DOWN)
    g_string_append (cmd, " -R");
  else if (c.direction == QF_BW_BIDIR)
    g_string_append (cmd, " --bidir");
  if (c.len > 0)
    g_string_append_printf (cmd, " -l %u", c.len);
  return g_string_free (cmd, FALSE);
}

static gdouble
bandwidth_duration (JsonObject *params)
{
  gdouble time_s = 10, omit_s = 0;

  qf_step_param_double (params, "time_s", 10, 0.1, 86400, &time_s, NULL);
  qf_step_param_double (params, "omit_s", 0, 0, 600, &omit_s, NULL);
  /* Connection set-up and the results exchange take a fraction of a second. */
  return time_s + omit_s + 0.5;
}

static const QfStepFigure bandwidth_figures[] = {
  { "jitter_ms", N_("Jitter"), "ms" },
  { "mbps", N_("Throughput"), "Mbit/s" },
  { "avg_mbps", N_("Average throughput"), "Mbit/s" },
  { "min_mbps", N_("Lowest interval"), "Mbit/s" },
  { "duration_s", N_("Duration"), "s" },
  { "retransmits", N_("Retransmissions"), NULL },
  { "sent_mbps", N_("Sent"), "Mbit/s" },
  { "received_mbps", N_("Received"), "Mbit/s" },
  { "up_mbps", N_("PC to helper"), "Mbit/s" },
  { "down_mbps", N_("Helper to PC"), "Mbit/s" },
  { "lost_pct", N_("Datagrams lost"), "%" },
  { "lost_packets", N_("Datagrams lost"), NULL },
  { "total_packets", N_("Datagrams"), NULL },
  { "out_of_order", N_("Out of order"), NULL },
  { "rx_kBps", N_("Receive rate"), "kB/s" },
  { "tx_kBps", N_("Send rate"), "kB/s" },
  { "streams", N_("Streams"), NULL },
  { "port", N_("Port"), NULL },
  { "len", N_("Block size"), NULL, QF_FIGURE_BYTES },
  { "protocol", N_("Protocol"), NULL, QF_FIGURE_WORD },
  { "direction", N_("Direction"), NULL, QF_FIGURE_WORD },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "iface", N_("Network interface"), NULL, QF_FIGURE_TEXT },
  { "peer_kind", N_("Helper software"), NULL, QF_FIGURE_HIDDEN },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

/* Its parameters. */
static const QfStepFigure bandwidth_params[] = {
  { "protocol", N_("Protocol"), NULL, QF_FIGURE_WORD },
  { "direction", N_("Direction"), NULL, QF_FIGURE_WORD },
  { "parallel", N_("Parallel streams"), NULL },
  { "time_s", N_("Duration"), "s" },
  { "bitrate", N_("Target rate per stream"), NULL, QF_FIGURE_BIT_RATE },
  { "interval_s", N_("Report interval"), "s" },
  { "omit_s", N_("Start left out"), "s" },
  { "connect_timeout_s", N_("Connection timeout"), "s" },
  { "stall_timeout_s", N_("Stall timeout"), "s" },
  { "len", N_("Block size"), NULL, QF_FIGURE_BYTES },
  { "port", N_("Port"), NULL },
  { "window", N_("Socket buffer"), NULL, QF_FIGURE_BYTES },
  { "nodelay", N_("No send delay (TCP_NODELAY)"), NULL },
  { "zerocopy", N_("Zero copy"), NULL },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "iface", N_("Network interface"), NULL, QF_FIGURE_TEXT },
  { "token_file", N_("Access token file"), NULL, QF_FIGURE_TEXT },
  { NULL }
};

/* The finished test's figure: each direction against its limit when both were measured (the
 * intervals' up_mbps and down_mbps), else the one direction's rate. */
static const QfStepChart bandwidth_charts[] = {
  {
    .axis = N_("Throughput (Mbit/s)"), .unit = "Mbit/s", .points = "intervals", .area = TRUE,
    .lines = {
      { "up_mbps", N_("PC to helper") },
      { "down_mbps", N_("Helper to PC") },
    },
    .fallback = { "mbps", NULL },
  },
  { NULL }
};

const QfStepInfo qf_step_bandwidth = {
  .id = "bandwidth",
  .title = N_("Network bandwidth"),
  .description = N_("TCP or UDP throughput between this PC and the helper machine (like iperf3)."),
  .peer_service = QF_PEER_SERVICE_BANDWIDTH,
  .measures = QF_STEP_MEASURES_THROUGHPUT,
  .run = bandwidth_run,
  .classic_command = bandwidth_classic,
  .estimate_duration = bandwidth_duration,
  .plot = {
    .unit = "Mbit/s", .axis = N_("Throughput (Mbit/s)"), .unit_ns = 1e6, .area = TRUE,
    .channels = { N_("Total"), N_("PC to helper"), N_("Helper to PC"), NULL },
  },
  .figures = bandwidth_figures,
  .params = bandwidth_params,
  .charts = bandwidth_charts,
};
