/* qf-cli-rt.c — `qualify-cli rt`: real-time latency like cyclictest (src/cli).
 *
 * Takes cyclictest's own short options too (-t -p -i -l -m -n -q, values attached or not), so
 * the procedure's `cyclictest -m -t1 -p 99 -i 1000 -l 10000` works after `qualify-cli rt`. Runs
 * the "rt" step on a worker thread (qf-cli-step.h) so SIGINT or SIGTERM stop the measurement;
 * the statistics so far are printed, as cyclictest does.
 * Text output ends with one line per thread in cyclictest's format; --json prints the step's
 * result object. */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "qf-cli.h"
#include "qf-cli-step.h"
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

int
qf_cli_rt (int    argc,
           char **argv)
{
  g_auto(GStrv) args = split_cyclictest_options (argc, argv);
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *cpus = NULL;
  QfStepContext ctx = { 0 };
  gboolean print_live;
  int threads = 0, priority = 99, interval_us = 1000, exit_code;
  gint64 loops = -1;
  gdouble duration_s = 0;
  gboolean json = FALSE, quiet = FALSE, mlock = FALSE, nanosleep = FALSE;
  gboolean under_load = FALSE;
  int load_cpu = -1, load_io = 0, load_vm = 0, load_hdd = 0;
  gdouble load_vm_hang_s = -1;
  g_autofree char *load_vm_bytes = NULL;
  g_autofree char *load_hdd_bytes = NULL;
  g_autofree char *load_dir = NULL;
  const GOptionEntry entries[] = {
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads,
      N_("Measurement threads (default 1; -t alone: one per CPU)"), N_("N") },
    { "cpus", 0, 0, G_OPTION_ARG_STRING, &cpus,
      N_("One thread pinned to each CPU in LIST, e.g. 0-3,6"), N_("LIST") },
    { "priority", 'p', 0, G_OPTION_ARG_INT, &priority,
      N_("SCHED_FIFO priority, 1…99 (default 99; 0 = no real-time)"), N_("P") },
    { "interval-us", 'i', 0, G_OPTION_ARG_INT, &interval_us,
      N_("Interval between wake-ups in µs (default 1000)"), N_("I") },
    { "loops", 'l', 0, G_OPTION_ARG_INT64, &loops,
      N_("Cycles per thread (default 10000; 0 = until stopped)"), N_("L") },
    { "duration", 0, 0, G_OPTION_ARG_DOUBLE, &duration_s,
      N_("Measure for S seconds instead of a number of loops"), N_("S") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
      N_("Print only the summary at the end (as cyclictest -q)"), NULL },
    { "mlockall", 'm', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &mlock,
      N_("Accepted for cyclictest compatibility: memory is always locked"), NULL },
    { "nanosleep", 'n', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &nanosleep,
      N_("Accepted for cyclictest compatibility: clock_nanosleep is always used"), NULL },
    { "under-load", 0, 0, G_OPTION_ARG_NONE, &under_load,
      N_("Measure while stressors load the PC (default: one cpu worker per CPU)"), NULL },
    { "cpu", 0, 0, G_OPTION_ARG_INT, &load_cpu, N_("Under load: workers spinning on sqrt()"), N_("N") },
    { "io", 0, 0, G_OPTION_ARG_INT, &load_io, N_("Under load: workers calling sync()"), N_("N") },
    { "vm", 0, 0, G_OPTION_ARG_INT, &load_vm,
      N_("Under load: workers that allocate memory and write every page"), N_("N") },
    { "vm-bytes", 0, 0, G_OPTION_ARG_STRING, &load_vm_bytes,
      N_("Memory per vm worker (default 256M)"), N_("SIZE") },
    { "vm-hang", 0, 0, G_OPTION_ARG_DOUBLE, &load_vm_hang_s,
      N_("Hold the memory S seconds before freeing it (0 = forever)"), N_("S") },
    { "hdd", 0, 0, G_OPTION_ARG_INT, &load_hdd,
      N_("Under load: workers writing files to the disk (O_DIRECT or fsync)"), N_("N") },
    { "hdd-bytes", 0, 0, G_OPTION_ARG_STRING, &load_hdd_bytes,
      N_("Bytes per file of an hdd worker (default 1G)"), N_("SIZE") },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &load_dir,
      N_("Directory for the hdd workers' files (default: a new temporary one)"), N_("PATH") },
    { NULL }
  };
  int n_args = g_strv_length (args);
  /* GOption drops the options it consumed from the vector it parses without freeing them:
   * parse a copy of the pointers so g_strfreev (args) still frees every string. */
  g_autofree char **parse_argv = g_memdup2 (args, (n_args + 1) * sizeof (char *));

  if (!qf_cli_parse_options ("rt", "", _("Measure real-time scheduling latency, like cyclictest."),
                             entries, &n_args, &parse_argv, &exit_code))
    return exit_code;
  if (n_args > 1)
    return qf_cli_errorf ("rt", _("unexpected argument “%s”"), parse_argv[1]);
  if (threads != 0 && cpus != NULL)
    return qf_cli_errorf ("rt", _("give either --threads or --cpus, not both"));

  if (cpus != NULL)
    json_object_set_string_member (params, "cpus", cpus);
  else
    json_object_set_int_member (params, "threads", threads ? threads : 1);
  json_object_set_int_member (params, "priority", priority);
  json_object_set_int_member (params, "interval_us", interval_us);
  if (duration_s > 0)
    json_object_set_double_member (params, "duration_s", duration_s);
  if (loops >= 0)
    json_object_set_int_member (params, "loops", loops);
  /* Any load option implies --under-load; --under-load alone loads every CPU, as stress -c N. */
  if (under_load || load_cpu >= 0 || load_io > 0 || load_vm > 0 || load_hdd > 0)
    {
      JsonObject *load = json_object_new ();

      if (load_cpu < 0)
        load_cpu = (load_io + load_vm + load_hdd > 0) ? 0 : (int) sysconf (_SC_NPROCESSORS_ONLN);
      json_object_set_int_member (load, "cpu", load_cpu);
      json_object_set_int_member (load, "io", load_io);
      json_object_set_int_member (load, "vm", load_vm);
      json_object_set_int_member (load, "hdd", load_hdd);
      if (load_vm_bytes != NULL)
        json_object_set_string_member (load, "vm_bytes", load_vm_bytes);
      if (load_hdd_bytes != NULL)
        json_object_set_string_member (load, "hdd_bytes", load_hdd_bytes);
      if (load_vm_hang_s >= 0)
        json_object_set_double_member (load, "vm_hang_s", load_vm_hang_s);
      if (load_dir != NULL)
        json_object_set_string_member (load, "dir", load_dir);
      json_object_set_object_member (params, "under_load", load);
    }

  /* A live line on stderr (\r-rewritten), only when someone watches it. */
  print_live = !json && !quiet && isatty (STDERR_FILENO);
  ctx.progress = on_progress;
  ctx.user_data = GINT_TO_POINTER (print_live);
  qf_cli_step_run (&qf_step_rt, params, &ctx, &result, NULL, &error);
  if (print_live)
    g_printerr ("\n");

  if (result == NULL)
    return qf_cli_error ("rt", error);
  /* A stop by signal is the user's choice; the figures so far are the result, as in cyclictest. */
  if (error != NULL && !g_error_matches (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED))
    return qf_cli_error ("rt", error);

  if (!json_object_get_boolean_member (result, "valid"))
    g_printerr (_("qualify-cli rt: warning: %s\n"), json_object_get_string_member (result, "reason"));
  if (json_object_has_member (result, "under_load"))
    {
      JsonObject *ul = json_object_get_object_member (result, "under_load");
      if (!json_object_get_boolean_member (ul, "complete"))
        g_printerr (_("qualify-cli rt: warning: the load ended early: %s\n"),
                    json_object_get_string_member (ul, "error"));
    }
  if (json)
    qf_cli_print_json (result);
  else
    {
      print_text (result);
      if (json_object_has_member (result, "under_load"))
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
    }
  return QF_CLI_EXIT_OK;
}
