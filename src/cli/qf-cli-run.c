/* qf-cli-run.c — `qualify-cli run`: a whole qualification without a display (src/cli).
 *
 * Builds a session from a profile (or resumes one), runs its steps through the core runner,
 * prints one progress line per step on stderr and the verdict table on stdout, and keeps the
 * session directory up to date after every step. SIGINT/SIGTERM cancel the current step, save and
 * exit 2. `--replay SESSION.json` plays a recorded session back (training). */
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <unistd.h>

#include "qf-cli.h"
#include "qf-json.h"
#include "qf-profile.h"
#include "qf-runner.h"
#include "qf-session.h"
#include "qf-verdict.h"

typedef struct
{
  GMainLoop *loop;
  QfRunner  *runner;
  gboolean   interrupted;
  gboolean   tty;
  gboolean   progress_shown;
  guint      n_planned;
  guint      n_done;
} RunState;

static gboolean
on_signal (gpointer data)
{
  RunState *state = data;

  if (!state->interrupted)
    {
      state->interrupted = TRUE;
      g_printerr ("\n%s\n", _("Stopping: cancelling the current test and saving the session…"));
      qf_runner_cancel (state->runner);
    }
  return G_SOURCE_CONTINUE;
}

static void
clear_progress (RunState *state)
{
  if (state->progress_shown)
    {
      g_printerr ("\r\033[K");
      state->progress_shown = FALSE;
    }
}

static void
on_step_started (QfRunner *runner,
                 guint     index,
                 RunState *state)
{
  QfSession *session = qf_runner_get_session (runner);
  JsonObject *step = qf_session_get_step (session, index);
  const char *classic = qf_json_get_string (step, "classic_command", NULL);
  gdouble estimate = qf_session_get_step_estimate (session, index);

  clear_progress (state);
  state->n_done++;
  if (estimate > 0)
    g_printerr (_("[%u/%u] %s: running (about %.0f s)\n"), state->n_done, state->n_planned,
                qf_session_get_step_title (session, index), estimate);
  else
    g_printerr (_("[%u/%u] %s: running\n"), state->n_done, state->n_planned,
                qf_session_get_step_title (session, index));
  if (classic != NULL)
    g_printerr ("      %s %s\n", _("classic command:"), classic);
}

static void
on_progress (QfRunner   *runner,
             guint       index,
             gdouble     fraction,
             gdouble     eta_s,
             JsonObject *live,
             RunState   *state)
{
  g_autoptr(GString) figures = g_string_new (NULL);

  if (!state->tty)
    return;
  /* A few live figures as the engine names them, e.g. "avg_us 31.2  max_us 95". */
  if (live != NULL)
    {
      g_autoptr(GList) members = json_object_get_members (live);
      guint shown = 0;

      for (GList *l = members; l != NULL && shown < 4; l = l->next)
        {
          JsonNode *node = json_object_get_member (live, l->data);
          GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;

          if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
            continue;
          g_string_append_printf (figures, "  %s %.4g", (const char *) l->data, json_node_get_double (node));
          shown++;
        }
    }
  g_printerr ("\r\033[K      %3.0f %%   %s %.0f s%s", fraction * 100, _("remaining"), eta_s, figures->str);
  state->progress_shown = TRUE;
}

/* "done in 1.0 s: Average latency 104 µs ✗ FAIL, …" */
static void
on_step_finished (QfRunner *runner,
                  guint     index,
                  RunState *state)
{
  QfSession *session = qf_runner_get_session (runner);
  JsonObject *step = qf_session_get_step (session, index);
  QfStepStatus status = qf_session_get_step_status (session, index);
  JsonArray *verdicts = qf_json_get_array (step, "verdicts");
  const char *reason = qf_json_get_string (step, "status_reason", NULL);
  g_autoptr(GString) line = g_string_new (NULL);

  clear_progress (state);
  if (status == QF_STEP_STATUS_NOT_RUN || status == QF_STEP_STATUS_SKIPPED)
    {
      state->n_done++;
      g_printerr ("[%u/%u] %s: %s%s%s\n", state->n_done, state->n_planned,
                  qf_session_get_step_title (session, index), qf_step_status_to_label (status),
                  reason != NULL ? " — " : "", reason != NULL ? reason : "");
      return;
    }
  g_string_append_printf (line, "      %s", qf_step_status_to_label (status));
  if (qf_json_get_double (step, "duration_s", -1) >= 0)
    g_string_append_printf (line, _(" in %.1f s"), qf_json_get_double (step, "duration_s", 0));
  if (status != QF_STEP_STATUS_DONE && reason != NULL)
    g_string_append_printf (line, " — %s", reason);
  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      QfVerdict verdict = QF_VERDICT_NOT_RUN;
      JsonNode *measured = json_object_get_member (v, "measured");

      qf_verdict_from_string (qf_json_get_string (v, "verdict", NULL), &verdict);
      if (verdict == QF_VERDICT_NOT_RUN || measured == NULL || JSON_NODE_HOLDS_NULL (measured))
        continue;
      {
        g_autofree char *value = qf_verdict_format_value (json_node_get_double (measured),
                                                          qf_json_get_string (v, "unit", ""));
        g_string_append_printf (line, "%s %s %s %s %s", i == 0 ? ":" : ",",
                                _(qf_json_get_string (v, "label", "")), value,
                                qf_verdict_to_symbol (verdict), qf_verdict_to_label (verdict));
      }
    }
  g_printerr ("%s\n", line->str);
}

