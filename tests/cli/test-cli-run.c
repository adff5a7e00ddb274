/* test-cli-run.c — `qualify-cli run` and `qualify-cli profiles` as a user runs them (tests/cli):
 * the quick profile end to end against the built-in peer (this VM's kernel is not real-time: the
 * RT FAIL path with advice naming the kernel), a run killed with SIGKILL after its first step that
 * --resume completes, SIGINT cancelling and saving, replay, and the error exits. Steps this build
 * does not have yet are reported "not run" and said so in the test log. */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "cli-util.h"

static JsonObject *
load_session (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "session.json", NULL);
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return qf_test_parse_json (text);
}

static JsonObject *
step (JsonObject *session,
      const char *key)
{
  JsonArray *steps = json_object_get_array_member (session, "steps");

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *s = json_array_get_object_element (steps, i);
      if (g_str_equal (json_object_get_string_member (s, "key"), key))
        return s;
    }
  g_error ("no step %s", key);
  return NULL;
}

static const char *
status_of (JsonObject *session,
           const char *key)
{
  return json_object_get_string_member (step (session, key), "status");
}

static gboolean
has_note (JsonObject *session,
          const char *id)
{
  JsonArray *notes = json_object_get_array_member (session, "notes");

  for (guint i = 0; i < json_array_get_length (notes); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (notes, i), "id"), id))
      return TRUE;
  return FALSE;
}

static gboolean
kernel_is_rt (void)
{
  g_autofree char *text = NULL;

  return g_file_get_contents ("/sys/kernel/realtime", &text, NULL, NULL) && text[0] == '1';
}

/* ---- profiles ----------------------------------------------------------------------------- */

static void
test_profiles_list (void)
{
  g_autofree char *out = NULL;
  g_autoptr(JsonObject) obj = NULL;
  JsonArray *list;
  static const char *const ids[] = { "arcs-wired", "arcs-wired-quick", "arcs-wireless", "arcs-wireless-quick" };

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "profiles", "--json", NULL), ==, 0);
  obj = qf_test_parse_json (out);
  list = json_object_get_array_member (obj, "profiles");
  for (guint k = 0; k < G_N_ELEMENTS (ids); k++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < json_array_get_length (list); i++)
        found |= g_str_equal (json_object_get_string_member (json_array_get_object_element (list, i), "id"), ids[k]);
      g_assert_true (found);
    }
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "profiles", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "arcs-wireless-quick"));
}

static void
test_profiles_show (void)
{
  g_autofree char *out = NULL, *err = NULL, *text = NULL;
  g_autoptr(JsonObject) obj = NULL;
  JsonObject *criterion;

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "profiles", "show", "arcs-wired", "--json", NULL), ==, 0);
  obj = qf_test_parse_json (out);
  criterion = json_array_get_object_element (
    json_object_get_array_member (json_object_get_object_member (json_object_get_object_member (obj, "tests"), "rt"),
                                  "criteria"), 0);
  g_assert_cmpfloat (json_object_get_double_member (criterion, "limit"), ==, 32);

  g_assert_cmpint (qf_test_run_cli (&text, NULL, "profiles", "show", "arcs-wireless", NULL), ==, 0);
  g_assert_nonnull (strstr (text, "4.81 ms"));
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "profiles", "show", "no-such", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "No profile called “no-such”"));
}

static void
test_profiles_check (void)
{
  g_autofree char *bad = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "bad-profiles", "arcs-lab.json", NULL);
  g_autofree char *err = NULL;

  g_assert_cmpint (qf_test_run_cli (NULL, &err, "profiles", "check", bad, NULL), ==, 2);
  g_assert_cmpstr (err, ==,
                   "qualify-cli profiles: arcs-lab.json: tests.rt.criteria[0].limit: expected a number, got \"32us\"\n");
}

/* ---- run: errors -------------------------------------------------------------------------- */

