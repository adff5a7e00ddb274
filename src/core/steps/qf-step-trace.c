/* qf-step-trace.c — a step's latency causes from the kernel's trace (src/core/steps); see
 * qf-step-trace.h.
 *
 * The engine records and explains (qf-tracefs, qf-trace-recorder, qf-trace-analysis); this file
 * decides whether to trace, turns the engine's breakdowns into the result's JSON with the
 * names a person reads (a task's scheduling policy, the spike's local time), and tells each
 * spike in one sentence with its fix, in the caller's language.
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <string.h>

#include "qf-audit.h"
#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-qualifyd.h"
#include "qf-step-trace.h"
#include "qf-text.h"
#include "qf-trace-analysis.h"
#include "qf-trace-recorder.h"
#include "qf-tracefs.h"

struct _QfStepTrace
{
  char              *reason;        /* why nothing is recorded, or NULL */
  gint64             threshold_ns;
  QfTracefsInstance *instance;      /* made by this process (root) */
  QfTracefsInfo      lent;          /* the instance qualifyd made for it, when it did */
  gboolean           through_qualifyd;
  QfTraceFds         fds;
  QfTraceRecorder   *recorder;
  QfTraceMarks       marks;
};

static const char *const kind_ids[] = {
  [QF_CAUSE_IRQ] = "irq",
  [QF_CAUSE_SOFTIRQ] = "softirq",
  [QF_CAUSE_TASK] = "task",
  [QF_CAUSE_SCHED_DELAY] = "sched-delay",
  [QF_CAUSE_UNEXPLAINED] = "unexplained",
};

/* The latency tracers some kernels have; none is used (they run measuring threads of their own
 * or, hwlat, spin CPUs with interrupts off), only listed when present. */
static const char *const latency_tracers[] = { "osnoise", "timerlat", "hwlat" };

/* Takes qualifyd's instance: its facts into trace->lent, its descriptors into trace->fds by
 * event name (qualifyd may list them in another order, or lack some). */
static void
take_lent (QfStepTrace     *trace,
           QfQualifydTrace *lent)
{
  trace->lent.instance = g_steal_pointer (&lent->instance);
  trace->lent.mount = g_steal_pointer (&lent->mount);
  trace->lent.clock = g_steal_pointer (&lent->clock);
  trace->lent.buffer_kb = lent->buffer_kb;
  trace->lent.events = g_steal_pointer (&lent->events);
  trace->lent.events_missing = g_steal_pointer (&lent->events_missing);
  trace->lent.tracers = g_steal_pointer (&lent->tracers);
  trace->fds.marker_fd = lent->marker_fd;
  trace->fds.header_page_fd = lent->header_page_fd;
  lent->marker_fd = lent->header_page_fd = -1;
  for (guint i = 0; lent->format_events[i] != NULL; i++)
    for (guint e = 0; e < QF_TRACE_N_EVENTS; e++)
      if (g_str_equal (lent->format_events[i], qf_trace_event_names[e]) &&
          trace->fds.format_fd[e] < 0)
        {
          trace->fds.format_fd[e] = lent->format_fds[i];
          lent->format_fds[i] = -1;
        }
  trace->fds.n_cpus = lent->n_cpus;
  trace->fds.cpu_fd = g_steal_pointer (&lent->cpu_fds);
  lent->n_cpus = 0;
  qf_qualifyd_trace_clear (lent);
  trace->through_qualifyd = TRUE;
}

/* The instance: made here when this process may write tracefs (root), else through qualifyd
 * (docs/privileges.md). FALSE with the reason, in one line, with how to allow it. */
