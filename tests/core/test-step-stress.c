/* test-step-stress.c — the stress and monitor steps through the QfStepInfo contract: a cancel
 * returns the partial result with QF_STEP_ERROR_CANCELLED, progress and live samples arrive, a
 * stepped load reports each step and the first one that broke a rule, bad parameters and unsafe
 * loads fail with the right codes, and the under-load helper starts and finishes cleanly.
 * Loads are tiny (one worker, a second at most). */
#include "config.h"

#include <string.h>

#include "qf-step-stress.h"
#include "qf-step.h"
#include "qf-test-figures.h"

typedef struct
{
  gint   cancel;
  guint  progress_calls;
  guint  live_calls;
} Ctx;

static void
on_progress (QfStepContext *ctx,
             gdouble        fraction,
             JsonObject    *live,
             gpointer       user_data)
{
  Ctx *c = user_data;

  (void) ctx;
  g_assert_cmpfloat (fraction, >=, 0.0);
  g_assert_cmpfloat (fraction, <=, 1.01);
  c->progress_calls++;
  if (live != NULL)
    {
      g_assert_true (json_object_has_member (live, "cpu_busy_pct"));
      c->live_calls++;
    }
}

static gpointer
cancel_later (gpointer data)
{
  g_usleep (400000);
  g_atomic_int_set (&((Ctx *) data)->cancel, 1);
  return NULL;
}

static void
test_cancel_partial (void)
{
  const QfStepInfo *step = qf_step_lookup ("stress");
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRing) ring = qf_ring_new (1024);
  QfSample samples[64];
  Ctx c = { 0 };
  QfStepContext ctx = { &c.cancel, ring, on_progress, &c, NULL, NULL };
  GThread *thread;
  gint64 t0 = g_get_monotonic_time ();

  json_object_set_int_member (params, "cpu", 1);
  json_object_set_double_member (params, "timeout_s", 20);
  json_object_set_double_member (params, "monitor_interval_s", 0.1);
  thread = g_thread_new ("cancel", cancel_later, &c);
  g_assert_false (step->run (params, &ctx, &result, &error));
  g_thread_join (thread);
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  g_assert_nonnull (result);
  g_assert_true (json_object_get_boolean_member (result, "cancelled"));
  g_assert_cmpstr (json_object_get_string_member (result, "test"), ==, "stress");
  g_assert_cmpfloat (json_object_get_double_member (result, "duration_s"), <, 2.0);
  g_assert_cmpuint (c.progress_calls, >=, 1);
  g_assert_cmpuint (c.live_calls, >=, 1);
  /* Live samples: four channels per monitor sample, values in milli-percent. */
  {
    guint n = qf_ring_pop (ring, samples, G_N_ELEMENTS (samples));
    g_assert_cmpuint (n, >=, 4);
    g_assert_cmpuint (n % 4, ==, 0);
    for (guint i = 0; i < n; i++)
      {
        g_assert_cmpuint (samples[i].channel, ==, i % 4);
        if (samples[i].channel < 3)
          g_assert_cmpint (samples[i].value_ns, <=, 100000);
      }
  }
}

static void
test_stepped (void)
{
  const QfStepInfo *step = qf_step_lookup ("stress");
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *steps;
  gint64 first = -1;

  json_object_set_int_member (params, "cpu", 2);
  json_object_set_int_member (params, "steps", 2);
  json_object_set_double_member (params, "timeout_s", 0.8);
  json_object_set_double_member (params, "monitor_interval_s", 0.1);
  g_assert_true (step->run (params, NULL, &result, &error));
  g_assert_no_error (error);
  assert_all_listed (step, params, result);
  steps = json_object_get_array_member (result, "steps");
  g_assert_cmpuint (json_array_get_length (steps), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *s = json_array_get_object_element (steps, i);
      JsonObject *w = json_object_get_object_member (s, "workers");
      g_assert_cmpint (json_object_get_int_member (s, "index"), ==, i + 1);
      g_assert_cmpint (json_object_get_int_member (w, "cpu"), ==, i + 1);
      g_assert_cmpfloat (json_object_get_double_member (s, "t_end_s"), >,
                         json_object_get_double_member (s, "t_start_s"));
      g_assert_true (json_object_has_member (json_object_get_object_member (s, "summary"),
                                             "cpu_busy_max_pct"));
      if (first < 0 && json_array_get_length (json_object_get_array_member (s, "rules_broken")) > 0)
        first = i + 1;
    }
  /* first_broken_step is the first step whose window broke a rule, or null. */
  if (first < 0)
    g_assert_true (json_object_get_null_member (result, "first_broken_step"));
  else
    g_assert_cmpint (json_object_get_int_member (result, "first_broken_step"), ==, first);
}

static void
test_bad_params (void)
{
  const QfStepInfo *step = qf_step_lookup ("stress");
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;

  json_object_set_int_member (params, "vm", 1);
  json_object_set_string_member (params, "vm_bytes", "lots");
  g_assert_false (step->run (params, NULL, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
  g_assert_nonnull (strstr (error->message, "vm_bytes"));
  g_assert_null (result);
  g_clear_error (&error);

  /* 1000 TiB of memory: refused before anything starts, as a missing resource. */
  json_object_set_string_member (params, "vm_bytes", "1000T");
  g_assert_false (step->run (params, NULL, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE);
  g_assert_null (result);
  g_clear_error (&error);

  json_object_remove_member (params, "vm_bytes");
  json_object_set_int_member (params, "vm", 0);
  g_assert_false (step->run (params, NULL, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
}

static void
test_under_load (void)
{
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) none = json_object_new ();
  g_autoptr(JsonObject) out = NULL;
  g_autoptr(GError) error = NULL;
  QfUnderLoad *load;

  g_assert_false (qf_under_load_wanted (none));
  json_object_set_int_member (params, "cpu", 1);
  json_object_set_double_member (params, "monitor_interval_s", 0.1);
  g_assert_true (qf_under_load_wanted (params));
  load = qf_under_load_start (params, &error);
  g_assert_no_error (error);
  g_usleep (300000);
  out = qf_under_load_finish (load);
  g_assert_true (json_object_get_boolean_member (out, "complete"));
  g_assert_true (json_object_get_null_member (out, "error"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (out, "workers"), "cpu"), ==, 1);
  g_assert_cmpfloat (json_object_get_double_member (out, "duration_s"), >=, 0.3);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (out, "monitor"), "summary"), "samples"), >=, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/step-stress/cancel-partial", test_cancel_partial);
  g_test_add_func ("/core/step-stress/stepped", test_stepped);
  g_test_add_func ("/core/step-stress/bad-params", test_bad_params);
  g_test_add_func ("/core/step-stress/under-load", test_under_load);
  return g_test_run ();
}
