/* test-net-steps.c — the ping, latency and cycle steps against the built-in peer on loopback:
 * result keys the verdicts and reports read, parameter checks, stop requests, emulation
 * (tests/core). */
#include "config.h"

#include "qf-builtin-peer.h"
#include "qf-clock.h"
#include "qf-step.h"
#include "qf-steps.h"

#include "../qf-test-time.h"

static JsonObject *
params_new (guint16 port)
{
  JsonObject *params = json_object_new ();

  if (port != 0)
    json_object_set_int_member (params, "port", port);
  return params;
}

static void
assert_members (JsonObject         *obj,
                const char *const  *keys)
{
  for (guint i = 0; keys[i] != NULL; i++)
    if (!json_object_has_member (obj, keys[i]))
      g_error ("result lacks “%s”", keys[i]);
}

static void
test_registry (void)
{
  const QfStepInfo *const *list = qf_step_list ();
  int ping = -1, latency = -1, cycle = -1;

  for (int i = 0; list[i] != NULL; i++)
    {
      if (g_str_equal (list[i]->id, "ping"))
        ping = i;
      else if (g_str_equal (list[i]->id, "latency"))
        latency = i;
      else if (g_str_equal (list[i]->id, "cycle"))
        cycle = i;
    }
  g_assert_cmpint (ping, >=, 0);
  g_assert_cmpint (ping, <, latency);
  g_assert_cmpint (latency, <, cycle);
  g_assert_true (qf_step_lookup ("latency") == &qf_step_latency);
  g_assert_true (qf_step_needs_peer (&qf_step_ping) && qf_step_needs_peer (&qf_step_latency)
                  && qf_step_needs_peer (&qf_step_cycle));
}

static void
test_latency_builtin (void)
{
  static const char *const keys[] = {
    "test", "protocol", "mode", "msg_size", "one_way", "samples", "avg_us", "stddev_us",
    "p50_us", "p99_us", "p999_us", "min_us", "max_us", "dropped", NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *classic = NULL, *expected = NULL;
  QfStepContext ctx = { 0 };

  g_assert_no_error (error);
  g_assert_cmpstr (qf_builtin_peer_get_host (peer), ==, "127.0.0.1");
  ctx.peer = qf_builtin_peer_get_host (peer);
  params = params_new (qf_builtin_peer_get_latency_port (peer));
  json_object_set_double_member (params, "time_s", 0.3);

  g_assert_true (qf_step_latency.run (params, &ctx, &result, &error));
  g_assert_no_error (error);
  assert_members (result, keys);
  g_assert_cmpstr (json_object_get_string_member (result, "test"), ==, "latency");
  g_assert_cmpstr (json_object_get_string_member (result, "mode"), ==, "blocking");
  g_assert_cmpstr (json_object_get_string_member (result, "protocol"), ==, "tcp");
  g_assert_true (json_object_get_boolean_member (result, "one_way"));
  g_assert_cmpint (json_object_get_int_member (result, "msg_size"), ==, 14);
  g_assert_cmpfloat (json_object_get_double_member (result, "avg_us"), >, 0);
  g_assert_cmpint (json_object_get_int_member (result, "samples"), >, 0);

  classic = qf_step_latency.classic_command (params, ctx.peer);
  expected = g_strdup_printf ("sockperf pp -i 127.0.0.1 -p %u --tcp -t 0.3 -m 14",
                              qf_builtin_peer_get_latency_port (peer));
  g_assert_cmpstr (classic, ==, expected);
  g_assert_cmpfloat (qf_step_latency.estimate_duration (params), >=, 0.3);
}

static void
test_latency_cancel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };
  gint cancel = 0;
  GThread *thread;
  gint64 t0;

  ctx.peer = qf_builtin_peer_get_host (peer);
  ctx.cancel = &cancel;
  params = params_new (qf_builtin_peer_get_latency_port (peer));
  json_object_set_double_member (params, "time_s", 30);
  json_object_set_string_member (params, "protocol", "udp");
  thread = qf_test_set_flag_later (&cancel, 300);
  t0 = qf_clock_now_ns ();
  g_assert_false (qf_step_latency.run (params, &ctx, &result, &error));
  g_thread_join (thread);
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED);
  /* Honoured well before the 30 s, and the partial counts come back. */
  g_assert_cmpint (qf_clock_now_ns () - t0, <, 5 * QF_NSEC_PER_SEC);
  g_assert_nonnull (result);
  g_assert_cmpint (json_object_get_int_member (result, "sent"), >=,
                   json_object_get_int_member (result, "samples"));
}