static void
test_run_errors (void)
{
  g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL, *e5 = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("qf-cli-run-errors-XXXXXX", NULL);
  g_autofree char *only_dir = g_build_filename (tmp, "session", NULL);

  g_assert_cmpint (qf_test_run_cli (NULL, &e1, "run", NULL), ==, 2);
  g_assert_nonnull (strstr (e1, "--profile"));
  g_assert_cmpint (qf_test_run_cli (NULL, &e2, "run", "--profile", "no-such", NULL), ==, 2);
  g_assert_nonnull (strstr (e2, "no-such"));
  /* an unknown test is refused before the session's folder is made: nothing is left behind */
  g_assert_cmpint (qf_test_run_cli (NULL, &e3, "run", "--profile", "arcs-wired", "--only", "rt,warp",
                                    "--out", only_dir, NULL), ==, 2);
  g_assert_nonnull (strstr (e3, "warp"));
  g_assert_false (g_file_test (only_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpint (qf_test_run_cli (NULL, &e4, "run", "--replay", "/nonexistent/session.json", NULL), ==, 2);
  g_assert_cmpint (qf_test_run_cli (NULL, &e5, "run", "--profile", "arcs-wired", "--iface", "qf-no-such-if0", NULL), ==, 2);
  g_assert_nonnull (strstr (e5, "qf-no-such-if0"));
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

/* `run --out DIR` never replaces the session (and reports) DIR holds: exit 2, a message naming
 * DIR with --resume, every file left byte for byte and nothing added. */
static void
test_run_out_holds_session (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-out-XXXXXX", NULL);
  g_autofree char *profile = g_build_filename (dir, "short-rt.json", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "session", NULL);
  g_autofree char *session_path = g_build_filename (out_dir, "session.json", NULL);
  g_autofree char *report_path = g_build_filename (out_dir, "report.html", NULL);
  g_autofree char *first = NULL, *err = NULL, *before = NULL, *after = NULL, *report = NULL;
  gsize before_len, after_len, report_len;
  guint n_entries = 0;
  int rc;

  g_assert_true (g_file_set_contents (profile,
    "{\"id\": \"short-rt\", \"version\": 1, \"name\": \"Short RT\", \"description\": \"\", \"network_kind\": \"any\","
    " \"tests\": {\"rt\": {\"params\": {\"loops\": 100}, \"criteria\": []}}}", -1, NULL));
  rc = qf_test_run_cli (NULL, &first, "run", "--profile", profile, "--out", out_dir, "--no-sign", NULL);
  g_test_message ("first run: exit %d\n%s", rc, first);
  g_assert_cmpint (rc, !=, 2);
  g_assert_true (g_file_get_contents (session_path, &before, &before_len, NULL));
  g_assert_true (g_file_get_contents (report_path, &report, &report_len, NULL));

  rc = qf_test_run_cli (NULL, &err, "run", "--profile", profile, "--out", out_dir, "--no-sign", NULL);
  g_test_message ("second run: exit %d\n%s", rc, err);
  g_assert_cmpint (rc, ==, 2);
  g_assert_nonnull (strstr (err, out_dir));
  g_assert_nonnull (strstr (err, "--resume"));
  g_assert_true (g_file_get_contents (session_path, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, before, before_len);
  g_clear_pointer (&after, g_free);
  g_assert_true (g_file_get_contents (report_path, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, report, report_len);
  {
    g_autoptr(GDir) d = g_dir_open (out_dir, 0, NULL);
    while (g_dir_read_name (d) != NULL)
      n_entries++;
  }
  g_assert_cmpuint (n_entries, ==, 3);   /* session.json, report.pdf, report.html */
}

/* ---- run: training with an emulated link -------------------------------------------------- */

static void
test_run_emulate (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-run-XXXXXX", NULL);
  g_autofree char *out = NULL, *err = NULL, *e1 = NULL, *e2 = NULL, *html = NULL, *html_path = NULL;
  g_autoptr(JsonObject) session = NULL;
  JsonObject *training, *latency = NULL;
  JsonArray *steps;
  int rc;

  g_assert_cmpint (qf_test_run_cli (NULL, &e1, "run", "--profile", "arcs-wired", "--peer", "192.0.2.1",
                                    "--emulate", "delay=20", NULL), ==, 2);
  g_assert_nonnull (strstr (e1, "--peer builtin"));
  g_assert_cmpint (qf_test_run_cli (NULL, &e2, "run", "--profile", "arcs-wired", "--peer", "builtin",
                                    "--emulate", "delay=fast", NULL), ==, 2);
  g_assert_nonnull (strstr (e2, "delay=fast"));

  /* every reply held 15–25 ms: the socket latency (half a round trip) is far over 70 µs */
  rc = qf_test_run_cli (&out, &err, "run", "--profile", "arcs-wired", "--quick", "--peer", "builtin",
                        "--only", "latency", "--emulate", "delay=20,jitter=5", "--out", dir, "--no-sign",
                        "--json", NULL);
  g_test_message ("stderr:\n%s", err);
  g_assert_cmpint (rc, ==, 1);
  session = load_session (dir);
  g_assert_nonnull (session);
  training = json_object_get_object_member (session, "training");
  g_assert_nonnull (training);
  g_assert_cmpfloat (json_object_get_double_member (training, "delay_ms"), ==, 20);
  g_assert_cmpfloat (json_object_get_double_member (training, "jitter_ms"), ==, 5);
  steps = json_object_get_array_member (session, "steps");
  for (guint i = 0; i < json_array_get_length (steps); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (steps, i), "key"), "latency"))
      latency = json_object_get_object_member (json_array_get_object_element (steps, i), "result");
  g_assert_nonnull (latency);
  g_assert_cmpfloat (json_object_get_double_member (latency, "avg_us"), >=, 15000 / 2);
  /* the report written beside it says training */
  html_path = g_build_filename (dir, "report.html", NULL);
  g_assert_true (g_file_get_contents (html_path, &html, NULL, NULL));
  g_assert_nonnull (strstr (html, "Training session — not an acceptance report"));
}

/* ---- run: end to end ---------------------------------------------------------------------- */

static void
test_run_quick_builtin (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-run-XXXXXX", NULL);
  g_autofree char *out = NULL, *err = NULL, *replay_out = NULL;
  g_autoptr(JsonObject) summary = NULL;
  g_autoptr(JsonObject) session = NULL;
  g_autoptr(JsonObject) replayed = NULL;
  g_autofree char *session_path = NULL;
  JsonArray *criteria, *advice, *steps;
  const char *overall;
  const char *rt_verdict = NULL;
  int rc;

  rc = qf_test_run_cli (&out, &err, "run", "--profile", "arcs-wired", "--quick", "--peer", "builtin",
                        "--out", dir, "--operator", "Test", "--no-sign", "--json", NULL);
  g_test_message ("stderr:\n%s", err);
  summary = qf_test_parse_json (out);
  overall = json_object_get_string_member (summary, "overall");
  g_assert_cmpint (rc, ==, g_str_equal (overall, "pass") ? 0 : 1);
  g_assert_cmpstr (json_object_get_string_member (summary, "profile"), ==, "arcs-wired-quick");
  g_assert_cmpstr (json_object_get_string_member (summary, "state"), ==, "complete");

  /* every step ended; those this build lacks are "not run" and say so */
  steps = json_object_get_array_member (summary, "steps");
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *s = json_array_get_object_element (steps, i);
      const char *status = json_object_get_string_member (s, "status");

      g_assert_true (g_str_equal (status, "done") || g_str_equal (status, "failed") || g_str_equal (status, "not-run"));
      if (!g_str_equal (status, "done"))
        g_test_message ("step %s: %s — %s", json_object_get_string_member (s, "key"), status,
                        json_object_get_string_member (s, "status_reason"));
    }

  criteria = json_object_get_array_member (summary, "criteria");
  for (guint i = 0; i < json_array_get_length (criteria); i++)
    {
      JsonObject *v = json_array_get_object_element (criteria, i);
      if (g_str_equal (json_object_get_string_member (v, "key"), "rt") &&
          g_str_equal (json_object_get_string_member (v, "metric"), "avg_us"))
        rt_verdict = json_object_get_string_member (v, "verdict");
    }
  g_assert_nonnull (rt_verdict);

  if (g_str_equal (rt_verdict, "not-run"))
    g_test_message ("this build has no rt step yet: the RT FAIL path is not checked");
  else if (kernel_is_rt ())
    g_test_message ("this kernel is PREEMPT_RT: the RT FAIL path is not expected here");
  else
    {
      guint rt_advice = 0, rt_outside = 0;

      /* this machine's kernel is not real-time: Avg is normally above 32 µs (a FAIL), and every
       * real-time figure outside its limit is explained with the kernel first */
      if (g_str_equal (rt_verdict, "fail"))
        {
          g_assert_cmpstr (overall, ==, "fail");
          g_assert_cmpint (rc, ==, 1);
        }
      else
        g_test_message ("the real-time average met 32 µs this time; the FAIL path is checked through the warnings");
      for (guint i = 0; i < json_array_get_length (criteria); i++)
        {
          JsonObject *v = json_array_get_object_element (criteria, i);
          const char *verdict = json_object_get_string_member (v, "verdict");
          if (g_str_equal (json_object_get_string_member (v, "key"), "rt") &&
              (g_str_equal (verdict, "fail") || g_str_equal (verdict, "warn")))
            rt_outside++;
        }
      advice = json_object_get_array_member (summary, "advice");
      for (guint i = 0; i < json_array_get_length (advice); i++)
        {
          JsonObject *a = json_array_get_object_element (advice, i);
          if (!g_str_equal (json_object_get_string_member (a, "key"), "rt"))
            continue;
          g_assert_nonnull (strstr (json_object_get_string_member (a, "text"), "the kernel is not PREEMPT_RT"));
          g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                             json_object_get_array_member (a, "causes"), 0), "id"), ==, "kernel.preempt");
          rt_advice++;
        }
      g_assert_cmpuint (rt_advice, ==, rt_outside);
    }

  /* the session on disk is complete, says the peer was built in, and holds the engines' results */
  session = load_session (dir);
  g_assert_nonnull (session);
  g_assert_cmpstr (json_object_get_string_member (session, "state"), ==, "complete");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (session, "peer"), "kind"), ==, "builtin");
  g_assert_true (has_note (session, "builtin-peer"));
  g_assert_cmpstr (json_object_get_string_member (session, "operator"), ==, "Test");
  /* the reports are written beside it */
  {
    g_autofree char *pdf = g_build_filename (dir, "report.pdf", NULL);
    g_autofree char *html = g_build_filename (dir, "report.html", NULL);
    g_assert_true (g_file_test (pdf, G_FILE_TEST_IS_REGULAR));
    g_assert_true (g_file_test (html, G_FILE_TEST_IS_REGULAR));
  }
  if (g_str_equal (status_of (session, "rt"), "done"))
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (step (session, "rt"), "result"), "test"), ==, "rt");

  /* replay plays it back faster and reaches the same verdict, writing nothing */
  session_path = g_build_filename (dir, "session.json", NULL);
  rc = qf_test_run_cli (&replay_out, NULL, "run", "--replay", session_path, "--speed", "50", "--json", NULL);
  replayed = qf_test_parse_json (replay_out);
  g_assert_cmpstr (json_object_get_string_member (replayed, "overall"), ==, overall);
  g_assert_cmpint (rc, ==, g_str_equal (overall, "pass") ? 0 : 1);
  g_assert_true (json_object_get_null_member (replayed, "session_dir"));
}

