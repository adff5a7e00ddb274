/* qf-step-stress.c — the "stress" step: load the PC as `stress` does while monitoring it as top
 * and iostat -x do, then judge the procedure's five rules (src/core). Also the under-load helper
 * for other steps (qf-step-stress.h).
 *
 * Params: cpu, io, vm, hdd (workers, 0 … 1024), vm_bytes, hdd_bytes (bytes or a size such as
 * "1G"; defaults 256M and 1G as stress), vm_hang_s (hold time; absent = none, 0 = forever),
 * dir (hdd directory; default the temp dir, see qf-stress.h), timeout_s (10; 0 = until stopped),
 * steps (0/1 = full load
 * at once, K = raise in K steps), monitor_interval_s (1), mem_margin_pct, disk_margin_pct (10),
 * root (tests: read ROOT/proc).
 *
 * Result, the `qualify-cli stress --json` object: {"test": "stress", "workers": {cpu, io, vm,
 * hdd}, "vm_bytes", "vm_hang_s", "hdd_bytes", "hdd_dir", "hdd_mode", "timeout_s", "duration_s",
 * "bytes_written", "vm_bytes_touched", "cpu_kloops", "io_syncs", "cancelled", "monitor": {…}
 * (qf-step-monitor.h), "rules": […] (qf-load-rules.h), "steps": [{index, workers, t_start_s,
 * t_end_s, summary, rules_broken}], "first_broken_step": index or null}. Step times are seconds
 * on the monitor's clock (its samples' t_s).
 *
 * A stop request ends every worker within 1 s; the partial result comes with
 * QF_STEP_ERROR_CANCELLED. Live samples go to ctx->samples as in the monitor step.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-load-rules.h"
#include "qf-step-monitor.h"
#include "qf-step-stress.h"
#include "qf-steps.h"
#include "qf-stress.h"

typedef struct
{
  QfStressConfig stress;
  gdouble        monitor_interval_s;
  gboolean       vm_hang_given;
} StressParams;

static gboolean
param_size (JsonObject  *params,
            const char  *key,
            guint64      def,
            guint64     *out,
            GError     **error)
{
  JsonNode *node = params != NULL && json_object_has_member (params, key)
                     ? json_object_get_member (params, key) : NULL;

  *out = def;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      if (qf_stress_parse_size (json_node_get_string (node), out) && *out > 0)
        return TRUE;
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_INVALID_PARAMS,
                   _("Parameter “%s”: “%s” is not a size (examples: 4096, 256M, 1G)"), key,
                   json_node_get_string (node));
      return FALSE;
    }
  {
    gint64 v;
    if (!qf_step_param_int (params, key, (gint64) def, 1, G_GINT64_CONSTANT (1) << 50, &v, error))
      return FALSE;
    *out = (guint64) v;
  }
  return TRUE;
}

/* Parses the load parameters; with_timeout for the stress step itself. */
static gboolean
parse_params (JsonObject    *params,
              gboolean       with_timeout,
              StressParams  *p,
              GError       **error)
{
  gint64 cpu, io, vm, hdd, steps = 0;
  gdouble hang = -1, timeout = 0;
  const char *dir = NULL, *root = NULL;

  memset (p, 0, sizeof *p);
  if (!qf_step_param_int (params, "cpu", 0, 0, QF_STRESS_MAX_WORKERS, &cpu, error)
      || !qf_step_param_int (params, "io", 0, 0, QF_STRESS_MAX_WORKERS, &io, error)
      || !qf_step_param_int (params, "vm", 0, 0, QF_STRESS_MAX_WORKERS, &vm, error)
      || !qf_step_param_int (params, "hdd", 0, 0, QF_STRESS_MAX_WORKERS, &hdd, error)
      || !param_size (params, "vm_bytes", QF_STRESS_DEFAULT_VM_BYTES, &p->stress.vm_bytes, error)
      || !param_size (params, "hdd_bytes", QF_STRESS_DEFAULT_HDD_BYTES, &p->stress.hdd_bytes, error)
      || !qf_step_param_double (params, "vm_hang_s", -1, -1, 365 * 86400.0, &hang, error)
      || !qf_step_param_string (params, "dir", NULL, &dir, error)
      || !qf_step_param_string (params, "root", NULL, &root, error)
      || !qf_step_param_double (params, "monitor_interval_s", 1.0, QF_MONITOR_MIN_INTERVAL_S, 60.0,
                                &p->monitor_interval_s, error)
      || !qf_step_param_double (params, "mem_margin_pct", QF_STRESS_DEFAULT_MARGIN_PCT, 1, 90,
                                &p->stress.mem_margin_pct, error)
      || !qf_step_param_double (params, "disk_margin_pct", QF_STRESS_DEFAULT_MARGIN_PCT, 1, 90,
                                &p->stress.disk_margin_pct, error))
    return FALSE;
  if (with_timeout
      && (!qf_step_param_double (params, "timeout_s", 10.0, 0, 30 * 24 * 3600.0, &timeout, error)
          || !qf_step_param_int (params, "steps", 0, 0, 1000, &steps, error)))
    return FALSE;
  p->stress.cpu = (guint) cpu;
  p->stress.io = (guint) io;
  p->stress.vm = (guint) vm;
  p->stress.hdd = (guint) hdd;
  p->stress.vm_hang_s = hang;
  p->vm_hang_given = hang >= 0;
  p->stress.dir = dir;
  p->stress.root = root;
  p->stress.timeout_s = timeout;
  p->stress.steps = (guint) steps;
  return TRUE;
}

