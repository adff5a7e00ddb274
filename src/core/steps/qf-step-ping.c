/* qf-step-ping.c — the "ping" step: ICMP round trip to the helper machine, as the procedure's
 * `ping -i 0.001 -s 1024 -c 100 PEER` (src/core).
 *
 * Params (all optional): host (default: the context's peer), iface (default: the context's),
 * interval_ms (1), size (1024), count (100; 0 = until deadline_s), deadline_s (0 = none),
 * timeout_s (2: wait for the last replies), ttl (0 = system default), source.
 * Result: the `qualify-cli ping --json` object. Samples: RTT ns per reply, channel = icmp_seq,
 * flags = 1 for a duplicate | TTL << 8. A stop request ends the run within one interval; no
 * reply at all fails with QF_STEP_ERROR_PEER and the counts as the partial result.
 */
#include "config.h"

#include <sys/socket.h>
#include <unistd.h>

#include "qf-ping.h"
#include "qf-privileges.h"
#include "qf-qualifyd.h"
#include "qf-step-net-private.h"
#include "qf-steps.h"

/* Who may ping how often (docs/privileges.md): like iputils, a user without privilege no faster
 * than every 2 ms; an authorised one (a member of the group qualify, whom polkit allows, or a
 * binary an administrator gave CAP_NET_RAW) every 1 ms, the procedure's ping -i 0.001, and no
 * faster; root down to the engine's 0.1 ms. */
#define MIN_USER_INTERVAL_MS       2.0
#define MIN_AUTHORISED_INTERVAL_MS 1.0

typedef struct
{
  gdouble  interval_ms;
  gboolean needs_grant;   /* faster than a user may: only qualifyd's raw socket will do */
} PingAccess;

typedef struct
{
  QfStepContext *ctx;
  guint64        count;
  gdouble        deadline_s;
} PingProgress;

static void
on_progress (gdouble  fraction,
             guint64  transmitted,
             guint64  received,
             gpointer user_data)
{
  PingProgress *p = user_data;
  g_autoptr(JsonObject) live = json_object_new ();

  if (p->ctx == NULL || p->ctx->progress == NULL)
    return;
  json_object_set_int_member (live, "transmitted", (gint64) transmitted);
  json_object_set_int_member (live, "received", (gint64) received);
  p->ctx->progress (p->ctx, fraction, live, p->ctx->user_data);
}

static JsonObject *
build_result (const char         *host,
              const QfPingConfig *config,
              const QfPingResult *r,
              const QfHistogram  *hist)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "test", "ping");
  json_object_set_string_member (obj, "host", host);
  json_object_set_string_member (obj, "address", r->address);
  json_object_set_string_member (obj, "socket", r->raw_socket ? "raw" : "datagram");
  json_object_set_double_member (obj, "interval_ms", config->interval_ms);
  json_object_set_int_member (obj, "size", config->size);
  json_object_set_int_member (obj, "transmitted", (gint64) r->transmitted);
  json_object_set_int_member (obj, "received", (gint64) r->received);
  json_object_set_int_member (obj, "duplicates", (gint64) r->duplicates);
  json_object_set_int_member (obj, "errors", (gint64) r->errors);
  json_object_set_double_member (obj, "loss_pct", _qf_step_net_round3 (r->loss_pct));
  json_object_set_int_member (obj, "time_ms", r->time_ms);
  if (r->received + r->duplicates > 0)
    {
      /* iputils' integer-µs arithmetic, printed in ms as it prints them. */
      json_object_set_double_member (obj, "min_ms", r->min_us / 1000.0);
      json_object_set_double_member (obj, "avg_ms", r->avg_us / 1000.0);
      json_object_set_double_member (obj, "max_ms", r->max_us / 1000.0);
      json_object_set_double_member (obj, "mdev_ms", r->mdev_us / 1000.0);
      json_object_set_double_member (obj, "p50_ms", _qf_step_net_round3 (r->p50_ns / 1e6));
      json_object_set_double_member (obj, "p99_ms", _qf_step_net_round3 (r->p99_ns / 1e6));
      json_object_set_double_member (obj, "p999_ms", _qf_step_net_round3 (r->p999_ns / 1e6));
    }
  json_object_set_object_member (obj, "histogram", qf_step_histogram_to_json (hist));
  return obj;
}

