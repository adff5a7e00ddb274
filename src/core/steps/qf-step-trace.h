/* qf-step-trace.h — a step's latency causes from the kernel's trace (src/core/steps).
 *
 * The rt step (and so rt under load) and the cycle step trace when their params say
 * "trace": true (and "trace_threshold_us": also mark every cycle at least this late; each
 * measuring thread marks its worst cycles so far anyway, qf-trace.h; "trace_spikes": how many
 * of the worst spikes are explained, 1…16, default 8). Around the measurement:
 *   trace = qf_step_trace_start (params, measured_cpus, n);   before the engine runs
 *   config.marks = qf_step_trace_marks (trace);              the engine marks late cycles
 *   qf_step_trace_finish (trace, info, prio, result);         adds the two members below
 * and the result gains
 *   "latency_causes": [{"cpu", "at" (ISO 8601, local time), "latency_us", "sentence",
 *                       "breakdown": [{"kind" (irq, softirq, task, sched-delay, unexplained),
 *                                      "name", "pid", "policy", "priority", "duration_us"}]}]
 *     one per spike explained, worst first; "pid", "policy" and "priority" only for a task;
 *     "virtual_machine": true when the PC reads as one (qf_audit_is_virtual_machine), so that
 *     the sentence of a spike most of which no event explains names the hypervisor. A
 *     spike in whose window the kernel dropped events is not explained (its missing time would
 *     read as unexplained) but counted in "trace"."spikes_incomplete".
 *   "trace": what was recorded — "recorded", "reason" (why nothing was), the instance, clock,
 *     events, tracers available and used, buffer and window sizes, events read and lost,
 *     marks — and "timeline", the worst spike's pieces in time order with its expiry, wake-up
 *     and switch-in (what qf-spike-plot draws).
 * When the process may not trace (not root, and qualifyd refused: docs/privileges.md) the step
 * measures as before and "trace" says why in one line ("reason").
 *
 * The shape of "latency_causes" is known here and nowhere else: the report and the results page
 * ask qf_step_trace_sentence and qf_step_trace_item_label, in their own language.
 *
 * Threads: start, marks and finish on the step's thread.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "qf-step.h"
#include "qf-trace.h"

G_BEGIN_DECLS

typedef struct _QfStepTrace QfStepTrace;

/* NULL when params do not ask for a trace (nothing is added to the result then). Otherwise a
 * trace, recording or not: finish says which. measured_cpus: the CPUs the measuring threads are
 * pinned to (the reader keeps off them), or NULL. */
QfStepTrace        *qf_step_trace_start  (JsonObject         *params,
                                          const int          *measured_cpus,
                                          guint               n_measured_cpus);
/* What the engine's measuring threads mark with; NULL when nothing is recorded. */
const QfTraceMarks *qf_step_trace_marks  (QfStepTrace        *trace);
/* Stops the recording, explains the spikes and adds "latency_causes" and "trace" to result;
 * removes the trace instance and frees trace. measuring_prio: the measuring threads' kernel
 * priority (99 - rt priority; 120 for SCHED_OTHER). */
void                qf_step_trace_finish (QfStepTrace        *trace,
                                          const QfStepInfo   *info,
                                          gint32              measuring_prio,
                                          JsonObject         *result);
/* One line for a person when nothing was recorded although it was asked for ("reason"), or
 * NULL. */
const char         *qf_step_trace_not_recorded (JsonObject   *result);

/* The translation a caller wants for a message id; NULL = gettext in the current locale. */
typedef const char *(*QfStepTranslate) (const char *msgid,
                                        gpointer    user_data);

/* The plain-language sentence and fix of one element of "latency_causes", as a step of that
 * kind tells it (the worst spike when first). Newly allocated. */
char               *qf_step_trace_sentence   (const QfStepInfo *info,
                                              JsonObject       *cause,
                                              gboolean          first,
                                              QfStepTranslate   tr,
                                              gpointer          tr_data);
/* What one breakdown item was, for a person: "backup.sh (pid 4242, SCHED_FIFO 99)",
 * "interrupt IRQ 24 nvme0q3", "softirq NET_RX", "scheduling delay", "unexplained". */
char               *qf_step_trace_item_label (JsonObject       *item,
                                              QfStepTranslate   tr,
                                              gpointer          tr_data);
/* What to change about one breakdown item on that CPU ("Lower its priority, or …"). */
char               *qf_step_trace_item_fix   (JsonObject       *item,
                                              gint64            cpu,
                                              QfStepTranslate   tr,
                                              gpointer          tr_data);
/* A duration in µs as a person reads it: "850 µs", "2.9 ms". */
char               *qf_step_trace_format_us  (gdouble           us);

G_END_DECLS
