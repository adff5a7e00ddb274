/* qf-responder.c — the latency responder: one epoll loop for sockperf-style ping-pong (TCP and
 * UDP), our cycle protocol and emulated poor links (src/engine). See qf-responder.h.
 *
 * Threads: qf_responder_new/free on the owner's thread; run() on one thread, which alone touches
 * the connection tables. The stop flag is the only thing another thread writes.
 *
 * Signals: while run() serves a sole blocking client it arms a QfWakeTimer (qf-net.h), which
 * sends its own thread QF_NET_WAKE_SIGNAL, so a blocked recv() returns EINTR at least every
 * FAST_WAIT_NS.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-admission.h"
#include "qf-auth.h"
#include "qf-clock.h"
#include "qf-cycle.h"
#include "qf-i18n.h"
#include "qf-net.h"
#include "qf-responder.h"
#include "qf-sockperf.h"

#define DEFAULT_MAX_CLIENTS      64
#define DEFAULT_MAX_TEST_SECONDS 3600
#define UDP_IDLE_END_NS          (2 * QF_NSEC_PER_SEC)   /* a UDP test ends after 2 s of silence */
#define SPIN_IDLE_END_NS         (1 * QF_NSEC_PER_SEC)
#define TCP_IDLE_END_NS          (30 * QF_NSEC_PER_SEC)
#define HOUSEKEEPING_NS          (100 * QF_NSEC_PER_MSEC)
#define MAX_HELD                 16384
#define MAX_HELD_BYTES           (32 * 1024 * 1024)
#define UDP_BUFFER_SIZE          65536
#define UDP_READS_PER_WAKE       16
#define FAST_TURNS               256
#define SPIN_TURNS               64      /* busy-poll turns between looks at epoll */
#define FAST_WAIT_NS             (10 * QF_NSEC_PER_MSEC)
#define UDP_REFUSALS_PER_S       100    /* refusals are no larger than what they answer; still few */

enum
{
  AUTH_OPEN,          /* no token needed, the token was proved, or a classic client allowed */
  AUTH_NEEDED,        /* a token is needed and the client has not said HELLO yet */
  AUTH_CHALLENGED,    /* CHALLENGE sent, waiting for the RESPONSE */
};

enum
{
  TAG_TCP_LISTEN = 1,
  TAG_UDP,
  TAG_CONN,
};

#define MAKE_TAG(type, index) (((guint64) (type) << 32) | (guint32) (index))
#define TAG_TYPE(u64)         ((guint) ((u64) >> 32))
#define TAG_INDEX(u64)        ((guint) ((u64) & 0xffffffffu))

typedef struct
{
  int                     fd;             /* -1 = free slot */
  guint                   generation;     /* bumped on reuse, so held replies find their owner */
  struct sockaddr_storage addr;
  gint64                  start_ns;
  gint64                  last_rx_ns;     /* for the idle limit, as of the last housekeeping */
  gboolean                heard;          /* bytes arrived since the last housekeeping */
  guint64                 messages;
  gboolean                spin;
  gboolean                want_out;       /* EPOLLOUT armed, input paused */
  guint8                 *in;
  gsize                   in_len;
  guint8                 *out;
  gsize                   out_off, out_len;
  gint64                  last_due_ns;    /* emulated replies keep their order on a stream */
  guint                   auth;           /* AUTH_* */
  guint8                  nonce[QF_AUTH_NONCE_SIZE];
  gboolean                proven;         /* holds a --max-clients slot (else in self->unproven) */
} Conn;

typedef struct
{
  gboolean                in_use;
  struct sockaddr_storage addr;
  socklen_t               addr_len;
  gint64                  first_ns, last_ns;
  guint64                 messages;
  gboolean                cycle;
  gboolean                spin;
  gboolean                expired;
  gboolean                authed;         /* proved the access token */
} UdpPeer;

typedef struct
{
  gint64                  due_ns;
  gboolean                tcp;
  guint                   conn_index, conn_generation;
  struct sockaddr_storage addr;
  socklen_t               addr_len;
  guint8                 *data;
  gsize                   len;
} Held;

struct QfResponder
{
  QfResponderConfig  config;
  char              *bind_address;
  char              *iface;
  guint16            port;
  int                epfd;
  int                tcp_fd;
  int                udp_fd;
  GAsyncQueue       *log_outbox;  /* while running: lines for the caller's thread */
  gsize              max_msg;
  Conn              *conns;        /* max_clients proven + QF_ADMISSION_TOTAL unproven */
  UdpPeer           *peers;
  guint              n_conns, n_peers;
  guint              n_proven;
  QfAdmission        unproven;     /* connections that hold no slot yet (qf-admission.h) */
  QfLogLimit         log_limit;
  guint8            *udp_buf;
  Held              *held;         /* binary min-heap on due_ns */
  guint              n_held;
  gsize              held_bytes;
  GRand             *rand;
  gboolean           spin_udp;     /* a UDP client asked for busy-polling (housekeeping) */
  guint             *spinners;     /* indexes of the connections that asked to be busy-polled */
  guint              n_spinners;
  QfResponderStats   stats;
  GBytes            *token;
  guint8             udp_secret[QF_AUTH_MAC_SIZE];   /* keys the stateless UDP nonces */
  gint64             start_ns;
  GMutex             clients_lock;
  GArray            *clients;      /* under clients_lock: QfServedClient, as of housekeeping */
  gint64             refusal_second;
  guint              refusals_in_second;
  QfWakeTimer       *wake;         /* run()'s: interrupts the sole client's recv() */
};

static void
respond_log (QfResponder *self,
             const char  *format,
             ...) G_GNUC_PRINTF (2, 3);

/* Takes line. While running, the loop's thread may not call out (qf_net_run_on_own_fd_table):
 * the line goes to the thread that called qf_responder_run (deliver_log). */
static void
log_line (QfResponder *self,
          char        *line)
{
  if (self->log_outbox != NULL)
    g_async_queue_push (self->log_outbox, line);
  else
    {
      self->config.log (line, self->config.log_data);
      g_free (line);
    }
}

static void
respond_log (QfResponder *self,
             const char  *format,
             ...)
{
  g_autofree char *line = NULL;
  va_list args;

  if (self->config.log == NULL || !qf_log_limit_take (&self->log_limit, qf_clock_now_ns ()))
    return;
  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);
  log_line (self, g_steal_pointer (&line));
}

/* Every line respond_log writes is about a connection or a peer, and strangers can cause them
 * by the thousand (a port scan, a flood): through the log limit (qf-admission.h), whose summary
 * says how many were left out. */
static void
log_summary (QfResponder *self,
             gint64       now_ns,
             gboolean     force)
{
  char *line = self->config.log != NULL
               ? qf_log_limit_summary (&self->log_limit, now_ns, force) : NULL;

  if (line != NULL)
    log_line (self, line);
}

static void
log_reject (QfResponder           *self,
            const struct sockaddr *addr,
            const char            *why)
{
  g_autofree char *who = qf_net_address_to_string (addr, TRUE);

  self->stats.rejected++;
  respond_log (self, _("rejected %s: %s"), who, why);
}

