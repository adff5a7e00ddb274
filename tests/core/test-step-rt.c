/* test-step-rt.c — the "rt" step through the step contract (tests/core): registry, classic
 * command, parameter errors, progress, live samples, and a cancel that keeps the partial result. */
#include "config.h"

#include <string.h>

#include "qf-step.h"
#include "qf-step-trace.h"
#include "qf-steps.h"
#include "../qf-test-time.h"
#include "qf-test-figures.h"

static JsonObject *
params_from (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_registry (void)
{
  g_assert_true (qf_step_lookup ("rt") == &qf_step_rt);
  g_assert_true (qf_step_list ()[0] == &qf_step_rt);   /* first test of the procedure */
  g_assert_false (qf_step_needs_peer (&qf_step_rt));
}

static void
test_classic_command (void)
{
  g_autoptr(JsonObject) none = json_object_new ();
  g_autoptr(JsonObject) pinned = params_from ("{\"cpus\": \"2-3\", \"priority\": 80, "
                                              "\"interval_us\": 500, \"duration_s\": 60}");
  g_autofree char *plain = qf_step_rt.classic_command (none, NULL);
  g_autofree char *two = qf_step_rt.classic_command (pinned, NULL);

  g_assert_cmpstr (plain, ==, "cyclictest -m -t1 -p 99 -i 1000 -l 10000");
  g_assert_cmpstr (two, ==, "cyclictest -m -t2 -a 2,3 -p 80 -i 500 -d 0 -D 60s");
  g_assert_cmpfloat (qf_step_rt.estimate_duration (none), ==, 10.0);
  g_assert_cmpfloat (qf_step_rt.estimate_duration (pinned), ==, 60.0);
}

static void
test_invalid_params (void)
{
  const char *cases[] = {
    "{\"priority\": 100}",
    "{\"interval_us\": 0}",
    "{\"cpus\": \"0-x\"}",
    "{\"cpus\": [0, -1]}",
    "{\"threads\": \"two\"}",
    "{\"loops\": 1.5}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) params = params_from (cases[i]);
      g_autoptr(JsonObject) result = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_false (qf_step_rt.run (params, NULL, &result, &error));
      g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
      g_assert_null (result);
    }
}

typedef struct
{
  guint   calls;
  gdouble last_fraction;
  gint   *cancel;
  guint   cancel_after;
} Progress;

static void
on_progress (QfStepContext *ctx,
             gdouble        fraction,
             JsonObject    *live,
             gpointer       user_data)
{
  Progress *p = user_data;

  g_assert_nonnull (live);
  g_assert_true (json_object_has_member (live, "avg_us"));
  g_assert_cmpfloat (fraction, >=, p->last_fraction);
  g_assert_cmpfloat (fraction, <=, 1.0);
  p->last_fraction = fraction;
  if (++p->calls == p->cancel_after && p->cancel != NULL)
    g_atomic_int_set (p->cancel, 1);
}

static void
test_progress_and_samples (void)
{
  g_autoptr(JsonObject) params = params_from ("{\"loops\": 1200, \"interval_us\": 500}");
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRing) ring = qf_ring_new (4096);
  Progress progress = { 0 };
  QfStepContext ctx = { 0 };
  QfSample out[4096];

  ctx.samples = ring;
  ctx.progress = on_progress;
  ctx.user_data = &progress;
  g_assert_true (qf_step_rt.run (params, &ctx, &result, &error));
  g_assert_no_error (error);

  g_assert_cmpstr (json_object_get_string_member (result, "test"), ==, "rt");
  g_assert_cmpint (json_object_get_int_member (result, "cycles"), ==, 1200);
  g_assert_cmpuint (progress.calls, >=, 1);
  g_assert_cmpfloat (progress.last_fraction, ==, 1.0);   /* the last call reports the end */
  g_assert_cmpuint (qf_ring_pop (ring, out, G_N_ELEMENTS (out)), ==, 1200);
  g_assert_false (json_object_get_boolean_member (result, "stopped_early"));
}

/* A run bounded by loops states the time it took (200 cycles of 1 ms: about 0.2 s, not the
 * duration parameter's 0), and every figure of it is listed. */
