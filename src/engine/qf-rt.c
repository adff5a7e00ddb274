/* qf-rt.c — the real-time latency engine (src/engine); see qf-rt.h.
 *
 * The measuring loop follows cyclictest's clock_nanosleep mode: next = now + interval; sleep to
 * next with TIMER_ABSTIME; read CLOCK_MONOTONIC; latency = now − next; next += interval, and
 * while now is already past next, skip that deadline (an overrun). Between the sleep and the
 * clock read the loop only updates the thread's own histogram, a few relaxed atomic stores for
 * the live display and, when samples are wanted, the thread's own SPSC ring: no allocation, no
 * lock, no log, no system call besides clock_nanosleep (clock_gettime is a vDSO read) and, when
 * a trace is recorded, one write() to trace_marker for a cycle worth a mark (qf-trace.h).
 *
 * The thread that called qf_rt_engine_run() supervises: it polls the cancel flag, forwards the
 * per-thread rings into the caller's single ring (which keeps that ring single-producer), and
 * calls the progress function. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-rt.h"

G_DEFINE_QUARK (qf-rt-error-quark, qf_rt_error)

#define DEFAULT_BUCKETS     10000u            /* 1 µs each: 10 ms */
#define SUPERVISE_NS        (50 * QF_NSEC_PER_MSEC)   /* cancel polling: half the stop bound */
#define FORWARD_NS          (20 * QF_NSEC_PER_MSEC)   /* with a sample ring: keep plots fluid */
#define PROGRESS_NS         (250 * QF_NSEC_PER_MSEC)
#define THREAD_STACK_BYTES  (256 * 1024)
#define PREFAULT_BYTES      (64 * 1024)

typedef struct
{
  /* Written by the measurement thread, read by the supervisor: on their own cache lines. */
  _Alignas (64) atomic_uint_fast64_t live_cycles;
  atomic_int_fast64_t live_min_ns;
  atomic_int_fast64_t live_max_ns;
  atomic_int_fast64_t live_sum_ns;
  atomic_int_fast64_t live_last_ns;
  atomic_int          done;

  _Alignas (64) QfRtThreadResult result;
  QfRtEngine  *engine;
  pthread_t    pthread;
  gboolean     started;
  QfHistogram *hist;
  QfRing      *ring;            /* this thread's samples, drained by the supervisor; or NULL */
} QfRtThread;

struct QfRtEngine
{
  QfRtConfig   config;
  int         *cpus;            /* owned copy of config.cpus */
  guint        n_threads;
  QfRtThread **threads;
  QfHistogram *total;
  atomic_int   stop;
  gint64       end_ns;          /* 0 = no duration */
  gboolean     ran;
  gboolean     memory_locked;
  gboolean     dma_latency_held;
  gboolean     stopped_early;
  guint64      samples_dropped;
};

/* mlockall() is process-wide: the last engine to finish must be the one that unlocks, or a run
 * would unlock another run's memory. This count mirrors that kernel state and is the only
 * global here.
 *
 * MCL_ONFAULT: a process linking the whole core maps some 40 MB of libraries the loop never
 * touches; faulting them all in (as plain MCL_CURRENT does) costs about 15 ms of CPU and locks
 * memory for nothing. What the loop touches — its stack, histogram, ring and thread state — is
 * written before the first deadline (prefault(), prefault_ring()), so it is resident and locked
 * like under cyclictest -m. Kernels before 4.4 lack MCL_ONFAULT: then lock everything. */
G_LOCK_DEFINE_STATIC (mlock_users);
static guint mlock_users;

