/* qf-cli-stress.c — `qualify-cli stress`: load the PC as `stress` does while monitoring it as
 * top and iostat -x do, then judge the procedure's rules (src/cli).
 *
 * stress's own options are accepted as written (-c 4; -i 4 --vm 10 --vm-bytes 1G --vm-hang 100
 * --timeout 100s; -d 1 --hdd-bytes 3G), so the procedure's lines work after `qualify-cli stress`.
 * Without --timeout the load runs until Ctrl-C, as stress does. The step runs on a worker thread
 * (qf-cli-step.h) while the main thread waits for SIGINT/SIGTERM, which stop every worker within
 * a second; the figures measured so far are then printed. Also home of the summary printer
 * shared with `qualify-cli monitor` (qf-cli.h). */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "qf-cli.h"
#include "qf-cli-step.h"
#include "qf-i18n.h"
#include "qf-step.h"
#include "qf-steps.h"
#include "qf-stress.h"

static void
print_kb (const char *label,
          gint64      kb)
{
  g_autofree char *size = g_format_size_full ((guint64) kb * 1024, G_FORMAT_SIZE_IEC_UNITS);
  g_print ("  %-34s %s\n", label, size);
}

static void
print_pct (const char *label,
           JsonObject *summary,
           const char *key)
{
  JsonNode *node = json_object_get_member (summary, key);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    g_print ("  %-34s %s\n", label, "—");
  else
    g_print ("  %-34s %.1f %%\n", label, json_node_get_double (node));
}

void
qf_cli_print_load_summary (JsonObject *result)
{
  JsonObject *monitor = json_object_get_object_member (result, "monitor");
  JsonObject *summary = json_object_get_object_member (monitor, "summary");
  JsonArray *rules = json_object_get_array_member (result, "rules");
  JsonArray *samples = json_object_get_array_member (monitor, "samples");
  guint n = json_array_get_length (samples);

  g_print ("%s\n", _("Monitor summary:"));
  g_print ("  %-34s %lld\n", _("Samples"), (long long) json_object_get_int_member (summary, "samples"));
  print_pct (_("CPU busy, average"), summary, "cpu_busy_avg_pct");
  print_pct (_("CPU busy, highest"), summary, "cpu_busy_max_pct");
  print_pct (_("I/O wait (wa), highest"), summary, "iowait_max_pct");
  print_pct (_("CPU idle (%idle), lowest"), summary, "cpu_idle_min_pct");
  if (!json_object_get_null_member (summary, "load1_max"))
    g_print ("  %-34s %.2f (%lld CPUs)\n", _("Load average, highest"),
             json_object_get_double_member (summary, "load1_max"),
             (long long) json_object_get_int_member (summary, "cpu_count"));
  if (!json_object_get_null_member (summary, "mem_available_min_kb"))
    print_kb (_("Memory available, lowest"), json_object_get_int_member (summary, "mem_available_min_kb"));
  print_pct (_("Disk %util, highest"), summary, "disk_util_max_pct");

  if (n > 0)
    {
      JsonObject *last = json_array_get_object_element (samples, n - 1);
      JsonArray *top = json_object_get_array_member (last, "top_cpu");
      g_print ("%s\n", _("Top processes by CPU (last sample):"));
      for (guint i = 0; i < json_array_get_length (top); i++)
        {
          JsonObject *p = json_array_get_object_element (top, i);
          g_print ("  %7lld %-16s %6.1f %%\n", (long long) json_object_get_int_member (p, "pid"),
                   json_object_get_string_member (p, "comm"),
                   json_object_get_double_member (p, "cpu_pct"));
        }
    }
  g_print ("%s\n", _("The procedure's rules:"));
  for (guint i = 0; i < json_array_get_length (rules); i++)
    {
      JsonObject *r = json_array_get_object_element (rules, i);
      g_print ("  [%s] %s\n", json_object_get_boolean_member (r, "ok") ? _("ok") : _("BROKEN"),
               json_object_get_string_member (r, "message"));
    }
}

static void
on_progress (QfStepContext *ctx,
             gdouble        fraction,
             JsonObject    *live,
             gpointer       user_data)
{
  gboolean tty = GPOINTER_TO_INT (user_data);

  (void) ctx;
  if (!tty || live == NULL)
    return;
  /* TRANSLATORS: a live status line on the terminal during the stress test */
  g_printerr ("\r");
  g_printerr (_("%3.0f%%  CPU %5.1f %%  wa %5.1f %%  load %5.2f  disk %5.1f %%  "),
              fraction * 100.0,
              json_object_get_double_member (live, "cpu_busy_pct"),
              json_object_get_double_member (live, "cpu_iowait_pct"),
              json_object_get_double_member (live, "load1"),
              json_object_get_double_member (live, "disk_util_max_pct"));
}

