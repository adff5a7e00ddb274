/* qf-responder-conn.c — the latency responder's TCP connections (src/engine): admission (a
 * bounded pool of connections that have not proven themselves, then one of max_clients slots),
 * the access token (qf-auth.h), and the ping-pong session: whole messages read, answered in
 * order, and written back as the socket takes them. Also the two ways the loop serves a
 * connection faster than through epoll: the sole blocking client and busy-polling.
 * See qf-responder-private.h for how the responder's files fit together.
 *
 * Signals: while serving a sole blocking client the wake timer (qf-net.h) sends this thread
 * QF_NET_WAKE_SIGNAL, so a blocked recv() returns EINTR at least every period.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-responder-private.h"

#define TCP_IDLE_END_NS (30 * QF_NSEC_PER_SEC)
#define FAST_TURNS      256

void
_qf_responder_conn_close (QfResponder *self,
                          guint        index,
                          const char  *why)
{
  QfResponderConn *c = &self->conns[index];
  g_autofree char *who = qf_net_address_to_string ((struct sockaddr *) &c->addr, TRUE);
  gdouble seconds = (qf_clock_now_ns () - c->start_ns) / 1e9;

  /* The log says which mode served a test, as the client's report does. */
  if (c->messages > 0 || why != NULL)
    _qf_responder_log (self, _("TCP ping-pong from %s: %llu messages in %.1f s%s%s%s"), who,
                       (unsigned long long) c->messages, seconds,
                       c->spin ? _(", busy-polled") : "", why ? "; " : "", why ? why : "");
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
  c->in_len = 0;
  c->out_off = c->out_len = 0;
}

void
_qf_responder_conn_close_all (QfResponder *self)
{
  for (guint i = 0; self->conns != NULL && i < self->n_conns; i++)
    if (self->conns[i].fd >= 0)
      _qf_responder_conn_close (self, i, NULL);
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
  _qf_responder_conn_close (self, index, why);
}

/* The message for an unproven connection that is closed: what it did not do. */
static const char *
unproven_why (QfResponder *self,
              gboolean     evicted)
{
  if (evicted)
    return self->auth.token != NULL
           ? _("dropped: no access token yet and newer connections from the same place (or "
               "too many in all) are waiting")
           : _("dropped: no request yet and newer connections from the same place (or too "
               "many in all) are waiting");
  return self->auth.token != NULL
         ? _("ended: no access token within 2 s") : _("ended: no request within 2 s");
}

/* A new connection takes no --max-clients slot: it waits in the pool of unproven ones
 * (qf-admission.h), where the oldest from the same source, or of all, makes room for it. */
void
_qf_responder_conn_accept (QfResponder *self)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  struct epoll_event ev = { 0 };
  int fd, one = 1;
  gint victim;
  guint index;
  QfResponderConn *c;

  fd = accept4 (self->tcp_fd, (struct sockaddr *) &ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0)
    return;
  victim = qf_admission_victim (&self->unproven, (struct sockaddr *) &ss);
  if (victim >= 0)
    {
      self->stats.rejected++;
      _qf_responder_conn_close (self, (guint) victim, unproven_why (self, TRUE));
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
  c->auth = self->auth.token != NULL ? CONN_AUTH_NEEDED : CONN_AUTH_OPEN;
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
  QfResponderConn *c = &self->conns[index];
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
  QfResponderConn *c = &self->conns[index];

  if (c->want_out == want_out)
    return;
  c->want_out = want_out;
  conn_watch (self, index, EPOLL_CTL_MOD);
}

/* Sends what is pending; FALSE when the connection had to be closed. */
gboolean
_qf_responder_conn_flush (QfResponder *self,
                          guint        index)
{
  QfResponderConn *c = &self->conns[index];

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
      _qf_responder_conn_close (self, index, _("the client went away"));
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
  QfResponderConn *c = &self->conns[index];

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
      _qf_responder_conn_close (self, index, _("dropped: the client does not read its replies"));
      return FALSE;
    }
  memcpy (c->out + c->out_len, data, len);
  c->out_len += len;
  return TRUE;
}

