/* qf-sockperf.c — sockperf-compatible ping-pong latency client (src/engine). See qf-sockperf.h.
 *
 * The loop mirrors `sockperf pp`: take the tx time, send one whole message, wait for its reply,
 * take the rx time. Per-sequence tx/rx times go into arrays allocated before the run; the
 * statistics are computed afterwards exactly as sockperf's client_statistics does.
 * Threads: everything runs on the caller's thread; only *cancel is written by another thread.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "qf-auth.h"
#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-net.h"
#include "qf-sockperf.h"

#define DEFAULT_REPLY_TIMEOUT_NS  (200 * QF_NSEC_PER_MSEC)
#define TCP_REPLY_TIMEOUT_NS      (5 * QF_NSEC_PER_SEC)
#define CONNECT_TIMEOUT_MS        5000
/* The arrays are sized for this message rate (a 5 µs round trip) and doubled between two
 * messages if a faster link needs more — after a reply is stamped and before the next request
 * is, so no measured round trip contains the copy. sockperf's own MPS_MAX_PP is 600 000. */
#define INITIAL_MESSAGES_PER_S    200000
#define MAX_SAMPLES               (G_GUINT64_CONSTANT (1) << 27)
#define PROGRESS_NS               (250 * QF_NSEC_PER_MSEC)

const gdouble qf_sockperf_percentiles[QF_SOCKPERF_N_PERCENTILES] = {
  0.25, 0.50, 0.75, 0.90, 0.99, 0.999, 0.9999, 0.99999,
};

struct QfSockperfClient
{
  QfSockperfConfig         config;
  char                    *host;
  char                    *iface;
  struct sockaddr_storage  addr;
  socklen_t                addr_len;
  guint64                  capacity;
  gint64                  *tx_ns;
  gint64                  *rx_ns;
  guint8                  *request;
  guint8                  *reply;
  gsize                    reply_cap;
  int                      fd;
};

QfSockperfClient *
qf_sockperf_client_new (const QfSockperfConfig  *config,
                        GError                 **error)
{
  g_autoptr(QfSockperfClient) self = NULL;
  guint max_size;
  gdouble total_s;

  g_return_val_if_fail (config != NULL && config->host != NULL, NULL);

  max_size = config->protocol == QF_SOCKPERF_UDP ? QF_SOCKPERF_MAX_UDP_MSG_SIZE
                                                 : QF_SOCKPERF_MAX_TCP_MSG_SIZE;
  if (config->msg_size < QF_SOCKPERF_MIN_MSG_SIZE || config->msg_size > max_size)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The message size must be between %u and %u bytes"),
                   QF_SOCKPERF_MIN_MSG_SIZE, max_size);
      return NULL;
    }
  if (!(config->time_s >= 0.1 && config->time_s <= 3600))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The test time must be between 0.1 and 3600 seconds"));
      return NULL;
    }
  if (config->interval_ns < 0 || config->interval_ns > QF_NSEC_PER_SEC)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The interval between requests must be between 0 and 1 s"));
      return NULL;
    }

  self = g_new0 (QfSockperfClient, 1);
  self->fd = -1;
  self->config = *config;
  self->host = g_strdup (config->host);
  self->iface = g_strdup (config->iface);
  self->config.host = self->host;
  self->config.iface = self->iface;
  self->config.token = config->token != NULL ? g_bytes_ref (config->token) : NULL;
  if (self->config.port == 0)
    self->config.port = QF_SOCKPERF_DEFAULT_PORT;
  if (self->config.reply_timeout_ns <= 0)
    self->config.reply_timeout_ns = DEFAULT_REPLY_TIMEOUT_NS;

  if (!qf_net_resolve (self->host, self->config.port,
                       config->protocol == QF_SOCKPERF_UDP ? SOCK_DGRAM : SOCK_STREAM,
                       &self->addr, &self->addr_len, error))
    return NULL;

  total_s = (QF_SOCKPERF_WARMUP_MS + QF_SOCKPERF_COOLDOWN_MS) / 1000.0 + config->time_s;
  self->capacity = config->initial_capacity > 0
                     ? MIN (config->initial_capacity, MAX_SAMPLES)
                     : MIN ((guint64) ceil (total_s * INITIAL_MESSAGES_PER_S) + 16, MAX_SAMPLES);
  /* Pages are only touched as the run fills them. */
  self->tx_ns = g_try_new0 (gint64, self->capacity);
  self->rx_ns = g_try_new0 (gint64, self->capacity);
  self->request = g_try_malloc (config->msg_size);
  /* A reply is the request echoed; anything longer than that is a protocol error. */
  self->reply_cap = config->msg_size;
  self->reply = g_try_malloc (self->reply_cap);
  if (self->tx_ns == NULL || self->rx_ns == NULL || self->request == NULL || self->reply == NULL)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("Not enough memory for a %.0f s latency test"), config->time_s);
      return NULL;
    }
  /* Payload as sockperf: arbitrary bytes, only compared under --data-integrity. */
  for (guint i = QF_SOCKPERF_HEADER_SIZE; i < config->msg_size; i++)
    self->request[i] = (guint8) g_random_int_range (0, 256);
  return g_steal_pointer (&self);
}

