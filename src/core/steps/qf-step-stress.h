/* qf-step-stress.h — running a test under load (src/core).
 *
 * The "stress" step itself is qf_step_stress (qf-steps.h). This header is for other steps that
 * measure while the stressors run, such as `rt --under-load`: start the load and the monitor,
 * run the measurement, finish the load and attach the returned object as "under_load":
 *   {"workers": {cpu, io, vm, hdd}, "vm_bytes", "vm_hang_s", "hdd_bytes", "hdd_dir", "hdd_mode",
 *    "duration_s", "bytes_written", "complete": true | false, "error": null | "why the load ended
 *    early", "monitor": {"interval_s", "cpu_count", "summary"}, "rules": [...]}
 *
 * Load parameters (the stress step's, without timeout_s): cpu, io, vm, vm_bytes (bytes or "1G"),
 * vm_hang_s, hdd, hdd_bytes, dir, monitor_interval_s, mem_margin_pct, disk_margin_pct.
 *
 * Threads: start and finish on the same thread. The workers are forked and watched (memory
 * floor, failures) by a helper thread of their own, which lives until finish, so the measuring
 * thread needs to do nothing meanwhile.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _QfUnderLoad QfUnderLoad;

/* Checks the parameters and safety limits (QF_STEP_ERROR_INVALID_PARAMS / _RESOURCE), starts the
 * monitor and the stressors, and returns once every worker runs. */
QfUnderLoad *qf_under_load_start  (JsonObject   *params,
                                   GError      **error);
/* Stops and reaps the workers and the monitor; returns the "under_load" object. Frees load. */
JsonObject  *qf_under_load_finish (QfUnderLoad  *load);

/* TRUE when params asks for any load (cpu, io, vm or hdd above 0). */
gboolean     qf_under_load_wanted (JsonObject   *params);

G_END_DECLS
