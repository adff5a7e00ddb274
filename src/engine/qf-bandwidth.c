/* qf-bandwidth.c — TCP/UDP throughput client (src/engine). See qf-bandwidth.h.
 * The control protocol is iperf3 3.12's (qf-iperf3-proto.c, ../shared/docs/interop.md §1), so
 * the same client measures against a stock `iperf3 -s` and against our responder; the data
 * streams run on the workers of qf-bw-streams.c. This file is the client's side of a test:
 * connecting, asking for the test, taking interval samples while the streams run, and summing
 * up both ends' results. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <math.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>


#include "qf-auth.h"
#include "qf-bandwidth.h"
#include "qf-bw-streams-private.h"
#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-iperf3-proto-private.h"
#include "qf-procstat.h"

#define CONTROL_TIMEOUT_NS (10 * QF_NSEC_PER_SEC)

/* ---------------------------------------------------------------- client */

struct QfBwClient
{
  QfBwConfig config;
  char      *host;
  char      *iface;
};

typedef struct
{
  QfBwClient       *client;
  const gint       *cancel;
  int               ctrl;
  struct sockaddr_storage peer;
  socklen_t         peer_len;
  guint             n_streams;
  QfBwStream        streams[2 * QF_IPERF3_MAX_STREAMS];
  gint              stop_senders;
  gint              stop_receivers;
  /* omit bases and interval bookkeeping */
  guint64           base_bytes[2 * QF_IPERF3_MAX_STREAMS];
  guint64           base_packets[2 * QF_IPERF3_MAX_STREAMS];
  guint64           base_errors[2 * QF_IPERF3_MAX_STREAMS];
  gint64            base_retrans[2 * QF_IPERF3_MAX_STREAMS];
  guint64           prev_bytes[2 * QF_IPERF3_MAX_STREAMS];
  gint64            prev_retrans[2 * QF_IPERF3_MAX_STREAMS];
  QfBwStreamInterval stream_iv[2 * QF_IPERF3_MAX_STREAMS];
  /* the measuring clock (CLOCK_MONOTONIC ns) */
  gint64            interval_ns;
  gint64            stall_ns;
  gint64            omit_end;
  gint64            test_end;
  gint64            t0;               /* start of the measured part */
  gint64            prev_tick;
  gint64            next_tick;
  gint64            last_move_ns;
  guint64           last_total;
  gboolean          omit_done;
  /* interface rates; procstat NULL when there are none */
  QfProcStat       *procstat;
  QfProcSnapshot   *snap0;
  QfProcSnapshot   *snap1;
} Run;

const char *
qf_bw_direction_to_string (QfBwDirection direction)
{
  switch (direction)
    {
    case QF_BW_UP: return "up";
    case QF_BW_DOWN: return "down";
    case QF_BW_BIDIR: return "bidir";
    default: return "?";
    }
}

QfBwClient *
qf_bw_client_new (const QfBwConfig *config,
                  GError          **error)
{
  QfBwClient *client;

  g_return_val_if_fail (config != NULL, NULL);

  if (config->host == NULL || config->host[0] == '\0')
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("No peer given: name the helper machine running the bandwidth responder."));
      return NULL;
    }
  if (config->parallel < 1 || config->parallel > QF_IPERF3_MAX_STREAMS)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("Parallel streams must be 1…%d, not %u."), QF_IPERF3_MAX_STREAMS, config->parallel);
      return NULL;
    }
  if (!(config->time_s > 0 && config->time_s <= 86400) || !(config->omit_s >= 0 && config->omit_s <= 600))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("Test time must be 0…86400 s and omit 0…600 s."));
      return NULL;
    }
  if (!(config->interval_s >= 0 && config->interval_s <= 60)
      || (config->interval_s > 0 && config->interval_s < 0.1))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The report interval must be 0.1…60 s."));
      return NULL;
    }
  if (config->len != 0
      && ((config->protocol == QF_BW_TCP && config->len > QF_IPERF3_MAX_TCP_LEN)
          || (config->protocol == QF_BW_UDP
              && (config->len < QF_IPERF3_MIN_UDP_LEN || config->len > QF_IPERF3_MAX_UDP_LEN))))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("Block length %u is out of range (TCP 1…%d, UDP %d…%d bytes)."), config->len,
                   QF_IPERF3_MAX_TCP_LEN, QF_IPERF3_MIN_UDP_LEN, QF_IPERF3_MAX_UDP_LEN);
      return NULL;
    }

  client = g_new0 (QfBwClient, 1);
  client->config = *config;
  client->host = g_strdup (config->host);
  client->iface = g_strdup (config->iface);
  client->config.host = client->host;
  client->config.iface = client->iface;
  client->config.token = config->token != NULL ? g_bytes_ref (config->token) : NULL;
  if (client->config.port == 0)
    client->config.port = QF_IPERF3_PORT;
  if (client->config.interval_s == 0)
    client->config.interval_s = 1.0;
  if (client->config.connect_timeout_s <= 0)
    client->config.connect_timeout_s = 5.0;
  if (client->config.stall_timeout_s <= 0)
    client->config.stall_timeout_s = 10.0;
  return client;
}

void
qf_bw_client_free (QfBwClient *client)
{
  if (client == NULL)
    return;
  g_free (client->host);
  g_free (client->iface);
  g_clear_pointer (&client->config.token, g_bytes_unref);
  g_free (client);
}

void
qf_bw_result_clear (QfBwResult *result)
{
  g_clear_pointer (&result->intervals, g_array_unref);
}

static gboolean
cancelled (const gint *cancel)
{
  return cancel != NULL && g_atomic_int_get (cancel) != 0;
}

/* A non-blocking socket for ai with the configured window, its connect started; -1 with
 * *errsv on failure. */
static int
start_connect (const QfBwConfig      *cfg,
               const struct addrinfo *ai,
               int                   *errsv)
{
  int fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);

  if (fd < 0)
    {
      *errsv = errno;
      return -1;
    }
  if (cfg->window_bytes > 0)
    {
      setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &cfg->window_bytes, sizeof cfg->window_bytes);
      setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &cfg->window_bytes, sizeof cfg->window_bytes);
    }
  if (connect (fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS)
    {
      *errsv = errno;
      close (fd);
      return -1;
    }
  return fd;
}