gboolean
qf_responder_emulation_parse (const char            *text,
                              QfResponderEmulation  *out,
                              GError               **error)
{
  g_auto(GStrv) parts = NULL;

  memset (out, 0, sizeof *out);
  if (text == NULL || text[0] == '\0')
    return TRUE;
  parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *eq = strchr (parts[i], '=');
      g_autofree char *key = NULL;
      char *end = NULL;
      gdouble value;

      if (eq == NULL)
        goto bad;
      key = g_strndup (parts[i], eq - parts[i]);
      value = g_ascii_strtod (eq + 1, &end);
      if (end == eq + 1 || *end != '\0' || !(value >= 0))
        goto bad;
      if (g_str_equal (key, "delay") && value <= 10000)
        out->delay_ms = value;
      else if (g_str_equal (key, "jitter") && value <= 10000)
        out->jitter_ms = value;
      else if (g_str_equal (key, "loss") && value <= 100)
        out->loss_pct = value;
      else
        goto bad;
    }
  return TRUE;

bad:
  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
               _("Cannot read the emulation “%s”: expected delay=MS,jitter=MS,loss=PCT "
                 "(delay and jitter up to 10000 ms, loss up to 100 %%)"), text);
  return FALSE;
}

static gboolean
emulating (const QfResponder *self)
{
  return self->config.emulate.delay_ms > 0 || self->config.emulate.jitter_ms > 0
         || self->config.emulate.loss_pct > 0;
}

static int
open_socket (QfResponder  *self,
             int           socktype,
             guint16       port,
             GError      **error)
{
  struct sockaddr_storage ss = { 0 };
  socklen_t len;
  int fd, one = 1, zero = 0;

  if (self->bind_address != NULL)
    {
      if (!qf_net_resolve (self->bind_address, port, socktype, &ss, &len, error))
        return -1;
    }
  else
    {
      struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;
      in6->sin6_family = AF_INET6;
      in6->sin6_addr = in6addr_any;
      in6->sin6_port = htons (port);
      len = sizeof *in6;
    }

  fd = socket (ss.ss_family, socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 && self->bind_address == NULL && errno == EAFNOSUPPORT)
    {
      /* IPv6 disabled on this machine: serve IPv4 only. */
      struct sockaddr_in *in = (struct sockaddr_in *) &ss;
      memset (&ss, 0, sizeof ss);
      in->sin_family = AF_INET;
      in->sin_addr.s_addr = htonl (INADDR_ANY);
      in->sin_port = htons (port);
      len = sizeof *in;
      fd = socket (AF_INET, socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    }
  if (fd < 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot open a socket"));
      return -1;
    }
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ss.ss_family == AF_INET6 && self->bind_address == NULL)
    setsockopt (fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  if (!qf_net_bind_iface (fd, ss.ss_family, self->iface, error))
    {
      close (fd);
      return -1;
    }
  if (bind (fd, (struct sockaddr *) &ss, len) != 0)
    {
      int errsv = errno;
      g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &ss, TRUE);
      if (errsv == EADDRINUSE)
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_IO,
                     _("Cannot listen on %s (%s): the port is in use. Is another responder or "
                       "sockperf already running? Choose another port with --latency-port."),
                     where, socktype == SOCK_STREAM ? "TCP" : "UDP");
      else
        qf_net_set_errno_error (error, errsv, _("Cannot listen on %s"), where);
      close (fd);
      return -1;
    }
  if (socktype == SOCK_STREAM && listen (fd, 128) != 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot listen for TCP connections"));
      close (fd);
      return -1;
    }
  return fd;
}

static guint16
socket_port (int fd)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;

  if (getsockname (fd, (struct sockaddr *) &ss, &len) != 0)
    return 0;
  if (ss.ss_family == AF_INET6)
    return ntohs (((struct sockaddr_in6 *) &ss)->sin6_port);
  return ntohs (((struct sockaddr_in *) &ss)->sin_port);
}

QfResponder *
qf_responder_new (const QfResponderConfig  *config,
                  GError                  **error)
{
  g_autoptr(QfResponder) self = NULL;
  struct epoll_event ev = { 0 };

  g_return_val_if_fail (config != NULL, NULL);

  if (config->emulate.delay_ms < 0 || config->emulate.jitter_ms < 0
      || config->emulate.loss_pct < 0 || config->emulate.loss_pct > 100)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The emulated delay, jitter and loss must be positive and loss at most 100 %%"));
      return NULL;
    }
  if (config->max_msg_size != 0
      && (config->max_msg_size < QF_SOCKPERF_MIN_MSG_SIZE
          || config->max_msg_size > QF_SOCKPERF_MAX_TCP_MSG_SIZE))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The largest message must be between %u and %u bytes"),
                   QF_SOCKPERF_MIN_MSG_SIZE, QF_SOCKPERF_MAX_TCP_MSG_SIZE);
      return NULL;
    }

  if (config->token != NULL && config->max_msg_size != 0 && config->max_msg_size < QF_AUTH_MAX_SIZE)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("With an access token the largest message must be at least %u bytes"),
                   QF_AUTH_MAX_SIZE);
      return NULL;
    }

  self = g_new0 (QfResponder, 1);
  g_mutex_init (&self->clients_lock);
  self->clients = g_array_new (FALSE, TRUE, sizeof (QfServedClient));
  g_array_set_clear_func (self->clients, qf_served_client_clear);
  self->config = *config;
  self->token = config->token != NULL ? g_bytes_ref (config->token) : NULL;
  self->config.token = self->token;
  self->start_ns = qf_clock_now_ns ();
  self->bind_address = g_strdup (config->bind_address);
  self->iface = g_strdup (config->iface);
  self->config.bind_address = self->bind_address;
  self->config.iface = self->iface;
  if (self->config.max_clients == 0)
    self->config.max_clients = DEFAULT_MAX_CLIENTS;
  if (self->config.max_test_seconds == 0)
    self->config.max_test_seconds = DEFAULT_MAX_TEST_SECONDS;
  self->max_msg = config->max_msg_size ? config->max_msg_size : QF_SOCKPERF_MAX_UDP_MSG_SIZE;
  self->epfd = -1;
  self->tcp_fd = -1;
  self->udp_fd = -1;
  self->n_conns = self->config.max_clients + QF_ADMISSION_TOTAL;
  self->n_peers = self->config.max_clients;
  self->conns = g_new0 (Conn, self->n_conns);
  self->spinners = g_new0 (guint, self->n_conns);
  for (guint i = 0; i < self->n_conns; i++)
    self->conns[i].fd = -1;
  self->peers = g_new0 (UdpPeer, self->n_peers);
  self->udp_buf = g_malloc (UDP_BUFFER_SIZE);
  self->held = g_new0 (Held, MAX_HELD);
  self->rand = g_rand_new ();
  if (self->token != NULL && !qf_auth_random (self->udp_secret, sizeof self->udp_secret, error))
    return NULL;

  self->tcp_fd = open_socket (self, SOCK_STREAM, config->latency_port, error);
  if (self->tcp_fd < 0)
    return NULL;
  self->port = socket_port (self->tcp_fd);
  self->udp_fd = open_socket (self, SOCK_DGRAM, self->port, error);
  if (self->udp_fd < 0)
    return NULL;

  self->epfd = epoll_create1 (EPOLL_CLOEXEC);
  if (self->epfd < 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot create the event loop"));
      return NULL;
    }
  ev.events = EPOLLIN;
  ev.data.u64 = MAKE_TAG (TAG_TCP_LISTEN, 0);
  epoll_ctl (self->epfd, EPOLL_CTL_ADD, self->tcp_fd, &ev);
  ev.data.u64 = MAKE_TAG (TAG_UDP, 0);
  epoll_ctl (self->epfd, EPOLL_CTL_ADD, self->udp_fd, &ev);
  return g_steal_pointer (&self);
}

