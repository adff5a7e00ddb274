/* qf-step-rt.c — the "rt" step: real-time latency, the first test of the procedure (src/core).
 *
 * Params (all optional): threads (1), cpus ("0-3,6" or [0, 1]; one pinned thread per CPU,
 * overrides threads), priority (99), interval_us (1000), loops (10000; 0 when only duration_s is
 * given; loops 0 and duration_s 0 measure until stopped), duration_s (0). Runs the rt engine on the calling thread, asking rtkit for real-time
 * priority when the process may not take it itself, and returns the `qualify-cli rt --json`
 * object. A result measured without real-time priority says "valid": false and why, so no
 * verdict can pass on it. A stop request is honoured within 100 ms plus one interval; the
 * partial result is returned with QF_STEP_ERROR_CANCELLED. The result's "duration_s" is the time
 * the measurement really took (monotonic, in s), whether loops or duration_s bounded it.
 * With "under_load": {cpu, io, vm, hdd, …} (qf-step-stress.h) the stressors and the monitor run
 * during the measurement and the result gains an "under_load" object (workers, monitor summary,
 * rules): the latency a robot controller sees on a busy PC.
 * With "trace": true (and optionally "trace_threshold_us") the kernel's trace is recorded during
 * the measurement and the result gains "latency_causes" and "trace" (qf-step-trace.h).
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-privileges.h"
#include "qf-rt.h"
#include "qf-rt-grant.h"
#include "qf-step.h"
#include "qf-step-stress.h"
#include "qf-step-trace.h"
#include "qf-step-netload.h"
#include "qf-step-rt-private.h"
#include "qf-steps.h"
#include "qf-sysinfo.h"

typedef struct
{
  GArray  *cpus;          /* int, or NULL */
  gint64   threads;
  gint64   priority;
  gint64   interval_us;
  gint64   loops;
  gdouble  duration_s;
} RtParams;

static void
rt_params_clear (RtParams *p)
{
  g_clear_pointer (&p->cpus, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RtParams, rt_params_clear)

static gboolean
parse_cpus (JsonObject  *params,
            GArray     **out,
            GError     **error)
{
  JsonNode *node;

  *out = NULL;
  if (params == NULL || !json_object_has_member (params, "cpus"))
    return TRUE;
  node = json_object_get_member (params, "cpus");
  if (JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_autoptr(GError) local_error = NULL;

      *out = qf_cpu_list_parse (json_node_get_string (node), &local_error);
      if (*out == NULL)
        {
          g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                       _("Parameter “cpus”: %s"), local_error->message);
          return FALSE;
        }
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      g_autoptr(GArray) cpus = g_array_new (FALSE, FALSE, sizeof (int));

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          gint64 cpu;

          if (!JSON_NODE_HOLDS_VALUE (element) ||
              json_node_get_value_type (element) != G_TYPE_INT64 ||
              (cpu = json_node_get_int (element)) < 0 || cpu >= 8192)
            {
              g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                           _("Parameter “cpus”: expected CPU numbers like [0, 1]"));
              return FALSE;
            }
          {
            int value = (int) cpu;
            g_array_append_val (cpus, value);
          }
        }
      if (cpus->len > 0)
        *out = g_steal_pointer (&cpus);
      return TRUE;
    }
  g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
               _("Parameter “cpus”: expected a CPU list like \"0-3,6\""));
  return FALSE;
}

static gboolean
parse_params (JsonObject  *params,
              RtParams    *p,
              GError     **error)
{
  gint64 default_loops;

  if (!qf_step_param_int (params, "threads", 1, 1, 1024, &p->threads, error) ||
      !qf_step_param_int (params, "priority", 99, 0, 99, &p->priority, error) ||
      !qf_step_param_int (params, "interval_us", 1000, 1, 10 * G_USEC_PER_SEC, &p->interval_us, error) ||
      !qf_step_param_double (params, "duration_s", 0, 0, 30 * 24 * 3600.0, &p->duration_s, error))
    return FALSE;
  default_loops = p->duration_s > 0 ? 0 : 10000;
  if (!qf_step_param_int (params, "loops", default_loops, 0, G_MAXINT64 / 2, &p->loops, error))
    return FALSE;
  return parse_cpus (params, &p->cpus, error);
}

