/* qf-steps.c — the registry of measurement steps (src/core/steps): every QfStepInfo of this
 * build in the procedure's order, and the look-up by id. It sits above the step files (each
 * qf-step-<id>.c defines its own description), which use only qf-step.c below them. */
#include "config.h"

#include "qf-steps.h"

/* In the procedure's order. Each entry is defined in qf-step-<id>.c. */
static const QfStepInfo *const steps[] = {
  &qf_step_rt,
  &qf_step_stress,
  &qf_step_monitor,
  &qf_step_ping,
  &qf_step_bandwidth,
  &qf_step_latency,
  &qf_step_cycle,
  &qf_step_loaded_latency,
  &qf_step_rt_network_load,
  NULL
};

const QfStepInfo *const *
qf_step_list (void)
{
  return steps;
}

const QfStepInfo *
qf_step_lookup (const char *id)
{
  g_return_val_if_fail (id != NULL, NULL);

  for (guint i = 0; steps[i] != NULL; i++)
    if (g_str_equal (steps[i]->id, id))
      return steps[i];
  return NULL;
}

