/* test-monitor.c — the sampling thread: samples on a monotonic grid, timestamps increase, each
 * covers its elapsed time, a stop ends the thread at once and adds the partial last interval. */
#include "config.h"

#include "qf-clock.h"
#include "qf-monitor.h"
#include "../qf-test-time.h"

static void
test_samples (void)
{
  g_autoptr(GError) error = NULL;
  QfMonitorConfig config = { .interval_s = 0.1 };
  g_autoptr(QfMonitor) monitor = qf_monitor_new (&config, &error);
  QfMonitorLive live;
  gint64 started, t0, stopped;
  guint n;

  g_assert_no_error (error);
  g_assert_cmpfloat (qf_monitor_interval_s (monitor), ==, 0.1);
  g_assert_cmpuint (qf_monitor_n_cpus (monitor), >, 0);
  started = qf_clock_now_ns ();
  g_assert_true (qf_monitor_start (monitor, &error));
  g_usleep (360000);
  /* The first sample is due at 0.1 s; a starved thread may take longer (bounded wait). */
  qf_monitor_get_live (monitor, &live);
  while (live.n_samples == 0 && qf_clock_now_ns () - started < qf_test_ns (QF_NSEC_PER_SEC))
    {
      g_usleep (10000);
      qf_monitor_get_live (monitor, &live);
    }
  g_assert_cmpuint (live.n_samples, >=, 1);
  t0 = qf_clock_now_ns ();
  g_assert_true (qf_monitor_stop (monitor, &error));
  /* The thread waits on a condition the stop signals: it ends at once, not after an interval. */
  stopped = qf_clock_now_ns ();
  g_assert_cmpint (stopped - t0, <, qf_test_ns (500 * QF_NSEC_PER_MSEC));

  n = qf_monitor_n_samples (monitor);
  /* At most one sample per full 0.1 s interval that passed (3 in 0.36 s) and the partial last;
   * a starved thread skips deadlines rather than sampling in a burst, so there may be fewer. */
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (n, <=, (stopped - started) / (100 * QF_NSEC_PER_MSEC) + 1);
  for (guint i = 0; i < n; i++)
    {
      const QfMonitorSample *s = qf_monitor_get_sample (monitor, i);
      g_assert_cmpfloat (s->elapsed_s, >, 0.0);
      g_assert_cmpfloat (s->elapsed_s, <, qf_test_s (0.3));
      g_assert_cmpuint (s->mem_total_kb, >, 0);
      g_assert_cmpuint (s->mem_used_kb + s->mem_available_kb, ==, s->mem_total_kb);
      g_assert_cmpuint (s->cpus->len, ==, qf_monitor_n_cpus (monitor));
      g_assert_cmpfloat (s->cpu.busy, >=, 0.0);
      g_assert_cmpfloat (s->cpu.busy, <=, 100.0);
      if (i > 0)
        {
          const QfMonitorSample *p = qf_monitor_get_sample (monitor, i - 1);
          g_assert_cmpint (s->t_ns, >, p->t_ns);
          g_assert_cmpfloat (s->t_s - p->t_s - s->elapsed_s, <, 1e-6);
        }
      else
        g_assert_cmpfloat (s->t_s - s->elapsed_s, <, 1e-6);
    }
  /* Samples sit on the 0.1 s grid (or are the final partial one): none is taken before 0.1 s. */
  g_assert_cmpfloat (qf_monitor_get_sample (monitor, 0)->t_s, >=, 0.1 - 1e-3);
}

static void
test_bad_root (void)
{
  g_autoptr(GError) error = NULL;
  QfMonitorConfig config = { .root = "/nonexistent-qualify-root" };
  QfMonitor *monitor = qf_monitor_new (&config, &error);

  g_assert_null (monitor);
  g_assert_error (error, QF_PROCSTAT_ERROR, QF_PROCSTAT_ERROR_OPEN);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/monitor/samples", test_samples);
  g_test_add_func ("/engine/monitor/bad-root", test_bad_root);
  return g_test_run ();
}