/* Below root, the shortest interval at real-time priority: a thread per CPU waking every
 * 100 µs leaves the PC most of its time, one waking every microsecond would hold every CPU
 * (docs/privileges.md). Root keeps cyclictest's freedom. */
#define MIN_USER_INTERVAL_US 100

static gboolean
interval_allowed (const RtParams  *p,
                  GError         **error)
{
  if (p->priority == 0 || p->interval_us >= MIN_USER_INTERVAL_US || geteuid () == 0)
    return TRUE;
  g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
               _("An interval of %lld µs at real-time priority needs root: below %d µs a "
                 "measuring thread on every CPU would leave the PC almost no time for anything "
                 "else. Use an interval of %d µs or more (the procedure uses 1000), or run "
                 "qualify-cli as root."),
               (long long) p->interval_us, MIN_USER_INTERVAL_US, MIN_USER_INTERVAL_US);
  return FALSE;
}

static double
ns_to_us (gint64 ns)
{
  return (gdouble) ns / 1000.0;
}

/* Two decimals: the nanoseconds behind them are real, but nobody reads beyond 10 ns. */
static double
round_us (gdouble us)
{
  return round (us * 100.0) / 100.0;
}

static const char *
policy_name (int policy)
{
  switch (policy)
    {
    case SCHED_FIFO:
      return "SCHED_FIFO";
    case SCHED_RR:
      return "SCHED_RR";
    default:
      return "SCHED_OTHER";
    }
}

static void
set_latency_members (JsonObject        *obj,
                     const QfHistogram *hist)
{
  json_object_set_int_member (obj, "cycles", (gint64) hist->count);
  json_object_set_double_member (obj, "min_us", ns_to_us (hist->min_ns));
  json_object_set_double_member (obj, "avg_us", round_us (qf_histogram_mean_ns (hist) / 1000.0));
  json_object_set_double_member (obj, "max_us", ns_to_us (hist->max_ns));
}