static int
step_error_code (const GError *error)
{
  if (error->domain == QF_STRESS_ERROR)
    switch (error->code)
      {
      case QF_STRESS_ERROR_INVALID:
        return QF_STEP_ERROR_INVALID_PARAMS;
      case QF_STRESS_ERROR_MEMORY:
      case QF_STRESS_ERROR_DISK:
        return QF_STEP_ERROR_RESOURCE;
      default:
        return QF_STEP_ERROR_FAILED;
      }
  return QF_STEP_ERROR_RESOURCE;
}

static JsonObject *
workers_json (guint cpu,
              guint io,
              guint vm,
              guint hdd)
{
  JsonObject *w = json_object_new ();
  json_object_set_int_member (w, "cpu", cpu);
  json_object_set_int_member (w, "io", io);
  json_object_set_int_member (w, "vm", vm);
  json_object_set_int_member (w, "hdd", hdd);
  return w;
}

static void
set_load_members (JsonObject           *obj,
                  const StressParams   *p,
                  const QfStressResult *r)
{
  json_object_set_object_member (obj, "workers", workers_json (p->stress.cpu, p->stress.io,
                                                               p->stress.vm, p->stress.hdd));
  json_object_set_int_member (obj, "vm_bytes", (gint64) p->stress.vm_bytes);
  if (p->vm_hang_given)
    json_object_set_double_member (obj, "vm_hang_s", p->stress.vm_hang_s);
  else
    json_object_set_null_member (obj, "vm_hang_s");
  json_object_set_int_member (obj, "hdd_bytes", (gint64) p->stress.hdd_bytes);
  if (r != NULL && r->hdd_dir != NULL)
    json_object_set_string_member (obj, "hdd_dir", r->hdd_dir);
  else
    json_object_set_null_member (obj, "hdd_dir");
  if (r != NULL && r->hdd_mode != NULL)
    json_object_set_string_member (obj, "hdd_mode", r->hdd_mode);
  else
    json_object_set_null_member (obj, "hdd_mode");
  json_object_set_double_member (obj, "duration_s", r ? round (r->duration_s * 1000) / 1000 : 0);
  json_object_set_int_member (obj, "bytes_written", r ? (gint64) r->bytes_written : 0);
}

