/* qf-iperf3.c — the bandwidth responder, an iperf3 3.12-compatible server (src/engine).
 * See qf-iperf3.h and ../shared/docs/interop.md §1. It speaks the control protocol through
 * qf-iperf3-proto.c and runs the data streams on the workers of qf-bw-streams.c, as our client
 * (qf-bandwidth.c) does on the other end. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>


#include "qf-admission.h"
#include "qf-auth.h"
#include "qf-bw-streams-private.h"
#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-iperf3-private.h"
#include "qf-iperf3-proto-private.h"
#include "qf-net.h"
#include "qf-text.h"

/* "fe80::1%eth0": an IPv6 literal, "%" and an interface name. */
#define PEER_NAME_MAX (INET6_ADDRSTRLEN + IF_NAMESIZE + 1)
/* How often the running test's figures are published for other threads. */
#define PUBLISH_NS    (100 * QF_NSEC_PER_MSEC)

/* A control connection that has not proven itself (qf-admission.h): its cookie and, with a
 * token, its answer to the challenge, read as they arrive while the loop serves the others. */
typedef struct
{
  int                     fd;          /* -1 = free */
  struct sockaddr_storage addr;
  char                    cookie[QF_IPERF3_COOKIE_SIZE];
  guint8                  challenge[QF_AUTH_BW_CHALLENGE_SIZE];
  guint8                  answer[QF_AUTH_MAC_SIZE];
  gsize                   have;        /* bytes of the cookie, then of the answer */
  gboolean                challenged;
} Pending;

struct QfIperf3Server
{
  int             listen_fd;
  int             family;
  struct sockaddr_storage bind_addr;
  socklen_t       bind_len;
  guint16         port;
  char           *iface;
  QfIperf3LogFunc log;
  gpointer        log_data;
  guint           tests_done;
  guint           refused;
  guint           max_streams;       /* data streams per test (both directions) */
  guint           max_test_s;        /* time + omit a test may ask for; 0 = any */
  gint64          idle_timeout_ns;   /* no byte moving for this long ends a test */
  QfAuthServer    auth;              /* the access token's check (qf-auth.h); none needed
                                      * until qf_iperf3_server_set_token */
  Pending         pending[QF_ADMISSION_TOTAL];
  QfAdmission     unproven;          /* the pending connections, oldest first */
  QfLogLimit      log_limit;         /* every line is about a connection (qf-admission.h) */
  GMutex          client_lock;
  QfServedClient  client;            /* under client_lock: the test running now; address
                                      * NULL when none (published by watch_test) */
  gint64          published_ns;      /* when watch_test last published (its thread only) */
};

typedef struct
{
  QfIperf3Server *server;
  const gint     *cancel;
  int             ctrl;
  char            peer_name[PEER_NAME_MAX];
  char            cookie[QF_IPERF3_COOKIE_SIZE];
  QfIperf3Params  p;
  guint           n_streams;
  QfBwStream      streams[2 * QF_IPERF3_MAX_STREAMS];
  guint64         base_bytes[2 * QF_IPERF3_MAX_STREAMS];
  guint64         base_packets[2 * QF_IPERF3_MAX_STREAMS];
  guint64         base_errors[2 * QF_IPERF3_MAX_STREAMS];
  gint64          base_retrans[2 * QF_IPERF3_MAX_STREAMS];
  gint            stop;
  /* the running test's clock (CLOCK_MONOTONIC ns) */
  gint64          t0;                /* start of the measured part */
  gint64          omit_end;
  gint64          deadline;          /* iperf3's: duration + omit + 40 s */
  gint64          limit;             /* the operator's: max_test_s + 2 s */
  gint64          last_move;
  guint64         last_total;
  gboolean        omit_done;
} Test;

static void
logf_ (QfIperf3Server *server,
       const char     *format,
       ...) G_GNUC_PRINTF (2, 3);

static void
logf_ (QfIperf3Server *server,
       const char     *format,
       ...)
{
  va_list args;

  va_start (args, format);
  qf_log_limit_vprintf (&server->log_limit, TRUE, server->log, server->log_data, format, args);
  va_end (args);
}

/* The line that sums up what the log limit held back, when one is due. */
static void
log_summary (QfIperf3Server *server,
             gboolean        force)
{
  qf_log_limit_flush (&server->log_limit, force, server->log, server->log_data);
}

static int
open_socket (int                          family,
             int                          type,
             const struct sockaddr_storage *addr,
             socklen_t                    addr_len,
             GError                     **error)
{
  int fd = socket (family, type | SOCK_CLOEXEC, 0);
  int one = 1, zero = 0;

  if (fd < 0)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_IO, _("Cannot open a socket: %s."),
                   g_strerror (errno));
      return -1;
    }
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (family == AF_INET6)
    setsockopt (fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  if (bind (fd, (const struct sockaddr *) addr, addr_len) != 0)
    {
      int errsv = errno;
      guint16 port = family == AF_INET6 ? ntohs (((struct sockaddr_in6 *) addr)->sin6_port)
                                        : ntohs (((struct sockaddr_in *) addr)->sin_port);
      close (fd);
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_IO,
                   _("Cannot use %s port %u for the bandwidth responder: %s. Is another iperf3 server or responder running? Choose another port."),
                   type == SOCK_STREAM ? "TCP" : "UDP", port, g_strerror (errsv));
      return -1;
    }
  return fd;
}

