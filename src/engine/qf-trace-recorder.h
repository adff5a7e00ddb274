/* qf-trace-recorder.h — reads a trace instance while a test measures, keeping only the events
 * around the worst spikes (src/engine).
 *
 * A thread of its own (not on the measured CPUs when another CPU is allowed) wakes every
 * poll interval, reads every CPU's trace_pipe_raw page by page (binary: no formatting in the
 * kernel, nanosecond times; docs/benchmarks.md has the cost against the text trace_pipe) and
 * appends the parsed events to that CPU's rolling window, a ring of the newest events. A mark
 * of a measuring thread (qf_trace_mark) names a spike: its thread, CPU, start and latency. Once
 * every CPU has been read past the mark, the spike is either dropped or its events are copied
 * out: the events of the mark's CPU from lookback before the spike's start to the mark, and,
 * when the thread was woken from another CPU, that CPU's too. Kept are the n_worst worst spikes
 * and the worst of each CPU; memory is bounded by the rings and those copies, both sized when
 * the recorder is made (qf_trace_recorder_stats says how large).
 *
 * Works from file descriptors alone (QfTraceFds): it never opens a tracefs path, so an
 * unprivileged process can read an instance a privileged helper opened.
 *
 * Threads: new, start, stop, the results and free on one thread (the step's); the reading thread
 * is internal. Tests feed pages on the caller's thread instead (feed_page, flush) and never start.
 */
#pragma once

#include "qf-trace.h"
#include "qf-trace-parse.h"

G_BEGIN_DECLS

typedef struct
{
  guint        n_worst;           /* spikes kept besides each CPU's worst; 0 = 8 */
  gsize        window_bytes;      /* all CPUs' rolling windows together; 0 = 32 MiB */
  guint        max_spike_events;  /* events copied per spike at most; 0 = 8192 */
  gint64       lookback_ns;       /* events kept before a spike's start; 0 = 2 ms */
  gint64       poll_ns;           /* how often the thread reads; 0 = 50 ms */
  const int   *avoid_cpus;        /* the measured CPUs: the reading thread stays off them */
  guint        n_avoid_cpus;
} QfTraceRecorderConfig;

/* A task seen in a spike's events, with the name and priority the trace last gave it. */
typedef struct
{
  gint32 pid;
  gint32 prio;                      /* the kernel's prio (0…99 real-time, 100…139 normal); -1 */
  char   comm[QF_TRACE_COMM_LEN];
} QfTraceTask;

typedef struct
{
  gint32        tid;                /* the measuring thread */
  guint         cpu;                /* where it marked the spike */
  gint64        start_ns;           /* the deadline (rt) or send time (cycle), trace clock */
  gint64        latency_ns;
  gint64        mark_ns;            /* when the mark was recorded */
  gboolean      incomplete;         /* events of the window were lost or fell out of the ring */
  guint         n_events;
  QfTraceEvent *events;             /* time order, the CPUs involved merged */
  guint         n_tasks;
  QfTraceTask  *tasks;              /* every pid of the events, named */
} QfTraceSpike;

typedef struct
{
  guint64 pages;                    /* pages read */
  guint64 bad_pages;                /* malformed pages (parsed up to the fault) */
  guint64 events;                   /* events parsed */
  guint64 lost;                     /* events the kernel dropped (buffer full) */
  guint64 marks;                    /* spikes the measuring threads marked */
  guint64 bytes;                    /* bytes read */
  guint   window_events;            /* per CPU */
  guint   n_worst;
  guint   max_spike_events;
  gsize   memory_bytes;             /* the rings and the spikes' copies at most */
  gint64  lookback_ns;
  gint64  poll_ns;
  gint64  read_cpu_ns;              /* CPU time the reading thread used (thread clock) */
} QfTraceStats;

typedef struct QfTraceRecorder QfTraceRecorder;

/* A recorder reading fds (borrowed: they must stay open until stop). Reads the formats. */
QfTraceRecorder    *qf_trace_recorder_new           (const QfTraceFds             *fds,
                                                     const QfTraceRecorderConfig  *config,
                                                     GError                      **error);
/* A recorder fed by hand (tests, a recorded trace): formats are taken over. */
QfTraceRecorder    *qf_trace_recorder_new_for_pages (QfTraceFormats               *formats,
                                                     guint                         n_cpus,
                                                     const QfTraceRecorderConfig  *config);
void                qf_trace_recorder_free          (QfTraceRecorder              *recorder);

/* Starts the reading thread. */
gboolean            qf_trace_recorder_start         (QfTraceRecorder              *recorder,
                                                     GError                      **error);
/* Reads what is left, settles every marked spike and ends the thread. */
void                qf_trace_recorder_stop          (QfTraceRecorder              *recorder);

/* Without the thread: one page of cpu's trace_pipe_raw; then flush settles every mark. */
void                qf_trace_recorder_feed_page     (QfTraceRecorder              *recorder,
                                                     guint                         cpu,
                                                     const guint8                 *page,
                                                     gsize                         len);
void                qf_trace_recorder_flush         (QfTraceRecorder              *recorder);

/* The spikes kept, worst first. */
guint               qf_trace_recorder_n_spikes      (const QfTraceRecorder        *recorder);
const QfTraceSpike *qf_trace_recorder_spike         (const QfTraceRecorder        *recorder,
                                                     guint                         index);
const QfTraceStats *qf_trace_recorder_stats         (const QfTraceRecorder        *recorder);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfTraceRecorder, qf_trace_recorder_free)

G_END_DECLS