/* Waits for fd's TCP connect to finish by the deadline: 1 connected, 0 failed (*errsv says why),
 * -1 stopped on request. */
static int
wait_connected (Run    *run,
                int     fd,
                gint64  deadline,
                int    *errsv)
{
  for (;;)
    {
      struct pollfd pfd = { fd, POLLOUT, 0 };
      gint64 now = qf_clock_now_ns ();
      int wait_ms = (int) MIN ((deadline - now) / QF_NSEC_PER_MSEC, 100);
      socklen_t len = sizeof *errsv;

      if (cancelled (run->cancel))
        return -1;
      if (now >= deadline)
        {
          *errsv = ETIMEDOUT;
          return 0;
        }
      if (poll (&pfd, 1, MAX (wait_ms, 1)) <= 0)
        continue;
      *errsv = 0;
      getsockopt (fd, SOL_SOCKET, SO_ERROR, errsv, &len);
      return *errsv == 0;
    }
}

/* Non-blocking connect bounded by the connect timeout; the socket is blocking again after. */
static int
connect_one (Run        *run,
             int         socktype,
             GError    **error)
{
  QfBwConfig *cfg = &run->client->config;
  struct addrinfo hints = { 0 }, *res = NULL;
  char port[8];
  int rc, fd = -1, errsv = 0;
  gint64 deadline = qf_clock_now_ns () + (gint64) (cfg->connect_timeout_s * 1e9);

  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = socktype;
  g_snprintf (port, sizeof port, "%u", cfg->port);
  rc = getaddrinfo (cfg->host, port, &hints, &res);
  if (rc != 0)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_RESOLVE,
                   _("Cannot resolve “%s”: %s. Check the peer's name or use its address."),
                   cfg->host, gai_strerror (rc));
      return -1;
    }
  for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next)
    {
      int connected = 1;

      fd = start_connect (cfg, ai, &errsv);
      if (fd < 0)
        continue;
      if (socktype == SOCK_STREAM)
        connected = wait_connected (run, fd, deadline, &errsv);
      if (connected < 0)
        {
          close (fd);
          freeaddrinfo (res);
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped on request."));
          return -1;
        }
      if (connected == 0)
        {
          close (fd);
          fd = -1;
          continue;
        }
      fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
      memcpy (&run->peer, ai->ai_addr, ai->ai_addrlen);
      run->peer_len = ai->ai_addrlen;
    }
  freeaddrinfo (res);
  if (fd < 0)
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                 _("Cannot reach %s:%u: %s. Is “qualify-cli serve” or “iperf3 -s” running there?"),
                 cfg->host, cfg->port, g_strerror (errsv));
  return fd;
}

static gboolean
peer_refused (Run        *run,
              signed char state,
              GError    **error)
{
  QfBwConfig *cfg = &run->client->config;

  if (state == QF_IPERF3_ACCESS_DENIED)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_BUSY,
                   _("The bandwidth responder at %s:%u is busy with another test. Try again when it is done."),
                   cfg->host, cfg->port);
      return TRUE;
    }
  if (state == QF_IPERF3_SERVER_ERROR)
    {
      guint32 codes[2] = { 0, 0 };
      g_autoptr(GError) local = NULL;

      _qf_iperf3_read_exact (run->ctrl, codes, sizeof codes, qf_clock_now_ns () + QF_NSEC_PER_SEC,
                             run->cancel, _("error code"), &local);
      if (GUINT32_FROM_BE (codes[0]) == QF_AUTH_IPERF3_IE_AUTHTEST && cfg->token != NULL)
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                     _("The bandwidth responder at %s:%u refused the access token: it does not match its pairing code or token file. Type the code the helper machine shows now (a new code is drawn each time helper mode starts), or copy its token file here again."),
                     cfg->host, cfg->port);
      else if (GUINT32_FROM_BE (codes[0]) == QF_AUTH_IPERF3_IE_AUTHTEST)
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                     _("The bandwidth responder at %s:%u requires an access token. Type the pairing code the helper machine shows (--pairing-code CODE), or give the token file of `qualify-cli serve --token-file` with --token-file FILE."),
                     cfg->host, cfg->port);
      else if (GUINT32_FROM_BE (codes[0]) == QF_IPERF3_IE_DURATION)
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                     _("The bandwidth responder at %s:%u refused a test of %.0f s: it limits how long a test may run (qualify-cli serve --max-test-seconds). Ask for a shorter --time and --omit."),
                     cfg->host, cfg->port, ceil (cfg->time_s) + ceil (cfg->omit_s));
      else if (GUINT32_FROM_BE (codes[0]) == QF_IPERF3_IE_NUMSTREAMS)
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                     _("The bandwidth responder at %s:%u refused %u data streams: it limits how many a test may open (qualify-cli serve --max-clients). Use fewer --parallel streams."),
                     cfg->host, cfg->port, cfg->direction == QF_BW_BIDIR ? 2 * cfg->parallel : cfg->parallel);
      else
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                     _("The bandwidth responder at %s:%u reported an error (iperf3 error %d, system error %d) and refused the test."),
                     cfg->host, cfg->port, (int) GUINT32_FROM_BE (codes[0]), (int) GUINT32_FROM_BE (codes[1]));
      return TRUE;
    }
  if (state == QF_IPERF3_SERVER_TERMINATE)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                   _("The bandwidth responder at %s:%u ended the test."), cfg->host, cfg->port);
      return TRUE;
    }
  return FALSE;
}

static gboolean
expect_state (Run        *run,
              signed char want,
              GError    **error)
{
  signed char state;

  if (!_qf_iperf3_read_state (run->ctrl, &state, qf_clock_now_ns () + CONTROL_TIMEOUT_NS,
                              run->cancel, error))
    return FALSE;
  if (state == want)
    return TRUE;
  if (!peer_refused (run, state, error))
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                 _("The bandwidth responder sent state %d where %d was expected."), state, want);
  return FALSE;
}

