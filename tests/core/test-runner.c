/* test-runner.c — the runner drives real registered steps on its own thread: events arrive in
 * order on the main context, cancel ends the step within 1 s and saves it cancelled, skip and
 * --only mark steps, an unknown step is "not run", and replay re-emits a recording (tests/core).
 * Uses the rt step with short runs; skipped when this build has no rt step. */
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "qf-builtin-peer.h"
#include "qf-clock.h"
#include "qf-json.h"
#include "qf-report.h"
#include "qf-runner.h"
#include "qf-step.h"
#include "../qf-test-time.h"

#define PROFILE_TEXT \
  "{\"id\": \"runner-test\", \"version\": 1, \"name\": \"Runner test\", \"description\": \"\"," \
  " \"network_kind\": \"any\", \"tests\": {" \
  "  \"first\": {\"step\": \"rt\", \"params\": {\"loops\": %d, \"interval_us\": 1000}," \
  "             \"criteria\": [{\"metric\": \"avg_us\", \"label\": \"Average latency\", \"comparison\": \"<=\"," \
  "                            \"limit\": 1000000, \"unit\": \"µs\", \"role\": \"decides\"}]}," \
  "  \"missing\": {\"step\": \"no-such-step\", \"criteria\": []}," \
  "  \"second\": {\"step\": \"rt\", \"params\": {\"loops\": 50, \"interval_us\": 1000}, \"criteria\": []}}}"

typedef struct
{
  GMainLoop *loop;
  GString   *order;
  guint      progress;
  guint      samples;
  gint64     last_sample_ns;
  gboolean   samples_ordered;
  gboolean   finished;
  gboolean   cancelled;
  gint64     finished_ns;
  gint       cancel_at_start;   /* cancel when this step starts (-1: never) */
  gint       skip_at_start;
  gint       break_dir_at_start;   /* make saving fail when this step starts (-1: never) */
  QfRunner  *runner;
} Trace;

static gboolean
cancel_later (gpointer data)
{
  Trace *trace = data;
  qf_runner_cancel (trace->runner);
  return G_SOURCE_REMOVE;
}

static gboolean
skip_later (gpointer data)
{
  Trace *trace = data;
  qf_runner_skip (trace->runner, (guint) trace->skip_at_start);
  return G_SOURCE_REMOVE;
}

/* From now on nothing can be saved in dir, even as root: the folder moves to dir.kept and a
 * plain file takes its name. */
static void
break_session_dir (const char *dir)
{
  g_autofree char *kept = g_strconcat (dir, ".kept", NULL);

  g_assert_cmpint (g_rename (dir, kept), ==, 0);
  g_assert_true (g_file_set_contents (dir, "not a folder", -1, NULL));
}

static void
on_started (QfRunner *runner, guint index, Trace *trace)
{
  g_string_append_printf (trace->order, "s%u ", index);
  if ((gint) index == trace->cancel_at_start)
    g_timeout_add (300, cancel_later, trace);
  if ((gint) index == trace->skip_at_start)
    g_timeout_add (300, skip_later, trace);
  if ((gint) index == trace->break_dir_at_start)
    break_session_dir (qf_session_get_dir (qf_runner_get_session (runner)));
}

static void
on_progress (QfRunner *runner, guint index, gdouble fraction, gdouble eta, JsonObject *live, Trace *trace)
{
  g_assert_cmpfloat (fraction, >=, 0);
  g_assert_cmpfloat (fraction, <=, 1);
  g_assert_cmpfloat (eta, >=, 0);
  trace->progress++;
}

static void
on_samples (QfRunner *runner, guint index, gpointer data, guint n, Trace *trace)
{
  const QfSample *samples = data;

  for (guint i = 0; i < n; i++)
    {
      if (samples[i].t_ns < trace->last_sample_ns)
        trace->samples_ordered = FALSE;
      trace->last_sample_ns = samples[i].t_ns;
    }
  trace->samples += n;
}

