/* qf-trace.h — what the kernel-trace parts of the engine share (src/engine).
 *
 * The latency-cause analysis has four parts, each in its own file:
 *   qf-tracefs          the privileged part: a tracefs instance of our own, its events and
 *                       buffer, the file descriptors it hands out (QfTraceFds), its removal
 *   qf-trace-parse      the parser: event formats and binary ring-buffer pages → QfTraceEvent
 *   qf-trace-recorder   the reader: per-CPU pages on a thread of its own, the events around the
 *                       worst spikes kept, everything else dropped
 *   qf-trace-analysis   the breakdown of one spike: where the time went
 * Everything after qf-tracefs works from the file descriptors alone and never opens a tracefs
 * path itself, so a privileged helper (qualifyd) can open the instance and pass the descriptors
 * to an unprivileged process.
 *
 * The measuring threads mark a cycle that passed a threshold with a line in the instance's
 * trace_marker, as `cyclictest --tracemark` does: qf_trace_mark() below, called on the measured
 * path, formats into a stack buffer and makes one write(): no allocation, no lock.
 */
#pragma once

#include <glib.h>
#include <unistd.h>

G_BEGIN_DECLS

#define QF_TRACE_ERROR (qf_trace_error_quark ())
GQuark qf_trace_error_quark (void);

typedef enum
{
  QF_TRACE_ERROR_NOT_ALLOWED,   /* tracefs cannot be written by this process (not root) */
  QF_TRACE_ERROR_NO_TRACEFS,    /* the kernel has no tracefs, or it is not mounted and cannot be */
  QF_TRACE_ERROR_NO_EVENTS,     /* a tracepoint the analysis needs is missing */
  QF_TRACE_ERROR_FORMAT,        /* an event format or a page could not be read */
  QF_TRACE_ERROR_FAILED,        /* anything else, said in the message */
} QfTraceError;

/* The events an analysis needs, "system/name", in the order of QfTraceEventKind below (the
 * marker's "ftrace/print" last; it is always recorded and needs no enabling). */
#define QF_TRACE_N_EVENTS 10
extern const char *const qf_trace_event_names[QF_TRACE_N_EVENTS];

/* Everything a reader needs, as file descriptors (all O_CLOEXEC). Owned by whoever filled it;
 * qf_trace_fds_close() closes them. A CPU that is offline has -1. */
typedef struct
{
  int    marker_fd;                       /* trace_marker, write only */
  int    header_page_fd;                  /* events/header_page */
  int    format_fd[QF_TRACE_N_EVENTS];    /* events/SYS/NAME/format of qf_trace_event_names; -1
                                           * for an event this kernel does not have */
  guint  n_cpus;
  int   *cpu_fd;                          /* per_cpu/cpuN/trace_pipe_raw, O_NONBLOCK */
} QfTraceFds;

void qf_trace_fds_init  (QfTraceFds *fds);
void qf_trace_fds_close (QfTraceFds *fds);

/* The kinds of event the parser keeps; every other record is skipped. */
typedef enum
{
  QF_TRACE_EV_SWITCH,          /* sched_switch */
  QF_TRACE_EV_WAKING,          /* sched_waking */
  QF_TRACE_EV_WAKEUP,          /* sched_wakeup */
  QF_TRACE_EV_IRQ_ENTRY,       /* irq_handler_entry */
  QF_TRACE_EV_IRQ_EXIT,        /* irq_handler_exit */
  QF_TRACE_EV_SOFTIRQ_ENTRY,   /* softirq_entry */
  QF_TRACE_EV_SOFTIRQ_EXIT,    /* softirq_exit */
  QF_TRACE_EV_TIMER_ENTRY,     /* hrtimer_expire_entry */
  QF_TRACE_EV_TIMER_EXIT,      /* hrtimer_expire_exit */
  QF_TRACE_EV_MARK,            /* a trace_marker line of ours (ftrace print "qualify-spike …") */
} QfTraceEventKind;

#define QF_TRACE_COMM_LEN 16
#define QF_TRACE_IRQ_NAME_LEN 40

/* One record, parsed. ts_ns is the trace clock (the instance uses "mono": CLOCK_MONOTONIC, the
 * clock the measuring threads read). pid is the record's own task: the one running on cpu when
 * the event was recorded (the interrupted task for an interrupt's events; 0 = idle). */
