/* qf-bw-streams.c — the bandwidth data-stream workers (src/engine). See qf-bw-streams-private.h.
 * Used by both ends of a bandwidth test, our client (qf-bandwidth.c) and our iperf3-compatible
 * responder (qf-iperf3.c); it knows nothing of the control protocol that sets the streams up.
 *
 * Why the loops look the way they do: one thread per stream, TCP writes of whole MSS multiples
 * and reads of about 64 KiB, both non-blocking with poll() when the socket cannot take or give
 * more, is what moved the most per CPU second here (docs/benchmarks.md; no event loop, no
 * copies but the kernel's). Counters are relaxed atomics read by the control thread once per
 * interval; the 100 ms poll (TCP) and SO_RCVTIMEO (UDP) bound how long a worker takes to see
 * a stop. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "qf-bw-streams-private.h"
#include "qf-clock.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

#define WORKER_POLL_MS 100

static inline void
atomic_add64 (guint64 *p,
              guint64  v)
{
  __atomic_fetch_add (p, v, __ATOMIC_RELAXED);
}

static inline void
atomic_set64 (guint64 *p,
              guint64  v)
{
  __atomic_store_n (p, v, __ATOMIC_RELAXED);
}

static inline gboolean
stopped (const QfBwStream *s)
{
  return g_atomic_int_get (s->stop) != 0;
}

static void
stream_fail (QfBwStream *s,
             int         errsv,
             gboolean    eof)
{
  s->errsv = errsv;
  g_atomic_int_set (&s->eof, eof);
  g_atomic_int_set (&s->failed, 1);
}


gint64
_qf_bw_tcp_total_retrans (int fd)
{
  struct tcp_info info;
  socklen_t len = sizeof info;

  memset (&info, 0, sizeof info);
  if (fd < 0 || getsockopt (fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0)
    return -1;
  return info.tcpi_total_retrans;
}


static void
drain_zerocopy (int fd)
{
  char control[128];

  for (int i = 0; i < 64; i++)
    {
      struct msghdr msg = { 0 };
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      if (recvmsg (fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
        break;
    }
}

/* Sleeps until the pacing deadline of a rate-limited sender, in slices short enough to see a
 * stop request. */
