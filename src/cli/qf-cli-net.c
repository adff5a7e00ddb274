/* qf-cli-net.c — running a network step from the CLI with Ctrl-C support (src/cli).
 * See qf-cli-net.h. */
#include "config.h"

#include <glib-unix.h>
#include <signal.h>

#include "qf-cli-net.h"

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

static gpointer
step_thread (gpointer data)
{
  StepJob *job = data;

  job->ok = job->step->run (job->params, job->ctx, &job->result, &job->error);
  /* An idle source, not g_main_context_invoke: that could run quit_loop on this thread before
   * the main thread entered the loop, and the quit would be lost. */
  g_idle_add (quit_loop, job->loop);
  return NULL;
}

static gboolean
on_signal (gpointer data)
{
  StepJob *job = data;

  g_atomic_int_set (&job->cancel, 1);
  return G_SOURCE_CONTINUE;
}

gboolean
qf_cli_net_run_step (const QfStepInfo  *step,
                     JsonObject        *params,
                     QfStepContext     *ctx,
                     JsonObject       **result,
                     GError           **error)
{
  StepJob job = { step, params, ctx, NULL, NULL, FALSE, 0, NULL };
  GThread *thread;
  guint sigint, sigterm;

  job.loop = g_main_loop_new (NULL, FALSE);
  ctx->cancel = &job.cancel;
  sigint = g_unix_signal_add (SIGINT, on_signal, &job);
  sigterm = g_unix_signal_add (SIGTERM, on_signal, &job);
  thread = g_thread_new ("qf-cli-step", step_thread, &job);
  g_main_loop_run (job.loop);
  g_thread_join (thread);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_main_loop_unref (job.loop);
  ctx->cancel = NULL;

  *result = job.result;
  if (!job.ok)
    g_propagate_error (error, job.error);
  return job.ok;
}

gdouble
qf_cli_net_double (JsonObject *obj,
                   const char *key)
{
  return obj != NULL && json_object_has_member (obj, key)
           ? json_object_get_double_member (obj, key) : 0.0;
}

gint64
qf_cli_net_int (JsonObject *obj,
                const char *key)
{
  return obj != NULL && json_object_has_member (obj, key)
           ? json_object_get_int_member (obj, key) : 0;
}