QfIperf3Server *
qf_iperf3_server_new (const char  *bind_address,
                      guint16      port,
                      GError     **error)
{
  g_autoptr(QfIperf3Server) server = g_new0 (QfIperf3Server, 1);
  struct addrinfo hints = { 0 }, *res = NULL;
  char port_text[8];
  int rc;

  server->listen_fd = -1;
  g_mutex_init (&server->client_lock);
  for (guint i = 0; i < G_N_ELEMENTS (server->pending); i++)
    server->pending[i].fd = -1;
  server->max_streams = 2 * QF_IPERF3_MAX_STREAMS;
  server->idle_timeout_ns = QF_IPERF3_IDLE_TIMEOUT_S * QF_NSEC_PER_SEC;
  hints.ai_family = bind_address != NULL ? AF_UNSPEC : AF_INET6;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  g_snprintf (port_text, sizeof port_text, "%u", port);
  rc = getaddrinfo (bind_address, port_text, &hints, &res);
  if (rc != 0 && bind_address == NULL)
    {
      hints.ai_family = AF_INET;
      rc = getaddrinfo (NULL, port_text, &hints, &res);
    }
  if (rc != 0)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID, _("Cannot use address “%s”: %s."),
                   bind_address ? bind_address : "*", gai_strerror (rc));
      return NULL;
    }
  memcpy (&server->bind_addr, res->ai_addr, res->ai_addrlen);
  server->bind_len = res->ai_addrlen;
  server->family = res->ai_family;
  freeaddrinfo (res);

  server->listen_fd = open_socket (server->family, SOCK_STREAM, &server->bind_addr,
                                   server->bind_len, error);
  if (server->listen_fd < 0 && bind_address == NULL && server->family == AF_INET6)
    {
      /* No IPv6 in this kernel: IPv4 only. */
      struct sockaddr_in *in = (struct sockaddr_in *) &server->bind_addr;
      g_clear_error (error);
      memset (&server->bind_addr, 0, sizeof server->bind_addr);
      in->sin_family = AF_INET;
      in->sin_port = htons (port);
      server->bind_len = sizeof *in;
      server->family = AF_INET;
      server->listen_fd = open_socket (AF_INET, SOCK_STREAM, &server->bind_addr, server->bind_len, error);
    }
  if (server->listen_fd < 0)
    return NULL;
  if (listen (server->listen_fd, 128) != 0)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_IO, _("Cannot listen on port %u: %s."),
                   port, g_strerror (errno));
      return NULL;
    }
  {
    struct sockaddr_storage bound;
    socklen_t len = sizeof bound;
    getsockname (server->listen_fd, (struct sockaddr *) &bound, &len);
    server->port = bound.ss_family == AF_INET6 ? ntohs (((struct sockaddr_in6 *) &bound)->sin6_port)
                                               : ntohs (((struct sockaddr_in *) &bound)->sin_port);
    if (server->family == AF_INET6)
      ((struct sockaddr_in6 *) &server->bind_addr)->sin6_port = htons (server->port);
    else
      ((struct sockaddr_in *) &server->bind_addr)->sin_port = htons (server->port);
  }
  return g_steal_pointer (&server);
}

guint16
qf_iperf3_server_get_port (QfIperf3Server *server)
{
  return server->port;
}

static gboolean
bind_iface (int          fd,
            const char  *iface,
            GError     **error)
{
  g_autofree char *shown = NULL;
  int errsv;

  if (iface == NULL || setsockopt (fd, SOL_SOCKET, SO_BINDTODEVICE, iface, strlen (iface) + 1) == 0)
    return TRUE;
  errsv = errno;
  shown = qf_text_clean (iface, -1);
  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_IO,
               _("Cannot serve on interface %s only: %s. Check its name, or run as root."),
               shown, g_strerror (errsv));
  return FALSE;
}

gboolean
qf_iperf3_server_bind_iface (QfIperf3Server  *server,
                             const char      *iface,
                             GError         **error)
{
  g_return_val_if_fail (server != NULL, FALSE);

  if (iface == NULL || iface[0] == '\0')
    return TRUE;
  if (!bind_iface (server->listen_fd, iface, error))
    return FALSE;
  g_free (server->iface);
  server->iface = g_strdup (iface);
  return TRUE;
}

void
qf_iperf3_server_set_log (QfIperf3Server  *server,
                          QfIperf3LogFunc  log,
                          gpointer         user_data)
{
  server->log = log;
  server->log_data = user_data;
}

void
qf_iperf3_server_set_limits (QfIperf3Server *server,
                             guint           max_clients,
                             guint           max_test_seconds)
{
  g_return_if_fail (server != NULL);

  server->max_streams = max_clients > 0 ? MIN (max_clients, 2 * QF_IPERF3_MAX_STREAMS)
                                        : 2 * QF_IPERF3_MAX_STREAMS;
  server->max_test_s = max_test_seconds;
}

gboolean
qf_iperf3_server_set_token (QfIperf3Server  *server,
                            GBytes          *token,
                            gboolean         allow_classic,
                            GError         **error)
{
  g_return_val_if_fail (server != NULL, FALSE);

  qf_auth_server_clear (&server->auth);
  return qf_auth_server_init (&server->auth, token, allow_classic, error);
}

void
_qf_iperf3_server_set_idle_timeout (QfIperf3Server *server,
                                    gdouble         seconds)
{
  server->idle_timeout_ns = (gint64) (seconds * 1e9);
}

