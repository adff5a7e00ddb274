/* test-verdict.c — verdict tables for the edge cases: equal to the limit, missing step, invalid
 * RT result, warn-only failures, and the overall verdict's order of precedence; stored sessions
 * judged again, untouched and edited (tests/core). */
#include "config.h"

#include <locale.h>
#include <string.h>

#include "qf-json.h"
#include "qf-profile.h"
#include "qf-session.h"
#include "qf-verdict.h"

static JsonObject *
parse (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return json_node_dup_object (json_parser_get_root (parser));
}

static QfCriterion
criterion (const char     *metric,
           QfComparison    comparison,
           gdouble         limit,
           QfCriterionRole role)
{
  QfCriterion c = { (char *) metric, (char *) "label", comparison, limit, (char *) "µs", role };
  return c;
}

static QfVerdict
judge (const QfCriterion *c,
       gboolean           done,
       const char        *result_text)
{
  g_autoptr(JsonObject) result = result_text ? parse (result_text) : NULL;
  g_autoptr(JsonObject) v = qf_verdict_judge ("rt", 0, c, done, result, "not run");
  QfVerdict verdict;

  g_assert_true (qf_verdict_from_string (json_object_get_string_member (v, "verdict"), &verdict));
  return verdict;
}

typedef struct
{
  const char     *metric;
  QfComparison    comparison;
  gdouble         limit;
  QfCriterionRole role;
  gboolean        done;
  const char     *result;
  QfVerdict       expected;
} Row;

static void
test_table (void)
{
  static const Row rows[] = {
    /* equal to the limit passes, both directions */
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, TRUE, "{\"avg_us\": 32}", QF_VERDICT_PASS },
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, TRUE, "{\"avg_us\": 32.0}", QF_VERDICT_PASS },
    { "up_mbps", QF_COMPARISON_AT_LEAST, 90, QF_ROLE_DECIDES, TRUE, "{\"up_mbps\": 90}", QF_VERDICT_PASS },
    { "avg_ms", QF_COMPARISON_AT_MOST, 0.476, QF_ROLE_DECIDES, TRUE, "{\"avg_ms\": 0.476}", QF_VERDICT_PASS },
    /* just outside */
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, TRUE, "{\"avg_us\": 32.001}", QF_VERDICT_FAIL },
    { "up_mbps", QF_COMPARISON_AT_LEAST, 90, QF_ROLE_DECIDES, TRUE, "{\"up_mbps\": 89.99}", QF_VERDICT_FAIL },
    /* a warning criterion never fails */
    { "max_us", QF_COMPARISON_AT_MOST, 2335, QF_ROLE_WARNS, TRUE, "{\"max_us\": 7000}", QF_VERDICT_WARN },
    { "max_us", QF_COMPARISON_AT_MOST, 2335, QF_ROLE_WARNS, TRUE, "{\"max_us\": 2335}", QF_VERDICT_PASS },
    /* RT measured without real-time priority: invalid, even with a passing figure */
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, TRUE,
      "{\"avg_us\": 3, \"valid\": false, \"reason\": \"measured without real-time priority\"}", QF_VERDICT_INVALID },
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, TRUE, "{\"avg_us\": 3, \"valid\": true}", QF_VERDICT_PASS },
    /* the figure is missing or not a number */
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, TRUE, "{\"min_us\": 3}", QF_VERDICT_INVALID },
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, TRUE, "{\"avg_us\": \"3\"}", QF_VERDICT_INVALID },
    /* the engine reports it had nothing to measure */
    { "monitor.summary.disk_util_max_pct", QF_COMPARISON_AT_MOST, 95, QF_ROLE_WARNS, TRUE,
      "{\"monitor\": {\"summary\": {\"disk_util_max_pct\": null}}}", QF_VERDICT_NOT_RUN },
    /* step not done: not run, whatever the (partial) result says */
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, FALSE, "{\"avg_us\": 3}", QF_VERDICT_NOT_RUN },
    { "avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES, FALSE, NULL, QF_VERDICT_NOT_RUN },
    /* key paths */
    { "threads[1].max_us", QF_COMPARISON_AT_MOST, 100, QF_ROLE_DECIDES, TRUE,
      "{\"threads\": [{\"max_us\": 1}, {\"max_us\": 101}]}", QF_VERDICT_FAIL },
    { "monitor.summary.cpu_idle_min_pct", QF_COMPARISON_AT_LEAST, 70, QF_ROLE_WARNS, TRUE,
      "{\"monitor\": {\"summary\": {\"cpu_idle_min_pct\": 12.5}}}", QF_VERDICT_WARN },
    { "threads[2].max_us", QF_COMPARISON_AT_MOST, 100, QF_ROLE_DECIDES, TRUE,
      "{\"threads\": [{\"max_us\": 1}]}", QF_VERDICT_INVALID },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      QfCriterion c = criterion (rows[i].metric, rows[i].comparison, rows[i].limit, rows[i].role);
      QfVerdict got = judge (&c, rows[i].done, rows[i].result);
      if (got != rows[i].expected)
        g_error ("row %u (%s %s %g on %s): expected %s, got %s", i, rows[i].metric,
                 qf_comparison_to_string (rows[i].comparison), rows[i].limit,
                 rows[i].result ? rows[i].result : "(none)",
                 qf_verdict_to_string (rows[i].expected), qf_verdict_to_string (got));
    }
}

