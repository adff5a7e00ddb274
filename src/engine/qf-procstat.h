/* qf-procstat.h — readers for /proc: CPU, load, memory, disks, network, processes (src/engine).
 *
 * What top, mpstat, iostat -x and sar -n DEV compute, from the same kernel counters:
 * /proc/stat, /proc/loadavg, /proc/meminfo, /proc/diskstats, /proc/net/dev and /proc/PID/stat.
 *
 * A QfProcStat keeps every file open and re-reads it from offset 0 (pread) at each snapshot, so
 * sampling costs a few reads and no path lookups. A snapshot holds the raw counters and the
 * CLOCK_MONOTONIC time at which they were read; qf_procstat_rates() turns two snapshots into
 * rates over the *elapsed* monotonic time (never the nominal interval).
 *
 * Everything is read below a root directory ("/" on a real system, a fixture tree in tests:
 * ROOT/proc/stat, ROOT/proc/diskstats, ROOT/sys/block …).
 *
 * Rules the rates follow (see qf-procstat.c for the formulas):
 *   - Counter wrap: when a counter is smaller than before, it wrapped. A previous value that fits
 *     in 32 bits is taken as a 32-bit counter (delta = cur + 2^32 − prev), otherwise as a 64-bit
 *     one (delta = cur − prev modulo 2^64). This is what sysstat does.
 *   - A disk or interface that appears between two snapshots is counted from zero: every count it
 *     shows was made after it appeared, so within the interval (as iostat does). One that
 *     disappears is dropped.
 *   - Disks: whole devices only when ROOT/sys/block exists (as iostat without -p), else every
 *     line; devices that never did any I/O (unused loop and ram devices) are left out.
 *   - CPU percentages are of the total ticks of the interval (user … steal; guest time is already
 *     inside user/nice and is not counted twice). busy = 100 − idle − iowait.
 *
 * Threads: a QfProcStat and its snapshots belong to one thread at a time; qf_procstat_rates()
 * only reads its arguments and may run anywhere.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define QF_PROCSTAT_ERROR (qf_procstat_error_quark ())
GQuark qf_procstat_error_quark (void);

typedef enum
{
  QF_PROCSTAT_ERROR_OPEN,    /* a /proc file could not be opened (message names it) */
  QF_PROCSTAT_ERROR_READ,    /* reading failed */
  QF_PROCSTAT_ERROR_PARSE,   /* the file does not have the expected format */
} QfProcStatError;

/* Which parts to read; qf_procstat_new() opens only these files. */
typedef enum
{
  QF_PROCSTAT_CPU       = 1 << 0,   /* /proc/stat */
  QF_PROCSTAT_LOADAVG   = 1 << 1,   /* /proc/loadavg */
  QF_PROCSTAT_MEMINFO   = 1 << 2,   /* /proc/meminfo */
  QF_PROCSTAT_DISKS     = 1 << 3,   /* /proc/diskstats */
  QF_PROCSTAT_NET       = 1 << 4,   /* /proc/net/dev */
  QF_PROCSTAT_PROCESSES = 1 << 5,   /* /proc/PID/stat for every process (top 5) */
  QF_PROCSTAT_ALL       = 0x3f,
} QfProcStatParts;

/* ---- raw counters (one snapshot) ---- */

typedef struct
{
  guint64 user, nice, system, idle, iowait, irq, softirq, steal;   /* USER_HZ ticks */
} QfCpuTicks;

typedef struct
{
  char    name[32];
  guint64 rd_ios, rd_merges, rd_sectors, rd_ticks_ms;
  guint64 wr_ios, wr_merges, wr_sectors, wr_ticks_ms;
  guint64 in_flight, io_ticks_ms, time_in_queue_ms;
  guint64 dc_ios, dc_merges, dc_sectors, dc_ticks_ms;   /* discard (kernel ≥ 4.18), else 0 */
  guint64 fl_ios, fl_ticks_ms;                          /* flush (kernel ≥ 5.5), else 0 */
} QfDiskCounters;

typedef struct
{
  char    name[32];
  guint64 rx_bytes, rx_packets, rx_errs, rx_drop;
  guint64 tx_bytes, tx_packets, tx_errs, tx_drop;
} QfNetCounters;

typedef struct
{
  gint32  pid;
  char    comm[32];
  guint64 cpu_ticks;      /* utime + stime */
  guint64 rss_kb;
} QfProcCounters;

typedef struct
{
  gint64      t_ns;          /* CLOCK_MONOTONIC when the snapshot was taken */
  guint       parts;         /* QfProcStatParts actually read */

  QfCpuTicks  cpu;           /* the "cpu" line */
  GArray     *cpus;          /* QfCpuTicks per "cpuN" line, index = N */

  gdouble     load1, load5, load15;
  guint       runnable, threads;

  /* /proc/meminfo, kB */
  guint64     mem_total_kb, mem_free_kb, mem_available_kb, buffers_kb, cached_kb;
  guint64     sreclaimable_kb, shmem_kb, swap_total_kb, swap_free_kb;

  GArray     *disks;         /* QfDiskCounters, in file order */
  GArray     *nets;          /* QfNetCounters, in file order */
  GArray     *procs;         /* QfProcCounters, sorted by pid */
} QfProcSnapshot;