/* G_OPTION_ARG_CALLBACK parsers: stress writes sizes as "1G" and durations as "100s". */
static guint64 opt_vm_bytes, opt_hdd_bytes;
static gdouble opt_timeout_s = -1;

static gboolean
parse_size_option (const char  *name,
                   const char  *value,
                   gpointer     data,
                   GError     **error)
{
  guint64 bytes;

  (void) data;
  if (!qf_stress_parse_size (value, &bytes) || bytes == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s: “%s” is not a size (examples: 4096, 256M, 1G)"), name, value);
      return FALSE;
    }
  if (g_str_equal (name, "--vm-bytes"))
    opt_vm_bytes = bytes;
  else
    opt_hdd_bytes = bytes;
  return TRUE;
}

static gboolean
parse_timeout_option (const char  *name,
                      const char  *value,
                      gpointer     data,
                      GError     **error)
{
  (void) data;
  if (!qf_stress_parse_duration (value, &opt_timeout_s))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s: “%s” is not a duration (examples: 100, 100s, 2m)"), name, value);
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  int       cpu;
  int       io;
  int       vm;
  int       hdd;
  int       steps;
  gdouble   vm_hang_s;
  gdouble   monitor_interval_s;
  gboolean  json;
  gboolean  verbose;        /* accepted for stress */
  gboolean  quiet;
  char     *dir;
  char     *root;
} StressOptions;

static void
stress_options_clear (StressOptions *o)
{
  g_free (o->dir);
  g_free (o->root);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (StressOptions, stress_options_clear)

/* Parses argv (stress's spellings) into o and the opt_ statics; FALSE with *exit_code set when
 * the caller should return at once. */
static gboolean
parse_stress_options (StressOptions   *o,
                      int             *argc,
                      char          ***argv,
                      int             *exit_code)
{
  const GOptionEntry entries[] = {
    { "cpu", 'c', 0, G_OPTION_ARG_INT, &o->cpu, N_("Workers spinning on sqrt()"), N_("N") },
    { "io", 'i', 0, G_OPTION_ARG_INT, &o->io, N_("Workers calling sync()"), N_("N") },
    { "vm", 'm', 0, G_OPTION_ARG_INT, &o->vm,
      N_("Workers that allocate memory and write every page"), N_("N") },
    { "vm-bytes", 0, 0, G_OPTION_ARG_CALLBACK, parse_size_option,
      N_("Memory per vm worker (default 256M)"), N_("SIZE") },
    { "vm-hang", 0, 0, G_OPTION_ARG_DOUBLE, &o->vm_hang_s,
      N_("Hold the memory S seconds before freeing it (0 = forever)"), N_("S") },
    { "hdd", 'd', 0, G_OPTION_ARG_INT, &o->hdd,
      N_("Workers writing files to the disk (O_DIRECT or fsync)"), N_("N") },
    { "hdd-bytes", 0, 0, G_OPTION_ARG_CALLBACK, parse_size_option,
      N_("Bytes per file of an hdd worker (default 1G)"), N_("SIZE") },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &o->dir,
      N_("Directory for the hdd workers' unnamed files (default: the temporary directory)"), N_("PATH") },
    { "timeout", 't', 0, G_OPTION_ARG_CALLBACK, parse_timeout_option,
      N_("Stop after S seconds (100, 100s, 2m; default: at Ctrl-C)"), N_("S") },
    { "steps", 0, 0, G_OPTION_ARG_INT, &o->steps,
      N_("Raise the load in K steps over the timeout and report where a rule first breaks"),
      N_("K") },
    { "monitor-interval", 0, 0, G_OPTION_ARG_DOUBLE, &o->monitor_interval_s,
      N_("Seconds between monitor samples (default 1, at least 0.1)"), N_("S") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, N_("Print one JSON object on stdout"), NULL },
    { "verbose", 'v', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o->verbose,
      N_("Accepted for stress compatibility"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, N_("Print only the summary at the end"), NULL },
    { "root", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &o->root,
      N_("Read /proc below DIR (for tests)"), N_("DIR") },
    { NULL }
  };

  opt_vm_bytes = opt_hdd_bytes = 0;
  opt_timeout_s = -1;
  if (!qf_cli_parse_options ("stress", "",
                             _("Load CPU, I/O, memory and disk like stress while monitoring like top and iostat -x."),
                             entries, argc, argv, exit_code))
    return FALSE;
  if (*argc > 1)
    *exit_code = qf_cli_errorf ("stress", _("unexpected argument “%s”"), (*argv)[1]);
  else if (o->cpu < 0 || o->io < 0 || o->vm < 0 || o->hdd < 0 || o->steps < 0)
    *exit_code = qf_cli_errorf ("stress", _("worker and step counts cannot be negative"));
  else if (o->cpu + o->io + o->vm + o->hdd == 0)
    *exit_code = qf_cli_errorf ("stress", _("no load chosen: give at least one of --cpu, --io, --vm or --hdd"));
  return *exit_code == QF_CLI_EXIT_OK;
}

/* The "stress" step's params from the options. */
static JsonObject *
build_stress_params (const StressOptions *o)
{
  JsonObject *params = json_object_new ();

  json_object_set_int_member (params, "cpu", o->cpu);
  json_object_set_int_member (params, "io", o->io);
  json_object_set_int_member (params, "vm", o->vm);
  json_object_set_int_member (params, "hdd", o->hdd);
  if (opt_vm_bytes > 0)
    json_object_set_int_member (params, "vm_bytes", (gint64) opt_vm_bytes);
  if (opt_hdd_bytes > 0)
    json_object_set_int_member (params, "hdd_bytes", (gint64) opt_hdd_bytes);
  if (o->vm_hang_s >= 0)
    json_object_set_double_member (params, "vm_hang_s", o->vm_hang_s);
  if (o->dir != NULL)
    json_object_set_string_member (params, "dir", o->dir);
  if (o->root != NULL)
    json_object_set_string_member (params, "root", o->root);
  json_object_set_double_member (params, "timeout_s", opt_timeout_s >= 0 ? opt_timeout_s : 0);
  json_object_set_int_member (params, "steps", o->steps);
  json_object_set_double_member (params, "monitor_interval_s", o->monitor_interval_s);
  return params;
}

/* Runs the step; returns its result (partial after Ctrl-C) or NULL after printing the error. */
static JsonObject *
load_and_monitor (JsonObject *params,
                  gboolean    print_live)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  QfStepContext ctx = { 0 };
  gboolean ok;

  ctx.progress = on_progress;
  ctx.user_data = GINT_TO_POINTER (print_live);
  ok = qf_cli_step_run (&qf_step_stress, params, &ctx, &result, &error);
  if (print_live)
    g_printerr ("\n");
  if ((!ok && !g_error_matches (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED)) || result == NULL)
    {
      qf_cli_error ("stress", error);
      return NULL;
    }
  return g_steal_pointer (&result);
}