static JsonObject *
build_result (const RtParams *p,
              QfRtEngine     *engine,
              QfRtGrant      *grant,
              gdouble         measured_s)
{
  JsonObject *obj = json_object_new ();
  JsonArray *threads = json_array_new ();
  const QfHistogram *total = qf_rt_engine_total (engine);
  guint n_threads = qf_rt_engine_n_threads (engine);
  gboolean all_rt = qf_rt_engine_all_rt (engine);
  gboolean via_grant = FALSE;
  const char *source = qf_rt_grant_source (grant);
  int policy = SCHED_FIFO, priority = 99;
  guint64 overruns = 0;
  g_autofree char *reason = NULL;

  for (guint i = 0; i < n_threads; i++)
    {
      const QfRtThreadResult *t = qf_rt_engine_thread (engine, i);
      JsonObject *tobj = json_object_new ();

      json_object_set_int_member (tobj, "index", t->index);
      json_object_set_int_member (tobj, "cpu", t->cpu);
      json_object_set_int_member (tobj, "tid", t->tid);
      json_object_set_string_member (tobj, "policy", policy_name (t->policy));
      json_object_set_int_member (tobj, "priority", t->priority);
      json_object_set_int_member (tobj, "interval_us", t->interval_us);
      set_latency_members (tobj, t->hist);
      json_object_set_double_member (tobj, "act_us", ns_to_us (t->hist->last_ns));
      json_object_set_double_member (tobj, "p99_us",
                                     ns_to_us (qf_histogram_percentile_ns (t->hist, 0.99)));
      json_object_set_int_member (tobj, "overruns", (gint64) t->overruns);
      json_array_add_object_element (threads, tobj);

      overruns += t->overruns;
      via_grant |= t->via_acquire;
      /* The weakest thread decides: one thread without RT makes the whole run unfit. */
      if (t->policy != SCHED_FIFO && t->policy != SCHED_RR)
        policy = t->policy;
      else if (policy == SCHED_FIFO && t->policy == SCHED_RR)
        policy = SCHED_RR;
      priority = MIN (priority, t->priority);
    }

  if (!all_rt)
    {
      const char *why = qf_rt_grant_error (grant);

      if (p->priority == 0)
        reason = g_strdup (_("measured without real-time priority (priority 0 was asked for)"));
      else if (why != NULL)
        /* TRANSLATORS: %s is the explanation of qualifyd or rtkit, with its fix */
        reason = g_strdup_printf (_("measured without real-time priority: %s"), why);
      else
        reason = g_strdup (_("measured without real-time priority; run as root, or join the "
                             "group qualify"));
    }
  else if (total->count == 0)
    reason = g_strdup (_("stopped before the first cycle was measured"));

  json_object_set_string_member (obj, "test", "rt");
  json_object_set_string_member (obj, "policy", policy_name (policy));
  json_object_set_int_member (obj, "priority", priority);
  json_object_set_int_member (obj, "priority_requested", p->priority);
  json_object_set_boolean_member (obj, "rtkit", via_grant && g_strcmp0 (source, "rtkit") == 0);
  /* Who made the threads real-time: the process itself ("self": root, CAP_SYS_NICE, a limits.d
   * rule), qualifyd, rtkit, or nobody ("none"). */
  json_object_set_string_member (obj, "rt_source",
                                 !all_rt ? "none" : via_grant && source ? source : "self");
  json_object_set_boolean_member (obj, "valid", reason == NULL);
  json_object_set_string_member (obj, "reason", reason ? reason : "");
  json_object_set_int_member (obj, "interval_us", p->interval_us);
  json_object_set_int_member (obj, "loops", p->loops);
  json_object_set_double_member (obj, "duration_s", round (measured_s * 1000) / 1000);
  set_latency_members (obj, total);
  json_object_set_double_member (obj, "stddev_us", round_us (qf_histogram_stddev_ns (total) / 1000.0));
  json_object_set_double_member (obj, "p50_us", ns_to_us (qf_histogram_percentile_ns (total, 0.50)));
  json_object_set_double_member (obj, "p90_us", ns_to_us (qf_histogram_percentile_ns (total, 0.90)));
  json_object_set_double_member (obj, "p99_us", ns_to_us (qf_histogram_percentile_ns (total, 0.99)));
  json_object_set_double_member (obj, "p999_us", ns_to_us (qf_histogram_percentile_ns (total, 0.999)));
  json_object_set_double_member (obj, "p9999_us", ns_to_us (qf_histogram_percentile_ns (total, 0.9999)));
  json_object_set_int_member (obj, "overruns", (gint64) overruns);
  json_object_set_array_member (obj, "threads", threads);
  json_object_set_object_member (obj, "histogram", qf_step_histogram_to_json (total));
  json_object_set_boolean_member (obj, "dma_latency_held", qf_rt_engine_dma_latency_held (engine));
  json_object_set_boolean_member (obj, "memory_locked", qf_rt_engine_memory_locked (engine));
  json_object_set_boolean_member (obj, "stopped_early", qf_rt_engine_stopped_early (engine));
  json_object_set_int_member (obj, "samples_dropped", (gint64) qf_rt_engine_samples_dropped (engine));
  return obj;
}

static void
on_progress (const QfRtLive *live,
             gpointer        user_data)
{
  QfStepContext *ctx = user_data;
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_int_member (obj, "cycles", (gint64) live->cycles);
  json_object_set_double_member (obj, "min_us", ns_to_us (live->min_ns));
  json_object_set_double_member (obj, "act_us", ns_to_us (live->last_ns));
  json_object_set_double_member (obj, "avg_us", round_us (live->avg_ns / 1000.0));
  json_object_set_double_member (obj, "max_us", ns_to_us (live->max_ns));
  ctx->progress (ctx, live->fraction, obj, ctx->user_data);
}