/* ---- run: killed, resumed, interrupted ---------------------------------------------------- */

static GPid
spawn_cli (const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GPid pid;

  g_ptr_array_add (argv, (char *) g_getenv ("QUALIFY_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_async (NULL, (char **) argv->pdata, NULL,
                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                 NULL, NULL, &pid, &error);
  g_assert_no_error (error);
  return pid;
}

/* Polls session.json (bounded) until step key has status. */
static gboolean
wait_for_status (const char *dir,
                 const char *key,
                 const char *status,
                 GPid        pid)
{
  for (guint i = 0; i < 600; i++)
    {
      g_autoptr(JsonObject) session = load_session (dir);
      int wstatus;

      if (session != NULL && g_str_equal (status_of (session, key), status))
        return TRUE;
      if (waitpid (pid, &wstatus, WNOHANG) == pid)
        g_error ("qualify-cli ended before step %s was %s", key, status);
      g_usleep (50000);
    }
  return FALSE;
}

static void
test_sigkill_then_resume (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-resume-XXXXXX", NULL);
  const char *args[] = { "run", "--profile", "arcs-wired", "--quick", "--peer", "builtin", "--out", dir,
                         "--only", "rt,latency,cycle", NULL };
  g_autoptr(JsonObject) killed = NULL;
  g_autoptr(JsonObject) resumed = NULL;
  g_autoptr(JsonObject) summary = NULL;
  g_autofree char *started = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const char *first_key;
  GPid pid;
  int wstatus, rc;

  pid = spawn_cli (args);
  /* the first step of the profile is rt; when it is not in this build it ends "not run" at once */
  first_key = "rt";
  if (!wait_for_status (dir, first_key, "done", pid))
    {
      kill (pid, SIGKILL);
      waitpid (pid, &wstatus, 0);
      g_test_skip ("the rt step did not finish in 30 s (not in this build?)");
      return;
    }
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &wstatus, 0), ==, pid);
  g_assert_true (WIFSIGNALED (wstatus));

  /* what SIGKILL left is a whole, valid session with the first step kept */
  killed = load_session (dir);
  g_assert_nonnull (killed);
  g_assert_cmpstr (json_object_get_string_member (killed, "state"), ==, "running");
  g_assert_cmpstr (status_of (killed, "rt"), ==, "done");
  started = g_strdup (json_object_get_string_member (step (killed, "rt"), "started_at"));

  rc = qf_test_run_cli (&out, &err, "run", "--resume", dir, "--only", "rt,latency,cycle", "--json", NULL);
  g_test_message ("resume stderr:\n%s", err);
  g_assert_cmpint (rc, !=, 2);
  summary = qf_test_parse_json (out);
  g_assert_cmpstr (json_object_get_string_member (summary, "state"), ==, "complete");
  resumed = load_session (dir);
  g_assert_cmpstr (json_object_get_string_member (resumed, "state"), ==, "complete");
  g_assert_cmpstr (status_of (resumed, "rt"), ==, "done");
  /* the finished step was kept, not re-run */
  g_assert_cmpstr (json_object_get_string_member (step (resumed, "rt"), "started_at"), ==, started);
  g_assert_true (has_note (resumed, "resumed"));
  g_assert_cmpstr (status_of (resumed, "ping"), ==, "not-run");
  g_assert_cmpstr (status_of (resumed, "latency"), !=, "pending");
  g_assert_cmpstr (status_of (resumed, "latency"), !=, "running");
}