guint16
qf_responder_get_port (QfResponder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->port;
}

void
qf_responder_get_stats (QfResponder      *self,
                        QfResponderStats *stats)
{
  g_return_if_fail (self != NULL && stats != NULL);
  *stats = self->stats;
}

static void
conn_close (QfResponder *self,
            guint        index,
            const char  *why)
{
  Conn *c = &self->conns[index];
  g_autofree char *who = qf_net_address_to_string ((struct sockaddr *) &c->addr, TRUE);
  gdouble seconds = (qf_clock_now_ns () - c->start_ns) / 1e9;

  /* The log says which mode served a test, as the client's report does. */
  if (c->messages > 0 || why != NULL)
    respond_log (self, _("TCP ping-pong from %s: %llu messages in %.1f s%s%s%s"), who,
                 (unsigned long long) c->messages, seconds, c->spin ? _(", busy-polled") : "",
                 why ? "; " : "", why ? why : "");
  epoll_ctl (self->epfd, EPOLL_CTL_DEL, c->fd, NULL);
  close (c->fd);
  c->fd = -1;
  c->generation++;
  if (c->proven)
    self->n_proven--;
  else
    qf_admission_remove (&self->unproven, index);
  c->proven = FALSE;
  if (c->spin)
    for (guint i = 0; i < self->n_spinners; i++)
      if (self->spinners[i] == index)
        {
          self->spinners[i] = self->spinners[--self->n_spinners];
          break;
        }
  c->spin = FALSE;
  g_clear_pointer (&c->in, g_free);
  g_clear_pointer (&c->out, g_free);
}

/* Sends a REFUSE on a TCP socket and closes it so the client reads the refusal rather than a
 * reset: what the client sent is read first (closing with unread bytes would reset at once),
 * then our side is shut down. The 14 bytes fit any fresh socket's send buffer. */
static void
refuse_tcp (int          fd,
            QfAuthReason reason,
            guint        value)
{
  guint8 msg[QF_AUTH_HEADER_SIZE], sink[4096];

  qf_auth_write (msg, QF_AUTH_REFUSE, reason, value, sizeof msg);
  send (fd, msg, sizeof msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  for (guint i = 0; i < 16 && recv (fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++)
    ;
  shutdown (fd, SHUT_WR);
}

static void
conn_refuse (QfResponder  *self,
             guint         index,
             QfAuthReason  reason,
             const char   *why)
{
  refuse_tcp (self->conns[index].fd, reason, 0);
  self->stats.rejected++;
  conn_close (self, index, why);
}

/* UDP refusals answer a datagram at least as large; at most UDP_REFUSALS_PER_S a second, so the
 * responder cannot be used to reflect a flood. */
static void
refuse_udp (QfResponder           *self,
            QfAuthReason           reason,
            guint                  value,
            gsize                  request_len,
            const struct sockaddr *addr,
            socklen_t              addr_len,
            gint64                 now_ns)
{
  guint8 msg[QF_AUTH_HEADER_SIZE];
  gint64 second = now_ns / QF_NSEC_PER_SEC;

  if (request_len < sizeof msg)
    return;
  if (second != self->refusal_second)
    {
      self->refusal_second = second;
      self->refusals_in_second = 0;
    }
  if (self->refusals_in_second++ >= UDP_REFUSALS_PER_S)
    return;
  qf_auth_write (msg, QF_AUTH_REFUSE, reason, value, sizeof msg);
  sendto (self->udp_fd, msg, sizeof msg, MSG_DONTWAIT, addr, addr_len);
}

/* The message for an unproven connection that is closed: what it did not do. */
static const char *
unproven_why (QfResponder *self,
              gboolean     evicted)
{
  if (evicted)
    return self->token != NULL
           ? _("dropped: no access token yet and newer connections from the same place (or "
               "too many in all) are waiting")
           : _("dropped: no request yet and newer connections from the same place (or too "
               "many in all) are waiting");
  return self->token != NULL
         ? _("ended: no access token within 2 s") : _("ended: no request within 2 s");
}

/* A new connection takes no --max-clients slot: it waits in the pool of unproven ones
 * (qf-admission.h), where the oldest from the same source, or of all, makes room for it. */
static void
accept_connection (QfResponder *self)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  struct epoll_event ev = { 0 };
  int fd, one = 1;
  gint victim;
  guint index;
  Conn *c;

  fd = accept4 (self->tcp_fd, (struct sockaddr *) &ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0)
    return;
  victim = qf_admission_victim (&self->unproven, (struct sockaddr *) &ss);
  if (victim >= 0)
    {
      self->stats.rejected++;
      conn_close (self, (guint) victim, unproven_why (self, TRUE));
    }
  for (index = 0; index < self->n_conns; index++)
    if (self->conns[index].fd < 0)
      break;
  if (G_UNLIKELY (index == self->n_conns))
    {
      /* Cannot happen (proven ≤ max_clients, unproven < QF_ADMISSION_TOTAL); never overrun. */
      close (fd);
      return;
    }
  qf_admission_add (&self->unproven, index, (struct sockaddr *) &ss, qf_clock_now_ns ());
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  c = &self->conns[index];
  c->fd = fd;
  c->addr = ss;
  c->start_ns = c->last_rx_ns = qf_clock_now_ns ();
  c->heard = FALSE;
  c->messages = 0;
  c->spin = FALSE;
  c->want_out = FALSE;
  /* Bounded by max_msg, never by what a peer announces. */
  c->in = g_malloc (self->max_msg);
  c->in_len = 0;
  c->out = g_malloc (2 * self->max_msg);
  c->out_off = c->out_len = 0;
  c->last_due_ns = 0;
  c->auth = self->token != NULL ? AUTH_NEEDED : AUTH_OPEN;
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u64 = MAKE_TAG (TAG_CONN, index);
  epoll_ctl (self->epfd, EPOLL_CTL_ADD, fd, &ev);
  self->stats.tcp_connections++;
}

/* Registers (op EPOLL_CTL_ADD) or updates (EPOLL_CTL_MOD) what epoll watches on a connection:
 * room to send while replies are queued, else input. */
static void
conn_watch (QfResponder *self,
            guint        index,
            int          op)
{
  Conn *c = &self->conns[index];
  struct epoll_event ev = { 0 };

  ev.events = c->want_out ? EPOLLOUT : (EPOLLIN | EPOLLRDHUP);
  ev.data.u64 = MAKE_TAG (TAG_CONN, index);
  epoll_ctl (self->epfd, op, c->fd, &ev);
}

static void
conn_set_want_out (QfResponder *self,
                   guint        index,
                   gboolean     want_out)
{
  Conn *c = &self->conns[index];

  if (c->want_out == want_out)
    return;
  c->want_out = want_out;
  conn_watch (self, index, EPOLL_CTL_MOD);
}

/* Sends what is pending; FALSE when the connection had to be closed. */
static gboolean
conn_flush (QfResponder *self,
            guint        index)
{
  Conn *c = &self->conns[index];

  while (c->out_off < c->out_len)
    {
      ssize_t n = qf_net_send (c->fd, c->out + c->out_off, c->out_len - c->out_off,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0)
        {
          c->out_off += n;
          continue;
        }
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        {
          conn_set_want_out (self, index, TRUE);
          return TRUE;
        }
      conn_close (self, index, _("the client went away"));
      return FALSE;
    }
  c->out_off = c->out_len = 0;
  conn_set_want_out (self, index, FALSE);
  return TRUE;
}

/* Queues bytes for a connection; FALSE when it was closed (a client that does not read). */
static gboolean
conn_queue (QfResponder  *self,
            guint         index,
            const guint8 *data,
            gsize         len)
{
  Conn *c = &self->conns[index];

  if (c->out_off > 0 && c->out_off == c->out_len)
    c->out_off = c->out_len = 0;
  if (c->out_len + len > 2 * self->max_msg && c->out_off > 0)
    {
      memmove (c->out, c->out + c->out_off, c->out_len - c->out_off);
      c->out_len -= c->out_off;
      c->out_off = 0;
    }
  if (c->out_len + len > 2 * self->max_msg)
    {
      conn_close (self, index, _("dropped: the client does not read its replies"));
      return FALSE;
    }
  memcpy (c->out + c->out_len, data, len);
  c->out_len += len;
  return TRUE;
}

static gint64
emulated_delay_ns (QfResponder *self)
{
  const QfResponderEmulation *e = &self->config.emulate;
  gdouble ms = e->delay_ms;

  if (e->jitter_ms > 0)
    ms += g_rand_double_range (self->rand, -e->jitter_ms, e->jitter_ms);
  return ms > 0 ? (gint64) (ms * QF_NSEC_PER_MSEC) : 0;
}

static void
heap_swap (Held *a,
           Held *b)
{
  Held t = *a;
  *a = *b;
  *b = t;
}

static gboolean
hold_reply (QfResponder           *self,
            gint64                 due_ns,
            gboolean               tcp,
            guint                  conn_index,
            const struct sockaddr *addr,
            socklen_t              addr_len,
            const guint8          *data,
            gsize                  len)
{
  Held *h;
  guint i;

  if (self->n_held >= MAX_HELD || self->held_bytes + len > MAX_HELD_BYTES)
    return FALSE;
  i = self->n_held++;
  h = &self->held[i];
  h->due_ns = due_ns;
  h->tcp = tcp;
  h->conn_index = conn_index;
  h->conn_generation = tcp ? self->conns[conn_index].generation : 0;
  if (addr != NULL)
    memcpy (&h->addr, addr, addr_len);
  h->addr_len = addr_len;
  h->data = g_memdup2 (data, len);
  h->len = len;
  self->held_bytes += len;
  while (i > 0 && self->held[(i - 1) / 2].due_ns > self->held[i].due_ns)
    {
      heap_swap (&self->held[(i - 1) / 2], &self->held[i]);
      i = (i - 1) / 2;
    }
  return TRUE;
}

static void
heap_pop (QfResponder *self,
          Held        *out)
{
  guint i = 0;

  *out = self->held[0];
  self->held[0] = self->held[--self->n_held];
  self->held_bytes -= out->len;
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < self->n_held && self->held[l].due_ns < self->held[m].due_ns)
        m = l;
      if (r < self->n_held && self->held[r].due_ns < self->held[m].due_ns)
        m = r;
      if (m == i)
        break;
      heap_swap (&self->held[i], &self->held[m]);
      i = m;
    }
}

