/* qf-cli-bandwidth.c — `qualify-cli bandwidth HOST`: TCP/UDP throughput to a helper machine
 * running `qualify-cli serve` or a stock `iperf3 -s` (src/cli).
 *
 * Takes iperf3's short options (-c -p -u -b -t -O -P -R -l -i -J) and iperf2's -d for both
 * directions, prints one line per interval and the sender/receiver summaries like iperf3, or
 * the step's JSON object with --json. The step runs on a worker thread (qf-cli-step.h) so
 * SIGINT/SIGTERM can stop it; the intervals measured until then are still printed (exit 2).
 */
#include "config.h"

#include <stdio.h>

#include "qf-cli.h"
#include "qf-cli-step.h"
#include "qf-i18n.h"
#include "qf-step-bandwidth.h"
#include "qf-steps.h"

typedef struct
{
  gboolean quiet;
  gdouble  prev_t_s;
  gboolean bidir;
} Printer;

static void
on_progress (QfStepContext *ctx,
             gdouble        fraction,
             JsonObject    *live,
             gpointer       user_data)
{
  Printer *p = user_data;
  gdouble t_s;

  if (p->quiet || live == NULL)
    return;
  t_s = json_object_get_double_member (live, "t_s");
  if (json_object_has_member (live, "streams"))
    {
      JsonArray *streams = json_object_get_array_member (live, "streams");
      guint n = json_array_get_length (streams);

      /* One line per stream, then the sum, as iperf3 prints them. */
      for (guint i = 0; i < n; i++)
        {
          JsonObject *st = json_array_get_object_element (streams, i);
          const char *dir = json_object_get_string_member (st, "direction");

          g_print ("[%3lld]%s %6.2f-%-6.2f sec  %10.2f Mbits/sec\n",
                   (long long) json_object_get_int_member (st, "id"),
                   p->bidir ? (g_str_equal (dir, "up") ? "[TX]" : "[RX]") : "",
                   p->prev_t_s, t_s, json_object_get_double_member (st, "mbps"));
        }
      if (n == 1)
        {
          p->prev_t_s = t_s;
          return;
        }
    }
  if (p->bidir)
    g_print ("[SUM] %6.2f-%-6.2f sec  %10.2f Mbits/sec  (up %.2f, down %.2f)\n", p->prev_t_s, t_s,
             json_object_get_double_member (live, "mbps"),
             json_object_get_double_member (live, "up_mbps"),
             json_object_get_double_member (live, "down_mbps"));
  else
    g_print ("[SUM] %6.2f-%-6.2f sec  %10.2f Mbits/sec\n", p->prev_t_s, t_s,
             json_object_get_double_member (live, "mbps"));
  p->prev_t_s = t_s;
}

static gdouble
member_double (JsonObject *obj,
               const char *key)
{
  JsonNode *n = json_object_get_member (obj, key);
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_double (n) : -1;
}