static gboolean
rt_run (JsonObject     *params,
        QfStepContext  *ctx,
        JsonObject    **result,
        GError        **error)
{
  g_auto(RtParams) p = { 0 };
  g_autoptr(QfRtGrant) grant = NULL;
  g_autoptr(QfRtEngine) engine = NULL;
  g_autoptr(GError) local_error = NULL;
  QfRtConfig config = { 0 };
  QfUnderLoad *load = NULL;
  QfStepTrace *trace = NULL;
  g_autoptr(JsonObject) under_load = NULL;
  gboolean run_ok;
  gint64 t0_ns;
  gdouble measured_s;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;

  if (!parse_params (params, &p, error) || !interval_allowed (&p, error))
    return FALSE;

  grant = qf_rt_grant_new ();
  config.n_threads = (guint) p.threads;
  config.cpus = p.cpus ? (const int *) p.cpus->data : NULL;
  config.n_cpus = p.cpus ? p.cpus->len : 0;
  config.priority = (int) p.priority;
  config.interval_us = p.interval_us;
  config.loops = (guint64) p.loops;
  config.duration_s = p.duration_s;
  config.acquire_rt = qf_rt_grant_acquire;
  config.acquire_data = grant;
  if (ctx != NULL && ctx->progress != NULL)
    {
      config.progress = on_progress;
      config.progress_data = ctx;
    }

  /* Marks are written only while the engine runs: the load's start and end are no spikes. */
  trace = qf_step_trace_start (params, config.cpus, config.n_cpus);
  config.marks = qf_step_trace_marks (trace);
  engine = qf_rt_engine_new (&config, &local_error);
  if (engine == NULL)
    {
      qf_step_trace_finish (trace, &qf_step_rt, 0, NULL);
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS, "%s", local_error->message);
      return FALSE;
    }
  /* "under_load": stress parameters (qf-step-stress.h); the stressors run during the measurement
   * and their figures go into the result's "under_load" object. */
  if (params != NULL && json_object_has_member (params, "under_load")
      && JSON_NODE_HOLDS_OBJECT (json_object_get_member (params, "under_load"))
      && qf_under_load_wanted (json_object_get_object_member (params, "under_load")))
    {
      load = qf_under_load_start (json_object_get_object_member (params, "under_load"), error);
      if (load == NULL)
        {
          qf_step_trace_finish (trace, &qf_step_rt, 0, NULL);
          return FALSE;
        }
    }
  if (!qf_privileges_can_set_rt ((int) p.priority) || !qf_privileges_can_lock_memory ())
    qf_rt_grant_prepare (grant, (int) p.priority);
  t0_ns = qf_clock_now_ns ();
  run_ok = qf_rt_engine_run (engine, ctx ? ctx->samples : NULL, ctx ? ctx->cancel : NULL,
                             &local_error);
  measured_s = (qf_clock_now_ns () - t0_ns) / 1e9;
  if (!run_ok)
    qf_step_trace_finish (g_steal_pointer (&trace), &qf_step_rt, 0, NULL);
  if (load != NULL)
    under_load = qf_under_load_finish (g_steal_pointer (&load));
  if (!run_ok)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE, "%s", local_error->message);
      return FALSE;
    }

  *result = build_result (&p, engine, grant, measured_s);
  qf_step_trace_finish (g_steal_pointer (&trace), &qf_step_rt,
                        p.priority > 0 ? 99 - (gint32) p.priority : 120, *result);
  if (under_load != NULL)
    json_object_set_object_member (*result, "under_load", g_steal_pointer (&under_load));
  if (qf_rt_engine_stopped_early (engine))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED,
                   _("The real-time test was stopped after %lld cycles"),
                   (long long) qf_rt_engine_total (engine)->count);
      return FALSE;
    }
  return TRUE;
}

static char *
rt_classic_command (JsonObject *params,
                    const char *peer)
{
  g_auto(RtParams) p = { 0 };
  g_autoptr(GString) cmd = g_string_new ("cyclictest -m");

  if (!parse_params (params, &p, NULL))
    return g_strdup ("cyclictest -m -t1 -p 99 -i 1000 -l 10000");

  if (p.cpus != NULL)
    {
      g_string_append_printf (cmd, " -t%u -a ", p.cpus->len);
      for (guint i = 0; i < p.cpus->len; i++)
        g_string_append_printf (cmd, "%s%d", i ? "," : "", g_array_index (p.cpus, int, i));
    }
  else
    g_string_append_printf (cmd, " -t%lld", (long long) p.threads);
  g_string_append_printf (cmd, " -p %lld -i %lld", (long long) p.priority, (long long) p.interval_us);
  if ((p.cpus != NULL ? p.cpus->len : p.threads) > 1)
    g_string_append (cmd, " -d 0");   /* cyclictest staggers intervals by default; we do not */
  if (p.loops > 0)
    g_string_append_printf (cmd, " -l %lld", (long long) p.loops);
  if (p.duration_s > 0)
    g_string_append_printf (cmd, " -D %llds", (long long) ceil (p.duration_s));
  return g_string_free (g_steal_pointer (&cmd), FALSE);
}

