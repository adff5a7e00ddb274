/* fuzz-log.c — linked into every fuzz target: a GLib critical or error (a g_return_if_fail()
 * that failed, g_error()) aborts the process, so libFuzzer records the input (it does not catch
 * the SIGTRAP that G_DEBUG=fatal-criticals raises) and the replay driver fails. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

static GLogWriterOutput
abort_on_critical (GLogLevelFlags   level,
                   const GLogField *fields,
                   gsize            n_fields,
                   gpointer         user_data)
{
  GLogWriterOutput out = g_log_writer_standard_streams (level, fields, n_fields, user_data);

  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    {
      fflush (stderr);
      abort ();
    }
  return out;
}

__attribute__ ((constructor)) static void
fuzz_log_init (void)
{
  g_log_set_writer_func (abort_on_critical, NULL, NULL);
}
