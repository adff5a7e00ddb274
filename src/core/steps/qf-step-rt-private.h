/* qf-step-rt-private.h — the rt step's figures and parameters, which the real-time test under
 * network load (qf-step-rt-network-load.c) shares: its result is rt's with a "network_load"
 * object (src/core/steps). */
#pragma once

#include "qf-step.h"

extern const QfStepFigure _qf_step_rt_figures[];
extern const QfStepFigure _qf_step_rt_params[];
