/* qf-sockperf.h — socket ping-pong latency client, wire-compatible with sockperf 3.7 (src/engine).
 *
 * One TCP or UDP connection; each request is a sockperf message (14-byte big-endian header:
 * u64 sequence, u16 flags, u32 whole length) and the peer sends the same bytes back. Works
 * against `sockperf sr` and against our responder. Statistics are computed exactly as sockperf's
 * client_statistics: valid window from the first send + 400 ms to the last send − 50 ms, latency
 * = half the round trip unless full_rtt, avg/std-dev/percentiles by sockperf's rules.
 *
 * Two receive modes: blocking (sockperf's default, comparable with the procedure's standard
 * value) and spin (non-blocking receive in a busy loop, like `sockperf --nonblocked`), which
 * also asks our responder to busy-poll for this client; stock sockperf ignores that request.
 */
#pragma once

#include <glib.h>
#include <string.h>

#include "qf-histogram.h"
#include "qf-ring.h"

G_BEGIN_DECLS

#define QF_SOCKPERF_DEFAULT_PORT      11111
#define QF_SOCKPERF_HEADER_SIZE       14
#define QF_SOCKPERF_MIN_MSG_SIZE      14
#define QF_SOCKPERF_MAX_UDP_MSG_SIZE  65507
#define QF_SOCKPERF_MAX_TCP_MSG_SIZE  1048575

#define QF_SOCKPERF_WARMUP_MS         400   /* TEST_START_WARMUP_MSEC */
#define QF_SOCKPERF_COOLDOWN_MS       50    /* TEST_END_COOLDOWN_MSEC */

enum
{
  QF_SOCKPERF_FLAG_CLIENT       = 1,
  QF_SOCKPERF_FLAG_PONG_REQUEST = 2,
  QF_SOCKPERF_FLAG_WARMUP       = 4,
};

/* Our spin request: a flag bit on every request of a --spin client, asking our responder to
 * busy-poll for it. sockperf's server tests the three bits above one by one, so it ignores this
 * bit and echoes it back (a separate hello message confused `sockperf sr --nonblocked`). */
#define QF_SOCKPERF_FLAG_QF_SPIN    0x0100

typedef struct
{
  guint64 seq;
  guint16 flags;
  guint32 length;   /* whole message, header included */
} QfSockperfHeader;

static inline void
qf_sockperf_header_write (guint8                 *buf,
                          const QfSockperfHeader *h)
{
  guint64 seq = GUINT64_TO_BE (h->seq);
  guint16 flags = GUINT16_TO_BE (h->flags);
  guint32 length = GUINT32_TO_BE (h->length);

  memcpy (buf, &seq, 8);
  memcpy (buf + 8, &flags, 2);
  memcpy (buf + 10, &length, 4);
}

static inline void
qf_sockperf_header_read (const guint8     *buf,
                         QfSockperfHeader *h)
{
  guint64 seq;
  guint16 flags;
  guint32 length;

  memcpy (&seq, buf, 8);
  memcpy (&flags, buf + 8, 2);
  memcpy (&length, buf + 10, 4);
  h->seq = GUINT64_FROM_BE (seq);
  h->flags = GUINT16_FROM_BE (flags);
  h->length = GUINT32_FROM_BE (length);
}

typedef enum
{
  QF_SOCKPERF_TCP,
  QF_SOCKPERF_UDP,
} QfSockperfProtocol;

