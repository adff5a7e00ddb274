/* test-cli-rt.c — `qualify-cli rt` and the audit in `sysinfo --json` (tests/cli): every --json
 * key is there and consistent, the text ends in cyclictest's line format, cyclictest's options
 * work as written, SIGINT stops a run with its figures, and a run without real-time rights says
 * "valid": false with the reason. Short runs; nothing depends on the machine's speed. */
#include "config.h"

#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli-util.h"
#include "../qf-test-time.h"
#include "../core/qf-test-release.h"

static JsonObject *
run_json (const char *first_arg,
          ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status;
  va_list args;

  g_ptr_array_add (argv, (char *) g_getenv ("QUALIFY_CLI"));
  va_start (args, first_arg);
  for (const char *a = first_arg; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("qualify-cli failed: %s", err);
  return qf_test_parse_json (out);
}

static gboolean
can_fifo (void)
{
  struct sched_param param = { .sched_priority = 1 };
  int policy;
  struct sched_param old;
  gboolean ok;

  pthread_getschedparam (pthread_self (), &policy, &old);
  ok = pthread_setschedparam (pthread_self (), SCHED_FIFO, &param) == 0;
  pthread_setschedparam (pthread_self (), policy, &old);
  return ok;
}

static void
assert_result_consistent (JsonObject *obj,
                          gint64      expected_cycles)
{
  const char *keys[] = {
    "test", "policy", "priority", "valid", "reason", "cycles", "min_us", "avg_us", "max_us",
    "p50_us", "p99_us", "p999_us", "overruns", "threads", "histogram", "dma_latency_held",
  };
  JsonObject *hist;
  JsonArray *buckets, *counts, *threads;
  gint64 total = 0, thread_cycles = 0;
  gdouble min_us, avg_us, max_us;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (!json_object_has_member (obj, keys[i]))
      g_error ("--json lacks “%s”", keys[i]);
  g_assert_cmpstr (json_object_get_string_member (obj, "test"), ==, "rt");
  g_assert_cmpint (json_object_get_int_member (obj, "cycles"), ==, expected_cycles);

  min_us = json_object_get_double_member (obj, "min_us");
  avg_us = json_object_get_double_member (obj, "avg_us");
  max_us = json_object_get_double_member (obj, "max_us");
  g_assert_cmpfloat (min_us, <=, avg_us + 0.01);   /* avg is rounded to 0.01 µs */
  g_assert_cmpfloat (avg_us, <=, max_us + 0.01);
  g_assert_cmpfloat (min_us, <=, json_object_get_double_member (obj, "p50_us") + 1);
  g_assert_cmpfloat (json_object_get_double_member (obj, "p50_us"), <=,
                     json_object_get_double_member (obj, "p99_us"));
  g_assert_cmpfloat (json_object_get_double_member (obj, "p99_us"), <=,
                     json_object_get_double_member (obj, "p999_us"));
  g_assert_cmpfloat (json_object_get_double_member (obj, "p999_us"), <=, max_us);

  hist = json_object_get_object_member (obj, "histogram");
  buckets = json_object_get_array_member (hist, "bucket_us");
  counts = json_object_get_array_member (hist, "count");
  g_assert_cmpuint (json_array_get_length (buckets), ==, json_array_get_length (counts));
  for (guint i = 0; i < json_array_get_length (counts); i++)
    {
      total += json_array_get_int_element (counts, i);
      if (i > 0)
        g_assert_cmpint (json_array_get_int_element (buckets, i), >,
                         json_array_get_int_element (buckets, i - 1));
    }
  total += json_object_get_int_member (hist, "overflow");
  g_assert_cmpint (total, ==, expected_cycles);

  threads = json_object_get_array_member (obj, "threads");
  g_assert_cmpuint (json_array_get_length (threads), >=, 1);
  for (guint i = 0; i < json_array_get_length (threads); i++)
    {
      JsonObject *t = json_array_get_object_element (threads, i);
      g_assert_true (json_object_has_member (t, "cpu"));
      g_assert_cmpfloat (json_object_get_double_member (t, "min_us"), <=,
                         json_object_get_double_member (t, "max_us"));
      g_assert_cmpfloat (json_object_get_double_member (t, "avg_us"), <=,
                         json_object_get_double_member (t, "max_us") + 0.01);
      g_assert_cmpfloat (json_object_get_double_member (t, "max_us"), <=, max_us);
      thread_cycles += json_object_get_int_member (t, "cycles");
    }
  g_assert_cmpint (thread_cycles, ==, expected_cycles);
}

static void
test_json_keys (void)
{
  g_autoptr(JsonObject) obj = run_json ("rt", "--loops", "300", "--interval-us", "500", "--json",
                                        NULL);

  assert_result_consistent (obj, 300);
  if (can_fifo ())
    {
      g_assert_true (json_object_get_boolean_member (obj, "valid"));
      g_assert_cmpstr (json_object_get_string_member (obj, "reason"), ==, "");
      g_assert_cmpstr (json_object_get_string_member (obj, "policy"), ==, "SCHED_FIFO");
      g_assert_cmpint (json_object_get_int_member (obj, "priority"), ==, 99);
    }
}

/* The procedure's command line, as written for cyclictest, with values attached or apart. */
static void
test_cyclictest_options (void)
{
  g_autoptr(JsonObject) obj = run_json ("rt", "-m", "-n", "-q", "-t2", "-p90", "-i", "700",
                                        "-l200", "--json", NULL);
  JsonArray *threads = json_object_get_array_member (obj, "threads");

  assert_result_consistent (obj, 400);
  g_assert_cmpuint (json_array_get_length (threads), ==, 2);
  g_assert_cmpint (json_object_get_int_member (obj, "interval_us"), ==, 700);
  g_assert_cmpint (json_object_get_int_member (obj, "priority_requested"), ==, 90);
  for (guint i = 0; i < 2; i++)
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (threads, i),
                                                 "cycles"), ==, 200);
}