static gboolean
lock_memory (void)
{
  gboolean ok = TRUE;

  G_LOCK (mlock_users);
  if (mlock_users == 0)
    ok = mlockall (MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0 ||
         (errno == EINVAL && mlockall (MCL_CURRENT | MCL_FUTURE) == 0);
  if (ok)
    mlock_users++;
  G_UNLOCK (mlock_users);
  return ok;
}

static void
unlock_memory (void)
{
  G_LOCK (mlock_users);
  g_assert (mlock_users > 0);
  if (--mlock_users == 0)
    munlockall ();
  G_UNLOCK (mlock_users);
}

/* As cyclictest: PM QoS holds while the file stays open with 0 written. Returns -1 when the
 * device is missing or not writable (not root); the run goes on without it. */
static int
hold_dma_latency (void)
{
  gint32 zero = 0;
  int fd = open ("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);

  if (fd < 0)
    return -1;
  if (write (fd, &zero, sizeof zero) != sizeof zero)
    {
      close (fd);
      return -1;
    }
  return fd;
}

QfRtEngine *
qf_rt_engine_new (const QfRtConfig *config,
                  GError          **error)
{
  g_autoptr(QfRtEngine) engine = NULL;
  long n_cpus_conf = sysconf (_SC_NPROCESSORS_CONF);

  g_return_val_if_fail (config != NULL, NULL);

  if (config->cpus == NULL && (config->n_threads < 1 || config->n_threads > 1024))
    {
      g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID,
                   _("threads must be 1…1024, not %u"), config->n_threads);
      return NULL;
    }
  if (config->cpus != NULL && (config->n_cpus < 1 || config->n_cpus > 1024))
    {
      g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID, _("the CPU list is empty"));
      return NULL;
    }
  for (guint i = 0; config->cpus != NULL && i < config->n_cpus; i++)
    if (config->cpus[i] < 0 || config->cpus[i] >= n_cpus_conf || config->cpus[i] >= CPU_SETSIZE)
      {
        g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID,
                     _("CPU %d does not exist (this PC has CPUs 0…%ld)"), config->cpus[i],
                     n_cpus_conf - 1);
        return NULL;
      }
  if (config->priority < 0 || config->priority > 99)
    {
      g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID,
                   _("priority must be 0…99, not %d"), config->priority);
      return NULL;
    }
  if (config->interval_us < 1 || config->interval_us > 10 * G_USEC_PER_SEC)
    {
      g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID,
                   _("interval must be 1 µs…10 s, not %lld µs"), (long long) config->interval_us);
      return NULL;
    }
  if (!(config->duration_s >= 0 && config->duration_s <= 30 * 24 * 3600.0))
    {
      g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID,
                   _("duration must be 0…30 days, not %g s"), config->duration_s);
      return NULL;
    }
  if (config->histogram_buckets != 0 && config->histogram_buckets < DEFAULT_BUCKETS)
    {
      g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID,
                   _("the histogram needs at least %u buckets of 1 µs"), DEFAULT_BUCKETS);
      return NULL;
    }

  engine = g_new0 (QfRtEngine, 1);
  engine->config = *config;
  if (config->cpus != NULL)
    {
      engine->cpus = g_memdup2 (config->cpus, sizeof (int) * config->n_cpus);
      engine->config.cpus = engine->cpus;
      engine->n_threads = config->n_cpus;
    }
  else
    engine->n_threads = config->n_threads;
  if (engine->config.histogram_buckets == 0)
    engine->config.histogram_buckets = DEFAULT_BUCKETS;
  atomic_init (&engine->stop, 0);

  /* Everything a run touches is allocated here, before memory gets locked. */
  engine->threads = g_new0 (QfRtThread *, engine->n_threads);
  for (guint i = 0; i < engine->n_threads; i++)
    {
      QfRtThread *t = g_aligned_alloc0 (1, sizeof (QfRtThread), 64);

      t->engine = engine;
      t->hist = qf_histogram_new (QF_NSEC_PER_USEC, engine->config.histogram_buckets);
      t->result.index = i;
      t->result.cpu = engine->cpus ? engine->cpus[i] : -1;
      t->result.interval_us = config->interval_us;
      t->result.policy = SCHED_OTHER;
      t->result.hist = t->hist;
      atomic_init (&t->live_cycles, 0);
      atomic_init (&t->live_min_ns, 0);
      atomic_init (&t->live_max_ns, 0);
      atomic_init (&t->live_sum_ns, 0);
      atomic_init (&t->live_last_ns, 0);
      atomic_init (&t->done, 0);
      engine->threads[i] = t;
    }
  engine->total = qf_histogram_new (QF_NSEC_PER_USEC, engine->config.histogram_buckets);

  return g_steal_pointer (&engine);
}

