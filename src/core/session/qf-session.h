/* qf-session.h — one qualification: who, which PC, which profile, each step's result and
 * verdicts, kept as session.json in its own directory (src/core).
 *
 * The session's data is the JSON document described in docs/session-format.md; this object owns
 * it, changes it through the functions below and saves it atomically (temp file, fsync, rename,
 * fsync of the directory) after every state change of a step, so a crash, a power cut or SIGKILL
 * leaves either the previous or the new file and `--resume` can continue.
 *
 * Main thread only (the runner marshals its worker's events to the main context). */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "qf-profile.h"
#include "qf-ring.h"
#include "qf-step-status.h"
#include "qf-verdict.h"

G_BEGIN_DECLS

#define QF_SESSION_SCHEMA_VERSION 1

#define QF_SESSION_ERROR (qf_session_error_quark ())
GQuark qf_session_error_quark (void);

typedef enum
{
  QF_SESSION_ERROR_READ,      /* cannot read the file */
  QF_SESSION_ERROR_FORMAT,    /* not a session file, or a newer schema */
  QF_SESSION_ERROR_WRITE,     /* cannot create the directory or save */
  QF_SESSION_ERROR_EXISTS,    /* a new session's folder already holds a session */
  QF_SESSION_ERROR_NEEDS_CODE, /* its helper machine wants the pairing code, which is not kept */
} QfSessionError;

#define QF_TYPE_SESSION (qf_session_get_type ())
G_DECLARE_FINAL_TYPE (QfSession, qf_session, QF, SESSION, GObject)

/* A new session with one pending step per test of the profile (the quick variant's parameters
 * when the profile is a quick one; pass the quick profile itself). Not saved until a directory
 * is set. */
QfSession   *qf_session_new                (QfProfile    *profile);
/* Loads SESSION_DIR/session.json or a .json file. */
QfSession   *qf_session_load               (const char   *path,
                                            GError      **error);
QfSession   *qf_session_new_from_json      (JsonObject   *root,
                                            const char   *display_name,
                                            GError      **error);

/* The whole document (borrowed; do not modify). */
JsonObject  *qf_session_get_json           (QfSession    *self);
/* Pretty-printed session.json text. */
char        *qf_session_to_data            (QfSession    *self);

/* $XDG_DATA_HOME/qualify/sessions */
char        *qf_session_get_default_base   (void);
/* Uses dir (created when missing; resume passes the session's own) or, when dir is NULL, a new
 * $XDG_DATA_HOME/qualify/sessions/<date>-<host>-<id8>[-N]/ that no other session has; then
 * saves. */
gboolean     qf_session_set_dir            (QfSession    *self,
                                            const char   *dir,
                                            GError      **error);
/* The same for a new session, which never takes another's place: QF_SESSION_ERROR_EXISTS when
 * dir already holds a session.json (left untouched, as is everything else in dir). */
gboolean     qf_session_set_new_dir        (QfSession    *self,
                                            const char   *dir,
                                            GError      **error);
const char  *qf_session_get_dir            (QfSession    *self);
gboolean     qf_session_save               (QfSession    *self,
                                            GError      **error);

const char  *qf_session_get_id             (QfSession    *self);
/* "new", "running", "complete", "cancelled" */
const char  *qf_session_get_state          (QfSession    *self);
/* The profile as stored in the session (parsed from its copy). */
QfProfile   *qf_session_get_profile        (QfSession    *self);

void         qf_session_set_people         (QfSession    *self,
                                            const char   *operator_name,
                                            const char   *customer,
                                            const char   *site);
/* The tests this session was asked to run (`run --only`, the plan page's choice), kept so that
 * resuming it runs only those; NULL: every test of the profile. */
void         qf_session_set_only           (QfSession    *self,
                                            const char *const *keys);
/* A new NULL-terminated copy, or NULL when every test was asked for. */
GStrv        qf_session_get_only           (QfSession    *self);
/* kind: "remote", "builtin" or "none". */
void         qf_session_set_peer           (QfSession    *self,
                                            const char   *address,
                                            const char   *kind);
const char  *qf_session_get_peer_address   (QfSession    *self);
const char  *qf_session_get_peer_kind      (QfSession    *self);
/* The ports a remote helper machine announced, when they are not the defaults (11111, 5201):
 * "peer": {"latency_port": …, "bandwidth_port": …}; 0 or a default leaves the member out. Call
 * after qf_session_set_peer (which starts a new peer). The runner hands them to the network
 * tests as their "port". */
void         qf_session_set_peer_ports     (QfSession    *self,
                                            guint16       latency_port,
                                            guint16       bandwidth_port);
/* The port stored above, or 0 for the default. */
guint16      qf_session_get_peer_latency_port   (QfSession *self);
guint16      qf_session_get_peer_bandwidth_port (QfSession *self);
/* Marks a training run against the built-in peer answering as an emulated link (the peer's
 * extra reply delay, ± jitter and UDP loss): "training" in session.json. Such a session is never
 * an acceptance; the results page and the report say so. */
/* The helper machine's access token (`serve --token-file`): the file is checked now (mode,
 * size), then its absolute path goes into the params of the tests that talk to the responder
 * (latency, cycle, bandwidth). The token itself never enters the session. */
gboolean     qf_session_set_token_file     (QfSession    *self,
                                            const char   *path,
                                            GError      **error);
/* Records the kernel's trace during every test that can explain its spikes from it (rt, rt under
 * load, cycle: QfStepInfo.spikes): "trace": true in their params (qf-step-trace.h). */
void         qf_session_set_trace          (QfSession    *self,
                                            gboolean      trace);