static void
release_held (QfResponder *self,
              gint64       now_ns)
{
  while (self->n_held > 0 && self->held[0].due_ns <= now_ns)
    {
      Held h;

      heap_pop (self, &h);
      if (h.tcp)
        {
          Conn *c = &self->conns[h.conn_index];
          if (c->fd >= 0 && c->generation == h.conn_generation
              && conn_queue (self, h.conn_index, h.data, h.len))
            conn_flush (self, h.conn_index);
        }
      else
        sendto (self->udp_fd, h.data, h.len, MSG_DONTWAIT, (struct sockaddr *) &h.addr,
                h.addr_len);
      g_free (h.data);
    }
}

/* Whether a ping-pong request is to be busy-polled: the client asked (our spin flag), or the
 * responder was told to for everyone (spin_all, serve --spin). */
static gboolean
wants_spin (QfResponder *self,
            guint16      flags)
{
  return (flags & QF_SOCKPERF_FLAG_QF_SPIN) || self->config.spin_all;
}

/* Busy-polls a connection from now until it closes: on the spinners list, and out of the epoll
 * set for good — the spin turn reads and flushes it itself, and while it is registered every
 * incoming segment runs epoll's wake-up callback on the sender's CPU (0.1–0.15 µs a round trip
 * across two CPUs, measured with a minimal loop). */
static void
conn_start_spin (QfResponder *self,
                 guint        index)
{
  Conn *c = &self->conns[index];

  c->spin = TRUE;
  self->spinners[self->n_spinners++] = index;   /* at most one entry per open slot */
  epoll_ctl (self->epfd, EPOLL_CTL_DEL, c->fd, NULL);
}

/* Handles one complete TCP message at c->in; FALSE when the connection was closed. */
static gboolean
conn_handle_message (QfResponder            *self,
                     guint                   index,
                     guint8                 *msg,
                     const QfSockperfHeader *h)
{
  Conn *c = &self->conns[index];
  guint16 flags;

  if (!(h->flags & QF_SOCKPERF_FLAG_CLIENT) || (h->flags & QF_SOCKPERF_FLAG_WARMUP)
      || !(h->flags & QF_SOCKPERF_FLAG_PONG_REQUEST))
    return TRUE;
  if (wants_spin (self, h->flags) && !c->spin)
    conn_start_spin (self, index);

  flags = GUINT16_TO_BE (h->flags & ~QF_SOCKPERF_FLAG_CLIENT);
  memcpy (msg + 8, &flags, 2);
  c->messages++;
  self->stats.messages++;
  if (emulating (self))
    {
      gint64 due = qf_clock_now_ns () + emulated_delay_ns (self);
      /* A stream delivers in order: a reply never overtakes the one before it (strictly later,
       * since the heap does not keep the order of equal times). */
      due = MAX (due, c->last_due_ns + 1);
      c->last_due_ns = due;
      if (!hold_reply (self, due, TRUE, index, NULL, 0, msg, h->length))
        {
          conn_close (self, index, _("dropped: too many held replies"));
          return FALSE;
        }
      return TRUE;
    }
  if (!conn_queue (self, index, msg, h->length))
    return FALSE;
  return conn_flush (self, index);
}

/* The connection proved itself (the token, or without one its first request): it takes a
 * --max-clients slot, or is told the responder is busy and closed (FALSE). */
static gboolean
conn_prove (QfResponder *self,
            guint        index)
{
  Conn *c = &self->conns[index];

  if (self->n_proven >= self->config.max_clients)
    {
      log_reject (self, (struct sockaddr *) &c->addr, _("too many clients (see --max-clients)"));
      refuse_tcp (c->fd, QF_AUTH_REASON_BUSY, self->config.max_clients);
      conn_close (self, index, NULL);
      return FALSE;
    }
  qf_admission_remove (&self->unproven, index);
  c->proven = TRUE;
  self->n_proven++;
  return TRUE;
}

