/* test-cli-stress.c — `qualify-cli stress` and `monitor` as a user runs them: the --json object's
 * keys, the procedure's stress lines accepted as written, SIGKILL of the CLI leaves no worker
 * and no file behind, SIGTERM ends a run without timeout with the figures so far, the memory
 * safety refusal names the numbers, a full or read-only directory gives a clear error. Loads
 * are tiny (a few MiB, about a second). */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli-util.h"

static void
assert_members (JsonObject  *obj,
                const char **keys)
{
  for (guint i = 0; keys[i] != NULL; i++)
    if (!json_object_has_member (obj, keys[i]))
      g_error ("missing member “%s”", keys[i]);
}

static void
check_monitor (JsonObject *monitor,
               guint       min_samples)
{
  const char *summary_keys[] = { "cpu_busy_avg_pct", "cpu_busy_max_pct", "iowait_max_pct",
                                 "load1_max", "mem_available_min_kb", "disk_util_max_pct",
                                 "cpu_idle_min_pct", "load1_max_per_cpu", "await_steady_rise_pct",
                                 "await_slope_ms_per_s", NULL };
  const char *sample_keys[] = { "t_s", "cpu_busy_pct", "cpu_iowait_pct", "load1",
                                "mem_available_kb", "disks", "nets", NULL };
  JsonArray *samples = json_object_get_array_member (monitor, "samples");
  gdouble prev_t = 0;

  assert_members (json_object_get_object_member (monitor, "summary"), summary_keys);
  g_assert_cmpuint (json_array_get_length (samples), >=, min_samples);
  for (guint i = 0; i < json_array_get_length (samples); i++)
    {
      JsonObject *s = json_array_get_object_element (samples, i);
      JsonArray *nets = json_object_get_array_member (s, "nets");
      JsonArray *disks = json_object_get_array_member (s, "disks");

      assert_members (s, sample_keys);
      g_assert_cmpfloat (json_object_get_double_member (s, "t_s"), >, prev_t);
      prev_t = json_object_get_double_member (s, "t_s");
      g_assert_cmpfloat (json_object_get_double_member (s, "cpu_busy_pct"), <=, 100.0);
      for (guint k = 0; k < json_array_get_length (nets); k++)
        {
          const char *keys[] = { "name", "rx_kBps", "tx_kBps", NULL };
          assert_members (json_array_get_object_element (nets, k), keys);
        }
      for (guint k = 0; k < json_array_get_length (disks); k++)
        {
          const char *keys[] = { "name", "util_pct", "r_kbps", "w_kbps", "await_ms", NULL };
          assert_members (json_array_get_object_element (disks, k), keys);
        }
    }
}

static void
test_stress_json (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-stress-XXXXXX", NULL);
  g_autoptr(JsonObject) obj = NULL;
  JsonObject *workers;
  const char *keys[] = { "test", "workers", "duration_s", "bytes_written", "monitor", "rules",
                         "steps", "first_broken_step", NULL };
  int status;

  /* The procedure's second stress line, scaled down, written as stress takes it. */
  status = qf_test_run_cli (&out, &err, "stress", "-c", "1", "-i", "1", "--vm", "1",
                            "--vm-bytes", "8M", "--vm-hang", "1", "-d", "1", "--hdd-bytes", "2M",
                            "--dir", dir, "--timeout", "1s", "--monitor-interval", "0.2",
                            "--json", NULL);
  g_assert_cmpstr (err, ==, "");
  g_assert_cmpint (status, ==, 0);
  obj = qf_test_parse_json (out);
  assert_members (obj, keys);
  g_assert_cmpstr (json_object_get_string_member (obj, "test"), ==, "stress");
  workers = json_object_get_object_member (obj, "workers");
  g_assert_cmpint (json_object_get_int_member (workers, "cpu"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (workers, "io"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (workers, "vm"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (workers, "hdd"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (obj, "vm_bytes"), ==, 8 << 20);
  g_assert_cmpfloat (json_object_get_double_member (obj, "duration_s"), >=, 1.0);
  g_assert_cmpint (json_object_get_int_member (obj, "bytes_written"), >, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (obj, "rules")), ==, 5);
  check_monitor (json_object_get_object_member (obj, "monitor"), 2);
  /* Nothing left in the directory. */
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    g_assert_null (g_dir_read_name (d));
  }
  g_rmdir (dir);
}

static void
test_monitor_json (void)
{
  g_autofree char *out = NULL;
  g_autoptr(JsonObject) obj = NULL;
  int status = qf_test_run_cli (&out, NULL, "monitor", "--duration", "0.5", "--interval", "0.1",
                                "--json", NULL);

  g_assert_cmpint (status, ==, 0);
  obj = qf_test_parse_json (out);
  g_assert_cmpstr (json_object_get_string_member (obj, "test"), ==, "monitor");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (obj, "workers"), "cpu"), ==, 0);
  check_monitor (json_object_get_object_member (obj, "monitor"), 2);
}

static gboolean
pid_alive (gint pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  return strstr (text, ") Z ") == NULL;
}