guint
qf_iperf3_server_tests_done (QfIperf3Server *server)
{
  return g_atomic_int_get (&server->tests_done);
}

guint
qf_iperf3_server_refused (QfIperf3Server *server)
{
  return g_atomic_int_get (&server->refused);
}

void
qf_iperf3_server_free (QfIperf3Server *server)
{
  if (server == NULL)
    return;
  if (server->listen_fd >= 0)
    close (server->listen_fd);
  for (guint i = 0; i < G_N_ELEMENTS (server->pending); i++)
    if (server->pending[i].fd >= 0)
      close (server->pending[i].fd);
  g_free (server->iface);
  qf_auth_server_clear (&server->auth);
  qf_served_client_clear (&server->client);
  g_mutex_clear (&server->client_lock);
  g_free (server);
}

static void
deny (QfIperf3Server *server,
      int             fd)
{
  signed char state = QF_IPERF3_ACCESS_DENIED;
  char sink[512];

  /* Counted first, so whoever reads the answer sees the count. */
  g_atomic_int_inc (&server->refused);
  send (fd, &state, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  /* What the client sent is read first: closing with unread bytes would reset the connection,
   * and the client could lose the answer. */
  for (guint i = 0; i < 4 && recv (fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++)
    ;
  close (fd);
}

/* A new control connection while a test runs is turned away without reading from it. One per
 * call: the callers look at their own control connection between two, so a client queued just
 * after the current one closed is served next rather than turned away. */
static void
deny_pending (QfIperf3Server *server)
{
  struct pollfd pfd = { server->listen_fd, POLLIN, 0 };

  if (poll (&pfd, 1, 0) > 0)
    {
      int fd = accept4 (server->listen_fd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0)
        deny (server, fd);
    }
}

static void
server_error (QfIperf3Server *server,
              int             ctrl,
              int             ie)
{
  signed char state = QF_IPERF3_SERVER_ERROR;
  guint32 codes[2] = { GUINT32_TO_BE ((guint32) ie), 0 };

  g_atomic_int_inc (&server->refused);
  if (_qf_iperf3_write_state (ctrl, state, NULL))
    _qf_iperf3_write_exact (ctrl, codes, sizeof codes, qf_clock_now_ns () + QF_NSEC_PER_SEC,
                            NULL, _("error code"), NULL);
}


/* The responder's limits (qf_iperf3_server_set_limits), checked once the parameters are known;
 * iperf3 clients read the refusal as "number of parallel streams too large" or "test duration
 * too long". */
static gboolean
check_limits (Test    *t,
              GError **error)
{
  QfIperf3Server *server = t->server;
  guint n = t->p.bidir ? 2 * t->p.parallel : t->p.parallel;

  if (n > server->max_streams)
    {
      server_error (t->server, t->ctrl, QF_IPERF3_IE_NUMSTREAMS);
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("the test asks for %u data streams; this responder allows %u at once"),
                   n, server->max_streams);
      return FALSE;
    }
  if (server->max_test_s > 0 && t->p.time_s + t->p.omit_s > (gint64) server->max_test_s)
    {
      server_error (t->server, t->ctrl, QF_IPERF3_IE_DURATION);
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("the test asks for %lld s; this responder allows tests of at most %u s"),
                   (long long) t->p.time_s + (long long) t->p.omit_s, server->max_test_s);
      return FALSE;
    }
  return TRUE;
}

/* Waits until the control connection has something to read, turning away every other client
 * meanwhile as iperf3 does (ACCESS_DENIED at once, not a wait in the listen queue). The read
 * that follows reports a timeout or a stop. */
static void
wait_ctrl (Test   *t,
           gint64  deadline_ns)
{
  for (;;)
    {
      struct pollfd pfd[2] = { { t->ctrl, POLLIN, 0 }, { t->server->listen_fd, POLLIN, 0 } };
      gint64 now = qf_clock_now_ns ();

      if ((t->cancel != NULL && g_atomic_int_get (t->cancel)) || now >= deadline_ns)
        return;
      if (poll (pfd, 2, (int) MIN ((deadline_ns - now) / QF_NSEC_PER_MSEC + 1, 100)) <= 0)
        continue;
      /* The control connection first: when this client has just closed it, a client already
       * waiting behind it is the next to be served, not turned away. */
      if (pfd[0].revents)
        return;
      if (pfd[1].revents)
        deny_pending (t->server);
    }
}

/* The client's host as a person or client can use it again: link-local with "%iface". */
static void
describe_peer (const struct sockaddr_storage *addr,
               char                          *out,
               gsize                          out_len)
{
  g_autofree char *host = qf_net_host_to_string ((const struct sockaddr *) addr);

  g_strlcpy (out, host, out_len);
}

/* A UDP socket on the test's port that takes the next stream's first datagram. */
static int
open_udp_listener (QfIperf3Server  *server,
                   GError         **error)
{
  int fd = open_socket (server->family, SOCK_DGRAM, &server->bind_addr, server->bind_len, error);

  if (fd >= 0 && !bind_iface (fd, server->iface, error))
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

/* Waits up to 100 ms for the next stream on fd; *ready when it is there. FALSE with error when
 * stopped, out of time, or the client gave up (its control connection spoke or closed). */
static gboolean
wait_next_stream (Test      *t,
                  int        fd,
                  gint64     deadline,
                  guint      n,
                  gboolean  *ready,
                  GError   **error)
{
  struct pollfd pfd[2] = { { fd, POLLIN, 0 }, { t->ctrl, POLLIN, 0 } };

  *ready = FALSE;
  if (t->cancel != NULL && g_atomic_int_get (t->cancel))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped on request."));
      return FALSE;
    }
  if (qf_clock_now_ns () >= deadline)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                   _("the client opened %u of %u data streams in time"), t->n_streams, n);
      return FALSE;
    }
  if (poll (pfd, 2, 100) <= 0)
    return TRUE;
  if (pfd[1].revents)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                   _("the client gave up while opening data streams"));
      return FALSE;
    }
  *ready = TRUE;
  return TRUE;
}

