/* qf-verdict.c — criteria judged on the engines' result JSON (src/core). See qf-verdict.h. */
#include "config.h"

#include <math.h>

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-format.h"
#include "qf-verdict.h"
#include "qf-step.h"

static const char *const verdict_names[] = { "pass", "fail", "warn", "not-run", "invalid",
                                              "not-over-link" };
#define N_VERDICTS G_N_ELEMENTS (verdict_names)
static const char *const overall_names[] = { "pass", "fail", "invalid", "incomplete" };

G_DEFINE_QUARK (qf-verdict-error-quark, qf_verdict_error)

const char *
qf_verdict_to_string (QfVerdict verdict)
{
  g_return_val_if_fail (verdict <= QF_VERDICT_NOT_OVER_LINK, "invalid");
  return verdict_names[verdict];
}

gboolean
qf_verdict_from_string (const char *text,
                        QfVerdict  *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (verdict_names); i++)
    if (g_strcmp0 (text, verdict_names[i]) == 0)
      {
        *out = (QfVerdict) i;
        return TRUE;
      }
  return FALSE;
}

const char *
qf_verdict_to_label (QfVerdict verdict)
{
  switch (verdict)
    {
    case QF_VERDICT_PASS:
      return _("PASS");
    case QF_VERDICT_FAIL:
      return _("FAIL");
    case QF_VERDICT_WARN:
      return _("WARN");
    case QF_VERDICT_NOT_RUN:
      return _("NOT RUN");
    case QF_VERDICT_NOT_OVER_LINK:
      return _("NOT OVER THE LINK");
    case QF_VERDICT_INVALID:
    default:
      return _("INVALID");
    }
}

const char *
qf_verdict_to_symbol (QfVerdict verdict)
{
  static const char *const symbols[] = { "✓", "✗", "!", "—", "?", "~" };

  g_return_val_if_fail (verdict <= QF_VERDICT_NOT_OVER_LINK, "?");
  return symbols[verdict];
}

const char *
qf_overall_to_string (QfOverall overall)
{
  g_return_val_if_fail (overall <= QF_OVERALL_INCOMPLETE, "incomplete");
  return overall_names[overall];
}

gboolean
qf_overall_from_string (const char *text,
                        QfOverall  *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (overall_names); i++)
    if (g_strcmp0 (text, overall_names[i]) == 0)
      {
        *out = (QfOverall) i;
        return TRUE;
      }
  return FALSE;
}

const char *
qf_overall_to_label (QfOverall overall)
{
  switch (overall)
    {
    case QF_OVERALL_PASS:
      return _("PASS");
    case QF_OVERALL_FAIL:
      return _("FAIL");
    case QF_OVERALL_INVALID:
      return _("INVALID");
    case QF_OVERALL_INCOMPLETE:
    default:
      return _("INCOMPLETE");
    }
}

