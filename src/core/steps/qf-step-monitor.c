/* qf-step-monitor.c — the "monitor" step: top + iostat -x + sar -n DEV for a while (src/core).
 *
 * Params (all optional): duration_s (10), interval_s (1; 0.1 … 60), root (read ROOT/proc, for
 * tests). Result, the `qualify-cli monitor --json` object: {"test": "monitor", "workers": {cpu,
 * io, vm, hdd all 0}, "duration_s", "bytes_written": 0, "monitor": {…} (qf-step-monitor.h),
 * "rules": [the five outcomes of qf-load-rules.h]}. A stop request is honoured within 100 ms;
 * the samples taken so far are returned with QF_STEP_ERROR_CANCELLED.
 *
 * Live samples pushed to ctx->samples, one per monitor sample: channel 0 CPU busy, 1 I/O wait,
 * 2 highest disk %util — value_ns holds the percentage × 1000 (milli-percent); 3 load1 × 1000.
 */
#include "config.h"

#include <math.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-load-rules.h"
#include "qf-step-monitor.h"
#include "qf-steps.h"

static gdouble
round2 (gdouble v)
{
  return round (v * 100.0) / 100.0;
}

static JsonObject *
cpu_pct_to_json (const QfCpuPct *p)
{
  JsonObject *cpu = json_object_new ();

  json_object_set_double_member (cpu, "us", round2 (p->us));
  json_object_set_double_member (cpu, "sy", round2 (p->sy));
  json_object_set_double_member (cpu, "ni", round2 (p->ni));
  json_object_set_double_member (cpu, "id", round2 (p->id));
  json_object_set_double_member (cpu, "wa", round2 (p->wa));
  json_object_set_double_member (cpu, "hi", round2 (p->hi));
  json_object_set_double_member (cpu, "si", round2 (p->si));
  json_object_set_double_member (cpu, "st", round2 (p->st));
  return cpu;
}