void
qf_rt_engine_free (QfRtEngine *engine)
{
  if (engine == NULL)
    return;
  for (guint i = 0; engine->threads != NULL && i < engine->n_threads; i++)
    {
      QfRtThread *t = engine->threads[i];

      if (t == NULL)
        continue;
      g_assert (!t->started);
      qf_histogram_free (t->hist);
      qf_ring_free (t->ring);
      g_aligned_free (t);
    }
  g_free (engine->threads);
  qf_histogram_free (engine->total);
  g_free (engine->cpus);
  g_free (engine);
}

/* Measurement thread: takes its CPU and priority, asks config->acquire_rt when refused, and
 * reads back what it really got. */
static void
setup_thread (QfRtThread *t)
{
  QfRtEngine *engine = t->engine;
  struct sched_param param = { 0 };
  int policy = SCHED_OTHER;

  /* published: a supervisor (qualifyd's caller, a test) may read it while the run goes on */
  g_atomic_int_set (&t->result.tid, gettid ());

  if (t->result.cpu >= 0)
    {
      cpu_set_t set;

      CPU_ZERO (&set);
      CPU_SET (t->result.cpu, &set);
      /* run() refused CPUs outside this process's affinity mask, so this cannot fail unless
       * the CPU went offline since; then the thread says it is not pinned. */
      if (pthread_setaffinity_np (pthread_self (), sizeof set, &set) != 0)
        t->result.cpu = -1;
    }

  if (engine->config.priority > 0)
    {
      param.sched_priority = engine->config.priority;
      if (pthread_setschedparam (pthread_self (), SCHED_FIFO, &param) != 0 &&
          engine->config.acquire_rt != NULL &&
          engine->config.acquire_rt (t->result.tid, engine->config.priority,
                                     engine->config.acquire_data))
        t->result.via_acquire = TRUE;
    }

  if (pthread_getschedparam (pthread_self (), &policy, &param) == 0)
    {
      /* rtkit grants SCHED_RR | SCHED_RESET_ON_FORK: for one thread per priority level RR
       * behaves exactly like FIFO. */
      policy &= ~SCHED_RESET_ON_FORK;
      t->result.policy = policy;
      t->result.priority = (policy == SCHED_FIFO || policy == SCHED_RR) ? param.sched_priority : 0;
    }
  if (t->result.priority == 0)
    t->result.via_acquire = FALSE;
}

/* Measurement thread, after its loop: a priority granted by someone else can be taken back
 * while the thread measures (qualifyd demotes the threads of a caller that left the bus); a
 * thread that did not keep its real-time policy to the end did not measure with it. */
static void
check_still_rt (QfRtThread *t)
{
  struct sched_param param = { 0 };
  int policy;

  /* The kernel's view (0 = this thread): glibc's pthread_getschedparam() answers from its own
   * copy once the thread set its policy itself, and would miss a change made from outside. */
  if (t->result.priority == 0 || (policy = sched_getscheduler (0)) < 0 ||
      sched_getparam (0, &param) != 0)
    return;
  policy &= ~SCHED_RESET_ON_FORK;
  if (policy != t->result.policy || param.sched_priority != t->result.priority)
    {
      t->result.policy = policy;
      t->result.priority = (policy == SCHED_FIFO || policy == SCHED_RR)
                           ? MIN (param.sched_priority, t->result.priority) : 0;
      if (t->result.priority == 0)
        t->result.via_acquire = FALSE;
    }
}

/* Touch the stack the loop will use and the histogram, so no page fault lands in the loop even
 * when mlockall was refused. */
static void
prefault (QfRtThread *t)
{
  volatile char stack[PREFAULT_BYTES];

  memset ((char *) stack, 0, sizeof stack);
  qf_histogram_reset (t->hist);
}