void
qf_sockperf_client_free (QfSockperfClient *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_free (self->tx_ns);
  g_free (self->rx_ns);
  g_free (self->request);
  g_free (self->reply);
  g_free (self->host);
  g_free (self->iface);
  g_clear_pointer (&self->config.token, g_bytes_unref);
  g_free (self);
}

/* Doubles the per-sequence arrays; FALSE when the memory is not there (the run then ends). */
static gboolean
grow_arrays (QfSockperfClient *self)
{
  guint64 capacity = MIN (self->capacity * 2, MAX_SAMPLES);
  gint64 *tx, *rx;

  if (capacity <= self->capacity)
    return FALSE;
  tx = g_try_realloc (self->tx_ns, capacity * sizeof (gint64));
  if (tx == NULL)
    return FALSE;
  self->tx_ns = tx;
  rx = g_try_realloc (self->rx_ns, capacity * sizeof (gint64));
  if (rx == NULL)
    return FALSE;
  self->rx_ns = rx;
  memset (tx + self->capacity, 0, (capacity - self->capacity) * sizeof (gint64));
  memset (rx + self->capacity, 0, (capacity - self->capacity) * sizeof (gint64));
  self->capacity = capacity;
  return TRUE;
}

static int
cmp_gint64 (const void *a,
            const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x > y ? 1 : x < y ? -1 : 0;
}

void
qf_sockperf_statistics (const gint64     *tx_ns,
                        const gint64     *rx_ns,
                        guint64           n_sent,
                        gboolean          full_rtt,
                        QfSockperfResult *r)
{
  gint64 test_start, test_end, prev_rx = 0, start_valid_time = 0, end_valid_time = 0;
  guint64 start_valid_seq = 0, end_valid_seq = 0, counter = 0;
  gint64 sum_rtt = 0, denominator = full_rtt ? 1 : 2;
  g_autofree gint64 *lat = NULL;

  r->sent = n_sent;
  r->samples = r->valid_sent = r->dropped = r->out_of_order = 0;
  r->valid_run_time_s = 0;
  r->avg_ns = r->stddev_ns = r->min_ns = r->max_ns = 0;
  for (guint p = 0; p < QF_SOCKPERF_N_PERCENTILES; p++)
    {
      r->percentile_ns[p] = 0;
      r->percentile_valid[p] = FALSE;
    }
  if (n_sent == 0)
    return;

  test_start = tx_ns[0] + QF_SOCKPERF_WARMUP_MS * QF_NSEC_PER_MSEC;
  test_end = tx_ns[n_sent - 1] - QF_SOCKPERF_COOLDOWN_MS * QF_NSEC_PER_MSEC;
  if (test_end < test_start)
    return;

  lat = g_new (gint64, n_sent);
  for (guint64 i = 0; i < n_sent; i++)
    {
      gint64 tx = tx_ns[i], rx = rx_ns[i], rtt;

      if (tx > test_end || tx == 0)
        break;
      if (tx < test_start)
        continue;
      if (start_valid_seq == 0)
        {
          start_valid_seq = i + 1;
          start_valid_time = tx;
        }
      if (rx == 0)
        {
          r->dropped++;
          if (end_valid_time < tx)
            {
              end_valid_seq = i + 1;
              end_valid_time = tx;
            }
          continue;
        }
      if (rx < prev_rx)
        {
          r->out_of_order++;
          continue;
        }
      end_valid_seq = i + 1;
      end_valid_time = rx;
      rtt = rx - tx;
      sum_rtt += rtt;
      lat[counter++] = rtt / denominator;
      prev_rx = rx;
    }
  if (counter == 0)
    return;

  r->samples = counter;
  r->valid_sent = end_valid_seq - start_valid_seq + 1;
  r->valid_run_time_s = (end_valid_time - start_valid_time) / 1e9;
  qsort (lat, counter, sizeof (gint64), cmp_gint64);
  {
    /* Integer tick arithmetic as sockperf: avgRtt = sum / n, avgLatency = avgRtt / 2. */
    gint64 avg_rtt = sum_rtt / (gint64) counter;
    r->avg_ns = full_rtt ? avg_rtt : avg_rtt / 2;
  }
  if (counter > 1)
    {
      gdouble sum = 0, sum_sqr = 0, avg, variance;
      for (guint64 i = 0; i < counter; i++)
        {
          sum += (gdouble) lat[i];
          sum_sqr += (gdouble) lat[i] * (gdouble) lat[i];
        }
      avg = sum / counter;
      variance = (sum_sqr - counter * avg * avg) / (counter - 1);
      r->stddev_ns = variance > 0 ? (gint64) (sqrt (variance) + 0.5) : 0;
    }
  r->min_ns = lat[0];
  r->max_ns = lat[counter - 1];
  for (guint p = 0; p < QF_SOCKPERF_N_PERCENTILES; p++)
    {
      int index = (int) (0.5 + qf_sockperf_percentiles[p] * counter) - 1;
      if (index >= 0)
        {
          r->percentile_ns[p] = lat[index];
          r->percentile_valid[p] = TRUE;
        }
    }
}

