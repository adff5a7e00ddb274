/* qf-cli-trace.c — a step's latency causes on the terminal (src/cli): the line that says why
 * nothing was traced, and the breakdown of each spike explained (qf-step-trace.h), for rt,
 * cycle and run. */
#include "config.h"

#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-step-trace.h"

void
qf_cli_trace_warning (const char *command,
                      JsonObject *result)
{
  const char *why = qf_step_trace_not_recorded (result);

  if (why != NULL)
    /* TRANSLATORS: the %s after the colon says why, e.g. "Reading the kernel's trace needs root…" */
    g_printerr (_("qualify-cli %s: not traced: %s\n"), command, why);
}

/* "#   task         cc1 (pid 13929, SCHED_OTHER)         3072.2 µs  (82 %)" */
static void
print_breakdown (JsonArray *breakdown,
                 gdouble    latency_us)
{
  for (guint i = 0; breakdown != NULL && i < json_array_get_length (breakdown); i++)
    {
      JsonObject *item = json_array_get_object_element (breakdown, i);
      g_autofree char *label = qf_step_trace_item_label (item, NULL, NULL);
      gdouble us = json_object_get_double_member_with_default (item, "duration_us", 0);

      g_print ("#   %-12s %-44s %10.1f µs %5.1f %%\n",
               json_object_get_string_member_with_default (item, "kind", ""), label, us,
               latency_us > 0 ? 100.0 * us / latency_us : 0.0);
    }
}

void
qf_cli_print_latency_causes (JsonObject *result)
{
  JsonArray *causes;
  guint n;

  if (result == NULL || !json_object_has_member (result, "latency_causes"))
    return;
  causes = json_object_get_array_member (result, "latency_causes");
  n = causes != NULL ? json_array_get_length (causes) : 0;
  if (n == 0)
    {
      if (qf_step_trace_not_recorded (result) == NULL)
        g_print ("# %s\n", _("Kernel trace: no cycle was late enough to mark."));
      return;
    }
  {
    g_autofree char *head = g_strdup_printf (qf_ngettext ("Why it was slow (kernel trace, %u spike explained):",
                                                          "Why it was slow (kernel trace, %u spikes explained):",
                                                          n), n);
    g_print ("# %s\n", head);
  }
  for (guint i = 0; i < n; i++)
    {
      JsonObject *cause = json_array_get_object_element (causes, i);

      g_print ("# %s\n", json_object_get_string_member_with_default (cause, "sentence", ""));
      print_breakdown (json_object_get_array_member (cause, "breakdown"),
                       json_object_get_double_member_with_default (cause, "latency_us", 0));
    }
}

void
qf_cli_print_worst_cause (const char *indent,
                          JsonObject *result)
{
  const char *why = qf_step_trace_not_recorded (result);
  JsonArray *causes;

  if (why != NULL)
    {
      g_printerr ("%s%s %s\n", indent, _("Not traced:"), why);
      return;
    }
  causes = result != NULL && json_object_has_member (result, "latency_causes")
             ? json_object_get_array_member (result, "latency_causes") : NULL;
  if (causes != NULL && json_array_get_length (causes) > 0)
    g_printerr ("%s%s\n", indent,
                json_object_get_string_member_with_default (json_array_get_object_element (causes, 0),
                                                            "sentence", ""));
}