static void
test_cyclictest_line (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GRegex) regex = NULL;
  const char *last;
  guint n;

  g_assert_cmpint (qf_test_run_cli (&out, &err, "rt", "-m", "-t1", "-p", "99", "-i", "1000",
                                    "-l", "200", "-q", NULL), ==, 0);
  lines = g_strsplit (g_strchomp (out), "\n", -1);
  n = g_strv_length (lines);
  g_assert_cmpuint (n, >=, 1);
  last = lines[n - 1];
  /* "T:%2d (%5d) P:%2d I:%ld C:%7lu Min:%7ld Act:%5ld Avg:%5ld Max:%8ld", cyclictest's format */
  regex = g_regex_new ("^T: 0 \\([ 0-9]{5,}\\) P:[ 0-9]{2,} I:1000 C:    200 Min:[ 0-9]{7,} "
                       "Act:[ 0-9]{5,} Avg:[ 0-9]{5,} Max:[ 0-9]{8,}$", 0, 0, NULL);
  if (!g_regex_match (regex, last, 0, NULL))
    g_error ("not cyclictest's format: “%s”", last);
  for (guint i = 0; i + 1 < n; i++)
    g_assert_true (g_str_has_prefix (lines[i], "#"));
}

static void
test_pinned_cpus (void)
{
  g_autoptr(JsonObject) obj = NULL;
  JsonArray *threads;

  if (sysconf (_SC_NPROCESSORS_ONLN) < 2)
    {
      g_test_skip ("needs two online CPUs");
      return;
    }
  obj = run_json ("rt", "--cpus", "0-1", "-l", "100", "--json", NULL);
  threads = json_object_get_array_member (obj, "threads");
  assert_result_consistent (obj, 200);
  for (guint i = 0; i < 2; i++)
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (threads, i),
                                                 "cpu"), ==, i);
}

static void
test_errors (void)
{
  const char *cases[][4] = {
    { "--priority", "100", NULL, "100" },
    { "--cpus", "x", NULL, "x" },
    { "--threads", "2", "--cpus=0", "--cpus" },
    { "--interval-us", "0", NULL, "0" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (qf_test_run_cli (&out, &err, "rt", cases[i][0], cases[i][1], cases[i][2],
                                        NULL), ==, 2);
      g_assert_cmpstr (out, ==, "");
      g_assert_true (g_str_has_prefix (err, "qualify-cli rt: "));
      g_assert_nonnull (strstr (err, cases[i][3]));
      /* One line saying what happened (a GOption error adds the “--help” hint line). */
      g_assert_true (g_str_has_suffix (err, "\n"));
    }
}

/* Waits (at most 30 s) until process pid catches signal sig, as /proc/PID/status's SigCgt
 * mask says: before that, the signal would kill it instead of stopping its run. */
static void
wait_catches (GPid pid,
              int  sig)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);

  for (guint i = 0; i < 3000; i++)
    {
      g_autofree char *status = NULL;
      const char *line;

      if (g_file_get_contents (path, &status, NULL, NULL)
          && (line = strstr (status, "\nSigCgt:")) != NULL
          && (g_ascii_strtoull (line + 8, NULL, 16) >> (sig - 1) & 1))
        return;
      g_usleep (10 * 1000);
    }
  g_error ("process %d did not install its handler of signal %d within 30 s", (int) pid, sig);
}

