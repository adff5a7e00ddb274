/* test-loaded-steps.c — the steps under network load against the built-in peer on loopback
 * (tests/core): loaded-latency's idle and loaded phases, their one-way figures and the delay
 * added, the live samples of both phases on their own channels, the training emulation's queue
 * that grows with load, and rt under network load. */
#include "config.h"

#include <string.h>

#include "qf-builtin-peer.h"
#include "qf-clock.h"
#include "qf-plot.h"
#include "qf-ring.h"
#include "qf-step.h"
#include "qf-steps.h"

#include "qf-test-figures.h"
#include "../qf-test-time.h"

static JsonObject *
loaded_params (QfBuiltinPeer *peer,
               gdouble        phase_s)
{
  JsonObject *params = json_object_new ();

  json_object_set_int_member (params, "port", qf_builtin_peer_get_latency_port (peer));
  json_object_set_int_member (params, "load_port", qf_builtin_peer_get_bandwidth_port (peer));
  json_object_set_double_member (params, "idle_time_s", phase_s);
  json_object_set_double_member (params, "loaded_time_s", phase_s);
  json_object_set_double_member (params, "settle_s", 0.5);
  json_object_set_double_member (params, "interval_ms", 2);
  return params;
}

static void
assert_phase (JsonObject *result,
              const char *name)
{
  static const char *const keys[] = {
    "avg_us", "p50_us", "p99_us", "p999_us", "max_us", "min_us", "loss_pct", "samples", NULL
  };
  JsonObject *phase = json_object_get_object_member (result, name);

  g_assert_nonnull (phase);
  for (guint i = 0; keys[i] != NULL; i++)
    if (!json_object_has_member (phase, keys[i]))
      g_error ("phase “%s” lacks “%s”", name, keys[i]);
  g_assert_cmpfloat (json_object_get_double_member (phase, "p50_us"), <=,
                     json_object_get_double_member (phase, "p99_us"));
  g_assert_cmpfloat (json_object_get_double_member (phase, "p999_us"), <=,
                     json_object_get_double_member (phase, "max_us"));
}

/* The results page and the report draw both phases' stored distributions on one axis. */
static void
assert_both_distributions_drawn (JsonObject *result)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
  cairo_t *cr = cairo_create (surface);
  JsonObject *idle = json_object_get_object_member (result, "idle");
  JsonObject *loaded = json_object_get_object_member (result, "loaded");

  g_assert_true (json_object_has_member (idle, "histogram"));
  g_assert_true (json_object_has_member (loaded, "histogram"));
  g_assert_true (qf_plot_result_histogram (cr, 400, 300, NULL, result, NULL, 0));
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
test_loaded_latency (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = loaded_params (peer, 0.5);
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(QfRing) ring = qf_ring_new (1 << 16);
  QfStepContext ctx = { .samples = ring };
  QfSample s[256];
  guint n, per_channel[2] = { 0, 0 };
  JsonObject *load;

  g_assert_no_error (error);
  ctx.peer = qf_builtin_peer_get_host (peer);
  g_assert_true (qf_step_loaded_latency.run (params, &ctx, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "test"), ==, "loaded-latency");
  assert_phase (result, "idle");
  assert_phase (result, "loaded");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (result, "added_us"),
                                  json_object_get_double_member (json_object_get_object_member (result, "loaded"), "p50_us")
                                  - json_object_get_double_member (json_object_get_object_member (result, "idle"), "p50_us"),
                                  0.0015);
  load = json_object_get_object_member (result, "load");
  g_assert_true (json_object_get_boolean_member (load, "complete"));
  g_assert_cmpstr (json_object_get_string_member (load, "direction"), ==, "bidir");
  g_assert_cmpfloat (json_object_get_double_member (load, "up_mbps"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (load, "down_mbps"), >, 0);
  assert_all_listed (&qf_step_loaded_latency, params, result);
  /* The idle phase draws on channel 0, the loaded one on channel 1: both on one axis. */
  while ((n = qf_ring_pop (ring, s, G_N_ELEMENTS (s))) > 0)
    for (guint i = 0; i < n; i++)
      per_channel[MIN (s[i].channel, 1)]++;
  g_assert_cmpuint (per_channel[0], >, 0);
  g_assert_cmpuint (per_channel[1], >, 0);
  assert_both_distributions_drawn (result);
  /* No queue grew on loopback: the advice leaves the cause to what the step measures. */
  {
    g_autofree char *cause = NULL, *fix = NULL;

    json_object_set_double_member (result, "added_us", 3.0);
    g_assert_false (qf_step_loaded_latency.explain (result, &cause, &fix));
  }
}

/* The training preset's queue: absent on the idle link, added to each reply while the bandwidth
 * test loads it (half of it one way). */
