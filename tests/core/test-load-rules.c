/* test-load-rules.c — the procedure's five stress rules on synthetic monitor figures: limits and
 * their edges (equal passes), missing figures, overridden limits, the exact "await rising
 * steadily" test on synthetic series, and the monitor summary's weighting. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-load-rules.h"
#include "qf-step-monitor.h"
#include "qf-step.h"

static JsonObject *
monitor_with (double iowait,
              double load_per_cpu,
              double util,
              double idle,
              double await_rise)
{
  JsonObject *monitor = json_object_new ();
  JsonObject *summary = json_object_new ();

  json_object_set_double_member (summary, "iowait_max_pct", iowait);
  json_object_set_double_member (summary, "load1_max_per_cpu", load_per_cpu);
  json_object_set_double_member (summary, "load1_max", load_per_cpu * 4);
  json_object_set_int_member (summary, "cpu_count", 4);
  json_object_set_double_member (summary, "disk_util_max_pct", util);
  json_object_set_string_member (summary, "disk_util_max_name", "sda");
  json_object_set_double_member (summary, "cpu_idle_min_pct", idle);
  json_object_set_double_member (summary, "await_steady_rise_pct", await_rise);
  json_object_set_double_member (summary, "await_slope_ms_per_s", 0.5);
  json_object_set_double_member (summary, "await_monotone_share", 0.9);
  json_object_set_object_member (monitor, "summary", summary);
  return monitor;
}

static JsonObject *
outcome (JsonArray  *outcomes,
         const char *id)
{
  for (guint i = 0; i < json_array_get_length (outcomes); i++)
    {
      JsonObject *o = json_array_get_object_element (outcomes, i);
      if (g_str_equal (json_object_get_string_member (o, "id"), id))
        return o;
    }
  g_assert_not_reached ();
  return NULL;
}

static void
test_all_ok (void)
{
  g_autoptr(JsonObject) monitor = monitor_with (5, 0.5, 40, 80, 0);
  g_autoptr(JsonArray) out = qf_load_rules_evaluate (monitor, NULL);
  const char *ids[] = { "iowait", "load", "disk-util", "cpu-idle", "await-rising" };

  g_assert_cmpuint (json_array_get_length (out), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *o = json_array_get_object_element (out, i);
      g_assert_cmpstr (json_object_get_string_member (o, "id"), ==, ids[i]);
      g_assert_true (json_object_get_boolean_member (o, "ok"));
      g_assert_true (g_str_has_prefix (json_object_get_string_member (o, "metric"), "monitor.summary."));
      g_assert_cmpuint (strlen (json_object_get_string_member (o, "message")), >, 20);
    }
  g_assert_true (qf_load_rules_all_ok (out));
  g_assert_cmpstr (json_object_get_string_member (outcome (out, "cpu-idle"), "comparison"), ==, ">=");
  g_assert_cmpfloat (json_object_get_double_member (outcome (out, "iowait"), "limit"), ==, 30.0);
}

static void
test_each_rule_breaks (void)
{
  struct { const char *id; double v[5]; const char *in_message; } cases[] = {
    { "iowait", { 41.5, 0.5, 40, 80, 0 }, "41.5" },
    { "load", { 5, 1.25, 40, 80, 0 }, "5.00" },
    { "disk-util", { 5, 0.5, 99.5, 80, 0 }, "sda" },
    { "cpu-idle", { 5, 0.5, 40, 12.5, 0 }, "12.5" },
    { "await-rising", { 5, 0.5, 40, 80, 180 }, "180" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(JsonObject) monitor = monitor_with (cases[c].v[0], cases[c].v[1], cases[c].v[2],
                                                    cases[c].v[3], cases[c].v[4]);
      g_autoptr(JsonArray) out = qf_load_rules_evaluate (monitor, NULL);

      for (guint i = 0; i < json_array_get_length (out); i++)
        {
          JsonObject *o = json_array_get_object_element (out, i);
          gboolean expect_ok = !g_str_equal (json_object_get_string_member (o, "id"), cases[c].id);
          g_assert_cmpint (json_object_get_boolean_member (o, "ok"), ==, expect_ok);
          if (!expect_ok)
            {
              const char *msg = json_object_get_string_member (o, "message");
              g_assert_nonnull (strstr (msg, cases[c].in_message));
              g_assert_nonnull (strstr (msg, "Fix:"));
            }
        }
      g_assert_false (qf_load_rules_all_ok (out));
    }
}

static void
test_edges_and_limits (void)
{
  /* Equal to the limit passes, as everywhere in Qualify. */
  g_autoptr(JsonObject) monitor = monitor_with (30, 1.0, 95, 70, 50);
  g_autoptr(JsonArray) out = qf_load_rules_evaluate (monitor, NULL);
  g_autoptr(JsonObject) limits = json_object_new ();
  g_autoptr(JsonArray) out2 = NULL;

  g_assert_true (qf_load_rules_all_ok (out));

  json_object_set_double_member (limits, "iowait_max_pct", 20);
  json_object_set_double_member (limits, "cpu_idle_min_pct", 75);
  out2 = qf_load_rules_evaluate (monitor, limits);
  g_assert_false (json_object_get_boolean_member (outcome (out2, "iowait"), "ok"));
  g_assert_cmpfloat (json_object_get_double_member (outcome (out2, "iowait"), "limit"), ==, 20);
  g_assert_false (json_object_get_boolean_member (outcome (out2, "cpu-idle"), "ok"));
  g_assert_true (json_object_get_boolean_member (outcome (out2, "load"), "ok"));
}