typedef struct
{
  const char         *host;
  guint16             port;              /* 0 = 11111 */
  QfSockperfProtocol  protocol;
  guint               msg_size;          /* 14 … 65507 (UDP) / 1048575 (TCP) */
  gdouble             time_s;            /* measured part; the run lasts 0.4 + time + 0.05 s */
  gboolean            full_rtt;
  gboolean            spin;
  const char         *iface;             /* may be NULL */
  gint64              reply_timeout_ns;  /* UDP: a reply later than this is dropped; 0 = 200 ms */
  guint64             initial_capacity;  /* messages the arrays start with; 0 = 200 000/s × time */
  GBytes             *token;             /* access token to prove to our responder (qf-auth.h);
                                          * NULL = none */
  gint64              interval_ns;       /* 0: each request as soon as the last reply is in,
                                          * as sockperf pp; else at most one per interval (as
                                          * --mps): a probe under load, whose back-to-back
                                          * exchanges would crowd into the moments a queue is
                                          * empty (docs/benchmarks.md) */
  guint32             ring_channel;      /* the channel of the ring's samples (0; a run under
                                          * load draws beside the idle one on 1) */
  QfHistogram        *histogram;         /* gets each reply's latency as reported (warm-up and
                                          * cool-down included: the distribution drawn); NULL =
                                          * none. Borrowed; allocated by the caller. */
} QfSockperfConfig;

/* Percentiles in sockperf's print order, reversed: 25, 50, 75, 90, 99, 99.9, 99.99, 99.999. */
enum
{
  QF_SOCKPERF_P25, QF_SOCKPERF_P50, QF_SOCKPERF_P75, QF_SOCKPERF_P90, QF_SOCKPERF_P99,
  QF_SOCKPERF_P999, QF_SOCKPERF_P9999, QF_SOCKPERF_P99999, QF_SOCKPERF_N_PERCENTILES
};

typedef struct
{
  guint64  sent;            /* pong requests sent in the whole run */
  guint64  samples;         /* valid observations ("ReceivedMessages") */
  guint64  valid_sent;      /* "SentMessages" of the valid window */
  guint64  dropped;
  guint64  out_of_order;
  guint64  duplicates;
  gdouble  valid_run_time_s;
  gint64   avg_ns;          /* half round trip, or full with full_rtt */
  gint64   stddev_ns;
  gint64   min_ns;
  gint64   max_ns;
  gint64   percentile_ns[QF_SOCKPERF_N_PERCENTILES];
  gboolean percentile_valid[QF_SOCKPERF_N_PERCENTILES];
} QfSockperfResult;

extern const gdouble qf_sockperf_percentiles[QF_SOCKPERF_N_PERCENTILES];

/* Called about 4 times a second on the thread that called qf_sockperf_client_run. */
typedef void (*QfSockperfProgressFunc) (gdouble  fraction,
                                        guint64  received,
                                        gint64   last_ns,
                                        gpointer user_data);

typedef struct QfSockperfClient QfSockperfClient;

QfSockperfClient *qf_sockperf_client_new  (const QfSockperfConfig *config,
                                           GError                **error);
/* Connects, runs the ping-pong and fills *result. The messages go out and come back on a
 * thread with a descriptor table of its own (qf_net_run_on_own_fd_table), which this
 * waits for. ring (may be NULL) gets one sample per reply (value = latency as reported,
 * channel 0). A nonzero *cancel ends the run within one reply timeout; the statistics of what
 * was measured are still computed and FALSE is returned with QF_NET_ERROR_CANCELLED. */
gboolean          qf_sockperf_client_run  (QfSockperfClient       *client,
                                           QfRing                 *ring,
                                           const gint             *cancel,
                                           QfSockperfProgressFunc  progress,
                                           gpointer                user_data,
                                           QfSockperfResult       *result,
                                           GError                **error);
void              qf_sockperf_client_free (QfSockperfClient       *client);

/* sockperf's client_statistics over per-sequence times (index i = sequence i + 1; rx 0 = no
 * reply). Exposed for the unit tests. Sorts nothing in place; allocates a scratch array. */
void              qf_sockperf_statistics  (const gint64           *tx_ns,
                                           const gint64           *rx_ns,
                                           guint64                 n_sent,
                                           gboolean                full_rtt,
                                           QfSockperfResult       *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfSockperfClient, qf_sockperf_client_free)

G_END_DECLS
