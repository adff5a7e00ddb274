/* qf-cycle.c — the control-cycle test (src/engine). See qf-cycle.h.
 *
 * One thread: requests leave at start + k × period (ppoll with nanosecond timeouts), replies are
 * read whenever they arrive; per-cycle RTTs go into an array allocated before the run, and the
 * deadline accounting (misses, bursts) is done after it. Times are CLOCK_MONOTONIC.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-auth.h"
#include "qf-clock.h"
#include "qf-cycle.h"
#include "qf-i18n.h"
#include "qf-net.h"

#define DEFAULT_PORT      11111
#define DEFAULT_GRACE_NS  (500 * QF_NSEC_PER_MSEC)
#define PROGRESS_NS       (250 * QF_NSEC_PER_MSEC)
#define MAX_CYCLES        (100 * 1000 * 1000)

struct QfCycleTest
{
  QfCycleConfig            config;
  char                    *host;
  char                    *iface;
  struct sockaddr_storage  addr;
  socklen_t                addr_len;
  guint64                  n_cycles;
  gint64                  *tx_ns;
  gint64                  *rtt_ns;   /* -1 = no reply (yet) */
  int                      fd;
  char                    *where;    /* the peer, for messages */
  QfTraceWorst             worst;     /* the marks' bookkeeping (qf-trace.h) */
};

QfCycleTest *
qf_cycle_test_new (const QfCycleConfig  *config,
                   GError              **error)
{
  g_autoptr(QfCycleTest) self = NULL;
  gdouble cycles;

  g_return_val_if_fail (config != NULL && config->host != NULL, NULL);

  if (config->rate_hz < 1 || config->rate_hz > 10000)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The cycle rate must be between 1 and 10000 Hz"));
      return NULL;
    }
  cycles = ceil (config->time_s * config->rate_hz);
  if (!(config->time_s > 0) || cycles < 1 || cycles > MAX_CYCLES)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The test time must be positive and give at most %d cycles"), MAX_CYCLES);
      return NULL;
    }

  self = g_new0 (QfCycleTest, 1);
  self->fd = -1;
  self->config = *config;
  self->host = g_strdup (config->host);
  self->iface = g_strdup (config->iface);
  self->config.host = self->host;
  self->config.iface = self->iface;
  self->config.token = config->token != NULL ? g_bytes_ref (config->token) : NULL;
  if (self->config.port == 0)
    self->config.port = DEFAULT_PORT;
  if (self->config.grace_ns <= 0)
    self->config.grace_ns = DEFAULT_GRACE_NS;
  if (!qf_net_resolve (self->host, self->config.port, SOCK_DGRAM, &self->addr, &self->addr_len,
                       error))
    return NULL;
  self->n_cycles = (guint64) cycles;
  self->tx_ns = g_try_new0 (gint64, self->n_cycles);
  self->rtt_ns = g_try_new (gint64, self->n_cycles);
  if (self->tx_ns == NULL || self->rtt_ns == NULL)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("Not enough memory for %llu cycles"), (unsigned long long) self->n_cycles);
      return NULL;
    }
  return g_steal_pointer (&self);
}

void
qf_cycle_test_free (QfCycleTest *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_free (self->tx_ns);
  g_free (self->rtt_ns);
  g_free (self->host);
  g_free (self->iface);
  g_clear_pointer (&self->config.token, g_bytes_unref);
  g_free (self->where);
  g_free (self);
}