/* A reply the emulation held, now due: sent if its connection is still the one it was for. */
void
_qf_responder_conn_send_held (QfResponder       *self,
                              const QfHeldReply *reply)
{
  QfResponderConn *c = &self->conns[reply->conn_index];

  if (c->fd >= 0 && c->generation == reply->conn_generation
      && conn_queue (self, reply->conn_index, reply->data, reply->len))
    _qf_responder_conn_flush (self, reply->conn_index);
}

/* Busy-polls a connection from now until it closes: on the spinners list, and out of the epoll
 * set for good — the loop's spin turn reads and flushes it itself, and while it is registered
 * every incoming segment runs epoll's wake-up callback on the sender's CPU (0.1–0.15 µs a round
 * trip across two CPUs, measured with a minimal loop). */
static void
conn_start_spin (QfResponder *self,
                 guint        index)
{
  QfResponderConn *c = &self->conns[index];

  c->spin = TRUE;
  self->spinners[self->n_spinners++] = index;   /* at most one entry per open slot */
  epoll_ctl (self->epfd, EPOLL_CTL_DEL, c->fd, NULL);
}

/* Handles one complete TCP message at msg; FALSE when the connection was closed. */
static gboolean
conn_handle_message (QfResponder            *self,
                     guint                   index,
                     guint8                 *msg,
                     const QfSockperfHeader *h)
{
  QfResponderConn *c = &self->conns[index];
  guint16 flags;

  if (!(h->flags & QF_SOCKPERF_FLAG_CLIENT) || (h->flags & QF_SOCKPERF_FLAG_WARMUP)
      || !(h->flags & QF_SOCKPERF_FLAG_PONG_REQUEST))
    return TRUE;
  if (_qf_responder_wants_spin (self, h->flags) && !c->spin)
    conn_start_spin (self, index);

  flags = GUINT16_TO_BE (h->flags & ~QF_SOCKPERF_FLAG_CLIENT);
  memcpy (msg + 8, &flags, 2);
  c->messages++;
  self->stats.messages++;
  if (self->emulator.active)
    {
      /* A stream delivers in order: a reply never overtakes the one before it (strictly later,
       * since the heap does not keep the order of equal times). */
      QfHeldReply reply = {
        .due_ns = MAX (_qf_responder_emulator_due_ns (&self->emulator, qf_clock_now_ns ()),
                       c->last_due_ns + 1),
        .tcp = TRUE,
        .conn_index = index,
        .conn_generation = c->generation,
        .data = msg,
        .len = h->length,
      };
      c->last_due_ns = reply.due_ns;
      if (!_qf_responder_emulator_hold (&self->emulator, &reply))
        {
          _qf_responder_conn_close (self, index, _("dropped: too many held replies"));
          return FALSE;
        }
      return TRUE;
    }
  if (!conn_queue (self, index, msg, h->length))
    return FALSE;
  return _qf_responder_conn_flush (self, index);
}

/* The connection proved itself (the token, or without one its first request): it takes a
 * --max-clients slot, or is told the responder is busy and closed (FALSE). */
static gboolean
conn_prove (QfResponder *self,
            guint        index)
{
  QfResponderConn *c = &self->conns[index];

  if (self->n_proven >= self->config.max_clients)
    {
      _qf_responder_log_reject (self, (struct sockaddr *) &c->addr,
                                _("too many clients (see --max-clients)"));
      refuse_tcp (c->fd, QF_AUTH_REASON_BUSY, self->config.max_clients);
      _qf_responder_conn_close (self, index, NULL);
      return FALSE;
    }
  qf_admission_remove (&self->unproven, index);
  c->proven = TRUE;
  self->n_proven++;
  return TRUE;
}

/* Queues a header-only control message (ACCEPT) or a CHALLENGE and sends it; FALSE when the
 * connection was closed. */