/* One access-token message on a TCP connection (qf-auth.h); FALSE when the connection was
 * closed. */
static gboolean
conn_auth_message (QfResponder  *self,
                   guint         index,
                   const guint8 *msg,
                   gsize         len)
{
  Conn *c = &self->conns[index];
  guint8 out[QF_AUTH_CHALLENGE_SIZE];
  guint8 mac[QF_AUTH_MAC_SIZE];
  QfAuthMessage m;

  if (!qf_auth_parse (msg, len, &m))
    {
      self->stats.rejected++;
      conn_close (self, index, _("dropped: a malformed access-token message"));
      return FALSE;
    }
  if (m.kind == QF_AUTH_HELLO && c->auth == AUTH_OPEN)
    {
      qf_auth_write (out, QF_AUTH_ACCEPT, 0, 0, QF_AUTH_HEADER_SIZE);
      return conn_queue (self, index, out, QF_AUTH_HEADER_SIZE) && conn_flush (self, index);
    }
  if (m.kind == QF_AUTH_HELLO && c->auth == AUTH_NEEDED)
    {
      g_autoptr(GError) error = NULL;
      if (!qf_auth_random (c->nonce, sizeof c->nonce, &error))
        {
          conn_close (self, index, error->message);
          return FALSE;
        }
      qf_auth_write (out, QF_AUTH_CHALLENGE, 0, 0, QF_AUTH_CHALLENGE_SIZE);
      memcpy (out + QF_AUTH_HEADER_SIZE, c->nonce, QF_AUTH_NONCE_SIZE);
      c->auth = AUTH_CHALLENGED;
      return conn_queue (self, index, out, QF_AUTH_CHALLENGE_SIZE) && conn_flush (self, index);
    }
  if (m.kind == QF_AUTH_RESPONSE && c->auth == AUTH_CHALLENGED)
    {
      gboolean good;

      qf_auth_mac (self->token, TRUE, c->nonce, mac);
      good = qf_auth_equal (msg + QF_AUTH_HEADER_SIZE, c->nonce, QF_AUTH_NONCE_SIZE);
      good &= qf_auth_equal (msg + QF_AUTH_HEADER_SIZE + QF_AUTH_NONCE_SIZE, mac, QF_AUTH_MAC_SIZE);
      memset (c->nonce, 0, sizeof c->nonce);
      if (!good)
        {
          conn_refuse (self, index, QF_AUTH_REASON_TOKEN_WRONG, _("refused: wrong access token"));
          return FALSE;
        }
      if (!conn_prove (self, index))
        return FALSE;
      c->auth = AUTH_OPEN;
      qf_auth_write (out, QF_AUTH_ACCEPT, 0, 0, QF_AUTH_HEADER_SIZE);
      return conn_queue (self, index, out, QF_AUTH_HEADER_SIZE) && conn_flush (self, index);
    }
  self->stats.rejected++;
  conn_close (self, index, _("dropped: an access-token message out of order"));
  return FALSE;
}

/* Reads what the connection has (waiting up to SO_RCVTIMEO when block and the socket is in
 * blocking mode) and answers every whole message. Returns whether bytes arrived. */
static gboolean
conn_readable (QfResponder *self,
               guint        index,
               gboolean     block)
{
  Conn *c = &self->conns[index];
  gsize off = 0;
  ssize_t n = 0;

  /* A full buffer holds a whole message already (lengths are bounded by max_msg): answer it
   * before reading more. */
  if (c->in_len < self->max_msg)
    {
      n = qf_net_recv (c->fd, c->in + c->in_len, self->max_msg - c->in_len,
                       block ? 0 : MSG_DONTWAIT);
      if (n == 0)
        {
          conn_close (self, index, NULL);
          return TRUE;
        }
      if (n < 0 && errno != EAGAIN && errno != EINTR)
        {
          conn_close (self, index, errno == ECONNRESET ? NULL : _("the client went away"));
          return TRUE;
        }
      if (n > 0)
        {
          c->in_len += n;
          c->heard = TRUE;   /* housekeeping turns it into last_rx_ns: no clock read per message */
        }
    }

  while (c->in_len - off >= QF_SOCKPERF_HEADER_SIZE)
    {
      QfSockperfHeader h;

      qf_sockperf_header_read (c->in + off, &h);
      if (h.length < QF_SOCKPERF_HEADER_SIZE || h.length > self->max_msg)
        {
          g_autofree char *why = g_strdup_printf (_("dropped: a message announces %u bytes "
                                                    "(accepted %u…%u)"),
                                                  h.length, QF_SOCKPERF_HEADER_SIZE,
                                                  (guint) self->max_msg);
          self->stats.rejected++;
          conn_close (self, index, why);
          return TRUE;
        }
      if (c->in_len - off < h.length)
        break;
      if (h.flags & QF_AUTH_FLAG)
        {
          if (!conn_auth_message (self, index, c->in + off, h.length))
            return TRUE;
          off += h.length;
          continue;
        }
      if (c->auth != AUTH_OPEN)
        {
          if (c->auth == AUTH_CHALLENGED || !self->config.allow_classic)
            {
              conn_refuse (self, index, QF_AUTH_REASON_TOKEN_REQUIRED,
                           _("refused: no access token (a client that cannot prove one, such "
                             "as sockperf, needs serve --allow-classic)"));
              return TRUE;
            }
          c->auth = AUTH_OPEN;
        }
      if (!c->proven && !conn_prove (self, index))
        return TRUE;
      if (!conn_handle_message (self, index, c->in + off, &h))
        return TRUE;
      off += h.length;
      if (c->want_out)
        break;   /* the client is slow to read: wait before answering more */
    }
  if (off > 0)
    {
      if (off < c->in_len)
        memmove (c->in, c->in + off, c->in_len - off);
      c->in_len -= off;
    }
  return n > 0;
}

static UdpPeer *
udp_peer_find (QfResponder           *self,
               const struct sockaddr *addr,
               socklen_t              len,
               gboolean               create,
               gint64                 now_ns)
{
  UdpPeer *free_slot = NULL;

  for (guint i = 0; i < self->n_peers; i++)
    {
      UdpPeer *p = &self->peers[i];
      if (!p->in_use)
        {
          if (free_slot == NULL)
            free_slot = p;
          continue;
        }
      if (p->addr_len == len && memcmp (&p->addr, addr, len) == 0)
        return p;
    }
  if (free_slot == NULL || !create)
    return NULL;
  memset (free_slot, 0, sizeof *free_slot);
  free_slot->in_use = TRUE;
  memcpy (&free_slot->addr, addr, len);
  free_slot->addr_len = len;
  free_slot->first_ns = now_ns;
  self->stats.udp_peers++;
  return free_slot;
}

static void
udp_peer_end (QfResponder *self,
              UdpPeer     *p,
              const char  *why)
{
  g_autofree char *who = qf_net_address_to_string ((struct sockaddr *) &p->addr, TRUE);

  if (p->messages > 0)
    respond_log (self, _("UDP %s from %s: %llu messages in %.1f s%s%s%s"),
                 p->cycle ? _("cycle test") : _("ping-pong"), who,
                 (unsigned long long) p->messages, (p->last_ns - p->first_ns) / 1e9,
                 p->spin ? _(", busy-polled") : "", why ? "; " : "", why ? why : "");
  p->in_use = FALSE;
}

