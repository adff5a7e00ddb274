/* qf-monitor.c — the 1 Hz sampling thread over qf-procstat (src/engine). See qf-monitor.h. */
#include "config.h"

#include <string.h>

#include "qf-clock.h"
#include "qf-monitor.h"

struct QfMonitor
{
  QfProcStat     *ps;
  gdouble         interval_s;
  QfProcSnapshot *prev, *cur;
  QfProcRatesSet *rates;
  GPtrArray      *samples;     /* QfMonitorSample*, appended by the thread */
  gint64          start_ns;
  gint64          last_ns;     /* CLOCK_MONOTONIC of prev */

  GThread        *thread;
  GMutex          lock;        /* guards stop, live, error, samples while running */
  GCond           cond;
  gboolean        stop;
  QfMonitorLive   live;
  GError         *error;
};

static void
sample_free (gpointer data)
{
  QfMonitorSample *s = data;

  g_array_unref (s->cpus);
  g_array_unref (s->disks);
  g_array_unref (s->nets);
  g_array_unref (s->top_cpu);
  g_array_unref (s->top_mem);
  g_free (s);
}

static GArray *
copy_array (GArray *src,
            guint   elt_size)
{
  GArray *a = g_array_sized_new (FALSE, FALSE, elt_size, src->len);
  g_array_append_vals (a, src->data, src->len);
  return a;
}

/* Owner thread before start, sampling thread after: never both. */
static gboolean
take_sample (QfMonitor  *monitor,
             GError    **error)
{
  QfMonitorSample *s;
  QfProcSnapshot *tmp;
  const QfProcSnapshot *c;
  gdouble util_max = 0.0;

  if (!qf_procstat_read (monitor->ps, monitor->cur, error))
    return FALSE;
  qf_procstat_rates (monitor->prev, monitor->cur, 0, monitor->rates);
  c = monitor->cur;

  s = g_new0 (QfMonitorSample, 1);
  s->t_ns = c->t_ns;
  s->t_s = (c->t_ns - monitor->start_ns) / 1e9;
  s->elapsed_s = monitor->rates->elapsed_s;
  s->cpu = monitor->rates->cpu;
  s->cpus = copy_array (monitor->rates->cpus, sizeof (QfCpuPct));
  s->load1 = c->load1;
  s->load5 = c->load5;
  s->load15 = c->load15;
  s->mem_total_kb = c->mem_total_kb;
  s->mem_free_kb = c->mem_free_kb;
  s->mem_available_kb = c->mem_available_kb;
  s->mem_used_kb = c->mem_total_kb > c->mem_available_kb
                      ? c->mem_total_kb - c->mem_available_kb : 0;
  s->buff_cache_kb = c->buffers_kb + c->cached_kb + c->sreclaimable_kb;
  s->swap_total_kb = c->swap_total_kb;
  s->swap_used_kb = c->swap_total_kb > c->swap_free_kb ? c->swap_total_kb - c->swap_free_kb : 0;
  s->disks = copy_array (monitor->rates->disks, sizeof (QfDiskRates));
  s->nets = copy_array (monitor->rates->nets, sizeof (QfNetRates));
  s->top_cpu = copy_array (monitor->rates->top_cpu, sizeof (QfProcRates));
  s->top_mem = copy_array (monitor->rates->top_mem, sizeof (QfProcRates));
  for (guint i = 0; i < s->disks->len; i++)
    util_max = MAX (util_max, g_array_index (s->disks, QfDiskRates, i).util_pct);

  tmp = monitor->prev;
  monitor->prev = monitor->cur;
  monitor->cur = tmp;
  monitor->last_ns = c->t_ns;

  g_mutex_lock (&monitor->lock);
  g_ptr_array_add (monitor->samples, s);
  monitor->live.n_samples = monitor->samples->len;
  monitor->live.t_s = s->t_s;
  monitor->live.cpu_busy_pct = s->cpu.busy;
  monitor->live.cpu_iowait_pct = s->cpu.wa;
  monitor->live.load1 = s->load1;
  monitor->live.mem_available_kb = s->mem_available_kb;
  monitor->live.disk_util_max_pct = util_max;
  g_mutex_unlock (&monitor->lock);
  return TRUE;
}

static gpointer
sampling_thread (gpointer data)
{
  QfMonitor *monitor = data;
  gint64 interval_us = (gint64) (monitor->interval_s * 1e6);
  gint64 deadline_us = monitor->start_ns / 1000 + interval_us;

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      gboolean stop;

      /* g_cond_wait_until() waits on CLOCK_MONOTONIC (g_get_monotonic_time). */
      g_mutex_lock (&monitor->lock);
      while (!monitor->stop && g_get_monotonic_time () < deadline_us)
        g_cond_wait_until (&monitor->cond, &monitor->lock, deadline_us);
      stop = monitor->stop;
      g_mutex_unlock (&monitor->lock);
      if (stop)
        break;

      if (!take_sample (monitor, &error))
        {
          g_mutex_lock (&monitor->lock);
          monitor->error = g_steal_pointer (&error);
          g_mutex_unlock (&monitor->lock);
          break;
        }
      /* Next deadline on the grid; skip missed ones rather than sampling in a burst. */
      deadline_us += interval_us;
      while (deadline_us <= g_get_monotonic_time ())
        deadline_us += interval_us;
    }
  return NULL;
}

