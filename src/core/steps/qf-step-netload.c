/* qf-step-netload.c — the load of the steps under network load (src/core/steps). See
 * qf-step-netload.h. The load is the bandwidth engine against the same helper, run in the
 * background by the engine's qf-netload. */
#include "config.h"

#include "qf-nic.h"
#include "qf-step-net-private.h"
#include "qf-step-netload.h"
#include "qf-sysinfo.h"
#include "qf-text.h"

#define SETTLE_DEFAULT_S   2.0
#define START_TIMEOUT_S   10.0

gboolean
_qf_step_netload_config (JsonObject     *params,
                         QfStepContext  *ctx,
                         const char     *host,
                         const char     *port_key,
                         GBytes         *token,
                         QfStepNetLoad  *load,
                         GError        **error)
{
  const char *text, *iface;
  gint64 port, streams;
  guint64 rate_bps;
  QfBwProtocol protocol;

  memset (load, 0, sizeof *load);
  if (!qf_step_param_string (params, "load", "tcp", &text, error)
      || !qf_step_param_int (params, port_key, 5201, 1, 65535, &port, error)
      || !qf_step_param_int (params, "load_streams", 1, 1, 32, &streams, error)
      || !qf_step_param_double (params, "settle_s", SETTLE_DEFAULT_S, 0, 60, &load->settle_s, error)
      || !_qf_step_net_iface (params, ctx, &iface, error))
    return FALSE;
  if (!qf_net_load_parse (text, &protocol, &rate_bps))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: expected “tcp” or “udp:RATE” (e.g. udp:150M), got “%s”"),
                   "load", text);
      return FALSE;
    }
  load->load_text = g_strdup (text);
  load->bw.host = host;
  load->bw.port = (guint16) port;
  load->bw.protocol = protocol;
  load->bw.direction = QF_BW_BIDIR;
  load->bw.parallel = (guint) streams;
  load->bw.bitrate_bps = rate_bps;
  load->bw.iface = iface != NULL && iface[0] != '\0' ? iface : NULL;
  load->bw.token = token;
  return TRUE;
}

void
_qf_step_netload_clear (QfStepNetLoad *load)
{
  g_clear_pointer (&load->load_text, g_free);
}

QfNetLoad *
_qf_step_netload_start (QfStepNetLoad  *load,
                        gdouble         measure_s,
                        QfStepContext  *ctx,
                        GError        **error)
{
  GError *net_error = NULL;
  QfNetLoad *running;

  /* The helper is asked for the whole measurement and a margin; the stop ends it sooner. */
  load->bw.time_s = measure_s > 0 ? load->settle_s + measure_s + START_TIMEOUT_S : 0;
  running = qf_net_load_start (&load->bw, &net_error);

  if (running == NULL)
    {
      _qf_step_net_propagate (error, net_error);
      return NULL;
    }
  if (!qf_net_load_wait (running, load->settle_s, START_TIMEOUT_S + load->settle_s,
                         ctx != NULL ? ctx->cancel : NULL, &net_error))
    {
      qf_net_load_stop (running, NULL, NULL);
      _qf_step_net_propagate (error, net_error);
      return NULL;
    }
  return running;
}

/* Where a queue on this PC would sit, read as the network audit reads the card (qf-nic): the
 * qdisc new interfaces get, the byte queue limit of the first transmit queue and the descriptor
 * rings. What cannot be read is left out. */
static JsonObject *
queue_facts (const char *iface)
{
  JsonObject *obj = json_object_new ();
  g_autofree char *qdisc = qf_sysfs_read_string (NULL, "proc/sys/net/core/default_qdisc");
  g_autofree char *bql_path = g_build_filename ("sys/class/net", iface,
                                                "queues/tx-0/byte_queue_limits/limit", NULL);
  g_autofree char *bql = qf_sysfs_read_string (NULL, bql_path);
  QfNicFacts *nic = qf_nic_facts_read (NULL, iface);

  json_object_set_string_member (obj, "iface", iface);
  if (qdisc != NULL)
    json_object_set_string_member (obj, "default_qdisc", g_strstrip (qdisc));
  if (bql != NULL)
    json_object_set_int_member (obj, "bql_limit_bytes", g_ascii_strtoll (bql, NULL, 10));
  if (nic->have_ring)
    {
      json_object_set_int_member (obj, "tx_ring", nic->tx_ring);
      json_object_set_int_member (obj, "tx_ring_max", nic->tx_ring_max);
    }
  qf_nic_facts_free (nic);
  return obj;
}

/* The load's mean rates over its intervals as this PC saw them: a stopped test never gets the
 * helper's own counts. */