static void
test_sigint_cancels_and_saves (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-sigint-XXXXXX", NULL);
  g_autofree char *profile = g_build_filename (dir, "long-rt.json", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "session", NULL);
  const char *args[] = { "run", "--profile", profile, "--out", out_dir, NULL };
  g_autoptr(JsonObject) session = NULL;
  GPid pid;
  int wstatus;
  gint64 start;

  g_assert_true (g_file_set_contents (profile,
    "{\"id\": \"long-rt\", \"version\": 1, \"name\": \"Long RT\", \"description\": \"\", \"network_kind\": \"any\","
    " \"tests\": {\"rt\": {\"params\": {\"loops\": 1000000}, \"criteria\": []}}}", -1, NULL));
  pid = spawn_cli (args);
  if (!wait_for_status (out_dir, "rt", "running", pid))
    {
      kill (pid, SIGKILL);
      waitpid (pid, &wstatus, 0);
      g_test_skip ("the rt step did not start (not in this build?)");
      return;
    }
  start = g_get_monotonic_time ();
  kill (pid, SIGINT);
  g_assert_cmpint (waitpid (pid, &wstatus, 0), ==, pid);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 3 * G_USEC_PER_SEC);
  g_assert_true (WIFEXITED (wstatus));
  g_assert_cmpint (WEXITSTATUS (wstatus), ==, 2);

  session = load_session (out_dir);
  g_assert_cmpstr (json_object_get_string_member (session, "state"), ==, "cancelled");
  g_assert_cmpstr (status_of (session, "rt"), ==, "cancelled");
}