static JsonArray *
steps_json (const QfStressResult *r,
            JsonObject           *monitor_json,
            gint64                monitor_start_ns,
            gint64               *first_broken)
{
  JsonArray *arr = json_array_new ();
  JsonArray *samples = json_object_get_array_member (monitor_json, "samples");
  guint cpu_count = (guint) json_object_get_int_member (monitor_json, "cpu_count");

  *first_broken = -1;
  for (guint i = 0; i < r->steps->len; i++)
    {
      const QfStressStep *st = &g_array_index (r->steps, QfStressStep, i);
      JsonObject *o = json_object_new ();
      JsonObject *sum;
      g_autoptr(JsonObject) wrap = json_object_new ();
      g_autoptr(JsonArray) outcomes = NULL;
      JsonArray *broken = json_array_new ();
      gdouble from = (st->start_ns - monitor_start_ns) / 1e9;
      gdouble to = (st->end_ns - monitor_start_ns) / 1e9;

      /* A sample belongs to the step in which its interval ended; the last step also takes the
       * monitor's final partial sample taken just after the stop. */
      if (i + 1 == r->steps->len)
        to += 1.0;
      sum = qf_monitor_json_summary (samples, cpu_count, from, to);
      json_object_set_object_member (wrap, "summary", json_object_ref (sum));
      outcomes = qf_load_rules_evaluate (wrap, NULL);
      for (guint k = 0; k < json_array_get_length (outcomes); k++)
        {
          JsonObject *oc = json_array_get_object_element (outcomes, k);
          if (!json_object_get_boolean_member (oc, "ok"))
            json_array_add_string_element (broken, json_object_get_string_member (oc, "id"));
        }
      if (*first_broken < 0 && json_array_get_length (broken) > 0)
        *first_broken = i + 1;

      json_object_set_int_member (o, "index", i + 1);
      json_object_set_object_member (o, "workers", workers_json (st->cpu, st->io, st->vm, st->hdd));
      json_object_set_double_member (o, "t_start_s", round (from * 1000) / 1000);
      json_object_set_double_member (o, "t_end_s",
                                     round ((st->end_ns - monitor_start_ns) / 1e6) / 1000);
      json_object_set_object_member (o, "summary", sum);
      json_object_set_array_member (o, "rules_broken", broken);
      json_array_add_object_element (arr, o);
    }
  return arr;
}

typedef struct
{
  QfStepContext *ctx;
  QfMonitor     *monitor;
  guint          pushed;
  gdouble        last_progress_s;
} TickData;

static void
on_tick (gdouble  elapsed_s,
         gdouble  fraction,
         gpointer user_data)
{
  TickData *td = user_data;
  guint before = td->pushed;

  if (td->ctx == NULL)
    return;
  qf_monitor_push_live (td->ctx, td->monitor, &td->pushed);
  if (td->ctx->progress == NULL)
    return;
  /* Live figures with each new monitor sample; the fraction alone four times a second. */
  if (td->pushed != before)
    {
      g_autoptr(JsonObject) live = qf_monitor_live_json (td->monitor);
      td->ctx->progress (td->ctx, fraction, live, td->ctx->user_data);
      td->last_progress_s = elapsed_s;
    }
  else if (elapsed_s - td->last_progress_s >= 0.25)
    {
      td->ctx->progress (td->ctx, fraction, NULL, td->ctx->user_data);
      td->last_progress_s = elapsed_s;
    }
}

static gboolean
stress_run (JsonObject     *params,
            QfStepContext  *ctx,
            JsonObject    **result,
            GError        **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GError) monitor_error = NULL;
  g_autoptr(QfStress) stress = NULL;
  g_autoptr(QfMonitor) monitor = NULL;
  QfMonitorConfig mconfig = { 0 };
  StressParams p;
  TickData td = { ctx, NULL, 0, 0.0 };
  const QfStressResult *r;
  gboolean ok;
  gint64 first_broken;
  JsonObject *obj, *monitor_json;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;
  if (!parse_params (params, TRUE, &p, error))
    return FALSE;

  stress = qf_stress_new (&p.stress, &local);
  if (stress == NULL)
    {
      g_set_error (error, QF_STEP_ERROR, step_error_code (local), "%s", local->message);
      return FALSE;
    }
  mconfig.root = p.stress.root;
  mconfig.interval_s = p.monitor_interval_s;
  monitor = qf_monitor_new (&mconfig, &local);
  if (monitor == NULL || !qf_monitor_start (monitor, &local))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE, "%s", local->message);
      return FALSE;
    }
  td.monitor = monitor;
  ok = qf_stress_run (stress, ctx ? ctx->cancel : NULL, on_tick, &td, &local);
  if (!qf_monitor_stop (monitor, &monitor_error) && ok)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE, "%s", monitor_error->message);
      return FALSE;
    }
  r = qf_stress_get_result (stress);

  obj = json_object_new ();
  json_object_set_string_member (obj, "test", "stress");
  set_load_members (obj, &p, r);
  json_object_set_double_member (obj, "timeout_s", p.stress.timeout_s);
  json_object_set_int_member (obj, "vm_bytes_touched", (gint64) r->vm_bytes_touched);
  json_object_set_int_member (obj, "cpu_kloops", (gint64) r->cpu_loops);
  json_object_set_int_member (obj, "io_syncs", (gint64) r->io_syncs);
  json_object_set_boolean_member (obj, "cancelled", r->cancelled);
  json_object_set_double_member (obj, "monitor_interval_s", p.monitor_interval_s);
  monitor_json = qf_monitor_to_json (monitor);
  json_object_set_object_member (obj, "monitor", monitor_json);
  json_object_set_array_member (obj, "rules", qf_load_rules_evaluate (monitor_json, NULL));
  json_object_set_array_member (obj, "steps", steps_json (r, monitor_json,
                                                          qf_monitor_start_ns (monitor),
                                                          &first_broken));
  if (first_broken > 0)
    json_object_set_int_member (obj, "first_broken_step", first_broken);
  else
    json_object_set_null_member (obj, "first_broken_step");
  *result = obj;

  if (!ok)
    {
      g_set_error (error, QF_STEP_ERROR, step_error_code (local), "%s", local->message);
      return FALSE;
    }
  if (r->cancelled)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED,
                   _("The stress test was stopped after %.1f s"), r->duration_s);
      return FALSE;
    }
  return TRUE;
}

