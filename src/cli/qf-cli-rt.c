/* qf-cli-rt.c — `qualify-cli rt`: real-time latency like cyclictest (src/cli).
 *
 * Takes cyclictest's own short options too (-t -p -i -l -m -n -q, values attached or not), so
 * the procedure's `cyclictest -m -t1 -p 99 -i 1000 -l 10000` works after `qualify-cli rt`. Runs
 * the "rt" step on a worker thread (qf-cli-step.h) so SIGINT or SIGTERM stop the measurement;
 * the statistics so far are printed, as cyclictest does.
 * Text output ends with one line per thread in cyclictest's format (and, with --trace, the
 * cause of each spike explained); --json prints the step's result object. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "qf-cli.h"
#include "qf-cli-load.h"
#include "qf-cli-step.h"
#include "qf-i18n.h"
#include "qf-step.h"
#include "qf-steps.h"

static gboolean
is_number (const char *s)
{
  if (s == NULL || *s == '\0')
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

/* cyclictest writes "-t1", "-p99", "-i1000"; GOption wants the value apart. A bare -t means one
 * thread per CPU there, and here too. Returns a new argv. */
static char **
split_cyclictest_options (int    argc,
                          char **argv)
{
  GPtrArray *out = g_ptr_array_new ();

  for (int i = 0; i < argc; i++)
    {
      const char *arg = argv[i];

      if (i > 0 && strlen (arg) > 2 && arg[0] == '-' && strchr ("tpil", arg[1]) != NULL &&
          is_number (arg + 2))
        {
          g_ptr_array_add (out, g_strndup (arg, 2));
          g_ptr_array_add (out, g_strdup (arg + 2));
        }
      else if (i > 0 && g_str_equal (arg, "-t") && (i + 1 >= argc || !is_number (argv[i + 1])))
        {
          g_ptr_array_add (out, g_strdup (arg));
          g_ptr_array_add (out, g_strdup_printf ("%ld", sysconf (_SC_NPROCESSORS_ONLN)));
        }
      else
        g_ptr_array_add (out, g_strdup (arg));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static void
on_progress (QfStepContext *ctx,
             gdouble        fraction,
             JsonObject    *live,
             gpointer       user_data)
{
  gboolean print_live = GPOINTER_TO_INT (user_data);

  if (!print_live || live == NULL)
    return;
  g_printerr ("\r");
  /* TRANSLATORS: a live status line; C = cycles, as in cyclictest */
  g_printerr (_("%3.0f%%  C:%8lld  Min:%7.0f  Act:%5.0f  Avg:%5.0f  Max:%8.0f µs "),
              fraction * 100.0,
              (long long) json_object_get_int_member (live, "cycles"),
              floor (json_object_get_double_member (live, "min_us")),
              floor (json_object_get_double_member (live, "act_us")),
              floor (json_object_get_double_member (live, "avg_us")),
              floor (json_object_get_double_member (live, "max_us")));
}

static void
print_text (JsonObject *result)
{
  JsonArray *threads = json_object_get_array_member (result, "threads");

  if (json_object_get_boolean_member (result, "dma_latency_held"))
    g_print ("# %s\n", _("/dev/cpu_dma_latency set to 0us"));
  g_print ("# %s %s %lld, %s %lld\n", _("Policy:"), json_object_get_string_member (result, "policy"),
           (long long) json_object_get_int_member (result, "priority"), _("overruns:"),
           (long long) json_object_get_int_member (result, "overruns"));
  /* TRANSLATORS: percentiles of the latency, in microseconds */
  g_print ("# %s p50 %.0f  p90 %.0f  p99 %.0f  p99.9 %.0f  p99.99 %.0f\n", _("Percentiles (µs):"),
           floor (json_object_get_double_member (result, "p50_us")),
           floor (json_object_get_double_member (result, "p90_us")),
           floor (json_object_get_double_member (result, "p99_us")),
           floor (json_object_get_double_member (result, "p999_us")),
           floor (json_object_get_double_member (result, "p9999_us")));

  /* cyclictest's own format, byte for byte, so existing scripts and eyes read it. */
  for (guint i = 0; i < json_array_get_length (threads); i++)
    {
      JsonObject *t = json_array_get_object_element (threads, i);

      g_print ("T:%2u (%5lld) P:%2lld I:%lld C:%7lld Min:%7lld Act:%5lld Avg:%5lld Max:%8lld\n",
               i,
               (long long) json_object_get_int_member (t, "tid"),
               (long long) json_object_get_int_member (t, "priority"),
               (long long) json_object_get_int_member (t, "interval_us"),
               (long long) json_object_get_int_member (t, "cycles"),
               (long long) floor (json_object_get_double_member (t, "min_us")),
               (long long) floor (json_object_get_double_member (t, "act_us")),
               (long long) floor (json_object_get_double_member (t, "avg_us")),
               (long long) floor (json_object_get_double_member (t, "max_us")));
    }
}

/* Prints the under-load line that follows the per-thread lines. */
static void
print_under_load (JsonObject *result)
{
  JsonObject *ul = json_object_get_object_member (result, "under_load");
  JsonObject *w = json_object_get_object_member (ul, "workers");
  JsonObject *sum = json_object_get_object_member (json_object_get_object_member (ul, "monitor"),
                                                   "summary");
  JsonNode *busy = json_object_get_member (sum, "cpu_busy_avg_pct");

  g_print (_("# Under load: %lld cpu, %lld io, %lld vm, %lld hdd workers; CPU busy %.0f %% on average, load average up to %.2f\n"),
           (long long) json_object_get_int_member (w, "cpu"),
           (long long) json_object_get_int_member (w, "io"),
           (long long) json_object_get_int_member (w, "vm"),
           (long long) json_object_get_int_member (w, "hdd"),
           busy != NULL && !JSON_NODE_HOLDS_NULL (busy) ? json_node_get_double (busy) : 0.0,
           json_object_get_null_member (sum, "load1_max")
             ? 0.0 : json_object_get_double_member (sum, "load1_max"));
}

/* Warnings on stderr: a measurement without real-time priority, a load that ended early. */
static void
print_warnings (JsonObject *result)
{
  if (!json_object_get_boolean_member (result, "valid"))
    g_printerr (_("qualify-cli rt: warning: %s\n"), json_object_get_string_member (result, "reason"));
  if (json_object_has_member (result, "under_load"))
    {
      JsonObject *ul = json_object_get_object_member (result, "under_load");
      if (!json_object_get_boolean_member (ul, "complete"))
        g_printerr (_("qualify-cli rt: warning: the load ended early: %s\n"),
                    json_object_get_string_member (ul, "error"));
    }
}

typedef struct
{
  int       threads;
  char     *cpus;
  int       priority;
  int       interval_us;
  gint64    loops;
  gdouble   duration_s;
  gboolean  json;
  gboolean  quiet;
  gboolean  mlock;          /* accepted for cyclictest: memory is always locked */
  gboolean  nanosleep;      /* accepted for cyclictest: clock_nanosleep is always used */
  gboolean  under_load;
  gboolean  trace;
  int       trace_threshold_us;
  int       trace_spikes;
  int       load_cpu;
  int       load_io;
  int       load_vm;
  int       load_hdd;
  gdouble   load_vm_hang_s;
  char     *load_vm_bytes;
  char     *load_hdd_bytes;
  char     *load_dir;
  char     *network_load;   /* the helper machine to load the link to */
  char     *token_file;
  QfCliLoadOptions net;
} RtOptions;

static void
rt_options_clear (RtOptions *o)
{
  g_free (o->cpus);
  g_free (o->load_vm_bytes);
  g_free (o->load_hdd_bytes);
  g_free (o->load_dir);
  g_free (o->network_load);
  g_free (o->token_file);
  qf_cli_load_options_clear (&o->net);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RtOptions, rt_options_clear)

/* Parses argv (cyclictest's spellings too) into o; FALSE with *exit_code set when the caller
 * should return at once. */
static gboolean
parse_rt_options (RtOptions  *o,
                  int         argc,
                  char      **argv,
                  int        *exit_code)
{
  g_auto(GStrv) args = split_cyclictest_options (argc, argv);
  const GOptionEntry entries[] = {
    { "threads", 't', 0, G_OPTION_ARG_INT, &o->threads,
      N_("Measurement threads (default 1; -t alone: one per CPU)"), N_("N") },
    { "cpus", 0, 0, G_OPTION_ARG_STRING, &o->cpus,
      N_("One thread pinned to each CPU in LIST, e.g. 0-3,6"), N_("LIST") },
    { "priority", 'p', 0, G_OPTION_ARG_INT, &o->priority,
      N_("SCHED_FIFO priority, 1…99 (default 99; 0 = no real-time)"), N_("P") },
    { "interval-us", 'i', 0, G_OPTION_ARG_INT, &o->interval_us,
      N_("Interval between wake-ups in µs (default 1000)"), N_("I") },
    { "loops", 'l', 0, G_OPTION_ARG_INT64, &o->loops,
      N_("Cycles per thread (default 10000; 0 = until stopped)"), N_("L") },
    { "duration", 0, 0, G_OPTION_ARG_DOUBLE, &o->duration_s,
      N_("Measure for S seconds instead of a number of loops"), N_("S") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, N_("Print one JSON object on stdout"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet,
      N_("Print only the summary at the end (as cyclictest -q)"), NULL },
    { "mlockall", 'm', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o->mlock,
      N_("Accepted for cyclictest compatibility: memory is always locked"), NULL },
    { "nanosleep", 'n', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o->nanosleep,
      N_("Accepted for cyclictest compatibility: clock_nanosleep is always used"), NULL },
    { "trace", 0, 0, G_OPTION_ARG_NONE, &o->trace,
      N_("Record the kernel’s trace and name the cause of the worst spikes (root, or through Qualify’s system service qualifyd)"), NULL },
    { "trace-threshold", 0, 0, G_OPTION_ARG_INT, &o->trace_threshold_us,
      N_("With --trace: also mark every cycle at least US late, as cyclictest --tracemark -b "
         "(the worst cycles are always marked)"), N_("US") },
    { "trace-spikes", 0, 0, G_OPTION_ARG_INT, &o->trace_spikes,
      N_("With --trace: explain the N worst spikes, 1…16 (default 8)"), N_("N") },
    { "under-load", 0, 0, G_OPTION_ARG_NONE, &o->under_load,
      N_("Measure while stressors load the PC (default: one cpu worker per CPU)"), NULL },
    { "cpu", 0, 0, G_OPTION_ARG_INT, &o->load_cpu, N_("Under load: workers spinning on sqrt()"), N_("N") },
    { "io", 0, 0, G_OPTION_ARG_INT, &o->load_io, N_("Under load: workers calling sync()"), N_("N") },
    { "vm", 0, 0, G_OPTION_ARG_INT, &o->load_vm,
      N_("Under load: workers that allocate memory and write every page"), N_("N") },
    { "vm-bytes", 0, 0, G_OPTION_ARG_STRING, &o->load_vm_bytes,
      N_("Memory per vm worker (default 256M)"), N_("SIZE") },
    { "vm-hang", 0, 0, G_OPTION_ARG_DOUBLE, &o->load_vm_hang_s,
      N_("Hold the memory S seconds before freeing it (0 = forever)"), N_("S") },
    { "hdd", 0, 0, G_OPTION_ARG_INT, &o->load_hdd,
      N_("Under load: workers writing files to the disk (O_DIRECT or fsync)"), N_("N") },
    { "hdd-bytes", 0, 0, G_OPTION_ARG_STRING, &o->load_hdd_bytes,
      N_("Bytes per file of an hdd worker (default 1G)"), N_("SIZE") },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &o->load_dir,
      N_("Directory for the hdd workers' unnamed files (default: the temporary directory)"), N_("PATH") },
    { "network-load", 0, 0, G_OPTION_ARG_STRING, &o->network_load,
      N_("Measure while the bandwidth test saturates the link to the helper machine PEER in both "
         "directions (`qualify-cli serve` or `iperf3 -s` there)"), N_("PEER") },
    QF_CLI_LOAD_ENTRIES (o->net),
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &o->token_file,
      N_("With --network-load: prove the responder's access token read from FILE"), N_("FILE") },
    { NULL }
  };
  int n_args = g_strv_length (args);
  /* GOption drops the options it consumed from the vector it parses without freeing them:
   * parse a copy of the pointers so g_strfreev (args) still frees every string. */
  g_autofree char **parse_argv = g_memdup2 (args, (n_args + 1) * sizeof (char *));

  if (!qf_cli_parse_options ("rt", "", _("Measure real-time scheduling latency, like cyclictest."),
                             entries, &n_args, &parse_argv, exit_code))
    return FALSE;
  if (n_args > 1)
    *exit_code = qf_cli_errorf ("rt", _("unexpected argument “%s”"), parse_argv[1]);
  else if (o->network_load == NULL && (o->net.load != NULL || o->token_file != NULL))
    *exit_code = qf_cli_errorf ("rt", _("--load and --token-file go with --network-load PEER"));
  else if (o->threads != 0 && o->cpus != NULL)
    *exit_code = qf_cli_errorf ("rt", _("give either --threads or --cpus, not both"));
  return *exit_code == QF_CLI_EXIT_OK;
}

/* The step's "under_load" object, or NULL when no load option was given. Any load option
 * implies --under-load; --under-load alone loads every CPU, as stress -c N. */
static JsonObject *
build_load_params (const RtOptions *o)
{
  JsonObject *load;
  int load_cpu = o->load_cpu;

  if (!o->under_load && o->load_cpu < 0 && o->load_io <= 0 && o->load_vm <= 0 && o->load_hdd <= 0)
    return NULL;
  if (load_cpu < 0)
    load_cpu = (o->load_io + o->load_vm + o->load_hdd > 0) ? 0 : (int) sysconf (_SC_NPROCESSORS_ONLN);
  load = json_object_new ();
  json_object_set_int_member (load, "cpu", load_cpu);
  json_object_set_int_member (load, "io", o->load_io);
  json_object_set_int_member (load, "vm", o->load_vm);
  json_object_set_int_member (load, "hdd", o->load_hdd);
  if (o->load_vm_bytes != NULL)
    json_object_set_string_member (load, "vm_bytes", o->load_vm_bytes);
  if (o->load_hdd_bytes != NULL)
    json_object_set_string_member (load, "hdd_bytes", o->load_hdd_bytes);
  if (o->load_vm_hang_s >= 0)
    json_object_set_double_member (load, "vm_hang_s", o->load_vm_hang_s);
  if (o->load_dir != NULL)
    json_object_set_string_member (load, "dir", o->load_dir);
  return load;
}

/* The "rt" step's params from the options. */
static JsonObject *
build_rt_params (const RtOptions *o)
{
  JsonObject *params = json_object_new ();
  JsonObject *load = build_load_params (o);

  if (o->cpus != NULL)
    json_object_set_string_member (params, "cpus", o->cpus);
  else
    json_object_set_int_member (params, "threads", o->threads ? o->threads : 1);
  json_object_set_int_member (params, "priority", o->priority);
  json_object_set_int_member (params, "interval_us", o->interval_us);
  if (o->duration_s > 0)
    json_object_set_double_member (params, "duration_s", o->duration_s);
  if (o->loops >= 0)
    json_object_set_int_member (params, "loops", o->loops);
  if (load != NULL)
    json_object_set_object_member (params, "under_load", load);
  if (o->trace)
    json_object_set_boolean_member (params, "trace", TRUE);
  if (o->trace_threshold_us > 0)
    json_object_set_int_member (params, "trace_threshold_us", o->trace_threshold_us);
  if (o->trace_spikes > 0)
    json_object_set_int_member (params, "trace_spikes", o->trace_spikes);
  if (o->network_load != NULL)
    {
      json_object_set_string_member (params, "host", o->network_load);
      qf_cli_load_params (&o->net, "port", params);
      if (o->token_file != NULL)
        json_object_set_string_member (params, "token_file", o->token_file);
    }
  return params;
}

/* Runs the step; returns its result (partial after Ctrl-C) or NULL after printing the error. */
static JsonObject *
measure (const QfStepInfo *step,
         JsonObject       *params,
         gboolean          print_live)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  QfStepContext ctx = { 0 };

  ctx.progress = on_progress;
  ctx.user_data = GINT_TO_POINTER (print_live);
  qf_cli_step_run (step, params, &ctx, &result, &error);
  if (print_live)
    g_printerr ("\n");

  if (result == NULL)
    {
      qf_cli_error ("rt", error);
      return NULL;
    }
  /* A stop by signal is the user's choice; the figures so far are the result, as in cyclictest. */
  if (error != NULL && !g_error_matches (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED))
    {
      qf_cli_error ("rt", error);
      return NULL;
    }
  return g_steal_pointer (&result);
}

int
qf_cli_rt (int    argc,
           char **argv)
{
  g_auto(RtOptions) o = {
    .priority = 99, .interval_us = 1000, .loops = -1, .load_cpu = -1, .load_vm_hang_s = -1,
    .net = QF_CLI_LOAD_OPTIONS_INIT,
  };
  g_autoptr(JsonObject) params = NULL;
  g_autoptr(JsonObject) result = NULL;
  int exit_code;

  if (!parse_rt_options (&o, argc, argv, &exit_code))
    return exit_code;
  params = build_rt_params (&o);
  /* A live line on stderr (\r-rewritten), only when someone watches it. */
  result = measure (o.network_load != NULL ? &qf_step_rt_network_load : &qf_step_rt, params,
                    !o.json && !o.quiet && isatty (STDERR_FILENO));
  if (result == NULL)
    return QF_CLI_EXIT_ERROR;

  print_warnings (result);
  qf_cli_trace_warning ("rt", result);
  if (o.json)
    qf_cli_print_json (result);
  else
    {
      print_text (result);
      if (json_object_has_member (result, "under_load"))
        print_under_load (result);
      qf_cli_load_print_network (result);
      qf_cli_print_latency_causes (result);
    }
  return QF_CLI_EXIT_OK;
}