static gboolean
open_instance (QfStepTrace *trace,
               GError     **error)
{
  g_autoptr(GError) self_error = NULL;
  g_autoptr(GError) qualifyd_error = NULL;
  QfQualifydTrace lent;

  if (qf_tracefs_allowed (&self_error))
    return (trace->instance = qf_tracefs_instance_open (NULL, &trace->fds, error)) != NULL;
  if (!g_error_matches (self_error, QF_TRACE_ERROR, QF_TRACE_ERROR_NOT_ALLOWED))
    {
      g_propagate_error (error, g_steal_pointer (&self_error));
      return FALSE;
    }
  if (!qf_qualifyd_open_trace (&lent, &qualifyd_error))
    {
      /* TRANSLATORS: "Reading the kernel's trace needs root, or …: qualifyd refused: … Fix: …" */
      g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_NOT_ALLOWED, _("%s: %s"),
                   self_error->message, qualifyd_error->message);
      return FALSE;
    }
  take_lent (trace, &lent);
  return TRUE;
}

/* Removes the instance: here, or by qualifyd. */
static gboolean
remove_instance (QfStepTrace *trace,
                 GError     **error)
{
  if (trace->through_qualifyd)
    {
      trace->through_qualifyd = FALSE;
      return qf_qualifyd_close_trace (error);
    }
  return qf_tracefs_instance_remove (g_steal_pointer (&trace->instance), error);
}

QfStepTrace *
qf_step_trace_start (JsonObject *params,
                     const int  *measured_cpus,
                     guint       n_measured_cpus)
{
  g_autoptr(GError) error = NULL;
  QfTraceRecorderConfig config = { .avoid_cpus = measured_cpus, .n_avoid_cpus = n_measured_cpus };
  gboolean wanted = FALSE;
  gint64 threshold_us = 0, spikes = 8;
  QfStepTrace *trace;

  if (!qf_step_param_bool (params, "trace", FALSE, &wanted, NULL) || !wanted)
    return NULL;
  qf_step_param_int (params, "trace_threshold_us", 0, 0, 10 * G_USEC_PER_SEC, &threshold_us, NULL);
  qf_step_param_int (params, "trace_spikes", 8, 1, QF_TRACE_MAX_WORST, &spikes, NULL);
  config.n_worst = (guint) spikes;
  trace = g_new0 (QfStepTrace, 1);
  qf_trace_fds_init (&trace->fds);
  trace->threshold_ns = threshold_us * QF_NSEC_PER_USEC;
  trace->marks.fd = -1;
  if (!open_instance (trace, &error) ||
      (trace->recorder = qf_trace_recorder_new (&trace->fds, &config, &error)) == NULL ||
      !qf_trace_recorder_start (trace->recorder, &error))
    {
      trace->reason = g_strdup (error->message);
      g_clear_pointer (&trace->recorder, qf_trace_recorder_free);
      qf_trace_fds_close (&trace->fds);
      if (trace->instance != NULL || trace->through_qualifyd)
        remove_instance (trace, NULL);
      qf_tracefs_info_clear (&trace->lent);
      return trace;
    }
  trace->marks.fd = trace->fds.marker_fd;
  trace->marks.threshold_ns = trace->threshold_ns;
  trace->marks.n_worst = qf_trace_recorder_stats (trace->recorder)->n_worst;
  return trace;
}

const QfTraceMarks *
qf_step_trace_marks (QfStepTrace *trace)
{
  return trace != NULL && trace->recorder != NULL ? &trace->marks : NULL;
}

/* A task's policy, read from the task itself while it lives (the trace gives only its kernel
 * prio); when it has ended, what the prio says. */
static const char *
task_policy (gint32      pid,
             const char *comm,
             gint32      prio)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/comm", pid);
  g_autofree char *now = NULL;
  int policy;

  if (pid > 0 && g_file_get_contents (path, &now, NULL, NULL)
      && strncmp (g_strstrip (now), comm, QF_TRACE_COMM_LEN - 1) == 0
      && (policy = sched_getscheduler (pid)) >= 0)
    switch (policy & ~SCHED_RESET_ON_FORK)
      {
      case SCHED_FIFO:
        return "SCHED_FIFO";
      case SCHED_RR:
        return "SCHED_RR";
      case SCHED_BATCH:
        return "SCHED_BATCH";
      case SCHED_IDLE:
        return "SCHED_IDLE";
#ifdef SCHED_DEADLINE
      case SCHED_DEADLINE:
        return "SCHED_DEADLINE";
#endif
      default:
        return "SCHED_OTHER";
      }
  if (prio < 0)
    return "SCHED_DEADLINE";
  return prio < 100 ? "SCHED_FIFO/SCHED_RR" : "SCHED_OTHER";
}