static void
on_finished_step (QfRunner *runner, guint index, Trace *trace)
{
  g_string_append_printf (trace->order, "f%u ", index);
}

static void
on_finished (QfRunner *runner, gboolean cancelled, Trace *trace)
{
  trace->finished = TRUE;
  trace->cancelled = cancelled;
  trace->finished_ns = qf_clock_now_ns ();
  g_main_loop_quit (trace->loop);
}

static gboolean
timeout_fail (gpointer data)
{
  g_error ("the runner did not finish in time");
  return G_SOURCE_REMOVE;
}

static void
run (QfRunner *runner,
     Trace    *trace)
{
  g_autoptr(GError) error = NULL;
  guint timeout;

  trace->loop = g_main_loop_new (NULL, FALSE);
  trace->order = g_string_new (NULL);
  trace->samples_ordered = TRUE;
  trace->runner = runner;
  g_signal_connect (runner, "step-started", G_CALLBACK (on_started), trace);
  g_signal_connect (runner, "progress", G_CALLBACK (on_progress), trace);
  g_signal_connect (runner, "samples", G_CALLBACK (on_samples), trace);
  g_signal_connect (runner, "step-finished", G_CALLBACK (on_finished_step), trace);
  g_signal_connect (runner, "finished", G_CALLBACK (on_finished), trace);
  g_assert_true (qf_runner_start (runner, &error));
  g_assert_no_error (error);
  timeout = g_timeout_add_seconds (60, timeout_fail, NULL);
  g_main_loop_run (trace->loop);
  g_source_remove (timeout);
  g_signal_handlers_disconnect_by_data (runner, trace);
  g_main_loop_unref (trace->loop);
}

static QfSession *
new_session (int         first_loops,
             const char *dir)
{
  g_autofree char *text = g_strdup_printf (PROFILE_TEXT, first_loops);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = qf_profile_load_data (text, -1, "runner-test.json", &error);
  QfSession *session;

  g_assert_no_error (error);
  session = qf_session_new (profile);
  if (dir != NULL)
    g_assert_true (qf_session_set_dir (session, dir, &error));
  g_assert_no_error (error);
  return session;
}

/* FALSE (the test skipped) when this build has no step called test. */
static gboolean
have_step (const char *test)
{
  g_autofree char *why = g_strdup_printf ("this build has no %s step yet", test);

  if (qf_step_lookup (test) != NULL)
    return TRUE;
  g_test_skip (why);
  return FALSE;
}

static gboolean
have_rt (void)
{
  return have_step ("rt");
}

/* Runs a new session of PROFILE_TEXT (saved in dir unless NULL) to its end; FALSE (skipped)
 * when this build has no rt step. */
static gboolean
run_new_session (Trace       *trace,
                 int          first_loops,
                 const char  *dir,
                 QfSession  **session,
                 QfRunner   **runner)
{
  if (!have_rt ())
    return FALSE;
  *session = new_session (first_loops, dir);
  *runner = qf_runner_new (*session);
  run (*runner, trace);
  g_assert_true (trace->finished);
  return TRUE;
}

