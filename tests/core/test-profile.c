/* test-profile.c — profiles: every shipped profile loads with the procedure's limits, and every
 * malformed profile in fixtures/bad-profiles/ is refused with its exact message (tests/core). */
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "qf-json.h"
#include "qf-profile.h"
#include "qf-steps.h"
#include "qf-verdict.h"

typedef struct
{
  const char *file;
  const char *message;
} BadProfile;

/* Every file in fixtures/bad-profiles/ must be listed here (checked below). */
static const BadProfile bad_profiles[] = {
  { "arcs-lab.json", "arcs-lab.json: tests.rt.criteria[0].limit: expected a number, got \"32us\"" },
  { "bad-comparison.json", "bad-comparison.json: tests.rt.criteria[0].comparison: expected \"<=\" or \">=\", got \"<\"" },
  { "bad-id.json", "bad-id.json: id: an id may hold only lower-case letters, digits and “-”, got \"ARCS Lab\"" },
  { "bad-metric.json", "bad-metric.json: tests.rt.criteria[0].metric: expected a key path such as \"avg_us\" or \"threads[0].max_us\", got \"avg us\"" },
  { "bad-network-kind.json", "bad-network-kind.json: network_kind: expected \"wired\", \"wireless\" or \"any\", got \"cable\"" },
  { "bad-role.json", "bad-role.json: tests.rt.criteria[0].role: expected \"decides\" or \"warns\", got \"decide\"" },
  { "criteria-not-list.json", "criteria-not-list.json: tests.rt.criteria: expected a list, got an object" },
  { "empty-tests.json", "empty-tests.json: tests: a profile needs at least one test" },
  { "missing-key.json", "missing-key.json: tests.rt.criteria[0]: missing key “role”" },
  { "missing-tests.json", "missing-tests.json: missing key “tests”" },
  { "name-number.json", "name-number.json: name: expected a text value, got 7" },
  { "not-json.json", "not-json.json: not valid JSON: <data>:3:15: Parse error: unexpected character `,', expected string constant" },
  { "params-not-object.json", "params-not-object.json: tests.rt.params: expected an object, got a list" },
  { "top-unknown.json", "top-unknown.json: limits: unknown key (allowed: id, version, name, description, network_kind, quick_variant, note, tests)" },
  { "unknown-key.json", "unknown-key.json: tests.rt.criteria[0].limt: unknown key (allowed: metric, label, comparison, limit, unit, role)" },
  { "version-float.json", "version-float.json: version: expected a whole number of at least 1, got 1.5" },
};

static void
test_bad_profile (gconstpointer data)
{
  const BadProfile *bad = data;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "bad-profiles", bad->file, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = qf_profile_load_file (path, &error);

  g_assert_null (profile);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, ==, bad->message);
}

static void
test_every_fixture_listed (void)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "bad-profiles", NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      gboolean listed = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (bad_profiles); i++)
        listed |= g_str_equal (bad_profiles[i].file, name);
      if (!listed)
        g_error ("fixtures/bad-profiles/%s has no expected message in test-profile.c", name);
      n++;
    }
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (bad_profiles));
}

static const QfCriterion *
find_criterion (QfProfile  *profile,
                const char *key,
                const char *metric)
{
  const QfProfileTest *test = qf_profile_find_test (profile, key);

  g_assert_nonnull (test);
  for (guint i = 0; i < test->criteria->len; i++)
    {
      const QfCriterion *c = g_ptr_array_index (test->criteria, i);
      if (g_str_equal (c->metric, metric))
        return c;
    }
  g_error ("%s: no criterion %s.%s", qf_profile_get_id (profile), key, metric);
  return NULL;
}

static void
assert_criterion (QfProfile      *profile,
                  const char     *key,
                  const char     *metric,
                  QfComparison    comparison,
                  gdouble         limit,
                  QfCriterionRole role)
{
  const QfCriterion *c = find_criterion (profile, key, metric);

  g_assert_cmpint (c->comparison, ==, comparison);
  g_assert_cmpfloat (c->limit, ==, limit);
  g_assert_cmpint (c->role, ==, role);
}