/* After the cookie: PARAM_EXCHANGE, or first the access-token challenge of our responder. */
static gboolean
expect_param_exchange (Run        *run,
                       const char *cookie,
                       GError    **error)
{
  QfBwConfig *cfg = &run->client->config;
  g_autoptr(GError) local = NULL;
  signed char state;

  if (cfg->token == NULL)
    return expect_state (run, QF_IPERF3_PARAM_EXCHANGE, error);
  if (!_qf_iperf3_read_state (run->ctrl, &state, qf_clock_now_ns () + CONTROL_TIMEOUT_NS,
                              run->cancel, error))
    return FALSE;
  if (state == QF_IPERF3_PARAM_EXCHANGE)
    return TRUE;   /* a responder that needs no token (or stock iperf3) */
  if (state != QF_AUTH_BW_CHALLENGE_STATE)
    {
      if (!peer_refused (run, state, error))
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                     _("The bandwidth responder sent state %d where %d was expected."), state,
                     QF_IPERF3_PARAM_EXCHANGE);
      return FALSE;
    }
  if (!qf_auth_bw_client_answer (run->ctrl, cfg->token, cookie,
                                 qf_clock_now_ns () + CONTROL_TIMEOUT_NS, run->cancel, &local))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST, "%s", local->message);
      return FALSE;
    }
  return expect_state (run, QF_IPERF3_PARAM_EXCHANGE, error);
}

static guint
default_len (const QfBwConfig *cfg,
             int               ctrl)
{
  int mss = 0;
  socklen_t len = sizeof mss;

  if (cfg->len != 0)
    return cfg->len;
  if (getsockopt (ctrl, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) != 0 || mss <= 0)
    mss = 0;
  if (cfg->protocol == QF_BW_TCP)
    {
      struct tcp_info info;
      socklen_t info_len = sizeof info;

      /* The control connection has carried too little for its MSS to leave the bound of half
       * the peer's first window (32768 on loopback, where 65483 is the real one); the MSS it
       * advertised (timestamps already taken off) is what the data connections will use. */
      memset (&info, 0, sizeof info);
      if (getsockopt (ctrl, IPPROTO_TCP, TCP_INFO, &info, &info_len) == 0
          && (int) info.tcpi_advmss > mss)
        mss = (int) info.tcpi_advmss;
    }
  if (cfg->protocol == QF_BW_UDP)
    return mss > 0 ? (guint) MIN (mss, QF_IPERF3_MAX_UDP_LEN) : 1460;
  if (mss == 0)
    return 128 * 1024;
  /* 16 whole segments per write, as many as fit in iperf3's largest block. */
  return (guint) (MIN (16, QF_IPERF3_MAX_TCP_LEN / mss) * mss);
}

static void
write_params (const QfBwConfig *cfg,
              guint             len,
              GString          *out)
{
  QfIperf3Params p = { 0 };

  p.udp = cfg->protocol == QF_BW_UDP;
  p.reverse = cfg->direction == QF_BW_DOWN;
  p.bidir = cfg->direction == QF_BW_BIDIR;
  p.nodelay = cfg->nodelay;
  p.auto_len = cfg->len == 0 && cfg->protocol == QF_BW_TCP;
  p.parallel = cfg->parallel;
  p.time_s = (gint64) ceil (cfg->time_s);
  p.omit_s = (gint64) ceil (cfg->omit_s);
  p.len = len;
  p.rate_bps = cfg->bitrate_bps > 0 ? cfg->bitrate_bps : p.udp ? QF_IPERF3_UDP_DEFAULT_BPS : 0;
  p.window = MAX (cfg->window_bytes, 0);
  _qf_iperf3_write_params (&p, out);
}

/* A UDP stream's setup: our hello until the responder's reply (iperf3's, or an older one's),
 * sent again every 2 s in case it was lost. */
static gboolean
udp_stream_hello (Run     *run,
                  int      fd,
                  GError **error)
{
  static const guchar hello[4] = { 0x39, 0x38, 0x37, 0x36 };
  static const guchar answer[4] = { 0x36, 0x37, 0x38, 0x39 };
  static const guchar legacy_answer[4] = { 0xB1, 0x68, 0xDE, 0x3A };   /* older iperf3 */
  QfBwConfig *cfg = &run->client->config;
  gint64 deadline = qf_clock_now_ns () + CONTROL_TIMEOUT_NS;
  gint64 resend = 0;

  for (;;)
    {
      guchar reply[16];
      struct pollfd pfd = { fd, POLLIN, 0 };
      gint64 now = qf_clock_now_ns ();
      ssize_t n;

      if (cancelled (run->cancel))
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped on request."));
          return FALSE;
        }
      if (now >= deadline)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                       _("The bandwidth responder at %s:%u did not answer the UDP stream setup. Is UDP port %u open on its firewall?"),
                       cfg->host, cfg->port, cfg->port);
          return FALSE;
        }
      /* The first hello goes at once; the rest only if the reply is slow (lost hello). */
      if (now >= resend)
        {
          send (fd, hello, sizeof hello, MSG_NOSIGNAL);
          resend = now + 2 * QF_NSEC_PER_SEC;
        }
      if (poll (&pfd, 1, 100) <= 0)
        continue;
      n = recv (fd, reply, sizeof reply, 0);
      if (n == 4 && (memcmp (reply, answer, 4) == 0 || memcmp (reply, legacy_answer, 4) == 0))
        return TRUE;
    }
}