static void
test_runs_in_order (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-runner-XXXXXX", NULL);
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfSession) saved = NULL;
  g_autoptr(QfRunner) runner = NULL;
  Trace trace = { .cancel_at_start = -1, .skip_at_start = -1, .break_dir_at_start = -1 };

  if (!run_new_session (&trace, 300, dir, &session, &runner))
    return;
  g_assert_false (trace.cancelled);
  /* step 1 is not in this build: finished without starting, in its place */
  g_assert_cmpstr (trace.order->str, ==, "s0 f0 f1 s2 f2 ");
  g_assert_cmpint (qf_session_get_step_status (session, 0), ==, QF_STEP_STATUS_DONE);
  g_assert_cmpint (qf_session_get_step_status (session, 1), ==, QF_STEP_STATUS_NOT_RUN);
  g_assert_nonnull (strstr (qf_json_get_string (qf_session_get_step (session, 1), "status_reason", ""), "no-such-step"));
  g_assert_cmpint (qf_session_get_step_status (session, 2), ==, QF_STEP_STATUS_DONE);
  g_assert_cmpuint (trace.progress, >, 0);
  g_assert_cmpuint (trace.samples, >, 0);
  g_assert_true (trace.samples_ordered);
  g_assert_cmpstr (qf_session_get_state (session), ==, "complete");
  /* what was saved is what the session holds */
  saved = qf_session_load (dir, NULL);
  g_assert_nonnull (saved);
  g_assert_cmpint (qf_session_get_step_status (saved, 2), ==, QF_STEP_STATUS_DONE);
  g_assert_cmpstr (qf_session_get_state (saved), ==, "complete");
  g_assert_nonnull (qf_json_get_object (qf_session_get_step (saved, 0), "samples"));
  g_assert_cmpint (qf_session_get_overall (saved, NULL), ==, QF_OVERALL_PASS);
  g_string_free (trace.order, TRUE);

  /* replay of the recording: same events, same verdicts, nothing written */
  {
    g_autoptr(QfRunner) replay = qf_runner_new_replay (saved, 20);
    Trace again = { .cancel_at_start = -1, .skip_at_start = -1, .break_dir_at_start = -1 };

    run (replay, &again);
    g_assert_true (again.finished);
    g_assert_cmpstr (again.order->str, ==, "s0 f0 f1 s2 f2 ");
    g_assert_cmpuint (again.progress, >, 0);
    g_assert_cmpuint (again.samples, >, 0);
    g_assert_cmpint (qf_session_get_overall (qf_runner_get_session (replay), NULL), ==, QF_OVERALL_PASS);
    g_assert_null (qf_session_get_dir (qf_runner_get_session (replay)));
    g_string_free (again.order, TRUE);
  }
}

static void
test_cancel_within_a_second (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-runner-XXXXXX", NULL);
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfSession) saved = NULL;
  g_autoptr(QfRunner) runner = NULL;
  Trace trace = { .cancel_at_start = 0, .skip_at_start = -1, .break_dir_at_start = -1 };
  gint64 cancel_ns;

  if (!have_rt ())
    return;
  session = new_session (1000000, dir);   /* 1000 s unless cancelled */
  runner = qf_runner_new (session);
  cancel_ns = qf_clock_now_ns ();
  run (runner, &trace);

  g_assert_true (trace.cancelled);
  /* started, cancelled 300 ms in, finished well within 1 s of the request */
  g_assert_cmpint (trace.finished_ns - cancel_ns, <,
                   qf_test_ns ((300 + 1000) * G_GINT64_CONSTANT (1000000)));
  g_assert_cmpint (qf_session_get_step_status (session, 0), ==, QF_STEP_STATUS_CANCELLED);
  g_assert_cmpint (qf_session_get_step_status (session, 2), ==, QF_STEP_STATUS_PENDING);
  saved = qf_session_load (dir, NULL);
  g_assert_cmpstr (qf_session_get_state (saved), ==, "cancelled");
  g_assert_cmpint (qf_session_get_step_status (saved, 0), ==, QF_STEP_STATUS_CANCELLED);
  g_assert_cmpint (qf_session_get_overall (saved, NULL), ==, QF_OVERALL_INCOMPLETE);
  g_string_free (trace.order, TRUE);
}

