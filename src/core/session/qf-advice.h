/* qf-advice.h — plain-language explanations of failed and warned criteria (src/core).
 *
 * For every FAIL, INVALID and WARN verdict of a session, one advice object (see
 * docs/session-format.md): a one-sentence summary of what was measured against which limit, the
 * likely causes ranked from the readiness audit, the monitor (stress result), the network (the
 * network readiness audit's findings that are not OK; the measured link speed, USB adapter and
 * Wi-Fi signal where the audit does not cover them; built-in peer) and the result itself,
 * and the fix of the most likely causes. Works on the session document alone, so a stored
 * session can be explained again (and in another language) without the PC.
 * Texts are translated at call time, except what is quoted from the network readiness audit
 * (its found values and advice): the audit stores those in the language of the run that made
 * it, so they stay in that language. Pure function; callable from any thread. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* session: a session document (docs/session-format.md) whose verdicts are computed.
 * Returns a new array, most important first: failures, then invalid, then warnings. */
JsonArray *qf_advice_build (JsonObject *session);

G_END_DECLS
