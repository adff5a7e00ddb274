/* qf-netload.h — a network load in the background: the bandwidth client (qf-bandwidth.h) run on
 * a thread of its own until told to stop, so that another engine can measure while it runs
 * (src/engine). Latency under load (ping-pong or the control cycle while the link is saturated)
 * and the real-time test under network load use it.
 *
 * The load is the bandwidth test against the same helper: TCP in both directions at full speed
 * (iperf3 --bidir), or UDP at a fixed rate each way (iperf3 -u -b RATE --bidir), what a camera
 * stream does to a link. Its configuration's time_s is the test time asked of the helper (0:
 * an hour, what our responder allows by default), longer than the measurement it loads:
 * qf_net_load_stop () ends it sooner.
 *
 * Threads: start, wait and stop are called on one thread (the measuring step's); the load runs
 * on its own thread ("qf-netload").
 */
#pragma once

#include <glib.h>

#include "qf-bandwidth.h"

G_BEGIN_DECLS

typedef struct QfNetLoad QfNetLoad;

/* Starts the load (config is copied; its ring, on_interval and interval_s are replaced). */
QfNetLoad *qf_net_load_start  (const QfBwConfig *config,
                               GError          **error);
/* Waits until data has moved for min_s seconds of the load's intervals (the queues in the path
 * have filled), at most timeout_s. FALSE with the load's error when it ended first, or
 * QF_NET_ERROR_CANCELLED when *cancel was set, or QF_NET_ERROR_PEER_LOST on the timeout. */
gboolean   qf_net_load_wait   (QfNetLoad        *load,
                               gdouble           min_s,
                               gdouble           timeout_s,
                               const gint       *cancel,
                               GError          **error);
/* Whether the load still runs (it has not ended with an error). */
gboolean   qf_net_load_running (QfNetLoad       *load);
/* Stops the load, joins its thread and frees it. *result (zeroed by the caller, released with
 * qf_bw_result_clear) gets what it moved. FALSE with its error when the load ended before the
 * stop (the peer went away, refused, …). */
gboolean   qf_net_load_stop   (QfNetLoad        *load,
                               QfBwResult       *result,
                               GError          **error);

/* Parses the load as the command line gives it: "tcp" (both directions, full speed) or
 * "udp:RATE" (RATE bit/s each way, K/M/G suffixes as iperf3, e.g. "udp:150M"). */
gboolean   qf_net_load_parse  (const char       *text,
                               QfBwProtocol     *protocol,
                               guint64          *rate_bps);

G_END_DECLS
