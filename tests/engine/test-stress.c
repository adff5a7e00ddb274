/* test-stress.c — the stressors start, load, stop and leave nothing behind; safety limits refuse
 * with the numbers; a cancel ends a run within 1 s; a stepped load raises the worker count.
 * Loads are tiny (MiB, under a second each): these check behaviour, not speed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/magic.h>
#include <signal.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-stress.h"
#include "../qf-test-time.h"

/* The engine's default hdd directory is the temp dir unless that is a tmpfs (RAM). */
static gboolean
temp_dir_is_ram (void)
{
  struct statfs sf;

  return statfs (g_get_tmp_dir (), &sf) == 0
         && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
}

static gboolean
pid_alive (gint pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *text = NULL;

  /* A zombie still answers kill(0); read its state instead. */
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  return strstr (text, ") Z ") == NULL;
}

typedef struct
{
  QfStress *stress;
  GArray   *pids;
} TickData;

static void
collect_pids (gdouble  elapsed_s,
              gdouble  fraction,
              gpointer user_data)
{
  TickData *td = user_data;
  g_autoptr(GArray) pids = qf_stress_get_pids (td->stress);

  (void) elapsed_s;
  (void) fraction;
  for (guint i = 0; i < pids->len; i++)
    {
      gboolean known = FALSE;
      for (guint j = 0; j < td->pids->len; j++)
        known |= g_array_index (td->pids, gint, j) == g_array_index (pids, gint, i);
      if (!known)
        g_array_append_val (td->pids, g_array_index (pids, gint, i));
    }
}

static guint
count_entries (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static void
run_one (const QfStressConfig *config,
         const QfStressResult **out,
         QfStress             **out_stress)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint));
  QfStress *stress = qf_stress_new (config, &error);
  TickData td = { stress, pids };
  const QfStressResult *r;

  g_assert_no_error (error);
  g_assert_true (qf_stress_run (stress, NULL, collect_pids, &td, &error));
  g_assert_no_error (error);
  r = qf_stress_get_result (stress);
  g_assert_false (r->cancelled);
  g_assert_cmpfloat (r->duration_s, >=, config->timeout_s);
  g_assert_cmpfloat (r->duration_s, <, config->timeout_s + qf_test_s (2.0));
  g_assert_cmpuint (pids->len, ==, config->cpu + config->io + config->vm + config->hdd);
  for (guint i = 0; i < pids->len; i++)
    g_assert_false (pid_alive (g_array_index (pids, gint, i)));
  *out = r;
  *out_stress = stress;
}

/* Each run lasts long enough (scaled for slow builds, tests/qf-test-time.h) that its workers are
 * forked, ticked and at work before it ends, however slowly fork runs. */
static void
test_each_kind (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-stress-XXXXXX", NULL);
  const QfStressResult *r;
  QfStress *s;

  {
    QfStressConfig c = { .cpu = 1, .timeout_s = qf_test_s (0.3) };
    run_one (&c, &r, &s);
    g_assert_cmpuint (r->cpu_loops, >, 0);
    g_assert_cmpuint (r->bytes_written, ==, 0);
    qf_stress_free (s);
  }
  {
    QfStressConfig c = { .io = 1, .timeout_s = qf_test_s (0.3) };
    run_one (&c, &r, &s);
    g_assert_cmpuint (r->io_syncs, >, 0);
    qf_stress_free (s);
  }
  {
    QfStressConfig c = { .vm = 1, .vm_bytes = 8 << 20, .vm_hang_s = -1,
                         .timeout_s = qf_test_s (0.3) };
    run_one (&c, &r, &s);
    g_assert_cmpuint (r->vm_bytes_touched, >=, 8 << 20);
    g_assert_cmpuint (r->vm_bytes_touched % (8 << 20), ==, 0);
    qf_stress_free (s);
  }
  {
    QfStressConfig c = { .hdd = 1, .hdd_bytes = 4 << 20, .dir = dir, .timeout_s = qf_test_s (0.3) };
    run_one (&c, &r, &s);
    g_assert_cmpuint (r->bytes_written, >, 0);
    g_assert_nonnull (r->hdd_mode);
    g_assert_cmpstr (r->hdd_dir, ==, dir);
    qf_stress_free (s);
    /* The files were unnamed or unlinked at once: nothing is left. */
    g_assert_cmpuint (count_entries (dir), ==, 0);
  }
  if (!temp_dir_is_ram ())
  {
    /* Default directory: the temp dir itself (main() gives the test its own, on a disk), with
     * no folder of our own that a SIGKILL could leave behind. */
    QfStressConfig c = { .hdd = 1, .hdd_bytes = 1 << 20, .timeout_s = qf_test_s (0.2) };
    guint before = count_entries (g_get_tmp_dir ());
    run_one (&c, &r, &s);
    g_assert_cmpuint (r->bytes_written, >, 0);
    g_assert_cmpstr (r->hdd_dir, ==, g_get_tmp_dir ());
    g_assert_cmpuint (count_entries (g_get_tmp_dir ()), ==, before);
    qf_stress_free (s);
    g_assert_cmpuint (count_entries (g_get_tmp_dir ()), ==, before);
  }
  g_rmdir (dir);
}