static gboolean
connect_with_timeout (QfSockperfClient  *self,
                      const gint        *cancel,
                      GError           **error)
{
  g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &self->addr, TRUE);
  gint64 deadline = qf_clock_now_ns () + CONNECT_TIMEOUT_MS * QF_NSEC_PER_MSEC;
  int err = 0;
  socklen_t len = sizeof err;

  if (connect (self->fd, (struct sockaddr *) &self->addr, self->addr_len) == 0)
    return TRUE;
  if (errno != EINPROGRESS)
    {
      err = errno;
      goto fail;
    }
  for (;;)
    {
      struct pollfd pfd = { self->fd, POLLOUT, 0 };
      int rc = poll (&pfd, 1, 100);

      if (rc > 0)
        break;
      if (cancel != NULL && g_atomic_int_get (cancel))
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped"));
          return FALSE;
        }
      if (qf_clock_now_ns () > deadline)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                       _("Cannot reach %s: no answer within %d s. Check the cable and the "
                         "address, and that `qualify-cli serve` or `sockperf sr` runs there."),
                       where, CONNECT_TIMEOUT_MS / 1000);
          return FALSE;
        }
    }
  if (getsockopt (self->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
    err = errno;
  if (err == 0)
    return TRUE;

fail:
  if (err == ECONNREFUSED)
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                 _("Cannot reach %s: connection refused. Is `qualify-cli serve` or "
                   "`sockperf sr --tcp` running there?"), where);
  else
    qf_net_set_errno_error (error, err, _("Cannot connect to %s"), where);
  return FALSE;
}