static void
print_summary (JsonObject *r)
{
  gdouble dur = member_double (r, "duration_s");
  JsonNode *retr = json_object_get_member (r, "retransmits");
  const char *protocol = json_object_get_string_member (r, "protocol");

  g_print ("- - - - - - - - - - - - - - - - - - - - - - - - -\n");
  if (retr != NULL && JSON_NODE_HOLDS_VALUE (retr))
    g_print ("[SUM] %6.2f-%-6.2f sec  %10.2f Mbits/sec  %5lld retr  %s\n", 0.0, dur,
             member_double (r, "sent_mbps"), (long long) json_node_get_int (retr), _("sender"));
  else
    g_print ("[SUM] %6.2f-%-6.2f sec  %10.2f Mbits/sec              %s\n", 0.0, dur,
             member_double (r, "sent_mbps"), _("sender"));
  if (g_strcmp0 (protocol, "udp") == 0)
    g_print ("[SUM] %6.2f-%-6.2f sec  %10.2f Mbits/sec  %.3f ms  %lld/%lld (%.2g%%)  %s\n", 0.0, dur,
             member_double (r, "received_mbps"), member_double (r, "jitter_ms"),
             (long long) json_object_get_int_member (r, "lost_packets"),
             (long long) json_object_get_int_member (r, "total_packets"),
             member_double (r, "lost_pct"), _("receiver"));
  else
    g_print ("[SUM] %6.2f-%-6.2f sec  %10.2f Mbits/sec              %s\n", 0.0, dur,
             member_double (r, "received_mbps"), _("receiver"));
  if (json_object_has_member (r, "up_mbps"))
    g_print (_("Both directions: up %.2f Mbit/s, down %.2f Mbit/s\n"),
             member_double (r, "up_mbps"), member_double (r, "down_mbps"));
  if (json_object_has_member (r, "iface"))
    g_print (_("Interface %s: rxkB/s %.2f, txkB/s %.2f\n"),
             json_object_get_string_member (r, "iface"),
             member_double (r, "rx_kBps"), member_double (r, "tx_kBps"));
  g_print (_("Peer: %s\n"), json_object_get_string_member (r, "peer_kind"));
}

