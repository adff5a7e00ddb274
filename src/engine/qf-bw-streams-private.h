/* qf-bw-streams-private.h — the bandwidth data streams and their worker threads (src/engine).
 *
 * One QfBwStream is one TCP connection or connected UDP socket of a bandwidth test and the
 * thread that moves bytes on it as fast as allowed (or at a paced rate), counting what it moved.
 * Our client (qf-bandwidth.c) and our iperf3-compatible responder (qf-iperf3.c) both run their
 * streams with these workers; the control protocol that sets them up is elsewhere
 * (qf-iperf3-proto-private.h), and nothing here calls back into either end. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The largest TCP block a worker sends: iperf3's MAX_BLOCKSIZE. */
#define QF_BW_MAX_TCP_LEN (1024 * 1024)

/* One data stream and its worker thread. The owner fills the configuration fields, calls
 * _qf_bw_stream_start(), reads the counters from any thread (relaxed atomics) and, after
 * setting *stop and calling _qf_bw_stream_join(), the final values. */
typedef struct
{
  /* configuration */
  int           fd;
  guint         id;
  gboolean      sender;
  gboolean      udp;            /* UDP datagrams with iperf3's header; else a TCP byte stream */
  guint         len;            /* bytes per send; receive buffer for TCP */
  guint         read_len;       /* TCP bytes per recv (0 = len) */
  gboolean      auto_len;       /* TCP sender: len = 16 × this stream's MSS as it runs */
  guint64       rate_bps;       /* 0 = unlimited */
  gboolean      udp64;          /* 64-bit UDP sequence numbers */
  gboolean      zerocopy;
  const gint   *stop;           /* nonzero: the worker returns */

  /* counters (the worker writes, anyone reads atomically) */
  guint64       bytes;
  guint64       packets;        /* UDP sender: sent; receiver: highest sequence seen */
  guint64       errors;         /* UDP receiver: lost (iperf3 cnt_error) */
  guint64       out_of_order;
  gint          failed;         /* the worker hit an error or EOF */
  gint          eof;            /* the peer closed the stream */
  int           errsv;          /* errno of the failure */

  /* worker-private, final after join */
  gdouble       jitter_s;
  gdouble       prev_transit_s;
  gboolean      have_transit;
  char         *buf;
  GThread      *thread;
} QfBwStream;

void     _qf_bw_stream_start        (QfBwStream *stream);
void     _qf_bw_stream_join         (QfBwStream *stream);
void     _qf_bw_stream_clear        (QfBwStream *stream);   /* joins, closes fd, frees */

/* TCP_INFO tcpi_total_retrans of the socket, or -1. Any thread. */
gint64   _qf_bw_tcp_total_retrans   (int fd);

static inline guint64
_qf_atomic_get64 (const guint64 *p)
{
  return __atomic_load_n (p, __ATOMIC_RELAXED);
}

G_END_DECLS
