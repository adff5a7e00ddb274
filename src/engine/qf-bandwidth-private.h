/* qf-bandwidth-private.h — pieces shared by the bandwidth client (qf-bandwidth.c) and the
 * iperf3-compatible responder (qf-iperf3.c): protocol constants, bounded socket I/O on the
 * control connection, and the data-stream worker threads (src/engine). */
#pragma once

#include <glib.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "qf-bandwidth.h"
#include "qf-minijson.h"

G_BEGIN_DECLS

/* iperf3 3.12 control protocol (src/iperf_api.h, src/iperf.h). */
#define QF_IPERF3_PORT            5201
#define QF_IPERF3_COOKIE_SIZE     37
#define QF_IPERF3_MAX_PARAMS      8192          /* as iperf3 3.18 MAX_PARAMS_JSON_STRING */
#define QF_IPERF3_MAX_RESULTS     QF_JSON_MAX_TEXT
#define QF_IPERF3_MAX_TCP_LEN     (1024 * 1024) /* iperf3 MAX_BLOCKSIZE */
#define QF_IPERF3_MAX_UDP_LEN     65507
#define QF_IPERF3_MIN_UDP_LEN     16
#define QF_IPERF3_MAX_STREAMS     128
#define QF_IPERF3_UDP_DEFAULT_BPS (1024 * 1024)
#define QF_IPERF3_IDLE_TIMEOUT_S  120           /* iperf3 DEFAULT_NO_MSG_RCVD_TIMEOUT */

enum
{
  QF_IPERF3_TEST_START       = 1,
  QF_IPERF3_TEST_RUNNING     = 2,
  QF_IPERF3_TEST_END         = 4,
  QF_IPERF3_PARAM_EXCHANGE   = 9,
  QF_IPERF3_CREATE_STREAMS   = 10,
  QF_IPERF3_SERVER_TERMINATE = 11,
  QF_IPERF3_CLIENT_TERMINATE = 12,
  QF_IPERF3_EXCHANGE_RESULTS = 13,
  QF_IPERF3_DISPLAY_RESULTS  = 14,
  QF_IPERF3_IPERF_DONE       = 16,
  QF_IPERF3_ACCESS_DENIED    = -1,
  QF_IPERF3_SERVER_ERROR     = -2,
};

/* iperf3 i_errno values our responder reports with SERVER_ERROR. */
#define QF_IPERF3_IE_DURATION     5
#define QF_IPERF3_IE_NUMSTREAMS   6
#define QF_IPERF3_IE_RECVPARAMS   114
#define QF_IPERF3_IE_CREATESTREAM 200

typedef struct QfIperf3Server QfIperf3Server;
/* How long the responder lets a running test move no data before ending it (default
 * QF_IPERF3_IDLE_TIMEOUT_S); for tests. */
void _qf_iperf3_server_set_idle_timeout (QfIperf3Server *server,
                                         gdouble         seconds);

/* Stream IDs: 1, 3, 4, 5 … (iperf_add_stream skips 2). */
static inline guint
_qf_iperf3_stream_id (guint index)
{
  return index == 0 ? 1 : index + 2;
}

/* Control-connection I/O: wait at most until deadline_ns (CLOCK_MONOTONIC) and stop early when
 * *cancel becomes nonzero. Errors are QF_BW_ERROR_PEER_LOST (EOF, reset), _CANCELLED or the
 * timeout as QF_BW_ERROR_PEER_LOST with "timed out". `what` names the exchange in messages. */
gboolean _qf_net_read_exact   (int          fd,
                               void        *buf,
                               gsize        n,
                               gint64       deadline_ns,
                               const gint  *cancel,
                               const char  *what,
                               GError     **error);
gboolean _qf_net_write_exact  (int          fd,
                               const void  *buf,
                               gsize        n,
                               gint64       deadline_ns,
                               const gint  *cancel,
                               const char  *what,
                               GError     **error);
gboolean _qf_iperf3_read_state  (int          fd,
                                 signed char *state,
                                 gint64       deadline_ns,
                                 const gint  *cancel,
                                 GError     **error);
gboolean _qf_iperf3_write_state (int          fd,
                                 signed char  state,
                                 GError     **error);
/* Reads one length-prefixed JSON block of at most max_len bytes. */
QfJson  *_qf_iperf3_read_json   (int          fd,
                                 gsize        max_len,
                                 gint64       deadline_ns,
                                 const gint  *cancel,
                                 const char  *what,
                                 GError     **error);
gboolean _qf_iperf3_write_json  (int          fd,
                                 const GString *json,
                                 GError     **error);
void     _qf_iperf3_make_cookie (char         cookie[QF_IPERF3_COOKIE_SIZE]);
/* Process CPU use between a mark and now, in percent of wall time (iperf3's cpu_util_*). */
typedef struct
{
  gint64        t_ns;
  struct rusage usage;
} QfCpuMark;

void     _qf_cpu_mark           (QfCpuMark   *mark);
void     _qf_cpu_util           (const QfCpuMark *since,
                                 gdouble     *user,
                                 gdouble     *system,
                                 gdouble     *total);

/* One data stream and its worker thread. The owner fills the configuration fields, calls
 * _qf_bw_stream_start(), reads the counters from any thread (relaxed atomics) and, after
 * setting *stop and calling _qf_bw_stream_join(), the final values. */
typedef struct
{
  /* configuration */
  int           fd;
  guint         id;
  gboolean      sender;
  QfBwProtocol  protocol;
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
/* Writes one object of iperf3's results "streams" array — our client and our server send the
 * same shape — counting from the omit baseline: bytes, errors and packets minus their base_*,
 * retransmits as the TCP_INFO delta from base_retrans (-1 unless a TCP sender with a baseline).
 * Thread that owns w. */
/* Opens iperf3's results object and writes its common head: the CPU use since `since` and
 * sender_has_retransmits (1 for a TCP sender, -1 otherwise). Both ends then add their own keys
 * and the "streams" array. Thread that owns w. */
void     _qf_bw_write_results_head  (QfJsonWriter     *w,
                                     const QfCpuMark  *since,
                                     gboolean          tcp_sender);
void     _qf_bw_write_stream_result (QfJsonWriter     *w,
                                     const QfBwStream *s,
                                     gboolean          tcp,
                                     guint64           base_bytes,
                                     guint64           base_errors,
                                     guint64           base_packets,
                                     gint64            base_retrans,
                                     gdouble           duration_s);
/* Current jitter in seconds (racy read of a double the worker updates; display only). */
gdouble  _qf_bw_stream_jitter       (const QfBwStream *stream);

static inline guint64
_qf_atomic_get64 (const guint64 *p)
{
  return __atomic_load_n (p, __ATOMIC_RELAXED);
}

G_END_DECLS