static void
test_missing_figures (void)
{
  g_autoptr(JsonObject) monitor = json_object_new ();
  JsonObject *summary = json_object_new ();
  g_autoptr(JsonArray) out = NULL;
  JsonObject *disk;

  json_object_set_null_member (summary, "disk_util_max_pct");
  json_object_set_object_member (monitor, "summary", summary);
  out = qf_load_rules_evaluate (monitor, NULL);
  g_assert_cmpuint (json_array_get_length (out), ==, 5);
  disk = outcome (out, "disk-util");
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (disk, "value")));
  g_assert_true (json_object_get_boolean_member (disk, "ok"));
  g_assert_nonnull (strstr (json_object_get_string_member (disk, "message"), "No disk"));

  /* No monitor at all still gives five outcomes. */
  {
    g_autoptr(JsonArray) none = qf_load_rules_evaluate (NULL, NULL);
    g_assert_cmpuint (json_array_get_length (none), ==, 5);
  }
}

/* Samples with one disk "vda" whose await follows series[] at t = 1, 2, … s. */
static JsonArray *
await_series (const double *series,
              guint         n)
{
  JsonArray *samples = json_array_new ();

  for (guint i = 0; i < n; i++)
    {
      JsonObject *s = json_object_new ();
      JsonArray *disks = json_array_new ();
      JsonObject *d = json_object_new ();

      json_object_set_double_member (s, "t_s", i + 1.0);
      json_object_set_double_member (s, "elapsed_s", 1.0);
      json_object_set_double_member (s, "cpu_busy_pct", 50);
      json_object_set_double_member (s, "cpu_iowait_pct", 10);
      json_object_set_double_member (s, "cpu_idle_pct", 40);
      json_object_set_double_member (s, "load1", 1.0);
      json_object_set_int_member (s, "mem_available_kb", 1000);
      json_object_set_string_member (d, "name", "vda");
      json_object_set_double_member (d, "util_pct", 30);
      json_object_set_double_member (d, "await_ms", series[i]);
      json_object_set_int_member (d, "ios", series[i] < 0 ? 0 : 10);
      json_array_add_object_element (disks, d);
      json_object_set_array_member (s, "disks", disks);
      json_array_add_object_element (samples, s);
    }
  return samples;
}