static void
on_finished (QfRunner *runner,
             gboolean  cancelled,
             RunState *state)
{
  clear_progress (state);
  g_main_loop_quit (state->loop);
}

/* Pads text with spaces to width columns (UTF-8 aware). */
static void
append_padded (GString    *out,
               const char *text,
               guint       width)
{
  glong len = g_utf8_strlen (text, -1);

  g_string_append (out, text);
  for (glong i = len; i < (glong) width; i++)
    g_string_append_c (out, ' ');
  g_string_append_c (out, ' ');
}

static void
print_table (QfSession *session)
{
  JsonArray *verdicts = qf_session_get_verdicts (session);
  JsonArray *advice = qf_session_get_advice (session);
  JsonArray *notes = qf_json_get_array (qf_session_get_json (session), "notes");
  JsonObject *comparison = qf_json_get_object (qf_session_get_json (session), "comparison");
  guint warnings = 0;
  QfOverall overall = qf_session_get_overall (session, &warnings);
  g_autoptr(GString) out = g_string_new (NULL);
  guint width = 20;

  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      gint step = qf_session_find_step (session, qf_json_get_string (v, "key", ""));
      g_autofree char *name = g_strdup_printf ("%s: %s", step >= 0 ? qf_session_get_step_title (session, step) : "",
                                               _(qf_json_get_string (v, "label", "")));
      width = MAX (width, (guint) g_utf8_strlen (name, -1));
    }

  g_string_append_c (out, '\n');
  append_padded (out, _("Criterion"), width);
  append_padded (out, _("Measured"), 14);
  append_padded (out, _("Limit"), 16);
  g_string_append_printf (out, "%s\n", _("Verdict"));
  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      const char *unit = qf_json_get_string (v, "unit", "");
      JsonNode *measured = json_object_get_member (v, "measured");
      gint step = qf_session_find_step (session, qf_json_get_string (v, "key", ""));
      g_autofree char *name = g_strdup_printf ("%s: %s", step >= 0 ? qf_session_get_step_title (session, step) : "",
                                               _(qf_json_get_string (v, "label", "")));
      g_autofree char *value = measured != NULL && !JSON_NODE_HOLDS_NULL (measured)
                                 ? qf_verdict_format_value (json_node_get_double (measured), unit)
                                 : g_strdup ("—");
      g_autofree char *limit_value = qf_verdict_format_value (qf_json_get_double (v, "limit", 0), unit);
      g_autofree char *limit = g_strdup_printf ("%s %s", g_str_equal (qf_json_get_string (v, "comparison", ""), "<=") ? "≤" : "≥",
                                                limit_value);
      QfVerdict verdict = QF_VERDICT_NOT_RUN;

      qf_verdict_from_string (qf_json_get_string (v, "verdict", NULL), &verdict);
      append_padded (out, name, width);
      append_padded (out, value, 14);
      append_padded (out, limit, 16);
      g_string_append_printf (out, "%s %s", qf_verdict_to_symbol (verdict), qf_verdict_to_label (verdict));
      if (g_str_equal (qf_json_get_string (v, "role", ""), "warns"))
        g_string_append_printf (out, " %s", _("(warning only)"));
      g_string_append_c (out, '\n');
    }

  g_string_append_printf (out, "\n%s %s", _("Overall verdict:"), qf_overall_to_label (overall));
  if (warnings > 0)
    g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, " (%u warning)", " (%u warnings)", warnings),
                            warnings);
  g_string_append_c (out, '\n');

  if (advice != NULL && json_array_get_length (advice) > 0)
    {
      g_string_append_printf (out, "\n%s\n", _("Advice:"));
      for (guint i = 0; i < json_array_get_length (advice); i++)
        g_string_append_printf (out, "  • %s\n",
                                qf_json_get_string (json_array_get_object_element (advice, i), "text", ""));
    }
  if (comparison != NULL)
    {
      JsonArray *metrics = qf_json_get_array (comparison, "metrics");
      JsonArray *changes = qf_json_get_array (comparison, "audit_changes");

      g_string_append_printf (out, "\n%s %s\n", _("Compared with the earlier session of this PC from"),
                              qf_json_get_string (qf_json_get_object (comparison, "previous"), "created_at", "?"));
      for (guint i = 0; metrics != NULL && i < json_array_get_length (metrics); i++)
        {
          JsonObject *m = json_array_get_object_element (metrics, i);
          JsonNode *before = json_object_get_member (m, "before");
          JsonNode *after = json_object_get_member (m, "after");
          const char *unit = qf_json_get_string (m, "unit", "");
          g_autofree char *before_text = NULL, *after_text = NULL;

          if (before == NULL || after == NULL || JSON_NODE_HOLDS_NULL (before) || JSON_NODE_HOLDS_NULL (after))
            continue;
          before_text = qf_verdict_format_value (json_node_get_double (before), unit);
          after_text = qf_verdict_format_value (json_node_get_double (after), unit);
          g_string_append_printf (out, "  • %s: %s → %s\n", _(qf_json_get_string (m, "label", "")),
                                  before_text, after_text);
        }
      for (guint i = 0; changes != NULL && i < json_array_get_length (changes); i++)
        {
          JsonObject *c = json_array_get_object_element (changes, i);
          g_string_append_printf (out, "  • %s: %s → %s\n", qf_json_get_string (c, "title", qf_json_get_string (c, "id", "")),
                                  qf_json_get_string (c, "before", "?"), qf_json_get_string (c, "after", "?"));
        }
    }
  for (guint i = 0; notes != NULL && i < json_array_get_length (notes); i++)
    {
      if (i == 0)
        g_string_append_printf (out, "\n%s\n", _("Notes:"));
      g_string_append_printf (out, "  • %s\n",
                              qf_json_get_string (json_array_get_object_element (notes, i), "text", ""));
    }
  fputs (out->str, stdout);
  fflush (stdout);
}

