/* fuzz-session.c — the session loader (qf_session_load, src/core/session/qf-session.c) on an arbitrary
 * file; a loaded session is re-judged, asked for its verdicts, advice and resume point, and
 * serialised, as the wizard, `qualify-cli run --resume` and the report do. */
#include <stdint.h>

#include "fuzz-core-common.h"
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
  (void) qf_session_prepare_resume (session);
  qf_session_recompute (session);
  return 0;
}
