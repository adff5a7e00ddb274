/* qf-cli-run.c — `qualify-cli run`: a whole qualification without a display (src/cli).
 *
 * Builds a session from a profile (or resumes one), runs its steps through the core runner,
 * prints one progress line per step on stderr and the verdict table on stdout, and keeps the
 * session directory up to date after every step. SIGINT/SIGTERM cancel the current step, save and
 * exit 2. `--replay SESSION.json` plays a recorded session back (training). */
#include "config.h"

#include "qf-format.h"
#include <glib-unix.h>
#include <stdio.h>
#include <unistd.h>

#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-profile.h"
#include "qf-runner.h"
#include "qf-session-check.h"
#include "qf-session-setup.h"
#include "qf-session.h"
#include "qf-text.h"
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
  qf_cli_print_worst_cause ("      ", qf_json_get_object (step, "result"));
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

/* "Real-time performance: Average latency" */
static char *
criterion_name (QfSession  *session,
                JsonObject *verdict)
{
  gint step = qf_session_find_step (session, qf_json_get_string (verdict, "key", ""));

  return g_strdup_printf ("%s: %s", step >= 0 ? qf_session_get_step_title (session, step) : "",
                          _(qf_json_get_string (verdict, "label", "")));
}

static guint
criterion_width (QfSession *session,
                 JsonArray *verdicts)
{
  guint width = 20;

  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      g_autofree char *name = criterion_name (session, json_array_get_object_element (verdicts, i));
      width = MAX (width, (guint) g_utf8_strlen (name, -1));
    }
  return width;
}