static JsonObject *
summary_json (QfSession *session)
{
  JsonObject *root = qf_session_get_json (session);
  JsonObject *obj = json_object_new ();
  JsonObject *verdict = qf_json_get_object (root, "verdict");
  JsonArray *steps = json_array_new ();

  json_object_set_string_member (obj, "test", "run");
  json_object_set_string_member (obj, "session_id", qf_session_get_id (session));
  if (qf_session_get_dir (session) != NULL)
    json_object_set_string_member (obj, "session_dir", qf_session_get_dir (session));
  else
    json_object_set_null_member (obj, "session_dir");
  json_object_set_string_member (obj, "profile", qf_profile_get_id (qf_session_get_profile (session)));
  json_object_set_string_member (obj, "state", qf_session_get_state (session));
  json_object_set_string_member (obj, "overall", qf_json_get_string (verdict, "overall", "incomplete"));
  json_object_set_int_member (obj, "warnings", (gint64) qf_json_get_double (verdict, "warnings", 0));
  for (guint i = 0; i < qf_session_get_n_steps (session); i++)
    {
      JsonObject *step = qf_session_get_step (session, i);
      JsonObject *s = json_object_new ();
      static const char *const keys[] = { "key", "test", "title", "status", "status_reason",
                                          "classic_command", "duration_s", NULL };
      for (guint k = 0; keys[k] != NULL; k++)
        if (json_object_has_member (step, keys[k]))
          json_object_set_member (s, keys[k], json_node_copy (json_object_get_member (step, keys[k])));
      json_array_add_object_element (steps, s);
    }
  json_object_set_array_member (obj, "steps", steps);
  json_object_set_array_member (obj, "criteria",
                                json_array_ref (qf_session_get_verdicts (session)));
  json_object_set_array_member (obj, "advice", json_array_ref (qf_session_get_advice (session)));
  json_object_set_array_member (obj, "notes",
                                json_array_ref (qf_json_get_array (root, "notes")));
  return obj;
}