static JsonObject *
sample_to_json (const QfMonitorSample *s)
{
  JsonObject *o = json_object_new ();
  JsonArray *cpus = json_array_new ();
  JsonArray *per_cpu = json_array_new ();
  JsonArray *disks = json_array_new ();
  JsonArray *nets = json_array_new ();
  GArray *tops[2] = { s->top_cpu, s->top_mem };
  const char *top_names[2] = { "top_cpu", "top_mem" };

  json_object_set_double_member (o, "t_s", round (s->t_s * 1000.0) / 1000.0);
  json_object_set_double_member (o, "elapsed_s", round (s->elapsed_s * 1e6) / 1e6);
  json_object_set_double_member (o, "cpu_busy_pct", round2 (s->cpu.busy));
  json_object_set_double_member (o, "cpu_iowait_pct", round2 (s->cpu.wa));
  json_object_set_double_member (o, "cpu_idle_pct", round2 (s->cpu.id));
  json_object_set_object_member (o, "cpu", cpu_pct_to_json (&s->cpu));
  for (guint i = 0; i < s->cpus->len; i++)
    {
      const QfCpuPct *p = &g_array_index (s->cpus, QfCpuPct, i);
      json_array_add_double_element (cpus, round2 (p->busy));
      json_array_add_object_element (per_cpu, cpu_pct_to_json (p));
    }
  json_object_set_array_member (o, "cpus_busy_pct", cpus);
  json_object_set_array_member (o, "cpus", per_cpu);
  json_object_set_double_member (o, "load1", s->load1);
  json_object_set_double_member (o, "load5", s->load5);
  json_object_set_double_member (o, "load15", s->load15);
  json_object_set_int_member (o, "mem_total_kb", (gint64) s->mem_total_kb);
  json_object_set_int_member (o, "mem_free_kb", (gint64) s->mem_free_kb);
  json_object_set_int_member (o, "mem_available_kb", (gint64) s->mem_available_kb);
  json_object_set_int_member (o, "mem_used_kb", (gint64) s->mem_used_kb);
  json_object_set_int_member (o, "buff_cache_kb", (gint64) s->buff_cache_kb);
  json_object_set_int_member (o, "swap_total_kb", (gint64) s->swap_total_kb);
  json_object_set_int_member (o, "swap_used_kb", (gint64) s->swap_used_kb);
  for (guint i = 0; i < s->disks->len; i++)
    {
      const QfDiskRates *d = &g_array_index (s->disks, QfDiskRates, i);
      JsonObject *dj = json_object_new ();
      json_object_set_string_member (dj, "name", d->name);
      json_object_set_double_member (dj, "util_pct", round2 (d->util_pct));
      json_object_set_double_member (dj, "r_kbps", round2 (d->rkB_per_s));
      json_object_set_double_member (dj, "w_kbps", round2 (d->wkB_per_s));
      json_object_set_double_member (dj, "await_ms", round2 (d->await_ms));
      json_object_set_double_member (dj, "r_await_ms", round2 (d->r_await_ms));
      json_object_set_double_member (dj, "w_await_ms", round2 (d->w_await_ms));
      json_object_set_double_member (dj, "r_per_s", round2 (d->r_per_s));
      json_object_set_double_member (dj, "w_per_s", round2 (d->w_per_s));
      json_object_set_double_member (dj, "aqu_sz", round2 (d->aqu_sz));
      json_object_set_int_member (dj, "ios", (gint64) d->ios);
      json_array_add_object_element (disks, dj);
    }
  json_object_set_array_member (o, "disks", disks);
  for (guint i = 0; i < s->nets->len; i++)
    {
      const QfNetRates *n = &g_array_index (s->nets, QfNetRates, i);
      JsonObject *nj = json_object_new ();
      json_object_set_string_member (nj, "name", n->name);
      json_object_set_double_member (nj, "rx_kBps", round2 (n->rx_kBps));
      json_object_set_double_member (nj, "tx_kBps", round2 (n->tx_kBps));
      json_object_set_double_member (nj, "rx_pkts_per_s", round2 (n->rx_pkts_per_s));
      json_object_set_double_member (nj, "tx_pkts_per_s", round2 (n->tx_pkts_per_s));
      json_array_add_object_element (nets, nj);
    }
  json_object_set_array_member (o, "nets", nets);
  for (guint t = 0; t < 2; t++)
    {
      JsonArray *arr = json_array_new ();
      for (guint i = 0; i < tops[t]->len; i++)
        {
          const QfProcRates *p = &g_array_index (tops[t], QfProcRates, i);
          JsonObject *pj = json_object_new ();
          json_object_set_int_member (pj, "pid", p->pid);
          json_object_set_string_member (pj, "comm", p->comm);
          json_object_set_double_member (pj, "cpu_pct", round2 (p->cpu_pct));
          json_object_set_int_member (pj, "rss_kb", (gint64) p->rss_kb);
          json_object_set_double_member (pj, "mem_pct", round2 (p->mem_pct));
          json_array_add_object_element (arr, pj);
        }
      json_object_set_array_member (o, top_names[t], arr);
    }
  return o;
}

static void
set_number_or_null (JsonObject *o,
                    const char *key,
                    gboolean    have,
                    gdouble     value)
{
  if (have)
    json_object_set_double_member (o, key, round2 (value));
  else
    json_object_set_null_member (o, key);
}