static void
test_verdict_object (void)
{
  QfCriterion c = criterion ("avg_us", QF_COMPARISON_AT_MOST, 32, QF_ROLE_DECIDES);
  g_autoptr(JsonObject) result = parse ("{\"avg_us\": 104.2, \"valid\": false, \"reason\": \"no rt\"}");
  g_autoptr(JsonObject) v = qf_verdict_judge ("rt", 3, &c, TRUE, result, NULL);
  g_autoptr(JsonObject) ok_result = parse ("{\"avg_us\": 104.2}");
  g_autoptr(JsonObject) ok = qf_verdict_judge ("rt", 3, &c, TRUE, ok_result, NULL);

  g_assert_cmpstr (json_object_get_string_member (v, "verdict"), ==, "invalid");
  g_assert_cmpstr (json_object_get_string_member (v, "reason"), ==, "no rt");
  g_assert_cmpint (json_object_get_int_member (v, "index"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (ok, "verdict"), ==, "fail");
  /* the measured value is the engine's figure, unchanged */
  g_assert_cmpfloat (json_object_get_double_member (ok, "measured"), ==, 104.2);
  g_assert_cmpfloat (json_object_get_double_member (ok, "limit"), ==, 32);
  g_assert_cmpstr (json_object_get_string_member (ok, "comparison"), ==, "<=");
  g_assert_cmpstr (json_object_get_string_member (ok, "role"), ==, "decides");
  g_assert_true (json_object_get_null_member (ok, "reason"));
}

static JsonArray *
verdicts (const char *const *pairs)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; pairs[i] != NULL; i += 2)
    {
      JsonObject *v = json_object_new ();
      json_object_set_string_member (v, "role", pairs[i]);
      json_object_set_string_member (v, "verdict", pairs[i + 1]);
      json_array_add_object_element (array, v);
    }
  return array;
}

typedef struct
{
  const char *pairs[9];
  QfOverall   expected;
  guint       warnings;
} OverallRow;