static int
run_loop (QfRunner  *runner,
          gboolean   json,
          GError   **error)
{
  QfSession *session = qf_runner_get_session (runner);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  RunState state = { 0 };
  guint sigint_id, sigterm_id;

  state.loop = loop;
  state.runner = runner;
  state.tty = isatty (STDERR_FILENO);
  for (guint i = 0; i < qf_session_get_n_steps (session); i++)
    if (qf_session_get_step_status (session, i) == QF_STEP_STATUS_PENDING)
      state.n_planned++;

  if (state.n_planned == 0)  /* a replay: its steps become pending when it starts */
    state.n_planned = qf_session_get_n_steps (session);
  g_signal_connect (runner, "step-started", G_CALLBACK (on_step_started), &state);
  g_signal_connect (runner, "progress", G_CALLBACK (on_progress), &state);
  g_signal_connect (runner, "step-finished", G_CALLBACK (on_step_finished), &state);
  g_signal_connect (runner, "finished", G_CALLBACK (on_finished), &state);
  sigint_id = g_unix_signal_add (SIGINT, on_signal, &state);
  sigterm_id = g_unix_signal_add (SIGTERM, on_signal, &state);

  if (!qf_runner_start (runner, error))
    {
      g_source_remove (sigint_id);
      g_source_remove (sigterm_id);
      return QF_CLI_EXIT_ERROR;
    }
  g_main_loop_run (loop);
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_signal_handlers_disconnect_by_data (runner, &state);

  if (qf_runner_get_save_error (runner) != NULL)
    {
      g_propagate_error (error, g_error_copy (qf_runner_get_save_error (runner)));
      return QF_CLI_EXIT_ERROR;
    }
  if (state.interrupted)
    {
      if (qf_session_get_dir (session) != NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                     _("cancelled; the session is saved in %s. Continue it with “qualify-cli run --resume %s”."),
                     qf_session_get_dir (session), qf_session_get_dir (session));
      else
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("cancelled."));
      return QF_CLI_EXIT_ERROR;
    }

  if (json)
    {
      g_autoptr(JsonObject) obj = summary_json (session);
      qf_cli_print_json (obj);
    }
  else
    {
      print_table (session);
      if (qf_session_get_dir (session) != NULL)
        g_print ("\n%s %s\n", _("Session saved in"), qf_session_get_dir (session));
    }
  return qf_session_get_overall (session, NULL) == QF_OVERALL_PASS ? QF_CLI_EXIT_OK : QF_CLI_EXIT_FAIL;
}

static int
replay (const char *path,
        gdouble     speed,
        gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSession) recorded = NULL;
  g_autoptr(QfRunner) runner = NULL;
  int exit_code;

  if (!(speed > 0 && speed <= 10000))
    return qf_cli_errorf ("run", _("--speed must be above 0 and at most 10000, got %g"), speed);
  recorded = qf_session_load (path, &error);
  if (recorded == NULL)
    return qf_cli_error ("run", error);
  g_printerr (_("Replaying the session recorded on %s (%s) at %g× speed.\n"),
              qf_json_get_string (qf_session_get_json (recorded), "created_at", "?"),
              qf_json_get_string (qf_json_get_object (qf_session_get_json (recorded), "pc"), "hostname", "?"),
              speed);
  runner = qf_runner_new_replay (recorded, speed);
  exit_code = run_loop (runner, json, &error);
  if (exit_code == QF_CLI_EXIT_ERROR)
    return qf_cli_error ("run", error);
  return exit_code;
}

