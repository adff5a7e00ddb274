/* qf-step-bandwidth.h — helpers of the bandwidth step shared with `qualify-cli bandwidth`
 * (src/core). The step itself is qf_step_bandwidth in qf-steps.h. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Parses a rate as iperf3 writes it: a number of bit/s with an optional K, M, G or T suffix
 * (powers of 1000), e.g. "100M". */
gboolean qf_step_bandwidth_parse_rate (const char *text,
                                       guint64    *bps);

G_END_DECLS