/* The next TCP stream, or -1: a connection without this test's cookie (another client, a wrong
 * cookie) is turned away and is not part of the test. */
static int
accept_tcp_stream (Test *t)
{
  QfIperf3Server *server = t->server;
  char cookie[QF_IPERF3_COOKIE_SIZE];
  g_autoptr(GError) local = NULL;
  int fd = accept4 (server->listen_fd, NULL, NULL, SOCK_CLOEXEC);

  if (fd < 0)
    return -1;
  if (!_qf_iperf3_read_exact (fd, cookie, sizeof cookie, qf_clock_now_ns () + 2 * QF_NSEC_PER_SEC,
                              t->cancel, _("cookie"), &local)
      || memcmp (cookie, t->cookie, QF_IPERF3_COOKIE_SIZE - 1) != 0)
    {
      deny (server, fd);
      return -1;
    }
  if (t->p.nodelay)
    {
      int one = 1;
      setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
  return fd;
}

/* The next UDP stream: the listener *udp_fd connects to the sender of the first datagram and
 * becomes the stream (*fd; -1 when nothing usable came), a fresh listener takes its place, and
 * the client gets iperf3's reply. FALSE with error when no fresh listener can be had. */
static gboolean
accept_udp_stream (Test    *t,
                   int     *udp_fd,
                   int     *fd,
                   GError **error)
{
  static const guchar reply[4] = { 0x36, 0x37, 0x38, 0x39 };
  struct sockaddr_storage from;
  socklen_t from_len = sizeof from;
  char buf[64];
  int rcvbuf = 4 * 1024 * 1024;

  *fd = -1;
  if (recvfrom (*udp_fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *) &from, &from_len) < 0
      || connect (*udp_fd, (struct sockaddr *) &from, from_len) != 0)
    return TRUE;
  *fd = *udp_fd;
  if (t->p.window == 0)
    setsockopt (*fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  /* A fresh listener for the next stream before we answer this one. */
  *udp_fd = open_udp_listener (t->server, error);
  send (*fd, reply, sizeof reply, MSG_NOSIGNAL);
  if (*udp_fd < 0)
    {
      close (*fd);
      *fd = -1;
      return FALSE;
    }
  return TRUE;
}

/* Makes fd the test's next data stream. */
static void
add_stream (Test *t,
            int   fd)
{
  QfBwStream *s = &t->streams[t->n_streams];

  if (t->p.window > 0)
    {
      setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &t->p.window, sizeof t->p.window);
      setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &t->p.window, sizeof t->p.window);
    }
  s->fd = fd;
  s->id = _qf_iperf3_stream_id (t->n_streams);
  s->udp = t->p.udp;
  s->len = t->p.len;
  s->udp64 = t->p.udp64;
  s->auto_len = t->p.auto_len;
  /* bidir: the client's sending streams come first; they are our receiving ones. */
  s->sender = t->p.bidir ? t->n_streams >= t->p.parallel : t->p.reverse;
  s->rate_bps = s->sender ? t->p.rate_bps : 0;
  s->stop = &t->stop;
  t->n_streams++;
}

/* Accepts the test's data streams (interop.md §1 steps 3-4). */
static gboolean
accept_streams (Test    *t,
                GError **error)
{
  QfIperf3Server *server = t->server;
  gint64 deadline = qf_clock_now_ns () + 10 * QF_NSEC_PER_SEC;
  guint n = t->p.bidir ? 2 * t->p.parallel : t->p.parallel;
  int udp_fd = -1;
  gboolean ok = FALSE;

  if (t->p.udp)
    {
      udp_fd = open_udp_listener (server, error);
      if (udp_fd < 0)
        {
          server_error (t->server, t->ctrl, QF_IPERF3_IE_CREATESTREAM);
          return FALSE;
        }
    }
  if (!_qf_iperf3_write_state (t->ctrl, QF_IPERF3_CREATE_STREAMS, error))
    goto out;

  while (t->n_streams < n)
    {
      gboolean ready;
      int fd = -1;

      if (!wait_next_stream (t, t->p.udp ? udp_fd : server->listen_fd, deadline, n, &ready,
                             error))
        goto out;
      if (!ready)
        continue;
      if (!t->p.udp)
        fd = accept_tcp_stream (t);
      else if (!accept_udp_stream (t, &udp_fd, &fd, error))
        goto out;
      if (fd >= 0)
        add_stream (t, fd);
    }
  ok = TRUE;
out:
  if (udp_fd >= 0)
    close (udp_fd);
  return ok;
}

