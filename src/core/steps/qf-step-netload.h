/* qf-step-netload.h — what the two steps under network load share (src/core/steps): the load's
 * parameters read into the bandwidth engine's configuration, its start with the wait for the
 * queues to fill, and its stop into the result's "load" object. Used by qf-step-loaded-latency.c
 * and qf-step-rt-network-load.c. */
#pragma once

#include "qf-netload.h"
#include "qf-step.h"

G_BEGIN_DECLS

/* Params: load ("tcp", the default: iperf3 --bidir at full speed; "udp:RATE": RATE bit/s each
 * way), load_port (the helper's bandwidth port, 5201), load_streams (1), settle_s (2: seconds of
 * load before the measurement starts, so the queues in the path have filled). */
typedef struct
{
  QfBwConfig bw;
  char      *load_text;
  gdouble    settle_s;
} QfStepNetLoad;

gboolean    _qf_step_netload_config (JsonObject     *params,
                                     QfStepContext  *ctx,
                                     const char     *host,
                                     const char     *port_key,
                                     GBytes         *token,
                                     QfStepNetLoad  *load,
                                     GError        **error);
void        _qf_step_netload_clear  (QfStepNetLoad  *load);
/* Starts the load for a measurement of measure_s seconds (0: unknown) and waits settle_s of
 * it. NULL with a step error when it never moved data. */
QfNetLoad  *_qf_step_netload_start  (QfStepNetLoad  *load,
                                     gdouble         measure_s,
                                     QfStepContext  *ctx,
                                     GError        **error);
/* Stops it; returns the result's "load" object ("complete": whether it ran to the stop; its
 * error's text when it did not). *error is set when it ended early. */
JsonObject *_qf_step_netload_stop   (QfStepNetLoad  *load,
                                     QfNetLoad      *running,
                                     GError        **error);
/* The labels of the "load" object's members (a QF_FIGURE_OBJECT's table). */
extern const QfStepFigure _qf_step_netload_figures[];

/* The load as iperf3's command, for the classic command line. */
char       *_qf_step_netload_classic (const QfStepNetLoad *load);
/* The load's seconds beyond a measurement: settle_s and the stop. */
gdouble     _qf_step_netload_overhead_s (JsonObject *params);

G_END_DECLS