static void
pace (QfBwStream *s,
      gint64      start_ns,
      guint64     bytes_done)
{
  gint64 due_ns;

  if (s->rate_bps == 0)
    return;
  due_ns = start_ns + (gint64) ((gdouble) bytes_done * 8.0 * 1e9 / (gdouble) s->rate_bps);
  for (;;)
    {
      gint64 now = qf_clock_now_ns ();
      struct timespec ts;

      if (due_ns <= now || stopped (s))
        return;
      ts = qf_ns_to_timespec (MIN (due_ns, now + WORKER_POLL_MS * QF_NSEC_PER_MSEC));
      clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}

/* Whole segments per write cost the least CPU per byte: a write that is not a multiple of the
 * MSS leaves a runt segment behind each time. The MSS to use is this data connection's once
 * it runs: early on Linux bounds it by half the peer's first window (on loopback 32741 at
 * first, 65483 a few round trips later), so the sender re-reads it as it goes. */
static void
adjust_len (QfBwStream *s)
{
  int mss = 0;
  socklen_t mss_len = sizeof mss;

  if (getsockopt (s->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &mss_len) == 0 && mss > 0)
    s->len = (guint) (MIN (16, QF_BW_MAX_TCP_LEN / mss) * mss);
}

static void
tcp_send_loop (QfBwStream *s)
{
  gint64 start_ns = qf_clock_now_ns ();
  guint64 sent = 0;
  guint n_zc = 0, n_sends = 0;
  int flags = MSG_NOSIGNAL;

  if (s->zerocopy)
    {
      int one = 1;
      if (setsockopt (s->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one) == 0)
        flags |= MSG_ZEROCOPY;
    }
  /* Non-blocking writes, and poll() for room when the socket buffer is full: on loopback this
   * moved 45 % more than blocking send() in the same minutes (docs/benchmarks.md), as iperf3's
   * client does. The poll's 100 ms bound is how soon a stop is seen. */
  fcntl (s->fd, F_SETFL, fcntl (s->fd, F_GETFL) | O_NONBLOCK);

  while (!stopped (s))
    {
      ssize_t n;

      pace (s, start_ns, sent);
      n = send (s->fd, s->buf, s->len, flags);
      if (n < 0 && errno == EAGAIN)
        {
          struct pollfd pfd = { s->fd, POLLOUT, 0 };
          poll (&pfd, 1, WORKER_POLL_MS);
          continue;
        }
      if (n > 0)
        {
          sent += n;
          atomic_add64 (&s->bytes, n);
          if (s->auto_len && (++n_sends & 15) == 0)
            adjust_len (s);
          if ((flags & MSG_ZEROCOPY) && (++n_zc & 15) == 0)
            drain_zerocopy (s->fd);
          continue;
        }
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (n < 0 && errno == ENOBUFS && (flags & MSG_ZEROCOPY))
        {
          drain_zerocopy (s->fd);
          continue;
        }
      stream_fail (s, n < 0 ? errno : 0, n == 0);
      return;
    }
}

static void
tcp_recv_loop (QfBwStream *s)
{
  guint read_len = s->read_len ? MIN (s->read_len, s->len) : s->len;

  /* Non-blocking too, with poll() for data: as fast as a blocking recv() and about a fifth
   * less CPU per GB in alternating rounds here (docs/benchmarks.md). */
  fcntl (s->fd, F_SETFL, fcntl (s->fd, F_GETFL) | O_NONBLOCK);
  while (!stopped (s))
    {
      ssize_t n = recv (s->fd, s->buf, read_len, 0);

      if (n < 0 && errno == EAGAIN)
        {
          struct pollfd pfd = { s->fd, POLLIN, 0 };
          poll (&pfd, 1, WORKER_POLL_MS);
          continue;
        }

      if (n > 0)
        {
          atomic_add64 (&s->bytes, n);
          continue;
        }
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      stream_fail (s, n < 0 ? errno : 0, n == 0);
      return;
    }
}

static inline void
put_be32 (char   *p,
          guint32 v)
{
  v = GUINT32_TO_BE (v);
  memcpy (p, &v, 4);
}

static inline guint32
get_be32 (const char *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return GUINT32_FROM_BE (v);
}

static void
udp_send_loop (QfBwStream *s)
{
  gint64 start_ns = qf_clock_now_ns ();
  guint64 sent = 0, seq = 1;

  /* Default timer slack (50 µs) would make the pacing sleep overshoot at 100 Mbit/s. */
  prctl (PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);

  while (!stopped (s))
    {
      gint64 now_ns;
      ssize_t n;

      pace (s, start_ns, sent);
      /* iperf3 3.12 stamps with CLOCK_MONOTONIC too (iperf_time_now). */
      now_ns = qf_clock_now_ns ();
      put_be32 (s->buf, (guint32) (now_ns / QF_NSEC_PER_SEC));
      put_be32 (s->buf + 4, (guint32) (now_ns % QF_NSEC_PER_SEC / 1000));
      if (s->udp64)
        {
          guint64 be = GUINT64_TO_BE (seq);
          memcpy (s->buf + 8, &be, 8);
        }
      else
        put_be32 (s->buf + 8, (guint32) seq);

      n = send (s->fd, s->buf, s->len, MSG_NOSIGNAL);
      if (n > 0)
        {
          sent += n;
          seq++;
          atomic_add64 (&s->bytes, n);
          atomic_set64 (&s->packets, seq - 1);
          continue;
        }
      /* A full socket buffer, or an ICMP error from an earlier datagram, is not the end of a
       * UDP test; the control connection tells whether the peer is gone. */
      if (n < 0 && (errno == EAGAIN || errno == EINTR || errno == ENOBUFS
                    || errno == ECONNREFUSED))
        {
          if (errno == ENOBUFS)
            g_usleep (100);
          continue;
        }
      stream_fail (s, n < 0 ? errno : 0, FALSE);
      return;
    }
}

static void
udp_recv_loop (QfBwStream *s)
{
  guint header = s->udp64 ? 16 : 12;

  while (!stopped (s))
    {
      ssize_t n = recv (s->fd, s->buf, s->len, 0);
      gint64 arrival_us, sent_us;
      guint64 seq, max_seq;
      gdouble transit, d;

      if (n < 0)
        {
          if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED)
            continue;
          stream_fail (s, errno, FALSE);
          return;
        }
      arrival_us = qf_clock_now_ns () / 1000;
      atomic_add64 (&s->bytes, n);
      if ((guint) n < header)
        continue;

      sent_us = (gint64) get_be32 (s->buf) * G_USEC_PER_SEC + get_be32 (s->buf + 4);
      if (s->udp64)
        {
          guint64 be;
          memcpy (&be, s->buf + 8, 8);
          seq = GUINT64_FROM_BE (be);
        }
      else
        seq = get_be32 (s->buf + 8);

      /* iperf3's accounting (iperf_udp_recv): a gap counts as lost, a late packet takes one
       * back and counts as out of order; packets = highest sequence seen. */
      max_seq = s->packets;
      if (seq >= max_seq + 1)
        {
          if (seq > max_seq + 1)
            atomic_add64 (&s->errors, (seq - 1) - max_seq);
          atomic_set64 (&s->packets, seq);
        }
      else
        {
          atomic_add64 (&s->out_of_order, 1);
          if (s->errors > 0)
            atomic_set64 (&s->errors, s->errors - 1);
        }

      /* RFC 1889 jitter, in seconds, as iperf3 computes it, except that the first packet only
       * sets the reference transit time: iperf3 starts from 0, so the two hosts' clock offset
       * enters its jitter as a spike that takes hundreds of packets to decay. */
      transit = (arrival_us - sent_us) / 1e6;
      d = fabs (transit - s->prev_transit_s);
      s->prev_transit_s = transit;
      if (s->have_transit)
        s->jitter_s += (d - s->jitter_s) / 16.0;
      s->have_transit = TRUE;
    }
}