JsonObject *
qf_verdict_judge (const char        *key,
                  guint              index,
                  const QfCriterion *criterion,
                  gboolean           done,
                  JsonObject        *result,
                  const char        *not_run_reason)
{
  JsonObject *v = json_object_new ();
  QfVerdict verdict;
  const char *reason = NULL;
  g_autofree char *reason_owned = NULL;
  gdouble measured = 0;
  gboolean have_measured = FALSE;

  g_return_val_if_fail (key != NULL && criterion != NULL, v);

  json_object_set_string_member (v, "key", key);
  json_object_set_int_member (v, "index", index);
  json_object_set_string_member (v, "metric", criterion->metric);
  json_object_set_string_member (v, "label", criterion->label);
  json_object_set_string_member (v, "comparison", qf_comparison_to_string (criterion->comparison));
  json_object_set_double_member (v, "limit", criterion->limit);
  json_object_set_string_member (v, "unit", criterion->unit);
  json_object_set_string_member (v, "role", qf_role_to_string (criterion->role));

  if (!done || result == NULL)
    {
      verdict = QF_VERDICT_NOT_RUN;
      reason = not_run_reason != NULL ? not_run_reason : _("The test was not run.");
    }
  else
    {
      JsonNode *valid = json_object_get_member (result, "valid");
      JsonNode *figure;

      have_measured = qf_json_get_path_double (result, criterion->metric, &measured);
      if (valid != NULL && JSON_NODE_HOLDS_VALUE (valid) &&
          json_node_get_value_type (valid) == G_TYPE_BOOLEAN && !json_node_get_boolean (valid))
        {
          verdict = QF_VERDICT_INVALID;
          reason = qf_json_get_string (result, "reason", NULL);
          if (reason == NULL)
            reason = _("The test reported its own result as not valid.");
        }
      else if (!have_measured && (figure = qf_json_get_path (result, criterion->metric)) != NULL &&
               JSON_NODE_HOLDS_NULL (figure))
        {
          /* The engine says it had nothing to measure (e.g. no disk did any I/O). */
          verdict = QF_VERDICT_NOT_RUN;
          reason = reason_owned = g_strdup_printf (_("The test measured no figure “%s” (null in its result)."),
                                                   criterion->metric);
        }
      else if (!have_measured || !isfinite (measured))
        {
          verdict = QF_VERDICT_INVALID;
          have_measured = FALSE;
          reason = reason_owned = g_strdup_printf (_("The result holds no figure “%s”."),
                                                   criterion->metric);
        }
      else
        {
          gboolean within = criterion->comparison == QF_COMPARISON_AT_MOST
                              ? measured <= criterion->limit
                              : measured >= criterion->limit;
          if (within)
            verdict = QF_VERDICT_PASS;
          else
            verdict = criterion->role == QF_ROLE_DECIDES ? QF_VERDICT_FAIL : QF_VERDICT_WARN;
        }
    }

  if (have_measured)
    json_object_set_double_member (v, "measured", measured);
  else
    json_object_set_null_member (v, "measured");
  json_object_set_string_member (v, "verdict", qf_verdict_to_string (verdict));
  if (reason != NULL)
    json_object_set_string_member (v, "reason", reason);
  else
    json_object_set_null_member (v, "reason");
  return v;
}

JsonArray *
qf_verdict_judge_test (const QfProfileTest *test,
                       gboolean             done,
                       JsonObject          *result,
                       const char          *not_run_reason)
{
  JsonArray *verdicts = json_array_new ();

  g_return_val_if_fail (test != NULL, verdicts);

  for (guint i = 0; i < test->criteria->len; i++)
    json_array_add_object_element (verdicts,
                                   qf_verdict_judge (test->key, i, g_ptr_array_index (test->criteria, i),
                                                     done, result, not_run_reason));
  return verdicts;
}

gboolean
qf_verdict_session_over_link (JsonObject *session)
{
  const char *network_kind = qf_json_get_string (qf_json_get_object (session, "profile"), "network_kind", NULL);
  const char *peer_kind = qf_json_get_string (qf_json_get_object (session, "peer"), "kind", NULL);

  g_return_val_if_fail (session != NULL, TRUE);

  if (g_strcmp0 (network_kind, "wired") != 0 && g_strcmp0 (network_kind, "wireless") != 0)
    return TRUE;
  /* training: the built-in peer imitated a link, judged as that link would be (the session and
   * its report say it is no acceptance) */
  if (qf_json_get_object (session, "training") != NULL)
    return TRUE;
  return g_strcmp0 (peer_kind, "builtin") != 0;
}

gboolean
qf_verdict_step_is_network (const char *step_id)
{
  const QfStepInfo *info = step_id != NULL ? qf_step_lookup (step_id) : NULL;

  return info != NULL && qf_step_needs_peer (info);
}

void
qf_verdict_mark_not_over_link (JsonArray *verdicts)
{
  g_return_if_fail (verdicts != NULL);

  for (guint i = 0; i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      const char *verdict = v != NULL ? qf_json_get_string (v, "verdict", NULL) : NULL;

      if (g_strcmp0 (verdict, "pass") != 0 && g_strcmp0 (verdict, "warn") != 0 &&
          g_strcmp0 (verdict, "fail") != 0)
        continue;
      json_object_set_string_member (v, "verdict", qf_verdict_to_string (QF_VERDICT_NOT_OVER_LINK));
      json_object_set_string_member (v, "reason",
                                     _("Not measured over the link: the peer was the built-in peer on this PC's loopback, so this figure says nothing about the wired or wireless link the profile is for. Run the network tests again with a helper machine."));
    }
}

