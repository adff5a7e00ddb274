/* fuzz-iperf3-results.c — what our bandwidth client does with the peer's results block: the
 * length-prefixed read (_qf_iperf3_read_json, shared with the responder's parameter read) over a
 * real socket, then the lookups summarize() and peer_stream() in qf-bandwidth.c make (the stream
 * whose "id" matches, its bytes, end_time, retransmits, errors, packets, jitter). */
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-iperf3-proto-private.h"
#include "qf-clock.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfMiniJson) results = NULL;
  int sv[2];
  int sndbuf = 1024 * 1024;
  const QfMiniJson *streams;

  if (size > QF_IPERF3_MAX_RESULTS + 4)
    return 0;
  g_assert (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  setsockopt (sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  setsockopt (sv[1], SOL_SOCKET, SO_RCVBUF, &sndbuf, sizeof sndbuf);
  g_assert (write (sv[0], data, size) == (ssize_t) size);
  shutdown (sv[0], SHUT_WR);
  results = _qf_iperf3_read_json (sv[1], QF_IPERF3_MAX_RESULTS,
                                  qf_clock_now_ns () + 2 * QF_NSEC_PER_SEC, NULL, "results",
                                  &error);
  close (sv[0]);
  close (sv[1]);
  g_assert ((results == NULL) == (error != NULL));
  if (results == NULL)
    return 0;
  g_assert (qf_minijson_type (results) == QF_MINIJSON_OBJECT);

  (void) qf_minijson_double (qf_minijson_get (results, "cpu_util_total"), 0);
  streams = qf_minijson_get (results, "streams");
  for (guint id = 0; id < 8; id++)
    for (const QfMiniJson *s = qf_minijson_first (streams); s != NULL; s = qf_minijson_next (s))
      if (qf_minijson_int (qf_minijson_get (s, "id"), -1) == id)
        {
          (void) qf_minijson_int (qf_minijson_get (s, "bytes"), 0);
          (void) qf_minijson_double (qf_minijson_get (s, "end_time"), 0);
          (void) qf_minijson_int (qf_minijson_get (s, "retransmits"), -1);
          (void) qf_minijson_int (qf_minijson_get (s, "errors"), 0);
          (void) qf_minijson_int (qf_minijson_get (s, "packets"), 0);
          (void) qf_minijson_double (qf_minijson_get (s, "jitter"), 0);
          break;
        }
  return 0;
}
