/* qf-peer-check.h — is the helper machine there, and which responder answers? (src/core)
 *
 * The network page's "Check peer": a short run of the latency step (sockperf-style ping-pong,
 * 0.3 s) on the latency port, a short run of the control-cycle step (Qualify's own UDP
 * protocol, which sockperf does not speak) and a TCP connection to the bandwidth port. The
 * answer, as JSON:
 *
 *   {"host", "latency_port", "bandwidth_port",
 *    "responder": "qualify" | "sockperf" | null,   who answered the ping-pong
 *    "latency_us": number | null,                   its average one-way latency
 *    "bandwidth": true | false,                     something accepts TCP on the bandwidth port
 *                                                   (iperf3 or `qualify-cli serve`)
 *    "refused": "…",                                only when our responder turned this PC
 *                                                   away (access token missing or wrong)
 *    "summary": "…"}                                one translated sentence for people
 *
 * token_file (may be NULL): the helper machine's access token (`serve --token-file`), used by
 * the probes as the tests will use it; token (may be NULL): the token itself, held in memory
 * (a typed pairing code, qf-pairing.h), which wins over token_file. The token never appears in
 * the answer.
 * Runs on a worker thread (GTask); nothing here blocks the caller's main loop. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define QF_PEER_DEFAULT_LATENCY_PORT   11111
#define QF_PEER_DEFAULT_BANDWIDTH_PORT 5201

void        qf_peer_check_async  (const char          *host,
                                  guint16              latency_port,
                                  guint16              bandwidth_port,
                                  const char          *token_file,
                                  GBytes              *token,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data);
/* The answer above; NULL with error only when cancelled or host is empty. */
JsonObject *qf_peer_check_finish (GAsyncResult        *result,
                                  GError             **error);
/* The same, blocking (for tests and the CLI). */
JsonObject *qf_peer_check        (const char          *host,
                                  guint16              latency_port,
                                  guint16              bandwidth_port,
                                  const char          *token_file,
                                  GBytes              *token,
                                  GCancellable        *cancellable,
                                  GError             **error);

G_END_DECLS
