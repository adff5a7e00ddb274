/* test-sysinfo.c — the sysinfo reader against fixture trees and the live system (tests/core). */
#include "config.h"

#include <string.h>

#include "qf-sysinfo.h"

static void
test_stock_desktop (void)
{
  g_autofree char *root = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "stock-desktop", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSysinfo) info = qf_sysinfo_read (root, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (info->hostname, ==, "desk-01");
  g_assert_cmpstr (info->cpu_model, ==, "Intel(R) Core(TM) i5-8500 CPU @ 3.00GHz");
  g_assert_cmpuint (info->cpu_count, ==, 4);
  g_assert_cmpuint (info->mem_total_kb, ==, 16303420);
  g_assert_cmpuint (info->mem_available_kb, ==, 12000000);
  g_assert_false (info->preempt_rt);
  /* The fixture has debugfs's sched/preempt, which names the mode chosen at boot. */
  g_assert_cmpstr (info->preempt_model, ==, "PREEMPT_DYNAMIC (voluntary)");
}

static void
test_rt_pc (void)
{
  g_autofree char *root = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "rt-pc", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSysinfo) info = qf_sysinfo_read (root, &error);

  g_assert_no_error (error);
  g_assert_true (info->preempt_rt);
  g_assert_cmpstr (info->preempt_model, ==, "PREEMPT_RT");
  g_assert_cmpuint (info->cpu_count, ==, 8);
}

static void
test_missing_root_names_the_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSysinfo) info = qf_sysinfo_read ("/nonexistent-qualify-root", &error);

  g_assert_null (info);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, "osrelease"));
}

static void
test_live (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSysinfo) info = qf_sysinfo_read ("/", &error);
  g_autoptr(JsonObject) obj = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (info->cpu_count, >=, 1);
  g_assert_cmpuint (info->mem_total_kb, >, 0);
  obj = qf_sysinfo_to_json (info);
  g_assert_true (json_object_has_member (obj, "kernel_release"));
  g_assert_true (json_object_has_member (obj, "preempt_rt"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/sysinfo/stock-desktop", test_stock_desktop);
  g_test_add_func ("/core/sysinfo/rt-pc", test_rt_pc);
  g_test_add_func ("/core/sysinfo/missing-root-names-the-file", test_missing_root_names_the_file);
  g_test_add_func ("/core/sysinfo/live", test_live);
  return g_test_run ();
}