/* Opens one data stream after CREATE_STREAMS (interop.md §1 "TCP streams" / "UDP streams"). */
static gboolean
open_stream (Run        *run,
             QfBwStream *s,
             const char *cookie,
             GError    **error)
{
  QfBwConfig *cfg = &run->client->config;
  int fd = connect_one (run, cfg->protocol == QF_BW_UDP ? SOCK_DGRAM : SOCK_STREAM, error);
  int one = 1, udp_buf = 4 * 1024 * 1024;

  if (fd < 0)
    return FALSE;
  s->fd = fd;
  if (cfg->protocol == QF_BW_UDP)
    {
      /* Bigger socket buffers keep a receiving UDP stream from dropping on bursts. */
      if (cfg->window_bytes == 0)
        setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &udp_buf, sizeof udp_buf);
      return udp_stream_hello (run, fd, error);
    }
  if (cfg->nodelay)
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return _qf_iperf3_write_exact (fd, cookie, QF_IPERF3_COOKIE_SIZE,
                                 qf_clock_now_ns () + CONTROL_TIMEOUT_NS, run->cancel,
                                 _("stream cookie"), error);
}

/* Finds the interface whose address is the control connection's local address. */
static void
find_iface (int   ctrl,
            char *out,
            gsize out_len)
{
  struct sockaddr_storage local;
  socklen_t len = sizeof local;
  struct ifaddrs *ifs = NULL;

  out[0] = '\0';
  if (getsockname (ctrl, (struct sockaddr *) &local, &len) != 0 || getifaddrs (&ifs) != 0)
    return;
  for (struct ifaddrs *i = ifs; i != NULL && out[0] == '\0'; i = i->ifa_next)
    {
      struct sockaddr *a = i->ifa_addr;
      if (a == NULL)
        continue;
      if (a->sa_family == AF_INET && local.ss_family == AF_INET
          && ((struct sockaddr_in *) a)->sin_addr.s_addr == ((struct sockaddr_in *) &local)->sin_addr.s_addr)
        g_strlcpy (out, i->ifa_name, out_len);
      else if (a->sa_family == AF_INET6 && local.ss_family == AF_INET6)
        {
          const struct in6_addr *l = &((struct sockaddr_in6 *) &local)->sin6_addr;
          if (IN6_IS_ADDR_V4MAPPED (l))
            continue;
          if (memcmp (&((struct sockaddr_in6 *) a)->sin6_addr, l, sizeof *l) == 0)
            g_strlcpy (out, i->ifa_name, out_len);
        }
    }
  /* IPv4 over an IPv6 socket: match the mapped address. */
  if (out[0] == '\0' && local.ss_family == AF_INET6
      && IN6_IS_ADDR_V4MAPPED (&((struct sockaddr_in6 *) &local)->sin6_addr))
    {
      guint32 v4;
      memcpy (&v4, &((struct sockaddr_in6 *) &local)->sin6_addr.s6_addr[12], 4);
      for (struct ifaddrs *i = ifs; i != NULL && out[0] == '\0'; i = i->ifa_next)
        if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET
            && ((struct sockaddr_in *) i->ifa_addr)->sin_addr.s_addr == v4)
          g_strlcpy (out, i->ifa_name, out_len);
    }
  freeifaddrs (ifs);
}

static void
write_client_results (Run     *run,
                      gdouble  duration_s,
                      const QfCpuMark *cpu_start,
                      GString *out)
{
  QfMiniJsonWriter w;
  gboolean tcp_sender = FALSE;

  for (guint i = 0; i < run->n_streams; i++)
    tcp_sender |= run->streams[i].sender && !run->streams[i].udp;
  qf_minijson_writer_init (&w, out);
  _qf_iperf3_write_results_head (&w, cpu_start, tcp_sender);
  qf_minijson_writer_key (&w, "streams");
  qf_minijson_writer_begin_array (&w);
  for (guint i = 0; i < run->n_streams; i++)
    {
      const QfBwStream *s = &run->streams[i];

      _qf_iperf3_write_stream_result (&w, s, !s->udp, run->base_bytes[i],
                                      run->base_errors[i], run->base_packets[i],
                                      run->base_retrans[i], duration_s);
    }
  qf_minijson_writer_end_array (&w);
  qf_minijson_writer_end_object (&w);
}

static const QfMiniJson *
peer_stream (const QfMiniJson *peer_results,
             guint             id)
{
  const QfMiniJson *streams = qf_minijson_get (peer_results, "streams");

  /* Linear in the peer's JSON (at most QF_MINIJSON_MAX_NODES values), whatever it holds. */
  if (qf_minijson_type (streams) != QF_MINIJSON_ARRAY)
    return NULL;
  for (const QfMiniJson *s = qf_minijson_first (streams); s != NULL; s = qf_minijson_next (s))
    if (qf_minijson_int (qf_minijson_get (s, "id"), -1) == id)
      return s;
  return NULL;
}

/* Both ends' counts summed over the streams (summarize). */
typedef struct
{
  guint64  sent;
  guint64  received;
  guint64  up_rx;
  guint64  down_rx;
  guint64  lost;
  guint64  packets;
  guint64  out_of_order;
  gdouble  jitter_sum;
  guint    n_jitter;
  gdouble  up_time;
  gboolean up_known;
  gint64   retrans;
  gboolean retrans_known;
} Totals;

/* A stream we sent on: our count of what went out, the peer's (ps, NULL when its results never
 * came) of what arrived, loss and jitter; retransmits from our TCP_INFO. */
static void
tally_sending_stream (const Run        *run,
                      guint             i,
                      const QfMiniJson *ps,
                      Totals           *t)
{
  const QfBwStream *s = &run->streams[i];
  gint64 peer_bytes = ps != NULL ? qf_minijson_int (qf_minijson_get (ps, "bytes"), 0) : 0;
  gdouble peer_end = ps != NULL ? qf_minijson_double (qf_minijson_get (ps, "end_time"), 0) : 0;

  t->sent += s->bytes - run->base_bytes[i];
  if (ps != NULL)
    {
      t->received += MAX (peer_bytes, 0);
      t->up_rx += MAX (peer_bytes, 0);
      t->up_known = TRUE;
      t->up_time = MAX (t->up_time, peer_end);
    }
  if (!s->udp && run->base_retrans[i] >= 0 && run->prev_retrans[i] >= 0)
    {
      t->retrans += run->prev_retrans[i] - run->base_retrans[i];
      t->retrans_known = TRUE;
    }
  if (s->udp && ps != NULL)
    {
      t->lost += MAX (qf_minijson_int (qf_minijson_get (ps, "errors"), 0), 0);
      t->packets += MAX (qf_minijson_int (qf_minijson_get (ps, "packets"), 0), 0);
      t->jitter_sum += qf_minijson_double (qf_minijson_get (ps, "jitter"), 0);
      t->n_jitter++;
    }
}