static void
print_text (JsonObject *result)
{
  guint64 bytes = (guint64) json_object_get_int_member (result, "bytes_written");
  g_autofree char *written = g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);

  g_print (_("Load ran for %.1f s (%s); the disk workers wrote %s.\n"),
           json_object_get_double_member (result, "duration_s"),
           json_object_get_boolean_member (result, "cancelled") ? _("stopped") : _("completed"),
           written);
  if (json_array_get_length (json_object_get_array_member (result, "steps")) > 1
      && !json_object_get_null_member (result, "first_broken_step"))
    g_print (_("Stepped load: a rule first broke in step %lld.\n"),
             (long long) json_object_get_int_member (result, "first_broken_step"));
  qf_cli_print_load_summary (result);
}

int
qf_cli_stress (int    argc,
               char **argv)
{
  g_auto(StressOptions) o = { .vm_hang_s = -1, .monitor_interval_s = 1.0 };
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonObject) result = NULL;
  int exit_code;

  if (!parse_stress_options (&o, &argc, &argv, &exit_code))
    return exit_code;
  params = build_stress_params (&o);
  if (!o.json && !o.quiet)
    {
      g_printerr (_("qualify-cli stress: dispatching hogs: %d cpu, %d io, %d vm, %d hdd\n"),
                  o.cpu, o.io, o.vm, o.hdd);
      if (opt_timeout_s < 0)
        g_printerr (_("qualify-cli stress: no --timeout given: running until Ctrl-C\n"));
    }
  result = load_and_monitor (params, !o.json && !o.quiet && isatty (STDERR_FILENO));
  if (result == NULL)
    return QF_CLI_EXIT_ERROR;
  if (o.json)
    qf_cli_print_json (result);
  else
    print_text (result);
  return QF_CLI_EXIT_OK;
}