static void
count_verdicts (JsonArray *verdicts,
                guint      counts[N_VERDICTS],
                gboolean   deciding[N_VERDICTS])
{
  for (guint i = 0; i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      QfVerdict verdict;

      if (v == NULL || !qf_verdict_from_string (qf_json_get_string (v, "verdict", NULL), &verdict))
        continue;
      counts[verdict]++;
      if (g_strcmp0 (qf_json_get_string (v, "role", NULL), "decides") == 0)
        deciding[verdict] = TRUE;
    }
}

QfOverall
qf_verdict_overall (JsonArray *verdicts,
                    guint     *warnings)
{
  guint counts[N_VERDICTS] = { 0 };
  gboolean deciding[N_VERDICTS] = { FALSE };

  g_return_val_if_fail (verdicts != NULL, QF_OVERALL_INCOMPLETE);

  count_verdicts (verdicts, counts, deciding);
  if (warnings != NULL)
    *warnings = counts[QF_VERDICT_WARN];
  if (deciding[QF_VERDICT_FAIL])
    return QF_OVERALL_FAIL;
  if (deciding[QF_VERDICT_INVALID])
    return QF_OVERALL_INVALID;
  if (deciding[QF_VERDICT_NOT_RUN] || deciding[QF_VERDICT_NOT_OVER_LINK])
    return QF_OVERALL_INCOMPLETE;
  /* A profile whose deciding criteria were all left out decides nothing. */
  if (!deciding[QF_VERDICT_PASS])
    return QF_OVERALL_INCOMPLETE;
  return QF_OVERALL_PASS;
}

JsonObject *
qf_verdict_summary (JsonArray *verdicts)
{
  JsonObject *summary = json_object_new ();
  JsonObject *counts_obj = json_object_new ();
  JsonArray *copy = json_array_new ();
  guint counts[N_VERDICTS] = { 0 };
  gboolean deciding[N_VERDICTS] = { FALSE };
  guint warnings = 0;
  QfOverall overall = qf_verdict_overall (verdicts, &warnings);

  count_verdicts (verdicts, counts, deciding);
  for (guint i = 0; i < G_N_ELEMENTS (verdict_names); i++)
    json_object_set_int_member (counts_obj, verdict_names[i], counts[i]);
  for (guint i = 0; i < json_array_get_length (verdicts); i++)
    json_array_add_element (copy, qf_json_node_deep_copy (json_array_get_element (verdicts, i)));

  json_object_set_string_member (summary, "overall", qf_overall_to_string (overall));
  json_object_set_int_member (summary, "warnings", warnings);
  json_object_set_object_member (summary, "counts", counts_obj);
  json_object_set_array_member (summary, "criteria", copy);
  return summary;
}

/* ---- a stored session judged again ------------------------------------------------------ */

/* The element i of a list when it is an object, else NULL (also past its end). */
static JsonObject *
object_at (JsonArray *list,
           guint      i)
{
  JsonNode *node;

  if (list == NULL || i >= json_array_get_length (list))
    return NULL;
  node = json_array_get_element (list, i);
  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* Sets error to "test “key”, metric “metric”: detail". Always FALSE. */
static gboolean G_GNUC_PRINTF (4, 5)
disagree (GError    **error,
          const char *key,
          const char *metric,
          const char *format,
          ...)
{
  g_autofree char *detail = NULL;
  va_list ap;

  va_start (ap, format);
  detail = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, QF_VERDICT_ERROR, QF_VERDICT_ERROR_DISAGREES, _("test “%s”, metric “%s”: %s"),
               key != NULL ? key : "?", metric != NULL ? metric : "?", detail);
  return FALSE;
}

/* A number of a verdict object exactly as stored, with its unit ("73.99 µs"): in a message
 * about a difference, no rounding may hide it. */
static char *
exact_value (JsonObject *v,
             const char *member)
{
  const char *unit = qf_json_get_string (v, "unit", "");
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  gdouble value;

  if (!qf_json_get_path_double (v, member, &value))
    return g_strdup (_("no figure"));
  g_ascii_formatd (number, sizeof number, "%.15g", value);
  return g_strdup_printf ("%s%s%s", number, *unit != '\0' ? " " : "", unit);
}

/* "≤ 32 µs" */
static char *
limit_text (JsonObject *v)
{
  g_autofree char *limit = exact_value (v, "limit");

  return g_strdup_printf ("%s %s", g_strcmp0 (qf_json_get_string (v, "comparison", NULL), ">=") == 0 ? "≥" : "≤",
                          limit);
}