static void
test_overall (void)
{
  static const OverallRow rows[] = {
    { { "decides", "pass", "warns", "pass", NULL }, QF_OVERALL_PASS, 0 },
    /* warn-only failures: still PASS, warnings shown beside */
    { { "decides", "pass", "warns", "warn", "warns", "warn", NULL }, QF_OVERALL_PASS, 2 },
    { { "decides", "pass", "decides", "fail", NULL }, QF_OVERALL_FAIL, 0 },
    /* FAIL wins over INVALID and INCOMPLETE */
    { { "decides", "invalid", "decides", "fail", "decides", "not-run", NULL }, QF_OVERALL_FAIL, 0 },
    { { "decides", "invalid", "decides", "not-run", NULL }, QF_OVERALL_INVALID, 0 },
    /* a missing step makes it INCOMPLETE */
    { { "decides", "pass", "decides", "not-run", "warns", "warn", NULL }, QF_OVERALL_INCOMPLETE, 1 },
    /* warnings that were not run or invalid do not decide */
    { { "decides", "pass", "warns", "not-run", "warns", "invalid", NULL }, QF_OVERALL_PASS, 0 },
    /* nothing deciding was measured */
    { { "warns", "pass", NULL }, QF_OVERALL_INCOMPLETE, 0 },
    /* a deciding figure measured on loopback, not over the link, passes nothing */
    { { "decides", "pass", "decides", "not-over-link", NULL }, QF_OVERALL_INCOMPLETE, 0 },
    { { "decides", "not-over-link", "decides", "fail", NULL }, QF_OVERALL_FAIL, 0 },
    { { "decides", "pass", "warns", "not-over-link", NULL }, QF_OVERALL_PASS, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(JsonArray) array = verdicts (rows[i].pairs);
      guint warnings = 99;
      QfOverall got = qf_verdict_overall (array, &warnings);
      g_autoptr(JsonObject) summary = qf_verdict_summary (array);

      if (got != rows[i].expected)
        g_error ("overall row %u: expected %s, got %s", i, qf_overall_to_string (rows[i].expected),
                 qf_overall_to_string (got));
      g_assert_cmpuint (warnings, ==, rows[i].warnings);
      g_assert_cmpstr (json_object_get_string_member (summary, "overall"), ==, qf_overall_to_string (got));
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (summary, "criteria")), ==,
                        json_array_get_length (array));
    }
}

static void
test_format (void)
{
  struct { gdouble v; const char *unit; const char *text; } rows[] = {
    { 104.2, "µs", "104 µs" }, { 0.476, "ms", "0.476 ms" }, { 95.64, "Mbit/s", "95.6 Mbit/s" },
    { 4600, "kB/s", "4600 kB/s" }, { 41.5, "%", "41.5 %" }, { 1, "", "1" }, { 2.373, "ms", "2.37 ms" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = qf_verdict_format_value (rows[i].v, rows[i].unit);
      g_assert_cmpstr (text, ==, rows[i].text);
    }
}

/* Stored sessions judged again */

/* A session file: name in tests/core/fixtures/sessions, or demo/NAME in the data folder (sessions
 * a real run wrote, with the profile copy holding the limits). */
static JsonObject *
load_session (const char *name)
{
  g_autofree char *path = g_str_has_prefix (name, "demo/")
                            ? g_build_filename (g_getenv ("QUALIFY_DATADIR"), name, NULL)
                            : g_test_build_filename (G_TEST_DIST, "core", "fixtures", "sessions", name, NULL);
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return parse (text);
}

static JsonObject *
step_of (JsonObject *session,
         const char *key)
{
  JsonArray *steps = json_object_get_array_member (session, "steps");

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      if (g_str_equal (json_object_get_string_member (step, "key"), key))
        return step;
    }
  g_assert_not_reached ();
}

/* The stored verdict of key's criterion metric: in the step (in_step) or in verdict.criteria. */
static JsonObject *
stored_verdict (JsonObject *session,
                const char *key,
                const char *metric,
                gboolean    in_step)
{
  JsonArray *list = in_step ? json_object_get_array_member (step_of (session, key), "verdicts")
                            : json_object_get_array_member (json_object_get_object_member (session, "verdict"),
                                                            "criteria");

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *v = json_array_get_object_element (list, i);
      if (g_str_equal (json_object_get_string_member (v, "key"), key) &&
          g_str_equal (json_object_get_string_member (v, "metric"), metric))
        return v;
    }
  g_assert_not_reached ();
}