/* One access-token datagram (qf-auth.h). Keeps no state until the token is proved; every
 * answer is smaller than the datagram it answers. */
static void
udp_auth_message (QfResponder            *self,
                  const guint8           *buf,
                  const QfAuthMessage    *m,
                  const struct sockaddr  *addr,
                  socklen_t               addr_len,
                  gint64                  now_ns)
{
  guint8 out[QF_AUTH_CHALLENGE_SIZE];
  guint8 nonce[QF_AUTH_NONCE_SIZE], mac[QF_AUTH_MAC_SIZE];
  guint32 now_s = (guint32) ((now_ns - self->start_ns) / QF_NSEC_PER_SEC), then_s;
  UdpPeer *p;
  gboolean good;

  if (m->kind != QF_AUTH_HELLO && m->kind != QF_AUTH_RESPONSE)
    return;
  if (self->token == NULL)
    {
      qf_auth_write (out, QF_AUTH_ACCEPT, 0, 0, QF_AUTH_HEADER_SIZE);
      sendto (self->udp_fd, out, QF_AUTH_HEADER_SIZE, MSG_DONTWAIT, addr, addr_len);
      return;
    }
  if (m->kind == QF_AUTH_HELLO)
    {
      qf_auth_write (out, QF_AUTH_CHALLENGE, 0, 0, QF_AUTH_CHALLENGE_SIZE);
      qf_auth_udp_nonce (self->udp_secret, now_s, addr, addr_len, out + QF_AUTH_HEADER_SIZE);
      sendto (self->udp_fd, out, QF_AUTH_CHALLENGE_SIZE, MSG_DONTWAIT, addr, addr_len);
      return;
    }

  memcpy (&then_s, buf + QF_AUTH_HEADER_SIZE, 4);
  then_s = GUINT32_FROM_BE (then_s);
  qf_auth_udp_nonce (self->udp_secret, then_s, addr, addr_len, nonce);
  qf_auth_mac (self->token, FALSE, nonce, mac);
  good = then_s <= now_s && now_s - then_s <= QF_AUTH_NONCE_LIFETIME_S;
  good &= qf_auth_equal (buf + QF_AUTH_HEADER_SIZE, nonce, QF_AUTH_NONCE_SIZE);
  good &= qf_auth_equal (buf + QF_AUTH_HEADER_SIZE + QF_AUTH_NONCE_SIZE, mac, QF_AUTH_MAC_SIZE);
  if (!good)
    {
      log_reject (self, addr, _("wrong access token"));
      refuse_udp (self, QF_AUTH_REASON_TOKEN_WRONG, 0, QF_AUTH_RESPONSE_SIZE, addr, addr_len, now_ns);
      return;
    }
  p = udp_peer_find (self, addr, addr_len, TRUE, now_ns);
  if (p == NULL)
    {
      log_reject (self, addr, _("too many clients (see --max-clients)"));
      refuse_udp (self, QF_AUTH_REASON_BUSY, self->config.max_clients, QF_AUTH_RESPONSE_SIZE,
                  addr, addr_len, now_ns);
      return;
    }
  p->authed = TRUE;
  p->last_ns = now_ns;
  qf_auth_write (out, QF_AUTH_ACCEPT, 0, 0, QF_AUTH_HEADER_SIZE);
  sendto (self->udp_fd, out, QF_AUTH_HEADER_SIZE, MSG_DONTWAIT, addr, addr_len);
}

static void
udp_datagram (QfResponder            *self,
              guint8                 *buf,
              gsize                   len,
              const struct sockaddr  *addr,
              socklen_t               addr_len,
              gint64                  now_ns)
{
  UdpPeer *p;
  gboolean cycle, need_token = self->token != NULL && !self->config.allow_classic;
  QfSockperfHeader h = { 0 };
  QfAuthMessage am;

  if (qf_auth_parse (buf, len, &am))
    {
      udp_auth_message (self, buf, &am, addr, addr_len, now_ns);
      return;
    }
  cycle = qf_cycle_packet_is_cycle (buf, len);
  if (!cycle)
    {
      if (len < QF_SOCKPERF_HEADER_SIZE)
        {
          log_reject (self, addr, _("a truncated message"));
          return;
        }
      qf_sockperf_header_read (buf, &h);
      if (h.length != len)
        {
          log_reject (self, addr, _("a message whose length field does not match the datagram"));
          return;
        }
    }
  else if (buf[5] != QF_CYCLE_KIND_REQUEST)
    return;

  p = udp_peer_find (self, addr, addr_len, !need_token, now_ns);
  if (need_token && (p == NULL || !p->authed))
    {
      log_reject (self, addr, _("no access token (a client that cannot prove one, such as "
                                "sockperf, needs serve --allow-classic)"));
      refuse_udp (self, QF_AUTH_REASON_TOKEN_REQUIRED, 0, len, addr, addr_len, now_ns);
      return;
    }
  if (p == NULL)
    {
      log_reject (self, addr, _("too many clients (see --max-clients)"));
      refuse_udp (self, QF_AUTH_REASON_BUSY, self->config.max_clients, len, addr, addr_len, now_ns);
      return;
    }
  p->last_ns = now_ns;
  if (p->expired)
    return;
  if (now_ns - p->first_ns > (gint64) self->config.max_test_seconds * QF_NSEC_PER_SEC)
    {
      g_autofree char *who = qf_net_address_to_string (addr, TRUE);
      p->expired = TRUE;
      respond_log (self, _("UDP test from %s ended: longer than %u s (see --max-test-seconds)"),
                   who, self->config.max_test_seconds);
      return;
    }

  if (cycle)
    {
      p->cycle = TRUE;
      buf[5] = QF_CYCLE_KIND_REPLY;
      len = QF_CYCLE_PACKET_SIZE;
    }
  else
    {
      guint16 flags;

      if (!(h.flags & QF_SOCKPERF_FLAG_CLIENT) || (h.flags & QF_SOCKPERF_FLAG_WARMUP)
          || !(h.flags & QF_SOCKPERF_FLAG_PONG_REQUEST))
        return;
      if (wants_spin (self, h.flags))
        p->spin = self->spin_udp = TRUE;
      flags = GUINT16_TO_BE (h.flags & ~QF_SOCKPERF_FLAG_CLIENT);
      memcpy (buf + 8, &flags, 2);
    }
  p->messages++;
  self->stats.messages++;

  if (emulating (self))
    {
      if (self->config.emulate.loss_pct > 0
          && g_rand_double (self->rand) * 100.0 < self->config.emulate.loss_pct)
        {
          self->stats.emulated_drops++;
          return;
        }
      if (hold_reply (self, now_ns + emulated_delay_ns (self), FALSE, 0, addr, addr_len, buf, len))
        return;
      self->stats.emulated_drops++;
      return;
    }
  qf_net_sendto (self->udp_fd, buf, len, MSG_DONTWAIT, addr, addr_len);
}

