/* qf-stress.h — CPU, I/O, memory and disk stressors, as `stress` (src/engine).
 *
 * Each worker is a child process, so a load can be ended with SIGKILL at any moment and the
 * kernel frees everything it held:
 *   cpu  spins on sqrt() of pseudo-random numbers                     (stress -c)
 *   io   calls sync() in a loop                                       (stress -i)
 *   vm   maps B bytes, writes every page, holds them for vm-hang s, unmaps, repeats
 *                                                           (stress --vm --vm-bytes --vm-hang)
 *   hdd  writes B-byte files in a directory with O_DIRECT (or, where the file system refuses
 *        O_DIRECT, buffered writes with fdatasync every 4 MiB), so the load reaches the disk.
 *        Files are O_TMPFILE (never visible) or unlinked right after creation; each worker
 *        rewrites its one file from the start, round after round, as fio does.
 *                                                           (stress -d --hdd-bytes)
 *
 * No leftovers: workers set PR_SET_PDEATHSIG = SIGKILL, so they die with the thread that started
 * them, even when the parent is killed with SIGKILL; a stop sends SIGKILL and reaps every worker
 * before returning. The hdd files go straight into the directory (--dir, or by default the temp
 * dir, /var/tmp when the temp dir is a tmpfs, which is RAM, not disk): no folder of their own, so
 * even SIGKILL leaves no entry behind. A named fallback file that a killed run left between its
 * creation and its unlink, and the "qualify-stress-PID-*" folders earlier versions used, are
 * removed by the next run.
 *
 * Safety on a customer's PC, checked before any worker starts and while they run:
 *   - memory: vm × vm_bytes must not exceed MemAvailable − margin (default 10 % of MemTotal);
 *     while running, if MemAvailable falls below half the margin the run stops with an error.
 *     vm workers set oom_score_adj 1000, so were memory ever short the kernel would pick them.
 *   - disk: hdd × hdd_bytes must not exceed the free space − margin (default 10 % of the file
 *     system) and the directory must be writable; the error names the numbers and the fix.
 *
 * Stepped load: with steps = K > 1 the run is split into K equal parts; in part k (1…K) each kind
 * runs ceil(N·k/K) of its N workers, so the load rises step by step (seed 003's advice); the
 * result lists when each step began so a monitor can tell where a rule first broke.
 *
 * Threads: one thread drives a QfStress (new, run/start/stop, free). Another thread may request a
 * stop through the cancel flag passed to run(); run() honours it within 100 ms plus the time the
 * kernel needs to end a worker (well under 1 s; an io worker inside sync() ends only when that
 * call returns, which on a machine with much unwritten data can take longer).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define QF_STRESS_ERROR (qf_stress_error_quark ())
GQuark qf_stress_error_quark (void);

typedef enum
{
  QF_STRESS_ERROR_INVALID,     /* a parameter is out of range */
  QF_STRESS_ERROR_MEMORY,      /* the vm load is above the safe limit, or memory ran short */
  QF_STRESS_ERROR_DISK,        /* the directory is not writable or has too little free space */
  QF_STRESS_ERROR_WORKER,      /* a worker could not start or failed (message says why) */
} QfStressError;

#define QF_STRESS_MAX_WORKERS      1024   /* per kind */
#define QF_STRESS_DEFAULT_VM_BYTES (G_GUINT64_CONSTANT (256) << 20)   /* as stress */
#define QF_STRESS_DEFAULT_HDD_BYTES (G_GUINT64_CONSTANT (1) << 30)    /* as stress */
#define QF_STRESS_DEFAULT_MARGIN_PCT 10.0

typedef struct
{
  guint       cpu, io, vm, hdd;   /* workers of each kind */
  guint64     vm_bytes;           /* per vm worker (0 = default) */
  gdouble     vm_hang_s;          /* hold time before unmapping: < 0 none (default), 0 forever */
  guint64     hdd_bytes;          /* per file of an hdd worker (0 = default) */
  const char *dir;                /* hdd directory; NULL = the temp dir (see above) */
  gdouble     timeout_s;          /* run() length; 0 = until cancelled (needs steps ≤ 1) */
  guint       steps;              /* 0 or 1 = full load at once; K = raise in K steps */
  gdouble     mem_margin_pct;     /* of MemTotal (0 = default 10) */
  gdouble     disk_margin_pct;    /* of the file system size (0 = default 10) */
  const char *root;               /* read ROOT/proc/meminfo (tests); NULL = "/" */
} QfStressConfig;

typedef struct
{
  guint  cpu, io, vm, hdd;        /* workers running in this step */
  gint64 start_ns, end_ns;        /* CLOCK_MONOTONIC */
} QfStressStep;

typedef struct
{
  gint64      start_ns, end_ns;   /* CLOCK_MONOTONIC of the first worker start and of the stop */
  gdouble     duration_s;
  guint64     bytes_written;      /* by hdd workers (bytes the kernel accepted) */
  guint64     vm_bytes_touched;   /* pages written by vm workers, in bytes */
  guint64     cpu_loops;          /* sqrt() calls, in thousands */
  guint64     io_syncs;
  const char *hdd_mode;           /* "direct", "fsync" or NULL when no hdd worker wrote */
  const char *hdd_dir;            /* the directory used, or NULL */
  GArray     *steps;              /* QfStressStep */
  gboolean    cancelled;
} QfStressResult;

typedef struct QfStress QfStress;

/* Called by run() about ten times a second with the elapsed seconds and the fraction done (0 when
 * there is no timeout). Runs on run()'s thread; must not block. */
typedef void (*QfStressTickFunc) (gdouble elapsed_s, gdouble fraction, gpointer user_data);

/* Checks the configuration and the safety limits (memory, disk space, writable directory) and
 * prepares the hdd directory. No worker starts yet. */
QfStress             *qf_stress_new        (const QfStressConfig *config,
                                            GError              **error);
void                  qf_stress_free       (QfStress             *stress);

/* Starts the workers (the full load, or step 1 of K), runs until the timeout, the cancel flag or
 * a failure, stops and reaps every worker. Returns FALSE with error on a failure; a cancel is not
 * a failure (the result says cancelled). */
gboolean              qf_stress_run        (QfStress             *stress,
                                            const gint           *cancel,
                                            QfStressTickFunc      tick,
                                            gpointer              user_data,
                                            GError              **error);

/* For running something else under load (rt --under-load): start() starts the full load and
 * returns; poll() checks the workers and the memory floor (call it every second or so); stop()
 * kills and reaps them. stop() is safe to call twice and is called by free(). */
gboolean              qf_stress_start      (QfStress             *stress,
                                            GError              **error);
gboolean              qf_stress_poll       (QfStress             *stress,
                                            GError              **error);
void                  qf_stress_stop       (QfStress             *stress);

/* The figures of the last run; valid until free(). */
const QfStressResult *qf_stress_get_result (QfStress             *stress);
/* PIDs of the running workers (for tests); an array the caller frees. */
GArray               *qf_stress_get_pids   (QfStress             *stress);

/* The size parser of stress's command line: "1G", "256M", "100k", "4096" (bytes; K/M/G/T powers
 * of 1024, optional trailing "B"). FALSE when text is not a size. */
gboolean              qf_stress_parse_size (const char           *text,
                                            guint64              *bytes);
/* Seconds from stress's "100s", "2m", "1h", "1.5" (plain number = seconds). */
gboolean              qf_stress_parse_duration (const char       *text,
                                                gdouble          *seconds);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfStress, qf_stress_free)

G_END_DECLS