static gint cancel_flag;

static gpointer
cancel_later (gpointer data)
{
  (void) data;
  g_usleep (200000);
  g_atomic_int_set (&cancel_flag, 1);
  return GINT_TO_POINTER (1);
}

static void
test_cancel (void)
{
  g_autoptr(GError) error = NULL;
  /* No io worker here: one inside sync() ends only when the kernel returns from it, which on a
   * machine busy writing can take longer than a second. */
  QfStressConfig c = { .cpu = 1, .vm = 1, .vm_bytes = 4 << 20, .vm_hang_s = 0, .hdd = 1,
                       .hdd_bytes = 1 << 20, .timeout_s = 0 };
  g_autoptr(QfStress) stress = qf_stress_new (&c, &error);
  GThread *thread;
  gint64 t0;
  const QfStressResult *r;

  g_assert_no_error (error);
  g_atomic_int_set (&cancel_flag, 0);
  thread = g_thread_new ("cancel", cancel_later, NULL);
  t0 = qf_clock_now_ns ();
  g_assert_true (qf_stress_run (stress, &cancel_flag, NULL, NULL, &error));
  g_thread_join (thread);
  r = qf_stress_get_result (stress);
  g_assert_true (r->cancelled);
  /* Cancel came after 0.2 s; the run must be over (workers reaped) within 1 s of it. */
  g_assert_cmpint (qf_clock_now_ns () - t0, <, qf_test_ns (1200 * QF_NSEC_PER_MSEC));
}

static void
test_start_stop (void)
{
  g_autoptr(GError) error = NULL;
  QfStressConfig c = { .cpu = 2, .io = 1 };
  g_autoptr(QfStress) stress = qf_stress_new (&c, &error);
  g_autoptr(GArray) pids = NULL;

  g_assert_no_error (error);
  g_assert_true (qf_stress_start (stress, &error));
  pids = qf_stress_get_pids (stress);
  g_assert_cmpuint (pids->len, ==, 3);
  g_usleep (50000);
  g_assert_true (qf_stress_poll (stress, &error));
  for (guint i = 0; i < pids->len; i++)
    g_assert_true (pid_alive (g_array_index (pids, gint, i)));
  qf_stress_stop (stress);
  qf_stress_stop (stress);
  for (guint i = 0; i < pids->len; i++)
    g_assert_false (pid_alive (g_array_index (pids, gint, i)));
}

static void
test_worker_dies (void)
{
  g_autoptr(GError) error = NULL;
  QfStressConfig c = { .cpu = 1 };
  g_autoptr(QfStress) stress = qf_stress_new (&c, &error);
  g_autoptr(GArray) pids = NULL;
  gboolean ok = TRUE;

  g_assert_true (qf_stress_start (stress, &error));
  pids = qf_stress_get_pids (stress);
  kill (g_array_index (pids, gint, 0), SIGKILL);
  for (guint i = 0; i < 100 && ok; i++)
    {
      g_usleep (10000);
      ok = qf_stress_poll (stress, &error);
    }
  g_assert_false (ok);
  g_assert_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_WORKER);
  g_assert_nonnull (strstr (error->message, "cpu"));
}

