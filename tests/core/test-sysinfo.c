/* test-sysinfo.c — the sysinfo reader against fixture trees and the live system (tests/core). */
#include "config.h"

#include <string.h>

#include "qf-sysinfo.h"
#include "qf-test-release.h"

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

/* Each release's /etc/os-release reaches info->os and the "os" member of the JSON; a tree without
 * one gives "os": null. */
static void
test_os_release (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (qf_test_releases); i++)
    {
      const QfTestRelease *release = &qf_test_releases[i];
      char *root = qf_test_release_root ("stock-desktop", release);
      g_autoptr(GError) error = NULL;
      g_autoptr(QfSysinfo) info = qf_sysinfo_read (root, &error);
      g_autoptr(JsonObject) obj = NULL;
      JsonObject *os;

      g_assert_no_error (error);
      g_assert_cmpstr (info->os.id, ==, release->id);
      g_assert_cmpstr (info->os.version_id, ==, release->version_id);
      g_assert_cmpstr (info->os.pretty_name, ==, release->pretty_name);
      g_assert_cmpstr (info->os.codename, ==,
                       g_str_equal (release->codename, "fedora") ? NULL : release->codename);
      obj = qf_sysinfo_to_json (info);
      os = json_object_get_object_member (obj, "os");
      g_assert_nonnull (os);
      g_assert_cmpstr (json_object_get_string_member (os, "id"), ==, release->id);
      g_assert_cmpstr (json_object_get_string_member (os, "version_id"), ==, release->version_id);
      g_assert_cmpstr (json_object_get_string_member (os, "pretty_name"), ==, release->pretty_name);
      qf_test_release_root_free (root);
    }
  {
    char *root = qf_test_release_root ("stock-desktop", NULL);
    g_autoptr(QfSysinfo) info = qf_sysinfo_read (root, NULL);
    g_autoptr(JsonObject) obj = qf_sysinfo_to_json (info);

    g_assert_null (info->os.id);
    g_assert_true (json_object_has_member (obj, "os"));
    g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (obj, "os")));
    qf_test_release_root_free (root);
  }
}

/* Quoting as os-release(5) allows, and the name the report prints. */
static void
test_os_release_parse (void)
{
  QfOsRelease os = { 0 };
  g_autofree char *jammy = NULL, *bare = NULL, *none = NULL;

  qf_os_release_parse ("# comment\nID=ubuntu\nVERSION_ID='22.04'\n"
                       "PRETTY_NAME=\"Ubuntu \\\"22.04\\\" LTS\"\nUBUNTU_CODENAME=jammy\nJUNK\n", &os);
  g_assert_cmpstr (os.id, ==, "ubuntu");
  g_assert_cmpstr (os.version_id, ==, "22.04");
  g_assert_cmpstr (os.pretty_name, ==, "Ubuntu \"22.04\" LTS");
  g_assert_cmpstr (os.codename, ==, "jammy");
  jammy = qf_os_release_describe (os.id, os.version_id, os.codename, os.pretty_name);
  g_assert_cmpstr (jammy, ==, "Ubuntu \"22.04\" LTS (jammy)");
  qf_os_release_clear (&os);
  g_assert_null (os.id);
  bare = qf_os_release_describe ("debian", NULL, "forky", NULL);
  g_assert_cmpstr (bare, ==, "debian (forky)");
  none = qf_os_release_describe (NULL, NULL, NULL, NULL);
  g_assert_null (none);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/sysinfo/stock-desktop", test_stock_desktop);
  g_test_add_func ("/core/sysinfo/rt-pc", test_rt_pc);
  g_test_add_func ("/core/sysinfo/missing-root-names-the-file", test_missing_root_names_the_file);
  g_test_add_func ("/core/sysinfo/live", test_live);
  g_test_add_func ("/core/sysinfo/os-release", test_os_release);
  g_test_add_func ("/core/sysinfo/os-release-parse", test_os_release_parse);
  return g_test_run ();
}