static void
test_duration_and_figures (void)
{
  g_autoptr(JsonObject) params = params_from ("{\"loops\": 200, \"interval_us\": 1000, \"priority\": 0}");
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  gdouble duration_s;

  g_assert_true (qf_step_rt.run (params, NULL, &result, &error));
  g_assert_no_error (error);
  duration_s = json_object_get_double_member (result, "duration_s");
  g_assert_cmpfloat (duration_s, >=, 0.19);
  g_assert_cmpfloat (duration_s, <, qf_test_s (5));
  assert_all_listed (&qf_step_rt, params, result);
}

/* A stop request ends the run early: CANCELLED, and the partial result is kept and consistent. */
static void
test_cancel_keeps_partial_result (void)
{
  g_autoptr(JsonObject) params = params_from ("{\"loops\": 0, \"interval_us\": 1000}");
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  gint cancel = 0;
  Progress progress = { .cancel = &cancel, .cancel_after = 2 };
  QfStepContext ctx = { 0 };

  ctx.cancel = &cancel;
  ctx.progress = on_progress;
  ctx.user_data = &progress;
  g_assert_false (qf_step_rt.run (params, &ctx, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED);
  g_assert_nonnull (result);
  g_assert_true (json_object_get_boolean_member (result, "stopped_early"));
  g_assert_cmpint (json_object_get_int_member (result, "cycles"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (result, "min_us"), <=,
                     json_object_get_double_member (result, "max_us"));
}

/* A spike most of which no event explains: on a PC that reads as a virtual machine the
 * sentence names the hypervisor and the fix is the real PC; elsewhere it stays the firmware's
 * (SMI) or idle's with the general fix; a task's spike says the same on both. */
static void
test_trace_vm_sentence (void)
{
  const char *unexplained = "{\"cpu\": 1, \"at\": \"2026-01-02T14:03:07.000+01:00\", "
                            "\"latency_us\": 2900, \"breakdown\": [{\"kind\": \"unexplained\", "
                            "\"name\": \"\", \"duration_us\": 2800}, {\"kind\": \"sched-delay\", "
                            "\"name\": \"\", \"duration_us\": 100}]}";
  const char *task = "{\"cpu\": 1, \"at\": \"2026-01-02T14:03:07.000+01:00\", "
                     "\"latency_us\": 2900, \"breakdown\": [{\"kind\": \"task\", "
                     "\"name\": \"backup.sh\", \"pid\": 4242, \"policy\": \"SCHED_FIFO\", "
                     "\"priority\": 99, \"duration_us\": 2800}]}";
  g_autoptr(JsonObject) bare = params_from (unexplained);
  g_autoptr(JsonObject) vm = params_from (unexplained);
  g_autoptr(JsonObject) task_bare = params_from (task);
  g_autoptr(JsonObject) task_vm = params_from (task);
  g_autofree char *s_bare = NULL, *s_vm = NULL, *t_bare = NULL, *t_vm = NULL;

  json_object_set_boolean_member (vm, "virtual_machine", TRUE);
  json_object_set_boolean_member (task_vm, "virtual_machine", TRUE);
  s_bare = qf_step_trace_sentence (&qf_step_rt, bare, TRUE, NULL, NULL);
  s_vm = qf_step_trace_sentence (&qf_step_rt, vm, TRUE, NULL, NULL);
  t_bare = qf_step_trace_sentence (&qf_step_rt, task_bare, TRUE, NULL, NULL);
  t_vm = qf_step_trace_sentence (&qf_step_rt, task_vm, TRUE, NULL, NULL);
  g_test_message ("%s\n%s", s_bare, s_vm);
  g_assert_nonnull (strstr (s_vm, "This PC is a virtual machine: the hypervisor"));
  g_assert_nonnull (strstr (s_vm, "Fix: Qualify the real PC"));
  g_assert_null (strstr (s_bare, "This PC is a virtual machine"));
  g_assert_nonnull (strstr (s_bare, "SMI"));
  g_assert_cmpstr (t_bare, ==, t_vm);
  g_assert_nonnull (strstr (t_vm, "backup.sh"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/step-rt/registry", test_registry);
  g_test_add_func ("/core/step-rt/classic-command", test_classic_command);
  g_test_add_func ("/core/step-rt/invalid-params", test_invalid_params);
  g_test_add_func ("/core/step-rt/progress-and-samples", test_progress_and_samples);
  g_test_add_func ("/core/step-rt/duration-and-figures", test_duration_and_figures);
  g_test_add_func ("/core/step-rt/cancel-keeps-partial-result", test_cancel_keeps_partial_result);
  g_test_add_func ("/core/step-rt/trace-vm-sentence", test_trace_vm_sentence);

  return g_test_run ();
}
