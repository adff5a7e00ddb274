/* qf-trace-analysis.h — where the time of one spike went (src/engine).
 *
 * A spike is a window [start, start + latency] in which a measuring thread waited longer than
 * it should: from its timer's deadline to the moment it ran (rt), or from sending a request to
 * reading the reply (cycle). The analysis follows that thread through the recorded events
 * (qf-trace-recorder.h) and cuts the window into consecutive pieces, each charged to what held
 * the CPU then:
 *   irq          an interrupt handler (its number and name), or the local timer running
 *                other timers
 *   softirq      a softirq (NET_RX, BLOCK, TIMER, RCU, …)
 *   task         another task (pid, name, priority): one of equal or higher real-time priority
 *                after the timer expired, or one that kept the CPU after the wake-up for longer
 *                than a preemption takes (a non-preemptible kernel section; not on a virtual
 *                machine, where that time is unexplained: QF_SPIKE_VIRTUAL_MACHINE)
 *   sched-delay  the scheduler's own work after the wake-up: the switch, the thread's return
 *   unexplained  no event at all: before the timer's expiry (waking an idle CPU, firmware/SMI,
 *                the hypervisor), the thread itself "running" for longer than its return from
 *                the sleep takes (30 µs), or, for a reply, the time before it reached this PC
 * Who runs is read from each record's own task (this kernel mostly does not record a switch out
 * of the idle task). The pieces partition the window exactly, so the items sum to the measured
 * latency to the nanosecond; the trace's own resolution is its clock's (ns, "mono").
 *
 * Pure function of the spike; any thread.
 */
#pragma once

#include "qf-trace.h"
#include "qf-trace-recorder.h"

G_BEGIN_DECLS

typedef enum
{
  QF_CAUSE_IRQ,
  QF_CAUSE_SOFTIRQ,
  QF_CAUSE_TASK,
  QF_CAUSE_SCHED_DELAY,
  QF_CAUSE_UNEXPLAINED,
} QfCauseKind;

#define QF_CAUSE_NAME_LEN 48

typedef struct
{
  QfCauseKind kind;
  gint32      irq;         /* irq: its number (-1: the local timer); softirq: the vector */
  gint32      pid;         /* task: its pid; otherwise -1 */
  gint32      prio;        /* task: the kernel's prio (0…99 real-time: 99 - rt priority;
                            * 100…139 normal: 120 + nice); -1 unknown */
  gboolean    preempted_late; /* task: of lower priority, but kept the CPU after the wake-up */
  char        name[QF_CAUSE_NAME_LEN]; /* irq name, softirq vector name, task name; unexplained:
                                        * "idle" (the CPU was idle), "network" (the reply had
                                        * not arrived) or "" */
  gint64      duration_ns;
} QfCauseItem;

typedef struct
{
  gint64 offset_ns;        /* from the spike's start */
  gint64 duration_ns;
  guint  item;             /* index in items */
} QfCauseSegment;

typedef enum
{
  QF_SPIKE_WAIT_TIMER,     /* the thread slept until a deadline (rt) */
  QF_SPIKE_WAIT_REPLY,     /* the thread waited for a reply from the network (cycle) */
} QfSpikeWait;

typedef struct
{
  guint           cpu;
  gint32          tid;
  gint64          start_ns;      /* trace clock */
  gint64          latency_ns;
  gboolean        incomplete;    /* events of the window were lost: unexplained may be too high */
  gint32          waker_cpu;     /* the CPU the wake-up came from; -1 not seen */
  gint64          expiry_ns;     /* offsets from start: the timer's expiry (rt) or the reply's
                                  * arrival; -1 not seen */
  gint64          waking_ns;     /* the wake-up of the thread; -1 not seen */
  gint64          switch_in_ns;  /* the thread got its CPU; -1 not seen */
  guint           n_items;
  QfCauseItem    *items;         /* largest first; the durations sum to latency_ns */
  guint           n_segments;
  QfCauseSegment *segments;      /* in time order, consecutive pieces of one item merged */
} QfSpikeAnalysis;

/* How the PC runs, where the trace alone cannot tell. */
typedef enum
{
  QF_SPIKE_BARE_METAL = 0,
  /* A virtual machine: the hypervisor can stop a virtual CPU at any moment, leaving no event.
   * Time a lower-priority task seems to keep the CPU after the wake-up is then as likely the
   * hypervisor's as a non-preemptible kernel section's: it is unexplained, and the task is not
   * named (a task of equal or higher real-time priority still is). */
  QF_SPIKE_VIRTUAL_MACHINE = 1 << 0,
} QfSpikeFlags;

/* measuring_prio: the measuring thread's kernel prio when the trace does not show it (99 - rt
 * priority; 120 for SCHED_OTHER). */
QfSpikeAnalysis *qf_trace_analyze           (const QfTraceSpike *spike,
                                             QfSpikeWait         wait,
                                             gint32              measuring_prio,
                                             QfSpikeFlags        flags);
void             qf_spike_analysis_free     (QfSpikeAnalysis    *analysis);

/* "NET_RX", "TIMER", … for a softirq vector; "?" for an unknown one. */
const char      *qf_trace_softirq_name      (guint32             vec);
/* The kernel prio as a person reads it: the rt priority 1…99 for prio 0…98, else -1. */
gint             qf_trace_rt_priority       (gint32              prio);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfSpikeAnalysis, qf_spike_analysis_free)

G_END_DECLS
