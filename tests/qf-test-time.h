/* qf-test-time.h — upper bounds on wall time in tests (docs/testing.md).
 *
 * A test may assert that something ends "within" a time (a stop, a cancel, a timeout); it must
 * still pass on a slow or loaded machine. Every such upper bound goes through qf_test_ns() or
 * qf_test_s(), which multiply it by QF_TEST_TIME_SCALE (default 1). ./run-tests sets the factor
 * for the sanitizer builds, whose code runs several times slower (ASan 3, TSan 10), so the
 * assertion still catches a hang or a stop that is never honoured, but not slow instructions.
 * Lower bounds the code guarantees ("at least 1.5 s") are never scaled; one that needs a thread
 * to run in time (a paced rate, a counted window) is loosened by the same factor. */
#pragma once

#include <glib.h>

static inline gdouble
qf_test_time_scale (void)
{
  const char *text = g_getenv ("QF_TEST_TIME_SCALE");
  gdouble scale = text != NULL ? g_ascii_strtod (text, NULL) : 1.0;

  return scale >= 1.0 && scale <= 1000.0 ? scale : 1.0;
}

/* A wall-time upper bound in nanoseconds, scaled for this build. */
static inline gint64
qf_test_ns (gint64 bound_ns)
{
  return (gint64) ((gdouble) bound_ns * qf_test_time_scale ());
}

/* The same in seconds. */
static inline gdouble
qf_test_s (gdouble bound_s)
{
  return bound_s * qf_test_time_scale ();
}

typedef struct
{
  gint  *flag;
  guint  ms;
} QfTestFlagLater;

static inline gpointer
qf_test_flag_later_thread (gpointer data)
{
  QfTestFlagLater *later = data;

  g_usleep ((gulong) later->ms * 1000);
  g_atomic_int_set (later->flag, 1);
  g_free (later);
  return NULL;
}

/* A stop or cancel request that arrives while the code under test is busy: a thread that sets
 * *flag to 1 after ms milliseconds. Join it with g_thread_join (). */
static inline GThread *
qf_test_set_flag_later (gint  *flag,
                        guint  ms)
{
  QfTestFlagLater *later = g_new (QfTestFlagLater, 1);

  later->flag = flag;
  later->ms = ms;
  return g_thread_new ("set-flag-later", qf_test_flag_later_thread, later);
}