/* SIGINT ends an endless run promptly, and the figures so far are printed, as cyclictest does. */
static void
test_sigint_stops (void)
{
  const char *argv[] = { g_getenv ("QUALIFY_CLI"), "rt", "-l", "0", "--json", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GIOChannel) channel = NULL;
  g_autoptr(JsonObject) obj = NULL;
  GPid pid;
  int out_fd, status;
  gint64 sent_us;

  g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &pid, NULL, &out_fd, NULL, &error);
  g_assert_no_error (error);
  wait_catches (pid, SIGINT);
  g_usleep (400 * 1000);
  sent_us = g_get_monotonic_time ();
  kill (pid, SIGINT);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  /* 100 ms + one interval is the engine's bound; process exit and a loaded CPU get the rest. */
  g_assert_cmpint (g_get_monotonic_time () - sent_us, <,
                   (gint64) (qf_test_s (1.0) * G_USEC_PER_SEC));
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  channel = g_io_channel_unix_new (out_fd);
  g_io_channel_set_close_on_unref (channel, TRUE);
  g_io_channel_read_to_end (channel, &out, NULL, &error);
  g_assert_no_error (error);
  obj = qf_test_parse_json (out);
  g_assert_true (json_object_get_boolean_member (obj, "stopped_early"));
  g_assert_cmpint (json_object_get_int_member (obj, "cycles"), >, 0);
  assert_result_consistent (obj, json_object_get_int_member (obj, "cycles"));
}

/* Runs in the child between fork and exec: no real-time rights at all. */
static void
drop_rt_rights (gpointer data)
{
  struct rlimit none = { 0, 0 };
  struct passwd *nobody = data;

  setrlimit (RLIMIT_RTPRIO, &none);
  if (nobody != NULL)
    {
      if (setgroups (0, NULL) != 0 || setgid (nobody->pw_gid) != 0 || setuid (nobody->pw_uid) != 0)
        _exit (99);
    }
}

/* Without CAP_SYS_NICE and with RLIMIT_RTPRIO 0 the run still measures, asks rtkit (here: no
 * system bus, so it cannot answer) and marks the result invalid with the reason. */
static void
test_unprivileged_is_invalid (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-rt-nobody-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (dir, "qualify-cli", NULL);
  g_autofree char *cli = NULL, *why = NULL;
  const char *argv[] = { NULL, "rt", "-l", "100", "--json", NULL };
  g_autofree char *bus = g_strdup_printf ("unix:path=/nonexistent/qf-rt-%d", (int) getpid ());
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "DBUS_SYSTEM_BUS_ADDRESS", bus, TRUE);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonObject) obj = NULL;
  struct passwd *nobody = getuid () == 0 ? getpwnam ("nobody") : NULL;
  int status;

  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  if (getuid () == 0 && nobody == NULL)
    why = g_strdup ("needs user “nobody”");
  else
    cli = getuid () == 0 ? qf_test_cli_for_others (dir, &why) : g_strdup (g_getenv ("QUALIFY_CLI"));
  if (cli == NULL)
    {
      g_rmdir (dir);
      g_test_skip (why);
      return;
    }
  argv[0] = cli;
  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, drop_rt_rights, nobody, &out, &err,
                &status, &error);
  g_unlink (copy);
  g_rmdir (dir);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  obj = qf_test_parse_json (out);
  assert_result_consistent (obj, 100);
  g_assert_false (json_object_get_boolean_member (obj, "valid"));
  g_assert_nonnull (strstr (json_object_get_string_member (obj, "reason"),
                            "without real-time priority"));
  g_assert_nonnull (strstr (json_object_get_string_member (obj, "reason"), "rtkit"));
  g_assert_cmpstr (json_object_get_string_member (obj, "policy"), ==, "SCHED_OTHER");
  g_assert_cmpint (json_object_get_int_member (obj, "priority"), ==, 0);
  g_assert_false (json_object_get_boolean_member (obj, "dma_latency_held"));
  g_assert_nonnull (strstr (err, "without real-time priority"));
}