typedef struct
{
  gint64  ts_ns;
  guint8  kind;                /* QfTraceEventKind */
  guint8  reserved;
  guint16 cpu;
  gint32  pid;
  union
  {
    struct
    {
      gint32 prev_pid, prev_prio, next_pid, next_prio;
      gint64 prev_state;
      char   prev_comm[QF_TRACE_COMM_LEN];
      char   next_comm[QF_TRACE_COMM_LEN];
    } sw;
    struct
    {
      gint32 pid, prio, target_cpu;
      char   comm[QF_TRACE_COMM_LEN];
    } wake;
    struct
    {
      gint32 irq;
      char   name[QF_TRACE_IRQ_NAME_LEN];
    } irq;
    struct
    {
      guint32 vec;
    } softirq;
    struct
    {
      guint64 hrtimer, function;
      gint64  now_ns;
    } timer;
    struct
    {
      gint64 start_ns;          /* the deadline (rt) or the send time (cycle) */
      gint64 latency_ns;        /* how late the thread ran after start_ns */
    } mark;
  };
} QfTraceEvent;

/* How a measuring thread marks a spike: the instance's trace_marker (opened before the run)
 * and when. Shared read-only by the measuring threads. */
typedef struct
{
  int    fd;              /* trace_marker, or -1: no marks */
  gint64 threshold_ns;    /* also mark every cycle at least this late; 0 = none */
  guint  n_worst;         /* mark a cycle among the thread's n_worst worst so far (≤ 16) */
} QfTraceMarks;

#define QF_TRACE_MARK_PREFIX "qualify-spike"
#define QF_TRACE_MAX_WORST   16

/* A measuring thread's worst latencies so far, smallest first; on its own stack or state. */
typedef struct
{
  gint64 ns[QF_TRACE_MAX_WORST];
  guint  n;
} QfTraceWorst;

/* Whether a cycle of latency_ns is worth a mark: at least the threshold, or among the thread's
 * n_worst worst so far (then it is taken into worst). So the spikes the recorder keeps (the
 * worst n_worst, qf-trace-recorder.h) are always marked, and the marks stay few once the worst
 * are known: about n_worst × ln (cycles / n_worst) in a run. No allocation, at most 16 moves. */
static inline gboolean
qf_trace_mark_wanted (const QfTraceMarks *marks,
                      QfTraceWorst       *worst,
                      gint64              latency_ns)
{
  guint n_worst, i;

  if (marks == NULL || marks->fd < 0 || latency_ns <= 0)
    return FALSE;
  n_worst = MIN (MAX (marks->n_worst, 1), QF_TRACE_MAX_WORST);
  if (worst->n == n_worst && latency_ns <= worst->ns[0])
    return marks->threshold_ns > 0 && latency_ns >= marks->threshold_ns;
  /* drop the smallest when full, then insert in order */
  if (worst->n == n_worst)
    {
      for (i = 1; i < worst->n; i++)
        worst->ns[i - 1] = worst->ns[i];
      worst->n--;
    }
  for (i = worst->n; i > 0 && worst->ns[i - 1] > latency_ns; i--)
    worst->ns[i] = worst->ns[i - 1];
  worst->ns[i] = latency_ns;
  worst->n++;
  return TRUE;
}

/* Appends the decimal digits of v (≥ 0) at p; returns the end. */
static inline char *
qf_trace_mark_digits (char  *p,
                      gint64 v)
{
  char tmp[24];
  int n = 0;

  if (v < 0)
    v = 0;
  do
    tmp[n++] = (char) ('0' + v % 10);
  while ((v /= 10) > 0 && n < (int) sizeof tmp);
  while (n > 0)
    *p++ = tmp[--n];
  return p;
}

/* Called on the measured path: "qualify-spike start=<ns> latency=<ns>\n" in one write().
 * Async-signal-safe; a failed write is ignored (the spike is then not explained). */
static inline void
qf_trace_mark (const QfTraceMarks *marks,
               gint64              start_ns,
               gint64              latency_ns)
{
  char line[96], *p = line;
  static const char prefix[] = QF_TRACE_MARK_PREFIX " start=";
  static const char middle[] = " latency=";
  ssize_t ignored;

  for (const char *s = prefix; *s; s++)
    *p++ = *s;
  p = qf_trace_mark_digits (p, start_ns);
  for (const char *s = middle; *s; s++)
    *p++ = *s;
  p = qf_trace_mark_digits (p, latency_ns);
  *p++ = '\n';
  ignored = write (marks->fd, line, (size_t) (p - line));
  (void) ignored;
}

G_END_DECLS
