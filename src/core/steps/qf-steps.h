/* qf-steps.h — the QfStepInfo of every step in this build (src/core/steps): a new step declares
 * its `extern const QfStepInfo qf_step_<id>;` here and adds it to steps[] in qf-steps.c. */
#pragma once

#include "qf-step.h"

extern const QfStepInfo qf_step_rt;
extern const QfStepInfo qf_step_stress;
extern const QfStepInfo qf_step_monitor;
extern const QfStepInfo qf_step_ping;
extern const QfStepInfo qf_step_bandwidth;
extern const QfStepInfo qf_step_latency;
extern const QfStepInfo qf_step_cycle;
extern const QfStepInfo qf_step_loaded_latency;
extern const QfStepInfo qf_step_rt_network_load;
