/* qf-bandwidth.h — TCP/UDP throughput client (src/engine).
 *
 * Measures throughput to a bandwidth responder that speaks the iperf3 3.12 control protocol:
 * a stock `iperf3 -s` or our own responder (qf-iperf3.h). One thread per data stream moves
 * bytes with plain send/recv (see qf-bw-streams.c); the calling thread runs the control
 * connection, takes a throughput sample every interval and pushes it to an optional QfRing.
 * TCP blocks default to a whole multiple of the connection's MSS (iperf3's 128 KiB leaves a runt
 * segment per write).
 *
 * Threads: qf_bw_client_run() blocks its caller; on_interval is called on that thread.
 * Another thread stops a run with g_atomic_int_set (cancel, 1); the run returns within 1 s.
 *
 * Errors are QF_NET_ERROR (qf-net.h): _INVALID for a configuration value out of range,
 * _RESOLVE and _UNREACHABLE when the peer cannot be reached or refuses us, _PROTOCOL when it
 * breaks the protocol or refuses the test, _BUSY when it runs another test, _PEER_LOST when it
 * vanishes or stalls during the test, _CANCELLED, and _IO when a local system call fails.
 */
#pragma once

#include <glib.h>

#include "qf-net.h"
#include "qf-ring.h"

G_BEGIN_DECLS

typedef enum
{
  QF_BW_TCP,
  QF_BW_UDP,
} QfBwProtocol;

typedef enum
{
  QF_BW_UP,      /* we send (iperf3 default) */
  QF_BW_DOWN,    /* the peer sends (iperf3 -R) */
  QF_BW_BIDIR,   /* both at once (iperf3 --bidir, iperf -d) */
} QfBwDirection;

/* One live sample: throughput over [t_s - interval, t_s], in Mbit/s (10^6 bit/s). */
typedef struct
{
  gdouble t_s;          /* seconds since the measured part began (after omit) */
  gdouble mbps;         /* all streams, both directions */
  gdouble up_mbps;      /* streams we send on */
  gdouble down_mbps;    /* streams we receive on */
  gint64  retransmits;  /* TCP retransmits of our sending streams in this interval, or -1 */
} QfBwInterval;

/* One stream's share of an interval (passed to the callback only, not stored). */
typedef struct
{
  guint    id;          /* iperf3 stream id: 1, 3, 4 … */
  gboolean sender;      /* we send on it */
  gdouble  mbps;
} QfBwStreamInterval;

typedef void (*QfBwIntervalFunc) (const QfBwInterval       *interval,
                                  const QfBwStreamInterval *streams,
                                  guint                     n_streams,
                                  gpointer                  user_data);

typedef struct
{
  const char      *host;               /* name or address of the responder */
  guint16          port;               /* 0 = 5201 */
  QfBwProtocol     protocol;
  QfBwDirection    direction;
  guint            parallel;           /* streams per direction, 1..128 */
  gdouble          time_s;             /* measured seconds, > 0 */
  gdouble          omit_s;             /* warm-up seconds not counted */
  gdouble          interval_s;         /* sample period; 0 = 1 s */
  guint64          bitrate_bps;        /* per stream; 0 = TCP unlimited, UDP 1 Mbit/s */
  guint            len;                /* block / datagram bytes; 0 = from the MSS */
  gint             window_bytes;       /* SO_SNDBUF/SO_RCVBUF; 0 = system default */
  gboolean         nodelay;
  gboolean         zerocopy;           /* MSG_ZEROCOPY on TCP senders */
  gdouble          connect_timeout_s;  /* 0 = 5 s */
  gdouble          stall_timeout_s;    /* no byte moving for this long ends the test; 0 = 10 s */
  const char      *iface;              /* interface for rx/tx rates; NULL = the one the test uses */
  QfRing          *ring;               /* may be NULL; see qf_bw_client_run() */
  QfBwIntervalFunc on_interval;        /* may be NULL */
  gpointer         user_data;
  GBytes          *token;              /* access token to prove to our responder (qf-auth.h);
                                        * NULL = none */
} QfBwConfig;

typedef struct
{
  QfBwProtocol  protocol;
  QfBwDirection direction;
  guint         streams;           /* per direction */
  guint         len;               /* block / datagram bytes used */
  gdouble       duration_s;        /* measured time (omit excluded) */
  gdouble       sent_mbps;         /* as the senders counted (both directions in bidir) */
  gdouble       received_mbps;     /* as the receivers counted */
  gdouble       up_mbps;           /* received by the peer on our sending streams */
  gdouble       down_mbps;         /* received by us on the peer's sending streams */
  guint64       bytes_sent;        /* by every sending stream, as the senders counted */
  guint64       bytes_received;    /* by every receiving stream (0 for ours when the peer's
                                    * results never came) */
  gint64        retransmits;       /* senders' TCP retransmits, -1 when unknown */
  gdouble       jitter_ms;         /* UDP: mean of receiving streams; -1 for TCP */
  gdouble       lost_pct;          /* UDP: lost / expected over receiving streams; -1 for TCP */
  guint64       lost_packets;
  guint64       total_packets;
  guint64       out_of_order;
  gboolean      have_iface;        /* rx/tx below are valid */
  char          iface[32];
  gdouble       rx_kBps;           /* interface receive rate in kB/s (1024 B, as sar -n DEV) */
  gdouble       tx_kBps;
  gboolean      peer_is_qualify;   /* the responder is ours, not a stock iperf3 */
  char          peer_version[32];
  GArray       *intervals;         /* QfBwInterval, measured part only; kept on error */
} QfBwResult;

typedef struct QfBwClient QfBwClient;

QfBwClient *qf_bw_client_new    (const QfBwConfig *config,
                                 GError          **error);
/* Runs the test. result must be zeroed by the caller and released with qf_bw_result_clear();
 * it is filled as far as the test got even when FALSE is returned. With a ring, one sample per
 * interval is pushed: t_ns = CLOCK_MONOTONIC at the interval's end, value_ns = bit/s,
 * channel 0 = all streams, 1 = up, 2 = down (bidir only). */
gboolean    qf_bw_client_run    (QfBwClient       *client,
                                 const gint       *cancel,
                                 QfBwResult       *result,
                                 GError          **error);
void        qf_bw_client_free   (QfBwClient       *client);
void        qf_bw_result_clear  (QfBwResult       *result);

const char *qf_bw_direction_to_string (QfBwDirection direction);
/* Parses a rate as iperf3 writes it: a number of bit/s with an optional K, M, G or T suffix
 * (powers of 1000), e.g. "100M". */
gboolean    qf_bw_parse_rate          (const char   *text,
                                       guint64      *bps);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfBwClient, qf_bw_client_free)

G_END_DECLS