static gdouble
round_us (gint64 ns)
{
  return round ((gdouble) ns / 10.0) / 100.0;
}

static JsonObject *
item_json (const QfCauseItem *item)
{
  JsonObject *o = json_object_new ();

  /* A task's or an interrupt's name as the kernel holds it: any bytes a program chose. */
  g_autofree char *name = qf_text_clean (item->name, -1);

  json_object_set_string_member (o, "kind", kind_ids[item->kind]);
  if (item->kind == QF_CAUSE_IRQ && item->irq >= 0)
    {
      g_autofree char *numbered = g_strdup_printf ("IRQ %d %s", item->irq, name);
      json_object_set_string_member (o, "name", g_strstrip (numbered));
    }
  else
    json_object_set_string_member (o, "name", name);
  if (item->kind == QF_CAUSE_TASK)
    {
      const char *policy = task_policy (item->pid, item->name, item->prio);
      gint rt = qf_trace_rt_priority (item->prio);

      json_object_set_int_member (o, "pid", item->pid);
      json_object_set_string_member (o, "policy", policy);
      json_object_set_int_member (o, "priority", g_str_has_prefix (policy, "SCHED_FIFO")
                                                 || g_str_has_prefix (policy, "SCHED_RR")
                                                   ? MAX (rt, 0) : 0);
    }
  json_object_set_double_member (o, "duration_us", round_us (item->duration_ns));
  return o;
}

/* The spike's start as local ISO 8601 time with milliseconds. */
static char *
iso_time (gint64 trace_ns,
          gint64 real_minus_mono_ns)
{
  gint64 real_us = (trace_ns + real_minus_mono_ns) / 1000;
  g_autoptr(GDateTime) second = g_date_time_new_from_unix_local (real_us / G_USEC_PER_SEC);
  g_autoptr(GDateTime) at = second ? g_date_time_add (second, real_us % G_USEC_PER_SEC) : NULL;

  return at != NULL ? g_date_time_format (at, "%Y-%m-%dT%H:%M:%S.%f%:z") : g_strdup ("");
}

static JsonObject *
cause_json (const QfStepInfo      *info,
            const QfSpikeAnalysis *a,
            gint64                 real_minus_mono_ns,
            gboolean               virtual_machine,
            gboolean               first)
{
  JsonObject *o = json_object_new ();
  JsonArray *breakdown = json_array_new ();
  g_autofree char *at = iso_time (a->start_ns, real_minus_mono_ns);
  g_autofree char *sentence = NULL;

  json_object_set_int_member (o, "cpu", a->cpu);
  json_object_set_string_member (o, "at", at);
  json_object_set_double_member (o, "latency_us", round_us (a->latency_ns));
  for (guint i = 0; i < a->n_items; i++)
    json_array_add_object_element (breakdown, item_json (&a->items[i]));
  json_object_set_array_member (o, "breakdown", breakdown);
  if (virtual_machine)
    json_object_set_boolean_member (o, "virtual_machine", TRUE);
  sentence = qf_step_trace_sentence (info, o, first, NULL, NULL);
  json_object_set_string_member (o, "sentence", sentence);
  return o;
}