static void *
measure_thread (void *data)
{
  QfRtThread *t = data;
  QfRtEngine *engine = t->engine;
  QfHistogram *hist = t->hist;
  QfRing *ring = t->ring;
  const gint64 interval_ns = engine->config.interval_us * QF_NSEC_PER_USEC;
  const guint64 loops = engine->config.loops;
  const gint64 end_ns = engine->end_ns;
  const QfTraceMarks *marks = engine->config.marks;
  guint64 overruns = 0;
  QfTraceWorst worst = { .n = 0 };
  gint64 now_ns, next_ns;

  setup_thread (t);
  prefault (t);

  next_ns = qf_clock_now_ns () + interval_ns;
  for (;;)
    {
      struct timespec deadline = qf_ns_to_timespec (next_ns);
      QfSample sample;
      int ret;

      ret = clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
      if (ret == EINTR)
        continue;   /* signals are blocked here; tolerate one sent to this tid anyway */
      if (ret != 0)
        break;      /* only EINVAL is possible, and the deadline is always valid */

      now_ns = qf_clock_now_ns ();
      sample.value_ns = now_ns - next_ns;
      qf_histogram_add (hist, sample.value_ns);
      if (qf_trace_mark_wanted (marks, &worst, sample.value_ns))
        qf_trace_mark (marks, next_ns, sample.value_ns);

      atomic_store_explicit (&t->live_cycles, hist->count, memory_order_relaxed);
      atomic_store_explicit (&t->live_min_ns, hist->min_ns, memory_order_relaxed);
      atomic_store_explicit (&t->live_max_ns, hist->max_ns, memory_order_relaxed);
      atomic_store_explicit (&t->live_sum_ns, hist->sum_ns, memory_order_relaxed);
      atomic_store_explicit (&t->live_last_ns, sample.value_ns, memory_order_relaxed);

      sample.flags = 0;
      next_ns += interval_ns;
      while (now_ns > next_ns)
        {
          next_ns += interval_ns;
          overruns++;
          sample.flags = QF_RT_SAMPLE_OVERRUN;
        }

      if (ring != NULL)
        {
          sample.t_ns = now_ns;
          sample.channel = t->result.index;
          qf_ring_push (ring, &sample);
        }

      if (loops != 0 && hist->count >= loops)
        break;
      if (end_ns != 0 && next_ns > end_ns)
        break;
      if (atomic_load_explicit (&engine->stop, memory_order_relaxed))
        break;
    }

  t->result.overruns = overruns;
  check_still_rt (t);
  atomic_store_explicit (&t->done, 1, memory_order_release);
  return NULL;
}

static guint64
forward_samples (QfRtEngine *engine,
                 QfRing     *samples)
{
  QfSample buf[256];
  guint64 lost = 0;

  for (guint i = 0; i < engine->n_threads; i++)
    {
      QfRtThread *t = engine->threads[i];
      guint n;

      if (t->ring == NULL)
        continue;
      while ((n = qf_ring_pop (t->ring, buf, G_N_ELEMENTS (buf))) > 0)
        for (guint j = 0; j < n; j++)
          qf_ring_push (samples, &buf[j]);
      lost += qf_ring_dropped (t->ring);
    }
  return lost;
}