static gboolean
spawn_async (const char **argv,
             char       **envp,
             GPid        *pid)
{
  g_autoptr(GError) error = NULL;

  if (!g_spawn_async (NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD |
                      G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, pid,
                      &error))
    {
      g_test_message ("cannot start %s: %s", argv[0], error->message);
      return FALSE;
    }
  return TRUE;
}

static void
stop_child (GPid pid)
{
  if (pid <= 0)
    return;
  kill (pid, SIGTERM);
  waitpid (pid, NULL, 0);
  g_spawn_close_pid (pid);
}

/* Unprivileged, with rtkit on a private system bus (python-dbusmock playing rtkit-daemon, as
 * root, really changing the thread's policy): the run asks rtkit, gets SCHED_RR at rtkit's
 * maximum priority, and is valid. The mock refuses unless RLIMIT_RTTIME was set as rtkit
 * demands. */
static void
test_rtkit_grants (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-rt-rtkit-XXXXXX", NULL);
  g_autofree char *socket_path = NULL, *address = NULL, *conf = NULL, *conf_path = NULL;
  g_autofree char *mock = g_test_build_filename (G_TEST_DIST, "cli", "rtkit-mock.py", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) obj = NULL;
  g_auto(GStrv) envp = NULL;
  struct passwd *nobody = getpwnam ("nobody");
  g_autofree char *gdbus = NULL;
  g_autofree char *cli = NULL, *why = NULL;
  g_autofree char *copy = g_build_filename (dir, "qualify-cli", NULL);
  GPid bus_pid = 0, mock_pid = 0;
  int status = 0;

  g_assert_nonnull (dir);
  g_chmod (dir, 0755);
  if (getuid () != 0 || nobody == NULL)
    {
      g_rmdir (dir);
      g_test_skip ("needs root (the rtkit stand-in changes a thread's policy) and user nobody");
      return;
    }
  cli = qf_test_cli_for_others (dir, &why);
  if (cli == NULL)
    {
      g_rmdir (dir);
      g_test_skip (why);
      return;
    }
  if (!g_file_test ("/usr/bin/dbus-daemon", G_FILE_TEST_IS_EXECUTABLE) ||
      (gdbus = g_find_program_in_path ("gdbus")) == NULL ||
      !g_spawn_command_line_sync ("/usr/bin/python3 -c 'import dbusmock'", NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("needs dbus-daemon, gdbus and python3-dbusmock");
      g_unlink (copy);
      g_rmdir (dir);
      return;
    }
  socket_path = g_build_filename (dir, "system_bus_socket", NULL);
  address = g_strdup_printf ("unix:path=%s", socket_path);
  conf_path = g_build_filename (dir, "bus.conf", NULL);
  conf = g_strdup_printf ("<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                          " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                          "<busconfig><type>system</type><listen>%s</listen><auth>EXTERNAL</auth>\n"
                          "<policy context=\"default\"><allow user=\"*\"/><allow own=\"*\"/>"
                          "<allow send_destination=\"*\"/><allow receive_sender=\"*\"/></policy>"
                          "</busconfig>\n", address);
  g_assert_true (g_file_set_contents (conf_path, conf, -1, NULL));
  envp = g_environ_setenv (g_get_environ (), "DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);

  {
    const char *bus_argv[] = { "/usr/bin/dbus-daemon", "--config-file", conf_path, "--nofork",
                               "--nopidfile", NULL };
    const char *mock_argv[] = { "/usr/bin/python3", "-m", "dbusmock", "--system", "--template",
                                mock, NULL };
    const char *wait_argv[] = { "gdbus", "wait", "--system", "--timeout", "10",
                                "org.freedesktop.RealtimeKit1", NULL };
    const char *cli_argv[] = { cli, "rt", "-l", "100", "--json", NULL };

    g_assert_true (spawn_async (bus_argv, envp, &bus_pid));
    for (guint i = 0; i < 100 && !g_file_test (socket_path, G_FILE_TEST_EXISTS); i++)
      g_usleep (50 * 1000);
    g_assert_true (g_file_test (socket_path, G_FILE_TEST_EXISTS));
    g_assert_true (spawn_async (mock_argv, envp, &mock_pid));
    g_spawn_sync (NULL, (char **) wait_argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                  &status, &error);
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));

    g_spawn_sync (NULL, (char **) cli_argv, envp, G_SPAWN_DEFAULT, drop_rt_rights, nobody, &out,
                  &err, &status, &error);
  }
  stop_child (mock_pid);
  stop_child (bus_pid);
  g_unlink (conf_path);
  g_unlink (socket_path);
  g_unlink (copy);
  g_rmdir (dir);

  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("qualify-cli rt failed: %s", err);
  obj = qf_test_parse_json (out);
  assert_result_consistent (obj, 100);
  if (!json_object_get_boolean_member (obj, "valid"))
    g_error ("rtkit did not grant: %s", json_object_get_string_member (obj, "reason"));
  g_assert_true (json_object_get_boolean_member (obj, "rtkit"));
  g_assert_cmpstr (json_object_get_string_member (obj, "policy"), ==, "SCHED_RR");
  g_assert_cmpint (json_object_get_int_member (obj, "priority"), ==, 20);   /* rtkit's maximum */
  g_assert_cmpint (json_object_get_int_member (obj, "priority_requested"), ==, 99);
}

