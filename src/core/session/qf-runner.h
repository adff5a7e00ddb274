/* qf-runner.h — runs a session's steps one after the other on a worker thread (src/core).
 *
 * The runner drives each step through qf_step_lookup() only: a step this build does not have is
 * marked "not-run" with that reason, never imitated. Steps run on the runner's own GThread (not
 * GTask's shared pool); everything they report (start, progress, samples, end) reaches the main
 * context the runner was started from, in order, as signals, and the session is saved after every
 * state change of a step; a step starts only once the state before it is saved. Cancel stops the current step (it ends within its own stop bound, 1 s
 * for every shipped step), marks it cancelled, saves, and ends the run; skip ends or avoids one
 * step and goes on with the next.
 *
 * With the session's peer kind "builtin" the runner starts the built-in responder on loopback for
 * the run and gives the steps its address and ports.
 *
 * Replay (training): qf_runner_new_replay() re-emits a recorded session's progress, live figures
 * and samples with their original timing (or faster), on a copy of the session that is never
 * saved, so the wizard's live plots can be shown without hardware.
 *
 * Main thread only, except where said. */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "qf-responder.h"
#include "qf-ring.h"
#include "qf-session.h"

G_BEGIN_DECLS

#define QF_TYPE_RUNNER (qf_runner_get_type ())
G_DECLARE_FINAL_TYPE (QfRunner, qf_runner, QF, RUNNER, GObject)

/* Signals (all emitted on the main context that called start):
 *   step-started  (guint index)
 *   progress      (guint index, gdouble fraction, gdouble eta_s, JsonObject *live or NULL)
 *                 eta_s: remaining seconds of the whole run (estimate)
 *   samples       (guint index, gpointer samples (const QfSample *), guint n)
 *                 t_ns of the samples is CLOCK_MONOTONIC
 *   step-finished (guint index)
 *   finished      (gboolean cancelled)
 */

QfRunner  *qf_runner_new         (QfSession          *session);
/* Plays back a recorded session (a copy of it is what get_session returns). speed > 0: 1 = real
 * time, 10 = ten times faster. */
QfRunner  *qf_runner_new_replay  (QfSession          *recorded,
                                  gdouble             speed);

QfSession *qf_runner_get_session (QfRunner           *self);
/* Only the tests with these keys run; the others are marked not-run ("left out"). NULL = all.
 * Before start. */
void       qf_runner_set_only    (QfRunner           *self,
                                  const char *const  *keys);
/* Training: the built-in peer answers as this emulated link would (extra reply delay ± jitter,
 * UDP replies lost; see qf-responder.h). The session's peer kind must be "builtin". Start records
 * it in the session (qf_session_set_training and a "training" note), so the run can never pass
 * for an acceptance. A resumed training session keeps its emulation without this call. NULL: a
 * real run. Before start. */
void       qf_runner_set_emulation (QfRunner                   *self,
                                    const QfResponderEmulation *emulate);
/* The helper machine's access token held in memory only (a typed pairing code, qf-pairing.h):
 * the network steps use it instead of any token file; it never enters the session. Start
 * refuses a session made with a pairing code (qf_session_get_pairing_code_used) without it
 * (QF_SESSION_ERROR_NEEDS_CODE). NULL: none. Before start. */
void       qf_runner_set_token   (QfRunner           *self,
                                  GBytes             *token);
/* Runs every pending step (after qf_session_prepare_resume() that is what a resume runs). */
gboolean   qf_runner_start       (QfRunner           *self,
                                  GError            **error);
/* Stops the current step and the run. Any thread (safe from a signal source, not a raw
 * signal handler). */
void       qf_runner_cancel      (QfRunner           *self);
/* Skips step index: ends it if it is running, or marks it skipped when its turn comes. */
void       qf_runner_skip        (QfRunner           *self,
                                  guint               index);
gboolean   qf_runner_is_running  (QfRunner           *self);
/* Index of the running step or -1. */
gint       qf_runner_get_current (QfRunner           *self);
/* The error of the first failed save, or NULL. A failed save stops the run at once: the step
 * running ends cancelled, no later step starts, "finished" comes with cancelled TRUE, and
 * session.json keeps the last state that could be saved (resume continues from there). */
const GError *qf_runner_get_save_error (QfRunner     *self);

G_END_DECLS