static void
report_progress (QfRtEngine *engine,
                 gint64      start_ns)
{
  QfRtLive live = { 0 };
  gint64 sum_ns = 0;

  for (guint i = 0; i < engine->n_threads; i++)
    {
      QfRtThread *t = engine->threads[i];
      guint64 cycles = atomic_load_explicit (&t->live_cycles, memory_order_relaxed);
      gint64 min_ns = atomic_load_explicit (&t->live_min_ns, memory_order_relaxed);
      gint64 max_ns = atomic_load_explicit (&t->live_max_ns, memory_order_relaxed);

      if (cycles == 0)
        continue;
      if (live.cycles == 0 || min_ns < live.min_ns)
        live.min_ns = min_ns;
      if (live.cycles == 0 || max_ns > live.max_ns)
        live.max_ns = max_ns;
      live.cycles += cycles;
      sum_ns += atomic_load_explicit (&t->live_sum_ns, memory_order_relaxed);
    }
  live.last_ns = atomic_load_explicit (&engine->threads[0]->live_last_ns, memory_order_relaxed);
  live.avg_ns = live.cycles ? (gdouble) sum_ns / (gdouble) live.cycles : 0;
  if (engine->config.loops != 0)
    live.fraction = (gdouble) live.cycles / ((gdouble) engine->config.loops * engine->n_threads);
  else if (engine->end_ns != 0)
    live.fraction = (gdouble) (qf_clock_now_ns () - start_ns) /
                    (gdouble) (engine->end_ns - start_ns);
  live.fraction = CLAMP (live.fraction, 0.0, 1.0);
  engine->config.progress (&live, engine->config.progress_data);
}

/* Supervisor, before the threads start: write every slot once so no push from the loop meets
 * an unfaulted page. */
static void
prefault_ring (QfRing *ring)
{
  QfSample sample = { 0 }, out[256];
  guint capacity = qf_ring_capacity (ring);

  for (guint i = 0; i < capacity; i++)
    qf_ring_push (ring, &sample);
  while (qf_ring_pop (ring, out, G_N_ELEMENTS (out)) > 0)
    ;
}

static gboolean
all_done (QfRtEngine *engine)
{
  for (guint i = 0; i < engine->n_threads; i++)
    if (engine->threads[i]->started &&
        !atomic_load_explicit (&engine->threads[i]->done, memory_order_acquire))
      return FALSE;
  return TRUE;
}

static gboolean
start_threads (QfRtEngine *engine,
               GError    **error)
{
  pthread_attr_t attr;
  sigset_t all, old;
  gboolean ok = TRUE;

  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, THREAD_STACK_BYTES);
  /* Signals belong to the process's main loop (the CLI uses g_unix_signal_add): the measuring
   * threads inherit a full mask so no handler ever runs on them. */
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);

  for (guint i = 0; i < engine->n_threads && ok; i++)
    {
      QfRtThread *t = engine->threads[i];
      int err = pthread_create (&t->pthread, &attr, measure_thread, t);

      if (err != 0)
        {
          g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_THREAD,
                       _("cannot start measurement thread %u: %s"), i, g_strerror (err));
          ok = FALSE;
        }
      else
        t->started = TRUE;
    }

  pthread_sigmask (SIG_SETMASK, &old, NULL);
  pthread_attr_destroy (&attr);
  return ok;
}