static gboolean
drain (QfCycleTest   *self,
       QfRing        *ring,
       gint64         period_ns,
       guint64        sent,
       QfCycleResult *r,
       GError       **error)
{
  guint8 buf[256];

  for (;;)
    {
      ssize_t n = recv (self->fd, buf, sizeof buf, MSG_DONTWAIT);
      gint64 rx = qf_clock_now_ns (), rtt;
      guint64 seq;

      if (n < 0)
        {
          if (errno == EAGAIN || errno == EINTR)
            return TRUE;
          if (errno == ECONNREFUSED)
            {
              g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &self->addr,
                                                                 TRUE);
              g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                           _("Nothing answers on %s (UDP port unreachable). Is `qualify-cli "
                             "serve` running there?"), where);
              return FALSE;
            }
          qf_net_set_errno_error (error, errno, _("Receiving from the peer failed"));
          return FALSE;
        }
      if (qf_auth_refusal (buf, n, self->where, error))
        return FALSE;
      if (!qf_cycle_packet_is_cycle (buf, n) || buf[5] != QF_CYCLE_KIND_REPLY)
        continue;
      memcpy (&seq, buf + 8, 8);
      seq = GUINT64_FROM_BE (seq);
      if (seq == 0 || seq > sent)
        continue;
      if (self->rtt_ns[seq - 1] >= 0)
        {
          r->duplicates++;
          continue;
        }
      rtt = rx - self->tx_ns[seq - 1];
      self->rtt_ns[seq - 1] = rtt;
      r->replies++;
      if (self->config.histogram != NULL)
        qf_histogram_add (self->config.histogram, rtt / 2);
      if (qf_trace_mark_wanted (self->config.marks, &self->worst, rtt))
        qf_trace_mark (self->config.marks, self->tx_ns[seq - 1], rtt);
      if (ring != NULL)
        {
          QfSample s = { rx, rtt, self->config.ring_channel, rtt > period_ns ? 1u : 0u };
          qf_ring_push (ring, &s);
        }
    }
}

static int
cmp_gint64 (const void *a,
            const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x > y ? 1 : x < y ? -1 : 0;
}

static void
summarize (QfCycleTest   *self,
           guint64        sent,
           gint64         period_ns,
           QfCycleResult *r)
{
  g_autofree gint64 *sorted = g_new (gint64, MAX (r->replies, 1));
  guint64 n = 0, burst = 0;
  gdouble sum = 0;

  r->cycles = sent;
  for (guint64 i = 0; i < sent; i++)
    {
      gint64 rtt = self->rtt_ns[i];
      gboolean miss = rtt < 0 || rtt > period_ns;

      if (rtt < 0)
        r->lost++;
      else
        {
          if (rtt > period_ns)
            r->late++;
          sorted[n++] = rtt;
          sum += rtt;
        }
      if (miss)
        {
          r->misses++;
          burst++;
          r->longest_miss_burst = MAX (r->longest_miss_burst, burst);
        }
      else
        burst = 0;
    }
  if (n > 0)
    {
      qsort (sorted, n, sizeof (gint64), cmp_gint64);
      r->avg_rtt_ns = (gint64) (sum / n + 0.5);
      r->min_rtt_ns = sorted[0];
      r->max_rtt_ns = sorted[n - 1];
      r->p50_rtt_ns = sorted[CLAMP ((guint64) ceil (0.50 * n), 1, n) - 1];
      r->p99_rtt_ns = sorted[CLAMP ((guint64) ceil (0.99 * n), 1, n) - 1];
      r->p999_rtt_ns = sorted[CLAMP ((guint64) ceil (0.999 * n), 1, n) - 1];
    }
}

/* Opens the test's UDP socket towards the responder and proves the access token if one is
 * set. */
static gboolean
connect_peer (QfCycleTest  *self,
              const gint   *cancel,
              GError      **error)
{
  self->fd = socket (self->addr.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (self->fd < 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot open a socket"));
      return FALSE;
    }
  if (!qf_net_bind_iface (self->fd, self->addr.ss_family, self->config.iface, error))
    return FALSE;
  if (connect (self->fd, (struct sockaddr *) &self->addr, self->addr_len) != 0)
    {
      g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &self->addr, TRUE);
      qf_net_set_errno_error (error, errno, _("Cannot reach %s"), where);
      return FALSE;
    }
  g_free (self->where);
  self->where = qf_net_address_to_string ((struct sockaddr *) &self->addr, TRUE);
  return self->config.token == NULL
         || qf_auth_client_handshake (self->fd, FALSE, self->config.token, self->where, cancel,
                                      error);
}

/* The figures of `sent` cycles, keeping the counts the loop kept itself. */
static void
finish_result (QfCycleTest   *self,
               guint64        sent,
               gint64         period_ns,
               QfCycleResult *result)
{
  guint64 replies = result->replies, dups = result->duplicates, overruns = result->send_overruns;

  summarize (self, sent, period_ns, result);
  result->replies = replies;
  result->duplicates = dups;
  result->send_overruns = overruns;
}