/* Judging must refuse the session, naming the test and the metric (NULL: no metric named). */
static void
assert_refused (JsonObject *session,
                const char *key,
                const char *metric,
                const char *says)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) steps = NULL;
  g_autoptr(JsonObject) judged = qf_verdict_judge_session (session, &steps, &error);
  g_autofree char *test = g_strdup_printf ("test “%s”", key);
  g_autofree char *named = g_strdup_printf ("metric “%s”", metric);

  g_assert_null (judged);
  g_assert_error (error, QF_VERDICT_ERROR, QF_VERDICT_ERROR_DISAGREES);
  if (key != NULL)
    g_assert_nonnull (strstr (error->message, test));
  if (metric != NULL)
    g_assert_nonnull (strstr (error->message, named));
  g_assert_nonnull (strstr (error->message, says));
}

/* Every session a run wrote, and the report fixtures, judge to exactly what they store. */
static void
test_session_untouched (void)
{
  const char *names[] = { "pass.json", "fail.json", "demo/demo-pass.session.json", "demo/demo-fail.session.json" };

  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autoptr(JsonObject) session = load_session (names[n]);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonArray) steps = NULL;
      g_autoptr(JsonObject) judged = qf_verdict_judge_session (session, &steps, &error);
      JsonObject *stored = json_object_get_object_member (session, "verdict");
      JsonArray *criteria, *stored_criteria = json_object_get_array_member (stored, "criteria");

      g_assert_no_error (error);
      g_assert_nonnull (judged);
      g_assert_cmpstr (json_object_get_string_member (judged, "overall"), ==,
                       json_object_get_string_member (stored, "overall"));
      criteria = json_object_get_array_member (judged, "criteria");
      g_assert_cmpuint (json_array_get_length (criteria), ==, json_array_get_length (stored_criteria));
      g_assert_cmpuint (json_array_get_length (criteria), >, 0);
      for (guint i = 0; i < json_array_get_length (criteria); i++)
        {
          JsonObject *j = json_array_get_object_element (criteria, i);
          JsonObject *s = json_array_get_object_element (stored_criteria, i);
          JsonNode *jm = json_object_get_member (j, "measured"), *sm = json_object_get_member (s, "measured");

          g_assert_cmpstr (json_object_get_string_member (j, "verdict"), ==, json_object_get_string_member (s, "verdict"));
          g_assert_cmpint (JSON_NODE_HOLDS_NULL (jm), ==, JSON_NODE_HOLDS_NULL (sm));
          /* The engine's figure itself, not a rounded copy. */
          if (!JSON_NODE_HOLDS_NULL (jm))
            g_assert_true (json_node_get_double (jm) == json_node_get_double (sm));
          g_assert_true (json_node_equal (json_object_get_member (j, "reason"), json_object_get_member (s, "reason")));
        }
      g_assert_cmpuint (json_array_get_length (steps), ==,
                        json_array_get_length (json_object_get_array_member (session, "steps")));
    }
}

/* A 74 µs average whose stored verdicts (step and table alike) say PASS for "≤ 32 µs". */
static void
test_session_edited_verdict (void)
{
  const char *names[] = { "fail.json", "demo/demo-fail.session.json" };

  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autoptr(JsonObject) session = load_session (names[n]);
      JsonObject *result = json_object_get_object_member (step_of (session, "rt"), "result");

      json_object_set_double_member (result, "avg_us", 74);
      for (int in_step = 0; in_step < 2; in_step++)
        {
          JsonObject *v = stored_verdict (session, "rt", "avg_us", in_step);
          json_object_set_double_member (v, "measured", 74);
          json_object_set_string_member (v, "verdict", "pass");
        }
      assert_refused (session, "rt", "avg_us", "the stored verdict is PASS, but the figure (74 µs) against the limit ≤ 32 µs gives FAIL");
    }
}

/* Only the step's own verdict edited: the table would say FAIL and the section PASS. */
static void
test_session_edited_step_only (void)
{
  const char *names[] = { "fail.json", "demo/demo-fail.session.json" };

  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autoptr(JsonObject) session = load_session (names[n]);

      json_object_set_string_member (stored_verdict (session, "rt", "avg_us", TRUE), "verdict", "pass");
      assert_refused (session, "rt", "avg_us", "the stored verdict is PASS");
    }
  /* …and the table only. */
  {
    g_autoptr(JsonObject) session = load_session ("fail.json");

    json_object_set_string_member (stored_verdict (session, "bandwidth", "mbps", FALSE), "verdict", "warn");
    assert_refused (session, "bandwidth", "mbps", "the stored verdict is WARN");
  }
}