static void
write_server_results (Test            *t,
                      gdouble          duration_s,
                      const QfCpuMark *cpu,
                      GString         *out)
{
  QfMiniJsonWriter w;
  gboolean tcp_sender = FALSE;

  for (guint i = 0; i < t->n_streams; i++)
    tcp_sender |= t->streams[i].sender && !t->p.udp;
  qf_minijson_writer_init (&w, out);
  _qf_iperf3_write_results_head (&w, cpu, tcp_sender);
  if (t->p.server_output)
    {
      qf_minijson_writer_key (&w, "server_output_text");
      qf_minijson_writer_string (&w, "Qualify bandwidth responder\n");
    }
  /* Lets our client tell its peer apart from a stock iperf3; iperf3 ignores unknown keys. */
  qf_minijson_writer_key (&w, "qualify_version");
  qf_minijson_writer_string (&w, PACKAGE_VERSION);
  qf_minijson_writer_key (&w, "streams");
  qf_minijson_writer_begin_array (&w);
  for (guint i = 0; i < t->n_streams; i++)
    {
      const QfBwStream *s = &t->streams[i];

      _qf_iperf3_write_stream_result (&w, s, !t->p.udp, t->base_bytes[i], t->base_errors[i],
                                      t->base_packets[i], t->base_retrans[i], duration_s);
    }
  qf_minijson_writer_end_array (&w);
  qf_minijson_writer_end_object (&w);
}

static void
snapshot_bases (Test *t)
{
  for (guint i = 0; i < t->n_streams; i++)
    {
      QfBwStream *s = &t->streams[i];
      t->base_bytes[i] = _qf_atomic_get64 (&s->bytes);
      t->base_packets[i] = _qf_atomic_get64 (&s->packets);
      t->base_errors[i] = _qf_atomic_get64 (&s->errors);
      t->base_retrans[i] = s->sender && !t->p.udp ? _qf_bw_tcp_total_retrans (s->fd) : -1;
    }
}

/* TEST_START and TEST_RUNNING; then the workers start and the test's clock runs. */
static gboolean
start_test (Test    *t,
            GError **error)
{
  QfIperf3Server *server = t->server;
  gint64 start;

  if (!_qf_iperf3_write_state (t->ctrl, QF_IPERF3_TEST_START, error)
      || !_qf_iperf3_write_state (t->ctrl, QF_IPERF3_TEST_RUNNING, error))
    return FALSE;
  start = t->t0 = qf_clock_now_ns ();
  t->omit_end = start + t->p.omit_s * QF_NSEC_PER_SEC;
  t->omit_done = t->p.omit_s == 0;
  /* Without omit, count from the first byte (bases taken before the workers start). */
  snapshot_bases (t);
  for (guint i = 0; i < t->n_streams; i++)
    _qf_bw_stream_start (&t->streams[i]);
  /* iperf3 gives up on a test after duration + omit + 40 s. */
  t->deadline = start + (t->p.time_s + t->p.omit_s + 40) * QF_NSEC_PER_SEC;
  /* The operator's limit (checked against time + omit already) with 2 s for the client's
   * TEST_END to arrive; it also bounds tests that end on a byte or block count. */
  t->limit = server->max_test_s > 0 ? start + ((gint64) server->max_test_s + 2) * QF_NSEC_PER_SEC
                                    : G_MAXINT64;
  t->last_move = start;
  return TRUE;
}

/* FALSE with error, after telling the client SERVER_TERMINATE, when the test must end now: a
 * stop request, iperf3's deadline, the operator's limit, or no data moving. */
static gboolean
test_may_go_on (Test     *t,
                gint64    now,
                GError  **error)
{
  QfIperf3Server *server = t->server;
  guint64 total = 0;

  if (t->cancel != NULL && g_atomic_int_get (t->cancel))
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped on request."));
  else if (t->p.time_s > 0 && now > t->deadline)
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                 _("the client did not end the test in time"));
  else if (now > t->limit)
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                 _("the test ran past the %u s this responder allows"), server->max_test_s);
  else
    {
      /* iperf3's server gives up after 120 s without data (DEFAULT_NO_MSG_RCVD_TIMEOUT); so do
       * we, in either direction: a sender whose peer stopped reading moves nothing either. */
      for (guint i = 0; i < t->n_streams; i++)
        total += _qf_atomic_get64 (&t->streams[i].bytes);
      if (total != t->last_total)
        {
          t->last_total = total;
          t->last_move = now;
          return TRUE;
        }
      if (now - t->last_move <= server->idle_timeout_ns)
        return TRUE;
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                   _("no data moved for %.0f s; the client or the link stalled"),
                   server->idle_timeout_ns / 1e9);
    }
  _qf_iperf3_write_state (t->ctrl, QF_IPERF3_SERVER_TERMINATE, NULL);
  return FALSE;
}

/* The running test's figures for other threads (from watch_test, every 100 ms at most, and
 * never waiting on a reader: a round is skipped while one copies); t NULL: no test runs (after
 * the test, so it waits for the lock: the list must not keep a finished test). */
static void
publish_client (QfIperf3Server *server,
                Test           *t,
                gint64          now)
{
  guint64 moved = 0;

  if (t != NULL && server->published_ns != 0 && now - server->published_ns < PUBLISH_NS)
    return;
  for (guint i = 0; t != NULL && i < t->n_streams; i++)
    moved += _qf_atomic_get64 (&t->streams[i].bytes) - t->base_bytes[i];
  if (t == NULL)
    g_mutex_lock (&server->client_lock);
  else if (!g_mutex_trylock (&server->client_lock))
    return;
  server->published_ns = t != NULL ? now : 0;
  qf_served_client_clear (&server->client);
  if (t != NULL)
    server->client = (QfServedClient) {
      .address = g_strdup (t->peer_name),
      .test = "bandwidth",
      .started_ns = t->t0,
      .as_of_ns = now,
      .count = moved,
      .count_bytes = TRUE,
    };
  g_mutex_unlock (&server->client_lock);
}