/* The limits of ../shared/docs/criteria.md, the same in the quick variants. */
static void
assert_procedure_limits (QfProfile *profile,
                         gboolean   wireless)
{
  assert_criterion (profile, "rt", "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES);
  assert_criterion (profile, "rt", "min_us", QF_COMPARISON_AT_MOST, 14, QF_ROLE_WARNS);
  assert_criterion (profile, "rt", "max_us", QF_COMPARISON_AT_MOST, 2335, QF_ROLE_WARNS);
  assert_criterion (profile, "ping", "avg_ms", QF_COMPARISON_AT_MOST, wireless ? 4.813 : 0.476, QF_ROLE_DECIDES);
  assert_criterion (profile, "ping", "min_ms", QF_COMPARISON_AT_MOST, wireless ? 2.373 : 0.397, QF_ROLE_WARNS);
  assert_criterion (profile, "ping", "max_ms", QF_COMPARISON_AT_MOST, wireless ? 26.869 : 0.997, QF_ROLE_WARNS);
  assert_criterion (profile, "bandwidth", "up_mbps", QF_COMPARISON_AT_LEAST, wireless ? 60 : 90, QF_ROLE_DECIDES);
  assert_criterion (profile, "bandwidth", "down_mbps", QF_COMPARISON_AT_LEAST, wireless ? 60 : 90, QF_ROLE_DECIDES);
  assert_criterion (profile, "receive", "rx_kBps", QF_COMPARISON_AT_LEAST, 4600, QF_ROLE_DECIDES);
  assert_criterion (profile, "latency", "avg_us", QF_COMPARISON_AT_MOST, 70, QF_ROLE_DECIDES);
  assert_criterion (profile, "stress", "monitor.summary.iowait_max_pct", QF_COMPARISON_AT_MOST, 30, QF_ROLE_WARNS);
  assert_criterion (profile, "stress", "monitor.summary.load1_max_per_cpu", QF_COMPARISON_AT_MOST, 1, QF_ROLE_WARNS);
  assert_criterion (profile, "stress", "monitor.summary.disk_util_max_pct", QF_COMPARISON_AT_MOST, 95, QF_ROLE_WARNS);
  assert_criterion (profile, "stress", "monitor.summary.cpu_idle_min_pct", QF_COMPARISON_AT_LEAST, 70, QF_ROLE_WARNS);
  assert_criterion (profile, "stress", "monitor.summary.await_steady_rise_pct", QF_COMPARISON_AT_MOST, 50, QF_ROLE_WARNS);
  /* Issue 35's two tests: warnings only, against the socket-latency and real-time limits. */
  assert_criterion (profile, "loaded-latency", "loaded.avg_us", QF_COMPARISON_AT_MOST, 70, QF_ROLE_WARNS);
  assert_criterion (profile, "rt-network-load", "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_WARNS);
  assert_criterion (profile, "rt-network-load", "max_us", QF_COMPARISON_AT_MOST, 2335, QF_ROLE_WARNS);
  g_assert_cmpstr (qf_profile_get_network_kind (profile), ==, wireless ? "wireless" : "wired");
}

/* The plan's length as the plan page shows it: each test's step estimate. */
static gdouble
plan_seconds (QfProfile  *profile,
              gdouble    *loaded_s)
{
  gdouble total = 0;

  *loaded_s = 0;
  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    {
      const QfProfileTest *test = qf_profile_get_test (profile, i);
      const QfStepInfo *step = qf_step_lookup (test->step);
      gdouble s;

      g_assert_nonnull (step);
      s = step->estimate_duration (test->params);
      total += s;
      if (step == &qf_step_loaded_latency || step == &qf_step_rt_network_load)
        *loaded_s += s;
    }
  return total;
}

/* A quick plan stays under two minutes with the tests under load; the full plan grows by no more
 * than the loaded phases (and the idle phase and the real-time test they are measured beside). */
static void
test_plan_durations (void)
{
  static const char *const ids[] = { "arcs-wired", "arcs-wireless", "arcs-wired-quick", "arcs-wireless-quick" };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autoptr(QfProfile) profile = qf_profile_find (ids[i], NULL);
      gdouble loaded_s, total = plan_seconds (profile, &loaded_s);

      g_test_message ("%s: %.0f s, of which %.0f s under load", ids[i], total, loaded_s);
      if (strstr (ids[i], "quick") != NULL)
        g_assert_cmpfloat (total, <, 120);
      g_assert_cmpfloat (loaded_s, <=, 40);
    }
}

static gint64
param_int (QfProfile  *profile,
           const char *key,
           const char *param)
{
  const QfProfileTest *test = qf_profile_find_test (profile, key);
  return json_object_get_int_member (test->params, param);
}

static void
test_shipped_profiles (void)
{
  static const char *const ids[] = { "arcs-wired", "arcs-wireless", "arcs-wired-quick", "arcs-wireless-quick" };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(QfProfile) profile = qf_profile_find (ids[i], &error);

      g_assert_no_error (error);
      g_assert_cmpstr (qf_profile_get_id (profile), ==, ids[i]);
      g_assert_false (qf_profile_is_user (profile));
      assert_procedure_limits (profile, strstr (ids[i], "wireless") != NULL);
    }
}