/* A size as stress's command line takes it: "1G", "256M", "100K" or plain bytes. */
static char *
stress_size (guint64 bytes)
{
  static const char units[] = "KMGT";

  for (int i = 3; i >= 0; i--)
    {
      guint64 unit = G_GUINT64_CONSTANT (1) << (10 * (i + 1));
      if (bytes >= unit && bytes % unit == 0)
        return g_strdup_printf ("%llu%c", (unsigned long long) (bytes / unit), units[i]);
    }
  return g_strdup_printf ("%llu", (unsigned long long) bytes);
}

static char *
stress_classic_command (JsonObject *params,
                        const char *peer)
{
  g_autoptr(GString) cmd = g_string_new ("stress");
  StressParams p;

  (void) peer;
  if (!parse_params (params, TRUE, &p, NULL))
    return g_strdup ("stress -c 4 --timeout 100s");
  if (p.stress.cpu > 0)
    g_string_append_printf (cmd, " -c %u", p.stress.cpu);
  if (p.stress.io > 0)
    g_string_append_printf (cmd, " -i %u", p.stress.io);
  if (p.stress.vm > 0)
    {
      g_autofree char *size = stress_size (p.stress.vm_bytes);
      g_string_append_printf (cmd, " --vm %u --vm-bytes %s", p.stress.vm, size);
      if (p.vm_hang_given)
        g_string_append_printf (cmd, " --vm-hang %.0f", p.stress.vm_hang_s);
    }
  if (p.stress.hdd > 0)
    {
      g_autofree char *size = stress_size (p.stress.hdd_bytes);
      g_string_append_printf (cmd, " -d %u --hdd-bytes %s", p.stress.hdd, size);
    }
  if (p.stress.timeout_s > 0)
    g_string_append_printf (cmd, " --timeout %.0fs & iostat -x 1 %.0f", ceil (p.stress.timeout_s),
                            ceil (p.stress.timeout_s));
  else
    g_string_append (cmd, " & iostat -x 1");
  return g_string_free (g_steal_pointer (&cmd), FALSE);
}

static gdouble
stress_estimate_duration (JsonObject *params)
{
  StressParams p;

  if (!parse_params (params, TRUE, &p, NULL))
    return 10.0;
  return p.stress.timeout_s;
}