JsonObject *
qf_monitor_json_summary (JsonArray *samples,
                         guint      cpu_count,
                         gdouble    from_s,
                         gdouble    to_s)
{
  JsonObject *sum = json_object_new ();
  g_autoptr(JsonArray) window = json_array_new ();
  gdouble busy_w = 0, wa_w = 0, idle_w = 0, weight = 0;
  gdouble busy_max = 0, wa_max = 0, idle_min = 100, load_max = 0, util_max = -1, await_max = -1;
  gint64 avail_min = G_MAXINT64;
  const char *util_name = NULL;
  gdouble t_first = 0, t_last = 0;
  guint n = 0;

  for (guint i = 0; samples != NULL && i < json_array_get_length (samples); i++)
    {
      JsonObject *s = json_array_get_object_element (samples, i);
      gdouble t = json_object_get_double_member (s, "t_s");
      gdouble dt = json_object_get_double_member (s, "elapsed_s");
      gdouble busy = json_object_get_double_member (s, "cpu_busy_pct");
      gdouble wa = json_object_get_double_member (s, "cpu_iowait_pct");
      gdouble idle = json_object_get_double_member (s, "cpu_idle_pct");
      JsonArray *disks = json_object_get_array_member (s, "disks");

      if (!(t > from_s && t <= to_s))
        continue;
      if (n == 0)
        t_first = t - dt;
      t_last = t;
      n++;
      json_array_add_element (window, json_node_copy (json_array_get_element (samples, i)));
      busy_w += busy * dt;
      wa_w += wa * dt;
      idle_w += idle * dt;
      weight += dt;
      busy_max = MAX (busy_max, busy);
      wa_max = MAX (wa_max, wa);
      idle_min = MIN (idle_min, idle);
      load_max = MAX (load_max, json_object_get_double_member (s, "load1"));
      avail_min = MIN (avail_min, json_object_get_int_member (s, "mem_available_kb"));
      for (guint d = 0; d < json_array_get_length (disks); d++)
        {
          JsonObject *dj = json_array_get_object_element (disks, d);
          gdouble util = json_object_get_double_member (dj, "util_pct");
          if (util > util_max)
            {
              util_max = util;
              util_name = json_object_get_string_member (dj, "name");
            }
          if (json_object_get_int_member (dj, "ios") > 0)
            await_max = MAX (await_max, json_object_get_double_member (dj, "await_ms"));
        }
    }

  json_object_set_int_member (sum, "samples", n);
  json_object_set_double_member (sum, "duration_s", n > 0 ? round2 (t_last - t_first) : 0.0);
  json_object_set_int_member (sum, "cpu_count", cpu_count);
  set_number_or_null (sum, "cpu_busy_avg_pct", weight > 0, busy_w / weight);
  set_number_or_null (sum, "cpu_busy_max_pct", n > 0, busy_max);
  set_number_or_null (sum, "iowait_avg_pct", weight > 0, wa_w / weight);
  set_number_or_null (sum, "iowait_max_pct", n > 0, wa_max);
  set_number_or_null (sum, "cpu_idle_avg_pct", weight > 0, idle_w / weight);
  set_number_or_null (sum, "cpu_idle_min_pct", n > 0, idle_min);
  set_number_or_null (sum, "load1_max", n > 0, load_max);
  set_number_or_null (sum, "load1_max_per_cpu", n > 0 && cpu_count > 0,
                      cpu_count > 0 ? load_max / cpu_count : 0);
  if (n > 0)
    json_object_set_int_member (sum, "mem_available_min_kb", avail_min);
  else
    json_object_set_null_member (sum, "mem_available_min_kb");
  set_number_or_null (sum, "disk_util_max_pct", util_max >= 0, util_max);
  if (util_name != NULL)
    json_object_set_string_member (sum, "disk_util_max_name", util_name);
  else
    json_object_set_null_member (sum, "disk_util_max_name");
  set_number_or_null (sum, "await_max_ms", await_max >= 0, await_max);
  qf_load_rules_await_trend (window, sum);
  return sum;
}

JsonObject *
qf_monitor_to_json (QfMonitor *monitor)
{
  JsonObject *o = json_object_new ();
  JsonArray *samples = json_array_new ();
  guint n = qf_monitor_n_samples (monitor);

  for (guint i = 0; i < n; i++)
    json_array_add_object_element (samples, sample_to_json (qf_monitor_get_sample (monitor, i)));
  json_object_set_double_member (o, "interval_s", qf_monitor_interval_s (monitor));
  json_object_set_int_member (o, "cpu_count", qf_monitor_n_cpus (monitor));
  json_object_set_array_member (o, "samples", samples);
  json_object_set_object_member (o, "summary",
                                 qf_monitor_json_summary (samples, qf_monitor_n_cpus (monitor),
                                                          -G_MAXDOUBLE, G_MAXDOUBLE));
  return o;
}

/* ---- the step ---- */

void
qf_monitor_push_live (QfStepContext *ctx,
                      QfMonitor     *monitor,
                      guint         *pushed)
{
  QfMonitorLive live;

  qf_monitor_get_live (monitor, &live);
  if (live.n_samples == *pushed)
    return;
  *pushed = live.n_samples;
  if (ctx->samples != NULL)
    {
      gint64 t_ns = qf_monitor_start_ns (monitor) + (gint64) (live.t_s * 1e9);
      QfSample s[4] = {
        { t_ns, (gint64) (live.cpu_busy_pct * 1000), 0, 0 },
        { t_ns, (gint64) (live.cpu_iowait_pct * 1000), 1, 0 },
        { t_ns, (gint64) (live.disk_util_max_pct * 1000), 2, 0 },
        { t_ns, (gint64) (live.load1 * 1000), 3, 0 },
      };
      for (guint i = 0; i < G_N_ELEMENTS (s); i++)
        qf_ring_push (ctx->samples, &s[i]);
    }
}