static JsonObject *
trend_of (const double *series,
          guint         n)
{
  g_autoptr(JsonArray) samples = await_series (series, n);
  JsonObject *summary = json_object_new ();

  qf_load_rules_await_trend (samples, summary);
  return summary;
}

static void
test_await_trend (void)
{
  /* Straight rise 2 → 7 ms over 5 s: slope 1 ms/s, fitted rise 5 ms on a start of 2 ms. */
  {
    const double s[] = { 2, 3, 4, 5, 6, 7 };
    g_autoptr(JsonObject) t = trend_of (s, G_N_ELEMENTS (s));
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (t, "await_slope_ms_per_s"), 1.0, 1e-9);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (t, "await_monotone_share"), 1.0, 1e-9);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (t, "await_steady_rise_pct"), 250.0, 1e-9);
    g_assert_cmpstr (json_object_get_string_member (t, "await_disk"), ==, "vda");
    g_assert_cmpint (json_object_get_int_member (t, "await_points"), ==, 6);
  }
  /* Noise without direction: not steady. */
  {
    const double s[] = { 5, 2, 6, 1, 5, 2 };
    g_autoptr(JsonObject) t = trend_of (s, G_N_ELEMENTS (s));
    g_assert_cmpfloat (json_object_get_double_member (t, "await_steady_rise_pct"), ==, 0.0);
  }
  /* Rising on average but zig-zagging: 4 of 7 steps up (57 % < 70 %): not steady. */
  {
    const double s[] = { 1, 5, 2, 6, 3, 7, 4, 8 };
    g_autoptr(JsonObject) t = trend_of (s, G_N_ELEMENTS (s));
    g_assert_cmpfloat (json_object_get_double_member (t, "await_slope_ms_per_s"), >, 0.0);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (t, "await_monotone_share"), 4.0 / 7, 1e-3);
    g_assert_cmpfloat (json_object_get_double_member (t, "await_steady_rise_pct"), ==, 0.0);
  }
  /* Too few points (4 < 5). */
  {
    const double s[] = { 2, 4, 6, 8 };
    g_autoptr(JsonObject) t = trend_of (s, G_N_ELEMENTS (s));
    g_assert_cmpfloat (json_object_get_double_member (t, "await_steady_rise_pct"), ==, 0.0);
  }
  /* Steady but tiny: 0.1 → 0.5 ms is a rise of 0.4 ms (< 1 ms). */
  {
    const double s[] = { 0.1, 0.2, 0.3, 0.4, 0.5 };
    g_autoptr(JsonObject) t = trend_of (s, G_N_ELEMENTS (s));
    g_assert_cmpfloat (json_object_get_double_member (t, "await_steady_rise_pct"), ==, 0.0);
  }
  /* Samples without I/O (ios 0, marked -1 here) are left out of the series. */
  {
    const double s[] = { 2, -1, 3, 4, -1, 5, 6, 7 };
    g_autoptr(JsonObject) t = trend_of (s, G_N_ELEMENTS (s));
    g_assert_cmpint (json_object_get_int_member (t, "await_points"), ==, 6);
    g_assert_cmpfloat (json_object_get_double_member (t, "await_steady_rise_pct"), >, 50.0);
  }
  /* No disk activity at all. */
  {
    g_autoptr(JsonObject) t = trend_of (NULL, 0);
    g_assert_cmpfloat (json_object_get_double_member (t, "await_steady_rise_pct"), ==, 0.0);
    g_assert_true (json_object_get_null_member (t, "await_disk"));
  }
}

