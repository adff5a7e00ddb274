/* qf-ping.h — ICMP echo round-trip engine, IPv4 and IPv6 (src/engine).
 *
 * Like iputils ping, with the procedure's `ping -i 0.001 -s 1024 -c 100` in mind: requests leave
 * on a fixed schedule whatever the replies do (a slow reply never stretches the interval), and
 * replies are received asynchronously. An unprivileged datagram ICMP socket is used when
 * net.ipv4.ping_group_range allows it, a raw socket when root or CAP_NET_RAW, or whatever socket
 * config->open_socket hands over (the core: one from the qualifyd system service, and the rule of
 * who may ping how often; the engine itself knows nothing of either); on a datagram socket the
 * kernel rewrites the echo id, so replies are matched on sequence and payload.
 * RTT = kernel receive timestamp (SO_TIMESTAMPNS) − the time read just before sendto.
 * min/avg/max/mdev are computed in integer microseconds exactly as iputils does (duplicates
 * included, as there); percentiles and the histogram come from the exact nanosecond samples.
 */
#pragma once

#include <glib.h>

#include "qf-histogram.h"
#include "qf-ring.h"

G_BEGIN_DECLS

#define QF_PING_DEFAULT_SIZE   1024
#define QF_PING_MAX_SIZE       65507
#define QF_PING_HIST_BUCKET_NS (10 * 1000)   /* 10 µs */
#define QF_PING_HIST_BUCKETS   100000        /* up to 1 s; slower replies count as overflow */

/* Gives the engine its ICMP socket for `family` (AF_INET or AF_INET6, known once the host is
 * resolved) in place of opening one itself. Returns the socket, which the engine then owns, and
 * sets *raw (FALSE: a datagram ICMP socket); or -1 with error set, which qf_ping_new() returns.
 * Called once, on the thread of qf_ping_new(). */
typedef int (*QfPingSocketFunc) (int        family,
                                 gboolean  *raw,
                                 gpointer   user_data,
                                 GError   **error);

typedef struct
{
  const char *host;
  gdouble     interval_ms;   /* 0.1 … 60000; default 1000 when 0 */
  guint       size;          /* ICMP payload bytes, 0 … 65507 */
  guint64     count;         /* 0 = until the deadline or a stop request */
  gdouble     deadline_s;    /* 0 = none: whole run, sending and waiting (iputils -w) */
  gdouble     timeout_s;     /* wait for the last replies (iputils -W); 0 = 2 s */
  const char *iface;         /* interface name, or a source address as iputils -I accepts */
  const char *source;        /* source address; may be NULL */
  int         ttl;           /* 0 = system default */
  QfPingSocketFunc open_socket;   /* NULL: the engine opens its socket (qf_ping_open_socket) */
  gpointer    open_socket_data;
} QfPingConfig;

typedef struct
{
  char     address[64];      /* numeric address pinged */
  gboolean raw_socket;       /* FALSE = unprivileged datagram ICMP socket */
  guint64  transmitted;
  guint64  received;         /* distinct replies */
  guint64  duplicates;
  guint64  errors;           /* ICMP errors (unreachable, time exceeded) and failed sends */
  gdouble  loss_pct;
  gint64   time_ms;          /* as iputils' "time": first send to the end of the run */
  /* iputils arithmetic, integer µs */
  gint64   min_us, avg_us, max_us, mdev_us;
  /* exact, over distinct replies */
  gint64   p50_ns, p99_ns, p999_ns;
} QfPingResult;

/* Called on the run's thread about 10 times a second; must not block. */
typedef void (*QfPingProgressFunc) (gdouble  fraction,
                                    guint64  transmitted,
                                    guint64  received,
                                    gpointer user_data);

typedef struct QfPing QfPing;

/* The engine's own way to get a socket: a datagram ICMP socket where net.ipv4.ping_group_range
 * allows it, else a raw one (root, CAP_NET_RAW); nonblocking and close-on-exec. -1 with
 * QF_NET_ERROR_PERMISSION naming the sysctl when neither is allowed. */
int                qf_ping_open_socket   (int                 family,
                                          gboolean           *raw,
                                          GError            **error);

/* Resolves the host and opens the socket, or takes it from config->open_socket; fails with
 * QF_NET_ERROR_PERMISSION naming the sysctl when neither socket kind is allowed. */
QfPing            *qf_ping_new           (const QfPingConfig *config,
                                          GError            **error);
/* Runs on the calling thread. ring (may be NULL) gets one sample per reply: value = RTT ns,
 * channel = icmp_seq (from 1), flags = 1 for a duplicate | TTL << 8. A nonzero *cancel ends it
 * within one interval (FALSE, QF_NET_ERROR_CANCELLED, *result filled). No reply at all: FALSE
 * with QF_NET_ERROR_UNREACHABLE, *result filled. */
gboolean           qf_ping_run           (QfPing             *ping,
                                          QfRing             *ring,
                                          const gint         *cancel,
                                          QfPingProgressFunc  progress,
                                          gpointer            user_data,
                                          QfPingResult       *result,
                                          GError            **error);
/* RTT histogram of the last run (QF_PING_HIST_BUCKET_NS buckets). */
const QfHistogram *qf_ping_get_histogram (QfPing             *ping);
void               qf_ping_free          (QfPing             *ping);

/* iputils' mdev: sqrt(tsum2/n − (tsum/n)²) in integer µs, with its rounding order. */
gint64             qf_ping_iputils_mdev  (gint64              tsum_us,
                                          gint64              tsum2_us2,
                                          gint64              total);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfPing, qf_ping_free)

G_END_DECLS