JsonObject *
qf_monitor_live_json (QfMonitor *monitor)
{
  QfMonitorLive live;
  JsonObject *obj = json_object_new ();

  qf_monitor_get_live (monitor, &live);
  json_object_set_double_member (obj, "cpu_busy_pct", round2 (live.cpu_busy_pct));
  json_object_set_double_member (obj, "cpu_iowait_pct", round2 (live.cpu_iowait_pct));
  json_object_set_double_member (obj, "load1", live.load1);
  json_object_set_int_member (obj, "mem_available_kb", (gint64) live.mem_available_kb);
  json_object_set_double_member (obj, "disk_util_max_pct", round2 (live.disk_util_max_pct));
  return obj;
}

static gboolean
monitor_run (JsonObject     *params,
             QfStepContext  *ctx,
             JsonObject    **result,
             GError        **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(QfMonitor) monitor = NULL;
  QfMonitorConfig config = { 0 };
  gdouble duration_s, interval_s;
  const char *root;
  gint64 t0, end_ns, last_progress_ns = 0;
  guint pushed = 0;
  gboolean cancelled = FALSE;
  JsonObject *obj, *workers;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;
  if (!qf_step_param_double (params, "duration_s", 10.0, 0.1, 30 * 24 * 3600.0, &duration_s, error)
      || !qf_step_param_double (params, "interval_s", 1.0, QF_MONITOR_MIN_INTERVAL_S, 60.0,
                                &interval_s, error)
      || !qf_step_param_string (params, "root", NULL, &root, error))
    return FALSE;

  config.root = root;
  config.interval_s = interval_s;
  monitor = qf_monitor_new (&config, &local);
  if (monitor == NULL || !qf_monitor_start (monitor, &local))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE, "%s", local->message);
      return FALSE;
    }
  t0 = qf_clock_now_ns ();
  end_ns = t0 + (gint64) (duration_s * 1e9);
  for (;;)
    {
      gint64 now = qf_clock_now_ns ();
      if (now >= end_ns)
        break;
      if (qf_step_cancelled (ctx))
        {
          cancelled = TRUE;
          break;
        }
      if (ctx != NULL)
        {
          guint before = pushed;
          gdouble fraction = (now - t0) / (duration_s * 1e9);

          qf_monitor_push_live (ctx, monitor, &pushed);
          /* Live figures with each new sample; the fraction alone four times a second. */
          if (ctx->progress != NULL && pushed != before)
            {
              g_autoptr(JsonObject) live = qf_monitor_live_json (monitor);
              ctx->progress (ctx, fraction, live, ctx->user_data);
              last_progress_ns = now;
            }
          else if (ctx->progress != NULL && now - last_progress_ns >= 250 * QF_NSEC_PER_MSEC)
            {
              ctx->progress (ctx, fraction, NULL, ctx->user_data);
              last_progress_ns = now;
            }
        }
      g_usleep (MIN (100000, (end_ns - now) / 1000 + 1));
    }
  if (!qf_monitor_stop (monitor, &local))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE, "%s", local->message);
      return FALSE;
    }

  obj = json_object_new ();
  workers = json_object_new ();
  json_object_set_string_member (obj, "test", "monitor");
  json_object_set_int_member (workers, "cpu", 0);
  json_object_set_int_member (workers, "io", 0);
  json_object_set_int_member (workers, "vm", 0);
  json_object_set_int_member (workers, "hdd", 0);
  json_object_set_object_member (obj, "workers", workers);
  json_object_set_double_member (obj, "duration_s", round2 ((qf_clock_now_ns () - t0) / 1e9));
  json_object_set_int_member (obj, "bytes_written", 0);
  json_object_set_double_member (obj, "interval_s", interval_s);
  json_object_set_object_member (obj, "monitor", qf_monitor_to_json (monitor));
  json_object_set_array_member (obj, "rules",
                                qf_load_rules_evaluate (json_object_get_object_member (obj,
                                                                                       "monitor"),
                                                        NULL));
  *result = obj;
  if (cancelled)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED,
                   _("The monitor was stopped after %.1f s"), (qf_clock_now_ns () - t0) / 1e9);
      return FALSE;
    }
  return TRUE;
}