/* A stream the peer sent on: our count of what arrived, loss and jitter; the peer's (ps) of what
 * went out and its retransmits. */
static void
tally_receiving_stream (const Run        *run,
                        guint             i,
                        const QfMiniJson *ps,
                        Totals           *t)
{
  const QfBwStream *s = &run->streams[i];
  guint64 local = s->bytes - run->base_bytes[i];

  t->received += local;
  t->down_rx += local;
  if (ps != NULL)
    {
      gint64 peer_bytes = qf_minijson_int (qf_minijson_get (ps, "bytes"), 0);
      gint64 r = qf_minijson_int (qf_minijson_get (ps, "retransmits"), -1);

      t->sent += MAX (peer_bytes, 0);
      if (r >= 0)
        {
          t->retrans += r;
          t->retrans_known = TRUE;
        }
    }
  if (s->udp)
    {
      t->lost += s->errors - run->base_errors[i];
      t->packets += s->packets - run->base_packets[i];
      t->out_of_order += s->out_of_order;
      t->jitter_sum += s->jitter_s;
      t->n_jitter++;
    }
}

/* Final figures from our counters and the peer's results (NULL when it never sent them). */
static void
summarize (Run              *run,
           gdouble           duration_s,
           const QfMiniJson *peer_results,
           QfBwResult       *result)
{
  Totals t = { 0 };
  gdouble secs = duration_s > 0 ? duration_s : 1;

  for (guint i = 0; i < run->n_streams; i++)
    {
      const QfMiniJson *ps = peer_stream (peer_results, run->streams[i].id);

      if (run->streams[i].sender)
        tally_sending_stream (run, i, ps, &t);
      else
        tally_receiving_stream (run, i, ps, &t);
    }
  if (t.up_time <= 0)
    t.up_time = secs;

  result->duration_s = duration_s;
  result->bytes_sent = t.sent;
  result->bytes_received = t.received;
  result->sent_mbps = t.sent * 8.0 / secs / 1e6;
  result->received_mbps = t.received * 8.0 / secs / 1e6;
  result->up_mbps = t.up_known ? t.up_rx * 8.0 / t.up_time / 1e6 : 0;
  result->down_mbps = t.down_rx * 8.0 / duration_s / 1e6;
  if (result->direction == QF_BW_UP && !t.up_known)
    result->received_mbps = 0;
  result->retransmits = t.retrans_known ? t.retrans : -1;
  if (run->client->config.protocol == QF_BW_UDP)
    {
      result->jitter_ms = t.n_jitter > 0 ? t.jitter_sum / t.n_jitter * 1e3 : 0;
      result->lost_packets = t.lost;
      result->total_packets = t.packets;
      result->out_of_order = t.out_of_order;
      result->lost_pct = t.packets > 0 ? 100.0 * t.lost / t.packets : 0;
    }
}

static void
record_interval (Run        *run,
                 QfBwResult *result,
                 gint64      t0_ns,
                 gint64      prev_ns,
                 gint64      now_ns)
{
  QfBwConfig *cfg = &run->client->config;
  QfBwInterval iv = { 0 };
  guint64 up = 0, down = 0;
  gint64 retrans = 0;
  gboolean retrans_known = FALSE;
  gdouble secs = (now_ns - prev_ns) / 1e9;

  for (guint i = 0; i < run->n_streams; i++)
    {
      QfBwStream *s = &run->streams[i];
      guint64 b = _qf_atomic_get64 (&s->bytes);
      guint64 d = b - run->prev_bytes[i];

      run->prev_bytes[i] = b;
      run->stream_iv[i].id = s->id;
      run->stream_iv[i].sender = s->sender;
      run->stream_iv[i].mbps = d * 8.0 / secs / 1e6;
      if (s->sender)
        up += d;
      else
        down += d;
      if (s->sender && !s->udp && run->prev_retrans[i] >= 0)
        {
          gint64 r = _qf_bw_tcp_total_retrans (s->fd);
          if (r >= 0)
            {
              retrans += r - run->prev_retrans[i];
              run->prev_retrans[i] = r;
              retrans_known = TRUE;
            }
        }
    }
  iv.t_s = (now_ns - t0_ns) / 1e9;
  iv.up_mbps = up * 8.0 / secs / 1e6;
  iv.down_mbps = down * 8.0 / secs / 1e6;
  iv.mbps = iv.up_mbps + iv.down_mbps;
  iv.retransmits = retrans_known ? retrans : -1;
  g_array_append_val (result->intervals, iv);

  if (cfg->ring != NULL)
    {
      QfSample sample = { now_ns, (gint64) (iv.mbps * 1e6), 0, 0 };
      qf_ring_push (cfg->ring, &sample);
      if (cfg->direction == QF_BW_BIDIR)
        {
          sample.channel = 1;
          sample.value_ns = (gint64) (iv.up_mbps * 1e6);
          qf_ring_push (cfg->ring, &sample);
          sample.channel = 2;
          sample.value_ns = (gint64) (iv.down_mbps * 1e6);
          qf_ring_push (cfg->ring, &sample);
        }
    }
  if (cfg->on_interval != NULL)
    cfg->on_interval (&iv, run->stream_iv, run->n_streams, cfg->user_data);
}

static void
stop_all_streams (Run *run)
{
  g_atomic_int_set (&run->stop_senders, 1);
  g_atomic_int_set (&run->stop_receivers, 1);
  for (guint i = 0; i < run->n_streams; i++)
    _qf_bw_stream_join (&run->streams[i]);
}