/* Root pings as fast as it likes; below 2 ms anyone else needs a grant, below 1 ms root. */
static gboolean
interval_allowed (PingAccess  *access,
                  GError     **error)
{
  access->needs_grant = FALSE;
  if (geteuid () == 0 || access->interval_ms >= MIN_USER_INTERVAL_MS)
    return TRUE;
  if (access->interval_ms < MIN_AUTHORISED_INTERVAL_MS)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_PERMISSION,
                   _("Pinging every %g ms needs root: without it Qualify pings every %g ms at "
                     "most (the procedure’s interval), members of the group qualify included. "
                     "Use an interval of %g ms or more, or run qualify-cli as root."),
                   access->interval_ms, MIN_AUTHORISED_INTERVAL_MS, MIN_AUTHORISED_INTERVAL_MS);
      return FALSE;
    }
  access->needs_grant = !qf_privileges_has_net_raw ();
  return TRUE;
}

/* The engine's socket: its own where the interval allows, else (or when the system allows no
 * ICMP socket at all) a raw one from qualifyd. Runs on the step's thread. */
static int
open_ping_socket (int        family,
                  gboolean  *raw,
                  gpointer   user_data,
                  GError   **error)
{
  PingAccess *access = user_data;
  g_autoptr(GError) own_error = NULL;
  g_autoptr(GError) qualifyd_error = NULL;
  int fd;

  if (!access->needs_grant)
    {
      fd = qf_ping_open_socket (family, raw, &own_error);
      if (fd >= 0 || !g_error_matches (own_error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION))
        {
          if (fd < 0)
            g_propagate_error (error, g_steal_pointer (&own_error));
          return fd;
        }
    }
  fd = qf_qualifyd_open_icmp_socket (family, &qualifyd_error);
  if (fd >= 0)
    {
      *raw = TRUE;
      return fd;
    }
  if (access->needs_grant)
    /* TRANSLATORS: the second %s is qualifyd's refusal, with its fix */
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION,
                 _("Pinging every %g ms is faster than a user may ping (every %g ms at most, as "
                   "iputils ping allows): %s"),
                 access->interval_ms, MIN_USER_INTERVAL_MS, qualifyd_error->message);
  else if (g_error_matches (qualifyd_error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_NOT_AVAILABLE))
    g_propagate_error (error, g_steal_pointer (&own_error));
  else
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION, "%s %s", own_error->message,
                 qualifyd_error->message);
  return -1;
}

static gboolean
ping_run (JsonObject     *params,
          QfStepContext  *ctx,
          JsonObject    **result,
          GError        **error)
{
  g_autoptr(QfPing) ping = NULL;
  GError *net_error = NULL;
  QfPingConfig config = { 0 };
  QfPingResult r;
  PingProgress progress = { ctx, 0, 0 };
  PingAccess access = { 0 };
  const char *host, *iface, *source;
  gdouble interval_ms, deadline_s, timeout_s;
  gint64 size, count, ttl;
  gboolean ok;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;

  if (!_qf_step_net_host (params, ctx, &host, error) ||
      !_qf_step_net_iface (params, ctx, &iface, error) ||
      !qf_step_param_double (params, "interval_ms", 1, 0.1, 60000, &interval_ms, error) ||
      !qf_step_param_int (params, "size", QF_PING_DEFAULT_SIZE, 0, QF_PING_MAX_SIZE, &size, error) ||
      !qf_step_param_int (params, "count", 100, 0, G_MAXINT32, &count, error) ||
      !qf_step_param_double (params, "deadline_s", 0, 0, 86400, &deadline_s, error) ||
      !qf_step_param_double (params, "timeout_s", 2, 0.001, 3600, &timeout_s, error) ||
      !qf_step_param_int (params, "ttl", 0, 0, 255, &ttl, error) ||
      !qf_step_param_string (params, "source", NULL, &source, error))
    return FALSE;
  if (count == 0 && deadline_s == 0)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameters “count” and “deadline_s”: give at least one, or the test never ends"));
      return FALSE;
    }

  access.interval_ms = interval_ms;
  if (!interval_allowed (&access, error))
    return FALSE;

  config.host = host;
  config.interval_ms = interval_ms;
  config.open_socket = open_ping_socket;
  config.open_socket_data = &access;
  config.size = (guint) size;
  config.count = (guint64) count;
  config.deadline_s = deadline_s;
  config.timeout_s = timeout_s;
  config.iface = iface;
  config.source = source;
  config.ttl = (int) ttl;
  progress.count = config.count;
  progress.deadline_s = deadline_s;

  ping = qf_ping_new (&config, &net_error);
  if (ping == NULL)
    {
      _qf_step_net_propagate (error, net_error);
      return FALSE;
    }
  ok = qf_ping_run (ping, ctx != NULL ? ctx->samples : NULL, ctx != NULL ? ctx->cancel : NULL,
                    on_progress, &progress, &r, &net_error);
  *result = build_result (host, &config, &r, qf_ping_get_histogram (ping));
  if (!ok)
    _qf_step_net_propagate (error, net_error);
  return ok;
}

