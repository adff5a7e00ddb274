/* qf-step-monitor.h — the monitor's JSON, shared by the monitor, stress and rt-under-load steps
 * (src/core).
 *
 * A monitor object is {"interval_s", "cpu_count", "samples": [...], "summary": {...}}:
 *   sample:  t_s, elapsed_s, cpu_busy_pct, cpu_iowait_pct, cpu_idle_pct, cpu {us sy ni id wa hi
 *            si st}, cpus_busy_pct [..], cpus [{us … st} per CPU], load1, load5, load15, mem_total_kb, mem_free_kb,
 *            mem_available_kb, mem_used_kb, buff_cache_kb, swap_total_kb, swap_used_kb,
 *            disks [{name, util_pct, r_kbps, w_kbps, await_ms, r_await_ms, w_await_ms, r_per_s,
 *            w_per_s, aqu_sz, ios}], nets [{name, rx_kBps, tx_kBps, rx_pkts_per_s,
 *            tx_pkts_per_s}], top_cpu / top_mem [{pid, comm, cpu_pct, rss_kb, mem_pct}]
 *   summary: samples, duration_s, cpu_count, cpu_busy_avg_pct, cpu_busy_max_pct, iowait_avg_pct,
 *            iowait_max_pct, cpu_idle_avg_pct, cpu_idle_min_pct, load1_max, load1_max_per_cpu,
 *            mem_available_min_kb, disk_util_max_pct, disk_util_max_name, await_max_ms and the
 *            await trend (qf-load-rules.h). A figure with no sample behind it is null.
 * Averages are weighted by each sample's elapsed time; maxima and minima are over samples.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "qf-monitor.h"
#include "qf-step.h"

G_BEGIN_DECLS

/* The monitor object of a stopped monitor. */
JsonObject *qf_monitor_to_json       (QfMonitor  *monitor);

/* The summary over the samples with from_s < t_s ≤ to_s (for the steps of a stepped load). */
JsonObject *qf_monitor_json_summary  (JsonArray  *samples,
                                      guint       cpu_count,
                                      gdouble     from_s,
                                      gdouble     to_s);

/* The newest sample's figures as the step's live object {cpu_busy_pct, cpu_iowait_pct, load1,
 * mem_available_kb, disk_util_max_pct}. Any thread. */
JsonObject *qf_monitor_live_json     (QfMonitor  *monitor);

/* When the monitor has a new sample since *pushed, pushes it to ctx->samples (channels: 0 CPU
 * busy, 1 I/O wait, 2 highest disk %util in milli-percent; 3 load1 × 1000) and updates *pushed. */
void        qf_monitor_push_live     (QfStepContext *ctx,
                                      QfMonitor     *monitor,
                                      guint         *pushed);

/* The monitor's percentages that the load tests' criteria judge, drawn as limit lines on the
 * live load plot (stress and monitor): the same key paths as in the profiles. */
extern const char *const qf_step_load_limit_metrics[];

/* The figures of a finished load test (stress, monitor): QfStepInfo.charts. */
extern const QfStepChart qf_step_load_charts[];

G_END_DECLS
