/* qf-step.h — the one way the core runs a measurement (src/core).
 *
 * Every test (rt, stress, monitor, ping, latency, cycle, bandwidth) is a QfStepInfo: a function
 * that takes the test's parameters as a JSON object (from a profile or built by a CLI
 * subcommand), runs the engine on the calling thread, and returns the engine's result as a JSON
 * object — the very object `qualify-cli <test> --json` prints, stored unchanged in the session
 * and shown by the wizard and the report. Nothing downstream recomputes a figure.
 *
 * Threads: run() blocks its caller (the runner's worker thread or the CLI's main thread).
 * progress() is called from that same thread a few times a second. Another thread requests a
 * stop by g_atomic_int_set (ctx->cancel, 1); each step documents how fast it honours it.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "qf-ring.h"

G_BEGIN_DECLS

#define QF_STEP_ERROR (qf_step_error_quark ())
GQuark qf_step_error_quark (void);

typedef enum
{
  QF_STEP_ERROR_INVALID_PARAMS,   /* a parameter is missing, of the wrong type or out of range */
  QF_STEP_ERROR_PERMISSION,       /* a privilege is missing (message says which and the fix) */
  QF_STEP_ERROR_PEER,             /* the peer refused, is unreachable or stopped answering */
  QF_STEP_ERROR_RESOURCE,         /* not enough memory / disk / a device is missing */
  QF_STEP_ERROR_CANCELLED,        /* stopped on request; *result may still hold partial data */
  QF_STEP_ERROR_FAILED,           /* anything else, said in the message */
} QfStepError;

typedef struct _QfStepContext QfStepContext;

/* Called on the step's thread with the fraction done (0..1) and a small object of live figures
 * (e.g. {"avg_us": 31.2, "max_us": 95}); live may be NULL. Must not block. */
typedef void (*QfStepProgressFunc) (QfStepContext *ctx,
                                    gdouble        fraction,
                                    JsonObject    *live,
                                    gpointer       user_data);

struct _QfStepContext
{
  const gint        *cancel;      /* nonzero = stop; read with g_atomic_int_get; may be NULL */
  QfRing            *samples;     /* live samples for plots; the step pushes, never blocks; may be NULL */
  QfStepProgressFunc progress;    /* may be NULL */
  gpointer           user_data;
  const char        *peer;        /* host of the helper machine or "127.0.0.1" for the built-in peer; may be NULL */
  const char        *iface;       /* chosen interface or NULL */
};

/* Runs the test. On success returns TRUE and *result (the --json object, with "test" set to the
 * step's id). On failure returns FALSE with error set; *result may be set to a partial result
 * (e.g. the intervals measured before the peer vanished) which the caller keeps, marked. */
typedef gboolean (*QfStepRunFunc) (JsonObject     *params,
                                   QfStepContext  *ctx,
                                   JsonObject    **result,
                                   GError        **error);

/* The classic command line this test replaces with these parameters, e.g.
 * "cyclictest -m -t1 -p 99 -i 1000 -l 10000". Returns a newly allocated string. */
typedef char *(*QfStepClassicFunc) (JsonObject *params,
                                    const char *peer);

/* Estimated duration in seconds with these parameters (for the plan page and ETA). */
typedef gdouble (*QfStepDurationFunc) (JsonObject *params);

typedef struct
{
  const char        *id;          /* "rt", "stress", "monitor", "ping", "latency", "cycle", "bandwidth" */
  const char        *title;       /* N_() marked, e.g. N_("Real-time performance") */
  gboolean           needs_peer;
  QfStepRunFunc      run;
  QfStepClassicFunc  classic_command;
  QfStepDurationFunc estimate_duration;
} QfStepInfo;

/* The registry of the steps this build has (qf-step.c). NULL when the id is unknown. */
const QfStepInfo  *qf_step_lookup    (const char *id);
/* NULL-terminated array of every step in this build, in the procedure's order. */
const QfStepInfo *const *qf_step_list (void);

/* Helpers for step implementations: read a typed parameter with a default, failing with
 * QF_STEP_ERROR_INVALID_PARAMS and a message naming the key when it has the wrong type. */
gboolean qf_step_param_int    (JsonObject *params, const char *key, gint64 def,
                               gint64 min, gint64 max, gint64 *out, GError **error);
gboolean qf_step_param_double (JsonObject *params, const char *key, gdouble def,
                               gdouble min, gdouble max, gdouble *out, GError **error);
gboolean qf_step_param_bool   (JsonObject *params, const char *key, gboolean def,
                               gboolean *out, GError **error);
gboolean qf_step_param_string (JsonObject *params, const char *key, const char *def,
                               const char **out, GError **error);

static inline gboolean
qf_step_cancelled (const QfStepContext *ctx)
{
  return ctx != NULL && ctx->cancel != NULL && g_atomic_int_get (ctx->cancel) != 0;
}

G_END_DECLS