static char *
ping_classic (JsonObject *params,
              const char *peer)
{
  gdouble interval_ms = 1;
  gint64 size = QF_PING_DEFAULT_SIZE, count = 100;
  const char *host = NULL;
  char interval[G_ASCII_DTOSTR_BUF_SIZE];

  qf_step_param_double (params, "interval_ms", 1, 0.1, 60000, &interval_ms, NULL);
  qf_step_param_int (params, "size", QF_PING_DEFAULT_SIZE, 0, QF_PING_MAX_SIZE, &size, NULL);
  qf_step_param_int (params, "count", 100, 0, G_MAXINT32, &count, NULL);
  qf_step_param_string (params, "host", peer, &host, NULL);
  g_ascii_formatd (interval, sizeof interval, "%g", interval_ms / 1000.0);
  return g_strdup_printf ("ping -i %s -s %lld -c %lld %s", interval, (long long) size,
                          (long long) count, host != NULL ? host : "PEER");
}

static gdouble
ping_duration (JsonObject *params)
{
  gdouble interval_ms = 1, deadline_s = 0;
  gint64 count = 100;

  qf_step_param_double (params, "interval_ms", 1, 0.1, 60000, &interval_ms, NULL);
  qf_step_param_int (params, "count", 100, 0, G_MAXINT32, &count, NULL);
  qf_step_param_double (params, "deadline_s", 0, 0, 86400, &deadline_s, NULL);
  if (count == 0)
    return deadline_s;
  if (deadline_s > 0)
    return MIN (deadline_s, count * interval_ms / 1000.0 + 0.1);
  return count * interval_ms / 1000.0 + 0.1;
}

static const QfStepFigure ping_figures[] = {
  { "min_ms", N_("Minimum"), "ms" },
  { "avg_ms", N_("Average"), "ms" },
  { "max_ms", N_("Maximum"), "ms" },
  { "stddev_ms", N_("Standard deviation"), "ms" },
  { "mdev_ms", N_("Mean deviation"), "ms" },
  { "p50_ms", N_("Median"), "ms" },
  { "p99_ms", N_("99th percentile"), "ms" },
  { "p999_ms", N_("99.9th percentile"), "ms" },
  { "count", N_("Samples"), NULL },
  { "loss_pct", N_("Packet loss"), "%" },
  { "jitter_ms", N_("Jitter"), "ms" },
  { "sent", N_("Sent"), NULL },
  { "transmitted", N_("Sent"), NULL },
  { "received", N_("Received"), NULL },
  { "duplicates", N_("Duplicate replies"), NULL },
  { "errors", N_("Errors"), NULL },
  { "interval_ms", N_("Interval"), "ms" },
  { "size", N_("Payload size"), NULL, QF_FIGURE_BYTES },
  { "time_ms", N_("Total time"), "ms" },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "address", N_("Address"), NULL, QF_FIGURE_TEXT },
  { "socket", N_("Socket"), NULL, QF_FIGURE_WORD },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

/* Its parameters. */
static const QfStepFigure ping_params[] = {
  { "count", N_("Echo requests"), NULL },
  { "interval_ms", N_("Interval"), "ms" },
  { "size", N_("Payload size"), NULL, QF_FIGURE_BYTES },
  { "size_bytes", N_("Payload size"), NULL, QF_FIGURE_BYTES },
  { "ttl", N_("Time to live"), NULL },
  { "deadline_s", N_("Time limit"), "s" },
  { "timeout_s", N_("Reply timeout"), "s" },
  { "source", N_("Source address"), NULL, QF_FIGURE_TEXT },
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "iface", N_("Network interface"), NULL, QF_FIGURE_TEXT },
  { "token_file", N_("Access token file"), NULL, QF_FIGURE_TEXT },
  { NULL }
};

const QfStepInfo qf_step_ping = {
  .id = "ping",
  .title = N_("Network round trip (ping)"),
  .description = N_("Round-trip time and packet loss of ICMP echo requests to the helper machine (like ping)."),
  .peer_service = QF_PEER_SERVICE_ICMP,
  .measures = QF_STEP_MEASURES_NET_LATENCY,
  .run = ping_run,
  .classic_command = ping_classic,
  .estimate_duration = ping_duration,
  .plot = {
    .unit = "ms", .axis = N_("Round trip (ms)"), .unit_ns = 1e6, .histogram = TRUE,
    .channels = { N_("Round trip"), NULL },
    .one_channel = TRUE,   /* the channel is the icmp_seq */
  },
  .figures = ping_figures,
  .params = ping_params,
};