static gboolean
conn_send_control (QfResponder  *self,
                   guint         index,
                   const guint8 *msg,
                   gsize         len)
{
  return conn_queue (self, index, msg, len) && _qf_responder_conn_flush (self, index);
}

/* One access-token message on a TCP connection (qf-auth.h); FALSE when the connection was
 * closed. The token is checked by qf-auth.c (qf_auth_server_check), as on UDP and the bandwidth
 * port. */
static gboolean
conn_auth_message (QfResponder  *self,
                   guint         index,
                   const guint8 *msg,
                   gsize         len)
{
  QfResponderConn *c = &self->conns[index];
  guint8 out[QF_AUTH_CHALLENGE_SIZE];
  QfAuthMessage m;

  if (!qf_auth_parse (msg, len, &m))
    {
      self->stats.rejected++;
      _qf_responder_conn_close (self, index, _("dropped: a malformed access-token message"));
      return FALSE;
    }
  if (m.kind == QF_AUTH_HELLO && c->auth == CONN_AUTH_OPEN)
    {
      qf_auth_write (out, QF_AUTH_ACCEPT, 0, 0, QF_AUTH_HEADER_SIZE);
      return conn_send_control (self, index, out, QF_AUTH_HEADER_SIZE);
    }
  if (m.kind == QF_AUTH_HELLO && c->auth == CONN_AUTH_NEEDED)
    {
      g_autoptr(GError) error = NULL;
      if (!qf_auth_server_challenge (&self->auth, QF_AUTH_CHANNEL_TCP, NULL, 0, 0, out, &error))
        {
          _qf_responder_conn_close (self, index, error->message);
          return FALSE;
        }
      memcpy (c->nonce, out + QF_AUTH_HEADER_SIZE, QF_AUTH_NONCE_SIZE);
      c->auth = CONN_AUTH_CHALLENGED;
      return conn_send_control (self, index, out, QF_AUTH_CHALLENGE_SIZE);
    }
  if (m.kind == QF_AUTH_RESPONSE && c->auth == CONN_AUTH_CHALLENGED)
    {
      QfAuthAnswer answer = {
        .channel = QF_AUTH_CHANNEL_TCP,
        .issued = c->nonce,
        .echoed = msg + QF_AUTH_HEADER_SIZE,
        .mac = msg + QF_AUTH_HEADER_SIZE + QF_AUTH_NONCE_SIZE,
      };
      gboolean good = qf_auth_server_check (&self->auth, &answer);

      memset (c->nonce, 0, sizeof c->nonce);
      if (!good)
        {
          conn_refuse (self, index, QF_AUTH_REASON_TOKEN_WRONG, _("refused: wrong access token"));
          return FALSE;
        }
      if (!conn_prove (self, index))
        return FALSE;
      c->auth = CONN_AUTH_OPEN;
      qf_auth_write (out, QF_AUTH_ACCEPT, 0, 0, QF_AUTH_HEADER_SIZE);
      return conn_send_control (self, index, out, QF_AUTH_HEADER_SIZE);
    }
  self->stats.rejected++;
  _qf_responder_conn_close (self, index, _("dropped: an access-token message out of order"));
  return FALSE;
}

/* A request from a connection that has not proven the token: served if the token is not needed
 * of it (--allow-classic), else refused. FALSE when the connection was closed. */
static gboolean
conn_admit_request (QfResponder *self,
                    guint        index)
{
  QfResponderConn *c = &self->conns[index];

  if (c->auth == CONN_AUTH_CHALLENGED
      || qf_auth_server_admit (&self->auth, FALSE) == QF_AUTH_ADMIT_REFUSE)
    {
      conn_refuse (self, index, QF_AUTH_REASON_TOKEN_REQUIRED,
                   _("refused: no access token (a client that cannot prove one, such "
                     "as sockperf, needs serve --allow-classic)"));
      return FALSE;
    }
  c->auth = CONN_AUTH_OPEN;
  return TRUE;
}