static void
append_criterion (GString    *out,
                  QfSession  *session,
                  JsonObject *v,
                  guint       width)
{
  const char *unit = qf_json_get_string (v, "unit", "");
  JsonNode *measured = json_object_get_member (v, "measured");
  g_autofree char *name = criterion_name (session, v);
  g_autofree char *value = measured != NULL && !JSON_NODE_HOLDS_NULL (measured)
                             ? qf_format_value (json_node_get_double (measured), unit)
                             : g_strdup ("—");
  g_autofree char *limit = qf_format_limit (qf_json_get_string (v, "comparison", "<="),
                                            qf_json_get_double (v, "limit", 0), unit);
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

static void
append_criteria (GString   *out,
                 QfSession *session)
{
  JsonArray *verdicts = qf_session_get_verdicts (session);
  guint width = criterion_width (session, verdicts);

  g_string_append_c (out, '\n');
  append_padded (out, _("Criterion"), width);
  append_padded (out, _("Measured"), 14);
  append_padded (out, _("Limit"), 16);
  g_string_append_printf (out, "%s\n", _("Verdict"));
  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    append_criterion (out, session, json_array_get_object_element (verdicts, i), width);
}

static void
append_overall (GString   *out,
                QfSession *session)
{
  guint warnings = 0;
  QfOverall overall = qf_session_get_overall (session, &warnings);

  g_string_append_printf (out, "\n%s %s", _("Overall verdict:"), qf_overall_to_label (overall));
  if (warnings > 0)
    g_string_append_printf (out, qf_ngettext (" (%u warning)", " (%u warnings)", warnings),
                            warnings);
  g_string_append_c (out, '\n');
  if (qf_json_get_double (qf_json_get_object (qf_json_get_object (qf_session_get_json (session), "verdict"), "counts"),
                          "not-over-link", 0) > 0)
    g_string_append_printf (out, "%s\n",
                            _("The network tests were not measured over the link: the peer was the built-in peer on this PC's loopback. Run them again with the helper machine (--peer auto or --peer ADDRESS) to qualify the link."));
}

/* "  • text" for each object's "text" member, under a heading when there is any. */
static void
append_texts (GString    *out,
              const char *heading,
              JsonArray  *items)
{
  for (guint i = 0; items != NULL && i < json_array_get_length (items); i++)
    {
      if (i == 0)
        g_string_append_printf (out, "\n%s\n", heading);
      g_string_append_printf (out, "  • %s\n",
                              qf_json_get_string (json_array_get_object_element (items, i), "text", ""));
    }
}

static void
append_comparison (GString    *out,
                   JsonObject *comparison)
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

/* The verdict table, the overall verdict, advice, comparison and notes on stdout. */
static void
print_table (QfSession *session)
{
  JsonObject *root = qf_session_get_json (session);
  JsonObject *comparison = qf_json_get_object (root, "comparison");
  g_autoptr(GString) out = g_string_new (NULL);

  append_criteria (out, session);
  append_overall (out, session);
  append_texts (out, _("Advice:"), qf_session_get_advice (session));
  if (comparison != NULL)
    append_comparison (out, comparison);
  append_texts (out, _("Notes:"), qf_json_get_array (root, "notes"));
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
  g_autofree char *shown = NULL, *word = NULL;
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

  /* The folder in prose, cleaned; in the command to paste, one shell word. */
  shown = qf_session_get_dir (session) != NULL ? qf_text_clean (qf_session_get_dir (session), -1) : NULL;
  word = qf_session_get_dir (session) != NULL ? qf_text_shell_word (qf_session_get_dir (session)) : NULL;
  if (qf_runner_get_save_error (runner) != NULL)
    {
      /* the runner stopped at the first failed save; session.json is the last good one */
      g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_WRITE,
                   _("%s. The run stopped there; %s/session.json keeps what was saved before. Make room on that disk (or make the folder writable again), then continue with “qualify-cli run --resume %s”."),
                   qf_runner_get_save_error (runner)->message, shown, word);
      return QF_CLI_EXIT_ERROR;
    }
  if (state.interrupted)
    {
      if (qf_session_get_dir (session) != NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                     _("cancelled; the session is saved in %s. Continue it with “qualify-cli run --resume %s”."),
                     shown, word);
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

/* The command line as given. */
typedef struct
{
  char                 *profile_id, *peer, *iface, *operator_name, *customer, *site;
  char                 *out, *resume, *only, *replay_path, *root, *token_file, *emulate_text;
  char                 *report_lang, *pairing_code;
  gboolean              quick, json, no_sign, trace;
  gdouble               speed;
  /* derived */
  QfResponderEmulation  emulate;
  GStrv                 only_keys;
  guint16               latency_port, bandwidth_port;   /* announced by --peer auto's helper */
} RunOptions;

static void
run_options_clear (RunOptions *o)
{
  g_free (o->profile_id);
  g_free (o->peer);
  g_free (o->iface);
  g_free (o->operator_name);
  g_free (o->customer);
  g_free (o->site);
  g_free (o->out);
  g_free (o->resume);
  g_free (o->only);
  g_free (o->replay_path);
  g_free (o->root);
  g_free (o->token_file);
  g_free (o->emulate_text);
  g_free (o->report_lang);
  g_free (o->pairing_code);
  g_strfreev (o->only_keys);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunOptions, run_options_clear)

static gboolean
parse_options (RunOptions  *o,
               int         *argc,
               char      ***argv,
               int         *exit_code)
{
  const GOptionEntry entries[] = {
    { "profile", 0, 0, G_OPTION_ARG_STRING, &o->profile_id, N_("Profile to judge against (see “qualify-cli profiles”)"), N_("ID") },
    { "peer", 0, 0, G_OPTION_ARG_STRING, &o->peer, N_("Helper machine running “qualify-cli serve”, “auto” for the one that answers discovery on --iface (or on the only wired interface that is up), or “builtin” for this PC's loopback"), N_("HOST") },
    { "iface", 0, 0, G_OPTION_ARG_STRING, &o->iface, N_("Network interface under test"), N_("IF") },
    { "emulate", 0, 0, G_OPTION_ARG_STRING, &o->emulate_text, N_("Training with --peer builtin: the peer answers as this poor link would (never an acceptance)"), N_("delay=MS,jitter=MS,loss=PCT") },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &o->token_file, N_("The helper machine's access token (serve --token-file) for the network tests; only the path is kept in the session"), N_("FILE") },
    { "pairing-code", 0, 0, G_OPTION_ARG_STRING, &o->pairing_code, N_("The pairing code the helper machine shows (serve --pairing-code) for the network tests; “-” reads it from standard input (a code on the command line shows in the process list); never saved, so a resumed run needs it again"), N_("CODE") },
    { "operator", 0, 0, G_OPTION_ARG_FILENAME, &o->operator_name, N_("Name of the person testing"), N_("NAME") },
    { "customer", 0, 0, G_OPTION_ARG_FILENAME, &o->customer, N_("Customer name for the report"), N_("NAME") },
    { "site", 0, 0, G_OPTION_ARG_FILENAME, &o->site, N_("Site name for the report"), N_("NAME") },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &o->quick, N_("Run the profile's quick variant (short durations, same limits)"), NULL },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &o->out, N_("New session folder; one that already holds a session is refused, see --resume (default: a new one under ~/.local/share/qualify/sessions)"), N_("DIR") },
    { "resume", 0, 0, G_OPTION_ARG_FILENAME, &o->resume, N_("Continue an interrupted session, keeping its finished steps"), N_("DIR") },
    { "only", 0, 0, G_OPTION_ARG_STRING, &o->only, N_("Run only these tests, e.g. rt,ping (the others count as not run)"), N_("TESTS") },
    { "lang", 0, 0, G_OPTION_ARG_STRING, &o->report_lang, N_("Language of the reports: en or zh_CN (default: en)"), N_("LANG") },
    { "trace", 0, 0, G_OPTION_ARG_NONE, &o->trace, N_("Record the kernel’s trace during the real-time and control-cycle tests and name the cause of their worst spikes (root, or through Qualify’s system service qualifyd; off by default)"), NULL },
    { "no-sign", 0, 0, G_OPTION_ARG_NONE, &o->no_sign, N_("Write the reports unsigned even when a certificate exists"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, N_("Print one JSON object on stdout"), NULL },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &o->replay_path, N_("Play back a recorded session's progress and samples (training)"), N_("SESSION.json") },
    { "speed", 0, 0, G_OPTION_ARG_DOUBLE, &o->speed, N_("Replay speed factor (default 1 = real time)"), N_("X") },
    { "root", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &o->root, N_("Read /proc and /sys below DIR (for tests)"), N_("DIR") },
    { NULL }
  };

  o->speed = 1.0;
  return qf_cli_parse_options ("run", "", _("Run a whole qualification against a profile: every test, the verdicts, the advice, the session record."),
                               entries, argc, argv, exit_code);
}