/* "“Average latency” avg_us ≤ 32 µs, decides" */
static char *
criterion_text (JsonObject *v)
{
  g_autofree char *limit = limit_text (v);

  return g_strdup_printf ("“%s” %s %s, %s", qf_json_get_string (v, "label", ""),
                          qf_json_get_string (v, "metric", "?"), limit, qf_json_get_string (v, "role", "?"));
}

/* "PASS" for "pass"; an unknown word as it is. */
static const char *
verdict_word (const char *text)
{
  QfVerdict verdict;

  if (text != NULL && qf_verdict_from_string (text, &verdict))
    return qf_verdict_to_label (verdict);
  return text != NULL ? text : _("none");
}

/* The same criterion at the same place: key, index, metric, label, comparison, limit, unit,
 * role. */
static gboolean
same_criterion (JsonObject *judged,
                JsonObject *stored)
{
  static const char *const texts[] = { "key", "metric", "label", "comparison", "unit", "role", NULL };
  gdouble judged_limit = 0, stored_limit = 0, judged_index = 0, stored_index = 0;

  for (guint i = 0; texts[i] != NULL; i++)
    if (g_strcmp0 (qf_json_get_string (judged, texts[i], NULL), qf_json_get_string (stored, texts[i], NULL)) != 0)
      return FALSE;
  return qf_json_get_path_double (judged, "limit", &judged_limit) &&
         qf_json_get_path_double (stored, "limit", &stored_limit) && judged_limit == stored_limit &&
         qf_json_get_path_double (judged, "index", &judged_index) &&
         qf_json_get_path_double (stored, "index", &stored_index) && judged_index == stored_index;
}

/* Whether the stored verdict says what the judged one does: the same criterion, the same
 * figure (or the same absence of one), the same verdict. Else the difference in error. */
static gboolean
same_verdict (JsonObject  *judged,
              JsonObject  *stored,
              GError     **error)
{
  const char *key = qf_json_get_string (judged, "key", NULL);
  const char *metric = qf_json_get_string (judged, "metric", NULL);
  const char *verdict = qf_json_get_string (judged, "verdict", NULL);
  const char *stored_verdict = qf_json_get_string (stored, "verdict", NULL);
  gdouble judged_figure = 0, stored_figure = 0;
  gboolean judged_has = qf_json_get_path_double (judged, "measured", &judged_figure);
  gboolean stored_has = qf_json_get_path_double (stored, "measured", &stored_figure);
  g_autofree char *want = NULL, *got = NULL;

  if (stored == NULL)
    return disagree (error, key, metric, _("the session holds no verdict for this criterion"));
  if (!same_criterion (judged, stored))
    {
      want = criterion_text (judged);
      got = criterion_text (stored);
      return disagree (error, key, metric, _("the stored criterion (%s) is not the profile's (%s)"), got, want);
    }
  if (judged_has != stored_has || judged_figure != stored_figure)
    {
      want = exact_value (judged, "measured");
      got = exact_value (stored, "measured");
      return disagree (error, key, metric, _("the stored figure (%s) is not the one in the test's result (%s)"),
                       got, want);
    }
  if (g_strcmp0 (verdict, stored_verdict) != 0)
    {
      want = exact_value (judged, "measured");
      got = limit_text (judged);
      return disagree (error, key, metric, _("the stored verdict is %s, but the figure (%s) against the limit %s gives %s"),
                       verdict_word (stored_verdict), want, got, verdict_word (verdict));
    }
  return TRUE;
}

/* Element i of judged against element i of stored; one missing on either side disagrees. */
static gboolean
same_at (JsonArray  *judged,
         JsonArray  *stored,
         guint       i,
         GError    **error)
{
  JsonObject *j = object_at (judged, i), *s = object_at (stored, i);

  if (j == NULL)
    return disagree (error, qf_json_get_string (s, "key", NULL), qf_json_get_string (s, "metric", NULL),
                     _("the session holds a verdict for a criterion its profile does not have"));
  return same_verdict (j, s, error);
}

/* The criterion a stored verdict names (strings borrowed from v), for a session whose profile
 * copy holds no tests. FALSE when it names none that can be judged. */