/* -l and -w take iperf3's binary suffixes: 128K = 131072. */
static gboolean
parse_bytes (const char *text,
             gint64      max,
             gint64     *out)
{
  char *end = NULL;
  gdouble v;

  if (text == NULL)
    return TRUE;
  v = g_ascii_strtod (text, &end);
  if (end == text || !(v >= 0))
    return FALSE;
  switch (*end)
    {
    case '\0': break;
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: return FALSE;
    }
  if (*end != '\0' || v > max)
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

typedef struct
{
  char     *client;
  int       port;
  gboolean  tcp;
  gboolean  udp;
  char     *bitrate;
  gdouble   time_s;
  gdouble   omit_s;
  int       parallel;
  gboolean  reverse;
  gboolean  bidir;
  gboolean  dual;           /* iperf2's -d, the same as --bidir */
  char     *len_text;
  gdouble   interval_s;
  char     *window_text;
  gboolean  nodelay;
  gboolean  zerocopy;
  gdouble   connect_s;
  gdouble   stall_s;
  char     *iface;
  char     *token_file;
  char     *pairing_code;
  GBytes   *token;         /* the pairing code's, in memory only */
  gboolean  json;

  /* read from the above by check_bandwidth_options () */
  const char *host;
  guint64     bps;
  gint64      len;
  gint64      window;
} BandwidthOptions;

static void
bandwidth_options_clear (BandwidthOptions *o)
{
  g_free (o->client);
  g_free (o->bitrate);
  g_free (o->len_text);
  g_free (o->window_text);
  g_free (o->iface);
  g_free (o->token_file);
  g_free (o->pairing_code);
  g_clear_pointer (&o->token, g_bytes_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (BandwidthOptions, bandwidth_options_clear)

/* Parses argv (iperf3's spellings) into o; FALSE with *exit_code set when the caller should
 * return at once. */
static gboolean
parse_bandwidth_options (BandwidthOptions   *o,
                         int                *argc,
                         char             ***argv,
                         int                *exit_code)
{
  const GOptionEntry entries[] = {
    { "client", 'c', 0, G_OPTION_ARG_STRING, &o->client, N_("Peer to measure (instead of HOST)"), N_("HOST") },
    { "port", 'p', 0, G_OPTION_ARG_INT, &o->port, N_("Port of the bandwidth responder (default 5201)"), N_("P") },
    { "tcp", 0, 0, G_OPTION_ARG_NONE, &o->tcp, N_("Measure TCP throughput (default)"), NULL },
    { "udp", 'u', 0, G_OPTION_ARG_NONE, &o->udp, N_("Measure UDP throughput, loss and jitter"), NULL },
    { "bitrate", 'b', 0, G_OPTION_ARG_STRING, &o->bitrate,
      N_("Target bit/s per stream, K/M/G suffixes (default: TCP unlimited, UDP 1M)"), N_("RATE") },
    { "time", 't', 0, G_OPTION_ARG_DOUBLE, &o->time_s, N_("Seconds to measure (default 10)"), N_("S") },
    { "omit", 'O', 0, G_OPTION_ARG_DOUBLE, &o->omit_s, N_("Warm-up seconds not counted (default 0)"), N_("S") },
    { "parallel", 'P', 0, G_OPTION_ARG_INT, &o->parallel, N_("Parallel streams per direction (default 1)"), N_("N") },
    { "reverse", 'R', 0, G_OPTION_ARG_NONE, &o->reverse, N_("The peer sends, this PC receives"), NULL },
    { "bidir", 0, 0, G_OPTION_ARG_NONE, &o->bidir, N_("Both directions at once"), NULL },
    { "dualtest", 'd', 0, G_OPTION_ARG_NONE, &o->dual, N_("Both directions at once (iperf2's -d)"), NULL },
    { "len", 'l', 0, G_OPTION_ARG_STRING, &o->len_text,
      N_("Bytes per write / datagram, K/M suffixes (default: 16 × MSS for TCP)"), N_("BYTES") },
    { "interval", 'i', 0, G_OPTION_ARG_DOUBLE, &o->interval_s, N_("Seconds between reports (default 1)"), N_("S") },
    { "window", 'w', 0, G_OPTION_ARG_STRING, &o->window_text, N_("Socket buffer size, K/M suffixes"), N_("BYTES") },
    { "no-delay", 'N', 0, G_OPTION_ARG_NONE, &o->nodelay, N_("Set TCP_NODELAY"), NULL },
    { "zerocopy", 'Z', 0, G_OPTION_ARG_NONE, &o->zerocopy, N_("Send TCP with MSG_ZEROCOPY"), NULL },
    { "connect-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->connect_s, N_("Seconds to wait for the peer (default 5)"), N_("S") },
    { "stall-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->stall_s,
      N_("End the test with an error when no data moves for S seconds (default 10)"), N_("S") },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &o->iface,
      N_("Interface whose rx/tx kB/s to report (default: the one the test uses)"), N_("IF") },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &o->token_file,
      N_("Prove the responder's access token read from FILE (serve --token-file)"), N_("FILE") },
    { "pairing-code", 0, 0, G_OPTION_ARG_STRING, &o->pairing_code,
      N_("Prove the pairing code the helper machine shows (serve --pairing-code); “-” reads it from standard input, out of the process list"), N_("CODE") },
    { "json", 'J', 0, G_OPTION_ARG_NONE, &o->json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  return qf_cli_parse_options ("bandwidth", _("HOST"),
                               _("Measure TCP/UDP throughput to a helper machine running “qualify-cli serve” or “iperf3 -s”."),
                               entries, argc, argv, exit_code);
}

/* Picks the host and reads the sizes and rate; returns QF_CLI_EXIT_OK or prints why not. */
static int
check_bandwidth_options (BandwidthOptions  *o,
                         int                argc,
                         char             **argv)
{
  if (o->client != NULL && argc == 1)
    o->host = o->client;
  else if (o->client == NULL && argc == 2)
    o->host = argv[1];
  else
    return qf_cli_errorf ("bandwidth", _("Give exactly one peer: qualify-cli bandwidth HOST (or -c HOST)."));
  if (o->tcp && o->udp)
    return qf_cli_errorf ("bandwidth", _("Choose --tcp or --udp, not both."));
  if (o->reverse && (o->bidir || o->dual))
    return qf_cli_errorf ("bandwidth", _("Choose --reverse or --bidir, not both."));
  if (o->bitrate != NULL && !qf_step_bandwidth_parse_rate (o->bitrate, &o->bps))
    return qf_cli_errorf ("bandwidth", _("Cannot read the bitrate “%s”: give bit/s like 100M or 1G."), o->bitrate);
  if (!parse_bytes (o->len_text, 1024 * 1024, &o->len))
    return qf_cli_errorf ("bandwidth", _("Cannot read the length “%s”: give bytes like 1448 or 128K (at most 1M)."), o->len_text);
  if (!parse_bytes (o->window_text, G_MAXINT32, &o->window))
    return qf_cli_errorf ("bandwidth", _("Cannot read the window “%s”: give bytes like 256K."), o->window_text);
  return qf_cli_client_token ("bandwidth", o->token_file, &o->pairing_code, &o->token);
}

/* The "bandwidth" step's params from the checked options. */
static JsonObject *
build_bandwidth_params (const BandwidthOptions *o)
{
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "host", o->host);
  json_object_set_int_member (params, "port", o->port);
  json_object_set_string_member (params, "protocol", o->udp ? "udp" : "tcp");
  if (o->bps > 0)
    json_object_set_int_member (params, "bitrate", (gint64) o->bps);
  json_object_set_double_member (params, "time_s", o->time_s);
  json_object_set_double_member (params, "omit_s", o->omit_s);
  json_object_set_int_member (params, "parallel", o->parallel);
  json_object_set_string_member (params, "direction",
                                 o->reverse ? "down" : (o->bidir || o->dual) ? "bidir" : "up");
  json_object_set_int_member (params, "len", o->len);
  json_object_set_double_member (params, "interval_s", o->interval_s);
  json_object_set_double_member (params, "connect_timeout_s", o->connect_s);
  json_object_set_double_member (params, "stall_timeout_s", o->stall_s);
  if (o->window > 0)
    json_object_set_int_member (params, "window", o->window);
  if (o->nodelay)
    json_object_set_boolean_member (params, "nodelay", TRUE);
  if (o->zerocopy)
    json_object_set_boolean_member (params, "zerocopy", TRUE);
  if (o->iface != NULL)
    json_object_set_string_member (params, "iface", o->iface);
  if (o->token_file != NULL)
    json_object_set_string_member (params, "token_file", o->token_file);
  return params;
}

/* Runs the step with iperf3's interval lines (unless --json), then prints the summary or the
 * JSON object, which after a failure carries the error too. */
static int
measure_and_print (const BandwidthOptions *o,
                   JsonObject             *params)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  QfStepContext ctx = { 0 };
  Printer printer = { .quiet = o->json, .bidir = o->bidir || o->dual };
  gboolean ok;

  ctx.progress = on_progress;
  ctx.user_data = &printer;
  ctx.peer = o->host;
  ctx.token = o->token;
  if (!o->json)
    {
      g_print (_("Connecting to host %s, port %d\n"), o->host, o->port);
      g_print ("[ ID] Interval           Bitrate\n");
    }
  ok = qf_cli_step_run (&qf_step_bandwidth, params, &ctx, &result, &error);

  if (result != NULL)
    {
      if (!ok)
        json_object_set_string_member (result, "error", error->message);
      if (o->json)
        qf_cli_print_json (result);
      else if (ok)
        print_summary (result);
    }
  if (!ok)
    return qf_cli_error ("bandwidth", error);
  return QF_CLI_EXIT_OK;
}

int
qf_cli_bandwidth (int    argc,
                  char **argv)
{
  g_auto(BandwidthOptions) o = {
    .port = 5201, .time_s = 10, .parallel = 1, .interval_s = 1, .connect_s = 5, .stall_s = 10,
  };
  g_autoptr(JsonObject) params = NULL;
  int exit_code;

  if (!parse_bandwidth_options (&o, &argc, &argv, &exit_code))
    return exit_code;
  exit_code = check_bandwidth_options (&o, argc, argv);
  if (exit_code != QF_CLI_EXIT_OK)
    return exit_code;
  params = build_bandwidth_params (&o);
  return measure_and_print (&o, params);
}