static void
test_full_parameters (void)
{
  g_autoptr(QfProfile) wired = qf_profile_find ("arcs-wired", NULL);
  g_autoptr(QfProfile) quick = NULL;
  const QfProfileTest *bw;

  g_assert_nonnull (wired);
  /* cyclictest -t1 -p 99 -n -i 1000 -l 10000 */
  g_assert_cmpint (param_int (wired, "rt", "threads"), ==, 1);
  g_assert_cmpint (param_int (wired, "rt", "priority"), ==, 99);
  g_assert_cmpint (param_int (wired, "rt", "interval_us"), ==, 1000);
  g_assert_cmpint (param_int (wired, "rt", "loops"), ==, 10000);
  /* ping -i 0.001 -s 1024 -c 100 */
  g_assert_cmpint (param_int (wired, "ping", "interval_ms"), ==, 1);
  g_assert_cmpint (param_int (wired, "ping", "size"), ==, 1024);
  g_assert_cmpint (param_int (wired, "ping", "count"), ==, 100);
  /* iperf -c PEER -t 60 -d */
  bw = qf_profile_find_test (wired, "bandwidth");
  g_assert_cmpstr (bw->step, ==, "bandwidth");
  g_assert_cmpstr (json_object_get_string_member (bw->params, "direction"), ==, "bidir");
  g_assert_cmpint (param_int (wired, "bandwidth", "time_s"), ==, 60);
  /* sockperf pp --tcp -t 30 -m 14 */
  g_assert_cmpint (param_int (wired, "latency", "time_s"), ==, 30);
  g_assert_cmpint (param_int (wired, "latency", "msg_size"), ==, 14);
  /* stress -c 4; -i 4 --vm 10 --vm-bytes 1G --vm-hang 100 --timeout 100s; -d 1 --hdd-bytes 3G */
  g_assert_cmpint (param_int (wired, "stress", "cpu"), ==, 4);
  g_assert_cmpint (param_int (wired, "stress", "io"), ==, 4);
  g_assert_cmpint (param_int (wired, "stress", "vm"), ==, 10);
  g_assert_cmpint (param_int (wired, "stress", "timeout_s"), ==, 100);

  g_assert_cmpstr (qf_profile_get_quick_variant (wired), ==, "arcs-wired-quick");
  quick = qf_profile_find (qf_profile_get_quick_variant (wired), NULL);
  g_assert_nonnull (quick);
  g_assert_cmpint (param_int (quick, "rt", "loops"), <, 10000);
  g_assert_cmpint (param_int (quick, "bandwidth", "time_s"), <, 60);
  g_assert_cmpuint (qf_profile_get_n_tests (quick), ==, qf_profile_get_n_tests (wired));
}

static void
test_list_and_user_override (void)
{
  const char *config = g_getenv ("XDG_CONFIG_HOME");
  g_autofree char *dir = g_build_filename (config, "qualify", "profiles", NULL);
  g_autofree char *shipped = g_build_filename (g_getenv ("QUALIFY_DATADIR"), "profiles", "arcs-wired.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *user_path = g_build_filename (dir, "arcs-wired.json", NULL);
  g_autofree char *broken_path = g_build_filename (dir, "broken.json", NULL);
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(QfProfile) found = NULL;
  gboolean seen = FALSE;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_get_contents (shipped, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (user_path, text, -1, NULL));
  g_assert_true (g_file_set_contents (broken_path, "{}", -1, NULL));
  list = qf_profile_list (errors);
  for (guint i = 0; i < list->len; i++)
    {
      QfProfile *p = g_ptr_array_index (list, i);
      if (g_str_equal (qf_profile_get_id (p), "arcs-wired"))
        {
          g_assert_true (qf_profile_is_user (p));
          seen = TRUE;
        }
    }
  g_assert_true (seen);
  g_assert_cmpuint (errors->len, ==, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (errors, 0), "broken.json: missing key “id”"));

  found = qf_profile_find ("arcs-wired", NULL);
  g_assert_true (qf_profile_is_user (found));

  g_unlink (user_path);
  g_unlink (broken_path);
}

static void
test_not_found (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = qf_profile_find ("no-such-profile", &error);

  g_assert_null (profile);
  g_assert_error (error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "qualify-cli profiles"));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *config = g_dir_make_tmp ("qf-profile-XXXXXX", NULL);

  /* GLib reads the XDG directories once: set ours before anything asks. */
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/profile/shipped-load", test_shipped_profiles);
  g_test_add_func ("/core/profile/procedure-parameters", test_full_parameters);
  g_test_add_func ("/core/profile/plan-durations", test_plan_durations);
  g_test_add_func ("/core/profile/user-override-and-broken", test_list_and_user_override);
  g_test_add_func ("/core/profile/not-found", test_not_found);
  g_test_add_func ("/core/profile/bad/every-fixture-listed", test_every_fixture_listed);
  for (guint i = 0; i < G_N_ELEMENTS (bad_profiles); i++)
    {
      g_autofree char *path = g_strdup_printf ("/core/profile/bad/%s", bad_profiles[i].file);
      g_test_add_data_func (path, &bad_profiles[i], test_bad_profile);
    }
  return g_test_run ();
}