GArray *
qf_iperf3_server_list_clients (QfIperf3Server *server)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (QfServedClient));

  g_return_val_if_fail (server != NULL, list);

  g_array_set_clear_func (list, qf_served_client_clear);
  g_mutex_lock (&server->client_lock);
  if (server->client.address != NULL)
    qf_served_client_append_copy (list, &server->client);
  g_mutex_unlock (&server->client_lock);
  return list;
}

/* Watches the running test until the client's TEST_END (FALSE with error on anything else),
 * ending the warm-up on time and turning other clients away. Wakes at most every 100 ms. */
static gboolean
watch_test (Test    *t,
            GError **error)
{
  for (;;)
    {
      struct pollfd pfd[2] = { { t->ctrl, POLLIN, 0 }, { t->server->listen_fd, POLLIN, 0 } };
      gint64 now = qf_clock_now_ns ();
      signed char state;

      if (!test_may_go_on (t, now, error))
        return FALSE;
      if (!t->omit_done && now >= t->omit_end)
        {
          snapshot_bases (t);
          t->t0 = now;
          t->omit_done = TRUE;
        }
      publish_client (t->server, t, now);
      /* The control connection first, in the same look as the listen socket: a client that
       * queued after this one closed it is served next, not refused. */
      poll (pfd, 2, 100);
      if (!pfd[0].revents)
        {
          if (pfd[1].revents)
            deny_pending (t->server);
          continue;
        }
      if (!_qf_iperf3_read_state (t->ctrl, &state, now + QF_NSEC_PER_SEC, t->cancel, error))
        return FALSE;
      if (state == QF_IPERF3_TEST_END)
        return TRUE;
      if (state == QF_IPERF3_CLIENT_TERMINATE)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PEER_LOST,
                       _("the client stopped the test"));
          return FALSE;
        }
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                   _("the client sent state %d during the test"), state);
      return FALSE;
    }
}

/* The client ended the test: the workers stop and our results go into json; returns the
 * measured seconds. */
static gdouble
end_test (Test            *t,
          const QfCpuMark *cpu,
          GString         *json)
{
  gdouble duration_s = (qf_clock_now_ns () - t->t0) / 1e9;

  if (!t->omit_done)
    snapshot_bases (t);
  g_atomic_int_set (&t->stop, 1);
  for (guint i = 0; i < t->n_streams; i++)
    _qf_bw_stream_join (&t->streams[i]);

  write_server_results (t, duration_s, cpu, json);
  /* iperf3 closes the data sockets on TEST_END, before the results exchange. */
  for (guint i = 0; i < t->n_streams; i++)
    if (t->streams[i].fd >= 0)
      {
        close (t->streams[i].fd);
        t->streams[i].fd = -1;
      }
  return duration_s;
}

/* EXCHANGE_RESULTS: the client's results in, ours out, DISPLAY_RESULTS. */
static gboolean
exchange_results (Test           *t,
                  const GString  *json,
                  GError        **error)
{
  g_autoptr(QfMiniJson) client_results = NULL;
  signed char state;

  if (!_qf_iperf3_write_state (t->ctrl, QF_IPERF3_EXCHANGE_RESULTS, error))
    return FALSE;
  client_results = _qf_iperf3_read_json (t->ctrl, QF_IPERF3_MAX_RESULTS,
                                         qf_clock_now_ns () + 10 * QF_NSEC_PER_SEC, t->cancel,
                                         _("results"), error);
  if (client_results == NULL)
    return FALSE;
  if (!_qf_iperf3_write_json (t->ctrl, json, error)
      || !_qf_iperf3_write_state (t->ctrl, QF_IPERF3_DISPLAY_RESULTS, error))
    return FALSE;
  /* IPERF_DONE, or the client just closing, both end the test well. */
  _qf_iperf3_read_state (t->ctrl, &state, qf_clock_now_ns () + 5 * QF_NSEC_PER_SEC, t->cancel,
                         NULL);
  return TRUE;
}

static void
log_done (Test    *t,
          gdouble  duration_s)
{
  guint64 rx = 0, tx = 0;
  gdouble secs = MAX (duration_s, 1e-3);

  for (guint i = 0; i < t->n_streams; i++)
    {
      if (t->streams[i].sender)
        tx += t->streams[i].bytes - t->base_bytes[i];
      else
        rx += t->streams[i].bytes - t->base_bytes[i];
    }
  logf_ (t->server, _("Bandwidth test from %s done: %s, %u stream(s), received %.1f Mbit/s, sent %.1f Mbit/s"),
         t->peer_name, t->p.udp ? "UDP" : "TCP", t->p.parallel, rx * 8 / secs / 1e6,
         tx * 8 / secs / 1e6);
}

/* Runs the test once the streams are up, until the client's TEST_END; then exchanges results. */
static gboolean
run_test (Test    *t,
          GError **error)
{
  g_autoptr(GString) json = g_string_new (NULL);
  gdouble duration_s;
  QfCpuMark cpu;

  _qf_iperf3_cpu_mark (&cpu);
  if (!start_test (t, error) || !watch_test (t, error))
    return FALSE;
  duration_s = end_test (t, &cpu, json);
  if (!exchange_results (t, json, error))
    return FALSE;
  log_done (t, duration_s);
  return TRUE;
}

