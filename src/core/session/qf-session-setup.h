/* qf-session-setup.h — a new session and its runner from what the operator chose (src/core).
 *
 * The wizard and `qualify-cli run` collect the same choices in their own way (pages and
 * GSettings, command-line options); this turns them into a saved session the same way for both:
 * the profile (or its quick variant), the people, the PC and its readiness audit, the peer, the
 * interface under test, the access token, the notes and the session folder. Main thread only. */
#pragma once

#include <glib.h>

#include "qf-netifaces.h"
#include "qf-profile.h"
#include "qf-responder.h"
#include "qf-runner.h"
#include "qf-session.h"

G_BEGIN_DECLS

#define QF_SESSION_SETUP_ERROR (qf_session_setup_error_quark ())
GQuark qf_session_setup_error_quark (void);

typedef enum
{
  QF_SESSION_SETUP_ERROR_NO_QUICK_VARIANT,  /* quick run asked for, the profile has none */
  QF_SESSION_SETUP_ERROR_NO_IFACE,          /* the interface under test does not exist */
  QF_SESSION_SETUP_ERROR_NO_TEST,           /* only names a test the profile does not have */
} QfSessionSetupError;

/* What the operator chose. Everything is borrowed; NULL strings are "not chosen". */
typedef struct
{
  QfProfile                  *profile;        /* the profile chosen (see quick) */
  gboolean                    quick;          /* run its quick variant, noted in the session */
  const char                 *operator_name;
  const char                 *customer;
  const char                 *site;
  const char                 *root;           /* read the PC below root; NULL: this PC ("/") */
  const char                 *peer_kind;      /* "remote", "builtin"; NULL or "none": no peer */
  const char                 *peer_address;   /* the helper machine, for "remote" */
  guint16                     peer_latency_port;   /* the ports it announced, for "remote"; */
  guint16                     peer_bandwidth_port; /* 0: the defaults (11111, 5201) */
  /* The interface under test: its facts as NetworkManager sees them, or else its name, read
   * from /sys below root. Neither with the built-in peer: the session is on loopback then. */
  QfNetIface                 *iface;
  const char                 *iface_name;
  const char                 *token_file;     /* the helper machine's access token file */
  gboolean                    trace;          /* record the kernel's trace in the tests that
                                               * explain their spikes from it */
  const char                 *pairing_code;   /* typed code (qf-pairing.h); kept in memory
                                               * only, never saved; wins over token_file */
  const char                 *out_dir;        /* NULL: a new folder under the default base;
                                               * one holding a session is refused */
  gboolean                    rerun;          /* one test again from an earlier session */
  const char *const          *only;           /* run only these step keys; NULL: all */
  const QfResponderEmulation *emulation;      /* training: the built-in peer's emulated link */
  /* The network audit of the interface under test (QfNetAuditCheck), run by the caller with
   * NetworkManager's facts; NULL: setup runs it from the kernel's facts alone. */
  GPtrArray                  *network_audit;
} QfSessionChoices;

/* The profile that runs: profile itself, or with quick its quick variant (a quick profile is
 * its own). QF_SESSION_SETUP_ERROR_NO_QUICK_VARIANT when it has none. */
QfProfile *qf_session_setup_run_profile (QfProfile               *profile,
                                         gboolean                 quick,
                                         GError                 **error);
/* TRUE when every key of only (NULL: all tests) names a step of session's profile; else
 * QF_SESSION_SETUP_ERROR_NO_TEST naming the first that does not. For new and resumed runs. */
gboolean   qf_session_setup_check_only  (QfSession               *session,
                                         const char *const       *only,
                                         GError                 **error);
/* A new session from the choices, saved in its folder; NULL with error when a choice cannot
 * be used (no quick variant, no such interface or test, unreadable PC or token file, folder;
 * QF_SESSION_ERROR_EXISTS when out_dir holds a session already). */
QfSession *qf_session_setup             (const QfSessionChoices  *choices,
                                         GError                 **error);
/* A runner for session with the choices' only, emulation and pairing code (its token held by the
 * runner in memory; the session notes only that a code is used). */
QfRunner  *qf_session_setup_runner      (QfSession               *session,
                                         const QfSessionChoices  *choices);

G_END_DECLS
