/* fuzz-session.c — the session loader (qf_session_load, src/core/session/qf-session.c) on an arbitrary
 * file; a loaded session is re-judged, asked for its verdicts, advice and resume point, and
 * serialised, as the wizard, `qualify-cli run --resume` and the report do; its steps are read as
 * a resumed run plans them, and it is replayed (`run --replay`) at a speed that plays each step
 * in one tick, so every member replay reads (progress, live, samples, error) is met. */
#include <stdint.h>

#include "fuzz-core-common.h"
#include "qf-runner.h"
#include "qf-session.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_scratch_init ("session.json");
  return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
on_finished (QfRunner *runner,
             gboolean  cancelled,
             gboolean *done)
{
  *done = TRUE;
}

/* The replay on this thread's main context, a bounded number of ticks, then cancelled. */
static void
replay (QfSession *session)
{
  g_autoptr(QfRunner) runner = qf_runner_new_replay (session, 1e12);
  gboolean done = FALSE;
  guint ticks = 0;

  g_signal_connect (runner, "finished", G_CALLBACK (on_finished), &done);
  g_assert_true (qf_runner_start (runner, NULL));
  while (!done)
    {
      if (++ticks == 4)
        qf_runner_cancel (runner);
      g_main_context_iteration (NULL, TRUE);
    }
}

/* What a resumed run reads of each step to plan it. */
static void
read_plan (QfSession *session)
{
  g_auto(GStrv) only = qf_session_get_only (session);

  for (guint i = 0; i < qf_session_get_n_steps (session); i++)
    {
      (void) qf_session_get_step_test (session, i);
      (void) qf_session_get_step_key (session, i);
      (void) qf_session_get_step_params (session, i);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autofree char *text = NULL;
  guint warnings = 0;

  fuzz_scratch_write ("", data, size);
  session = qf_session_load (fuzz_file, &error);
  g_assert ((session == NULL) == (error != NULL));
  if (session == NULL)
    return 0;
  (void) qf_session_get_overall (session, &warnings);
  (void) qf_session_get_verdicts (session);
  (void) qf_session_get_advice (session);
  for (guint i = 0; i < qf_session_get_n_steps (session); i++)
    {
      (void) qf_session_get_step_status (session, i);
      (void) qf_session_get_step_title (session, i);
      (void) qf_session_get_step_estimate (session, i);
    }
  text = qf_session_to_data (session);
  g_assert (text != NULL);
  replay (session);
  (void) qf_session_prepare_resume (session);
  read_plan (session);
  qf_session_recompute (session);
  return 0;
}
