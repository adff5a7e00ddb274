/* qf-cycle.h — the control-cycle test and its wire format (src/engine).
 *
 * Shaped like a robot's control loop: a UDP request every period (default 1 ms), each carrying
 * its sequence and send time; the peer (our responder) sends it straight back. A cycle whose
 * reply is not back within one period missed its deadline. Reported: cycles, misses (late or
 * lost), the longest run of consecutive misses, lost replies and the RTT distribution.
 * Requests are sent on schedule whatever the replies do; replies are received asynchronously.
 *
 * Wire (all big-endian), QF_CYCLE_PACKET_SIZE bytes:
 *   0  "QFCY"   magic (sockperf messages start with a small u64 sequence, so they never match)
 *   4  u8       version (1)
 *   5  u8       kind: 1 request, 2 reply
 *   6  u16      reserved, 0
 *   8  u64      sequence, from 1
 *   16 u64      sender's CLOCK_MONOTONIC send time in ns (opaque to the responder)
 *   24 u64      reserved, 0
 * The responder answers with the same bytes and kind 2.
 */
#pragma once

#include <glib.h>
#include <string.h>

#include "qf-histogram.h"
#include "qf-ring.h"
#include "qf-trace.h"

G_BEGIN_DECLS

#define QF_CYCLE_MAGIC        "QFCY"
#define QF_CYCLE_VERSION      1
#define QF_CYCLE_PACKET_SIZE  32
#define QF_CYCLE_KIND_REQUEST 1
#define QF_CYCLE_KIND_REPLY   2

static inline gboolean
qf_cycle_packet_is_cycle (const guint8 *buf,
                          gsize         len)
{
  return len >= QF_CYCLE_PACKET_SIZE && memcmp (buf, QF_CYCLE_MAGIC, 4) == 0
         && buf[4] == QF_CYCLE_VERSION;
}

typedef struct
{
  const char *host;
  guint16     port;          /* 0 = 11111 */
  guint       rate_hz;       /* 1 … 10000; default 1000 */
  gdouble     time_s;
  const char *iface;         /* may be NULL */
  gint64      grace_ns;      /* wait for stragglers after the last send; 0 = 500 ms */
  GBytes     *token;         /* access token to prove to our responder (qf-auth.h); NULL = none */
  const QfTraceMarks *marks; /* mark late replies in a trace (qf-trace.h: start = the send
                              * time, latency = the round trip); NULL = none. Borrowed. */
  guint32     ring_channel;  /* the channel of the ring's samples (0; a run under load: 1) */
  QfHistogram *histogram;    /* gets half of each round trip (one way, as the ping-pong's);
                              * NULL = none. Borrowed; allocated by the caller. */
} QfCycleConfig;

typedef struct
{
  guint    rate_hz;
  guint64  cycles;              /* requests sent */
  guint64  replies;             /* distinct replies received */
  guint64  misses;              /* cycles whose reply was not back within one period (late + lost) */
  guint64  late;                /* replies that came back, but after one period */
  guint64  lost;                /* never came back */
  guint64  longest_miss_burst;  /* longest run of consecutive missed cycles */
  guint64  duplicates;
  gint64   avg_rtt_ns;
  gint64   p50_rtt_ns;
  gint64   p99_rtt_ns;
  gint64   p999_rtt_ns;
  gint64   min_rtt_ns;
  gint64   max_rtt_ns;
  guint64  send_overruns;       /* sends more than one period behind schedule (this PC was late) */
} QfCycleResult;

typedef void (*QfCycleProgressFunc) (gdouble  fraction,
                                     guint64  cycles,
                                     guint64  misses,
                                     gpointer user_data);

typedef struct QfCycleTest QfCycleTest;

QfCycleTest *qf_cycle_test_new  (const QfCycleConfig *config,
                                 GError             **error);
/* Runs on the calling thread. ring (may be NULL) gets one sample per reply (value = RTT,
 * channel config->ring_channel, flags 1 when the cycle missed its deadline). A nonzero *cancel
 * ends it within one period plus the grace time; FALSE with QF_NET_ERROR_CANCELLED, *result
 * still filled. */
gboolean     qf_cycle_test_run  (QfCycleTest         *test,
                                 QfRing              *ring,
                                 const gint          *cancel,
                                 QfCycleProgressFunc  progress,
                                 gpointer             user_data,
                                 QfCycleResult       *result,
                                 GError             **error);
void         qf_cycle_test_free (QfCycleTest         *test);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfCycleTest, qf_cycle_test_free)

G_END_DECLS