static void
udp_readable (QfResponder *self)
{
  for (guint i = 0; i < UDP_READS_PER_WAKE; i++)
    {
      struct sockaddr_storage ss;
      socklen_t len = sizeof ss;
      ssize_t n;

      n = qf_net_recvfrom (self->udp_fd, self->udp_buf, UDP_BUFFER_SIZE, MSG_DONTWAIT | MSG_TRUNC,
                           (struct sockaddr *) &ss, &len);
      if (n < 0)
        return;
      if ((gsize) n > self->max_msg || (gsize) n > UDP_BUFFER_SIZE)
        {
          log_reject (self, (struct sockaddr *) &ss, _("an oversized message"));
          continue;
        }
      udp_datagram (self, self->udp_buf, n, (struct sockaddr *) &ss, len, qf_clock_now_ns ());
    }
}

/* The one TCP client when it is all that is being served (no UDP peer, no held reply, not
 * spinning, not emulating), else -1. */
static int
sole_blocking_client (QfResponder *self)
{
  int found = -1;

  if (self->n_held > 0 || emulating (self))
    return -1;
  for (guint i = 0; i < self->n_peers; i++)
    if (self->peers[i].in_use)
      return -1;
  /* Unproven connections wait in the epoll set (looked at every FAST_WAIT_NS at most): idle
   * strangers do not change how a client is served. */
  for (guint i = 0; i < self->n_conns; i++)
    if (self->conns[i].fd >= 0 && self->conns[i].proven)
      {
        if (found >= 0 || self->conns[i].want_out || self->conns[i].spin)
          return -1;
        found = (int) i;
      }
  return found;
}

static void
set_blocking (int      fd,
              gboolean blocking)
{
  int flags = fcntl (fd, F_GETFL);

  if (flags >= 0)
    fcntl (fd, F_SETFL, blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK));
}

/* The procedure's case — one `sockperf pp` and nothing else — served the way `sockperf sr`
 * serves it: waiting in recv() on that socket, two system calls per message instead of three
 * with epoll. epoll is looked at again after FAST_TURNS messages, or when the wake timer's
 * signal (every FAST_WAIT_NS) interrupts a recv() that had nothing, so a new client or a stop
 * request waits at most that long. A periodic timer rather than SO_RCVTIMEO: a receive timeout
 * arms and cancels a kernel timer around every message. */
static void
serve_sole_client (QfResponder *self,
                   guint        index,
                   const gint  *stop)
{
  Conn *c = &self->conns[index];
  int fd = c->fd;

  /* Out of the epoll set meanwhile: otherwise every incoming segment also runs epoll's wake-up
   * callback for a set nobody waits on (~0.05 µs a message on one CPU). conn_set_want_out ()
   * and conn_close () find it missing and carry on; it goes back with the events it needs. */
  epoll_ctl (self->epfd, EPOLL_CTL_DEL, fd, NULL);
  qf_wake_timer_arm (self->wake, fd, TRUE);
  set_blocking (fd, TRUE);
  for (guint turn = 0; turn < FAST_TURNS; turn++)
    {
      if (stop != NULL && g_atomic_int_get (stop))
        break;
      if (!conn_readable (self, index, TRUE))
        break;
      if (c->fd != fd || c->want_out || c->spin)
        break;
    }
  if (c->fd == fd)
    {
      set_blocking (fd, FALSE);
      qf_wake_timer_arm (self->wake, fd, FALSE);
      if (!c->spin)   /* a busy-polled connection stays out (conn_start_spin) */
        conn_watch (self, index, EPOLL_CTL_ADD);
    }
  else
    qf_wake_timer_arm (self->wake, -1, FALSE);   /* closed meanwhile */
}

/* ---- the clients served now, for other threads --------------------------------------------- */

void
qf_served_client_clear (gpointer client)
{
  g_clear_pointer (&((QfServedClient *) client)->address, g_free);
}

static void
add_served (GArray                        *list,
            const struct sockaddr_storage *addr,
            const char                    *test,
            gint64                         started_ns,
            gint64                         now_ns,
            guint64                        count)
{
  QfServedClient client = {
    .address = qf_net_host_to_string ((const struct sockaddr *) addr),
    .test = test,
    .started_ns = started_ns,
    .as_of_ns = now_ns,
    .count = count,
  };

  g_array_append_val (list, client);
}

/* From housekeeping (every HOUSEKEEPING_NS at most): the proven TCP clients and the UDP peers
 * being served, swapped in under the lock so a reader copies a whole list; skipped when a reader
 * holds the lock. */
static void
publish_clients (QfResponder *self,
                 gint64       now_ns)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (QfServedClient));
  GArray *old;

  g_array_set_clear_func (list, qf_served_client_clear);
  for (guint i = 0; self->conns != NULL && i < self->n_conns; i++)
    {
      const Conn *c = &self->conns[i];
      if (c->fd >= 0 && c->proven && c->auth == AUTH_OPEN)
        add_served (list, &c->addr, "latency-tcp", c->start_ns, now_ns, c->messages);
    }
  for (guint i = 0; self->peers != NULL && i < self->n_peers; i++)
    {
      const UdpPeer *p = &self->peers[i];
      if (p->in_use && !p->expired)
        add_served (list, &p->addr, p->cycle ? "cycle" : "latency-udp", p->first_ns, now_ns,
                    p->messages);
    }
  /* The measuring thread never waits on a reader: when one is copying, this round is skipped
   * and the next housekeeping publishes. */
  if (!g_mutex_trylock (&self->clients_lock))
    {
      g_array_unref (list);
      return;
    }
  old = self->clients;
  self->clients = list;
  g_mutex_unlock (&self->clients_lock);
  g_array_unref (old);
}

GArray *
qf_responder_list_clients (QfResponder *self)
{
  GArray *copy = g_array_new (FALSE, TRUE, sizeof (QfServedClient));

  g_return_val_if_fail (self != NULL, copy);

  g_array_set_clear_func (copy, qf_served_client_clear);
  g_mutex_lock (&self->clients_lock);
  for (guint i = 0; i < self->clients->len; i++)
    {
      QfServedClient client = g_array_index (self->clients, QfServedClient, i);
      client.address = g_strdup (client.address);
      g_array_append_val (copy, client);
    }
  g_mutex_unlock (&self->clients_lock);
  return copy;
}

/* Ends tests that ran too long or went quiet; returns whether a spinning client is active. */
static gboolean
housekeeping (QfResponder *self,
              gint64       now_ns)
{
  gint64 max_ns = (gint64) self->config.max_test_seconds * QF_NSEC_PER_SEC;
  gint expired;

  /* Connections that did not prove themselves in time (qf-admission.h). */
  while ((expired = qf_admission_expired (&self->unproven, now_ns)) >= 0)
    {
      self->stats.rejected++;
      conn_close (self, (guint) expired, unproven_why (self, FALSE));
    }
  log_summary (self, now_ns, FALSE);
  self->spin_udp = FALSE;
  for (guint i = 0; i < self->n_conns; i++)
    {
      Conn *c = &self->conns[i];
      if (c->fd < 0)
        continue;
      if (now_ns - c->start_ns > max_ns)
        {
          g_autofree char *why = g_strdup_printf (_("ended: longer than %u s (see --max-test-seconds)"),
                                                  self->config.max_test_seconds);
          conn_close (self, i, why);
          continue;
        }
      /* A connection that sends nothing (or half a message) must not hold a slot for an hour. */
      if (c->heard)
        {
          c->heard = FALSE;
          c->last_rx_ns = now_ns;
        }
      if (now_ns - c->last_rx_ns > TCP_IDLE_END_NS)
        {
          conn_close (self, i, _("ended: silent for 30 s"));
          continue;
        }
    }
  for (guint i = 0; i < self->n_peers; i++)
    {
      UdpPeer *p = &self->peers[i];
      if (!p->in_use)
        continue;
      if (now_ns - p->last_ns > UDP_IDLE_END_NS)
        {
          udp_peer_end (self, p, NULL);
          continue;
        }
      self->spin_udp |= p->spin && !p->expired && now_ns - p->last_ns < SPIN_IDLE_END_NS;
    }
  publish_clients (self, now_ns);
  return self->n_spinners > 0 || self->spin_udp;
}