/* Serves a control connection that proved itself (its cookie read, the token checked): from
 * PARAM_EXCHANGE to the results, one test. */
static void
serve_one (QfIperf3Server                *server,
           int                            ctrl,
           const struct sockaddr_storage *peer,
           const char                    *cookie,
           const gint                    *cancel)
{
  g_autofree Test *t = g_new0 (Test, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfMiniJson) params = NULL;
  gint64 deadline;
  int one = 1;

  t->server = server;
  t->cancel = cancel;
  t->ctrl = ctrl;
  describe_peer (peer, t->peer_name, sizeof t->peer_name);
  memcpy (t->cookie, cookie, sizeof t->cookie);
  for (guint i = 0; i < G_N_ELEMENTS (t->streams); i++)
    t->streams[i].fd = -1;
  setsockopt (ctrl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  if (!_qf_iperf3_write_state (ctrl, QF_IPERF3_PARAM_EXCHANGE, &error))
    goto out;
  deadline = qf_clock_now_ns () + 10 * QF_NSEC_PER_SEC;
  wait_ctrl (t, deadline);
  params = _qf_iperf3_read_json (ctrl, QF_IPERF3_MAX_PARAMS, deadline, cancel,
                                 _("test parameters"), &error);
  if (params == NULL || !_qf_iperf3_parse_params (params, &t->p, &error))
    {
      server_error (server, ctrl, QF_IPERF3_IE_RECVPARAMS);
      goto out;
    }
  if (!check_limits (t, &error))
    goto out;
  if (!accept_streams (t, &error))
    goto out;
  if (run_test (t, &error))
    g_atomic_int_inc (&server->tests_done);

out:
  publish_client (server, NULL, 0);
  if (error != NULL)
    logf_ (server, _("Bandwidth test from %s refused or ended early: %s"), t->peer_name, error->message);
  g_atomic_int_set (&t->stop, 1);
  for (guint i = 0; i < t->n_streams; i++)
    _qf_bw_stream_clear (&t->streams[i]);
  close (ctrl);
}

/* ---- connections that have not proven themselves (qf-admission.h) -------------------------- */

/* Closes an unproven connection; why (NULL: nothing to say) goes to the log. */
static void
pending_close (QfIperf3Server *server,
               guint           id,
               const char     *why)
{
  Pending *p = &server->pending[id];

  if (why != NULL)
    {
      char who[PEER_NAME_MAX];

      describe_peer (&p->addr, who, sizeof who);
      logf_ (server, _("Bandwidth test from %s refused or ended early: %s"), who, why);
    }
  qf_admission_remove (&server->unproven, id);
  close (p->fd);
  p->fd = -1;
}

/* Refuses an unproven connection with iperf3's "test authorization failed". */
static void
pending_refuse (QfIperf3Server *server,
                guint           id,
                const char     *why)
{
  server_error (server, server->pending[id].fd, QF_AUTH_IPERF3_IE_AUTHTEST);
  pending_close (server, id, why);
}

/* A whole cookie arrived: TRUE when that proves the connection (no token needed, or a stock
 * client with --allow-classic); a marked cookie gets the challenge, other ones the refusal. */
static gboolean
pending_cookie (QfIperf3Server *server,
                guint           id)
{
  Pending *p = &server->pending[id];
  g_autoptr(GError) error = NULL;

  p->cookie[QF_IPERF3_COOKIE_SIZE - 1] = '\0';
  switch (qf_auth_server_admit (&server->auth, qf_auth_bw_cookie_is_marked (p->cookie)))
    {
    case QF_AUTH_ADMIT_OPEN:
      return TRUE;
    case QF_AUTH_ADMIT_REFUSE:
      pending_refuse (server, id, _("no access token (stock iperf3 cannot prove one; see serve "
                                    "--allow-classic)"));
      return FALSE;
    case QF_AUTH_ADMIT_CHALLENGE:
    default:
      break;
    }
  /* 33 bytes fit any fresh socket's send buffer. */
  if (!qf_auth_bw_challenge (p->challenge, &error)
      || send (p->fd, p->challenge, sizeof p->challenge, MSG_NOSIGNAL | MSG_DONTWAIT)
         != (ssize_t) sizeof p->challenge)
    {
      pending_close (server, id, error != NULL ? error->message : g_strerror (errno));
      return FALSE;
    }
  p->challenged = TRUE;
  p->have = 0;
  return FALSE;
}

/* Reads what an unproven connection sent; TRUE when it has now proven itself. */
static gboolean
pending_readable (QfIperf3Server *server,
                  guint           id)
{
  Pending *p = &server->pending[id];
  guint8 *buf = p->challenged ? p->answer : (guint8 *) p->cookie;
  gsize want = p->challenged ? sizeof p->answer : sizeof p->cookie;
  ssize_t n = recv (p->fd, buf + p->have, want - p->have, MSG_DONTWAIT);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return FALSE;
  if (n <= 0)
    {
      /* As on the latency port, a connection that closes having sent nothing is not logged. */
      pending_close (server, id, p->have == 0 && !p->challenged
                                 ? NULL : _("the client closed the connection before it began"));
      return FALSE;
    }
  p->have += n;
  if (p->have < want)
    return FALSE;
  if (!p->challenged)
    return pending_cookie (server, id);
  if (!qf_auth_server_check (&server->auth, &(QfAuthAnswer) {
                               .channel = QF_AUTH_CHANNEL_BANDWIDTH,
                               .issued = p->challenge + 1,
                               .mac = p->answer,
                               .cookie = p->cookie,
                             }))
    {
      pending_refuse (server, id, _("wrong access token"));
      return FALSE;
    }
  return TRUE;
}

/* Takes the next control connection off the listen queue into the unproven pool, making room
 * as qf_admission_victim says. FALSE with error when the socket cannot accept any more. */
static gboolean
accept_pending (QfIperf3Server  *server,
                GError         **error)
{
  struct sockaddr_storage peer;
  socklen_t peer_len = sizeof peer;
  int fd = accept4 (server->listen_fd, (struct sockaddr *) &peer, &peer_len,
                    SOCK_CLOEXEC | SOCK_NONBLOCK);
  gint victim;
  guint id;

  if (fd < 0)
    {
      if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED || errno == EMFILE
          || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        {
          if (errno == EMFILE || errno == ENFILE)
            g_usleep (100000);
          return TRUE;
        }
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_IO,
                   _("The bandwidth responder cannot accept connections: %s."), g_strerror (errno));
      return FALSE;
    }
  victim = qf_admission_victim (&server->unproven, (struct sockaddr *) &peer);
  if (victim >= 0)
    {
      g_atomic_int_inc (&server->refused);
      pending_close (server, (guint) victim,
                     _("dropped: it had not proven itself and newer connections from the same "
                       "place (or too many in all) are waiting"));
    }
  for (id = 0; server->pending[id].fd >= 0; id++)
    ;   /* there is room: at most QF_ADMISSION_TOTAL - 1 are left */
  memset (&server->pending[id], 0, sizeof server->pending[id]);
  server->pending[id].fd = fd;
  server->pending[id].addr = peer;
  qf_admission_add (&server->unproven, id, (struct sockaddr *) &peer, qf_clock_now_ns ());
  return TRUE;
}

