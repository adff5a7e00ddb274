/* qf-responder.h — the latency responder for the helper machine (src/engine).
 *
 * One epoll event loop on one thread serves, on the latency port (TCP and UDP):
 *   - sockperf-style ping-pong (`sockperf pp` and our latency client): messages with the CLIENT
 *     and PONG_REQUEST flags come back as the same bytes with CLIENT cleared;
 *   - our control-cycle protocol (UDP, see qf-cycle.h);
 *   - our spin flag (QF_SOCKPERF_FLAG_QF_SPIN): the loop busy-polls while such a client is active;
 *     with spin_all it does so for every ping-pong client, as `sockperf sr --nonblocked` does
 *     (`sockperf pp --nonblocked` busy-polls its own end but cannot ask for ours).
 * Many clients at once; every length read from the wire is checked against a bound before it is
 * used; a malformed, truncated or oversized message drops that connection (TCP) or datagram
 * (UDP) and is logged, and the loop goes on serving the others.
 *
 * Emulation (training demos, tests): replies to ping-pong and cycle requests can be held for
 * delay ± uniform jitter and dropped with a probability (UDP only: TCP cannot lose a reply, a
 * poor link shows up there as delay).
 *
 * Access token (qf-auth.h): with a token, a TCP connection must prove it before its first
 * ping-pong message and a UDP peer before its first request; others get a REFUSE in sockperf's
 * framing (our clients print why) and are dropped with one log line, unless allow_classic.
 * A TCP connection takes one of max_clients slots only once it has proven the token (or, without
 * one, sent its first request); until then it waits at most QF_ADMISSION_DEADLINE_NS in a bounded
 * pool of its own (qf-admission.h). A client that proves itself while every slot is taken gets a
 * REFUSE (busy) the same way, then the connection is closed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gdouble delay_ms;    /* mean extra delay of each reply */
  gdouble jitter_ms;   /* uniform ± around the delay (clamped at 0) */
  gdouble loss_pct;    /* UDP replies dropped, 0 … 100 */
  gdouble bloat_ms;    /* a queue that grows with load: the delay it adds while the bandwidth
                        * server moves link_mbps or more (in proportion below), 0 = none */
  gdouble link_mbps;   /* the emulated link's rate for bloat_ms; 0 = 100 */
} QfResponderEmulation;

/* Bytes the load on the emulated link has moved so far (a counter that may restart at 0 when a
 * test ends): the bandwidth server's, for the emulated queue. Called on the responder's thread
 * at most every 100 ms. */
typedef guint64 (*QfResponderLoadFunc) (gpointer user_data);

/* Called on the thread that called qf_responder_run, one line per finished test or per
 * rejected client, through a log limit (qf-admission.h) whose summary line counts the rest. */
typedef void (*QfResponderLogFunc) (const char *line,
                                    gpointer    user_data);

typedef struct
{
  const char          *bind_address;     /* NULL = all addresses (IPv6 dual stack, else IPv4) */
  guint16              latency_port;     /* 0 = pick a free port (see qf_responder_get_port) */
  const char          *iface;            /* SO_BINDTODEVICE; may be NULL */
  guint                max_clients;      /* simultaneous TCP connections + UDP peers; 0 = 64 */
  guint                max_test_seconds; /* a test longer than this is ended; 0 = 3600 */
  guint                max_msg_size;     /* largest accepted message; 0 = 65507 (sockperf sr) */
  QfResponderEmulation emulate;
  GBytes              *token;            /* shared access token (qf-auth.h); NULL = none needed */
  gboolean             allow_classic;    /* with a token: still serve clients that cannot prove
                                          * it (stock sockperf pp) */
  gboolean             spin_all;         /* busy-poll every ping-pong client, not only those
                                          * that ask (one CPU while one is served) */
  QfResponderLogFunc   log;
  gpointer             log_data;
  QfResponderLoadFunc  load_bytes;       /* for emulate.bloat_ms; NULL = no load seen */
  gpointer             load_data;
} QfResponderConfig;

typedef struct
{
  guint64 tcp_connections;
  guint64 udp_peers;
  guint64 messages;          /* requests answered (or held for an emulated delay) */
  guint64 rejected;          /* connections or messages refused (malformed, oversized, full) */
  guint64 emulated_drops;
} QfResponderStats;

typedef struct QfResponder QfResponder;

/* A client being served now, as the responder and the bandwidth server (qf-iperf3.h) publish
 * it for other threads: refreshed by the serving loop at most every 100 ms, so the measured
 * path only bumps the counters it keeps anyway. */
typedef struct
{
  char       *address;     /* the client's address, without port ("fe80::1%eth0") */
  const char *test;        /* static: "latency-tcp", "latency-udp", "cycle", "bandwidth" */
  gint64      started_ns;  /* CLOCK_MONOTONIC: when its test started */
  gint64      as_of_ns;    /* CLOCK_MONOTONIC: when count was read */
  guint64     count;       /* messages answered, or with count_bytes bytes moved */
  gboolean    count_bytes; /* count is bytes (the bandwidth server), else messages */
} QfServedClient;

/* Frees the address (an element clear func for a GArray of QfServedClient). */
void         qf_served_client_clear (gpointer                 client);
/* Appends to list a copy of client with an address of its own. */
void         qf_served_client_append_copy (GArray               *list,
                                           const QfServedClient *client);

/* Opens and binds the sockets (so a bind error is reported before any thread starts). */
QfResponder *qf_responder_new       (const QfResponderConfig *config,
                                     GError                 **error);
guint16      qf_responder_get_port  (QfResponder             *responder);
/* Serves until *stop becomes nonzero (checked at least every 100 ms). Blocks its caller, whose
 * thread writes the log meanwhile: the loop runs on a thread with a descriptor table of its own
 * (qf_net_run_on_own_fd_table) and closes every connection it accepted before this
 * returns. */
gboolean     qf_responder_run       (QfResponder             *responder,
                                     const gint              *stop,
                                     GError                 **error);
/* The clients served now: a GArray of QfServedClient (clear func set), copied under a lock.
 * Any thread, while or after run() runs. */
GArray      *qf_responder_list_clients (QfResponder          *responder);
/* Safe to call after run() returned. */
void         qf_responder_get_stats (QfResponder             *responder,
                                     QfResponderStats        *stats);
void         qf_responder_free      (QfResponder             *responder);

/* Parses "delay=MS,jitter=MS,loss=PCT" (any subset, any order). */
gboolean     qf_responder_emulation_parse (const char           *text,
                                           QfResponderEmulation *out,
                                           GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfResponder, qf_responder_free)

G_END_DECLS