static void
test_cycle_builtin (void)
{
  static const char *const keys[] = {
    "test", "rate_hz", "cycles", "misses", "longest_miss_burst", "lost", "avg_rtt_us",
    "p99_rtt_us", "max_rtt_us", NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (NULL, &error);
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };

  ctx.peer = qf_builtin_peer_get_host (peer);
  params = params_new (qf_builtin_peer_get_latency_port (peer));
  json_object_set_int_member (params, "rate_hz", 500);
  json_object_set_double_member (params, "time_s", 0.2);
  g_assert_true (qf_step_cycle.run (params, &ctx, &result, &error));
  g_assert_no_error (error);
  assert_members (result, keys);
  g_assert_cmpint (json_object_get_int_member (result, "cycles"), ==, 100);
  g_assert_cmpint (json_object_get_int_member (result, "rate_hz"), ==, 500);
}

static void
test_cycle_emulated_peer (void)
{
  QfResponderEmulation e = { .delay_ms = 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(QfBuiltinPeer) peer = qf_builtin_peer_start (&e, &error);
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonObject) result = NULL;
  QfStepContext ctx = { 0 };

  /* The training demonstration of a poor link: every 1 ms cycle misses. */
  ctx.peer = qf_builtin_peer_get_host (peer);
  params = params_new (qf_builtin_peer_get_latency_port (peer));
  json_object_set_double_member (params, "time_s", 0.1);
  g_assert_true (qf_step_cycle.run (params, &ctx, &result, &error));
  g_assert_cmpint (json_object_get_int_member (result, "misses"), ==, 100);
  g_assert_cmpint (json_object_get_int_member (result, "longest_miss_burst"), ==, 100);
}

static void
test_ping_loopback (void)
{
  static const char *const keys[] = {
    "test", "transmitted", "received", "loss_pct", "min_ms", "avg_ms", "max_ms", "mdev_ms",
    "p99_ms", "histogram", NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *classic = NULL;
  QfStepContext ctx = { .peer = "127.0.0.1" };

  json_object_set_int_member (params, "count", 5);
  classic = qf_step_ping.classic_command (params, ctx.peer);
  g_assert_cmpstr (classic, ==, "ping -i 0.001 -s 1024 -c 5 127.0.0.1");
  if (!qf_step_ping.run (params, &ctx, &result, &error))
    {
      if (g_error_matches (error, QF_STEP_ERROR, QF_STEP_ERROR_PERMISSION))
        {
          g_test_skip (error->message);
          return;
        }
      g_assert_no_error (error);
    }
  assert_members (result, keys);
  g_assert_cmpint (json_object_get_int_member (result, "transmitted"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (result, "received"), ==, 5);
  g_assert_cmpfloat (json_object_get_double_member (result, "min_ms"), <=,
                     json_object_get_double_member (result, "avg_ms"));
  g_assert_cmpfloat (json_object_get_double_member (result, "avg_ms"), <=,
                     json_object_get_double_member (result, "max_ms"));
}

static void
test_invalid_params (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  JsonObject *result = NULL;
  QfStepContext ctx = { .peer = "127.0.0.1" };

  json_object_set_string_member (params, "protocol", "sctp");
  g_assert_false (qf_step_latency.run (params, &ctx, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
  g_assert_null (result);
  g_clear_error (&error);

  json_object_remove_member (params, "protocol");
  json_object_set_int_member (params, "count", 0);
  g_assert_false (qf_step_ping.run (params, &ctx, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
  g_clear_error (&error);

  /* No peer at all. */
  ctx.peer = NULL;
  g_assert_false (qf_step_cycle.run (NULL, &ctx, &result, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/net-steps/registry", test_registry);
  g_test_add_func ("/core/net-steps/latency-builtin", test_latency_builtin);
  g_test_add_func ("/core/net-steps/latency-cancel", test_latency_cancel);
  g_test_add_func ("/core/net-steps/cycle-builtin", test_cycle_builtin);
  g_test_add_func ("/core/net-steps/cycle-emulated-peer", test_cycle_emulated_peer);
  g_test_add_func ("/core/net-steps/ping-loopback", test_ping_loopback);
  g_test_add_func ("/core/net-steps/invalid-params", test_invalid_params);
  return g_test_run ();
}
