/* qf-cli-step.c — a step on its own thread, stopped by SIGINT/SIGTERM (src/cli).
 * See qf-cli-step.h. */
#include "config.h"

#include <glib-unix.h>
#include <signal.h>

#include "qf-cli-step.h"

typedef struct
{
  const QfStepInfo *step;
  JsonObject       *params;
  QfStepContext    *ctx;
  JsonObject       *result;
  GError           *error;
  gboolean          ok;
  gint              cancel;
  GMainLoop        *loop;
} StepJob;

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

/* The step's thread. */
static gpointer
step_thread (gpointer data)
{
  StepJob *job = data;

  job->ok = job->step->run (job->params, job->ctx, &job->result, &job->error);
  /* An idle source, not g_main_context_invoke: that could run quit_loop on this thread before
   * the main thread entered the loop (a step that fails at once), and the quit would be lost. */
  g_idle_add (quit_loop, job->loop);
  return NULL;
}

/* The main thread, on SIGINT or SIGTERM: nothing but the flag. */
static gboolean
on_signal (gpointer data)
{
  StepJob *job = data;

  g_atomic_int_set (&job->cancel, 1);
  return G_SOURCE_CONTINUE;
}

gboolean
qf_cli_step_run (const QfStepInfo  *step,
                 JsonObject        *params,
                 QfStepContext     *ctx,
                 JsonObject       **result,
                 GError           **error)
{
  QfStepContext own_ctx = { 0 };
  StepJob job = { step, params, ctx != NULL ? ctx : &own_ctx, NULL, NULL, FALSE, 0, NULL };
  GThread *thread;
  guint sigint_id, sigterm_id;

  job.loop = g_main_loop_new (NULL, FALSE);
  job.ctx->cancel = &job.cancel;
  sigint_id = g_unix_signal_add (SIGINT, on_signal, &job);
  sigterm_id = g_unix_signal_add (SIGTERM, on_signal, &job);
  thread = g_thread_new ("qf-cli-step", step_thread, &job);
  g_main_loop_run (job.loop);
  g_thread_join (thread);
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_main_loop_unref (job.loop);
  job.ctx->cancel = NULL;

  *result = job.result;
  if (job.ok)
    g_clear_error (&job.error);
  else if (job.error != NULL)
    g_propagate_error (error, job.error);
  return job.ok;
}