static gboolean
stream_failure (Run     *run,
                GError **error)
{
  QfBwConfig *cfg = &run->client->config;

  for (guint i = 0; i < run->n_streams; i++)
    if (g_atomic_int_get (&run->streams[i].failed))
      {
        QfBwStream *s = &run->streams[i];
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                     _("Data stream %u to %s:%u broke off (%s). The peer stopped or the link went down."),
                     s->id, cfg->host, cfg->port,
                     s->eof ? _("closed by the peer") : g_strerror (s->errsv));
        return TRUE;
      }
  return FALSE;
}

/* Handles one byte the peer sent during the test. Returns FALSE with error set. */
static gboolean
unexpected_state (Run     *run,
                  GError **error)
{
  QfBwConfig *cfg = &run->client->config;
  signed char state;
  g_autoptr(GError) local = NULL;

  if (!_qf_iperf3_read_state (run->ctrl, &state, qf_clock_now_ns () + QF_NSEC_PER_SEC,
                              run->cancel, &local))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                   _("The bandwidth responder at %s:%u closed the control connection during the test. It stopped or crashed."),
                   cfg->host, cfg->port);
      return FALSE;
    }
  if (!peer_refused (run, state, error))
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                 _("The bandwidth responder sent state %d during the test."), state);
  return FALSE;
}

/* ---------------------------------------------------------------- the phases of a run */

static Run *
run_new (QfBwClient *client,
         const gint *cancel)
{
  Run *run = g_new0 (Run, 1);

  run->client = client;
  run->cancel = cancel;
  run->ctrl = -1;
  for (guint i = 0; i < G_N_ELEMENTS (run->streams); i++)
    run->streams[i].fd = -1;
  return run;
}

static void
run_free (Run *run)
{
  stop_all_streams (run);
  for (guint i = 0; i < run->n_streams; i++)
    _qf_bw_stream_clear (&run->streams[i]);
  if (run->ctrl >= 0)
    close (run->ctrl);
  g_clear_pointer (&run->procstat, qf_procstat_free);
  g_clear_pointer (&run->snap0, qf_procstat_snapshot_free);
  g_clear_pointer (&run->snap1, qf_procstat_snapshot_free);
  g_free (run);
}

static void
result_begin (const QfBwConfig *cfg,
              QfBwResult       *result)
{
  if (result->intervals == NULL)
    result->intervals = g_array_new (FALSE, TRUE, sizeof (QfBwInterval));
  result->protocol = cfg->protocol;
  result->direction = cfg->direction;
  result->streams = cfg->parallel;
  result->retransmits = -1;
  result->jitter_ms = cfg->protocol == QF_BW_UDP ? 0 : -1;
  result->lost_pct = cfg->protocol == QF_BW_UDP ? 0 : -1;
}

/* Opens the control connection and asks for the test: cookie (and the access-token challenge),
 * PARAM_EXCHANGE, our parameters, CREATE_STREAMS. Sets result->len to the block length asked
 * for. */
static gboolean
handshake (Run         *run,
           char        *cookie,
           QfBwResult  *result,
           GError     **error)
{
  QfBwConfig *cfg = &run->client->config;
  g_autoptr(GString) json = g_string_new (NULL);
  int one = 1;

  run->ctrl = connect_one (run, SOCK_STREAM, error);
  if (run->ctrl < 0)
    return FALSE;
  setsockopt (run->ctrl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  _qf_iperf3_make_cookie (cookie);
  if (cfg->token != NULL)
    qf_auth_bw_mark_cookie (cookie);
  if (!_qf_iperf3_write_exact (run->ctrl, cookie, QF_IPERF3_COOKIE_SIZE,
                               qf_clock_now_ns () + CONTROL_TIMEOUT_NS, run->cancel,
                               _("cookie"), error)
      || !expect_param_exchange (run, cookie, error))
    return FALSE;

  result->len = default_len (cfg, run->ctrl);
  write_params (cfg, result->len, json);
  return _qf_iperf3_write_json (run->ctrl, json, error)
         && expect_state (run, QF_IPERF3_CREATE_STREAMS, error);
}

/* Opens every data stream, our sending ones first, then our receiving ones
 * (iperf_handle_message_client). */
static gboolean
open_streams (Run         *run,
              const char  *cookie,
              guint        len,
              GError     **error)
{
  QfBwConfig *cfg = &run->client->config;
  guint per_dir = cfg->parallel;

  run->n_streams = cfg->direction == QF_BW_BIDIR ? 2 * per_dir : per_dir;
  for (guint i = 0; i < run->n_streams; i++)
    {
      QfBwStream *s = &run->streams[i];

      s->id = _qf_iperf3_stream_id (i);
      s->udp = cfg->protocol == QF_BW_UDP;
      s->len = len;
      s->sender = cfg->direction == QF_BW_UP || (cfg->direction == QF_BW_BIDIR && i < per_dir);
      s->rate_bps = s->sender ? (cfg->protocol == QF_BW_UDP && cfg->bitrate_bps == 0
                                   ? QF_IPERF3_UDP_DEFAULT_BPS : cfg->bitrate_bps) : 0;
      s->zerocopy = cfg->zerocopy;
      s->auto_len = cfg->len == 0;
      s->stop = s->sender ? &run->stop_senders : &run->stop_receivers;
      if (!open_stream (run, s, cookie, error))
        return FALSE;
    }
  return TRUE;
}

/* Waits for TEST_START and TEST_RUNNING: the peer has its streams and the test begins. */
static gboolean
wait_test_running (Run     *run,
                   GError **error)
{
  for (;;)
    {
      signed char state;

      if (!_qf_iperf3_read_state (run->ctrl, &state, qf_clock_now_ns () + CONTROL_TIMEOUT_NS,
                                  run->cancel, error))
        return FALSE;
      if (state == QF_IPERF3_TEST_RUNNING)
        return TRUE;
      if (state == QF_IPERF3_TEST_START)
        continue;
      if (!peer_refused (run, state, error))
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                     _("The bandwidth responder sent state %d before the test started."), state);
      return FALSE;
    }
}

/* The interface whose rx/tx rates go with the result: the one asked for, else the one the
 * control connection leaves by. */