static gboolean
criterion_of_verdict (JsonObject  *v,
                      QfCriterion *c)
{
  const char *comparison = qf_json_get_string (v, "comparison", NULL);
  const char *role = qf_json_get_string (v, "role", NULL);

  c->metric = (char *) qf_json_get_string (v, "metric", NULL);
  c->label = (char *) qf_json_get_string (v, "label", "");
  c->unit = (char *) qf_json_get_string (v, "unit", "");
  c->comparison = g_strcmp0 (comparison, ">=") == 0 ? QF_COMPARISON_AT_LEAST : QF_COMPARISON_AT_MOST;
  c->role = g_strcmp0 (role, "warns") == 0 ? QF_ROLE_WARNS : QF_ROLE_DECIDES;
  return c->metric != NULL && qf_json_get_path_double (v, "limit", &c->limit) &&
         (g_strcmp0 (comparison, "<=") == 0 || g_strcmp0 (comparison, ">=") == 0) &&
         (g_strcmp0 (role, "decides") == 0 || g_strcmp0 (role, "warns") == 0);
}

/* The step's criteria judged with the limits its stored verdicts name. */
static JsonArray *
judge_by_stored_limits (const char  *key,
                        JsonArray   *stored,
                        gboolean     done,
                        JsonObject  *result,
                        const char  *reason,
                        GError     **error)
{
  g_autoptr(JsonArray) judged = json_array_new ();

  for (guint i = 0; stored != NULL && i < json_array_get_length (stored); i++)
    {
      JsonObject *v = object_at (stored, i);
      QfCriterion c;

      if (!criterion_of_verdict (v, &c))
        return disagree (error, key, qf_json_get_string (v, "metric", NULL),
                         _("its stored criterion cannot be read, so it cannot be judged")), NULL;
      json_array_add_object_element (judged, qf_verdict_judge (key, i, &c, done, result, reason));
    }
  return g_steal_pointer (&judged);
}

/* A not-run or invalid verdict says why in the words of the run (its language, its status
 * reason): the stored reason stays once the verdict itself agrees. */
static void
keep_stored_reason (JsonObject *judged,
                    JsonObject *stored)
{
  const char *verdict = qf_json_get_string (judged, "verdict", "");
  const char *reason = qf_json_get_string (stored, "reason", NULL);

  if (!g_str_equal (verdict, "not-run") && !g_str_equal (verdict, "invalid") &&
      !g_str_equal (verdict, "not-over-link"))
    return;
  qf_json_set_string_or_null (judged, "reason", reason);
}

/* One step's criteria judged again and compared with its stored verdicts (profile NULL: with the
 * limits those name). NULL with the disagreement in error. */
static JsonArray *
judge_step (QfProfile   *profile,
            JsonObject  *step,
            gboolean     over_link,
            GError     **error)
{
  const char *key = qf_json_get_string (step, "key", "?");
  JsonArray *stored = qf_json_get_array (step, "verdicts");
  JsonObject *result = qf_json_get_object (step, "result");
  gboolean done = g_strcmp0 (qf_json_get_string (step, "status", NULL), "done") == 0;
  const char *reason = qf_json_get_string (step, "status_reason", NULL);
  g_autoptr(JsonArray) judged = NULL;
  guint n;

  if (profile != NULL)
    {
      const QfProfileTest *test = qf_profile_find_test (profile, key);
      judged = test != NULL ? qf_verdict_judge_test (test, done, result, reason) : json_array_new ();
    }
  else if ((judged = judge_by_stored_limits (key, stored, done, result, reason, error)) == NULL)
    return NULL;
  if (!over_link && qf_verdict_step_is_network (qf_json_get_string (step, "test", key)))
    qf_verdict_mark_not_over_link (judged);
  n = MAX (json_array_get_length (judged), stored != NULL ? json_array_get_length (stored) : 0);
  for (guint i = 0; i < n; i++)
    {
      if (!same_at (judged, stored, i, error))
        return NULL;
      keep_stored_reason (object_at (judged, i), object_at (stored, i));
    }
  return g_steal_pointer (&judged);
}

/* The session's verdict (overall, warnings, counts, criteria) against the judged summary. A
 * session that holds none (a fragment with nothing run) has the verdict of no criterion. */
