/* qf-iperf3-proto-private.h — the iperf3 3.12 control protocol, as both ends speak it
 * (src/engine).
 *
 * Its constants and states, the cookie, the state bytes and length-prefixed JSON blocks of the
 * control connection (bounded in size and time), and the encoding of the test parameters and of
 * the results: what our client (qf-bandwidth.c) and our responder (qf-iperf3.c) share so that
 * each is wire-compatible with stock iperf3 (../shared/docs/interop.md §1). The data streams
 * themselves run on qf-bw-streams-private.h's workers. */
#pragma once

#include <glib.h>
#include <sys/resource.h>

#include "qf-bw-streams-private.h"
#include "qf-minijson.h"

G_BEGIN_DECLS

/* iperf3 3.12 control protocol (src/iperf_api.h, src/iperf.h). */
#define QF_IPERF3_PORT            5201
#define QF_IPERF3_COOKIE_SIZE     37
#define QF_IPERF3_MAX_PARAMS      8192          /* as iperf3 3.18 MAX_PARAMS_JSON_STRING */
#define QF_IPERF3_MAX_RESULTS     QF_MINIJSON_MAX_TEXT
#define QF_IPERF3_MAX_TCP_LEN     QF_BW_MAX_TCP_LEN   /* iperf3 MAX_BLOCKSIZE */
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

/* Stream IDs: 1, 3, 4, 5 … (iperf_add_stream skips 2). */
static inline guint
_qf_iperf3_stream_id (guint index)
{
  return index == 0 ? 1 : index + 2;
}

/* Control-connection I/O (qf_net_read_exact/qf_net_write_exact): wait at most until
 * deadline_ns (CLOCK_MONOTONIC) and stop early when *cancel becomes nonzero. Errors are
 * QF_NET_ERROR_CANCELLED on a stop and QF_NET_ERROR_PEER_LOST otherwise (timeout, EOF, reset).
 * `what` names the exchange in messages. */
gboolean _qf_iperf3_read_exact  (int          fd,
                                 void        *buf,
                                 gsize        n,
                                 gint64       deadline_ns,
                                 const gint  *cancel,
                                 const char  *what,
                                 GError     **error);
gboolean _qf_iperf3_write_exact (int          fd,
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
QfMiniJson *_qf_iperf3_read_json (int            fd,
                                  gsize          max_len,
                                  gint64         deadline_ns,
                                  const gint    *cancel,
                                  const char    *what,
                                  GError       **error);
gboolean _qf_iperf3_write_json  (int            fd,
                                 const GString *json,
                                 GError       **error);
void     _qf_iperf3_make_cookie (char         cookie[QF_IPERF3_COOKIE_SIZE]);

/* The test parameters (iperf3's PARAM_EXCHANGE object): what our client asks for, what our
 * responder accepts. */
typedef struct
{
  gboolean     udp;
  gboolean     reverse;
  gboolean     bidir;
  gboolean     nodelay;
  gboolean     udp64;
  gboolean     server_output;
  gboolean     auto_len;         /* our "qualify_auto_len": TCP blocks of 16 × each stream's MSS */
  guint        parallel;
  gint64       time_s;
  gint64       omit_s;
  guint        len;
  guint64      rate_bps;         /* "bandwidth"; 0 = unlimited (not sent) */
  gint         window;
} QfIperf3Params;

/* Writes the keys our client sends, in iperf3's order: the protocol, omit, time, num and
 * blockcount (0), parallel, reverse / bidirectional / window / nodelay when set, len,
 * qualify_auto_len when set, bandwidth when nonzero, pacing_timer and client_version. */
void     _qf_iperf3_write_params (const QfIperf3Params *params,
                                  GString              *out);
/* Checks types and ranges as iperf3 3.18 does, so a broken client is refused at once. */
gboolean _qf_iperf3_parse_params (const QfMiniJson     *json,
                                  QfIperf3Params       *params,
                                  GError              **error);

/* Process CPU use since a mark goes into the results (iperf3's cpu_util_*). */
typedef struct
{
  gint64        t_ns;
  struct rusage usage;
} QfCpuMark;

void     _qf_iperf3_cpu_mark    (QfCpuMark   *mark);

/* Opens iperf3's results object and writes its common head: the CPU use since `since` and
 * sender_has_retransmits (1 for a TCP sender, -1 otherwise). Both ends then add their own keys
 * and the "streams" array. Thread that owns w. */
void     _qf_iperf3_write_results_head  (QfMiniJsonWriter *w,
                                         const QfCpuMark  *since,
                                         gboolean          tcp_sender);
/* Writes one object of iperf3's results "streams" array — our client and our server send the
 * same shape — counting from the omit baseline: bytes, errors and packets minus their base_*,
 * retransmits as the TCP_INFO delta from base_retrans (-1 unless a TCP sender with a baseline).
 * Thread that owns w. */
void     _qf_iperf3_write_stream_result (QfMiniJsonWriter *w,
                                         const QfBwStream *s,
                                         gboolean          tcp,
                                         guint64           base_bytes,
                                         guint64           base_errors,
                                         guint64           base_packets,
                                         gint64            base_retrans,
                                         gdouble           duration_s);

G_END_DECLS
