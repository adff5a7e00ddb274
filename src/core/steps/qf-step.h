/* qf-step.h — the one way the core runs a measurement (src/core/steps).
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

#include "qf-histogram.h"
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
  GBytes            *token;       /* the responder's access token held in memory (a typed
                                   * pairing code); wins over the params' "token_file"; may be
                                   * NULL. Never put into params, results or the session. */
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

/* Which service of the helper machine a step talks to. The responder's two ports are what
 * `qualify-cli serve` and the built-in peer open; a step that uses one of them also takes the
 * responder's access token (qf_step_takes_token). */
typedef enum
{
  QF_PEER_SERVICE_NONE,        /* measures this PC alone */
  QF_PEER_SERVICE_ICMP,        /* the helper's kernel answers echo requests: no port of ours */
  QF_PEER_SERVICE_LATENCY,     /* the responder's latency port: ping-pong and cycle (11111) */
  QF_PEER_SERVICE_BANDWIDTH,   /* the responder's bandwidth port: iperf3's protocol (5201) */
} QfPeerService;

/* What a step measures, which decides what can explain a failure (qf-advice.c). */
typedef enum
{
  QF_STEP_MEASURES_WAKEUP,       /* this PC's real-time wake-up latency: the readiness audit */
  QF_STEP_MEASURES_LOAD,         /* how the PC copes with load: the load rules, the monitor */
  QF_STEP_MEASURES_NET_LATENCY,  /* round trips to the helper: the link and this PC's audit */
  QF_STEP_MEASURES_THROUGHPUT,   /* data rate to and from the helper: the link */
} QfStepMeasures;

/* How a figure's value is printed for a person (the report, qf-report-format.c). */
typedef enum
{
  QF_FIGURE_NUMBER = 0,  /* the number in unit (3 significant digits; integers in full) */
  QF_FIGURE_BYTES,       /* a size in bytes, or a size text as stress takes it ("256M"): in
                          * B, KiB, MiB or GiB, whichever reads best */
  QF_FIGURE_KIB,         /* a size in KiB (what /proc calls kB): in KiB, MiB or GiB */
  QF_FIGURE_THOUSANDS,   /* a count stored in thousands (cpu_kloops): the full count */
  QF_FIGURE_BIT_RATE,    /* bit/s, or a rate text like "100M": in kbit/s, Mbit/s or Gbit/s */
  QF_FIGURE_WORD,        /* a word of the engine's ("tcp", "bidir", "spin"): its name for a
                          * person, translated */
  QF_FIGURE_TEXT,        /* text given as it is (a host, a folder) */
  QF_FIGURE_UNDER_LOAD,  /* an object of stress parameters (rt's "under_load"), each printed as
                          * the stress step's parameters are */
  QF_FIGURE_OBJECT,      /* an object whose members the figure's own table labels (loaded-latency's
                          * "idle", "loaded" and "load"), printed as "label: value; …" */
  QF_FIGURE_HIDDEN,      /* not printed among the figures: the test's id, or what another row
                          * says already (the scheduling policy, why a result is not valid) */
} QfFigureFormat;

/* One figure of a step's result (a member of the --json object) or one of its parameters: its
 * label for a person, its unit and how it is printed. Every member a step's result or
 * parameters can hold is listed (the step tests check it against real results); the report
 * leaves out a member no table lists rather than print its key. */
typedef struct _QfStepFigure QfStepFigure;
struct _QfStepFigure
{
  const char         *key;     /* member of the result or parameters, e.g. "max_us" */
  const char         *label;   /* N_() marked, e.g. N_("Maximum latency") */
  const char         *unit;    /* "µs", "ms", "s", "%", "Mbit/s", "kB/s", … or NULL for a count
                                * or a size (QF_FIGURE_BYTES, QF_FIGURE_KIB pick their own) */
  QfFigureFormat      format;
  const QfStepFigure *members; /* QF_FIGURE_OBJECT: its members' table, ending with a NULL key */
};

/* How the step's live samples are drawn (the wizard's run page; the report draws the stored
 * result the same way). The values a step pushes into QfStepContext.samples are in units of
 * unit_ns (1000: µs from ns; 1e6: ms from ns, or Mbit/s from bit/s). */
typedef struct
{
  const char        *unit;           /* the axis unit, "µs", "ms", "Mbit/s", "%"; NULL = no plot */
  const char        *axis;           /* N_() marked axis title, e.g. N_("Latency (µs)") */
  gdouble            unit_ns;        /* sample value of one unit */
  const char        *channels[5];    /* N_() marked channel names, NULL-terminated */
  guint              n_channels;     /* channels drawn; 0 = every channel pushed */
  gboolean           one_channel;    /* every channel is one series (ping: channel = icmp_seq) */
  gboolean           histogram;      /* a latency distribution beside the time series */
  gboolean           area;           /* the series is filled (a rate, not single events) */
  const char *const *limit_metrics;  /* the verdict metrics drawn as limit lines on this axis;
                                      * NULL = every criterion in the plot's unit */
  const char *const *phase_keys;     /* members of the result that each hold one channel's
                                      * figures and "histogram", in channel order (loaded-latency's
                                      * "idle" and "loaded"): the stored distributions drawn on
                                      * one axis, named as the channels; NULL = none */
} QfStepPlot;

/* The translation a caller wants for a message id; NULL = gettext in the current locale. */
typedef const char *(*QfStepTranslate) (const char *msgid,
                                        gpointer    user_data);

/* One line of a step's chart (QfStepChart): at each point of the chart's array, the value of
 * key; the point's time is its "t_s". */
