/* qf-step-trace-text.c — a spike told in one sentence with its fix (src/core/steps); see
 * qf-step-trace.h.
 *
 * Works on the stored "latency_causes" element alone, so a session is told again in another
 * language (the report's) exactly as the run told it in its own. The largest item of the
 * breakdown is the spike's cause; the sentence says what it was and how long it took, the fix
 * what a person changes.
 */
#include "config.h"

#include <string.h>

#include "qf-i18n.h"
#include "qf-step-trace.h"

#define T(msgid) translate (tr, tr_data, msgid)

static const char *translate (QfStepTranslate tr, gpointer tr_data, const char *msgid) G_GNUC_FORMAT (3);

static const char *
translate (QfStepTranslate tr,
           gpointer        tr_data,
           const char     *msgid)
{
  return tr != NULL ? tr (msgid, tr_data) : _(msgid);
}

char *
qf_step_trace_format_us (gdouble us)
{
  if (us < 10)
    return g_strdup_printf ("%.1f µs", us);
  if (us < 1000)
    return g_strdup_printf ("%.0f µs", us);
  if (us < 100000)
    return g_strdup_printf ("%.1f ms", us / 1000);
  return g_strdup_printf ("%.0f ms", us / 1000);
}

static const char *
str (JsonObject *o,
     const char *key)
{
  return o != NULL ? json_object_get_string_member_with_default (o, key, "") : "";
}

/* "backup.sh (pid 4242, SCHED_FIFO 99)" */
static char *
task_label (JsonObject *item)
{
  const char *policy = str (item, "policy");
  gint64 prio = json_object_get_int_member_with_default (item, "priority", 0);

  if (g_str_has_prefix (policy, "SCHED_FIFO") || g_str_has_prefix (policy, "SCHED_RR"))
    return g_strdup_printf ("%s (pid %lld, %s %lld)", str (item, "name"),
                            (long long) json_object_get_int_member_with_default (item, "pid", 0),
                            policy, (long long) prio);
  return g_strdup_printf ("%s (pid %lld, %s)", str (item, "name"),
                          (long long) json_object_get_int_member_with_default (item, "pid", 0),
                          policy);
}

char *
qf_step_trace_item_label (JsonObject      *item,
                          QfStepTranslate  tr,
                          gpointer         tr_data)
{
  const char *kind = str (item, "kind"), *name = str (item, "name");

  if (g_str_equal (kind, "task"))
    return task_label (item);
  if (g_str_equal (kind, "irq"))
    return g_str_equal (name, "local timer") ? g_strdup (T (N_("timer interrupt")))
                                             : g_strdup_printf (T (N_("interrupt %s")), name);
  if (g_str_equal (kind, "softirq"))
    return g_strdup_printf (T (N_("softirq %s")), name);
  if (g_str_equal (kind, "sched-delay"))
    return g_strdup (T (N_("scheduling delay")));
  if (g_str_equal (name, "idle"))
    return g_strdup (T (N_("unexplained, CPU idle")));
  if (g_str_equal (name, "network"))
    return g_strdup (T (N_("before the reply reached this PC")));
  return g_strdup (T (N_("unexplained, no event")));
}

/* What a softirq does, in a person's words. */
static const char *
softirq_work (const char     *vec,
              QfStepTranslate tr,
              gpointer        tr_data)
{
  if (g_str_equal (vec, "NET_RX"))
    return T (N_("network receive processing"));
  if (g_str_equal (vec, "NET_TX"))
    return T (N_("network transmit processing"));
  if (g_str_equal (vec, "BLOCK"))
    return T (N_("disk I/O completion"));
  if (g_str_equal (vec, "TIMER"))
    return T (N_("timer callbacks"));
  if (g_str_equal (vec, "RCU"))
    return T (N_("RCU callbacks"));
  if (g_str_equal (vec, "SCHED"))
    return T (N_("scheduler load balancing"));
  return T (N_("deferred interrupt work"));
}

static gboolean
is_rt_policy (const char *policy)
{
  return g_str_has_prefix (policy, "SCHED_FIFO") || g_str_has_prefix (policy, "SCHED_RR")
         || g_str_has_prefix (policy, "SCHED_DEADLINE");
}