/* A name option, taken as given (GOption would convert a STRING option from the locale's
 * character set and refuse UTF-8 under LANG=C): UTF-8 as is, else text in the locale's
 * character set, else refused with the option named. */
static gboolean
check_name_option (const char  *option,
                   char       **value)
{
  g_autoptr(GError) error = NULL;

  if (*value != NULL && !g_utf8_validate (*value, -1, NULL))
    {
      char *converted = g_locale_to_utf8 (*value, -1, NULL, NULL, NULL);
      if (converted != NULL)
        {
          g_free (*value);
          *value = converted;
        }
    }
  if (!qf_session_check_name (option, *value, &error))
    return qf_cli_error ("run", error), FALSE;
  return TRUE;
}

/* The names, --emulate and --only, checked and taken apart; an error is reported. */
static gboolean
check_run_options (RunOptions *o)
{
  g_autoptr(GError) error = NULL;

  if (!check_name_option ("--operator", &o->operator_name) || !check_name_option ("--customer", &o->customer)
      || !check_name_option ("--site", &o->site))
    return FALSE;

  if (o->emulate_text != NULL)
    {
      if (!qf_responder_emulation_parse (o->emulate_text, &o->emulate, &error))
        return qf_cli_error ("run", error), FALSE;
      if (g_strcmp0 (o->peer, "builtin") != 0)
        return qf_cli_errorf ("run", _("--emulate needs --peer builtin: only the built-in peer can imitate a link")), FALSE;
    }
  if (o->pairing_code != NULL)
    {
      g_autoptr(GBytes) token = NULL;
      if (qf_cli_client_token ("run", o->token_file, &o->pairing_code, &token) != QF_CLI_EXIT_OK)
        return FALSE;
    }
  if (o->only != NULL)
    {
      o->only_keys = g_strsplit (o->only, ",", -1);
      for (guint i = 0; o->only_keys[i] != NULL; i++)
        g_strstrip (o->only_keys[i]);
    }
  return TRUE;
}

/* --peer auto: the helper found by discovery replaces "auto" with its address (a link-local one
 * with its %interface scope, so every network test runs over a direct cable), and its interface
 * becomes the one under test when none was given. FALSE when an error was reported. */
static gboolean
resolve_auto_peer (RunOptions *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfHelperInfo) helper = NULL;

  if (g_strcmp0 (o->peer, "auto") != 0)
    return TRUE;
  helper = qf_cli_discover_auto_peer (o->iface, o->root, &error);
  if (helper == NULL)
    return qf_cli_error ("run", error), FALSE;
  /* a helper that asks for its code or token turns every network test away without one */
  if (helper->token_required && o->token_file == NULL && o->pairing_code == NULL)
    return qf_cli_errorf ("run", _("--peer auto: the helper machine “%s” requires its pairing code; "
                                   "give --pairing-code CODE (the code it shows), or --token-file FILE "
                                   "when it uses a token file"), helper->name), FALSE;
  g_free (o->peer);
  o->peer = g_strdup (qf_helper_info_best_address (helper));
  o->latency_port = helper->latency_port;
  o->bandwidth_port = helper->bandwidth_port;
  if (o->iface == NULL)
    o->iface = g_strdup (helper->iface);
  return TRUE;
}