static void
test_skip_and_only (void)
{
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfSession) only_session = NULL;
  g_autoptr(QfRunner) runner = NULL;
  g_autoptr(QfRunner) only_runner = NULL;
  Trace trace = { .cancel_at_start = -1, .skip_at_start = 0, .break_dir_at_start = -1 };
  Trace only_trace = { .cancel_at_start = -1, .skip_at_start = -1, .break_dir_at_start = -1 };
  const char *only[] = { "second", NULL };

  if (!have_rt ())
    return;
  session = new_session (1000000, NULL);
  runner = qf_runner_new (session);
  run (runner, &trace);
  g_assert_false (trace.cancelled);
  g_assert_cmpint (qf_session_get_step_status (session, 0), ==, QF_STEP_STATUS_SKIPPED);
  g_assert_cmpint (qf_session_get_step_status (session, 2), ==, QF_STEP_STATUS_DONE);
  /* a skipped deciding test leaves the verdict incomplete */
  g_assert_cmpint (qf_session_get_overall (session, NULL), ==, QF_OVERALL_INCOMPLETE);
  g_string_free (trace.order, TRUE);

  only_session = new_session (1000000, NULL);
  only_runner = qf_runner_new (only_session);
  qf_runner_set_only (only_runner, only);
  run (only_runner, &only_trace);
  g_assert_cmpint (qf_session_get_step_status (only_session, 0), ==, QF_STEP_STATUS_NOT_RUN);
  g_assert_cmpint (qf_session_get_step_status (only_session, 2), ==, QF_STEP_STATUS_DONE);
  g_assert_cmpstr (only_trace.order->str, ==, "f0 f1 s2 f2 ");
  g_string_free (only_trace.order, TRUE);
}

/* A save that fails stops the run at once: the step that could not be recorded ends cancelled,
 * no later step starts, the error is kept, and session.json keeps the last state that was saved
 * (the first step running, the later ones pending), so the run can be resumed. */
static void
test_failed_save_stops (void)
{
  g_autofree char *dir = g_dir_make_tmp ("qf-runner-XXXXXX", NULL);
  g_autofree char *kept = g_strconcat (dir, ".kept", NULL);
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfSession) saved = NULL;
  g_autoptr(QfRunner) runner = NULL;
  g_autoptr(GError) error = NULL;
  Trace trace = { .cancel_at_start = -1, .skip_at_start = -1, .break_dir_at_start = 0 };
  const GError *save_error;

  if (!run_new_session (&trace, 300, dir, &session, &runner))
    return;
  g_assert_true (trace.cancelled);
  g_assert_cmpstr (trace.order->str, ==, "s0 f0 ");
  save_error = qf_runner_get_save_error (runner);
  g_assert_nonnull (save_error);
  g_test_message ("%s", save_error->message);
  g_assert_true (g_error_matches (save_error, QF_SESSION_ERROR, QF_SESSION_ERROR_WRITE));
  g_assert_cmpint (qf_session_get_step_status (session, 2), ==, QF_STEP_STATUS_PENDING);

  saved = qf_session_load (kept, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (qf_session_get_state (saved), ==, "running");
  g_assert_cmpint (qf_session_get_step_status (saved, 0), ==, QF_STEP_STATUS_RUNNING);
  g_assert_cmpint (qf_session_get_step_status (saved, 1), ==, QF_STEP_STATUS_PENDING);
  g_assert_cmpint (qf_session_get_step_status (saved, 2), ==, QF_STEP_STATUS_PENDING);
  g_string_free (trace.order, TRUE);
  g_unlink (dir);
}

