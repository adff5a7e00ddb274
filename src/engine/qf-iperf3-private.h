/* qf-iperf3-private.h — the bandwidth responder's hooks for tests (src/engine). */
#pragma once

#include <glib.h>

#include "qf-iperf3.h"

G_BEGIN_DECLS

/* How long the responder lets a running test move no data before ending it (default
 * QF_IPERF3_IDLE_TIMEOUT_S); for tests. */
void _qf_iperf3_server_set_idle_timeout (QfIperf3Server *server,
                                         gdouble         seconds);

G_END_DECLS