static char *
monitor_classic_command (JsonObject *params,
                         const char *peer)
{
  gdouble duration_s = 10, interval_s = 1;
  glong count;

  (void) peer;
  qf_step_param_double (params, "duration_s", 10.0, 0.1, 30 * 24 * 3600.0, &duration_s, NULL);
  qf_step_param_double (params, "interval_s", 1.0, 0.1, 60.0, &interval_s, NULL);
  count = MAX (1, (glong) ceil (duration_s / interval_s));
  return g_strdup_printf ("top -b -d %g -n %ld; iostat -x %g %ld; sar -n DEV %g %ld",
                          interval_s, count, interval_s, count, interval_s, count);
}

static gdouble
monitor_estimate_duration (JsonObject *params)
{
  gdouble duration_s = 10;
  qf_step_param_double (params, "duration_s", 10.0, 0.1, 30 * 24 * 3600.0, &duration_s, NULL);
  return duration_s;
}

const char *const qf_step_load_limit_metrics[] = {
  "monitor.summary.iowait_max_pct",
  "monitor.summary.disk_util_max_pct",
  NULL
};

static const char *const load_per_cpu_metrics[] = { "monitor.summary.load1_max_per_cpu", NULL };

/* The figures of a finished load test (stress, monitor): the monitor's samples in %, each disk
 * on its own, and the load average per CPU on an axis of its own, against the criteria the
 * profiles judge them by. */
const QfStepChart qf_step_load_charts[] = {
  {
    .axis = N_("Load (%)"), .unit = "%", .points = "monitor.samples",
    .lines = {
      { "cpu_busy_pct", N_("CPU busy") },
      { "cpu_iowait_pct", N_("I/O wait") },
      /* Translators: %s is a disk's name, e.g. "sda" */
      { "util_pct", N_("Disk %util (%s)"), .each = "disks" },
    },
    .limit_metrics = qf_step_load_limit_metrics,
  },
  {
    .axis = N_("Load average per CPU"), .unit = "", .points = "monitor.samples",
    .lines = { { "load1", N_("Load average per CPU"), .per = "monitor.cpu_count" } },
    .limit_metrics = load_per_cpu_metrics,
  },
  { NULL }
};

static const QfStepFigure monitor_figures[] = {
  { "samples", N_("Samples"), NULL },
  { "duration_s", N_("Duration"), "s" },
  { "interval_s", N_("Sampling interval"), "s" },
  { "bytes_written", N_("Data written to disk"), NULL, QF_FIGURE_BYTES },
  { "rx_kBps", N_("Receive rate"), "kB/s" },
  { "tx_kBps", N_("Send rate"), "kB/s" },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

/* Its parameters. */
static const QfStepFigure monitor_params[] = {
  { "duration_s", N_("Duration"), "s" },
  { "interval_s", N_("Sampling interval"), "s" },
  { "root", N_("System root read"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

const QfStepInfo qf_step_monitor = {
  .id = "monitor",
  .title = N_("System monitor"),
  .description = N_("Watches CPU, memory, disks and network while the PC works (like top, iostat and sar)."),
  .peer_service = QF_PEER_SERVICE_NONE,
  .measures = QF_STEP_MEASURES_LOAD,
  .run = monitor_run,
  .classic_command = monitor_classic_command,
  .estimate_duration = monitor_estimate_duration,
  .plot = {
    .unit = "%", .axis = N_("Load (%)"), .unit_ns = 1000,
    .channels = { N_("CPU busy"), N_("I/O wait"), N_("Disk %util"), NULL },
    .n_channels = 3,   /* channel 3, the load average, is not a percentage */
    .limit_metrics = qf_step_load_limit_metrics,
  },
  .figures = monitor_figures,
  .params = monitor_params,
  .charts = qf_step_load_charts,
};
