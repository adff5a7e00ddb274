/* qf-cli-step.h — running a test's step from a subcommand so Ctrl-C can stop it (src/cli). */
#pragma once

#include "qf-step.h"

G_BEGIN_DECLS

/* Runs step->run on a thread of its own while this (the main) thread waits in a GMainLoop, so
 * SIGINT and SIGTERM (g_unix_signal_add) can set the step's cancel flag; the step then ends with
 * QF_STEP_ERROR_CANCELLED and usually a partial *result, which the caller still prints.
 *
 * ctx may be NULL; otherwise its progress, user_data, samples, peer and iface are passed on,
 * progress being called on the step's thread. ctx->cancel is set by this function for the run.
 * Returns what the step returned; *result is the step's result (may be set on failure, owned by
 * the caller). */
gboolean qf_cli_step_run (const QfStepInfo  *step,
                          JsonObject        *params,
                          QfStepContext     *ctx,
                          JsonObject       **result,
                          GError           **error);

G_END_DECLS