/* The figure edited, the verdicts left: the table agrees with them, not with the result. */
static void
test_session_edited_figure (void)
{
  g_autoptr(JsonObject) session = load_session ("pass.json");

  json_object_set_double_member (json_object_get_object_member (step_of (session, "rt"), "result"), "avg_us", 74);
  assert_refused (session, "rt", "avg_us", "the stored figure (11.69 µs) is not the one in the test's result (74 µs)");
}

/* The limit edited in the verdicts (consistently) but not in the profile the session holds. */
static void
test_session_edited_limit (void)
{
  g_autoptr(JsonObject) session = load_session ("demo/demo-fail.session.json");

  for (int in_step = 0; in_step < 2; in_step++)
    {
      JsonObject *v = stored_verdict (session, "rt", "avg_us", in_step);
      json_object_set_double_member (v, "limit", 100);
      json_object_set_string_member (v, "verdict", "pass");
    }
  assert_refused (session, "rt", "avg_us", "is not the profile's (“Average latency” avg_us ≤ 32 µs, decides)");
}

/* A criterion with no figure (not run, or missing from the result) must be stored as such. */
static void
test_session_no_figure (void)
{
  g_autoptr(JsonObject) skipped = load_session ("pass.json");
  g_autoptr(JsonObject) missing = load_session ("demo/demo-pass.session.json");

  /* The skipped cycle test given a figure and a PASS. */
  for (int in_step = 0; in_step < 2; in_step++)
    {
      JsonObject *v = stored_verdict (skipped, "cycle", "max_us", in_step);
      json_object_set_double_member (v, "measured", 120);
      json_object_set_string_member (v, "verdict", "pass");
    }
  assert_refused (skipped, "cycle", "max_us", "the stored figure (120 µs) is not the one in the test's result (no figure)");
  /* A figure the result does not hold, while its verdict still says PASS. */
  json_object_remove_member (json_object_get_object_member (step_of (missing, "ping"), "result"), "avg_ms");
  assert_refused (missing, "ping", "avg_ms", "the stored figure");
}

/* The overall verdict alone, and a verdict for a criterion the profile does not have. */
static void
test_session_edited_overall (void)
{
  g_autoptr(JsonObject) overall = load_session ("fail.json");
  g_autoptr(JsonObject) extra = load_session ("demo/demo-pass.session.json");
  JsonObject *copy;

  json_object_set_string_member (json_object_get_object_member (overall, "verdict"), "overall", "pass");
  assert_refused (overall, NULL, NULL, "the stored overall verdict is pass, but its criteria give fail");

  copy = json_object_ref (stored_verdict (extra, "rt", "avg_us", TRUE));
  json_array_add_object_element (json_object_get_array_member (step_of (extra, "rt"), "verdicts"), copy);
  assert_refused (extra, "rt", "avg_us", "a criterion its profile does not have");
}


/* The network tests of a wired (or wireless) profile run against the built-in peer measured this
 * PC's loopback, not the link: their criteria are "not-over-link", never a pass, and the session
 * so judged still judges again to itself (a signed report of it verifies). */