/* ---- run: names as typed ----------------------------------------------------------------- */

/* qualify-cli ARGS… under the C locale (LANG=C, LC_ALL=C); returns the exit status. */
static int
run_cli_c_locale (char             **err,
                  const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  env = g_environ_setenv (env, "LC_ALL", "C", TRUE);
  env = g_environ_setenv (env, "LANG", "C", TRUE);
  g_ptr_array_add (argv, (char *) g_getenv ("QUALIFY_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_run_names (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-names-XXXXXX", NULL);
  g_autofree char *long_name = g_strnfill (201, 'x');
  g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL;
  const char *cafe[] = { "run", "--profile", "arcs-wired", "--quick", "--peer", "builtin", "--only", "ping",
                         "--operator", "café", "--site", "Halle Süd", "--out", dir, "--no-sign", NULL };
  const char *latin1[] = { "run", "--profile", "arcs-wired", "--operator", "caf\xe9", NULL };
  g_autoptr(JsonObject) session = NULL;
  g_autofree char *pdftotext = NULL;
  int rc;

  /* over 200 characters, or a control character: refused with the option named, nothing made */
  g_assert_cmpint (qf_test_run_cli (NULL, &e1, "run", "--profile", "arcs-wired", "--operator", long_name,
                                    "--out", dir, NULL), ==, 2);
  g_assert_nonnull (strstr (e1, "--operator"));
  g_assert_nonnull (strstr (e1, "200"));
  g_assert_cmpint (qf_test_run_cli (NULL, &e2, "run", "--profile", "arcs-wired", "--site", "Hall\t3",
                                    "--out", dir, NULL), ==, 2);
  g_assert_nonnull (strstr (e2, "--site"));
  {
    g_autofree char *file = g_build_filename (dir, "session.json", NULL);
    g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
  }

  /* UTF-8 names are taken as given under LANG=C */
  rc = run_cli_c_locale (&e3, cafe);
  g_test_message ("LANG=C stderr:\n%s", e3);
  g_assert_cmpint (rc, !=, 2);
  session = load_session (dir);
  g_assert_nonnull (session);
  g_assert_cmpstr (json_object_get_string_member (session, "operator"), ==, "café");
  g_assert_cmpstr (json_object_get_string_member (session, "site"), ==, "Halle Süd");
  /* every test but ping is "NOT RUN", the long "… under load (the idle limit; the procedure sets
   * none)" row among them: the PDF prints each verdict on its row's line, as verify reads it */
  if ((pdftotext = g_find_program_in_path ("pdftotext")) != NULL)
    {
      g_autofree char *pdf = g_build_filename (dir, "report.pdf", NULL);
      g_autofree char *out = NULL;
      g_autoptr(JsonObject) v = NULL;

      qf_test_run_cli (&out, NULL, "verify", "--json", pdf, NULL);
      v = qf_test_parse_json (out);
      g_assert_nonnull (v);
      g_test_message ("%s", json_object_get_string_member_with_default (v, "contents_detail", ""));
      g_assert_true (json_object_get_boolean_member_with_default (v, "contents_match", FALSE));
    }
  /* bytes that are no text in UTF-8 nor in the locale: refused with the option named */
  g_assert_cmpint (run_cli_c_locale (&e4, latin1), ==, 2);
  g_assert_nonnull (strstr (e4, "--operator"));
}

/* ---- run: resume and replay read what report reads ----------------------------------------- */

static char *
file_text (const char *path)
{
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return g_steal_pointer (&text);
}

static void
save_session (const char *dir,
              JsonObject *session)
{
  g_autofree char *path = g_build_filename (dir, "session.json", NULL);
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), session);

  json_generator_set_root (gen, root);
  g_assert_true (json_generator_to_file (gen, path, NULL));
}

