/* qf-verdict.h — judging measured results against a profile's criteria (src/core).
 *
 * A verdict reads the measured value from the step's own result JSON by the criterion's key path
 * (never recomputing a figure) and compares it with the limit; equal to the limit passes.
 * Verdicts are JSON objects, exactly as stored in session.json (docs/session-format.md):
 *   {"key", "index", "metric", "label", "comparison", "limit", "unit", "role", "measured",
 *    "verdict", "reason"}
 * Pure functions of their inputs; callable from any thread. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "qf-profile.h"

G_BEGIN_DECLS

typedef enum
{
  QF_VERDICT_PASS,
  QF_VERDICT_FAIL,
  QF_VERDICT_WARN,
  QF_VERDICT_NOT_RUN,
  QF_VERDICT_INVALID,
  QF_VERDICT_NOT_OVER_LINK,  /* a network figure of a wired or wireless profile measured against
                              * the built-in peer on loopback: it says nothing of the link */
} QfVerdict;

typedef enum
{
  QF_OVERALL_PASS,
  QF_OVERALL_FAIL,
  QF_OVERALL_INVALID,
  QF_OVERALL_INCOMPLETE,
} QfOverall;

/* "pass", "fail", "warn", "not-run", "invalid", "not-over-link" (the JSON values). */
const char *qf_verdict_to_string  (QfVerdict    verdict);
gboolean    qf_verdict_from_string (const char  *text,
                                    QfVerdict   *out);
/* Translated words for people: "PASS", "FAIL", "WARN", "NOT RUN", "INVALID",
 * "NOT OVER THE LINK". */
const char *qf_verdict_to_label   (QfVerdict    verdict);
/* A symbol that survives black-and-white printing: ✓ ✗ ! — ? ~ */
const char *qf_verdict_to_symbol  (QfVerdict    verdict);

/* "pass", "fail", "invalid", "incomplete". */
const char *qf_overall_to_string  (QfOverall    overall);
gboolean    qf_overall_from_string (const char  *text,
                                    QfOverall   *out);
/* Translated: "PASS", "FAIL", "INVALID", "INCOMPLETE". */
const char *qf_overall_to_label   (QfOverall    overall);

/* Judges one criterion of the test `key`. done: the step finished and result is its complete
 * result; otherwise every criterion is NOT RUN with not_run_reason. A result with
 * "valid": false makes the criterion INVALID with the result's "reason". */
JsonObject *qf_verdict_judge      (const char         *key,
                                   guint               index,
                                   const QfCriterion  *criterion,
                                   gboolean            done,
                                   JsonObject         *result,
                                   const char         *not_run_reason);
/* All criteria of one test, in order. */
JsonArray  *qf_verdict_judge_test (const QfProfileTest *test,
                                   gboolean            done,
                                   JsonObject         *result,
                                   const char         *not_run_reason);

/* Whether a session's network tests measured the link its profile is for: FALSE when the
 * profile's network_kind is "wired" or "wireless" and the peer (session's peer.kind) was the
 * built-in peer on loopback, unless it is a training run whose built-in peer imitated a link
 * ("training": judged as that link, never an acceptance). session: the session's JSON
 * (docs/session-format.md). */
gboolean    qf_verdict_session_over_link (JsonObject *session);
/* Whether the step (its id, "test" in a session's step) measures through the peer. */
gboolean    qf_verdict_step_is_network   (const char *step_id);
/* The verdicts of a network test that was not measured over the link: each one with a figure
 * (pass, warn or fail) becomes NOT OVER LINK, with a reason saying so; not-run and invalid ones
 * stay what they are. */
void        qf_verdict_mark_not_over_link (JsonArray *verdicts);

/* The overall verdict of a flat list of verdict objects: FAIL if a deciding criterion fails;
 * else INVALID if a deciding one is invalid; else INCOMPLETE if a deciding one was not run or
 * not measured over the link; else PASS. *warnings (may be NULL) counts WARN verdicts. */
QfOverall   qf_verdict_overall    (JsonArray          *verdicts,
                                   guint              *warnings);
/* {"overall", "warnings", "counts": {...}, "criteria": [copies]} */
JsonObject *qf_verdict_summary    (JsonArray          *verdicts);

#define QF_VERDICT_ERROR (qf_verdict_error_quark ())
GQuark qf_verdict_error_quark (void);

typedef enum
{
  QF_VERDICT_ERROR_PROFILE,    /* the session's copy of its profile cannot be read */
  QF_VERDICT_ERROR_DISAGREES,  /* a stored verdict is not what its figure and limit give */
} QfVerdictError;

/* Judges a stored session (docs/session-format.md) again, with the judge the runner uses: each
 * step's criteria from its own result (the figure read as the engine stored it, never
 * recomputed) against the limits of the profile copy the session holds (profile.tests), or,
 * when that copy holds no tests, against the limit, comparison and role each stored verdict
 * names. Then compares: every stored verdict, in steps[].verdicts and in verdict.criteria, must
 * be the judged one (same criterion and limit, same figure or the same absence of one, same
 * verdict), and verdict.overall, warnings and counts what the judged criteria give.
 *
 * Returns the judged summary ({"overall", "warnings", "counts", "criteria"}, the shape of the
 * session's "verdict") and, in *step_verdicts (may be NULL), one array of judged verdict objects
 * per entry of "steps". A not-run or invalid verdict keeps the stored "reason" (text of the run's
 * language). NULL with QF_VERDICT_ERROR_DISAGREES naming the test and the metric at the first
 * disagreement, or QF_VERDICT_ERROR_PROFILE. */
JsonObject *qf_verdict_judge_session (JsonObject  *session,
                                      JsonArray  **step_verdicts,
                                      GError     **error);

/* "104 µs", "0.476 ms", "95.6 Mbit/s": qf_format_value (qf-format.h), the one printed form. */
char       *qf_verdict_format_value (gdouble           value,
                                     const char       *unit);

G_END_DECLS