static const QfStepFigure stress_figures[] = {
  { "samples", N_("Samples"), NULL },
  { "duration_s", N_("Duration"), "s" },
  { "vm_bytes", N_("Memory per memory worker"), NULL, QF_FIGURE_BYTES },
  { "vm_hang_s", N_("Memory hold time"), "s" },
  { "hdd_bytes", N_("Data per disk worker"), NULL, QF_FIGURE_BYTES },
  { "hdd_dir", N_("Disk test folder"), NULL, QF_FIGURE_TEXT },
  { "hdd_mode", N_("Disk write mode"), NULL, QF_FIGURE_WORD },
  { "bytes_written", N_("Data written to disk"), NULL, QF_FIGURE_BYTES },
  { "timeout_s", N_("Planned duration"), "s" },
  { "vm_bytes_touched", N_("Memory written by the memory workers"), NULL, QF_FIGURE_BYTES },
  { "cpu_kloops", N_("CPU work loops"), NULL, QF_FIGURE_THOUSANDS },
  { "io_syncs", N_("Disk syncs by the I/O workers"), NULL },
  { "monitor_interval_s", N_("Monitor interval"), "s" },
  { "first_broken_step", N_("First load step that broke a rule"), NULL },
  { "test", N_("Test"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

/* Its parameters. */
static const QfStepFigure stress_params[] = {
  { "cpu", N_("CPU workers"), NULL },
  { "io", N_("I/O workers"), NULL },
  { "vm", N_("Memory workers"), NULL },
  { "vm_bytes", N_("Memory per memory worker"), NULL, QF_FIGURE_BYTES },
  { "vm_hang_s", N_("Memory hold time"), "s" },
  { "hdd", N_("Disk workers"), NULL },
  { "hdd_bytes", N_("Data per disk worker"), NULL, QF_FIGURE_BYTES },
  { "dir", N_("Disk test folder"), NULL, QF_FIGURE_TEXT },
  { "timeout_s", N_("Duration"), "s" },
  { "steps", N_("Load steps"), NULL },
  { "monitor_interval_s", N_("Monitor interval"), "s" },
  { "mem_margin_pct", N_("Memory kept free"), "%" },
  { "disk_margin_pct", N_("Disk space kept free"), "%" },
  { "root", N_("System root read"), NULL, QF_FIGURE_HIDDEN },
  { NULL }
};

const QfStepInfo qf_step_stress = {
  .id = "stress",
  .title = N_("Stress with monitoring"),
  .description = N_("Loads CPU, memory, I/O and disk as the procedure prescribes and watches whether the system keeps up (like stress)."),
  .peer_service = QF_PEER_SERVICE_NONE,
  .measures = QF_STEP_MEASURES_LOAD,
  .run = stress_run,
  .classic_command = stress_classic_command,
  .estimate_duration = stress_estimate_duration,
  .plot = {
    .unit = "%", .axis = N_("Load (%)"), .unit_ns = 1000,
    .channels = { N_("CPU busy"), N_("I/O wait"), N_("Disk %util"), NULL },
    .n_channels = 3,   /* channel 3, the load average, is not a percentage */
    .limit_metrics = qf_step_load_limit_metrics,
  },
  .figures = stress_figures,
  .params = stress_params,
  .charts = qf_step_load_charts,
};

/* ---- under load ---- */

struct _QfUnderLoad
{
  StressParams   p;
  QfStress      *stress;
  QfMonitor     *monitor;
  GThread       *thread;
  GMutex         lock;
  GCond          cond;
  gboolean       started;      /* the thread finished starting (successfully or not) */
  gboolean       stop;
  GError        *error;        /* start failure or why the load ended early */
};

/* The workers' own thread: PR_SET_PDEATHSIG ties them to the thread that forked them, so it
 * must live as long as the load does. */
static gpointer
under_load_thread (gpointer data)
{
  QfUnderLoad *load = data;
  GError *error = NULL;
  gboolean ok = qf_stress_start (load->stress, &error);

  g_mutex_lock (&load->lock);
  load->started = TRUE;
  load->error = error;
  g_cond_broadcast (&load->cond);
  while (ok && !load->stop)
    {
      gint64 until = g_get_monotonic_time () + 100 * G_TIME_SPAN_MILLISECOND;
      g_cond_wait_until (&load->cond, &load->lock, until);
      if (load->stop)
        break;
      g_mutex_unlock (&load->lock);
      ok = qf_stress_poll (load->stress, &error);
      g_mutex_lock (&load->lock);
      if (!ok)
        load->error = error;
    }
  g_mutex_unlock (&load->lock);
  qf_stress_stop (load->stress);
  return NULL;
}

static void
under_load_free (QfUnderLoad *load)
{
  if (load->thread != NULL)
    {
      g_mutex_lock (&load->lock);
      load->stop = TRUE;
      g_cond_broadcast (&load->cond);
      g_mutex_unlock (&load->lock);
      g_thread_join (load->thread);
    }
  if (load->monitor != NULL)
    qf_monitor_stop (load->monitor, NULL);
  g_clear_pointer (&load->monitor, qf_monitor_free);
  g_clear_pointer (&load->stress, qf_stress_free);
  g_clear_error (&load->error);
  g_mutex_clear (&load->lock);
  g_cond_clear (&load->cond);
  g_free (load);
}

gboolean
qf_under_load_wanted (JsonObject *params)
{
  StressParams p;

  if (params == NULL || !parse_params (params, FALSE, &p, NULL))
    return params != NULL;   /* invalid parameters: let start() say why */
  return p.stress.cpu + p.stress.io + p.stress.vm + p.stress.hdd > 0;
}

QfUnderLoad *
qf_under_load_start (JsonObject  *params,
                     GError     **error)
{
  QfUnderLoad *load = g_new0 (QfUnderLoad, 1);
  g_autoptr(GError) local = NULL;
  QfMonitorConfig mconfig = { 0 };

  g_mutex_init (&load->lock);
  g_cond_init (&load->cond);
  if (!parse_params (params, FALSE, &load->p, error))
    {
      under_load_free (load);
      return NULL;
    }
  load->stress = qf_stress_new (&load->p.stress, &local);
  if (load->stress == NULL)
    {
      g_set_error (error, QF_STEP_ERROR, step_error_code (local), "%s", local->message);
      under_load_free (load);
      return NULL;
    }
  mconfig.root = load->p.stress.root;
  mconfig.interval_s = load->p.monitor_interval_s;
  load->monitor = qf_monitor_new (&mconfig, &local);
  if (load->monitor == NULL || !qf_monitor_start (load->monitor, &local))
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE, "%s", local->message);
      under_load_free (load);
      return NULL;
    }
  load->thread = g_thread_try_new ("qf-under-load", under_load_thread, load, &local);
  if (load->thread == NULL)
    {
      g_set_error (error, QF_STEP_ERROR, QF_STEP_ERROR_RESOURCE, "%s", local->message);
      under_load_free (load);
      return NULL;
    }
  g_mutex_lock (&load->lock);
  while (!load->started)
    g_cond_wait (&load->cond, &load->lock);
  if (load->error != NULL)
    {
      g_set_error (error, QF_STEP_ERROR, step_error_code (load->error), "%s",
                   load->error->message);
      g_mutex_unlock (&load->lock);
      under_load_free (load);
      return NULL;
    }
  g_mutex_unlock (&load->lock);
  return load;
}

JsonObject *
qf_under_load_finish (QfUnderLoad *load)
{
  JsonObject *obj = json_object_new ();
  JsonObject *mon = json_object_new ();
  g_autoptr(JsonObject) full = NULL;

  g_return_val_if_fail (load != NULL, obj);

  g_mutex_lock (&load->lock);
  load->stop = TRUE;
  g_cond_broadcast (&load->cond);
  g_mutex_unlock (&load->lock);
  g_thread_join (load->thread);
  load->thread = NULL;
  if (!qf_monitor_stop (load->monitor, load->error == NULL ? &load->error : NULL))
    { /* the error, if the first one, is reported below */ }

  set_load_members (obj, &load->p, qf_stress_get_result (load->stress));
  json_object_set_boolean_member (obj, "complete", load->error == NULL);
  if (load->error != NULL)
    json_object_set_string_member (obj, "error", load->error->message);
  else
    json_object_set_null_member (obj, "error");
  full = qf_monitor_to_json (load->monitor);
  json_object_set_double_member (mon, "interval_s",
                                 json_object_get_double_member (full, "interval_s"));
  json_object_set_int_member (mon, "cpu_count", json_object_get_int_member (full, "cpu_count"));
  json_object_set_object_member (mon, "summary",
                                 json_object_ref (json_object_get_object_member (full, "summary")));
  json_object_set_object_member (obj, "monitor", mon);
  json_object_set_array_member (obj, "rules", qf_load_rules_evaluate (mon, NULL));
  under_load_free (load);
  return obj;
}