/* A session made with --only, interrupted before its test finished, resumed without --only:
 * only the chosen test runs. */
static void
test_resume_only_session (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-cli-resume-only-XXXXXX", NULL);
  g_autofree char *err = NULL;
  g_autoptr(JsonObject) made = NULL;
  g_autoptr(JsonObject) resumed = NULL;
  JsonArray *steps;
  int rc;

  rc = qf_test_run_cli (NULL, NULL, "run", "--profile", "arcs-wired", "--quick", "--peer", "builtin",
                        "--only", "ping", "--out", dir, "--no-sign", NULL);
  g_assert_cmpint (rc, !=, 2);
  /* as if killed while ping ran: the file a SIGKILL leaves */
  made = load_session (dir);
  json_object_set_string_member (made, "state", "running");
  steps = json_object_get_array_member (made, "steps");
  for (guint i = 0; i < json_array_get_length (steps); i++)
    json_object_set_string_member (json_array_get_object_element (steps, i), "status", "pending");
  save_session (dir, made);

  rc = qf_test_run_cli (NULL, &err, "run", "--resume", dir, "--no-sign", NULL);
  g_test_message ("resume stderr:\n%s", err);
  g_assert_cmpint (rc, !=, 2);
  g_assert_nonnull (strstr (err, "1 test left"));
  resumed = load_session (dir);
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      const char *key = json_object_get_string_member (json_array_get_object_element (steps, i), "key");
      g_assert_cmpstr (status_of (resumed, key), ==, g_str_equal (key, "ping") ? "done" : "not-run");
    }
}