int
qf_cli_run (int    argc,
            char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *profile_id = NULL, *peer = NULL, *iface = NULL, *operator_name = NULL;
  g_autofree char *customer = NULL, *site = NULL, *out = NULL, *resume = NULL, *only = NULL;
  g_autofree char *replay_path = NULL, *root = NULL, *token_file = NULL, *emulate_text = NULL;
  QfResponderEmulation emulate = { 0 };
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfRunner) runner = NULL;
  g_auto(GStrv) only_keys = NULL;
  gboolean quick = FALSE, json = FALSE, no_sign = FALSE;
  g_autofree char *report_lang = NULL;
  gdouble speed = 1.0;
  int exit_code;
  const GOptionEntry entries[] = {
    { "profile", 0, 0, G_OPTION_ARG_STRING, &profile_id, N_("Profile to judge against (see “qualify-cli profiles”)"), N_("ID") },
    { "peer", 0, 0, G_OPTION_ARG_STRING, &peer, N_("Helper machine running “qualify-cli serve”, or “builtin” for this PC's loopback"), N_("HOST") },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &iface, N_("Network interface under test"), N_("IF") },
    { "emulate", 0, 0, G_OPTION_ARG_STRING, &emulate_text, N_("Training with --peer builtin: the peer answers as this poor link would (never an acceptance)"), N_("delay=MS,jitter=MS,loss=PCT") },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file, N_("The helper machine's access token (serve --token-file) for the network tests; only the path is kept in the session"), N_("FILE") },
    { "operator", 0, 0, G_OPTION_ARG_STRING, &operator_name, N_("Name of the person testing"), N_("NAME") },
    { "customer", 0, 0, G_OPTION_ARG_STRING, &customer, N_("Customer name for the report"), N_("NAME") },
    { "site", 0, 0, G_OPTION_ARG_STRING, &site, N_("Site name for the report"), N_("NAME") },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, N_("Run the profile's quick variant (short durations, same limits)"), NULL },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, N_("Session folder (default: a new one under ~/.local/share/qualify/sessions)"), N_("DIR") },
    { "resume", 0, 0, G_OPTION_ARG_FILENAME, &resume, N_("Continue an interrupted session, keeping its finished steps"), N_("DIR") },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, N_("Run only these tests, e.g. rt,ping (the others count as not run)"), N_("TESTS") },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &report_lang, N_("Language of the reports: en or zh_CN (default: en)"), N_("LANG") },
    { "no-sign", 0, 0, G_OPTION_ARG_NONE, &no_sign, N_("Write the reports unsigned even when a certificate exists"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &replay_path, N_("Play back a recorded session's progress and samples (training)"), N_("SESSION.json") },
    { "speed", 0, 0, G_OPTION_ARG_DOUBLE, &speed, N_("Replay speed factor (default 1 = real time)"), N_("X") },
    { "root", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &root, N_("Read /proc and /sys below DIR (for tests)"), N_("DIR") },
    { NULL }
  };

  if (!qf_cli_parse_options ("run", "", _("Run a whole qualification against a profile: every test, the verdicts, the advice, the session record."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("run", _("unexpected argument “%s”"), argv[1]);

  if (replay_path != NULL)
    {
      if (profile_id != NULL || resume != NULL || peer != NULL || out != NULL)
        return qf_cli_errorf ("run", _("--replay cannot be combined with --profile, --resume, --peer or --out"));
      return replay (replay_path, speed, json);
    }
  if (emulate_text != NULL)
    {
      if (!qf_responder_emulation_parse (emulate_text, &emulate, &error))
        return qf_cli_error ("run", error);
      if (g_strcmp0 (peer, "builtin") != 0)
        return qf_cli_errorf ("run", _("--emulate needs --peer builtin: only the built-in peer can imitate a link"));
    }
  if (only != NULL)
    {
      only_keys = g_strsplit (only, ",", -1);
      for (guint i = 0; only_keys[i] != NULL; i++)
        g_strstrip (only_keys[i]);
    }

  if (resume != NULL)
    {
      guint remaining;
      g_autofree char *quick_id = profile_id != NULL ? g_strconcat (profile_id, "-quick", NULL) : NULL;

      if (out != NULL)
        return qf_cli_errorf ("run", _("--resume continues in its own folder; leave out --out"));
      session = qf_session_load (resume, &error);
      if (session == NULL)
        return qf_cli_error ("run", error);
      if (profile_id != NULL && !g_str_equal (profile_id, qf_profile_get_id (qf_session_get_profile (session))) &&
          !g_str_equal (quick_id, qf_profile_get_id (qf_session_get_profile (session))))
        return qf_cli_errorf ("run", _("the session in %s was made with profile “%s”, not “%s”"), resume,
                              qf_profile_get_id (qf_session_get_profile (session)), profile_id);
      if (g_strcmp0 (qf_session_get_state (session), "complete") == 0)
        return qf_cli_errorf ("run", _("the session in %s is already complete; start a new one with --profile"), resume);
      if (!qf_session_set_dir (session, resume, &error))
        return qf_cli_error ("run", error);
      remaining = qf_session_prepare_resume (session);
      g_printerr (g_dngettext (GETTEXT_PACKAGE, "Resuming %s: %u test left to run.\n",
                               "Resuming %s: %u tests left to run.\n", remaining),
                  qf_session_get_dir (session), remaining);
      if (peer != NULL)
        {
          if (g_str_equal (peer, "builtin"))
            qf_session_set_peer (session, "127.0.0.1", "builtin");
          else
            qf_session_set_peer (session, peer, "remote");
        }
    }
  else
    {
      g_autoptr(QfProfile) profile = NULL;

      if (profile_id == NULL)
        return qf_cli_errorf ("run", _("say which profile to use with --profile ID (see “qualify-cli profiles”)"));
      profile = qf_profile_find (profile_id, &error);
      if (profile == NULL)
        return qf_cli_error ("run", error);
      if (quick && !g_str_has_suffix (qf_profile_get_id (profile), "-quick"))
        {
          const char *variant = qf_profile_get_quick_variant (profile);
          g_autoptr(QfProfile) quick_profile = NULL;

          if (variant == NULL)
            return qf_cli_errorf ("run", _("profile “%s” has no quick variant; run it without --quick"),
                                  qf_profile_get_id (profile));
          quick_profile = qf_profile_find (variant, &error);
          if (quick_profile == NULL)
            return qf_cli_error ("run", error);
          g_set_object (&profile, quick_profile);
        }

      session = qf_session_new (profile);
      qf_session_set_people (session, operator_name, customer, site);
      if (!qf_session_capture_system (session, root, &error))
        return qf_cli_error ("run", error);
      if (peer == NULL)
        qf_session_set_peer (session, NULL, "none");
      else if (g_str_equal (peer, "builtin"))
        {
          qf_session_set_peer (session, "127.0.0.1", "builtin");
          qf_session_add_note (session, "builtin-peer",
                               _("The network figures were measured against the built-in peer on this PC's loopback, not over a real link to a helper machine."));
        }
      else
        qf_session_set_peer (session, peer, "remote");
      if (iface != NULL)
        {
          g_autofree char *path = g_build_filename (root ? root : "/", "sys/class/net", iface, NULL);
          if (!g_file_test (path, G_FILE_TEST_IS_DIR))
            return qf_cli_errorf ("run", _("there is no network interface “%s” (see “ip link”)"), iface);
          qf_session_set_network_from_sysfs (session, root, iface);
        }
      else if (peer != NULL && g_str_equal (peer, "builtin"))
        qf_session_set_network (session, "lo", "loopback", 0, 0, NULL, -1);
      {
        const char *kind = qf_json_get_string (qf_json_get_object (qf_session_get_json (session), "network"), "kind", "");
        const char *wanted = qf_profile_get_network_kind (profile);
        if ((g_str_equal (kind, "wired") || g_str_equal (kind, "wireless")) &&
            (g_str_equal (wanted, "wired") || g_str_equal (wanted, "wireless")) && !g_str_equal (kind, wanted))
          g_printerr (_("Note: profile “%s” is for a %s network, but %s is %s. Choose the matching profile for a fair verdict.\n"),
                      qf_profile_get_id (profile),
                      g_str_equal (wanted, "wired") ? C_("network", "wired") : C_("network", "wireless"), iface,
                      g_str_equal (kind, "wired") ? C_("network", "wired") : C_("network", "wireless"));
      }
      if (!qf_session_set_dir (session, out, &error))
        return qf_cli_error ("run", error);
      if (quick)
        qf_session_add_note (session, "quick",
                             _("Quick run: the profile's limits with short test durations. Not an acceptance test."));
      if (!qf_session_save (session, &error))
        return qf_cli_error ("run", error);
      g_printerr (_("Session %s: profile “%s”, results in %s\n"), qf_session_get_id (session),
                  qf_profile_get_id (profile), qf_session_get_dir (session));
    }

  if (only_keys != NULL)
    for (guint i = 0; only_keys[i] != NULL; i++)
      if (qf_session_find_step (session, only_keys[i]) < 0)
        return qf_cli_errorf ("run", _("--only: the profile has no test “%s”"), only_keys[i]);

  if (token_file != NULL && (!qf_session_set_token_file (session, token_file, &error)
                             || !qf_session_save (session, &error)))
    return qf_cli_error ("run", error);
  runner = qf_runner_new (session);
  if (only_keys != NULL)
    qf_runner_set_only (runner, (const char *const *) only_keys);
  if (emulate_text != NULL)
    qf_runner_set_emulation (runner, &emulate);
  exit_code = run_loop (runner, json, &error);
  if (exit_code == QF_CLI_EXIT_ERROR)
    return qf_cli_error ("run", error);
  /* The acceptance reports beside session.json, signed when a certificate exists. */
  if (!qf_cli_report_session_dir (qf_session_get_dir (session), report_lang, no_sign, json, &error))
    return qf_cli_error ("run", error);
  return exit_code;
}