static void
test_sysinfo_checks (void)
{
  g_autofree char *root = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "stock-desktop", NULL);
  g_autoptr(JsonObject) obj = run_json ("sysinfo", "--json", "--root", root, NULL);
  JsonArray *checks = json_object_get_array_member (obj, "checks");
  gboolean saw_governor = FALSE;

  g_assert_nonnull (checks);
  g_assert_cmpuint (json_array_get_length (checks), >=, 20);
  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      const char *keys[] = { "id", "value", "status", "advice" };

      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        g_assert_true (json_object_has_member (check, keys[k]));
      if (g_str_equal (json_object_get_string_member (check, "id"), "cpu.governor"))
        {
          saw_governor = TRUE;
          g_assert_cmpstr (json_object_get_string_member (check, "status"), ==, "warn");
        }
    }
  g_assert_true (saw_governor);
}

/* sysinfo says which release the PC runs, in its text and its --json, and its kernel advice is
 * that release's. */
static void
test_sysinfo_release (void)
{
  const QfTestRelease *release = qf_test_release ("resolute");
  char *root = qf_test_release_root ("stock-desktop", release);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonObject) obj = NULL;
  JsonObject *os;

  g_assert_cmpint (qf_test_run_cli (&out, &err, "sysinfo", "--root", root, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Release:"));
  g_assert_nonnull (strstr (out, "Ubuntu 26.04.1 LTS (resolute)"));
  g_assert_nonnull (strstr (out, "sudo apt install linux-realtime"));
  obj = run_json ("sysinfo", "--json", "--root", root, NULL);
  os = json_object_get_object_member (obj, "os");
  g_assert_nonnull (os);
  g_assert_cmpstr (json_object_get_string_member (os, "id"), ==, "ubuntu");
  g_assert_cmpstr (json_object_get_string_member (os, "version_id"), ==, "26.04");
  g_assert_cmpstr (json_object_get_string_member (os, "codename"), ==, "resolute");
  qf_test_release_root_free (root);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/rt/json-keys", test_json_keys);
  g_test_add_func ("/cli/rt/cyclictest-options", test_cyclictest_options);
  g_test_add_func ("/cli/rt/cyclictest-line", test_cyclictest_line);
  g_test_add_func ("/cli/rt/pinned-cpus", test_pinned_cpus);
  g_test_add_func ("/cli/rt/errors", test_errors);
  g_test_add_func ("/cli/rt/sigint-stops", test_sigint_stops);
  g_test_add_func ("/cli/rt/unprivileged-is-invalid", test_unprivileged_is_invalid);
  g_test_add_func ("/cli/rt/rtkit-grants", test_rtkit_grants);
  g_test_add_func ("/cli/sysinfo/checks", test_sysinfo_checks);
  g_test_add_func ("/cli/sysinfo/release", test_sysinfo_release);

  return g_test_run ();
}
