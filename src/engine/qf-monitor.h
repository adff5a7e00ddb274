/* qf-monitor.h — the system monitor: top + mpstat + iostat -x + sar -n DEV at 1 Hz (src/engine).
 *
 * A sampling thread takes a qf-procstat snapshot every interval (default 1 s, at least 0.1 s) on
 * absolute CLOCK_MONOTONIC deadlines, so sampling does not drift, and turns each pair of
 * snapshots into one sample of rates over the elapsed time. Samples are kept in memory (a
 * 100-second run at 1 Hz is a few hundred kB) and read after stop().
 *
 * Threads: new/start/stop/free and the sample accessors belong to one thread (the "owner");
 * qf_monitor_get_live() may be called from any thread while the monitor runs.
 */
#pragma once

#include <glib.h>

#include "qf-procstat.h"

G_BEGIN_DECLS

#define QF_MONITOR_MIN_INTERVAL_S 0.1

typedef struct
{
  const char *root;          /* read ROOT/proc (tests); NULL = "/" */
  gdouble     interval_s;    /* 0 = 1 s */
  guint       parts;         /* QfProcStatParts; 0 = all */
} QfMonitorConfig;

typedef struct
{
  gint64   t_ns;             /* CLOCK_MONOTONIC at the end of the interval */
  gdouble  t_s;              /* seconds since start() */
  gdouble  elapsed_s;        /* length of the interval this sample covers */
  QfCpuPct cpu;
  GArray  *cpus;             /* QfCpuPct per CPU */
  gdouble  load1, load5, load15;
  guint64  mem_total_kb, mem_free_kb, mem_available_kb;
  guint64  mem_used_kb;      /* MemTotal − MemAvailable (as free(1) of procps 4) */
  guint64  buff_cache_kb;    /* Buffers + Cached + SReclaimable (as top) */
  guint64  swap_total_kb, swap_used_kb;
  GArray  *disks;            /* QfDiskRates */
  GArray  *nets;             /* QfNetRates */
  GArray  *top_cpu;          /* QfProcRates, up to 5 */
  GArray  *top_mem;          /* QfProcRates, up to 5 */
} QfMonitorSample;

/* Scalars of the newest sample, for live display. */
typedef struct
{
  guint   n_samples;
  gdouble t_s;
  gdouble cpu_busy_pct;
  gdouble cpu_iowait_pct;
  gdouble load1;
  guint64 mem_available_kb;
  gdouble disk_util_max_pct;
} QfMonitorLive;

typedef struct QfMonitor QfMonitor;

/* Opens the /proc files (fails here when they cannot be read). */
QfMonitor             *qf_monitor_new        (const QfMonitorConfig *config,
                                              GError               **error);
void                   qf_monitor_free       (QfMonitor             *monitor);

/* Takes the first snapshot and starts the sampling thread. */
gboolean               qf_monitor_start      (QfMonitor             *monitor,
                                              GError               **error);
/* Stops and joins the thread within a few ms, adding a last sample for the partial interval
 * when at least half an interval has passed since the previous one. Returns FALSE with error
 * when sampling failed while running (the samples taken before remain). */
gboolean               qf_monitor_stop       (QfMonitor             *monitor,
                                              GError               **error);

guint                  qf_monitor_n_cpus     (QfMonitor             *monitor);
gint64                 qf_monitor_start_ns   (QfMonitor             *monitor);
gdouble                qf_monitor_interval_s (QfMonitor             *monitor);

/* After stop(): the samples, oldest first; valid until free(). */
guint                  qf_monitor_n_samples  (QfMonitor             *monitor);
const QfMonitorSample *qf_monitor_get_sample (QfMonitor             *monitor,
                                              guint                  index);

/* Any thread, while running or after: the newest sample's scalars. */
void                   qf_monitor_get_live   (QfMonitor             *monitor,
                                              QfMonitorLive         *live);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfMonitor, qf_monitor_free)

G_END_DECLS