/* ---- rates between two snapshots ---- */

typedef struct
{
  gdouble us, sy, ni, id, wa, hi, si, st;   /* percent of the interval's ticks */
  gdouble busy;                             /* 100 − id − wa */
} QfCpuPct;

typedef struct
{
  char    name[32];
  gdouble r_per_s, w_per_s;            /* completed reads / writes per second */
  gdouble rkB_per_s, wkB_per_s;        /* kB = 1024 bytes, sectors are 512 bytes */
  gdouble rrqm_per_s, wrqm_per_s;      /* merged requests per second */
  gdouble r_await_ms, w_await_ms;      /* mean time per completed read / write */
  gdouble await_ms;                    /* mean over reads, writes, discards and flushes */
  gdouble aqu_sz;                      /* mean queue length */
  gdouble util_pct;                    /* share of the interval with I/O in flight, ≤ 100 */
  guint64 ios;                         /* requests completed in the interval (await is 0 if 0) */
} QfDiskRates;

typedef struct
{
  char    name[32];
  gdouble rx_kBps, tx_kBps;            /* kB = 1024 bytes, as sar -n DEV */
  gdouble rx_pkts_per_s, tx_pkts_per_s;
} QfNetRates;

typedef struct
{
  gint32  pid;
  char    comm[32];
  gdouble cpu_pct;                     /* of one CPU, as top (can exceed 100 for threads) */
  guint64 rss_kb;
  gdouble mem_pct;                     /* RSS of MemTotal */
} QfProcRates;

typedef struct
{
  gdouble     elapsed_s;       /* monotonic time between the snapshots */
  QfCpuPct    cpu;
  GArray     *cpus;            /* QfCpuPct per CPU present in both snapshots */
  GArray     *disks;           /* QfDiskRates */
  GArray     *nets;            /* QfNetRates */
  GArray     *top_cpu;         /* QfProcRates, up to 5, highest cpu_pct first */
  GArray     *top_mem;         /* QfProcRates, up to 5, highest rss_kb first */
} QfProcRatesSet;

typedef struct QfProcStat QfProcStat;

/* Opens the files of `parts` below root (NULL = "/"). Fails when a requested file cannot be
 * opened, except /proc/diskstats and /proc/net/dev, which may be absent (read as empty). */
QfProcStat     *qf_procstat_new             (const char            *root,
                                             guint                  parts,
                                             GError               **error);
void            qf_procstat_free            (QfProcStat            *ps);
/* Number of CPUs counted in /proc/stat at open time (the "cpuN" lines). */
guint           qf_procstat_n_cpus          (const QfProcStat      *ps);
/* Clock source for snapshot times; tests set a fake one. NULL restores CLOCK_MONOTONIC. */
void            qf_procstat_set_clock       (QfProcStat            *ps,
                                             gint64               (*now_ns) (gpointer),
                                             gpointer               user_data);

QfProcSnapshot *qf_procstat_snapshot_new    (void);
void            qf_procstat_snapshot_free   (QfProcSnapshot        *snap);
/* Re-reads every open file from offset 0 into snap (reusing its arrays). */
gboolean        qf_procstat_read            (QfProcStat            *ps,
                                             QfProcSnapshot        *snap,
                                             GError               **error);

QfProcRatesSet *qf_procstat_rates_new       (void);
void            qf_procstat_rates_free      (QfProcRatesSet        *rates);
/* Rates from prev to cur into out (reusing its arrays). clk_tck = USER_HZ (0 = sysconf). */
void            qf_procstat_rates           (const QfProcSnapshot  *prev,
                                             const QfProcSnapshot  *cur,
                                             glong                  clk_tck,
                                             QfProcRatesSet        *out);

/* Counter difference with wrap handling (the rule at the top of this file). */
static inline guint64
qf_procstat_delta (guint64 prev,
                   guint64 cur)
{
  if (cur >= prev)
    return cur - prev;
  if (prev <= G_MAXUINT32)
    return cur + ((G_GUINT64_CONSTANT (1) << 32) - prev);
  return cur - prev;   /* modulo 2^64 */
}

/* Convenience for the network tests: rx/tx kB/s of one interface between two snapshots, FALSE
 * when it is missing in cur. */
gboolean        qf_procstat_net_rate        (const QfProcSnapshot  *prev,
                                             const QfProcSnapshot  *cur,
                                             const char            *iface,
                                             QfNetRates            *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfProcStat, qf_procstat_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfProcSnapshot, qf_procstat_snapshot_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfProcRatesSet, qf_procstat_rates_free)

G_END_DECLS
