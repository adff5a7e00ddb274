/* qf-rt.h — the real-time latency engine, cyclictest's measurement in a library (src/engine).
 *
 * N measurement threads, each optionally pinned to one CPU, run at SCHED_FIFO priority P and
 * sleep to absolute deadlines on CLOCK_MONOTONIC (clock_nanosleep TIMER_ABSTIME), one interval
 * apart. The latency of a cycle is the wake-up time minus its deadline. Missed deadlines are
 * skipped and counted as overruns, as cyclictest does. Each thread keeps exact statistics in its
 * own QfHistogram; the results are read after qf_rt_engine_run() returns.
 *
 * While running, the engine holds mlockall(MCL_CURRENT | MCL_FUTURE) and /dev/cpu_dma_latency
 * (0 written) when it may. Scheduling needs no restoring: it belongs to the measurement threads,
 * which the engine creates per run and always joins.
 *
 * The engine keeps no global state except a process-wide count of mlockall users (memory locking
 * is itself process-wide), so several engines may run at once in one process, e.g. two runs in a
 * test or an rt run beside another engine's threads.
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "qf-histogram.h"
#include "qf-ring.h"
#include "qf-trace.h"

G_BEGIN_DECLS

#define QF_RT_ERROR (qf_rt_error_quark ())
GQuark qf_rt_error_quark (void);

typedef enum
{
  QF_RT_ERROR_INVALID,    /* a configuration value is out of range */
  QF_RT_ERROR_THREAD,     /* a measurement thread could not be created or pinned */
} QfRtError;

/* Asks someone else (the core: rtkit) to make thread `tid` SCHED_FIFO at `priority`, after the
 * thread's own sched_setscheduler() failed for lack of privilege. Called on the measurement
 * thread itself, before it starts measuring. Returns TRUE when the request was granted; the
 * engine then reads back what the thread actually got. Must be safe to call from several
 * measurement threads at once. */
typedef gboolean (*QfRtAcquireFunc) (pid_t    tid,
                                     int      priority,
                                     gpointer user_data);

/* Live figures over all threads, for a progress display. */
typedef struct
{
  gdouble fraction;      /* 0..1 of loops or duration; 0 when running until stopped */
  guint64 cycles;
  gint64  min_ns;
  gint64  max_ns;
  gint64  last_ns;       /* thread 0's latest latency */
  gdouble avg_ns;
} QfRtLive;

/* Called on the thread of qf_rt_engine_run() about four times a second. */
typedef void (*QfRtProgressFunc) (const QfRtLive *live,
                                  gpointer        user_data);

typedef struct
{
  guint            n_threads;        /* measurement threads when cpus is NULL (≥ 1) */
  const int       *cpus;             /* one pinned thread per listed CPU; NULL = not pinned */
  guint            n_cpus;
  int              priority;         /* SCHED_FIFO priority 1..99; 0 = SCHED_OTHER (no RT) */
  gint64           interval_us;      /* > 0 */
  guint64          loops;            /* cycles per thread; 0 = until duration_s or stopped */
  gdouble          duration_s;       /* 0 = until loops or stopped */
  guint            histogram_buckets;/* 1 µs buckets; 0 = 10000 (10 ms), the minimum */
  gboolean         no_mlock;         /* TRUE: do not mlockall (default: lock, like cyclictest -m) */
  gboolean         no_dma_latency;   /* TRUE: leave /dev/cpu_dma_latency alone */
  QfRtAcquireFunc  acquire_rt;       /* may be NULL */
  gpointer         acquire_data;
  QfRtProgressFunc progress;         /* may be NULL */
  gpointer         progress_data;
  const QfTraceMarks *marks;         /* mark late cycles in a trace (qf-trace.h); may be NULL.
                                      * Borrowed: must outlive the run. */
} QfRtConfig;

/* What one measurement thread got and measured; valid after qf_rt_engine_run(). */
typedef struct
{
  guint        index;
  int          cpu;                  /* pinned CPU or -1 */
  pid_t        tid;
  int          policy;               /* SCHED_FIFO, SCHED_RR (rtkit) or SCHED_OTHER, read back
                                        before and after measuring (a policy taken away while
                                        measuring counts as never had) */
  int          priority;             /* obtained, read back (0 for SCHED_OTHER); the lower of
                                        before and after */
  gboolean     via_acquire;          /* RT priority came through config->acquire_rt */
  gint64       interval_us;
  guint64      overruns;             /* deadlines skipped because the thread woke too late */
  const QfHistogram *hist;           /* count = cycles; min, max, sum, last exact */
} QfRtThreadResult;

typedef struct QfRtEngine QfRtEngine;

QfRtEngine             *qf_rt_engine_new        (const QfRtConfig *config,
                                                 GError          **error);
void                    qf_rt_engine_free       (QfRtEngine       *engine);

/* Runs the measurement; blocks until every thread has finished its loops or duration, or a stop
 * was requested through *cancel (nonzero, read with g_atomic_int_get, may be NULL) or
 * qf_rt_engine_stop(). A stop is honoured within 100 ms plus one interval. Samples go to
 * `samples` when not NULL ({t_ns, value_ns = latency, channel = thread index, flags}); the engine
 * is its single producer, a full ring drops. Returns FALSE only when the run could not start;
 * may be called once per engine. */
gboolean                qf_rt_engine_run        (QfRtEngine       *engine,
                                                 QfRing           *samples,
                                                 const gint       *cancel,
                                                 GError          **error);
/* Any thread. */
void                    qf_rt_engine_stop       (QfRtEngine       *engine);

/* Results, after run. */
guint                   qf_rt_engine_n_threads  (const QfRtEngine *engine);
const QfRtThreadResult *qf_rt_engine_thread     (const QfRtEngine *engine,
                                                 guint             index);
/* All threads merged. */
const QfHistogram      *qf_rt_engine_total      (const QfRtEngine *engine);
gboolean                qf_rt_engine_all_rt     (const QfRtEngine *engine);
gboolean                qf_rt_engine_memory_locked (const QfRtEngine *engine);
gboolean                qf_rt_engine_dma_latency_held (const QfRtEngine *engine);
gboolean                qf_rt_engine_stopped_early (const QfRtEngine *engine);
/* Samples lost inside the engine before they reached `samples` (besides the ring's own drops). */
guint64                 qf_rt_engine_samples_dropped (const QfRtEngine *engine);

#define QF_RT_SAMPLE_OVERRUN 1u   /* QfSample.flags: deadlines were skipped after this cycle */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfRtEngine, qf_rt_engine_free)

G_END_DECLS