static gboolean
open_socket (QfSockperfClient  *self,
             const gint        *cancel,
             GError           **error)
{
  gboolean tcp = self->config.protocol == QF_SOCKPERF_TCP;
  int one = 1;

  self->fd = socket (self->addr.ss_family,
                     (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC | (tcp ? SOCK_NONBLOCK : 0),
                     0);
  if (self->fd < 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot open a socket"));
      return FALSE;
    }
  if (!qf_net_bind_iface (self->fd, self->addr.ss_family, self->config.iface, error))
    return FALSE;
  if (tcp)
    {
      int flags;

      setsockopt (self->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      if (!connect_with_timeout (self, cancel, error))
        return FALSE;
      /* Back to blocking: the default mode waits in recv() as sockperf does. */
      flags = fcntl (self->fd, F_GETFL);
      if (flags < 0 || fcntl (self->fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        {
          qf_net_set_errno_error (error, errno, _("Cannot configure the socket"));
          return FALSE;
        }
    }
  else if (connect (self->fd, (struct sockaddr *) &self->addr, self->addr_len) != 0)
    {
      g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &self->addr, TRUE);
      qf_net_set_errno_error (error, errno, _("Cannot reach %s"), where);
      return FALSE;
    }
  return TRUE;
}

static gboolean
send_all (int           fd,
          const guint8 *buf,
          gsize         len,
          GError      **error)
{
  gsize off = 0;

  while (off < len)
    {
      ssize_t n = qf_net_send (fd, buf + off, len - off, MSG_NOSIGNAL);
      if (n > 0)
        off += n;
      else if (n < 0 && errno == EINTR)
        continue;
      else
        {
          qf_net_set_errno_error (error, errno, _("The connection to the peer broke"));
          return FALSE;
        }
    }
  return TRUE;
}

typedef enum
{
  RECV_OK,
  RECV_TIMEOUT,
  RECV_ERROR,
} RecvStatus;

/* Receives into buf[*have…]: blocking with the socket's timeout, or spinning until deadline. */
static RecvStatus
recv_some (QfSockperfClient *self,
           guint8           *buf,
           gsize             cap,
           gsize            *got,
           gint64            deadline_ns,
           const gint       *cancel,
           GError          **error)
{
  guint spins = 0;

  for (;;)
    {
      ssize_t n = qf_net_recv (self->fd, buf, cap, self->config.spin ? MSG_DONTWAIT : 0);

      if (n > 0)
        {
          *got = n;
          return RECV_OK;
        }
      if (n == 0)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                       _("The peer closed the connection during the test"));
          return RECV_ERROR;
        }
      if (errno != EAGAIN && errno != EINTR)
        {
          if (errno == ECONNREFUSED)
            {
              g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &self->addr,
                                                                 TRUE);
              g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                           _("Nothing answers on %s (UDP port unreachable). Is "
                             "`qualify-cli serve` or `sockperf sr` running there?"), where);
            }
          else
            qf_net_set_errno_error (error, errno, _("Receiving from the peer failed"));
          return RECV_ERROR;
        }
      /* Blocking mode: the wake timer's signal (or SO_RCVTIMEO) interrupted the wait. Spin mode:
       * look at the clock now and then. */
      if (!self->config.spin || (++spins & 0x3ff) == 0)
        {
          if (qf_clock_now_ns () >= deadline_ns
              || (cancel != NULL && g_atomic_int_get (cancel)))
            return RECV_TIMEOUT;
        }
    }
}