static void
test_loaded_latency_bloat (void)
{
  const QfLinkPreset *bloated = qf_builtin_peer_find_preset ("bloated-wired");
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = NULL;
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };
  gdouble added_us, idle_p50_us;

  g_assert_nonnull (bloated);
  g_assert_cmpfloat (bloated->emulate.bloat_ms, ==, 40);
  peer = qf_builtin_peer_start (&bloated->emulate, &error);
  g_assert_no_error (error);
  params = loaded_params (peer, 1.0);
  ctx.peer = qf_builtin_peer_get_host (peer);
  g_assert_true (qf_step_loaded_latency.run (params, &ctx, &result, &error));
  g_assert_no_error (error);
  added_us = json_object_get_double_member (result, "added_us");
  idle_p50_us = json_object_get_double_member (json_object_get_object_member (result, "idle"),
                                               "p50_us");
  g_test_message ("idle p50 %.1f µs, added %.1f µs", idle_p50_us, added_us);
  g_assert_cmpfloat (idle_p50_us, <, 2000);
  g_assert_cmpfloat (added_us, >, 20000 * 0.7);
  g_assert_cmpfloat (added_us, <, 20000 * 1.3);
  /* The advice names the queue from what was measured, with the fixes' commands. */
  {
    g_autofree char *cause = NULL, *fix = NULL;

    g_assert_true (qf_step_loaded_latency.explain (result, &cause, &fix));
    g_assert_nonnull (strstr (cause, "a queue that grows with load"));
    g_assert_nonnull (strstr (fix, "root fq_codel"));
    g_assert_nonnull (strstr (fix, "tc.qdiscs"));
  }
}

static void
test_loaded_latency_cycle (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = loaded_params (peer, 0.3);
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };

  json_object_set_string_member (params, "probe", "cycle");
  json_object_set_string_member (params, "load", "udp:50M");
  json_object_remove_member (params, "interval_ms");
  ctx.peer = qf_builtin_peer_get_host (peer);
  g_assert_true (qf_step_loaded_latency.run (params, &ctx, &result, &error));
  g_assert_no_error (error);
  assert_phase (result, "idle");
  assert_phase (result, "loaded");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (result, "idle"),
                                               "sent"), ==, 300);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "load"),
                                                  "protocol"), ==, "udp");
  assert_all_listed (&qf_step_loaded_latency, params, result);
}

static void
test_loaded_latency_no_load (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = loaded_params (peer, 0.2);
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };

  /* Nothing answers on the bandwidth port: the error says the load failed; the idle figures
   * stay. */
  json_object_set_int_member (params, "load_port", 1);
  ctx.peer = qf_builtin_peer_get_host (peer);
  g_assert_false (qf_step_loaded_latency.run (params, &ctx, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_PEER);
  g_assert_nonnull (result);
  g_assert_true (json_object_has_member (result, "idle"));
  g_assert_false (json_object_has_member (result, "loaded"));
  g_clear_error (&error);
  json_object_set_string_member (params, "load", "udp:fast");
  g_clear_pointer (&result, json_object_unref);
  g_assert_false (qf_step_loaded_latency.run (params, &ctx, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
}

/* A stop request during the loaded phase ends the step soon, the load stopped with it; the idle
 * figures come back. */
static void
test_loaded_latency_cancel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = loaded_params (peer, 0.5);
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };
  gint cancel = 0;
  GThread *thread;
  gint64 t0;

  json_object_set_double_member (params, "loaded_time_s", 60);
  ctx.peer = qf_builtin_peer_get_host (peer);
  ctx.cancel = &cancel;
  /* 0.5 s idle (+0.45 s of warm-up and cool-down) and 0.5 s of load: then 1 s into the 60 s. */
  thread = qf_test_set_flag_later (&cancel, 2500);
  t0 = g_get_monotonic_time ();
  g_assert_false (qf_step_loaded_latency.run (params, &ctx, &result, &error));
  g_thread_join (thread);
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED);
  g_assert_cmpint ((g_get_monotonic_time () - t0) * 1000, <, qf_test_ns (6 * QF_NSEC_PER_SEC));
  g_assert_nonnull (result);
  g_assert_true (json_object_has_member (result, "idle"));
}

static void
test_rt_network_load (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };
  JsonObject *load;

  ctx.peer = qf_builtin_peer_get_host (peer);
  json_object_set_int_member (params, "port", qf_builtin_peer_get_bandwidth_port (peer));
  json_object_set_int_member (params, "priority", 0);
  json_object_set_int_member (params, "loops", 300);
  json_object_set_double_member (params, "settle_s", 0.3);
  g_assert_true (qf_step_rt_network_load.run (params, &ctx, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (result, "test"), ==, "rt-network-load");
  g_assert_true (json_object_has_member (result, "max_us"));
  load = json_object_get_object_member (result, "network_load");
  g_assert_nonnull (load);
  g_assert_true (json_object_get_boolean_member (load, "complete"));
  g_assert_cmpfloat (json_object_get_double_member (load, "up_mbps"), >, 0);
  assert_all_listed (&qf_step_rt_network_load, params, result);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/loaded-steps/loaded-latency", test_loaded_latency);
  g_test_add_func ("/core/loaded-steps/bloat", test_loaded_latency_bloat);
  g_test_add_func ("/core/loaded-steps/cycle", test_loaded_latency_cycle);
  g_test_add_func ("/core/loaded-steps/no-load", test_loaded_latency_no_load);
  g_test_add_func ("/core/loaded-steps/cancel", test_loaded_latency_cancel);
  g_test_add_func ("/core/loaded-steps/rt-network-load", test_rt_network_load);
  return g_test_run ();
}