static void
iface_begin (Run        *run,
             QfBwResult *result)
{
  QfBwConfig *cfg = &run->client->config;

  if (cfg->iface != NULL && cfg->iface[0] != '\0')
    g_strlcpy (result->iface, cfg->iface, sizeof result->iface);
  else
    find_iface (run->ctrl, result->iface, sizeof result->iface);
  if (result->iface[0] != '\0')
    {
      run->procstat = qf_procstat_new (NULL, QF_PROCSTAT_NET, NULL);
      run->snap0 = qf_procstat_snapshot_new ();
      run->snap1 = qf_procstat_snapshot_new ();
    }
}

/* The interface counters where the measured part starts; unreadable, no rates at all. */
static void
iface_mark_start (Run *run)
{
  if (run->procstat != NULL && !qf_procstat_read (run->procstat, run->snap0, NULL))
    g_clear_pointer (&run->procstat, qf_procstat_free);
}

static void
iface_rates (Run        *run,
             QfBwResult *result)
{
  QfNetRates rates;

  if (run->procstat != NULL && qf_procstat_read (run->procstat, run->snap1, NULL)
      && qf_procstat_net_rate (run->snap0, run->snap1, result->iface, &rates))
    {
      result->have_iface = TRUE;
      result->rx_kBps = rates.rx_kBps;
      result->tx_kBps = rates.tx_kBps;
    }
}

/* Sets the measuring clock and starts the stream workers. */
static void
start_streams (Run        *run,
               QfBwResult *result)
{
  QfBwConfig *cfg = &run->client->config;
  gint64 t_start;

  run->interval_ns = (gint64) (cfg->interval_s * 1e9);
  run->stall_ns = (gint64) (cfg->stall_timeout_s * 1e9);
  if (cfg->bitrate_bps > 0 || cfg->protocol == QF_BW_UDP)
    {
      /* A slow paced stream sends one block every len × 8 / rate seconds: not a stall. */
      guint64 bps = cfg->bitrate_bps > 0 ? cfg->bitrate_bps : QF_IPERF3_UDP_DEFAULT_BPS;
      run->stall_ns = MAX (run->stall_ns, (gint64) (3e9 * result->len * 8.0 / bps));
    }
  for (guint i = 0; i < run->n_streams; i++)
    run->base_retrans[i] = run->prev_retrans[i] = -1;
  t_start = qf_clock_now_ns ();
  run->omit_end = t_start + (gint64) (cfg->omit_s * 1e9);
  run->test_end = run->omit_end + (gint64) (cfg->time_s * 1e9);
  run->prev_tick = t_start;
  run->next_tick = run->omit_end;
  run->last_move_ns = t_start;
  if (cfg->omit_s == 0)
    {
      /* Nothing to omit: count from the first byte, so both sides count the same bytes. */
      run->omit_done = TRUE;
      run->t0 = t_start;
      run->next_tick = t_start + run->interval_ns;
      for (guint i = 0; i < run->n_streams; i++)
        if (run->streams[i].sender && !run->streams[i].udp)
          run->base_retrans[i] = run->prev_retrans[i] = _qf_bw_tcp_total_retrans (run->streams[i].fd);
      iface_mark_start (run);
    }
  for (guint i = 0; i < run->n_streams; i++)
    {
      /* Read before the worker starts: an auto_len sender rewrites len as it runs. */
      if (run->streams[i].sender)
        result->len = run->streams[i].len;
      _qf_bw_stream_start (&run->streams[i]);
    }
}

/* The warm-up is over at now: what the streams moved so far does not count. */
static void
end_omit (Run    *run,
          gint64  now)
{
  run->omit_done = TRUE;
  run->t0 = run->prev_tick = now;
  run->next_tick = now + run->interval_ns;
  for (guint i = 0; i < run->n_streams; i++)
    {
      QfBwStream *s = &run->streams[i];
      run->base_bytes[i] = run->prev_bytes[i] = _qf_atomic_get64 (&s->bytes);
      run->base_packets[i] = _qf_atomic_get64 (&s->packets);
      run->base_errors[i] = _qf_atomic_get64 (&s->errors);
      if (s->sender && !s->udp)
        run->base_retrans[i] = run->prev_retrans[i] = _qf_bw_tcp_total_retrans (s->fd);
    }
  iface_mark_start (run);
}

/* FALSE with error when no byte has moved either way for the stall timeout. */
static gboolean
still_moving (Run     *run,
              gint64   now,
              GError **error)
{
  QfBwConfig *cfg = &run->client->config;
  guint64 total = 0;

  for (guint i = 0; i < run->n_streams; i++)
    total += _qf_atomic_get64 (&run->streams[i].bytes);
  if (total != run->last_total)
    {
      run->last_total = total;
      run->last_move_ns = now;
      return TRUE;
    }
  if (now - run->last_move_ns <= run->stall_ns)
    return TRUE;
  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
               _("No data moved to or from %s:%u for %.0f s: the peer or the link stalled."),
               cfg->host, cfg->port, cfg->stall_timeout_s);
  return FALSE;
}

/* The control thread's watch while the workers move data: ends the warm-up, records a sample
 * every interval, and stops on a request, a broken stream, a stall or a word from the peer
 * (FALSE with error). Wakes at most every 100 ms. On TRUE, *end_ns is when the time was up. */