/* What the largest item did with the time: "2.8 ms of it was spent running …". */
static void
tell_body (GString        *s,
           JsonObject     *item,
           const char     *share,
           QfStepTranslate tr,
           gpointer        tr_data)
{
  const char *kind = str (item, "kind"), *name = str (item, "name");
  g_autofree char *label = qf_step_trace_item_label (item, tr, tr_data);

  if (g_str_equal (kind, "softirq"))
    g_string_append_printf (s, T (N_("%s of it was spent in the kernel’s %s (softirq %s).")),
                            share, softirq_work (name, tr, tr_data), name);
  else if (g_str_equal (kind, "task") && is_rt_policy (str (item, "policy")))
    g_string_append_printf (s, T (N_("%s of it was spent running %s, a program with real-time "
                                     "priority that the measurement cannot preempt.")),
                            share, label);
  else if (g_str_equal (kind, "task"))
    g_string_append_printf (s, T (N_("%s of it was spent in %s, which kept the CPU after the "
                                     "measurement woke: it was in a part of the kernel that "
                                     "cannot be preempted.")), share, label);
  else if (g_str_equal (kind, "irq") && g_str_equal (name, "local timer"))
    g_string_append_printf (s, T (N_("%s of it was spent in the timer interrupt running other "
                                     "timers (the scheduler tick and its work).")), share);
  else if (g_str_equal (kind, "irq"))
    g_string_append_printf (s, T (N_("%s of it was spent in the %s handler.")), share, label);
  else if (g_str_equal (kind, "sched-delay"))
    g_string_append_printf (s, T (N_("%s of it was spent by the scheduler switching to the "
                                     "measurement after it woke.")), share);
  else if (g_str_equal (name, "network"))
    g_string_append_printf (s, T (N_("%s of it passed before the reply reached this PC: on the "
                                     "cable, the switch or the helper machine.")), share);
  else if (g_str_equal (name, "idle"))
    g_string_append_printf (s, T (N_("%s of it passed with no event in the trace while the CPU "
                                     "was idle: waking from a deep idle state, the firmware "
                                     "(SMI) or, on a virtual machine, the hypervisor.")), share);
  else
    g_string_append_printf (s, T (N_("%s of it passed with no event in the trace: time taken "
                                     "outside the kernel’s view, by the firmware (SMI) or, on a "
                                     "virtual machine, the hypervisor.")), share);
}

/* The fix of a softirq: where its work comes from. */
static char *
softirq_fix (const char     *vec,
             gint64          cpu,
             QfStepTranslate tr,
             gpointer        tr_data)
{
  if (g_str_equal (vec, "NET_RX") || g_str_equal (vec, "NET_TX"))
    return g_strdup_printf (T (N_("Steer the network card’s interrupts and its receive "
                                  "processing (RPS) away from CPU %lld.")), (long long) cpu);
  if (g_str_equal (vec, "BLOCK"))
    return g_strdup_printf (T (N_("Move the disk’s interrupts away from CPU %lld.")),
                            (long long) cpu);
  if (g_str_equal (vec, "RCU"))
    return g_strdup_printf (T (N_("Boot with rcu_nocbs=%lld on the kernel command line: it "
                                  "moves RCU callbacks off that CPU.")), (long long) cpu);
  return g_strdup_printf (T (N_("Move the interrupts that raise it away from CPU %lld; a "
                                "PREEMPT_RT kernel runs softirqs in threads the measurement can "
                                "preempt.")), (long long) cpu);
}

