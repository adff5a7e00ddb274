/* qf-cli-monitor.c — `qualify-cli monitor`: CPU, load, memory, disks and network as top,
 * iostat -x and sar -n DEV show them, for a while (src/cli).
 *
 * Prints one line per sample while it runs (unless --json or --quiet), then the summary, the
 * busiest processes and the procedure's five rules. Ctrl-C ends it early with what was
 * measured. */
#include "config.h"

#include <stdio.h>

#include "qf-cli.h"
#include "qf-cli-step.h"
#include "qf-i18n.h"
#include "qf-step.h"
#include "qf-steps.h"
#include "qf-stress.h"

static void
on_progress (QfStepContext *ctx,
             gdouble        fraction,
             JsonObject    *live,
             gpointer       user_data)
{
  gboolean print = GPOINTER_TO_INT (user_data);
  g_autofree char *avail = NULL;

  (void) ctx;
  (void) fraction;
  if (!print || live == NULL)
    return;
  avail = g_format_size_full ((guint64) json_object_get_int_member (live, "mem_available_kb")
                              * 1024, G_FORMAT_SIZE_IEC_UNITS);
  g_print ("%7.1f %7.1f %7.2f %12s %9.1f\n",
           json_object_get_double_member (live, "cpu_busy_pct"),
           json_object_get_double_member (live, "cpu_iowait_pct"),
           json_object_get_double_member (live, "load1"),
           avail,
           json_object_get_double_member (live, "disk_util_max_pct"));
  fflush (stdout);
}

int
qf_cli_monitor (int    argc,
                char **argv)
{
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *duration = NULL;
  gdouble interval_s = 1.0, duration_s = 10.0;
  gboolean json = FALSE, quiet = FALSE;
  QfStepContext ctx = { 0 };
  int exit_code;
  const GOptionEntry entries[] = {
    { "duration", 0, 0, G_OPTION_ARG_STRING, &duration,
      N_("Watch for S seconds (10, 10s, 2m; default 10)"), N_("S") },
    { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &interval_s,
      N_("Seconds between samples (default 1, at least 0.1)"), N_("S") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("Print only the summary at the end"), NULL },
    { "root", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &root,
      N_("Read /proc below DIR (for tests)"), N_("DIR") },
    { NULL }
  };

  if (!qf_cli_parse_options ("monitor", "",
                             _("Watch CPU, load, memory, disks and network like top, iostat -x and sar -n DEV."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc > 1)
    return qf_cli_errorf ("monitor", _("unexpected argument “%s”"), argv[1]);
  if (duration != NULL && !qf_stress_parse_duration (duration, &duration_s))
    return qf_cli_errorf ("monitor", _("--duration: “%s” is not a duration (examples: 10, 10s, 2m)"),
                          duration);

  json_object_set_double_member (params, "duration_s", duration_s);
  json_object_set_double_member (params, "interval_s", interval_s);
  if (root != NULL)
    json_object_set_string_member (params, "root", root);

  if (!json && !quiet)
    /* TRANSLATORS: column heads of the live table; keep the widths (7, 7, 7, 12, 9) */
    g_print ("%s\n", _("  %busy     %wa   load1    available  disk%util"));
  ctx.progress = on_progress;
  ctx.user_data = GINT_TO_POINTER (!json && !quiet);
  if (!qf_cli_step_run (&qf_step_monitor, params, &ctx, &result, &error)
      && !g_error_matches (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED))
    return qf_cli_error ("monitor", error);
  if (result == NULL)
    return qf_cli_error ("monitor", error);

  if (json)
    qf_cli_print_json (result);
  else
    qf_cli_print_load_summary (result);
  return QF_CLI_EXIT_OK;
}
