/* test-faults.c — faults Qualify must survive with nothing lost (issue 11, docs/security.md):
 * SIGTERM to `qualify-cli run` during a step with worker processes, a corrupted or truncated
 * session file, and a full disk while saving a session, during a run or writing a report (a small tmpfs this
 * test mounts; root only, skipped otherwise). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli-util.h"
#include "qf-profile.h"
#include "qf-session.h"

static char *
demo_session_path (void)
{
  return g_build_filename (g_getenv ("QUALIFY_DATADIR"), "demo", "demo-pass.session.json", NULL);
}

static JsonObject *
load_session (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "session.json", NULL);
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return qf_test_parse_json (text);
}

static const char *
status_of (JsonObject *session,
           const char *key)
{
  JsonArray *steps = json_object_get_array_member (session, "steps");

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *s = json_array_get_object_element (steps, i);
      if (g_str_equal (json_object_get_string_member (s, "key"), key))
        return json_object_get_string_member (s, "status");
    }
  return "";
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* Names of the entries of dir, sorted, joined by spaces ("" when empty or missing). */
static char *
list_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* Child processes of this process still alive (orphans of qualify-cli are reparented to us:
 * PR_SET_CHILD_SUBREAPER), after reaping zombies. */
static guint
live_children (void)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  g_autofree char *want = g_strdup_printf ("PPid:\t%d\n", (int) getpid ());
  const char *name;
  guint n = 0;

  while (waitpid (-1, NULL, WNOHANG) > 0)
    ;
  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "status", NULL);
      g_autofree char *text = NULL;

      if (g_ascii_isdigit (name[0]) && g_file_get_contents (path, &text, NULL, NULL)
          && strstr (text, want) != NULL)
        {
          g_test_message ("child still alive: pid %s", name);
          n++;
        }
    }
  return n;
}

/* ---- SIGTERM ---------------------------------------------------------------------------- */