/* Each wrong shape refused before any test runs, naming the file and key; the file untouched. */
static void
test_resume_replay_wrong_shape (void)
{
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "sessions", "fail.json", NULL);
  g_autofree char *good = file_text (fixture);
  struct { const char *from; const char *to; const char *named; } cases[] = {
    { "\"steps\": [", "\"steps\": [5, \"x\", ", "“steps[0]”" },
    { "\"notes\": [", "\"notes\": [[\"a list\"], ", "“notes[0]”" },
    { "\"pc\": {", "\"pc\": [1], \"pc_was\": {", "“pc”" },
    { "\"result\": {", "\"result\": \"x\", \"result_was\": {", "“steps[0].result”" },
    { "\"schema_version\": 1", "\"schema_version\": 99999999999999999999", "“schema_version”" },
    { "\"operator\": \"", "\"operator\": \"\\u0000", "“operator”" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = g_dir_make_tmp ("qf-cli-shape-XXXXXX", NULL);
      g_autofree char *path = g_build_filename (dir, "session.json", NULL);
      g_auto(GStrv) parts = g_strsplit (good, cases[i].from, 2);
      g_autofree char *text = NULL, *after = NULL, *e1 = NULL, *e2 = NULL;

      g_assert_cmpuint (g_strv_length (parts), ==, 2);
      text = g_strconcat (parts[0], cases[i].to, parts[1], NULL);
      /* resumable: not complete */
      {
        g_auto(GStrv) state = g_strsplit (text, "\"state\": \"complete\"", 2);
        g_free (text);
        text = g_strjoinv ("\"state\": \"running\"", state);
      }
      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      g_assert_cmpint (qf_test_run_cli (NULL, &e1, "run", "--resume", dir, NULL), ==, 2);
      g_assert_nonnull (strstr (e1, path));
      g_assert_nonnull (strstr (e1, cases[i].named));
      g_assert_null (strchr (strchr (e1, '\n') + 1, '\n'));
      g_assert_cmpint (qf_test_run_cli (NULL, &e2, "run", "--replay", path, "--speed", "1000", NULL), ==, 2);
      g_assert_nonnull (strstr (e2, cases[i].named));
      after = file_text (path);
      g_assert_cmpstr (after, ==, text);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data = g_dir_make_tmp ("qf-cli-run-data-XXXXXX", NULL);

  /* Sessions of these runs (and the comparison with earlier ones) stay in a private folder. */
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/profiles/list", test_profiles_list);
  g_test_add_func ("/cli/profiles/show", test_profiles_show);
  g_test_add_func ("/cli/profiles/check", test_profiles_check);
  g_test_add_func ("/cli/run/errors", test_run_errors);
  g_test_add_func ("/cli/run/out-holds-a-session", test_run_out_holds_session);
  g_test_add_func ("/cli/run/quick-builtin-end-to-end", test_run_quick_builtin);
  g_test_add_func ("/cli/run/emulate-training", test_run_emulate);
  g_test_add_func ("/cli/run/sigkill-then-resume", test_sigkill_then_resume);
  g_test_add_func ("/cli/run/sigint-cancels-and-saves", test_sigint_cancels_and_saves);
  g_test_add_func ("/cli/run/names", test_run_names);
  g_test_add_func ("/cli/run/resume-only-session", test_resume_only_session);
  g_test_add_func ("/cli/run/resume-replay-wrong-shape", test_resume_replay_wrong_shape);
  return g_test_run ();
}
