/* test-cli-frame.c — qualify-cli's frame: help, version, errors, sysinfo --json (tests/cli). */
#include "config.h"

#include <string.h>

#include "cli-util.h"

static const char *subcommands[] = {
  "sysinfo", "rt", "stress", "monitor", "ping", "latency", "cycle", "bandwidth",
  "serve", "run", "report", "verify", "profiles",
};

static void
test_help_lists_every_subcommand (void)
{
  g_autofree char *out = NULL;

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "--help", NULL), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (subcommands); i++)
    {
      g_autofree char *needle = g_strdup_printf ("\n  %s ", subcommands[i]);
      if (strstr (out, needle) == NULL)
        g_error ("--help does not list %s:\n%s", subcommands[i], out);
    }
}

static void
test_version (void)
{
  g_autofree char *out = NULL;

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "--version", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "qualify-cli " PACKAGE_VERSION));
}

static void
test_unknown_subcommand (void)
{
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (qf_test_run_cli (&out, &err, "frobnicate", NULL), ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_assert_nonnull (strstr (err, "frobnicate"));
  g_assert_nonnull (strstr (err, "--help"));
}

static void
test_no_arguments (void)
{
  g_autofree char *err = NULL;

  g_assert_cmpint (qf_test_run_cli (NULL, &err, NULL, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "sysinfo"));
}

static void
test_unknown_option (void)
{
  g_autofree char *err = NULL;

  g_assert_cmpint (qf_test_run_cli (NULL, &err, "sysinfo", "--bogus", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--bogus"));
}

/* sysinfo --peer checks the path as part of an interface's audit: alone it is refused, not
 * silently dropped. */
static void
test_sysinfo_peer_needs_iface (void)
{
  g_autofree char *err = NULL;

  g_assert_cmpint (qf_test_run_cli (NULL, &err, "sysinfo", "--peer", "192.0.2.1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--peer needs --iface"));
}

static void
test_subcommand_help (void)
{
  g_autofree char *out = NULL;

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "sysinfo", "--help", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "--json"));
}

static void
test_sysinfo_json (void)
{
  g_autofree char *out = NULL;
  g_autoptr(JsonObject) obj = NULL;

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "sysinfo", "--json", NULL), ==, 0);
  obj = qf_test_parse_json (out);
  g_assert_cmpstr (json_object_get_string_member (obj, "test"), ==, "sysinfo");
  g_assert_cmpint (json_object_get_int_member (obj, "cpu_count"), >=, 1);
  g_assert_true (json_object_has_member (obj, "hostname"));
  g_assert_true (json_object_has_member (obj, "kernel_release"));
  g_assert_true (json_object_has_member (obj, "kernel_version"));
  g_assert_true (json_object_has_member (obj, "mem_total_kb"));
  g_assert_true (json_object_has_member (obj, "preempt_rt"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/frame/help-lists-every-subcommand", test_help_lists_every_subcommand);
  g_test_add_func ("/cli/frame/version", test_version);
  g_test_add_func ("/cli/frame/unknown-subcommand", test_unknown_subcommand);
  g_test_add_func ("/cli/frame/no-arguments", test_no_arguments);
  g_test_add_func ("/cli/frame/unknown-option", test_unknown_option);
  g_test_add_func ("/cli/frame/sysinfo-peer-needs-iface", test_sysinfo_peer_needs_iface);
  g_test_add_func ("/cli/frame/subcommand-help", test_subcommand_help);
  g_test_add_func ("/cli/frame/sysinfo-json", test_sysinfo_json);
  return g_test_run ();
}
