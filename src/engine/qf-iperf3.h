/* qf-iperf3.h — the bandwidth responder: an iperf3 3.12-compatible server (src/engine).
 *
 * Serves a stock `iperf3 -c` and our own bandwidth client (qf-bandwidth.h) on one TCP port
 * (default 5201) and the same UDP port, one test at a time, as iperf3 -s does: cookie checks,
 * stream numbering 1, 3, 4 …, UDP stream setup, omit, results exchange
 * (../shared/docs/interop.md §1). Parameter JSON over 8 KiB, malformed JSON and wrong stream
 * cookies are refused and the next client is served. A control connection takes the test only
 * once it has sent its cookie (and, with a token, proven it); until then it waits at most
 * QF_ADMISSION_DEADLINE_NS in a bounded pool (qf-admission.h), so idle connections hold nothing.
 * Log lines go through that file's log limit.
 *
 * Threads: qf_iperf3_server_run() blocks its caller and serves until *cancel becomes nonzero
 * (it then returns within 1 s); each test adds one thread per data stream. The log function is
 * called on the run thread.
 */
#pragma once

#include <glib.h>

#include "qf-responder.h"

G_BEGIN_DECLS

typedef struct QfIperf3Server QfIperf3Server;

typedef void (*QfIperf3LogFunc) (const char *line,
                                 gpointer    user_data);

/* Binds TCP port `port` (0 = an ephemeral one, for tests) on bind_address (NULL = every
 * address, IPv6 and IPv4). The UDP port is bound per test. */
QfIperf3Server *qf_iperf3_server_new        (const char      *bind_address,
                                             guint16          port,
                                             GError         **error);
guint16         qf_iperf3_server_get_port   (QfIperf3Server  *server);
/* Serves on this interface only (SO_BINDTODEVICE on the TCP listener and the UDP sockets). */
gboolean        qf_iperf3_server_bind_iface (QfIperf3Server  *server,
                                             const char      *iface,
                                             GError         **error);
void            qf_iperf3_server_set_log    (QfIperf3Server  *server,
                                             QfIperf3LogFunc  log,
                                             gpointer         user_data);
/* The responder's limits, as `qualify-cli serve --max-clients N --max-test-seconds S`: tests
 * run one at a time (as iperf3 -s: every other client is answered ACCESS_DENIED at once); a
 * test may open at most max_clients data streams (0 = iperf3's limit) and ask for at most
 * max_test_seconds of time + omit (0 = any), else it is refused with iperf3's SERVER_ERROR
 * (IENUMSTREAMS, IEDURATION); a test still running max_test_seconds + 2 s after it started
 * is ended (SERVER_TERMINATE). Call before qf_iperf3_server_run(). */
void            qf_iperf3_server_set_limits (QfIperf3Server  *server,
                                             guint            max_clients,
                                             guint            max_test_seconds);
/* Access token (qf-auth.h, `serve --token-file`): our clients prove it after their cookie;
 * stock iperf3 clients get iperf3's "test authorization failed" unless allow_classic. The
 * server keeps a reference. Call before qf_iperf3_server_run(); FALSE when no random numbers
 * could be drawn for its check (qf_auth_server_init). */
gboolean        qf_iperf3_server_set_token  (QfIperf3Server  *server,
                                             GBytes          *token,
                                             gboolean         allow_classic,
                                             GError         **error);
gboolean        qf_iperf3_server_run        (QfIperf3Server  *server,
                                             const gint      *cancel,
                                             GError         **error);
/* Tests completed with a results exchange / connections refused (busy, bad cookie, bad
 * parameters). Any thread. */
guint           qf_iperf3_server_tests_done (QfIperf3Server  *server);
guint           qf_iperf3_server_refused    (QfIperf3Server  *server);
/* The client whose test runs now (none, or one: the server runs one test at a time), as a
 * GArray of QfServedClient (qf-responder.h; test "bandwidth", count: bytes moved both ways
 * since the measured part began). Any thread. */
GArray         *qf_iperf3_server_list_clients (QfIperf3Server *server);
void            qf_iperf3_server_free       (QfIperf3Server  *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfIperf3Server, qf_iperf3_server_free)

G_END_DECLS