static gboolean run_loop (QfResponder *self, const gint *stop, GError **error);

static void
close_all_conns (QfResponder *self)
{
  for (guint i = 0; self->conns != NULL && i < self->n_conns; i++)
    if (self->conns[i].fd >= 0)
      conn_close (self, i, NULL);
}

typedef struct
{
  QfResponder *self;
  const gint  *stop;
  GError     **error;
  gboolean     ok;
} Run;

/* The loop's thread, with a descriptor table of its own holding only the responder's sockets
 * (qf_net_run_on_own_fd_table): the connections it accepts exist there only, so it closes
 * them before it ends; its log lines go out through the outbox (respond_log). */
static void
run_thread (gpointer     data,
            GAsyncQueue *outbox)
{
  Run *run = data;
  QfResponder *self = run->self;

  self->log_outbox = outbox;
  self->wake = qf_wake_timer_new (FAST_WAIT_NS);
  run->ok = run_loop (self, run->stop, run->error);
  close_all_conns (self);
  publish_clients (self, qf_clock_now_ns ());
  log_summary (self, qf_clock_now_ns (), TRUE);
  g_clear_pointer (&self->wake, qf_wake_timer_free);
  self->log_outbox = NULL;
}

/* On the thread that called qf_responder_run, which writes the log as when the loop ran on it. */
static void
deliver_log (gpointer line,
             gpointer user_data)
{
  QfResponder *self = user_data;

  self->config.log (line, self->config.log_data);
}

gboolean
qf_responder_run (QfResponder  *self,
                  const gint   *stop,
                  GError      **error)
{
  Run run = { self, stop, error, FALSE };

  g_return_val_if_fail (self != NULL, FALSE);

  qf_net_run_on_own_fd_table ("qf-responder-loop", run_thread, &run,
                              (const int[]) { self->epfd, self->tcp_fd, self->udp_fd }, 3,
                              deliver_log, self);
  return run.ok;
}

/* The responder's event loop. Its busy-poll turn and its dispatch stay inline: both run once
 * per message on the measured path, where a call each would add to every round trip. */
static gboolean
run_loop (QfResponder  *self,
          const gint   *stop,
          GError      **error)
{
  struct epoll_event events[64];
  gint64 next_housekeeping = 0;
  gboolean spin = FALSE;

  while (stop == NULL || !g_atomic_int_get (stop))
    {
      gint64 now = qf_clock_now_ns ();
      int timeout_ms, n;

      if (now >= next_housekeeping)
        {
          spin = housekeeping (self, now);
          next_housekeeping = now + HOUSEKEEPING_NS;
        }
      release_held (self, now);

      if (!spin)
        {
          int sole = sole_blocking_client (self);
          if (sole >= 0)
            {
              serve_sole_client (self, (guint) sole, stop);
              /* then one non-blocking look at everything else */
              n = epoll_wait (self->epfd, events, G_N_ELEMENTS (events), 0);
              goto dispatch;
            }
        }
      if (spin)
        {
          /* Busy-poll: receive straight from the spinning clients' sockets (two system calls
           * per message, as sockperf --nonblocked) for SPIN_TURNS turns, then one look at the
           * clock, housekeeping and epoll. A turn touches only the spinners' slots, not all
           * max-clients of them (measured level with one client; less work with many). */
          for (guint turn = 0; turn < SPIN_TURNS; turn++)
            {
              for (guint k = 0; k < self->n_spinners; k++)
                {
                  /* Not in the epoll set: a reply that did not fit is flushed from here too.
                   * Either call may close i, and the list shrinks. */
                  guint i = self->spinners[k];
                  if (self->conns[i].want_out && !conn_flush (self, i))
                    continue;
                  if (!self->conns[i].want_out)
                    conn_readable (self, i, FALSE);
                }
              if (self->spin_udp)
                udp_readable (self);
              if (self->n_held > 0)
                release_held (self, qf_clock_now_ns ());
            }
          timeout_ms = 0;
        }
      else
        {
          gint64 wait_ns = next_housekeeping - now;
          if (self->n_held > 0)
            wait_ns = MIN (wait_ns, self->held[0].due_ns - now);
          /* Round up so a held reply is never released early. */
          timeout_ms = (int) CLAMP ((wait_ns + QF_NSEC_PER_MSEC - 1) / QF_NSEC_PER_MSEC, 0, 100);
        }

      n = epoll_wait (self->epfd, events, G_N_ELEMENTS (events), timeout_ms);
    dispatch:
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          qf_net_set_errno_error (error, errno, _("The responder's event loop failed"));
          return FALSE;
        }
      for (int i = 0; i < n; i++)
        {
          guint64 tag = events[i].data.u64;
          guint index = TAG_INDEX (tag);

          switch (TAG_TYPE (tag))
            {
            case TAG_TCP_LISTEN:
              accept_connection (self);
              break;
            case TAG_UDP:
              udp_readable (self);
              spin |= self->spin_udp;
              break;
            case TAG_CONN:
              if (self->conns[index].fd < 0)
                break;
              if (events[i].events & EPOLLOUT)
                {
                  if (!conn_flush (self, index))
                    break;
                  if (!self->conns[index].want_out)
                    conn_readable (self, index, FALSE);
                }
              else if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                conn_readable (self, index, FALSE);
              spin |= self->n_spinners > 0;
              break;
            default:
              break;
            }
        }
    }
  return TRUE;
}

void
qf_responder_free (QfResponder *self)
{
  if (self == NULL)
    return;
  close_all_conns (self);   /* none left after a run */
  for (guint i = 0; self->peers != NULL && i < self->n_peers; i++)
    if (self->peers[i].in_use)
      udp_peer_end (self, &self->peers[i], NULL);
  for (guint i = 0; i < self->n_held; i++)
    g_free (self->held[i].data);
  if (self->epfd >= 0)
    close (self->epfd);
  if (self->tcp_fd >= 0)
    close (self->tcp_fd);
  if (self->udp_fd >= 0)
    close (self->udp_fd);
  g_free (self->conns);
  g_free (self->spinners);
  g_free (self->peers);
  g_free (self->udp_buf);
  g_free (self->held);
  if (self->rand != NULL)
    g_rand_free (self->rand);
  g_free (self->bind_address);
  g_free (self->iface);
  g_clear_pointer (&self->token, g_bytes_unref);
  memset (self->udp_secret, 0, sizeof self->udp_secret);
  g_clear_pointer (&self->clients, g_array_unref);
  g_mutex_clear (&self->clients_lock);
  g_free (self);
}