/* How the run ended, as an error: stopped, or no reply at all. */
static gboolean
run_outcome (QfCycleTest          *self,
             gboolean              cancelled,
             guint64               sent,
             const QfCycleResult  *result,
             GError              **error)
{
  if (cancelled)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped"));
      return FALSE;
    }
  if (result->replies == 0)
    {
      g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &self->addr, TRUE);
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                   _("No reply from %s to %llu cycle requests. Is `qualify-cli serve` running "
                     "there (sockperf cannot answer the cycle test)?"),
                   where, (unsigned long long) sent);
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_cycle_test_run (QfCycleTest          *self,
                   QfRing               *ring,
                   const gint           *cancel,
                   QfCycleProgressFunc   progress,
                   gpointer              user_data,
                   QfCycleResult        *result,
                   GError              **error)
{
  gint64 period_ns, start, next_progress, end_wait = G_MAXINT64;
  guint64 sent = 0;
  gboolean ok = TRUE, cancelled = FALSE;
  guint8 packet[QF_CYCLE_PACKET_SIZE] = { 0 };

  g_return_val_if_fail (self != NULL && result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  result->rate_hz = self->config.rate_hz;
  for (guint64 i = 0; i < self->n_cycles; i++)
    self->rtt_ns[i] = -1;
  if (!connect_peer (self, cancel, error))
    return FALSE;

  memcpy (packet, QF_CYCLE_MAGIC, 4);
  packet[4] = QF_CYCLE_VERSION;
  packet[5] = QF_CYCLE_KIND_REQUEST;
  period_ns = QF_NSEC_PER_SEC / self->config.rate_hz;
  start = qf_clock_now_ns ();
  next_progress = start + PROGRESS_NS;

  for (;;)
    {
      gint64 now = qf_clock_now_ns (), wake;
      struct pollfd pfd = { self->fd, POLLIN, 0 };
      struct timespec ts;

      if (cancel != NULL && g_atomic_int_get (cancel))
        {
          cancelled = TRUE;
          break;
        }
      if (sent < self->n_cycles)
        {
          gint64 due = start + (gint64) sent * period_ns;
          if (now >= due)
            {
              guint64 seq_be = GUINT64_TO_BE (sent + 1);
              guint64 tx_be;
              gint64 tx = qf_clock_now_ns ();

              if (tx - due > period_ns)
                result->send_overruns++;
              tx_be = GUINT64_TO_BE ((guint64) tx);
              memcpy (packet + 8, &seq_be, 8);
              memcpy (packet + 16, &tx_be, 8);
              self->tx_ns[sent] = tx;
              sent++;
              if (send (self->fd, packet, sizeof packet, 0) < 0 && errno == ECONNREFUSED)
                {
                  /* The ICMP port-unreachable of an earlier request: report it below. */
                  if (!drain (self, ring, period_ns, sent, result, error))
                    {
                      ok = FALSE;
                      break;
                    }
                }
              if (sent == self->n_cycles)
                end_wait = tx + self->config.grace_ns;
              continue;
            }
          wake = due;
        }
      else
        {
          if (result->replies >= sent || now >= end_wait)
            break;
          wake = end_wait;
        }
      wake = MIN (wake, next_progress);
      ts = qf_ns_to_timespec (MAX (wake - now, 0));
      if (ppoll (&pfd, 1, &ts, NULL) > 0 && !drain (self, ring, period_ns, sent, result, error))
        {
          ok = FALSE;
          break;
        }
      if (progress != NULL && qf_clock_now_ns () >= next_progress)
        {
          progress ((gdouble) sent / self->n_cycles, sent, 0, user_data);
          next_progress += PROGRESS_NS;
        }
    }
  if (ok)
    ok = drain (self, ring, period_ns, sent, result, error);
  close (self->fd);
  self->fd = -1;

  finish_result (self, sent, period_ns, result);
  if (progress != NULL)
    progress (1.0, result->cycles, result->misses, user_data);
  return ok && run_outcome (self, cancelled, sent, result, error);
}