/* Dropping a running runner (a window closed mid-test) stops the step and joins the thread. */
static void
test_dispose_while_running (void)
{
  g_autoptr(QfSession) session = NULL;
  QfRunner *runner;
  gint64 start;

  if (!have_rt ())
    return;
  session = new_session (1000000, NULL);
  runner = qf_runner_new (session);
  g_assert_true (qf_runner_start (runner, NULL));
  /* until the step runs (bounded) */
  start = qf_clock_now_ns ();
  while (qf_session_get_step_status (session, 0) != QF_STEP_STATUS_RUNNING &&
         qf_clock_now_ns () - start < 20 * G_GINT64_CONSTANT (1000000000))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (qf_session_get_step_status (session, 0), ==, QF_STEP_STATUS_RUNNING);
  start = qf_clock_now_ns ();
  g_object_unref (runner);
  g_assert_cmpint (qf_clock_now_ns () - start, <, G_GINT64_CONSTANT (1000000000));
  /* what the worker reported was recorded: the step is cancelled, the session too */
  g_assert_cmpint (qf_session_get_step_status (session, 0), ==, QF_STEP_STATUS_CANCELLED);
  g_assert_cmpstr (qf_session_get_state (session), ==, "cancelled");
  /* nothing is left on the main context that points at the runner */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Training: with an emulated poor link the built-in peer holds every reply, so the socket
 * latency the step measures (half a round trip) is at least half the shortest hold; the session
 * records the emulation and says it is training. Without the built-in peer it is refused. */
#define TRAINING_PROFILE \
  "{\"id\": \"training-test\", \"version\": 1, \"name\": \"Training test\", \"description\": \"\"," \
  " \"network_kind\": \"any\", \"tests\": {" \
  "  \"latency\": {\"params\": {\"protocol\": \"tcp\", \"msg_size\": 14, \"time_s\": 1}," \
  "             \"criteria\": [{\"metric\": \"avg_us\", \"label\": \"Average socket latency\", \"comparison\": \"<=\"," \
  "                            \"limit\": 70, \"unit\": \"µs\", \"role\": \"decides\"}]}}}"

static void
test_training_emulation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = qf_profile_load_data (TRAINING_PROFILE, -1, "training-test.json", &error);
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfSession) refused_session = NULL;
  g_autoptr(QfRunner) runner = NULL;
  g_autoptr(QfRunner) refused = NULL;
  const QfLinkPreset *poor = qf_builtin_peer_find_preset ("poor-wireless");
  Trace trace = { .cancel_at_start = -1, .skip_at_start = -1, .break_dir_at_start = -1 };
  JsonObject *training, *result;
  JsonArray *notes;
  gboolean noted = FALSE;
  gdouble min_hold_ms;

  g_assert_no_error (error);
  if (!have_step ("latency"))
    return;
  g_assert_nonnull (poor);
  g_assert_null (qf_builtin_peer_find_preset ("no-such-link"));
  g_assert_nonnull (qf_builtin_peer_find_preset ("good-wired"));
  min_hold_ms = poor->emulate.delay_ms - poor->emulate.jitter_ms;
  g_assert_cmpfloat (min_hold_ms, >, 1);

  /* an emulated link is a property of the built-in peer only */
  refused_session = qf_session_new (profile);
  qf_session_set_peer (refused_session, "192.0.2.1", "remote");
  refused = qf_runner_new (refused_session);
  qf_runner_set_emulation (refused, &poor->emulate);
  g_assert_false (qf_runner_start (refused, &error));
  g_assert_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS);
  g_assert_nonnull (strstr (error->message, "built-in peer"));
  g_assert_null (qf_session_get_training (refused_session));
  g_clear_error (&error);

  session = qf_session_new (profile);
  qf_session_set_peer (session, "127.0.0.1", "builtin");
  g_assert_null (qf_session_get_training (session));
  runner = qf_runner_new (session);
  qf_runner_set_emulation (runner, &poor->emulate);
  run (runner, &trace);
  g_assert_false (trace.cancelled);
  g_assert_cmpint (qf_session_get_step_status (session, 0), ==, QF_STEP_STATUS_DONE);

  training = qf_session_get_training (session);
  g_assert_nonnull (training);
  g_assert_cmpstr (qf_json_get_string (training, "kind", NULL), ==, "emulated-link");
  g_assert_cmpfloat (qf_json_get_double (training, "delay_ms", 0), ==, poor->emulate.delay_ms);
  g_assert_cmpfloat (qf_json_get_double (training, "jitter_ms", 0), ==, poor->emulate.jitter_ms);
  g_assert_cmpfloat (qf_json_get_double (training, "loss_pct", 0), ==, poor->emulate.loss_pct);
  notes = qf_json_get_array (qf_session_get_json (session), "notes");
  for (guint i = 0; notes != NULL && i < json_array_get_length (notes); i++)
    noted |= g_strcmp0 (qf_json_get_string (json_array_get_object_element (notes, i), "id", NULL), "training") == 0;
  g_assert_true (noted);

  /* the engine's figure went through the emulated link: every reply was held */
  result = qf_json_get_object (qf_session_get_step (session, 0), "result");
  g_assert_nonnull (result);
  g_assert_cmpfloat (qf_json_get_double (result, "avg_us", 0), >=, min_hold_ms * 1000 / 2);
  g_assert_cmpint (qf_session_get_overall (session, NULL), ==, QF_OVERALL_FAIL);
  g_string_free (trace.order, TRUE);

  /* the report says it is training, in its title (and so every page header), never acceptance */
  {
    g_autofree char *data = qf_session_to_data (session);
    QfReport *report = qf_report_new_from_data (data, -1, &error);
    g_autoptr(GBytes) html = NULL;
    g_autofree char *text = NULL;

    g_assert_no_error (error);
    html = qf_report_render_html (report, NULL, &error);
    g_assert_no_error (error);
    text = g_strndup (g_bytes_get_data (html, NULL), g_bytes_get_size (html));
    g_assert_nonnull (strstr (text, "Training session — not an acceptance report"));
    g_assert_nonnull (strstr (text, "the built-in peer imitated a link"));
    g_assert_null (strstr (text, "Real-time PC acceptance report"));
    qf_report_free (report);
  }
}