/* The worst spike's pieces in time order, for the timeline. */
static JsonObject *
timeline_json (const QfSpikeAnalysis *a,
               QfSpikeWait            wait,
               gint64                 real_minus_mono_ns)
{
  JsonObject *o = json_object_new ();
  JsonArray *segments = json_array_new ();
  g_autofree char *at = iso_time (a->start_ns, real_minus_mono_ns);

  json_object_set_string_member (o, "wait", wait == QF_SPIKE_WAIT_REPLY ? "reply" : "timer");
  json_object_set_int_member (o, "cpu", a->cpu);
  json_object_set_string_member (o, "at", at);
  json_object_set_int_member (o, "tid", a->tid);
  json_object_set_double_member (o, "latency_us", round_us (a->latency_ns));
  json_object_set_double_member (o, "expiry_us", a->expiry_ns >= 0 ? round_us (a->expiry_ns) : -1);
  json_object_set_double_member (o, "wakeup_us", a->waking_ns >= 0 ? round_us (a->waking_ns) : -1);
  json_object_set_double_member (o, "switch_in_us",
                                 a->switch_in_ns >= 0 ? round_us (a->switch_in_ns) : -1);
  json_object_set_int_member (o, "waker_cpu", a->waker_cpu);
  json_object_set_boolean_member (o, "incomplete", a->incomplete);
  for (guint i = 0; i < a->n_segments; i++)
    {
      JsonObject *seg = item_json (&a->items[a->segments[i].item]);

      json_object_set_double_member (seg, "start_us", round_us (a->segments[i].offset_ns));
      json_object_set_double_member (seg, "duration_us", round_us (a->segments[i].duration_ns));
      json_array_add_object_element (segments, seg);
    }
  json_object_set_array_member (o, "segments", segments);
  return o;
}

static JsonArray *
strv_json (const char *const *strv)
{
  JsonArray *a = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (a, strv[i]);
  return a;
}

/* What was recorded: the instance, its events and sizes, what the reader read. */
static JsonObject *
recorded_json (QfStepTrace *trace)
{
  const QfTracefsInfo *info = trace->through_qualifyd ? &trace->lent
                                                      : qf_tracefs_instance_info (trace->instance);
  const QfTraceStats *st = qf_trace_recorder_stats (trace->recorder);
  JsonObject *o = json_object_new ();
  JsonArray *available = json_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (latency_tracers); i++)
    if (info->tracers != NULL && g_strv_contains ((const char *const *) info->tracers, latency_tracers[i]))
      json_array_add_string_element (available, latency_tracers[i]);
  json_object_set_boolean_member (o, "recorded", TRUE);
  json_object_set_string_member (o, "reason", "");
  json_object_set_string_member (o, "granted_by", trace->through_qualifyd ? "qualifyd" : "self");
  json_object_set_string_member (o, "instance", info->instance);
  json_object_set_string_member (o, "clock", info->clock);
  json_object_set_array_member (o, "events", strv_json ((const char *const *) info->events));
  json_object_set_array_member (o, "events_missing",
                                strv_json ((const char *const *) info->events_missing));
  json_object_set_array_member (o, "tracers", strv_json ((const char *const *) info->tracers));
  json_object_set_array_member (o, "latency_tracers_available", available);
  json_object_set_array_member (o, "latency_tracers_used", json_array_new ());
  json_object_set_int_member (o, "buffer_kb_per_cpu", info->buffer_kb);
  json_object_set_int_member (o, "window_events_per_cpu", st->window_events);
  json_object_set_int_member (o, "worst_spikes_kept", st->n_worst);
  json_object_set_int_member (o, "max_events_per_spike", st->max_spike_events);
  json_object_set_int_member (o, "memory_bytes", (gint64) st->memory_bytes);
  json_object_set_double_member (o, "threshold_us", round_us (trace->threshold_ns));
  json_object_set_int_member (o, "events_read", (gint64) st->events);
  json_object_set_int_member (o, "events_lost", (gint64) st->lost);
  json_object_set_int_member (o, "pages_malformed", (gint64) st->bad_pages);
  json_object_set_int_member (o, "marks", (gint64) st->marks);
  json_object_set_double_member (o, "reader_cpu_s", round ((gdouble) st->read_cpu_ns / 1e6) / 1e3);
  return o;
}