/* --peer: "builtin" for this PC's loopback, or the helper machine's address. */
static void
peer_choice (const char  *peer,
             const char **kind,
             const char **address)
{
  *address = NULL;
  if (peer == NULL)
    *kind = "none";
  else if (g_str_equal (peer, "builtin"))
    *kind = "builtin";
  else
    {
      *kind = "remote";
      *address = peer;
    }
}

/* The session of --resume DIR, ready to continue; NULL when an error was reported. */
static QfSession *
resume_session (const RunOptions *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autofree char *quick_id = o->profile_id != NULL ? g_strconcat (o->profile_id, "-quick", NULL) : NULL;
  const char *kind, *address;
  const char *made_with;
  guint remaining;

  if (o->out != NULL)
    return qf_cli_errorf ("run", _("--resume continues in its own folder; leave out --out")), NULL;
  session = qf_session_load (o->resume, &error);
  if (session == NULL)
    return qf_cli_error ("run", error), NULL;
  made_with = qf_profile_get_id (qf_session_get_profile (session));
  if (o->profile_id != NULL && !g_str_equal (o->profile_id, made_with) && !g_str_equal (quick_id, made_with))
    return qf_cli_errorf ("run", _("the session in %s was made with profile “%s”, not “%s”"), o->resume,
                          made_with, o->profile_id), NULL;
  if (g_strcmp0 (qf_session_get_state (session), "complete") == 0)
    return qf_cli_errorf ("run", _("the session in %s is already complete; start a new one with --profile"), o->resume), NULL;
  if (!qf_session_set_dir (session, o->resume, &error))
    return qf_cli_error ("run", error), NULL;
  peer_choice (o->peer, &kind, &address);
  if (o->peer != NULL)
    {
      qf_session_set_peer (session, g_str_equal (kind, "builtin") ? "127.0.0.1" : address, kind);
      qf_session_set_peer_ports (session, o->latency_port, o->bandwidth_port);
    }
  /* the code is never saved: the person types it again (a token file instead replaces it); a
   * new --peer drops it, since the code belonged to the helper the session had */
  if (qf_session_get_pairing_code_used (session) && o->pairing_code == NULL && o->token_file == NULL)
    return qf_cli_errorf ("run", _("the session in %s reached its helper machine with a pairing code, which is never saved; give it again with --pairing-code CODE"),
                          o->resume), NULL;
  /* a new --only replaces the one the session was made with; without one, the stored choice holds */
  if (o->only_keys != NULL)
    {
      if (!qf_session_setup_check_only (session, (const char *const *) o->only_keys, &error))
        return qf_cli_error ("run", error), NULL;
      qf_session_set_only (session, (const char *const *) o->only_keys);
    }
  remaining = qf_session_prepare_resume (session);
  g_printerr (qf_ngettext ("Resuming %s: %u test left to run.\n",
                           "Resuming %s: %u tests left to run.\n", remaining),
              qf_session_get_dir (session), remaining);
  return g_steal_pointer (&session);
}

/* A wired interface under a wireless profile, or the other way round, is worth a word. */
static void
warn_network_kind (QfSession  *session,
                   const char *iface)
{
  QfProfile *profile = qf_session_get_profile (session);
  const char *kind = qf_json_get_string (qf_json_get_object (qf_session_get_json (session), "network"), "kind", "");
  const char *wanted = qf_profile_get_network_kind (profile);
  g_autofree char *shown = qf_text_clean (iface, -1);

  if ((g_str_equal (kind, "wired") || g_str_equal (kind, "wireless")) &&
      (g_str_equal (wanted, "wired") || g_str_equal (wanted, "wireless")) && !g_str_equal (kind, wanted))
    g_printerr (_("Note: profile “%s” is for a %s network, but %s is %s. Choose the matching profile for a fair verdict.\n"),
                qf_profile_get_id (profile),
                g_str_equal (wanted, "wired") ? C_("network", "wired") : C_("network", "wireless"), shown,
                g_str_equal (kind, "wired") ? C_("network", "wired") : C_("network", "wireless"));
}

/* The choices of a run from the command line (borrowing from o). */
static void
fill_choices (const RunOptions *o,
              QfSessionChoices *choices)
{
  *choices = (QfSessionChoices) {
    .quick = o->quick,
    .operator_name = o->operator_name,
    .customer = o->customer,
    .site = o->site,
    .root = o->root,
    .iface_name = o->iface,
    /* --token-file is applied once --only is checked, to new and resumed sessions alike */
    .token_file = NULL,
    .pairing_code = o->pairing_code,
    .out_dir = o->out,
    .only = (const char *const *) o->only_keys,
    .emulation = o->emulate_text != NULL ? &o->emulate : NULL,
  };
  peer_choice (o->peer, &choices->peer_kind, &choices->peer_address);
  choices->peer_latency_port = o->latency_port;
  choices->peer_bandwidth_port = o->bandwidth_port;
}