/* PIDs of the processes whose parent is ppid. */
static GArray *
children_of (gint ppid)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (gint));
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *text = NULL;
      const char *close;
      gint pid = atoi (name), parent = 0;

      if (pid <= 0)
        continue;
      path = g_strdup_printf ("/proc/%s/stat", name);
      if (!g_file_get_contents (path, &text, NULL, NULL) || (close = strrchr (text, ')')) == NULL)
        continue;
      if (sscanf (close + 2, "%*c %d", &parent) == 1 && parent == ppid)
        g_array_append_val (pids, pid);
    }
  return pids;
}

/* Starts qualify-cli ARGS, with TMPDIR=tmpdir when it is not NULL. */
static GPid
spawn_cli_in (const char **args,
              const char  *tmpdir)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_get_environ ();
  GPid pid;

  if (tmpdir != NULL)
    envp = g_environ_setenv (envp, "TMPDIR", tmpdir, TRUE);
  g_ptr_array_add (argv, (char *) g_getenv ("QUALIFY_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_async (NULL, (char **) argv->pdata, envp,
                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                 NULL, NULL, &pid, &error);
  g_assert_no_error (error);
  return pid;
}

static GPid
spawn_cli (const char **args)
{
  return spawn_cli_in (args, NULL);
}

/* SIGKILL of the CLI during a load with every kind of worker: no worker survives and the disk
 * load leaves no entry at all in its directory: --dir, or with default_dir the temp dir (made
 * below /var/tmp, which is where the load goes when the temp dir is a tmpfs). */
static void
sigkill_leaves_nothing (gboolean default_dir)
{
  g_autofree char *dir = g_strdup ("/var/tmp/qf-cli-stress-XXXXXX");
  const char *args[] = { "stress", "--cpu", "1", "--io", "1", "--vm", "1", "--vm-bytes", "4M",
                         "--hdd", "1", "--hdd-bytes", "2M", "--timeout", "30", "--dir", dir,
                         NULL };
  g_autoptr(GArray) workers = NULL;
  GPid pid;
  int status;

  g_assert_nonnull (g_mkdtemp (dir));
  if (default_dir)
    args[G_N_ELEMENTS (args) - 3] = NULL;   /* no --dir */
  pid = spawn_cli_in (args, default_dir ? dir : NULL);

  /* Wait (at most 5 s) until the four workers run. */
  for (guint i = 0; i < 100; i++)
    {
      g_clear_pointer (&workers, g_array_unref);
      workers = children_of (pid);
      if (workers->len >= 4)
        break;
      g_usleep (50000);
    }
  g_assert_cmpuint (workers->len, ==, 4);

  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));

  /* PR_SET_PDEATHSIG: the kernel kills every worker with the parent; allow 2 s for the reaping. */
  for (guint i = 0; i < 40; i++)
    {
      gboolean any = FALSE;
      for (guint k = 0; k < workers->len; k++)
        any |= pid_alive (g_array_index (workers, gint, k));
      if (!any)
        break;
      g_usleep (50000);
    }
  for (guint k = 0; k < workers->len; k++)
    g_assert_false (pid_alive (g_array_index (workers, gint, k)));
  /* The disk worker's files were unnamed or unlinked at once, and had no folder of their own. */
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *left = g_dir_read_name (d);
    g_assert_cmpstr (left, ==, NULL);
  }
  g_rmdir (dir);
}

static void
test_sigkill_leaves_nothing (void)
{
  sigkill_leaves_nothing (FALSE);
}

static void
test_sigkill_default_dir_leaves_nothing (void)
{
  sigkill_leaves_nothing (TRUE);
}

static void
test_sigterm_stops (void)
{
  const char *args[] = { "stress", "--cpu", "1", NULL };
  GPid pid = spawn_cli (args);
  gint64 t0;
  int status;

  /* Once the worker runs, the CLI's signal handlers are in place (they come first). */
  for (guint i = 0; i < 100; i++)
    {
      g_autoptr(GArray) workers = children_of (pid);
      if (workers->len >= 1)
        break;
      g_usleep (50000);
    }
  t0 = g_get_monotonic_time ();
  kill (pid, SIGTERM);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  /* A stop by signal is the user's choice: exit 0 with the figures so far. The engine stops its
   * workers within 1 s (tests/engine); allow the process 2 s to print and exit on a busy box. */
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
}