/* Waits until next_send (a paced probe); the wake timer's signal only interrupts the sleep. */
static void
pace (gint64 next_send)
{
  struct timespec ts;

  if (next_send <= qf_clock_now_ns ())
    return;
  ts = qf_ns_to_timespec (next_send);
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

/* What the measuring thread tells the caller's about 4 times a second. */
typedef struct
{
  gdouble  fraction;
  guint64  received;
  gint64   last_ns;
} Progress;

/* One run's measurement loop, on a thread with a descriptor table of its own holding only the
 * socket the caller connected (qf_net_run_on_own_fd_table): from the first request to the last
 * reply. Progress goes back to the caller's thread through the outbox (deliver_progress). */
typedef struct
{
  QfSockperfClient        *self;
  QfRing                  *ring;
  const gint              *cancel;
  QfSockperfResult        *result;
  GError                 **error;
  const char              *where;
  QfSockperfProgressFunc   progress;       /* the caller's thread only */
  gpointer                 user_data;
  gboolean                 ok;             /* out */
  gboolean                 cancelled;      /* out */
  guint64                  seq;            /* out: requests sent */
  guint64                  received;       /* out */
  gint64                   last_latency;   /* out */
} Measure;

static void
deliver_progress (gpointer item,
                  gpointer user_data)
{
  const Progress *p = item;
  Measure *m = user_data;

  if (m->progress != NULL)
    m->progress (p->fraction, p->received, p->last_ns, m->user_data);
}

/* One function on purpose: its loop is the measured path, one request and its reply a turn,
 * between the two timestamps each figure is made of. A call per message for the loop's parts
 * would add time there, and the figures are benchmarked against sockperf to within 1 %. What is
 * not per message is elsewhere: opening and the access token in qf_sockperf_client_run(), the
 * statistics in qf_sockperf_statistics(). */
static void
measure (gpointer     data,
         GAsyncQueue *outbox)
{
  Measure *m = data;
  QfSockperfClient *self = m->self;
  QfRing *ring = m->ring;
  const gint *cancel = m->cancel;
  QfSockperfResult *result = m->result;
  GError **error = m->error;
  const char *where = m->where;
  gboolean tcp = self->config.protocol == QF_SOCKPERF_TCP, ok = TRUE, cancelled = FALSE;
  guint msg_size = self->config.msg_size;
  gint64 reply_timeout = tcp ? TCP_REPLY_TIMEOUT_NS : self->config.reply_timeout_ns;
  gint64 start_ns, end_ns, next_progress, next_send = 0;
  guint64 seq = 0, received = 0;
  gint64 last_latency = 0;
  QfSockperfHeader req = { 0, QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_PONG_REQUEST, msg_size };
  QfWakeTimer *wake = NULL;

  if (self->config.spin)
    req.flags |= QF_SOCKPERF_FLAG_QF_SPIN;
  else
    {
      /* Blocking receive wakes at least this often to look at the deadline and the stop flag
       * (the wake timer's signal, qf-net.h). */
      wake = qf_wake_timer_new (MIN (reply_timeout, 100 * QF_NSEC_PER_MSEC));
      qf_wake_timer_arm (wake, self->fd, TRUE);
    }

  start_ns = qf_clock_now_ns ();
  end_ns = start_ns + (gint64) ((self->config.time_s * 1000 + QF_SOCKPERF_WARMUP_MS
                                 + QF_SOCKPERF_COOLDOWN_MS) * QF_NSEC_PER_MSEC);
  next_progress = start_ns + PROGRESS_NS;

  for (;;)
    {
      gint64 tx, rx = 0, reply_deadline;
      gsize have = 0;

      if (cancel != NULL && g_atomic_int_get (cancel))
        {
          cancelled = TRUE;
          break;
        }
      if (seq >= self->capacity && !grow_arrays (self))
        break;
      seq++;
      req.seq = seq;
      qf_sockperf_header_write (self->request, &req);
      pace (next_send);
      tx = qf_clock_now_ns ();
      next_send = tx + self->config.interval_ns;
      if (!send_all (self->fd, self->request, msg_size, error))
        {
          guint8 refusal[QF_AUTH_HEADER_SIZE];
          /* A responder that refused us (busy, token) sent why before closing. */
          if (tcp && recv (self->fd, refusal, sizeof refusal, MSG_DONTWAIT) == sizeof refusal)
            {
              g_autoptr(GError) why = NULL;
              if (qf_auth_refusal (refusal, sizeof refusal, where, &why))
                {
                  g_clear_error (error);
                  g_propagate_error (error, g_steal_pointer (&why));
                }
            }
          ok = FALSE;
          seq--;
          break;
        }
      self->tx_ns[seq - 1] = tx;
      reply_deadline = tx + reply_timeout;

      /* Wait for the reply to this sequence; a late reply to an earlier UDP request is recorded
       * (sockperf keeps its rx time too) and the wait goes on. */
      for (;;)
        {
          QfSockperfHeader h;
          gsize got = 0;
          RecvStatus st;

          if (tcp)
            {
              /* Read exactly one message: header, then up to its length. */
              gsize want = have < QF_SOCKPERF_HEADER_SIZE ? QF_SOCKPERF_HEADER_SIZE : 0;
              if (want == 0)
                {
                  qf_sockperf_header_read (self->reply, &h);
                  want = h.length;
                }
              st = recv_some (self, self->reply + have, want - have, &got, reply_deadline,
                              cancel, error);
            }
          else
            st = recv_some (self, self->reply, self->reply_cap, &got, reply_deadline, cancel,
                            error);
          if (st == RECV_ERROR)
            {
              ok = FALSE;
              break;
            }
          if (st == RECV_TIMEOUT)
            {
              if (cancel != NULL && g_atomic_int_get (cancel))
                cancelled = TRUE;
              else if (tcp)
                {
                  g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                               _("The peer stopped answering (no reply for %d s)"),
                               (int) (TCP_REPLY_TIMEOUT_NS / QF_NSEC_PER_SEC));
                  ok = FALSE;
                }
              break;   /* UDP: this one is dropped */
            }
          rx = qf_clock_now_ns ();
          have += got;
          if (have < QF_SOCKPERF_HEADER_SIZE)
            continue;
          qf_sockperf_header_read (self->reply, &h);
          if (h.length < QF_SOCKPERF_HEADER_SIZE || h.length > self->reply_cap
              || (!tcp && h.length != have))
            {
              g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                           _("The peer answered a message of %u bytes to one of %u bytes: it does "
                             "not speak sockperf's ping-pong protocol"), h.length, msg_size);
              ok = FALSE;
              break;
            }
          if (have < h.length)
            continue;
          have = 0;
          if ((h.flags & QF_AUTH_FLAG) && qf_auth_refusal (self->reply, h.length, where, error))
            {
              /* Refused before anything was measured: nothing to report. */
              seq = 0;
              ok = FALSE;
              break;
            }
          if (h.flags & (QF_SOCKPERF_FLAG_CLIENT | QF_SOCKPERF_FLAG_WARMUP))
            continue;
          if (h.seq > seq || h.seq == 0)
            {
              g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PROTOCOL,
                           _("The peer answered sequence %llu, which was never sent"),
                           (unsigned long long) h.seq);
              ok = FALSE;
              break;
            }
          if (self->rx_ns[h.seq - 1] != 0)
            {
              result->duplicates++;
              continue;
            }
          self->rx_ns[h.seq - 1] = rx;
          if (h.seq == seq)
            break;
          rx = 0;
        }
      if (!ok || cancelled)
        break;

      if (rx != 0)
        {
          gint64 latency = self->config.full_rtt ? rx - tx : (rx - tx) / 2;
          received++;
          last_latency = latency;
          if (self->config.histogram != NULL)
            qf_histogram_add (self->config.histogram, latency);
          if (ring != NULL)
            {
              QfSample s = { rx, latency, self->config.ring_channel, 0 };
              qf_ring_push (ring, &s);
            }
        }
      if (rx == 0 ? qf_clock_now_ns () >= end_ns : rx >= end_ns)
        break;
      if ((rx != 0 ? rx : qf_clock_now_ns ()) >= next_progress)
        {
          gint64 now = qf_clock_now_ns ();
          Progress p = { CLAMP ((gdouble) (now - start_ns) / (end_ns - start_ns), 0, 1),
                         received, last_latency };

          g_async_queue_push (outbox, g_memdup2 (&p, sizeof p));
          next_progress = now + PROGRESS_NS;
        }
    }

  g_clear_pointer (&wake, qf_wake_timer_free);
  m->ok = ok;
  m->cancelled = cancelled;
  m->seq = seq;
  m->received = received;
  m->last_latency = last_latency;
}