/* A new session of --profile, saved; NULL when an error was reported. */
static QfSession *
new_session (const RunOptions *o,
             QfSessionChoices *choices)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = NULL;
  g_autoptr(QfSession) session = NULL;

  if (o->profile_id == NULL)
    return qf_cli_errorf ("run", _("say which profile to use with --profile ID (see “qualify-cli profiles”)")), NULL;
  profile = qf_profile_find (o->profile_id, &error);
  if (profile == NULL)
    return qf_cli_error ("run", error), NULL;
  choices->profile = profile;
  session = qf_session_setup (choices, &error);
  choices->profile = NULL;
  if (g_error_matches (error, QF_SESSION_SETUP_ERROR, QF_SESSION_SETUP_ERROR_NO_QUICK_VARIANT))
    return qf_cli_errorf ("run", _("profile “%s” has no quick variant; run it without --quick"),
                          qf_profile_get_id (profile)), NULL;
  if (g_error_matches (error, QF_SESSION_ERROR, QF_SESSION_ERROR_EXISTS))
    {
      g_autofree char *shown = qf_text_clean (o->out, -1);
      g_autofree char *word = qf_text_shell_word (o->out);

      return qf_cli_errorf ("run", _("%s already holds a session, left as it is; continue it with “qualify-cli run --resume %s”, or choose another folder with --out"),
                            shown, word), NULL;
    }
  if (session == NULL)
    return qf_cli_error ("run", error), NULL;
  if (o->iface != NULL)
    warn_network_kind (session, o->iface);
  g_printerr (_("Session %s: profile “%s”, results in %s\n"), qf_session_get_id (session),
              qf_profile_get_id (qf_session_get_profile (session)), qf_session_get_dir (session));
  return g_steal_pointer (&session);
}

/* Runs the session's steps, prints the results and writes the reports beside it. */
static int
run_session (const RunOptions       *o,
             QfSession              *session,
             const QfSessionChoices *choices)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRunner) runner = NULL;
  int exit_code;

  if (o->token_file != NULL)
    {
      qf_session_set_pairing_code_used (session, FALSE);
      if (!qf_session_set_token_file (session, o->token_file, &error) || !qf_session_save (session, &error))
        return qf_cli_error ("run", error);
    }
  if (o->trace)
    {
      qf_session_set_trace (session, TRUE);
      if (!qf_session_save (session, &error))
        return qf_cli_error ("run", error);
    }
  runner = qf_session_setup_runner (session, choices);
  exit_code = run_loop (runner, o->json, &error);
  if (exit_code == QF_CLI_EXIT_ERROR)
    return qf_cli_error ("run", error);
  /* The acceptance reports beside session.json, signed when a certificate exists. */
  if (!qf_cli_report_session_dir (qf_session_get_dir (session), o->report_lang, o->no_sign, o->json, &error))
    return qf_cli_error ("run", error);
  return exit_code;
}

int
qf_cli_run (int    argc,
            char **argv)
{
  g_auto(RunOptions) o = { 0 };
  QfSessionChoices choices;
  g_autoptr(QfSession) session = NULL;
  int exit_code;

  if (!parse_options (&o, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("run", _("unexpected argument “%s”"), argv[1]);
  if (o.replay_path != NULL)
    {
      if (o.profile_id != NULL || o.resume != NULL || o.peer != NULL || o.out != NULL)
        return qf_cli_errorf ("run", _("--replay cannot be combined with --profile, --resume, --peer or --out"));
      return replay (o.replay_path, o.speed, o.json);
    }
  if (!check_run_options (&o) || !resolve_auto_peer (&o))
    return QF_CLI_EXIT_ERROR;
  fill_choices (&o, &choices);
  /* the network audit with NetworkManager's facts and the path to the peer */
  g_autoptr(GPtrArray) network_audit = o.iface != NULL && o.resume == NULL
    ? qf_cli_network_audit (o.root, o.iface, choices.peer_address, NULL) : NULL;
  choices.network_audit = network_audit;
  session = o.resume != NULL ? resume_session (&o) : new_session (&o, &choices);
  if (session == NULL)
    return QF_CLI_EXIT_ERROR;
  return run_session (&o, session, &choices);
}