static void
test_summary (void)
{
  const double s[] = { 2, 3, 4, 5, 6, 7 };
  g_autoptr(JsonArray) samples = await_series (s, G_N_ELEMENTS (s));
  g_autoptr(JsonObject) sum = NULL;
  g_autoptr(JsonObject) window = NULL;
  JsonObject *first = json_array_get_object_element (samples, 0);

  /* Make the first sample 3 s long at 90 % busy: the average weights it by its time. */
  json_object_set_double_member (first, "elapsed_s", 3.0);
  json_object_set_double_member (first, "cpu_busy_pct", 90);
  json_object_set_double_member (first, "cpu_idle_pct", 5);
  json_object_set_double_member (first, "load1", 6.0);
  json_object_set_int_member (first, "mem_available_kb", 500);
  sum = qf_monitor_json_summary (samples, 4, -G_MAXDOUBLE, G_MAXDOUBLE);
  g_assert_cmpint (json_object_get_int_member (sum, "samples"), ==, 6);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (sum, "cpu_busy_avg_pct"),
                                  (90 * 3 + 50 * 5) / 8.0, 1e-9);
  g_assert_cmpfloat (json_object_get_double_member (sum, "cpu_busy_max_pct"), ==, 90);
  g_assert_cmpfloat (json_object_get_double_member (sum, "cpu_idle_min_pct"), ==, 5);
  g_assert_cmpfloat (json_object_get_double_member (sum, "load1_max"), ==, 6.0);
  g_assert_cmpfloat (json_object_get_double_member (sum, "load1_max_per_cpu"), ==, 1.5);
  g_assert_cmpint (json_object_get_int_member (sum, "mem_available_min_kb"), ==, 500);
  g_assert_cmpfloat (json_object_get_double_member (sum, "disk_util_max_pct"), ==, 30);
  g_assert_cmpfloat (json_object_get_double_member (sum, "await_max_ms"), ==, 7);
  g_assert_cmpfloat (json_object_get_double_member (sum, "await_steady_rise_pct"), >, 0);

  /* A window (2, 4]: samples at t = 3 and 4 only. */
  window = qf_monitor_json_summary (samples, 4, 2.0, 4.0);
  g_assert_cmpint (json_object_get_int_member (window, "samples"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (window, "load1_max"), ==, 1.0);

  /* No sample in the window: figures are null, not zero. */
  {
    g_autoptr(JsonObject) empty = qf_monitor_json_summary (samples, 4, 100, 200);
    g_assert_true (json_object_get_null_member (empty, "cpu_busy_max_pct"));
    g_assert_true (json_object_get_null_member (empty, "disk_util_max_pct"));
  }
}

static void
test_classic_commands (void)
{
  const QfStepInfo *stress = qf_step_lookup ("stress");
  const QfStepInfo *monitor = qf_step_lookup ("monitor");
  g_autoptr(JsonObject) params = json_object_new ();
  g_autofree char *cmd = NULL;
  g_autofree char *mon = NULL;

  g_assert_nonnull (stress);
  g_assert_nonnull (monitor);
  /* The profile's parameters give back the procedure's own stress line. */
  json_object_set_int_member (params, "io", 4);
  json_object_set_int_member (params, "vm", 10);
  json_object_set_string_member (params, "vm_bytes", "1G");
  json_object_set_int_member (params, "vm_hang_s", 100);
  json_object_set_int_member (params, "timeout_s", 100);
  cmd = stress->classic_command (params, NULL);
  g_assert_cmpstr (cmd, ==, "stress -i 4 --vm 10 --vm-bytes 1G --vm-hang 100 --timeout 100s "
                            "& iostat -x 1 100");
  g_assert_cmpfloat (stress->estimate_duration (params), ==, 100.0);
  json_object_set_double_member (params, "duration_s", 10);
  mon = monitor->classic_command (params, NULL);
  g_assert_nonnull (strstr (mon, "iostat -x 1 10"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/load-rules/all-ok", test_all_ok);
  g_test_add_func ("/core/load-rules/each-rule-breaks", test_each_rule_breaks);
  g_test_add_func ("/core/load-rules/edges-and-limits", test_edges_and_limits);
  g_test_add_func ("/core/load-rules/missing-figures", test_missing_figures);
  g_test_add_func ("/core/load-rules/await-trend", test_await_trend);
  g_test_add_func ("/core/load-rules/monitor-summary", test_summary);
  g_test_add_func ("/core/load-rules/classic-commands", test_classic_commands);
  return g_test_run ();
}