static void
mean_rates (const QfBwResult *r,
            gdouble          *up_mbps,
            gdouble          *down_mbps)
{
  guint n = r->intervals != NULL ? r->intervals->len : 0;

  *up_mbps = *down_mbps = 0;
  for (guint i = 0; i < n; i++)
    {
      *up_mbps += g_array_index (r->intervals, QfBwInterval, i).up_mbps / n;
      *down_mbps += g_array_index (r->intervals, QfBwInterval, i).down_mbps / n;
    }
}

JsonObject *
_qf_step_netload_stop (QfStepNetLoad  *load,
                       QfNetLoad      *running,
                       GError        **error)
{
  JsonObject *obj = json_object_new ();
  QfBwResult r = { 0 };
  GError *net_error = NULL;
  gboolean complete = qf_net_load_stop (running, &r, &net_error);
  gdouble up_mbps, down_mbps;

  mean_rates (&r, &up_mbps, &down_mbps);

  json_object_set_string_member (obj, "load", load->load_text);
  json_object_set_string_member (obj, "protocol", load->bw.protocol == QF_BW_UDP ? "udp" : "tcp");
  json_object_set_string_member (obj, "direction", qf_bw_direction_to_string (QF_BW_BIDIR));
  json_object_set_int_member (obj, "streams", load->bw.parallel);
  if (load->bw.protocol == QF_BW_UDP)
    json_object_set_int_member (obj, "rate_bps", (gint64) load->bw.bitrate_bps);
  json_object_set_int_member (obj, "port", load->bw.port);
  json_object_set_double_member (obj, "settle_s", load->settle_s);
  json_object_set_double_member (obj, "duration_s", _qf_step_net_round3 (r.duration_s));
  json_object_set_double_member (obj, "up_mbps", _qf_step_net_round3 (up_mbps));
  json_object_set_double_member (obj, "down_mbps", _qf_step_net_round3 (down_mbps));
  if (r.retransmits >= 0 && load->bw.protocol == QF_BW_TCP)
    json_object_set_int_member (obj, "retransmits", r.retransmits);
  if (load->bw.protocol == QF_BW_UDP && r.lost_pct >= 0)
    json_object_set_double_member (obj, "lost_pct", _qf_step_net_round3 (r.lost_pct));
  if (r.have_iface)
    json_object_set_object_member (obj, "queue", queue_facts (r.iface));
  json_object_set_boolean_member (obj, "complete", complete);
  if (!complete)
    {
      json_object_set_string_member (obj, "error", net_error != NULL ? net_error->message : "");
      _qf_step_net_propagate (error, net_error);
    }
  qf_bw_result_clear (&r);
  return obj;
}

char *
_qf_step_netload_classic (const QfStepNetLoad *load)
{
  g_autofree char *host = qf_text_shell_word (load->bw.host);
  GString *cmd = g_string_new ("iperf3");

  g_string_append_printf (cmd, " -c %s", host);
  if (load->bw.port != 5201)
    g_string_append_printf (cmd, " -p %u", load->bw.port);
  if (load->bw.protocol == QF_BW_UDP)
    g_string_append_printf (cmd, " -u -b %" G_GUINT64_FORMAT, load->bw.bitrate_bps);
  if (load->bw.parallel > 1)
    g_string_append_printf (cmd, " -P %u", load->bw.parallel);
  g_string_append (cmd, " --bidir -t 0");
  return g_string_free (cmd, FALSE);
}

gdouble
_qf_step_netload_overhead_s (JsonObject *params)
{
  gdouble settle_s = SETTLE_DEFAULT_S;

  qf_step_param_double (params, "settle_s", SETTLE_DEFAULT_S, 0, 60, &settle_s, NULL);
  return settle_s + 1.0;
}

/* Where a queue on this PC would sit (queue_facts). */
static const QfStepFigure queue_figures[] = {
  { "iface", N_("Interface"), NULL, QF_FIGURE_TEXT },
  { "default_qdisc", N_("Default queueing discipline"), NULL, QF_FIGURE_TEXT },
  { "bql_limit_bytes", N_("Byte queue limit (first transmit queue)"), NULL, QF_FIGURE_BYTES },
  { "tx_ring", N_("Transmit ring"), NULL },
  { "tx_ring_max", N_("Largest transmit ring"), NULL },
  { NULL }
};

/* The result's "load" object, labelled (QF_FIGURE_OBJECT). */
const QfStepFigure _qf_step_netload_figures[] = {
  { "load", N_("Load"), NULL, QF_FIGURE_TEXT },
  { "up_mbps", N_("PC to helper"), "Mbit/s" },
  { "down_mbps", N_("Helper to PC"), "Mbit/s" },
  { "lost_pct", N_("Lost"), "%" },
  { "retransmits", N_("Retransmits"), NULL },
  { "settle_s", N_("Load before measuring"), "s" },
  { "complete", N_("Ran to the end"), NULL },
  { "queue", N_("This PC's queues"), NULL, QF_FIGURE_OBJECT, queue_figures },
  { NULL }
};