char *
qf_step_trace_item_fix (JsonObject      *item,
                        gint64           cpu,
                        QfStepTranslate  tr,
                        gpointer         tr_data)
{
  const char *kind = str (item, "kind"), *name = str (item, "name");

  if (g_str_equal (kind, "softirq"))
    return softirq_fix (name, cpu, tr, tr_data);
  if (g_str_equal (kind, "task") && is_rt_policy (str (item, "policy")))
    return g_strdup_printf (T (N_("Lower its priority, or keep it off CPU %lld (taskset, "
                                  "isolcpus).")), (long long) cpu);
  if (g_str_equal (kind, "task"))
    return g_strdup_printf (T (N_("Use a PREEMPT_RT kernel, or keep this program off CPU %lld "
                                  "(isolcpus, taskset).")), (long long) cpu);
  if (g_str_equal (kind, "irq") && g_str_equal (name, "local timer"))
    return g_strdup_printf (T (N_("Boot with nohz_full=%lld on the kernel command line: it "
                                  "stops the tick on that CPU while one task runs.")),
                            (long long) cpu);
  if (g_str_equal (kind, "irq"))
    return g_strdup_printf (T (N_("Move this interrupt to another CPU "
                                  "(/proc/irq/N/smp_affinity_list), or keep interrupts off CPU "
                                  "%lld (irqaffinity=).")), (long long) cpu);
  if (g_str_equal (kind, "sched-delay"))
    return g_strdup (T (N_("A PREEMPT_RT kernel and a CPU reserved for real-time work "
                           "(isolcpus) shorten it.")));
  if (g_str_equal (name, "network"))
    return g_strdup (T (N_("Check the link (the network readiness audit) and the helper "
                           "machine’s own load.")));
  return g_strdup (T (N_("Limit deep idle states (in the BIOS, or processor.max_cstate=1), "
                         "check the BIOS for SMI sources, and qualify the real PC, not a virtual "
                         "machine.")));
}

/* "14:03:07" from the stored ISO time. */
static char *
clock_time (const char *iso)
{
  g_autoptr(GDateTime) at = g_date_time_new_from_iso8601 (iso, NULL);

  return at != NULL ? g_date_time_format (at, "%H:%M:%S") : g_strdup (iso);
}

char *
qf_step_trace_sentence (const QfStepInfo *info,
                        JsonObject       *cause,
                        gboolean          first,
                        QfStepTranslate   tr,
                        gpointer          tr_data)
{
  JsonArray *breakdown = json_object_get_array_member (cause, "breakdown");
  JsonObject *item = breakdown != NULL && json_array_get_length (breakdown) > 0
                       ? json_array_get_object_element (breakdown, 0) : NULL;
  gint64 cpu = json_object_get_int_member_with_default (cause, "cpu", 0);
  g_autofree char *latency = qf_step_trace_format_us (
    json_object_get_double_member_with_default (cause, "latency_us", 0));
  g_autofree char *share = NULL, *fix = NULL, *when = clock_time (str (cause, "at"));
  gboolean round_trip = info != NULL && info->spikes == QF_STEP_SPIKES_ROUND_TRIP;
  gboolean hypervisor = FALSE;
  GString *s = g_string_new (NULL);

  if (round_trip)
    g_string_append_printf (s, first ? T (N_("The slowest round trip, %s at %s:"))
                                     : T (N_("A round trip of %s at %s:")), latency, when);
  else
    g_string_append_printf (s, first ? T (N_("The worst delay, %s on CPU %lld at %s:"))
                                     : T (N_("A delay of %s on CPU %lld at %s:")),
                            latency, (long long) cpu, when);
  if (item == NULL)
    return g_string_free (s, FALSE);
  share = qf_step_trace_format_us (json_object_get_double_member_with_default (item, "duration_us", 0));
  /* On a virtual machine the time no event explains is most likely the host's: say so. */
  hypervisor = json_object_get_boolean_member_with_default (cause, "virtual_machine", FALSE)
               && g_str_equal (str (item, "kind"), "unexplained")
               && !g_str_equal (str (item, "name"), "network");
  g_string_append_c (s, ' ');
  if (hypervisor)
    {
      g_string_append_printf (s, T (N_("%s of it passed with no event in the trace. This PC is a "
                                       "virtual machine: the hypervisor most likely ran "
                                       "something else on this CPU meanwhile (steal time), "
                                       "which the trace inside the machine cannot see.")),
                              share);
      fix = g_strdup (T (N_("Qualify the real PC, not a virtual machine; if this one must run "
                            "real-time work, give each of its virtual CPUs a host CPU of its "
                            "own (CPU pinning).")));
    }
  else
    {
      tell_body (s, item, share, tr, tr_data);
      fix = qf_step_trace_item_fix (item, cpu, tr, tr_data);
    }
  g_string_append_c (s, ' ');
  /* TRANSLATORS: followed by one or two sentences saying what to change */
  g_string_append_printf (s, T (N_("Fix: %s")), fix);
  return g_string_free (s, FALSE);
}