static void
test_stepped (void)
{
  g_autoptr(GError) error = NULL;
  QfStressConfig c = { .cpu = 2, .io = 1, .steps = 2, .timeout_s = 0.6 };
  g_autoptr(QfStress) stress = qf_stress_new (&c, &error);
  const QfStressResult *r;
  const QfStressStep *s0, *s1;

  g_assert_no_error (error);
  g_assert_true (qf_stress_run (stress, NULL, NULL, NULL, &error));
  r = qf_stress_get_result (stress);
  g_assert_cmpuint (r->steps->len, ==, 2);
  s0 = &g_array_index (r->steps, QfStressStep, 0);
  s1 = &g_array_index (r->steps, QfStressStep, 1);
  g_assert_cmpuint (s0->cpu, ==, 1);
  g_assert_cmpuint (s0->io, ==, 1);
  g_assert_cmpuint (s1->cpu, ==, 2);
  g_assert_cmpint (s0->end_ns, ==, s1->start_ns);
  g_assert_cmpint (s1->start_ns - r->start_ns, >=, 300 * QF_NSEC_PER_MSEC);
  g_assert_cmpint (s1->end_ns, ==, r->end_ns);

  /* Stepping needs a timeout to divide. */
  c.timeout_s = 0;
  g_assert_null (qf_stress_new (&c, &error) /* leaks nothing on failure */);
  g_assert_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_INVALID);
}

static void
test_memory_limit (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("qf-stress-root-XXXXXX", NULL);
  g_autofree char *procdir = g_build_filename (root, "proc", NULL);
  g_autofree char *meminfo = g_build_filename (procdir, "meminfo", NULL);
  QfStressConfig c = { .vm = 2, .vm_bytes = 300 << 20, .timeout_s = 1, .root = root };
  QfStress *stress;

  g_assert_cmpint (g_mkdir (procdir, 0755), ==, 0);
  /* 1000 MiB of RAM, 500 MiB available: the margin is 100 MiB, so 400 MiB may be used. */
  g_assert_true (g_file_set_contents (meminfo,
                                      "MemTotal:        1024000 kB\n"
                                      "MemFree:          400000 kB\n"
                                      "MemAvailable:     512000 kB\n", -1, NULL));
  stress = qf_stress_new (&c, &error);
  g_assert_null (stress);
  g_assert_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_MEMORY);
  g_test_message ("%s", error->message);
  /* g_format_size() puts a no-break space before the unit. */
  g_assert_nonnull (strstr (error->message, "600.0"));
  g_assert_nonnull (strstr (error->message, "2 × 300.0"));
  g_assert_nonnull (strstr (error->message, "500.0"));
  g_assert_nonnull (strstr (error->message, "100.0"));
  g_assert_nonnull (strstr (error->message, "400.0"));
  g_assert_nonnull (strstr (error->message, "--vm-bytes"));

  g_clear_error (&error);
  c.vm = 1;   /* 300 MiB fits in 400 */
  stress = qf_stress_new (&c, &error);
  g_assert_no_error (error);
  qf_stress_free (stress);

  g_unlink (meminfo);
  g_rmdir (procdir);
  g_rmdir (root);
}

static void
test_disk_limits (void)
{
  g_autoptr(GError) error = NULL;
  QfStressConfig c = { .hdd = 1, .hdd_bytes = G_GUINT64_CONSTANT (1) << 60, .timeout_s = 1 };
  g_autofree char *dir = g_dir_make_tmp ("qf-stress-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "plain-file", NULL);

  c.dir = dir;
  g_assert_null (qf_stress_new (&c, &error));
  g_assert_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_DISK);
  g_assert_nonnull (strstr (error->message, "Not enough free space"));
  g_assert_nonnull (strstr (error->message, dir));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  c.dir = file;
  c.hdd_bytes = 1 << 20;
  g_assert_null (qf_stress_new (&c, &error));
  g_assert_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_DISK);
  g_assert_nonnull (strstr (error->message, "not a directory"));
  g_clear_error (&error);

  /* /proc is not a place to write files, whoever we are. */
  c.dir = "/proc";
  g_assert_null (qf_stress_new (&c, &error));
  g_assert_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_DISK);
  g_assert_nonnull (strstr (error->message, "Cannot write in /proc"));
  g_clear_error (&error);

  g_unlink (file);
  g_rmdir (dir);
}

/* What killed runs may leave in the hdd directory is removed by the next run, and only that:
 * a named fallback file of a dead PID (a crash between its creation and its unlink), and the
 * "qualify-stress-PID-*" folder earlier versions made. A live PID's items and any other name
 * stay. */