/* A remote helper's announced ports reach the network tests: a responder on ports of its own
 * (the built-in peer's services, reached as a remote helper) answers the latency test. */
static void
test_remote_ports (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = qf_profile_load_data (TRAINING_PROFILE, -1, "training-test.json", &error);
  g_autoptr(QfBuiltinPeer) helper = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfSession) loaded = NULL;
  g_autoptr(QfRunner) runner = NULL;
  Trace trace = { .cancel_at_start = -1, .skip_at_start = -1, .break_dir_at_start = -1 };
  JsonObject *peer;

  g_assert_no_error (error);
  if (!have_step ("latency"))
    return;
  helper = qf_builtin_peer_start (NULL, &error);
  g_assert_no_error (error);
  session = qf_session_new (profile);
  qf_session_set_peer (session, qf_builtin_peer_get_host (helper), "remote");

  /* the defaults are not written down */
  qf_session_set_peer_ports (session, 11111, 5201);
  peer = qf_json_get_object (qf_session_get_json (session), "peer");
  g_assert_false (json_object_has_member (peer, "latency_port"));
  g_assert_false (json_object_has_member (peer, "bandwidth_port"));

  qf_session_set_peer_ports (session, qf_builtin_peer_get_latency_port (helper),
                             qf_builtin_peer_get_bandwidth_port (helper));
  g_assert_cmpuint (qf_session_get_peer_latency_port (session), ==, qf_builtin_peer_get_latency_port (helper));
  g_assert_cmpuint (qf_session_get_peer_bandwidth_port (session), ==, qf_builtin_peer_get_bandwidth_port (helper));
  /* a session file with them is a valid one */
  loaded = qf_session_new_from_json (qf_session_get_json (session), "ports.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (qf_session_get_peer_latency_port (loaded), ==, qf_builtin_peer_get_latency_port (helper));

  runner = qf_runner_new (session);
  run (runner, &trace);
  g_assert_false (trace.cancelled);
  g_assert_cmpint (qf_session_get_step_status (session, 0), ==, QF_STEP_STATUS_DONE);
  g_string_free (trace.order, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data = g_dir_make_tmp ("qf-runner-data-XXXXXX", NULL);

  g_setenv ("XDG_DATA_HOME", data, TRUE);
  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/runner/runs-in-order-and-replays", test_runs_in_order);
  g_test_add_func ("/core/runner/cancel-within-a-second", test_cancel_within_a_second);
  g_test_add_func ("/core/runner/skip-and-only", test_skip_and_only);
  g_test_add_func ("/core/runner/dispose-while-running", test_dispose_while_running);
  g_test_add_func ("/core/runner/failed-save-stops-the-run", test_failed_save_stops);
  g_test_add_func ("/core/runner/training-emulated-link", test_training_emulation);
  g_test_add_func ("/core/runner/remote-announced-ports", test_remote_ports);
  return g_test_run ();
}