static gboolean
same_summary (JsonObject  *judged,
              JsonObject  *stored,
              GError     **error)
{
  g_autoptr(JsonArray) none = json_array_new ();
  g_autoptr(JsonObject) empty = stored == NULL ? qf_verdict_summary (none) : NULL;
  JsonArray *criteria;

  if (stored == NULL)
    stored = empty;
  criteria = qf_json_get_array (stored, "criteria");
  guint n = json_array_get_length (qf_json_get_array (judged, "criteria"));
  const char *overall = qf_json_get_string (judged, "overall", NULL);

  n = MAX (n, criteria != NULL ? json_array_get_length (criteria) : 0);
  for (guint i = 0; i < n; i++)
    if (!same_at (qf_json_get_array (judged, "criteria"), criteria, i, error))
      return FALSE;
  if (g_strcmp0 (overall, qf_json_get_string (stored, "overall", NULL)) != 0)
    {
      g_set_error (error, QF_VERDICT_ERROR, QF_VERDICT_ERROR_DISAGREES,
                   _("the stored overall verdict is %s, but its criteria give %s"),
                   qf_json_get_string (stored, "overall", _("none")), overall);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (verdict_names) + 1; i++)
    {
      g_autofree char *path = i < G_N_ELEMENTS (verdict_names)
                                ? g_strconcat ("counts.", verdict_names[i], NULL) : g_strdup ("warnings");
      gdouble want = 0, got = -1;

      qf_json_get_path_double (judged, path, &want);
      /* a session stored before the verdict "not-over-link" existed counts none */
      if (i == QF_VERDICT_NOT_OVER_LINK && qf_json_get_path (stored, path) == NULL)
        got = 0;
      else if (!qf_json_get_path_double (stored, path, &got))
        got = -1;
      if (got != want)
        {
          g_set_error (error, QF_VERDICT_ERROR, QF_VERDICT_ERROR_DISAGREES,
                       _("the stored verdict's “%s” is not the %.0f its criteria give"), path, want);
          return FALSE;
        }
    }
  return TRUE;
}

/* The profile copy the session holds; NULL (and TRUE) when it holds no tests. */
static gboolean
session_profile (JsonObject  *session,
                 QfProfile  **profile,
                 GError     **error)
{
  JsonObject *stored = qf_json_get_object (session, "profile");
  JsonObject *tests = qf_json_get_object (stored, "tests");
  g_autoptr(GError) local = NULL;

  *profile = NULL;
  if (tests == NULL || json_object_get_size (tests) == 0)
    return TRUE;
  *profile = qf_profile_from_session (stored, _("the session's profile"), &local);
  if (*profile != NULL)
    return TRUE;
  g_set_error (error, QF_VERDICT_ERROR, QF_VERDICT_ERROR_PROFILE,
               _("its verdicts cannot be judged again: the limits it holds cannot be read (%s)"),
               local->message);
  return FALSE;
}

JsonObject *
qf_verdict_judge_session (JsonObject  *session,
                          JsonArray  **step_verdicts,
                          GError     **error)
{
  JsonArray *steps = qf_json_get_array (session, "steps");
  g_autoptr(QfProfile) profile = NULL;
  g_autoptr(JsonArray) per_step = json_array_new ();
  g_autoptr(JsonArray) all = json_array_new ();
  g_autoptr(JsonObject) summary = NULL;
  gboolean over_link;

  g_return_val_if_fail (session != NULL, NULL);

  /* A session written before the verdict "not-over-link" existed (its counts lack it) was judged
   * without it and is judged again so: a report signed then stays what it said. */
  over_link = qf_verdict_session_over_link (session) ||
              (qf_json_get_object (qf_json_get_object (session, "verdict"), "counts") != NULL &&
               qf_json_get_path (session, "verdict.counts.not-over-link") == NULL);
  if (!session_profile (session, &profile, error))
    return NULL;
  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = object_at (steps, i);
      JsonArray *judged = step != NULL ? judge_step (profile, step, over_link, error) : json_array_new ();

      if (judged == NULL)
        return NULL;
      for (guint k = 0; k < json_array_get_length (judged); k++)
        json_array_add_element (all, qf_json_node_deep_copy (json_array_get_element (judged, k)));
      json_array_add_array_element (per_step, judged);
    }
  summary = qf_verdict_summary (all);
  if (!same_summary (summary, qf_json_get_object (session, "verdict"), error))
    return NULL;
  if (step_verdicts != NULL)
    *step_verdicts = g_steal_pointer (&per_step);
  return g_steal_pointer (&summary);
}

char *
qf_verdict_format_value (gdouble     value,
                         const char *unit)
{
  return qf_format_value (value, unit);
}