typedef struct
{
  const char *key;    /* member of each point drawn, e.g. "up_mbps", "cpu_busy_pct"; NULL ends */
  const char *label;  /* N_() marked legend; NULL for a chart's only line; with each, a format
                       * whose %s is the element's "name" (N_("Disk %util (%s)")) */
  const char *each;   /* NULL, or a member of each point holding objects (a monitor sample's
                       * "disks"): one line per "name" among them, key read from each object */
  const char *per;    /* NULL, or a key path of the result that divides each value, as the
                       * step's own summary does (load per CPU: "monitor.cpu_count") */
} QfStepLine;

/* A figure of the finished result, answered by the step: which of its series are drawn on one
 * axis, in which unit, and which of the profile's limits beside them. The report (HTML and PDF),
 * the run page and the results page draw a step's charts when it has them. */
typedef struct
{
  const char        *axis;          /* N_() marked axis title naming the unit, "Load (%)";
                                     * NULL ends the step's list of charts */
  const char        *unit;          /* the lines' unit as criteria state it ("%", "Mbit/s"; ""
                                     * for a ratio such as the load per CPU) */
  const char        *points;        /* key path of the result's array of points: "intervals",
                                     * "monitor.samples" */
  QfStepLine         lines[4];      /* the lines, ending with a NULL key */
  QfStepLine         fallback;      /* drawn when no line above has a point (a bandwidth test
                                     * in one direction holds only "mbps"); NULL key: none */
  gboolean           area;          /* the lines are filled (a rate) */
  const char *const *limit_metrics; /* the verdict metrics drawn as limit lines (criteria in
                                     * another unit are never drawn); NULL = every criterion in
                                     * unit */
} QfStepChart;

/* One line read from a result (qf_step_chart_read): its legend as a message id with the
 * element's name for an `each` line, and its points. */
typedef struct
{
  const char *label;  /* the QfStepLine's label (untranslated) or NULL */
  char       *name;   /* the "name" of an each line's element, else NULL */
  GArray     *t_s;    /* gdouble */
  GArray     *values; /* gdouble, in the chart's unit */
} QfStepLineData;

/* Whether the step can explain its spikes from the kernel's trace (qf-step-trace.h: its
 * result's "latency_causes"), and what kind of wait a spike is, which decides how it is told. */
typedef enum
{
  QF_STEP_SPIKES_NONE,         /* no trace: the result never has "latency_causes" */
  QF_STEP_SPIKES_WAKEUP,       /* a thread woke late after its timer (rt, rt under load) */
  QF_STEP_SPIKES_ROUND_TRIP,   /* a reply came back late (cycle) */
} QfStepSpikes;

typedef struct
{
  const char         *id;          /* "rt", "stress", "monitor", "ping", "latency", "cycle", "bandwidth" */
  const char         *title;       /* N_() marked, e.g. N_("Real-time performance") */
  const char         *description; /* N_() marked, one sentence: what it measures, like which tool */
  QfPeerService       peer_service;
  QfStepMeasures      measures;
  QfStepRunFunc       run;
  QfStepClassicFunc   classic_command;
  QfStepDurationFunc  estimate_duration;
  QfStepPlot          plot;
  const QfStepFigure *figures;     /* the result's members; ends with an entry whose key is NULL */
  const QfStepFigure *params;      /* the parameters it takes; ends likewise */
  QfStepSpikes        spikes;      /* its spikes explained from the kernel's trace, or not */
  QfPeerService       load_service; /* the helper's service that loads the link while it
                                     * measures (its port: "load_port"); NONE for most */
  /* The step's own cause of a failed criterion, read from what its result measured (the
   * advice ranks it first, qf-advice.c): TRUE with a sentence and its fix (newly allocated, in
   * the caller's language); NULL or FALSE: the causes its `measures` names. */
  gboolean          (*explain) (JsonObject  *result,
                                char       **cause,
                                char       **fix);
  const QfStepChart  *charts;      /* the figures of its finished result, ending with a NULL
                                    * axis; NULL: drawn from the result's histogram and series as
                                    * qf-plot reads them */
} QfStepInfo;

/* The registry of the steps this build has (qf-steps.c). NULL when the id is unknown. */
const QfStepInfo  *qf_step_lookup    (const char *id);
/* NULL-terminated array of every step in this build, in the procedure's order. */
const QfStepInfo *const *qf_step_list (void);

/* Whether the step needs the helper machine (any peer service). */
static inline gboolean
qf_step_needs_peer (const QfStepInfo *info)
{
  return info->peer_service != QF_PEER_SERVICE_NONE;
}

/* Whether the step talks to our responder, and so takes its access token ("token_file"). */
static inline gboolean
qf_step_takes_token (const QfStepInfo *info)
{
  return info->peer_service == QF_PEER_SERVICE_LATENCY
         || info->peer_service == QF_PEER_SERVICE_BANDWIDTH;
}

/* The figure of this step's result named key, or NULL when the step does not list it. */
const QfStepFigure *qf_step_find_figure (const QfStepInfo *info,
                                         const char       *key);
/* The parameter of this step named key, or NULL when the step does not list it. */
const QfStepFigure *qf_step_find_param  (const QfStepInfo *info,
                                         const char       *key);

/* The lines of chart read from result (QfStepLineData, freed with the array), in the order
 * of chart->lines, an each line once per name in the order first seen; the fallback alone when
 * none of them has a point. Empty when the result has no such points. */
GPtrArray  *qf_step_chart_read (const QfStepChart *chart,
                                JsonObject        *result);
/* Whether criterion (a verdict object: "metric", "unit") is drawn as a limit on chart. */
gboolean    qf_step_chart_shows_limit (const QfStepChart *chart,
                                       JsonObject        *criterion);

/* A histogram (qf-histogram.h) as the results store it: only the buckets that hold samples,
 * in µs, with the overflow. Used by the rt and the network steps. */
JsonObject *qf_step_histogram_to_json (const QfHistogram *hist);

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