/* Reads what the connection has (waiting up to SO_RCVTIMEO when block and the socket is in
 * blocking mode) and answers every whole message. Returns whether bytes arrived on a connection
 * that is still open (FALSE once it was closed here, so no caller reads it again). On the measured
 * path: once per message, so the answer is composed in place and nothing is allocated. */
gboolean
_qf_responder_conn_readable (QfResponder *self,
                             guint        index,
                             gboolean     block)
{
  QfResponderConn *c = &self->conns[index];
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
          _qf_responder_conn_close (self, index, NULL);
          return FALSE;
        }
      if (n < 0 && errno != EAGAIN && errno != EINTR)
        {
          _qf_responder_conn_close (self, index,
                                    errno == ECONNRESET ? NULL : _("the client went away"));
          return FALSE;
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
          _qf_responder_conn_close (self, index, why);
          return FALSE;
        }
      if (c->in_len - off < h.length)
        break;
      if (h.flags & QF_AUTH_FLAG)
        {
          if (!conn_auth_message (self, index, c->in + off, h.length))
            return FALSE;
          off += h.length;
          continue;
        }
      if (c->auth != CONN_AUTH_OPEN && !conn_admit_request (self, index))
        return FALSE;
      if (!c->proven && !conn_prove (self, index))
        return FALSE;
      if (!conn_handle_message (self, index, c->in + off, &h))
        return FALSE;
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

/* Ends the connections that did not prove themselves in time (qf-admission.h). */
void
_qf_responder_conn_expire_unproven (QfResponder *self,
                                    gint64       now_ns)
{
  gint expired;

  while ((expired = qf_admission_expired (&self->unproven, now_ns)) >= 0)
    {
      self->stats.rejected++;
      _qf_responder_conn_close (self, (guint) expired, unproven_why (self, FALSE));
    }
}

/* Ends the connections that ran longer than max_test_seconds or went silent. */
void
_qf_responder_conn_end_overdue (QfResponder *self,
                                gint64       now_ns)
{
  gint64 max_ns = (gint64) self->config.max_test_seconds * QF_NSEC_PER_SEC;

  for (guint i = 0; i < self->n_conns; i++)
    {
      QfResponderConn *c = &self->conns[i];
      if (c->fd < 0)
        continue;
      if (now_ns - c->start_ns > max_ns)
        {
          g_autofree char *why = g_strdup_printf (_("ended: longer than %u s (see --max-test-seconds)"),
                                                  self->config.max_test_seconds);
          _qf_responder_conn_close (self, i, why);
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
          _qf_responder_conn_close (self, i, _("ended: silent for 30 s"));
          continue;
        }
    }
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
 * with epoll. The loop looks at epoll again after FAST_TURNS messages, or when the wake timer's
 * signal interrupts a recv() that had nothing, so a new client or a stop request waits at most
 * one period. A periodic timer rather than SO_RCVTIMEO: a receive timeout arms and cancels a
 * kernel timer around every message. */
void
_qf_responder_conn_serve_sole (QfResponder *self,
                               guint        index,
                               const gint  *stop)
{
  QfResponderConn *c = &self->conns[index];
  int fd = c->fd;

  /* Out of the epoll set meanwhile: otherwise every incoming segment also runs epoll's wake-up
   * callback for a set nobody waits on (~0.05 µs a message on one CPU). conn_set_want_out ()
   * and _qf_responder_conn_close () find it missing and carry on; it goes back with the events
   * it needs. */
  epoll_ctl (self->epfd, EPOLL_CTL_DEL, fd, NULL);
  qf_wake_timer_arm (self->wake, fd, TRUE);
  set_blocking (fd, TRUE);
  for (guint turn = 0; turn < FAST_TURNS; turn++)
    {
      if (stop != NULL && g_atomic_int_get (stop))
        break;
      if (!_qf_responder_conn_readable (self, index, TRUE))
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