static void
test_sigterm_during_stress (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-fault-sigterm-XXXXXX", NULL);
  g_autofree char *tmp = g_build_filename (dir, "tmp", NULL);
  g_autofree char *profile = g_build_filename (dir, "long-stress.json", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "session", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(JsonObject) session = NULL;
  g_autofree char *left_tmp = NULL;
  g_autofree char *left_session = NULL;
  GPid pid;
  int wstatus;
  gboolean running = FALSE;
  gint64 start;

  g_assert_cmpint (g_mkdir (tmp, 0700), ==, 0);
  /* A stress step with CPU, memory and disk workers (fork()ed processes and a scratch file)
   * that would run for a minute. */
  g_assert_true (g_file_set_contents (profile,
    "{\"id\": \"long-stress\", \"version\": 1, \"name\": \"Long stress\", \"description\": \"\","
    " \"network_kind\": \"any\", \"tests\": {\"stress\": {\"params\": {\"cpu\": 1, \"io\": 1,"
    " \"vm\": 1, \"vm_bytes\": \"16M\", \"hdd\": 1, \"hdd_bytes\": \"8M\", \"timeout_s\": 60},"
    " \"criteria\": []}}}", -1, NULL));
  envp = g_environ_setenv (envp, "TMPDIR", tmp, TRUE);
  g_ptr_array_add (argv, (char *) g_getenv ("QUALIFY_CLI"));
  for (const char *const *a = (const char *const[]) { "run", "--profile", profile, "--out", out_dir, NULL };
       *a != NULL; a++)
    g_ptr_array_add (argv, (char *) *a);
  g_ptr_array_add (argv, NULL);
  g_assert_cmpint (prctl (PR_SET_CHILD_SUBREAPER, 1), ==, 0);
  g_spawn_async (dir, (char **) argv->pdata, envp,
                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                 NULL, NULL, &pid, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < 600 && !running; i++)   /* at most 60 s */
    {
      g_autoptr(JsonObject) s = load_session (out_dir);
      running = s != NULL && g_str_equal (status_of (s, "stress"), "running");
      if (waitpid (pid, &wstatus, WNOHANG) == pid)
        g_error ("qualify-cli run ended before the stress step started (status %d)", wstatus);
      if (!running)
        g_usleep (100 * 1000);
    }
  if (!running)
    {
      kill (pid, SIGKILL);
      waitpid (pid, &wstatus, 0);
      g_test_skip ("the stress step did not start within 60 s");
      return;
    }
  g_usleep (1500 * 1000);   /* the workers are up */

  start = g_get_monotonic_time ();
  kill (pid, SIGTERM);
  g_assert_cmpint (waitpid (pid, &wstatus, 0), ==, pid);
  g_test_message ("qualify-cli ended %.2f s after SIGTERM", (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_assert_true (WIFEXITED (wstatus));
  g_assert_cmpint (WEXITSTATUS (wstatus), ==, 2);

  session = load_session (out_dir);
  g_assert_nonnull (session);
  g_assert_cmpstr (json_object_get_string_member (session, "state"), ==, "cancelled");
  g_assert_cmpstr (status_of (session, "stress"), ==, "cancelled");

  /* No worker outlives it (give the kernel a moment to deliver PDEATHSIG), no temp files. */
  for (guint i = 0; i < 50 && live_children () > 0; i++)
    g_usleep (100 * 1000);
  g_assert_cmpuint (live_children (), ==, 0);
  left_tmp = list_dir (tmp);
  g_assert_cmpstr (left_tmp, ==, "");
  left_session = list_dir (out_dir);
  g_test_message ("session folder: %s", left_session);
  g_assert_null (strstr (left_session, ".session.json."));   /* no half-written temp copy */
  g_assert_null (strstr (left_session, "qf-stress"));
  prctl (PR_SET_CHILD_SUBREAPER, 0);
}

/* ---- corrupted and truncated session files ----------------------------------------------- */

/* report, run --resume and run --replay each refuse the file: exit 2, one clear message that
 * names it, no crash, and the damaged file is left exactly as it was. */
static void
check_refused (const char *dir,
               const char *path,
               const char *original,
               gsize       original_len)
{
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *out = NULL, *err = NULL, *after = NULL;
      gsize after_len;
      int rc;

      if (i == 0)
        rc = qf_test_run_cli (&out, &err, "report", dir, "--no-sign", NULL);
      else if (i == 1)
        rc = qf_test_run_cli (&out, &err, "run", "--resume", dir, NULL);
      else
        rc = qf_test_run_cli (&out, &err, "run", "--replay", path, "--speed", "50", NULL);
      g_test_message ("command %u: exit %d, stderr: %s", i, rc, err);
      g_assert_null (strstr (err, "Sanitizer"));
      g_assert_cmpint (rc, ==, 2);
      g_assert_nonnull (strstr (err, "session.json"));
      g_assert_null (strstr (err, "CRITICAL"));
      g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
      g_assert_cmpuint (after_len, ==, original_len);
      g_assert_cmpint (memcmp (after, original, original_len), ==, 0);
    }
}

static void
test_damaged_session (void)
{
  g_autofree char *demo = demo_session_path ();
  g_autofree char *good = NULL;
  gsize good_len;
  const struct { const char *name; gsize keep; const char *garbage; } cases[] = {
    { "truncated-half", 0, NULL },
    { "truncated-to-nothing", 1, NULL },
    { "binary-garbage", 2, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR" },
    { "wrong-types", 2, "{\"format\": \"qualify-session\", \"schema_version\": 1, \"id\": 7,"
                        " \"state\": [], \"profile\": \"x\", \"steps\": {}}" },
  };

  g_assert_true (g_file_get_contents (demo, &good, &good_len, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = g_dir_make_tmp ("qf-fault-damaged-XXXXXX", NULL);
      g_autofree char *path = g_build_filename (dir, "session.json", NULL);
      const char *data = good;
      gsize len = good_len / 2;

      if (cases[i].keep == 1)
        len = 0;
      else if (cases[i].keep == 2)
        {
          data = cases[i].garbage;
          len = strlen (data) + (cases[i].garbage[0] == '\x89' ? 3 : 0);
        }
      g_test_message ("case %s", cases[i].name);
      g_assert_true (g_file_set_contents (path, data, len, NULL));
      check_refused (dir, path, data, len);
    }
}

/* ---- disk full --------------------------------------------------------------------------- */

typedef struct
{
  char *mnt;
  char *filler;
} Tmpfs;

/* Mounts a tmpfs of size_kb on a new directory, or skips the test. */
static gboolean
tmpfs_mount (Tmpfs *t,
             guint  size_kb)
{
  g_autofree char *opts = g_strdup_printf ("size=%uk,mode=0700", size_kb);

  if (geteuid () != 0)
    {
      g_test_skip ("mounting a small tmpfs needs root");
      return FALSE;
    }
  t->mnt = g_dir_make_tmp ("qf-fault-full-XXXXXX", NULL);
  if (mount ("qf-fault-tmpfs", t->mnt, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot mount a tmpfs: %s", g_strerror (errno));
      g_rmdir (t->mnt);
      g_clear_pointer (&t->mnt, g_free);
      g_test_skip (why);
      return FALSE;
    }
  t->filler = g_build_filename (t->mnt, "filler", NULL);
  return TRUE;
}

/* Fills the file system to the last byte. */
static void
tmpfs_fill (Tmpfs *t)
{
  static char block[4096];
  int fd = open (t->filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  while (write (fd, block, sizeof block) > 0)
    ;
  while (write (fd, block, 1) > 0)
    ;
  g_assert_cmpint (errno, ==, ENOSPC);
  close (fd);
}

static void
tmpfs_unmount (Tmpfs *t)
{
  if (t->mnt == NULL)
    return;
  g_assert_cmpint (umount2 (t->mnt, MNT_DETACH), ==, 0);
  g_rmdir (t->mnt);
  g_free (t->mnt);
  g_free (t->filler);
}

static void
test_disk_full_session_save (void)
{
  Tmpfs t = { 0 };
  g_autofree char *demo = demo_session_path ();
  g_autofree char *dir = NULL, *path = NULL, *before = NULL, *after = NULL, *left = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autoptr(GError) error = NULL;
  gsize before_len, after_len;

  if (!tmpfs_mount (&t, 2048))
    return;
  dir = g_build_filename (t.mnt, "session", NULL);
  path = g_build_filename (dir, "session.json", NULL);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_true (g_file_get_contents (demo, &before, &before_len, NULL));
  g_assert_true (g_file_set_contents (path, before, before_len, NULL));

  session = qf_session_load (dir, &error);
  g_assert_no_error (error);
  qf_session_add_note (session, "fault-test", "a note that makes the session change");
  tmpfs_fill (&t);
  g_assert_false (qf_session_save (session, &error));
  g_test_message ("save on a full disk: %s", error->message);
  g_assert_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, g_strerror (ENOSPC)));
  /* the previous copy is intact and no temp file is left */
  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_cmpuint (after_len, ==, before_len);
  g_assert_cmpint (memcmp (after, before, before_len), ==, 0);
  left = list_dir (dir);
  g_assert_cmpstr (left, ==, "session.json");

  /* with space again, the same session saves */
  g_unlink (t.filler);
  g_clear_error (&error);
  g_assert_true (qf_session_save (session, &error));
  g_assert_no_error (error);
  tmpfs_unmount (&t);
}

static void
test_disk_full_report (void)
{
  Tmpfs t = { 0 };
  g_autofree char *demo = demo_session_path ();
  g_autofree char *dir = NULL, *path = NULL, *pdf = NULL, *html = NULL;
  g_autofree char *session_text = NULL, *pdf_before = NULL, *html_before = NULL;
  g_autofree char *out = NULL, *err = NULL, *left = NULL;
  gsize session_len, pdf_len, html_len;
  int rc;

  if (!tmpfs_mount (&t, 8192))
    return;
  dir = g_build_filename (t.mnt, "session", NULL);
  path = g_build_filename (dir, "session.json", NULL);
  pdf = g_build_filename (dir, "report.pdf", NULL);
  html = g_build_filename (dir, "report.html", NULL);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_true (g_file_get_contents (demo, &session_text, &session_len, NULL));
  g_assert_true (g_file_set_contents (path, session_text, session_len, NULL));

  /* A first report fits. */
  rc = qf_test_run_cli (&out, &err, "report", dir, "--no-sign", NULL);
  g_test_message ("first report: exit %d, %s", rc, err);
  g_assert_cmpint (rc, ==, 0);
  g_assert_true (g_file_get_contents (pdf, &pdf_before, &pdf_len, NULL));
  g_assert_true (g_file_get_contents (html, &html_before, &html_len, NULL));

  /* The second one does not: a clear error, and the first report and the session intact. */
  tmpfs_fill (&t);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  rc = qf_test_run_cli (&out, &err, "report", dir, "--no-sign", NULL);
  g_test_message ("report on a full disk: exit %d, stderr: %s", rc, err);
  g_assert_cmpint (rc, ==, 2);
  g_assert_nonnull (strstr (err, "report"));
  g_assert_null (strstr (err, "CRITICAL"));
  {
    g_autofree char *p = NULL, *h = NULL, *s = NULL;
    gsize p_len, h_len, s_len;

    g_assert_true (g_file_get_contents (pdf, &p, &p_len, NULL));
    g_assert_true (g_file_get_contents (html, &h, &h_len, NULL));
    g_assert_true (g_file_get_contents (path, &s, &s_len, NULL));
    g_assert_true (p_len == pdf_len && memcmp (p, pdf_before, pdf_len) == 0);
    g_assert_true (h_len == html_len && memcmp (h, html_before, html_len) == 0);
    g_assert_true (s_len == session_len && memcmp (s, session_text, session_len) == 0);
  }
  left = list_dir (dir);
  g_assert_cmpstr (left, ==, "report.html report.pdf session.json");
  tmpfs_unmount (&t);
}

/* The disk fills while `qualify-cli run` is in its first step: the run stops at the save that
 * fails (the later steps never start), exits 2 naming the cause and the fix, and session.json is
 * the last one saved (first step running, the others pending), whole, with no temp file. */
static void
test_disk_full_during_run (void)
{
  Tmpfs t = { 0 };
  g_autofree char *dir = g_dir_make_tmp ("qf-fault-run-XXXXXX", NULL);
  g_autofree char *profile = g_build_filename (dir, "three-rt.json", NULL);
  g_autofree char *out_dir = NULL, *err = NULL, *left = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) session = NULL;
  gboolean running = FALSE;
  int err_fd, wstatus;
  GPid pid;

  if (!tmpfs_mount (&t, 2048))
    return;
  out_dir = g_build_filename (t.mnt, "session", NULL);
  g_assert_true (g_file_set_contents (profile,
    "{\"id\": \"three-rt\", \"version\": 1, \"name\": \"Three RT\", \"description\": \"\","
    " \"network_kind\": \"any\", \"tests\": {"
    " \"first\": {\"step\": \"rt\", \"params\": {\"loops\": 4000, \"interval_us\": 1000}, \"criteria\": []},"
    " \"second\": {\"step\": \"rt\", \"params\": {\"loops\": 100}, \"criteria\": []},"
    " \"third\": {\"step\": \"rt\", \"params\": {\"loops\": 100}, \"criteria\": []}}}", -1, NULL));
  g_ptr_array_add (argv, (char *) g_getenv ("QUALIFY_CLI"));
  for (const char *const *a = (const char *const[]) { "run", "--profile", profile, "--out", out_dir, NULL };
       *a != NULL; a++)
    g_ptr_array_add (argv, (char *) *a);
  g_ptr_array_add (argv, NULL);
  g_spawn_async_with_pipes (dir, (char **) argv->pdata, NULL,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                            NULL, NULL, &pid, NULL, NULL, &err_fd, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < 600 && !running; i++)   /* at most 30 s */
    {
      g_autoptr(JsonObject) s = load_session (out_dir);
      running = s != NULL && g_str_equal (status_of (s, "first"), "running");
      if (!running)
        g_usleep (50 * 1000);
    }
  if (!running)
    {
      kill (pid, SIGKILL);
      waitpid (pid, &wstatus, 0);
      close (err_fd);
      tmpfs_unmount (&t);
      g_test_skip ("the first rt step did not start within 30 s");
      return;
    }
  tmpfs_fill (&t);
  {
    g_autoptr(GIOChannel) channel = g_io_channel_unix_new (err_fd);
    g_io_channel_set_close_on_unref (channel, TRUE);
    g_io_channel_read_to_end (channel, &err, NULL, &error);
    g_assert_no_error (error);
  }
  g_assert_cmpint (waitpid (pid, &wstatus, 0), ==, pid);
  g_test_message ("stderr:\n%s", err);
  g_assert_true (WIFEXITED (wstatus));
  g_assert_cmpint (WEXITSTATUS (wstatus), ==, 2);
  g_assert_nonnull (strstr (err, g_strerror (ENOSPC)));
  g_assert_nonnull (strstr (err, "--resume"));
  g_assert_nonnull (strstr (err, out_dir));
  g_assert_null (strstr (err, "[2/3]"));   /* the second step never started */
  g_assert_null (strstr (err, "CRITICAL"));

  session = load_session (out_dir);
  g_assert_nonnull (session);
  g_assert_cmpstr (status_of (session, "first"), ==, "running");
  g_assert_cmpstr (status_of (session, "second"), ==, "pending");
  g_assert_cmpstr (status_of (session, "third"), ==, "pending");
  left = list_dir (out_dir);
  g_assert_cmpstr (left, ==, "session.json");
  tmpfs_unmount (&t);
  g_unlink (profile);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data = g_dir_make_tmp ("qf-fault-data-XXXXXX", NULL);

  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/fault/session/damaged-file-refused-and-kept", test_damaged_session);
  g_test_add_func ("/fault/disk-full/session-save-keeps-previous", test_disk_full_session_save);
  g_test_add_func ("/fault/disk-full/report-keeps-previous", test_disk_full_report);
  g_test_add_func ("/fault/disk-full/run-stops-at-first-failed-save", test_disk_full_during_run);
  g_test_add_func ("/fault/run/sigterm-during-stress", test_sigterm_during_stress);
  return g_test_run ();
}
