/* qf-cli-net.h — what the network subcommands (ping, latency, cycle) share (src/cli). */
#pragma once

#include "qf-step.h"

G_BEGIN_DECLS

/* Runs step on a worker thread while the main thread waits in a GMainLoop, so SIGINT and SIGTERM
 * (g_unix_signal_add) can ask the step to stop; the partial result then still comes back.
 * ctx->cancel is set by this function; ctx->progress is called on the worker thread. */
gboolean qf_cli_net_run_step (const QfStepInfo  *step,
                              JsonObject        *params,
                              QfStepContext     *ctx,
                              JsonObject       **result,
                              GError           **error);

/* Reads a double member, 0 when absent. */
gdouble  qf_cli_net_double   (JsonObject        *obj,
                              const char        *key);
gint64   qf_cli_net_int      (JsonObject        *obj,
                              const char        *key);

G_END_DECLS