static gpointer
stream_thread (gpointer data)
{
  QfBwStream *s = data;

  if (!s->udp)
    {
      if (s->sender)
        tcp_send_loop (s);
      else
        tcp_recv_loop (s);
    }
  else
    {
      if (s->sender)
        udp_send_loop (s);
      else
        udp_recv_loop (s);
    }
  return NULL;
}

void
_qf_bw_stream_start (QfBwStream *stream)
{
  struct timeval tv = { 0, WORKER_POLL_MS * 1000 };
  guint buf_len;

  g_return_if_fail (stream->thread == NULL && stream->stop != NULL);

  setsockopt (stream->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt (stream->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  /* A UDP receiver takes any datagram. A TCP receiver reads whole segments, about 64 KiB a
   * call (one segment on loopback, 45 of 1448 bytes on Ethernet): a 1 MiB read holds the socket
   * lock while it copies, so arriving segments wait in the backlog and the sender's window
   * opens late; a smaller one costs a system call per few kilobytes. Reads that grow while
   * they come back full were tried and measured worse (docs/benchmarks.md). */
  buf_len = stream->udp && !stream->sender ? 65536 : stream->len;
  if (!stream->udp && !stream->sender && stream->read_len == 0)
    {
      struct tcp_info info;
      socklen_t info_len = sizeof info;
      guint mss = 0;

      memset (&info, 0, sizeof info);
      if (getsockopt (stream->fd, IPPROTO_TCP, TCP_INFO, &info, &info_len) == 0)
        mss = MAX (info.tcpi_advmss, info.tcpi_rcv_mss);
      if (mss < 512 || mss > 65535)
        mss = 65536;
      buf_len = stream->len = stream->read_len = MAX (1u, 65536 / mss) * mss;
    }
  if (!stream->udp && stream->sender && stream->auto_len)
    {
      /* The block follows this connection's MSS while it runs (tcp_send_loop). */
      adjust_len (stream);
      buf_len = QF_BW_MAX_TCP_LEN;
    }
  if (stream->udp && !stream->sender)
    stream->len = buf_len;
  stream->buf = g_malloc (buf_len);
  /* Payload content does not matter to either side, but a link that compresses should not
   * flatter it: 4 KiB of random bytes, repeated. */
  for (guint i = 0; i < MIN (buf_len, 4096u); i += 4)
    {
      guint32 r = g_random_int ();
      memcpy (stream->buf + i, &r, MIN (4u, buf_len - i));
    }
  for (guint done = 4096; done < buf_len; done *= 2)
    memcpy (stream->buf + done, stream->buf, MIN (done, buf_len - done));
  stream->thread = g_thread_new ("qf-bw-stream", stream_thread, stream);
}

void
_qf_bw_stream_join (QfBwStream *stream)
{
  if (stream->thread != NULL)
    g_thread_join (g_steal_pointer (&stream->thread));
}

void
_qf_bw_stream_clear (QfBwStream *stream)
{
  _qf_bw_stream_join (stream);
  if (stream->fd >= 0)
    close (stream->fd);
  stream->fd = -1;
  g_clear_pointer (&stream->buf, g_free);
}