static void
test_builtin_peer_wired (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("QUALIFY_DATADIR"), "demo", "demo-pass.session.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autoptr(JsonObject) judged = NULL;
  g_autoptr(JsonObject) remote = parse ("{\"profile\": {\"network_kind\": \"wired\"}, \"peer\": {\"kind\": \"remote\"}}");
  g_autoptr(JsonObject) wifi = parse ("{\"profile\": {\"network_kind\": \"wireless\"}, \"peer\": {\"kind\": \"builtin\"}}");
  g_autoptr(JsonObject) any = parse ("{\"profile\": {\"network_kind\": \"any\"}, \"peer\": {\"kind\": \"builtin\"}}");
  JsonArray *criteria;
  guint network = 0, other = 0;

  g_assert_true (qf_verdict_session_over_link (remote));
  g_assert_false (qf_verdict_session_over_link (wifi));
  g_assert_true (qf_verdict_session_over_link (any));
  /* training: the built-in peer imitated a link and is judged as that link */
  {
    g_autoptr(JsonObject) training = parse ("{\"profile\": {\"network_kind\": \"wired\"}, \"peer\": {\"kind\": \"builtin\"},"
                                            " \"training\": {\"link\": \"poor-wifi\"}}");
    g_assert_true (qf_verdict_session_over_link (training));
  }
  g_assert_true (qf_verdict_step_is_network ("latency"));
  g_assert_true (qf_verdict_step_is_network ("ping"));
  g_assert_false (qf_verdict_step_is_network ("rt"));
  g_assert_cmpstr (qf_verdict_to_string (QF_VERDICT_NOT_OVER_LINK), ==, "not-over-link");

  /* a wired profile, every figure within its limit (the demo of a pass), the peer built in */
  session = qf_session_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (qf_session_get_peer_kind (session), ==, "builtin");
  g_assert_cmpint (qf_session_get_overall (session, NULL), ==, QF_OVERALL_INCOMPLETE);
  criteria = qf_session_get_verdicts (session);
  for (guint i = 0; i < json_array_get_length (criteria); i++)
    {
      JsonObject *v = json_array_get_object_element (criteria, i);
      gint step = qf_session_find_step (session, json_object_get_string_member (v, "key"));
      const char *test = json_object_get_string_member (qf_session_get_step (session, step), "test");

      if (qf_verdict_step_is_network (test))
        {
          network++;
          g_assert_cmpstr (json_object_get_string_member (v, "verdict"), ==, "not-over-link");
          g_assert_false (json_node_is_null (json_object_get_member (v, "measured")));
          g_assert_nonnull (strstr (json_object_get_string_member (v, "reason"), "link"));
        }
      else
        {
          other++;
          g_assert_cmpstr (json_object_get_string_member (v, "verdict"), !=, "not-over-link");
        }
    }
  g_assert_cmpuint (network, >, 0);
  g_assert_cmpuint (other, >, 0);
  g_assert_cmpint (qf_json_get_double (qf_json_get_object (qf_json_get_object (qf_session_get_json (session), "verdict"),
                                                         "counts"), "not-over-link", -1), ==, network);

  /* the session as now stored judges again to itself */
  judged = qf_verdict_judge_session (qf_session_get_json (session), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (judged, "overall"), ==, "incomplete");

  /* a stored PASS for such a criterion is refused */
  {
    JsonObject *root = qf_session_get_json (session);
    JsonArray *list = json_object_get_array_member (json_object_get_object_member (root, "verdict"), "criteria");

    for (guint i = 0; i < json_array_get_length (list); i++)
      {
        JsonObject *v = json_array_get_object_element (list, i);
        if (g_str_equal (json_object_get_string_member (v, "verdict"), "not-over-link"))
          {
            json_object_set_string_member (v, "verdict", "pass");
            assert_refused (root, json_object_get_string_member (v, "key"), json_object_get_string_member (v, "metric"),
                            "NOT OVER THE LINK");
            break;
          }
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/verdict/table", test_table);
  g_test_add_func ("/core/verdict/object", test_verdict_object);
  g_test_add_func ("/core/verdict/overall", test_overall);
  g_test_add_func ("/core/verdict/format", test_format);
  g_test_add_func ("/core/verdict/session/untouched", test_session_untouched);
  g_test_add_func ("/core/verdict/session/edited-verdict", test_session_edited_verdict);
  g_test_add_func ("/core/verdict/session/edited-step-only", test_session_edited_step_only);
  g_test_add_func ("/core/verdict/session/edited-figure", test_session_edited_figure);
  g_test_add_func ("/core/verdict/session/edited-limit", test_session_edited_limit);
  g_test_add_func ("/core/verdict/session/no-figure", test_session_no_figure);
  g_test_add_func ("/core/verdict/session/edited-overall", test_session_edited_overall);
  g_test_add_func ("/core/verdict/builtin-peer-wired", test_builtin_peer_wired);
  return g_test_run ();
}