static void
test_stale_dir_cleaned (void)
{
  g_autoptr(GError) error = NULL;
  const char *base = g_get_tmp_dir ();
  QfStressConfig c = { .hdd = 1, .hdd_bytes = 1 << 20, .timeout_s = 0.1 };
  QfStress *stress;
  pid_t dead = fork ();
  struct { const char *prefix, *suffix; gboolean live, folder, stays; } items[] = {
    { "qualify-stress-", "-TEST01", FALSE, TRUE, FALSE },
    { ".qf-hdd-", "-0", FALSE, FALSE, FALSE },
    { ".qf-hdd-probe-", "", FALSE, FALSE, FALSE },
    { "qualify-stress-", "-TEST02", TRUE, TRUE, TRUE },
    { ".qf-hdd-", "-1", TRUE, FALSE, TRUE },
    { "qf-hdd-", "-0", FALSE, FALSE, TRUE },      /* not our name */
  };
  char *paths[G_N_ELEMENTS (items)];

  if (dead == 0)
    _exit (0);
  if (temp_dir_is_ram ())
    {
      waitpid (dead, NULL, 0);
      g_test_skip ("the temp dir is a tmpfs, so the disk load goes to /var/tmp");
      return;
    }
  g_assert_cmpint (waitpid (dead, NULL, 0), ==, dead);
  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      paths[i] = g_strdup_printf ("%s/%s%d%s", base, items[i].prefix,
                                  items[i].live ? (int) getppid () : (int) dead, items[i].suffix);
      if (items[i].folder)
        g_assert_cmpint (g_mkdir (paths[i], 0700), ==, 0);
      else
        g_assert_true (g_file_set_contents (paths[i], "", 0, NULL));
    }

  stress = qf_stress_new (&c, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      g_test_message ("%s", paths[i]);
      g_assert_cmpint (g_file_test (paths[i], G_FILE_TEST_EXISTS), ==, items[i].stays);
      if (items[i].folder)
        g_rmdir (paths[i]);
      else
        g_unlink (paths[i]);
      g_free (paths[i]);
    }
  qf_stress_free (stress);
}

static void
test_parse (void)
{
  guint64 b;
  gdouble s;

  g_assert_true (qf_stress_parse_size ("1G", &b));
  g_assert_cmpuint (b, ==, G_GUINT64_CONSTANT (1) << 30);
  g_assert_true (qf_stress_parse_size ("256M", &b));
  g_assert_cmpuint (b, ==, 256 << 20);
  g_assert_true (qf_stress_parse_size ("3GiB", &b));
  g_assert_cmpuint (b, ==, G_GUINT64_CONSTANT (3) << 30);
  g_assert_true (qf_stress_parse_size ("4096", &b));
  g_assert_cmpuint (b, ==, 4096);
  g_assert_false (qf_stress_parse_size ("lots", &b));
  g_assert_false (qf_stress_parse_size ("1Q", &b));
  g_assert_true (qf_stress_parse_duration ("100s", &s));
  g_assert_cmpfloat (s, ==, 100.0);
  g_assert_true (qf_stress_parse_duration ("2m", &s));
  g_assert_cmpfloat (s, ==, 120.0);
  g_assert_true (qf_stress_parse_duration ("1.5", &s));
  g_assert_cmpfloat (s, ==, 1.5);
  g_assert_false (qf_stress_parse_duration ("-1", &s));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *tmpdir = g_strdup ("/var/tmp/qf-test-stress-XXXXXX");
  int status;

  /* Default directories go below a temp dir of the test's own. */
  g_assert_nonnull (g_mkdtemp (tmpdir));
  g_setenv ("TMPDIR", tmpdir, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/stress/each-kind-starts-and-stops", test_each_kind);
  g_test_add_func ("/engine/stress/cancel-within-1s", test_cancel);
  g_test_add_func ("/engine/stress/start-poll-stop", test_start_stop);
  g_test_add_func ("/engine/stress/worker-dies", test_worker_dies);
  g_test_add_func ("/engine/stress/stepped", test_stepped);
  g_test_add_func ("/engine/stress/memory-limit", test_memory_limit);
  g_test_add_func ("/engine/stress/disk-limits", test_disk_limits);
  g_test_add_func ("/engine/stress/stale-dir-cleaned", test_stale_dir_cleaned);
  g_test_add_func ("/engine/stress/parse", test_parse);
  status = g_test_run ();
  g_rmdir (tmpdir);
  return status;
}