/* Explains every spike kept; the worst one's timeline goes to trace_obj. */
static JsonArray *
explain_spikes (QfStepTrace      *trace,
                const QfStepInfo *info,
                gint32            measuring_prio,
                JsonObject       *trace_obj)
{
  JsonArray *causes = json_array_new ();
  gint64 real_minus_mono_ns = g_get_real_time () * 1000 - qf_clock_now_ns ();
  QfSpikeWait wait = info->spikes == QF_STEP_SPIKES_ROUND_TRIP ? QF_SPIKE_WAIT_REPLY
                                                                : QF_SPIKE_WAIT_TIMER;
  /* the sentence then says that unexplained time is most likely the hypervisor's, and a
   * lower-priority task is not blamed for time the hypervisor may have taken */
  gboolean virtual_machine = qf_audit_is_virtual_machine ("/");
  QfSpikeFlags flags = virtual_machine ? QF_SPIKE_VIRTUAL_MACHINE : QF_SPIKE_BARE_METAL;

  guint incomplete = 0;

  for (guint i = 0; i < qf_trace_recorder_n_spikes (trace->recorder); i++)
    {
      g_autoptr(QfSpikeAnalysis) a = qf_trace_analyze (qf_trace_recorder_spike (trace->recorder, i),
                                                       wait, measuring_prio, flags);

      /* events of its window were lost: its time would show as unexplained, which it was not */
      if (a->incomplete)
        incomplete++;
      if (a->n_items == 0 || a->incomplete)
        continue;
      json_array_add_object_element (causes, cause_json (info, a, real_minus_mono_ns,
                                                         virtual_machine,
                                                         json_array_get_length (causes) == 0));
      if (!json_object_has_member (trace_obj, "timeline"))
        json_object_set_object_member (trace_obj, "timeline", timeline_json (a, wait, real_minus_mono_ns));
    }
  json_object_set_int_member (trace_obj, "spikes_incomplete", incomplete);
  return causes;
}

void
qf_step_trace_finish (QfStepTrace      *trace,
                      const QfStepInfo *info,
                      gint32            measuring_prio,
                      JsonObject       *result)
{
  JsonObject *trace_obj;
  JsonArray *causes;
  g_autoptr(GError) error = NULL;

  if (trace == NULL)
    return;
  if (trace->recorder == NULL)
    {
      trace_obj = json_object_new ();
      json_object_set_boolean_member (trace_obj, "recorded", FALSE);
      json_object_set_string_member (trace_obj, "reason", trace->reason);
      causes = json_array_new ();
    }
  else
    {
      /* qualifyd's instance has no control file here: it stops when it is removed */
      if (trace->instance != NULL)
        qf_tracefs_instance_stop (trace->instance);
      qf_trace_recorder_stop (trace->recorder);
      trace_obj = recorded_json (trace);
      causes = explain_spikes (trace, info, measuring_prio, trace_obj);
      g_clear_pointer (&trace->recorder, qf_trace_recorder_free);
      qf_trace_fds_close (&trace->fds);
      json_object_set_boolean_member (trace_obj, "instance_removed",
                                      remove_instance (trace, &error));
      if (error != NULL)
        g_warning ("%s", error->message);
      qf_tracefs_info_clear (&trace->lent);
    }
  if (result != NULL)
    {
      json_object_set_array_member (result, "latency_causes", causes);
      json_object_set_object_member (result, "trace", trace_obj);
    }
  else
    {
      json_array_unref (causes);
      json_object_unref (trace_obj);
    }
  g_free (trace->reason);
  g_free (trace);
}

const char *
qf_step_trace_not_recorded (JsonObject *result)
{
  JsonNode *node = result != NULL ? json_object_get_member (result, "trace") : NULL;
  JsonObject *trace;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  trace = json_node_get_object (node);
  if (json_object_get_boolean_member_with_default (trace, "recorded", FALSE))
    return NULL;
  return json_object_get_string_member_with_default (trace, "reason", "");
}