static gdouble
rt_estimate_duration (JsonObject *params)
{
  g_auto(RtParams) p = { 0 };
  gdouble by_loops;

  if (!parse_params (params, &p, NULL))
    return 10.0;
  by_loops = p.loops > 0 ? (gdouble) p.loops * (gdouble) p.interval_us / G_USEC_PER_SEC : G_MAXDOUBLE;
  if (p.duration_s > 0)
    return MIN (by_loops, p.duration_s);
  return p.loops > 0 ? by_loops : 0;   /* until stopped: unknown */
}

const QfStepFigure _qf_step_rt_figures[] = {
  { "min_us", N_("Minimum"), "µs" },
  { "avg_us", N_("Average"), "µs" },
  { "max_us", N_("Maximum"), "µs" },
  { "stddev_us", N_("Standard deviation"), "µs" },
  { "p50_us", N_("Median"), "µs" },
  { "p90_us", N_("90th percentile"), "µs" },
  { "p99_us", N_("99th percentile"), "µs" },
  { "p999_us", N_("99.9th percentile"), "µs" },
  { "p9999_us", N_("99.99th percentile"), "µs" },
  { "samples", N_("Samples"), NULL },
  { "count", N_("Samples"), NULL },
  { "cycles", N_("Cycles"), NULL },
  { "duration_s", N_("Measured time"), "s" },
  { "overruns", N_("Missed cycles"), NULL },
  { "priority", N_("Priority obtained"), NULL },
  { "priority_requested", N_("Priority requested"), NULL },
  { "interval_us", N_("Interval"), "µs" },
  { "loops", N_("Cycles per thread"), NULL },
  { "samples_dropped", N_("Live samples dropped"), NULL },
  { "rt_source", N_("Real-time priority granted by"), NULL, QF_FIGURE_WORD },
  { "latency_causes", N_("Why it was slow"), NULL, QF_FIGURE_HIDDEN },
  { "trace", N_("Kernel trace"), NULL, QF_FIGURE_HIDDEN },
  { "policy", N_("Scheduling policy"), NULL, QF_FIGURE_HIDDEN },
  { "reason", N_("Why the result is not valid"), NULL, QF_FIGURE_HIDDEN },
  { "network_load", N_("Load on the link"), NULL, QF_FIGURE_OBJECT, _qf_step_netload_figures },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

/* Its parameters. */
const QfStepFigure _qf_step_rt_params[] = {
  { "threads", N_("Threads"), NULL },
  { "priority", N_("Real-time priority"), NULL },
  { "interval_us", N_("Interval"), "µs" },
  { "loops", N_("Cycles per thread"), NULL },
  { "duration_s", N_("Duration"), "s" },
  { "cpus", N_("CPUs"), NULL, QF_FIGURE_TEXT },
  { "under_load", N_("Load during the test"), NULL, QF_FIGURE_UNDER_LOAD },
  { "trace", N_("Kernel trace recorded"), NULL },
  { "trace_threshold_us", N_("Trace mark threshold"), "µs" },
  { "trace_spikes", N_("Worst spikes explained"), NULL },
  /* Under network load (qf-step-rt-network-load.c, qf-step-netload.h). */
  { "host", N_("Helper machine"), NULL, QF_FIGURE_TEXT },
  { "iface", N_("Network interface"), NULL, QF_FIGURE_TEXT },
  { "port", N_("Bandwidth port"), NULL },
  { "load", N_("Load on the link"), NULL, QF_FIGURE_TEXT },
  { "load_streams", N_("Load streams per direction"), NULL },
  { "settle_s", N_("Load before measuring"), "s" },
  { "token_file", N_("Access token file"), NULL, QF_FIGURE_TEXT },
  { NULL }
};

const QfStepInfo qf_step_rt = {
  .id = "rt",
  .title = N_("Real-time performance"),
  .description = N_("How late a real-time thread wakes up after its timer expires, measured on every cycle (like cyclictest)."),
  .peer_service = QF_PEER_SERVICE_NONE,
  .measures = QF_STEP_MEASURES_WAKEUP,
  .run = rt_run,
  .classic_command = rt_classic_command,
  .estimate_duration = rt_estimate_duration,
  .plot = {
    .unit = "µs", .axis = N_("Latency (µs)"), .unit_ns = 1000, .histogram = TRUE,
    .channels = { N_("Thread 1"), N_("Thread 2"), N_("Thread 3"), N_("Thread 4"), NULL },
  },
  .figures = _qf_step_rt_figures,
  .params = _qf_step_rt_params,
  .spikes = QF_STEP_SPIKES_WAKEUP,
};
