/* qf-audit.h — the real-time readiness audit of a PC (src/core).
 *
 * Reads /proc and /sys below a root directory ("/" for this PC; tests use
 * tests/core/fixtures/<pc>/) and returns one QfAuditCheck per fact that decides how well this PC
 * can run a robot controller: preemption model, kernel command line, CPU, whether it is a
 * virtual machine (the CPU's hypervisor flag, the DMI vendor and product), frequency governor,
 * idle states, RT throttling, transparent huge pages, clocksource, irqbalance, swap and memory.
 *
 * Stable API for the UI, the advice page and the report:
 *
 *   g_autoptr(GPtrArray) checks = qf_audit_run ("/", &error);   // element-type QfAuditCheck*
 *   for (guint i = 0; i < checks->len; i++) {
 *     QfAuditCheck *c = g_ptr_array_index (checks, i);
 *     c->id      stable machine id, never translated, e.g. "kernel.preempt", "cpu.governor"
 *     c->title   short label for a list row, translated, e.g. "Preemption model"
 *     c->value   what was found, e.g. "PREEMPT_DYNAMIC (none)", "powersave on 4 of 4 CPUs"
 *     c->status  QF_AUDIT_OK / WARN / FAIL / UNKNOWN (UNKNOWN: the fact could not be read)
 *     c->advice  one or two sentences of plain-language advice, translated (never NULL; says
 *                why it matters when the status is OK too)
 *   }
 *   JsonArray *json = qf_audit_to_json (checks);  // [{id, title, value, status, advice}, …]
 *                                                   // status as "ok"/"warn"/"fail"/"unknown"
 *
 * Check ids, in the order returned:
 *   kernel.release, kernel.preempt,
 *   cmdline.isolcpus, cmdline.nohz_full, cmdline.rcu_nocbs, cmdline.irqaffinity, cmdline.idle,
 *   cmdline.intel_idle.max_cstate, cmdline.processor.max_cstate, cmdline.mitigations,
 *   cpu.model, cpu.cores, cpu.smt, virtualization, cpu.governor, cpu.idle_states,
 *   sched.rt_runtime, mm.thp, clocksource, irqbalance, swap, memory
 *
 * qf_audit_run() fails (NULL + error) only when the root holds no readable kernel release, i.e.
 * it is not a /proc tree at all; every other missing file gives that check status UNKNOWN.
 * It reads small files only and may be called from any thread (it touches no global state).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  QF_AUDIT_OK,
  QF_AUDIT_WARN,
  QF_AUDIT_FAIL,
  QF_AUDIT_UNKNOWN,
} QfAuditStatus;

typedef struct
{
  char          *id;
  char          *title;
  char          *value;
  QfAuditStatus  status;
  char          *advice;
} QfAuditCheck;

GPtrArray    *qf_audit_run              (const char        *root,
                                         GError           **error);
JsonArray    *qf_audit_to_json          (GPtrArray         *checks);

/* Whether the PC below root reads as a virtual machine, as the "virtualization" check finds it
 * (the CPU's hypervisor flag, or a virtual machine's name in the DMI vendor or product). */
gboolean      qf_audit_is_virtual_machine (const char      *root);

/* The check with this id, or NULL. */
QfAuditCheck *qf_audit_find             (GPtrArray         *checks,
                                         const char        *id);
/* "ok", "warn", "fail", "unknown". */
const char   *qf_audit_status_to_string (QfAuditStatus      status);
/* The worst status among checks (FAIL > WARN > UNKNOWN > OK). */
QfAuditStatus qf_audit_worst            (GPtrArray         *checks);

void          qf_audit_check_free       (QfAuditCheck      *check);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfAuditCheck, qf_audit_check_free)

G_END_DECLS