static gboolean
measure (Run         *run,
         QfBwResult  *result,
         gint64      *end_ns,
         GError     **error)
{
  for (;;)
    {
      struct pollfd pfd = { run->ctrl, POLLIN, 0 };
      gint64 now = qf_clock_now_ns ();
      gint64 wake;

      if (cancelled (run->cancel))
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped on request."));
          _qf_iperf3_write_state (run->ctrl, QF_IPERF3_CLIENT_TERMINATE, NULL);
          return FALSE;
        }
      if (!run->omit_done && now >= run->omit_end)
        end_omit (run, now);
      if (run->omit_done && now >= run->next_tick && now < run->test_end)
        {
          record_interval (run, result, run->t0, run->prev_tick, now);
          run->prev_tick = now;
          run->next_tick += run->interval_ns;
          if (run->next_tick <= now)
            run->next_tick = now + run->interval_ns;
        }
      if (now >= run->test_end)
        {
          *end_ns = now;
          return TRUE;
        }
      if (stream_failure (run, error))
        return FALSE;
      if (!still_moving (run, now, error))
        {
          _qf_iperf3_write_state (run->ctrl, QF_IPERF3_CLIENT_TERMINATE, NULL);
          return FALSE;
        }

      wake = MIN (MIN (run->next_tick, run->test_end), now + 100 * QF_NSEC_PER_MSEC);
      if (!run->omit_done)
        wake = MIN (wake, run->omit_end);
      if (poll (&pfd, 1, (int) MAX ((wake - now + QF_NSEC_PER_MSEC - 1) / QF_NSEC_PER_MSEC, 0)) > 0)
        {
          unexpected_state (run, error);
          return FALSE;
        }
    }
}

/* Closes the measured part at end_ns: the last interval, the interface rates; returns the
 * measured seconds. */
static gdouble
measure_end (Run        *run,
             QfBwResult *result,
             gint64      end_ns)
{
  gdouble duration_s;

  /* The last, partial interval counts when it is a noticeable part of one. */
  if (end_ns - run->prev_tick > run->interval_ns / 5)
    record_interval (run, result, run->t0, run->prev_tick, end_ns);
  duration_s = (end_ns - run->t0) / 1e9;
  iface_rates (run, result);
  return duration_s;
}

/* Senders stop now; receivers keep draining until EXCHANGE_RESULTS so no sender blocks. */
static void
stop_senders (Run        *run,
              QfBwResult *result)
{
  g_atomic_int_set (&run->stop_senders, 1);
  for (guint i = 0; i < run->n_streams; i++)
    if (run->streams[i].sender)
      {
        _qf_bw_stream_join (&run->streams[i]);
        result->len = run->streams[i].len;
        if (!run->streams[i].udp && run->base_retrans[i] >= 0)
          {
            gint64 r = _qf_bw_tcp_total_retrans (run->streams[i].fd);
            if (r >= 0)
              run->prev_retrans[i] = r;
          }
      }
}

/* TEST_END, then the results exchange: ours go out, the peer's come back (NULL on error). */
static QfMiniJson *
exchange_results (Run              *run,
                  gdouble           duration_s,
                  const QfCpuMark  *cpu_start,
                  GError          **error)
{
  g_autoptr(GString) json = g_string_new (NULL);

  if (!_qf_iperf3_write_state (run->ctrl, QF_IPERF3_TEST_END, error)
      || !expect_state (run, QF_IPERF3_EXCHANGE_RESULTS, error))
    return NULL;
  stop_all_streams (run);
  write_client_results (run, duration_s, cpu_start, json);
  if (!_qf_iperf3_write_json (run->ctrl, json, error))
    return NULL;
  return _qf_iperf3_read_json (run->ctrl, QF_IPERF3_MAX_RESULTS,
                               qf_clock_now_ns () + CONTROL_TIMEOUT_NS, run->cancel,
                               _("results"), error);
}

/* Our responder names itself in its results; stock iperf3 does not. */
static void
note_peer (const QfMiniJson *peer_results,
           QfBwResult       *result)
{
  const char *v = qf_minijson_string (qf_minijson_get (peer_results, "qualify_version"));

  result->peer_is_qualify = v != NULL;
  if (v != NULL)
    g_strlcpy (result->peer_version, v, sizeof result->peer_version);
}

gboolean
qf_bw_client_run (QfBwClient  *client,
                  const gint  *cancel,
                  QfBwResult  *result,
                  GError     **error)
{
  g_autoptr(QfMiniJson) peer_results = NULL;
  char cookie[QF_IPERF3_COOKIE_SIZE];
  QfCpuMark cpu_start;
  gdouble duration_s = 0;
  gint64 end_ns = 0;
  gboolean ok = FALSE;
  Run *run;

  g_return_val_if_fail (client != NULL && result != NULL, FALSE);

  run = run_new (client, cancel);
  result_begin (&client->config, result);
  _qf_iperf3_cpu_mark (&cpu_start);
  if (!handshake (run, cookie, result, error)
      || !open_streams (run, cookie, result->len, error)
      || !wait_test_running (run, error))
    goto out;

  iface_begin (run, result);
  start_streams (run, result);
  if (!measure (run, result, &end_ns, error))
    goto out_partial;
  duration_s = measure_end (run, result, end_ns);
  stop_senders (run, result);
  peer_results = exchange_results (run, duration_s, &cpu_start, error);
  if (peer_results == NULL || !expect_state (run, QF_IPERF3_DISPLAY_RESULTS, error))
    goto out_partial;
  _qf_iperf3_write_state (run->ctrl, QF_IPERF3_IPERF_DONE, NULL);
  note_peer (peer_results, result);
  ok = TRUE;

out_partial:
  stop_all_streams (run);
  if (!ok && run->omit_done && duration_s == 0)
    duration_s = (qf_clock_now_ns () - run->t0) / 1e9;
  summarize (run, duration_s, peer_results, result);
out:
  run_free (run);
  return ok;
}

gboolean
qf_bw_parse_rate (const char *text,
                  guint64    *bps)
{
  char *end = NULL;
  gdouble value;

  if (text == NULL)
    return FALSE;
  value = g_ascii_strtod (text, &end);
  if (end == text || !(value >= 0) || !isfinite (value))
    return FALSE;
  switch (*end)
    {
    case '\0': break;
    case 'k': case 'K': value *= 1e3; end++; break;
    case 'm': case 'M': value *= 1e6; end++; break;
    case 'g': case 'G': value *= 1e9; end++; break;
    case 't': case 'T': value *= 1e12; end++; break;
    default: return FALSE;
    }
  if (*end != '\0' || value > 1e15)
    return FALSE;
  *bps = (guint64) value;
  return TRUE;
}
