/* test-rt.c — the real-time latency engine: counts add up, statistics are ordered, a stop is
 * honoured in time, two engines coexist, and a thread refused SCHED_FIFO says so (tests/engine).
 * Runs are short (a few hundred cycles) and no assertion depends on how fast the machine is. */
#include "config.h"

#include <pwd.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-rt.h"
#include "../qf-test-time.h"

static QfRtConfig
short_config (void)
{
  QfRtConfig config = { 0 };

  config.n_threads = 1;
  config.priority = 99;
  config.interval_us = 500;
  config.loops = 400;
  return config;
}

static gboolean
can_fifo (void)
{
  struct sched_param param = { .sched_priority = 1 };
  int policy;
  struct sched_param old;
  gboolean ok;

  pthread_getschedparam (pthread_self (), &policy, &old);
  ok = pthread_setschedparam (pthread_self (), SCHED_FIFO, &param) == 0;
  pthread_setschedparam (pthread_self (), policy, &old);
  return ok;
}

static void
assert_histogram_consistent (const QfHistogram *hist,
                             guint64            cycles)
{
  guint64 in_buckets = 0;
  gdouble mean = qf_histogram_mean_ns (hist);
  gint64 p50 = qf_histogram_percentile_ns (hist, 0.50);
  gint64 p90 = qf_histogram_percentile_ns (hist, 0.90);
  gint64 p99 = qf_histogram_percentile_ns (hist, 0.99);
  gint64 p999 = qf_histogram_percentile_ns (hist, 0.999);
  gint64 p9999 = qf_histogram_percentile_ns (hist, 0.9999);

  for (guint i = 0; i < hist->n_buckets; i++)
    in_buckets += hist->counts[i];
  g_assert_cmpuint (in_buckets + hist->overflow, ==, hist->count);
  g_assert_cmpuint (hist->count, ==, cycles);
  g_assert_cmpint (hist->min_ns, >=, 0);
  g_assert_cmpfloat (hist->min_ns, <=, mean);
  g_assert_cmpfloat (mean, <=, hist->max_ns);
  g_assert_cmpint (hist->min_ns, <=, p50);
  g_assert_cmpint (p50, <=, p90);
  g_assert_cmpint (p90, <=, p99);
  g_assert_cmpint (p99, <=, p999);
  g_assert_cmpint (p999, <=, p9999);
  g_assert_cmpint (p9999, <=, hist->max_ns);
}