gboolean
qf_rt_engine_run (QfRtEngine *engine,
                  QfRing     *samples,
                  const gint *cancel,
                  GError    **error)
{
  gint64 start_ns, next_progress_ns;
  int dma_fd = -1;
  gboolean ok;

  g_return_val_if_fail (engine != NULL, FALSE);
  g_return_val_if_fail (!engine->ran, FALSE);
  engine->ran = TRUE;

  for (guint i = 0; engine->cpus != NULL && i < engine->n_threads; i++)
    {
      cpu_set_t allowed;

      if (sched_getaffinity (0, sizeof allowed, &allowed) == 0 &&
          !CPU_ISSET (engine->cpus[i], &allowed))
        {
          g_set_error (error, QF_RT_ERROR, QF_RT_ERROR_THREAD,
                       _("CPU %d is offline or not allowed for this process"), engine->cpus[i]);
          return FALSE;
        }
    }

  if (samples != NULL)
    {
      /* A second of samples per thread: the supervisor drains every 20 ms. */
      guint capacity = (guint) CLAMP (G_USEC_PER_SEC / engine->config.interval_us, 1024, 1 << 16);

      for (guint i = 0; i < engine->n_threads; i++)
        engine->threads[i]->ring = qf_ring_new (capacity);
    }

  if (!engine->config.no_mlock)
    engine->memory_locked = lock_memory ();
  for (guint i = 0; samples != NULL && i < engine->n_threads; i++)
    prefault_ring (engine->threads[i]->ring);
  if (!engine->config.no_dma_latency)
    dma_fd = hold_dma_latency ();
  engine->dma_latency_held = dma_fd >= 0;

  start_ns = qf_clock_now_ns ();
  if (engine->config.duration_s > 0)
    engine->end_ns = start_ns + (gint64) (engine->config.duration_s * QF_NSEC_PER_SEC);
  next_progress_ns = start_ns + PROGRESS_NS;

  ok = start_threads (engine, error);
  if (!ok)
    qf_rt_engine_stop (engine);

  while (!all_done (engine))
    {
      /* The supervisor wakes as rarely as its duties allow: its wake-ups are CPU time the
       * measurement is charged for and noise on the measured CPUs. */
      struct timespec pause = qf_ns_to_timespec (samples != NULL ? FORWARD_NS : SUPERVISE_NS);

      clock_nanosleep (CLOCK_MONOTONIC, 0, &pause, NULL);
      if (cancel != NULL && g_atomic_int_get (cancel))
        qf_rt_engine_stop (engine);
      if (samples != NULL)
        forward_samples (engine, samples);
      if (engine->config.progress != NULL && qf_clock_now_ns () >= next_progress_ns)
        {
          report_progress (engine, start_ns);
          next_progress_ns += PROGRESS_NS;
        }
    }

  for (guint i = 0; i < engine->n_threads; i++)
    {
      QfRtThread *t = engine->threads[i];

      if (!t->started)
        continue;
      pthread_join (t->pthread, NULL);
      t->started = FALSE;
      qf_histogram_merge (engine->total, t->hist);
    }
  if (samples != NULL)
    engine->samples_dropped = forward_samples (engine, samples);

  if (dma_fd >= 0)
    close (dma_fd);
  if (engine->memory_locked)
    unlock_memory ();

  engine->stopped_early = atomic_load (&engine->stop) != 0;
  if (ok && engine->config.progress != NULL)
    report_progress (engine, start_ns);
  return ok;
}

void
qf_rt_engine_stop (QfRtEngine *engine)
{
  g_return_if_fail (engine != NULL);
  atomic_store (&engine->stop, 1);
}

guint
qf_rt_engine_n_threads (const QfRtEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->n_threads;
}

const QfRtThreadResult *
qf_rt_engine_thread (const QfRtEngine *engine,
                     guint             index)
{
  g_return_val_if_fail (engine != NULL && index < engine->n_threads, NULL);
  return &engine->threads[index]->result;
}

const QfHistogram *
qf_rt_engine_total (const QfRtEngine *engine)
{
  g_return_val_if_fail (engine != NULL, NULL);
  return engine->total;
}

/* TRUE when every thread measured under a real-time policy (SCHED_FIFO, or SCHED_RR from rtkit)
 * at the requested priority or the one an acquire function obtained. */
gboolean
qf_rt_engine_all_rt (const QfRtEngine *engine)
{
  g_return_val_if_fail (engine != NULL, FALSE);
  for (guint i = 0; i < engine->n_threads; i++)
    if ((engine->threads[i]->result.policy != SCHED_FIFO &&
         engine->threads[i]->result.policy != SCHED_RR) ||
        engine->threads[i]->result.priority < 1)
      return FALSE;
  return TRUE;
}

gboolean
qf_rt_engine_memory_locked (const QfRtEngine *engine)
{
  g_return_val_if_fail (engine != NULL, FALSE);
  return engine->memory_locked;
}

gboolean
qf_rt_engine_dma_latency_held (const QfRtEngine *engine)
{
  g_return_val_if_fail (engine != NULL, FALSE);
  return engine->dma_latency_held;
}

gboolean
qf_rt_engine_stopped_early (const QfRtEngine *engine)
{
  g_return_val_if_fail (engine != NULL, FALSE);
  return engine->stopped_early;
}

guint64
qf_rt_engine_samples_dropped (const QfRtEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->samples_dropped;
}