gboolean
qf_sockperf_client_run (QfSockperfClient        *self,
                        QfRing                  *ring,
                        const gint              *cancel,
                        QfSockperfProgressFunc   progress,
                        gpointer                 user_data,
                        QfSockperfResult        *result,
                        GError                 **error)
{
  g_autofree char *where = NULL;
  Measure m = { 0 };

  g_return_val_if_fail (self != NULL && result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  if (!open_socket (self, cancel, error))
    return FALSE;
  where = qf_net_address_to_string ((struct sockaddr *) &self->addr, TRUE);
  if (self->config.token != NULL
      && !qf_auth_client_handshake (self->fd, self->config.protocol == QF_SOCKPERF_TCP,
                                    self->config.token, where, cancel, error))
    {
      close (self->fd);
      self->fd = -1;
      return FALSE;
    }

  m = (Measure) { self, ring, cancel, result, error, where, progress, user_data };
  qf_net_run_on_own_fd_table ("qf-sockperf", measure, &m, &self->fd, 1, deliver_progress, &m);
  close (self->fd);
  self->fd = -1;

  {
    guint64 dups = result->duplicates;
    qf_sockperf_statistics (self->tx_ns, self->rx_ns, m.seq, self->config.full_rtt, result);
    result->duplicates = dups;
  }
  if (!m.ok)
    return FALSE;
  if (m.cancelled)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped"));
      return FALSE;
    }
  if (m.received == 0)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                   _("No reply from %s. Is `qualify-cli serve` or `sockperf sr` running there, "
                     "and does a firewall let UDP through?"), where);
      return FALSE;
    }
  if (progress != NULL)
    progress (1.0, m.received, m.last_latency, user_data);
  return TRUE;
}