static void
test_vm_refusal (void)
{
  g_autofree char *root = g_dir_make_tmp ("qf-cli-root-XXXXXX", NULL);
  g_autofree char *procdir = g_build_filename (root, "proc", NULL);
  g_autofree char *meminfo = g_build_filename (procdir, "meminfo", NULL);
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;
  int status;

  g_assert_cmpint (g_mkdir (procdir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (meminfo,
                                      "MemTotal:        2048000 kB\n"
                                      "MemFree:         1000000 kB\n"
                                      "MemAvailable:    1024000 kB\n", -1, NULL));
  status = qf_test_run_cli (&out, &err, "stress", "--vm", "10", "--vm-bytes", "1G",
                            "--vm-hang", "100", "--timeout", "100s", "--root", root, "--json",
                            NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_test_message ("%s", err);
  g_assert_true (g_str_has_prefix (err, "qualify-cli stress: A memory load of 10.0"));
  g_assert_nonnull (strstr (err, "10 × 1.0"));
  g_assert_nonnull (strstr (err, "1000.0"));   /* available */
  g_assert_nonnull (strstr (err, "200.0"));    /* the 10 % margin */
  g_assert_nonnull (strstr (err, "800.0"));    /* what is left */
  g_assert_nonnull (strstr (err, "--vm-bytes"));
  g_assert_cmpuint (strlen (err) - 1, ==, strcspn (err, "\n"));   /* one line */

  g_unlink (meminfo);
  g_rmdir (procdir);
  g_rmdir (root);
}

static void
test_full_dir (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-stress-XXXXXX", NULL);
  g_autofree char *err = NULL;
  gboolean mounted = mount ("tmpfs", dir, "tmpfs", 0, "size=1m") == 0;
  int status;

  /* On a 1 MiB tmpfs (as root) or, failing that, on the temp dir's disk, a load larger than the
   * free space is refused before anything is written. */
  status = qf_test_run_cli (NULL, &err, "stress", "-d", "1", "--hdd-bytes",
                            mounted ? "4M" : "1000T", "--dir", dir, "--timeout", "1", NULL);
  if (mounted)
    umount (dir);
  g_assert_cmpint (status, ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "Not enough free space in"));
  g_assert_nonnull (strstr (err, dir));
  g_assert_nonnull (strstr (err, "--hdd-bytes"));
  g_rmdir (dir);
}

static void
test_readonly_dir (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-stress-XXXXXX", NULL);
  g_autofree char *err = NULL;
  int status;

  if (mount ("tmpfs", dir, "tmpfs", MS_RDONLY, "size=1m") != 0)
    {
      if (geteuid () == 0)
        {
          g_test_skip ("cannot mount a read-only tmpfs here (no CAP_SYS_ADMIN)");
          g_rmdir (dir);
          return;
        }
      g_assert_cmpint (g_chmod (dir, 0555), ==, 0);   /* not root: permissions suffice */
    }
  status = qf_test_run_cli (NULL, &err, "stress", "-d", "1", "--hdd-bytes", "64k", "--dir", dir,
                            "--timeout", "1", NULL);
  umount (dir);
  g_test_message ("%s", err);
  g_assert_cmpint (status, ==, 2);
  g_assert_nonnull (strstr (err, "Cannot write in"));
  g_assert_nonnull (strstr (err, dir));
  g_assert_nonnull (strstr (err, "--dir"));
  g_chmod (dir, 0755);
  g_rmdir (dir);
}

static void
test_bad_arguments (void)
{
  g_autofree char *err = NULL;
  g_autofree char *err2 = NULL;

  g_assert_cmpint (qf_test_run_cli (NULL, &err, "stress", "--timeout", "1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--cpu"));
  g_assert_cmpint (qf_test_run_cli (NULL, &err2, "stress", "--vm", "1", "--vm-bytes", "lots", NULL),
                   ==, 2);
  g_assert_nonnull (strstr (err2, "lots"));
}

static void
test_rt_under_load (void)
{
  g_autofree char *out = NULL;
  g_autoptr(JsonObject) obj = NULL;
  JsonObject *ul;
  int status = qf_test_run_cli (&out, NULL, "rt", "-l", "300", "--cpu", "1", "--vm", "1",
                                "--vm-bytes", "4M", "--json", NULL);

  g_assert_cmpint (status, ==, 0);
  obj = qf_test_parse_json (out);
  g_assert_cmpstr (json_object_get_string_member (obj, "test"), ==, "rt");
  ul = json_object_get_object_member (obj, "under_load");
  g_assert_nonnull (ul);
  g_assert_true (json_object_get_boolean_member (ul, "complete"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ul, "workers"), "cpu"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ul, "workers"), "vm"), ==, 1);
  g_assert_cmpfloat (json_object_get_double_member (ul, "duration_s"), >, 0.0);
  g_assert_true (json_object_has_member (json_object_get_object_member (json_object_get_object_member (ul, "monitor"), "summary"),
                                         "cpu_busy_avg_pct"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (ul, "rules")), ==, 5);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/stress/json", test_stress_json);
  g_test_add_func ("/cli/stress/monitor-json", test_monitor_json);
  g_test_add_func ("/cli/stress/sigkill-leaves-nothing", test_sigkill_leaves_nothing);
  g_test_add_func ("/cli/stress/sigkill-default-dir-leaves-nothing",
                   test_sigkill_default_dir_leaves_nothing);
  g_test_add_func ("/cli/stress/sigterm-stops", test_sigterm_stops);
  g_test_add_func ("/cli/stress/vm-refusal", test_vm_refusal);
  g_test_add_func ("/cli/stress/full-dir", test_full_dir);
  g_test_add_func ("/cli/stress/readonly-dir", test_readonly_dir);
  g_test_add_func ("/cli/stress/bad-arguments", test_bad_arguments);
  g_test_add_func ("/cli/stress/rt-under-load", test_rt_under_load);
  return g_test_run ();
}
