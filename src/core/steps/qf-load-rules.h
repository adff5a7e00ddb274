/* qf-load-rules.h — the procedure's five rules for a PC under stress (src/core).
 *
 * The procedure has no numbers for the stress test, only rules a person applies while watching
 * `top` and `iostat -x`. Each rule here reads one figure of the monitor's `summary` (computed by
 * the monitor step from its samples, see docs/session-format.md and qf-step-monitor.c) and
 * compares it with a limit; equal to the limit passes, as everywhere in Qualify:
 *
 *   id              metric (in monitor.summary)   passes when        the procedure's words
 *   iowait          iowait_max_pct                ≤ 30 %             top wa > 30 % → I/O pressure
 *   load            load1_max_per_cpu             ≤ 1.0              load average > CPU count →
 *                                                                    CPU overloaded
 *   disk-util       disk_util_max_pct             ≤ 95 %             %util near 100 % → disk
 *                                                                    saturated ("near" = above 95)
 *   cpu-idle        cpu_idle_min_pct              ≥ 70 %             iostat %idle < 70 % → heavy
 *                                                                    I/O load
 *   await-rising    await_steady_rise_pct         ≤ 50 %             await rising steadily → CPU
 *                                                                    or memory bottleneck
 *
 * Every figure is the worst 1-s sample (maximum or minimum), as a person watching top would react
 * to any refresh; the load average is already a 1-minute average.
 *
 * "Rising steadily" is defined exactly: take one disk's await series over the samples in which
 * that disk completed I/O (n points t_i, a_i). Fit a least-squares line a = a0 + b·t. The rise is
 * steady when all of these hold:
 *   n ≥ 5;  b > 0;  at least 70 % of the n − 1 consecutive steps do not decrease (a_{i+1} ≥ a_i);
 *   the fitted rise b·(t_n − t_1) is at least 1 ms.
 * await_steady_rise_pct is then 100 · b·(t_n − t_1) / max(a0 + b·t_1, 0.1 ms) — the fitted rise as
 * a share of the fitted start value — and 0 when the rise is not steady. Over several disks the
 * largest counts. The summary also carries await_slope_ms_per_s (b) and await_monotone_share of
 * that disk, for the message and the report.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Default limits of the five rules (the table above). */
#define QF_LOAD_RULE_IOWAIT_MAX_PCT        30.0
#define QF_LOAD_RULE_LOAD_PER_CPU_MAX      1.0
#define QF_LOAD_RULE_DISK_UTIL_MAX_PCT     95.0
#define QF_LOAD_RULE_CPU_IDLE_MIN_PCT      70.0
#define QF_LOAD_RULE_AWAIT_RISE_MAX_PCT    50.0

/* The steadiness test of "await rising steadily" (above). */
#define QF_LOAD_RULE_AWAIT_MIN_POINTS      5
#define QF_LOAD_RULE_AWAIT_MONOTONE_SHARE  0.7
#define QF_LOAD_RULE_AWAIT_MIN_RISE_MS     1.0

/* Evaluates the five rules on a monitor object (the `monitor` member of a stress result, or a
 * monitor result itself: anything with a `summary` object). limits may be NULL or hold any of
 * "iowait_max_pct", "load1_max_per_cpu", "disk_util_max_pct", "cpu_idle_min_pct",
 * "await_steady_rise_pct" to override a default limit.
 *
 * Returns a new array with one object per rule, in the order of the table:
 *   {"id": "iowait", "metric": "monitor.summary.iowait_max_pct", "value": 41.5 | null,
 *    "limit": 30, "comparison": "<=", "unit": "%", "ok": false,
 *    "message": "The CPU waited for the disk 41.5 % of the time (limit 30 %): …cause… …fix…"}
 * value is null (and ok true, the message saying so) when the figure is missing, e.g. no disk
 * did any I/O. Messages are translated (gettext) at call time. */
JsonArray *qf_load_rules_evaluate (JsonObject *monitor,
                                   JsonObject *limits);

/* TRUE when every outcome in the array has "ok": true. */
gboolean   qf_load_rules_all_ok   (JsonArray  *outcomes);

/* Computes the await figures described above from the monitor's `samples` array and stores
 * await_steady_rise_pct, await_slope_ms_per_s, await_monotone_share and await_disk in summary.
 * The monitor step calls this; it is public for tests on synthetic series. */
void       qf_load_rules_await_trend (JsonArray  *samples,
                                      JsonObject *summary);

G_END_DECLS