/* Whether the helper machine was reached with a pairing code (qf-pairing.h). Only that fact is
 * kept ("peer": {"pairing_code": true}), never the code: a resumed session asks for it again. */
void         qf_session_set_pairing_code_used (QfSession *self,
                                               gboolean   used);
gboolean     qf_session_get_pairing_code_used (QfSession *self);
void         qf_session_set_training       (QfSession    *self,
                                            gdouble       delay_ms,
                                            gdouble       jitter_ms,
                                            gdouble       loss_pct,
                                            gdouble       bloat_ms);
/* The "training" object ({"kind": "emulated-link", "delay_ms", "jitter_ms", "loss_pct"}) or
 * NULL for a real run. Borrowed. */
JsonObject  *qf_session_get_training       (QfSession    *self);
/* kind: "wired", "wireless", "loopback", "unknown"; speed 0, signal < 0, usb < 0: unknown. */
void         qf_session_set_network        (QfSession    *self,
                                            const char   *iface,
                                            const char   *kind,
                                            guint         speed_mbps,
                                            gint          usb,
                                            const char   *ssid,
                                            gint          signal_pct);
/* The same from /sys/class/net/IFACE below root, as qf_net_iface_read_sysfs reads it. */
void         qf_session_set_network_from_sysfs (QfSession  *self,
                                            const char   *root,
                                            const char   *iface);
const char  *qf_session_get_iface          (QfSession    *self);
/* The network readiness audit of the interface under test (qf-net-audit.h's JSON, taken):
 * "network_audit": {"iface", "checks": [...]}; checks NULL removes it. */
void         qf_session_set_network_audit  (QfSession    *self,
                                            const char   *iface,
                                            JsonArray    *checks);

/* PC identity and readiness audit, read below root ("/" for this PC). */
gboolean     qf_session_capture_system     (QfSession    *self,
                                            const char   *root,
                                            GError      **error);
/* Adds or replaces the note with this id. */
void         qf_session_add_note           (QfSession    *self,
                                            const char   *id,
                                            const char   *text);

guint        qf_session_get_n_steps        (QfSession    *self);
/* Borrowed step object (see docs/session-format.md). */
JsonObject  *qf_session_get_step           (QfSession    *self,
                                            guint         index);
gint         qf_session_find_step          (QfSession    *self,
                                            const char   *key);
QfStepStatus qf_session_get_step_status    (QfSession    *self,
                                            guint         index);
const char  *qf_session_get_step_key       (QfSession    *self,
                                            guint         index);
const char  *qf_session_get_step_test      (QfSession    *self,
                                            guint         index);
const char  *qf_session_get_step_title     (QfSession    *self,
                                            guint         index);
JsonObject  *qf_session_get_step_params    (QfSession    *self,
                                            guint         index);
gdouble      qf_session_get_step_estimate  (QfSession    *self,
                                            guint         index);

/* State changes; each saves when a directory is set and emits step-changed. */
gboolean     qf_session_begin_step         (QfSession    *self,
                                            guint         index,
                                            GError      **error);
/* result: the step's result (copied), may be NULL; partial: it is incomplete;
 * step_error: the step's error, may be NULL; reason: for failed/cancelled/skipped/not-run. */
gboolean     qf_session_finish_step        (QfSession    *self,
                                            guint         index,
                                            QfStepStatus  status,
                                            JsonObject   *result,
                                            gboolean      partial,
                                            const GError *step_error,
                                            const char   *reason,
                                            gdouble       duration_s,
                                            GError      **error);
/* Live data kept for replay, saved with the next state change. */
void         qf_session_record_progress    (QfSession    *self,
                                            guint         index,
                                            gdouble       t_s,
                                            gdouble       fraction,
                                            JsonObject   *live);
void         qf_session_record_samples     (QfSession    *self,
                                            guint         index,
                                            gint64        step_start_ns,
                                            const QfSample *samples,
                                            guint         n,
                                            guint64       dropped);

/* Prepares a loaded session to continue: steps that are not done or skipped become pending
 * again (their partial data dropped); done and skipped ones are kept. Returns how many
 * steps remain to run (of those qf_session_get_only names, when it names any). */
guint        qf_session_prepare_resume     (QfSession    *self);
/* Ends the session: state complete (or cancelled), finished time, comparison with the previous
 * session of this PC found in base_dir (NULL: the default base); saves. */
gboolean     qf_session_finish             (QfSession    *self,
                                            gboolean      cancelled,
                                            const char   *base_dir,
                                            GError      **error);

/* Re-judges every step and rebuilds verdict and advice (done on every change and on load). */
void         qf_session_recompute          (QfSession    *self);
QfOverall    qf_session_get_overall        (QfSession    *self,
                                            guint        *warnings);
/* Flat list of verdict objects / advice objects (borrowed). */
JsonArray   *qf_session_get_verdicts       (QfSession    *self);
JsonArray   *qf_session_get_advice         (QfSession    *self);

/* TRUE when both sessions were made on the same PC. */
gboolean     qf_session_same_pc            (QfSession    *self,
                                            QfSession    *other);
/* Metric deltas and changed audit values of self against previous (docs/session-format.md). */
JsonObject  *qf_session_compare            (QfSession    *self,
                                            QfSession    *previous);
/* The newest other session of the same PC below base_dir that has a complete or cancelled
 * state, or NULL. */
QfSession   *qf_session_find_previous      (QfSession    *self,
                                            const char   *base_dir);

/* The newest session below base_dir (NULL: the default base) that was interrupted or cancelled
 * and can be continued (state "running" or "cancelled"), or NULL. For the wizard's Resume. */
QfSession   *qf_session_find_unfinished    (const char   *base_dir);

G_END_DECLS