/* Closes the connections that did not prove themselves in time. */
static void
expire_pending (QfIperf3Server *server)
{
  gint id;

  while ((id = qf_admission_expired (&server->unproven, qf_clock_now_ns ())) >= 0)
    {
      g_atomic_int_inc (&server->refused);
      pending_close (server, (guint) id, server->auth.token != NULL
                                         ? _("no access token within 2 s")
                                         : _("no cookie within 2 s"));
    }
}

/* A connection proved itself: it runs the test, and the others still unproven are turned away
 * as busy (as iperf3 does with every client during a test) rather than left to time out. */
static void
serve_proven (QfIperf3Server *server,
              guint           id,
              const gint     *cancel)
{
  Pending p = server->pending[id];

  qf_admission_remove (&server->unproven, id);
  server->pending[id].fd = -1;
  while (server->unproven.n > 0)
    {
      guint other = server->unproven.entries[0].id;
      deny (server, server->pending[other].fd);
      server->pending[other].fd = -1;
      qf_admission_remove (&server->unproven, other);
    }
  serve_one (server, p.fd, &p.addr, p.cookie, cancel);
}

/* Waits up to 200 ms for the listen socket and the unproven connections; serves the first that
 * proves itself. FALSE with error when the listen socket failed. */
static gboolean
serve_turn (QfIperf3Server  *server,
            const gint      *cancel,
            GError         **error)
{
  struct pollfd pfd[1 + QF_ADMISSION_TOTAL];
  guint ids[1 + QF_ADMISSION_TOTAL], n = 0;
  gint64 wait_ns = MIN (qf_admission_next_ns (&server->unproven, qf_clock_now_ns ()),
                        200 * QF_NSEC_PER_MSEC);

  pfd[n++] = (struct pollfd) { server->listen_fd, POLLIN, 0 };
  for (guint i = 0; i < server->unproven.n; i++, n++)
    {
      ids[n] = server->unproven.entries[i].id;
      pfd[n] = (struct pollfd) { server->pending[ids[n]].fd, POLLIN, 0 };
    }
  if (poll (pfd, n, (int) ((wait_ns + QF_NSEC_PER_MSEC - 1) / QF_NSEC_PER_MSEC)) > 0)
    {
      /* The connections already here first, then the listen queue (bounded per turn). */
      for (guint i = 1; i < n; i++)
        if (pfd[i].revents && server->pending[ids[i]].fd == pfd[i].fd
            && pending_readable (server, ids[i]))
          {
            serve_proven (server, ids[i], cancel);
            return TRUE;
          }
      for (guint i = 0; pfd[0].revents && i < QF_ADMISSION_TOTAL; i++)
        {
          struct pollfd more = { server->listen_fd, POLLIN, 0 };
          if (i > 0 && poll (&more, 1, 0) <= 0)
            break;
          if (!accept_pending (server, error))
            return FALSE;
        }
    }
  expire_pending (server);
  log_summary (server, FALSE);
  return TRUE;
}

gboolean
qf_iperf3_server_run (QfIperf3Server  *server,
                      const gint      *cancel,
                      GError         **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (server != NULL, FALSE);

  while (ok && (cancel == NULL || !g_atomic_int_get (cancel)))
    ok = serve_turn (server, cancel, error);
  while (server->unproven.n > 0)
    pending_close (server, server->unproven.entries[0].id, NULL);
  log_summary (server, TRUE);
  return ok;
}