QfMonitor *
qf_monitor_new (const QfMonitorConfig  *config,
                GError                **error)
{
  g_autoptr(QfMonitor) monitor = g_new0 (QfMonitor, 1);
  gdouble interval = config != NULL && config->interval_s > 0.0 ? config->interval_s : 1.0;
  guint parts = config != NULL && config->parts != 0 ? config->parts : QF_PROCSTAT_ALL;

  g_mutex_init (&monitor->lock);
  g_cond_init (&monitor->cond);
  monitor->samples = g_ptr_array_new_with_free_func (sample_free);
  monitor->prev = qf_procstat_snapshot_new ();
  monitor->cur = qf_procstat_snapshot_new ();
  monitor->rates = qf_procstat_rates_new ();
  monitor->interval_s = MAX (interval, QF_MONITOR_MIN_INTERVAL_S);
  monitor->ps = qf_procstat_new (config != NULL ? config->root : NULL, parts, error);
  if (monitor->ps == NULL)
    return NULL;
  return g_steal_pointer (&monitor);
}

void
qf_monitor_free (QfMonitor *monitor)
{
  if (monitor == NULL)
    return;
  if (monitor->thread != NULL)
    qf_monitor_stop (monitor, NULL);
  g_clear_pointer (&monitor->ps, qf_procstat_free);
  qf_procstat_snapshot_free (monitor->prev);
  qf_procstat_snapshot_free (monitor->cur);
  qf_procstat_rates_free (monitor->rates);
  g_ptr_array_unref (monitor->samples);
  g_clear_error (&monitor->error);
  g_mutex_clear (&monitor->lock);
  g_cond_clear (&monitor->cond);
  g_free (monitor);
}

gboolean
qf_monitor_start (QfMonitor  *monitor,
                  GError    **error)
{
  g_return_val_if_fail (monitor != NULL, FALSE);
  g_return_val_if_fail (monitor->thread == NULL, FALSE);

  if (!qf_procstat_read (monitor->ps, monitor->prev, error))
    return FALSE;
  monitor->start_ns = monitor->prev->t_ns;
  monitor->last_ns = monitor->start_ns;
  monitor->stop = FALSE;
  monitor->thread = g_thread_try_new ("qf-monitor", sampling_thread, monitor, error);
  return monitor->thread != NULL;
}

gboolean
qf_monitor_stop (QfMonitor  *monitor,
                 GError    **error)
{
  gboolean ok;

  g_return_val_if_fail (monitor != NULL, FALSE);
  if (monitor->thread == NULL)
    return TRUE;

  g_mutex_lock (&monitor->lock);
  monitor->stop = TRUE;
  g_cond_signal (&monitor->cond);
  g_mutex_unlock (&monitor->lock);
  g_thread_join (monitor->thread);
  monitor->thread = NULL;

  ok = monitor->error == NULL;
  if (ok && qf_clock_now_ns () - monitor->last_ns >= (gint64) (monitor->interval_s * 0.5e9))
    ok = take_sample (monitor, &monitor->error);
  if (!ok)
    {
      if (error != NULL)
        *error = g_error_copy (monitor->error);
      return FALSE;
    }
  return TRUE;
}

guint
qf_monitor_n_cpus (QfMonitor *monitor)
{
  g_return_val_if_fail (monitor != NULL, 0);
  return qf_procstat_n_cpus (monitor->ps);
}

gint64
qf_monitor_start_ns (QfMonitor *monitor)
{
  g_return_val_if_fail (monitor != NULL, 0);
  return monitor->start_ns;
}

gdouble
qf_monitor_interval_s (QfMonitor *monitor)
{
  g_return_val_if_fail (monitor != NULL, 0.0);
  return monitor->interval_s;
}

guint
qf_monitor_n_samples (QfMonitor *monitor)
{
  g_return_val_if_fail (monitor != NULL, 0);
  g_return_val_if_fail (monitor->thread == NULL, 0);
  return monitor->samples->len;
}

const QfMonitorSample *
qf_monitor_get_sample (QfMonitor *monitor,
                       guint      index)
{
  g_return_val_if_fail (monitor != NULL, NULL);
  g_return_val_if_fail (monitor->thread == NULL, NULL);
  g_return_val_if_fail (index < monitor->samples->len, NULL);
  return g_ptr_array_index (monitor->samples, index);
}

void
qf_monitor_get_live (QfMonitor     *monitor,
                     QfMonitorLive *live)
{
  g_return_if_fail (monitor != NULL && live != NULL);
  g_mutex_lock (&monitor->lock);
  *live = monitor->live;
  g_mutex_unlock (&monitor->lock);
}