static void
test_histogram_total (void)
{
  QfRtConfig config = short_config ();
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRtEngine) engine = qf_rt_engine_new (&config, &error);
  const QfRtThreadResult *thread;

  g_assert_no_error (error);
  g_assert_true (qf_rt_engine_run (engine, NULL, NULL, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (qf_rt_engine_n_threads (engine), ==, 1);
  thread = qf_rt_engine_thread (engine, 0);
  assert_histogram_consistent (thread->hist, config.loops);
  assert_histogram_consistent (qf_rt_engine_total (engine), config.loops);
  g_assert_cmpint (thread->tid, >, 0);
  g_assert_cmpint (thread->cpu, ==, -1);
  g_assert_false (qf_rt_engine_stopped_early (engine));
  if (can_fifo ())
    {
      g_assert_cmpint (thread->policy, ==, SCHED_FIFO);
      g_assert_cmpint (thread->priority, ==, 99);
      g_assert_true (qf_rt_engine_all_rt (engine));
    }
}

/* One pinned thread per CPU: each counts its own loops and the total is their sum. */
static void
test_pinned_threads (void)
{
  QfRtConfig config = short_config ();
  int cpus[2] = { 0, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRtEngine) engine = NULL;

  if (sysconf (_SC_NPROCESSORS_ONLN) < 2)
    {
      g_test_skip ("needs two online CPUs");
      return;
    }
  config.cpus = cpus;
  config.n_cpus = 2;
  config.loops = 200;
  engine = qf_rt_engine_new (&config, &error);
  g_assert_no_error (error);
  g_assert_true (qf_rt_engine_run (engine, NULL, NULL, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (qf_rt_engine_n_threads (engine), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const QfRtThreadResult *thread = qf_rt_engine_thread (engine, i);
      g_assert_cmpint (thread->cpu, ==, cpus[i]);
      assert_histogram_consistent (thread->hist, config.loops);
    }
  assert_histogram_consistent (qf_rt_engine_total (engine), 2 * config.loops);
  g_assert_cmpint (qf_rt_engine_total (engine)->max_ns, ==,
                   MAX (qf_rt_engine_thread (engine, 0)->hist->max_ns,
                        qf_rt_engine_thread (engine, 1)->hist->max_ns));
}

/* Every cycle reaches the ring (it is large enough) and the samples agree with the histogram. */
static void
test_samples_match_statistics (void)
{
  QfRtConfig config = short_config ();
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRtEngine) engine = qf_rt_engine_new (&config, &error);
  g_autoptr(QfRing) ring = qf_ring_new (4096);
  QfSample out[512];
  guint64 n_samples = 0;
  gint64 sum_ns = 0, max_ns = G_MININT64, last_t_ns = 0;
  guint n;

  g_assert_true (qf_rt_engine_run (engine, ring, NULL, &error));
  g_assert_no_error (error);
  while ((n = qf_ring_pop (ring, out, G_N_ELEMENTS (out))) > 0)
    for (guint i = 0; i < n; i++)
      {
        g_assert_cmpuint (out[i].channel, ==, 0);
        g_assert_cmpint (out[i].t_ns, >, last_t_ns);
        last_t_ns = out[i].t_ns;
        sum_ns += out[i].value_ns;
        max_ns = MAX (max_ns, out[i].value_ns);
        n_samples++;
      }
  g_assert_cmpuint (qf_ring_dropped (ring), ==, 0);
  g_assert_cmpuint (qf_rt_engine_samples_dropped (engine), ==, 0);
  g_assert_cmpuint (n_samples, ==, config.loops);
  g_assert_cmpint (sum_ns, ==, qf_rt_engine_total (engine)->sum_ns);
  g_assert_cmpint (max_ns, ==, qf_rt_engine_total (engine)->max_ns);
}

/* A duration ends the run after as many deadlines as fit in it, whatever the machine's speed:
 * every deadline is either a measured cycle or a counted overrun. */
static void
test_duration_counts_deadlines (void)
{
  QfRtConfig config = short_config ();
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRtEngine) engine = NULL;
  const QfRtThreadResult *thread;
  guint64 deadlines;

  config.loops = 0;
  config.interval_us = 1000;
  config.duration_s = 0.2;
  engine = qf_rt_engine_new (&config, &error);
  g_assert_true (qf_rt_engine_run (engine, NULL, NULL, &error));
  thread = qf_rt_engine_thread (engine, 0);
  deadlines = thread->hist->count + thread->overruns;
  g_assert_cmpuint (deadlines, <=, 200);
  g_assert_cmpuint (deadlines, >=, 100);
  g_assert_false (qf_rt_engine_stopped_early (engine));
}

typedef struct
{
  gint   *cancel;
  gint64  set_at_ns;
} Canceller;

static gpointer
cancel_later (gpointer data)
{
  Canceller *c = data;

  g_usleep (150 * 1000);
  c->set_at_ns = qf_clock_now_ns ();
  g_atomic_int_set (c->cancel, 1);
  return NULL;
}

/* An endless run stops within 100 ms plus one interval of the request. A margin is added for the
 * supervising thread, which is not real-time and shares a loaded CPU. */
static void
test_stop_in_time (void)
{
  QfRtConfig config = short_config ();
  g_autoptr(GError) error = NULL;
  g_autoptr(QfRtEngine) engine = NULL;
  gint cancel = 0;
  Canceller c = { &cancel, 0 };
  GThread *thread;
  gint64 returned_ns;

  config.loops = 0;
  config.interval_us = 10000;
  engine = qf_rt_engine_new (&config, &error);
  thread = g_thread_new ("canceller", cancel_later, &c);
  g_assert_true (qf_rt_engine_run (engine, NULL, &cancel, &error));
  returned_ns = qf_clock_now_ns ();
  g_thread_join (thread);

  g_assert_true (qf_rt_engine_stopped_early (engine));
  g_assert_cmpint (returned_ns - c.set_at_ns, <=,
                   qf_test_ns (100 * QF_NSEC_PER_MSEC + config.interval_us * QF_NSEC_PER_USEC
                               + 50 * QF_NSEC_PER_MSEC));
  assert_histogram_consistent (qf_rt_engine_thread (engine, 0)->hist,
                               qf_rt_engine_thread (engine, 0)->hist->count);
  g_assert_cmpuint (qf_rt_engine_thread (engine, 0)->hist->count, >, 0);
}

static gpointer
run_engine (gpointer data)
{
  QfRtEngine *engine = data;
  g_autoptr(GError) error = NULL;

  g_assert_true (qf_rt_engine_run (engine, NULL, NULL, &error));
  g_assert_no_error (error);
  return NULL;
}

static guint64
locked_kb (void)
{
  g_autofree char *status = NULL;
  const char *p;

  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  p = strstr (status, "VmLck:");
  g_assert_nonnull (p);
  return g_ascii_strtoull (p + 6, NULL, 10);
}

/* Two engines in one process, overlapping in time: both count their own loops, and memory is
 * unlocked only once the last of them has finished. */
static void
test_two_engines (void)
{
  QfRtConfig a = short_config (), b = short_config ();
  g_autoptr(QfRtEngine) engine_a = NULL;
  g_autoptr(QfRtEngine) engine_b = NULL;
  GThread *ta, *tb;

  a.loops = 300;
  b.loops = 150;
  b.interval_us = 700;
  engine_a = qf_rt_engine_new (&a, NULL);
  engine_b = qf_rt_engine_new (&b, NULL);
  ta = g_thread_new ("engine-a", run_engine, engine_a);
  tb = g_thread_new ("engine-b", run_engine, engine_b);
  g_thread_join (ta);
  g_thread_join (tb);

  assert_histogram_consistent (qf_rt_engine_total (engine_a), a.loops);
  assert_histogram_consistent (qf_rt_engine_total (engine_b), b.loops);
  g_assert_cmpint (qf_rt_engine_thread (engine_b, 0)->interval_us, ==, 700);
  g_assert_cmpint (qf_rt_engine_memory_locked (engine_a), ==, qf_rt_engine_memory_locked (engine_b));
  g_assert_cmpuint (locked_kb (), ==, 0);
}

typedef struct
{
  gint  calls;
  pid_t tid;
  int   priority;
} AcquireLog;

static gboolean
refuse_rt (pid_t    tid,
           int      priority,
           gpointer user_data)
{
  AcquireLog *log = user_data;

  g_atomic_int_inc (&log->calls);
  log->tid = tid;
  log->priority = priority;
  return FALSE;
}

/* Without the right to SCHED_FIFO (RLIMIT_RTPRIO 0 and, as root, running as nobody) the thread
 * asks the acquire function, and when that is refused it measures under SCHED_OTHER and says so. */
static void
test_unprivileged (void)
{
  if (g_test_subprocess ())
    {
      struct rlimit none = { 0, 0 };
      QfRtConfig config = short_config ();
      AcquireLog log = { 0 };
      g_autoptr(QfRtEngine) engine = NULL;
      const QfRtThreadResult *thread;

      g_assert_cmpint (setrlimit (RLIMIT_RTPRIO, &none), ==, 0);
      if (getuid () == 0)
        {
          struct passwd *nobody = getpwnam ("nobody");
          g_assert_nonnull (nobody);
          g_assert_cmpint (setgid (nobody->pw_gid), ==, 0);
          g_assert_cmpint (setuid (nobody->pw_uid), ==, 0);
        }
      config.loops = 100;
      config.acquire_rt = refuse_rt;
      config.acquire_data = &log;
      engine = qf_rt_engine_new (&config, NULL);
      g_assert_true (qf_rt_engine_run (engine, NULL, NULL, NULL));

      thread = qf_rt_engine_thread (engine, 0);
      g_assert_cmpint (log.calls, ==, 1);
      g_assert_cmpint (log.tid, ==, thread->tid);
      g_assert_cmpint (log.priority, ==, 99);
      g_assert_cmpint (thread->policy, ==, SCHED_OTHER);
      g_assert_cmpint (thread->priority, ==, 0);
      g_assert_false (thread->via_acquire);
      g_assert_false (qf_rt_engine_all_rt (engine));
      g_assert_false (qf_rt_engine_dma_latency_held (engine));
      assert_histogram_consistent (thread->hist, config.loops);
      return;
    }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
}

typedef struct
{
  QfRtEngine *engine;
  gint        demoted;
} TakeBack;

/* Supervisor thread, a quarter second into the run: what qualifyd does to a caller that left the
 * bus, from outside the measuring thread. */
static void
take_back_rt (const QfRtLive *live,
              gpointer        user_data)
{
  TakeBack *take = user_data;
  struct sched_param normal = { 0 };
  pid_t tid = g_atomic_int_get (&qf_rt_engine_thread (take->engine, 0)->tid);

  if (g_atomic_int_get (&take->demoted))
    return;
  g_assert_cmpint (sched_setscheduler (tid, SCHED_OTHER, &normal), ==, 0);
  g_atomic_int_set (&take->demoted, 1);
}

/* A thread whose real-time policy is taken away while it measures did not measure with it: the
 * result says SCHED_OTHER, not the policy it started with. */
static void
test_policy_taken_back (void)
{
  QfRtConfig config = short_config ();
  TakeBack take = { 0 };
  g_autoptr(QfRtEngine) engine = NULL;
  const QfRtThreadResult *thread;

  if (!can_fifo ())
    {
      g_test_skip ("needs the right to SCHED_FIFO");
      return;
    }
  config.loops = 2000;   /* 1 s: the progress callback first runs after 250 ms */
  config.progress = take_back_rt;
  config.progress_data = &take;
  engine = take.engine = qf_rt_engine_new (&config, NULL);
  g_assert_true (qf_rt_engine_run (engine, NULL, NULL, NULL));
  g_assert_true (g_atomic_int_get (&take.demoted));
  thread = qf_rt_engine_thread (engine, 0);
  g_assert_cmpint (thread->policy, ==, SCHED_OTHER);
  g_assert_cmpint (thread->priority, ==, 0);
  g_assert_false (qf_rt_engine_all_rt (engine));
}

static void
test_invalid_config (void)
{
  QfRtConfig config = short_config ();
  g_autoptr(GError) error = NULL;
  int bad_cpu = 4096;

  config.priority = 100;
  g_assert_null (qf_rt_engine_new (&config, &error));
  g_assert_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID);
  g_clear_error (&error);

  config = short_config ();
  config.interval_us = 0;
  g_assert_null (qf_rt_engine_new (&config, &error));
  g_assert_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID);
  g_clear_error (&error);

  config = short_config ();
  config.cpus = &bad_cpu;
  config.n_cpus = 1;
  g_assert_null (qf_rt_engine_new (&config, &error));
  g_assert_error (error, QF_RT_ERROR, QF_RT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "4096"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/rt/histogram-total", test_histogram_total);
  g_test_add_func ("/engine/rt/pinned-threads", test_pinned_threads);
  g_test_add_func ("/engine/rt/samples-match-statistics", test_samples_match_statistics);
  g_test_add_func ("/engine/rt/duration-counts-deadlines", test_duration_counts_deadlines);
  g_test_add_func ("/engine/rt/stop-in-time", test_stop_in_time);
  g_test_add_func ("/engine/rt/two-engines", test_two_engines);
  g_test_add_func ("/engine/rt/unprivileged", test_unprivileged);
  g_test_add_func ("/engine/rt/policy-taken-back", test_policy_taken_back);
  g_test_add_func ("/engine/rt/invalid-config", test_invalid_config);

  return g_test_run ();
}
