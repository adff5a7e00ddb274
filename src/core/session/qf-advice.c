/* qf-advice.c — why a criterion failed and what to do, ranked from the evidence the session holds
 * (src/core). See qf-advice.h.
 *
 * A cause is only named when the session shows it (an audit check that is not OK, a finding of
 * the network readiness audit, a measured interface fact, a figure of the result or of the
 * monitor); nothing is guessed from the interface's kind. Causes are ranked by how
 * strongly each one is known to move the measured figure: for scheduling latency the kernel's
 * preemption model first, then deep idle states and frequency scaling, then the rest.
 *
 * When the test recorded the kernel's trace (its result's "latency_causes", qf-step-trace.h),
 * what the trace saw comes first, ranked by its share of the worst spikes' time, and a cause of
 * the configuration is named only when the trace supports it: the preemption model when tasks
 * kept the CPU after the wake-up or the scheduler was slow, idle states and a virtual machine
 * when time passed with no event, CPU isolation when interrupts, softirqs or other tasks took
 * it. */
#include "config.h"

#include <string.h>

#include "qf-advice.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-load-rules.h"
#include "qf-rt-kernel.h"
#include "qf-step.h"
#include "qf-step-trace.h"
#include "qf-verdict.h"

#define MAX_CAUSES 4

typedef struct
{
  char *id;
  char *source;
  char *text;
  char *fix;
  gint  weight;
} Cause;

static void
cause_free (gpointer data)
{
  Cause *cause = data;

  g_free (cause->id);
  g_free (cause->source);
  g_free (cause->text);
  g_free (cause->fix);
  g_free (cause);
}

static void
add_cause (GPtrArray  *causes,
           const char *id,
           const char *source,
           gint        weight,
           char       *text,
           const char *fix)
{
  Cause *cause = g_new0 (Cause, 1);

  cause->id = g_strdup (id);
  cause->source = g_strdup (source);
  cause->text = text;
  cause->fix = g_strdup (fix);
  cause->weight = weight;
  g_ptr_array_add (causes, cause);
}

static gint
compare_causes (gconstpointer a,
                gconstpointer b)
{
  const Cause *ca = *(const Cause **) a;
  const Cause *cb = *(const Cause **) b;

  return cb->weight - ca->weight;
}

/* How strongly an audit finding moves scheduling latency (higher = more likely the cause). */
typedef struct
{
  const char *id;
  gint        weight;
} AuditWeight;

static const AuditWeight rt_weights[] = {
  { "kernel.preempt", 100 },
  { "virtualization", 95 },
  { "cpu.idle_states", 90 },
  { "cmdline.idle", 85 },
  { "cmdline.intel_idle.max_cstate", 84 },
  { "cmdline.processor.max_cstate", 83 },
  { "cpu.governor", 80 },
  { "cpu.smt", 50 },
  { "cmdline.isolcpus", 45 },
  { "cmdline.nohz_full", 40 },
  { "irqbalance", 35 },
  { "cmdline.rcu_nocbs", 30 },
  { "mm.thp", 25 },
  { "clocksource", 25 },
  { "cmdline.irqaffinity", 20 },
  { "sched.rt_runtime", 20 },
  { "swap", 15 },
  { "memory", 10 },
  { "cmdline.mitigations", 10 },
};

static gint
audit_weight (const char *id)
{
  for (guint i = 0; i < G_N_ELEMENTS (rt_weights); i++)
    if (g_str_equal (rt_weights[i].id, id))
      return rt_weights[i].weight;
  return 5;
}

static char *
audit_cause_text (const char *id,
                  const char *title,
                  const char *value)
{
  if (value == NULL)
    value = "?";
  if (g_str_equal (id, "kernel.preempt"))
    return g_strdup_printf (_("the kernel is not PREEMPT_RT (preemption model: %s)"), value);
  if (g_str_equal (id, "virtualization"))
    return g_strdup_printf (_("this PC is a virtual machine (%s): inside a virtual machine every latency figure includes the host’s scheduling"), value);
  if (g_str_equal (id, "cpu.idle_states"))
    return g_strdup_printf (_("deep CPU idle states (C-states) are enabled (%s)"), value);
  if (g_str_equal (id, "cpu.governor"))
    return g_strdup_printf (_("CPU frequency governor: %s"), value);
  if (g_str_equal (id, "cpu.smt"))
    return g_strdup_printf (_("simultaneous multithreading (Hyper-Threading) is %s"), value);
  if (g_str_equal (id, "cmdline.isolcpus"))
    return g_strdup_printf (_("no CPU is reserved for real-time work (isolcpus: %s)"), value);
  if (g_str_equal (id, "irqbalance"))
    return g_strdup_printf (_("irqbalance moves interrupts between CPUs (%s)"), value);
  /* TRANSLATORS: an audit check's title and the value found, e.g. "Clock source: hpet" */
  return g_strdup_printf (_("%s: %s"), title != NULL ? title : id, value);
}

/* How the traced spikes' time was spent, as shares of their total (0…1). */
typedef struct
{
  gboolean traced;          /* the result holds explained spikes */
  gdouble  rt_task;         /* tasks of real-time priority */
  gdouble  other_task;      /* other tasks that kept the CPU after the wake-up */
  gdouble  irq;
  gdouble  softirq;
  gdouble  sched;
  gdouble  unexplained;
} TraceShares;

#define TRACE_SUPPORT 0.10  /* a share that supports a cause */

static void
trace_shares (JsonObject  *result,
              TraceShares *sh)
{
  JsonArray *causes = qf_json_get_array (result, "latency_causes");
  gdouble total = 0;

  memset (sh, 0, sizeof *sh);
  for (guint i = 0; causes != NULL && i < json_array_get_length (causes); i++)
    {
      JsonArray *items = qf_json_get_array (json_array_get_object_element (causes, i), "breakdown");

      for (guint j = 0; items != NULL && j < json_array_get_length (items); j++)
        {
          JsonObject *item = json_array_get_object_element (items, j);
          const char *kind = qf_json_get_string (item, "kind", "");
          const char *policy = qf_json_get_string (item, "policy", "");
          gdouble us = qf_json_get_double (item, "duration_us", 0);

          total += us;
          if (g_str_equal (kind, "task"))
            *(g_str_has_prefix (policy, "SCHED_FIFO") || g_str_has_prefix (policy, "SCHED_RR")
              || g_str_has_prefix (policy, "SCHED_DEADLINE") ? &sh->rt_task : &sh->other_task) += us;
          else if (g_str_equal (kind, "irq"))
            sh->irq += us;
          else if (g_str_equal (kind, "softirq"))
            sh->softirq += us;
          else if (g_str_equal (kind, "sched-delay"))
            sh->sched += us;
          else
            sh->unexplained += us;
        }
    }
  if (total <= 0)
    return;
  sh->traced = TRUE;
  sh->rt_task /= total;
  sh->other_task /= total;
  sh->irq /= total;
  sh->softirq /= total;
  sh->sched /= total;
  sh->unexplained /= total;
}

/* Whether the trace supports a configuration finding as a cause (see the top of the file). */
static gboolean
trace_supports (const char        *id,
                const TraceShares *sh)
{
  static const char *const preemption[] = { "kernel.preempt", NULL };
  static const char *const silent[] = { "virtualization", "cpu.idle_states", "cmdline.idle",
    "cmdline.intel_idle.max_cstate", "cmdline.processor.max_cstate", "cpu.governor",
    "clocksource", "cpu.smt", NULL };
  static const char *const isolation[] = { "cmdline.isolcpus", "cmdline.nohz_full",
    "irqbalance", "cmdline.irqaffinity", "cmdline.rcu_nocbs", NULL };

  if (sh == NULL || !sh->traced)
    return TRUE;
  if (g_strv_contains (preemption, id))
    return sh->other_task + sh->sched >= TRACE_SUPPORT;
  if (g_strv_contains (silent, id))
    return sh->unexplained >= TRACE_SUPPORT;
  if (g_strv_contains (isolation, id))
    return sh->irq + sh->softirq + sh->rt_task + sh->other_task >= TRACE_SUPPORT;
  return FALSE;
}

/* Audit findings that are not OK, as causes (the audit's own advice is the fix); with a trace,
 * only those it supports. */
static void
add_audit_causes (GPtrArray         *causes,
                  JsonObject        *session,
                  gint               bias,
                  const TraceShares *trace)
{
  JsonArray *checks = qf_json_get_array (qf_json_get_object (session, "audit"), "checks");
  gboolean have_preempt = FALSE;
  gboolean idle_states_reported = FALSE;

  /* The idle-state limits on the command line are the fix of "deep idle states", not another
   * cause: name the idle states once. */
  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      const char *status = qf_json_get_string (check, "status", "");
      if (g_str_equal (qf_json_get_string (check, "id", ""), "cpu.idle_states") &&
          (g_str_equal (status, "fail") || g_str_equal (status, "warn")))
        idle_states_reported = TRUE;
    }

  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      const char *id = qf_json_get_string (check, "id", "");
      const char *status = qf_json_get_string (check, "status", "");
      gint weight;

      if (g_str_equal (id, "kernel.preempt"))
        have_preempt = TRUE;
      if (!g_str_equal (status, "fail") && !g_str_equal (status, "warn"))
        continue;
      if (!trace_supports (id, trace))
        continue;
      if (idle_states_reported && (g_str_equal (id, "cmdline.intel_idle.max_cstate") ||
                                   g_str_equal (id, "cmdline.processor.max_cstate") ||
                                   g_str_equal (id, "cmdline.idle")))
        continue;
      weight = audit_weight (id) + (g_str_equal (status, "fail") ? 20 : 0) + bias;
      add_cause (causes, id, "audit", weight,
                 audit_cause_text (id, qf_json_get_string (check, "title", NULL),
                                   qf_json_get_string (check, "value", NULL)),
                 qf_json_get_string (check, "advice", NULL));
    }

  /* Without an audit, the PC identity still says whether the kernel is real-time. */
  if (!have_preempt && trace_supports ("kernel.preempt", trace))
    {
      JsonObject *pc = qf_json_get_object (session, "pc");
      JsonObject *os = pc != NULL ? qf_json_get_object (pc, "os") : NULL;
      JsonNode *rt = pc != NULL ? json_object_get_member (pc, "preempt_rt") : NULL;

      if (rt != NULL && JSON_NODE_HOLDS_VALUE (rt) && !json_node_get_boolean (rt))
        {
          g_autofree char *install = qf_rt_kernel_advice (qf_json_get_string (os, "id", NULL),
                                                          qf_json_get_string (os, "version_id", NULL));
          add_cause (causes, "kernel.preempt", "audit", 120 + bias,
                     audit_cause_text ("kernel.preempt", NULL, qf_json_get_string (pc, "preempt_model", NULL)),
                     install);
        }
    }
}

/* How strongly a network audit finding moves a latency figure and a throughput figure. */
typedef struct
{
  const char *id;
  gint        latency;
  gint        throughput;
} NetWeight;

static const NetWeight net_weights[] = {
  { "duplex", 95, 100 },
  { "wifi-link", 95, 95 },
  { "wifi-power-save", 90, 40 },
  { "eee", 85, 20 },
  { "coalescing", 85, 10 },
  { "irq-affinity", 70, 30 },
  { "gro", 60, 5 },
  { "link-speed", 50, 100 },
  { "mtu", 40, 90 },
  { "ip-method", 20, 20 },
};

static gint
net_weight (const char *id,
            gboolean    throughput)
{
  for (guint i = 0; i < G_N_ELEMENTS (net_weights); i++)
    if (g_str_equal (net_weights[i].id, id))
      return throughput ? net_weights[i].throughput : net_weights[i].latency;
  return 10;
}

/* The fix of a network finding: the audit's advice, then the command (NetworkManager's, which
 * survives a reboot, when it can hold the setting). */
static char *
net_finding_fix (JsonObject *check)
{
  const char *advice = qf_json_get_string (check, "advice", NULL);
  const char *command = qf_json_get_string (check, "fix_nm", NULL);
  g_autoptr(GString) fix = g_string_new (advice);

  if (command == NULL || *command == '\0')
    command = qf_json_get_string (check, "fix", NULL);
  if (command != NULL && *command != '\0')
    {
      g_auto(GStrv) lines = g_strsplit (command, "\n", -1);
      g_autofree char *joined = g_strjoinv ("; ", lines);

      if (fix->len > 0)
        g_string_append_c (fix, ' ');
      /* TRANSLATORS: followed by the exact command(s), e.g. "ethtool --set-eee eth0 eee off" */
      g_string_append_printf (fix, _("Command: %s"), joined);
    }
  return fix->len > 0 ? g_string_free (g_steal_pointer (&fix), FALSE) : NULL;
}

/* The network audit's findings that are not OK, as causes: only what was read from the card,
 * the driver and NetworkManager, never what the interface's kind suggests. */
static void
add_net_audit_causes (GPtrArray  *causes,
                      JsonArray  *checks,
                      gboolean    throughput)
{
  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      const char *id = qf_json_get_string (check, "id", "");
      const char *status = qf_json_get_string (check, "status", "");
      char *fix;

      if (!g_str_equal (status, "fail") && !g_str_equal (status, "warn"))
        continue;
      fix = net_finding_fix (check);
      add_cause (causes, id, "network", net_weight (id, throughput) + (g_str_equal (status, "fail") ? 20 : 0),
                 /* TRANSLATORS: a network check's title and what was found, e.g.
                  * "Energy-Efficient Ethernet: on, active on the link" */
                 g_strdup_printf (_("%s: %s"), qf_json_get_string (check, "title", id),
                                  qf_json_get_string (check, "found", "?")),
                 fix);
      g_free (fix);
    }
}

/* Whether the network audit holds a check of that id, whatever it found. */
static gboolean
net_audit_has (JsonArray  *checks,
               const char *id)
{
  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    if (g_strcmp0 (qf_json_get_string (json_array_get_object_element (checks, i), "id", NULL), id) == 0)
      return TRUE;
  return FALSE;
}

/* What the interface facts measured (speed, signal, USB), for what the audit does not cover:
 * all of it in sessions without an audit. */
static void
add_iface_fact_causes (GPtrArray  *causes,
                       JsonObject *network,
                       JsonArray  *audit,
                       gboolean    throughput)
{
  const char *kind = qf_json_get_string (network, "kind", "unknown");
  gdouble speed = qf_json_get_double (network, "speed_mbps", 0);
  gdouble signal = qf_json_get_double (network, "signal_pct", -1);
  JsonNode *usb = network != NULL ? json_object_get_member (network, "usb") : NULL;

  if (g_str_equal (kind, "wireless") && signal >= 0 && signal < 60 && !net_audit_has (audit, "wifi-link"))
    add_cause (causes, "wifi-signal", "network", 95,
               g_strdup_printf (_("the Wi-Fi signal is weak (%.0f %%)"), signal),
               _("Move the access point closer or remove obstacles; aim for a signal above 60 %."));
  if (usb != NULL && JSON_NODE_HOLDS_VALUE (usb) && json_node_get_boolean (usb))
    add_cause (causes, "usb-adapter", "network", 80,
               g_strdup (_("the network adapter is on USB, which adds latency and limits throughput")),
               _("Use an Ethernet port on the mainboard or a PCIe network card."));
  if (!g_str_equal (kind, "wireless") && !g_str_equal (kind, "loopback") && speed > 0 && speed < 1000
      && !net_audit_has (audit, "link-speed"))
    add_cause (causes, "link-speed", "network", throughput ? 100 : 50,
               g_strdup_printf (_("the link runs at %.0f Mbit/s, below 1 Gbit/s"), speed),
               _("Check the cable (Cat 5e or better) and the switch port; the link should come up at 1000 Mbit/s."));
}

/* Facts of the chosen interface and peer that explain poor network figures: the network audit's
 * findings when the session recorded one, the interface facts, and the result's own figures. */
static void
add_network_causes (GPtrArray  *causes,
                    JsonObject *session,
                    gboolean    throughput,
                    JsonObject *result)
{
  JsonObject *network = qf_json_get_object (session, "network");
  JsonArray *audit = qf_json_get_array (qf_json_get_object (session, "network_audit"), "checks");
  const char *peer_kind = qf_json_get_string (qf_json_get_object (session, "peer"), "kind", "none");
  gdouble loss = qf_json_get_double (result, "loss_pct", 0);
  gdouble retransmits = qf_json_get_double (result, "retransmits", 0);

  if (g_str_equal (peer_kind, "builtin"))
    add_cause (causes, "builtin-peer", "network", 60,
               g_strdup (_("the peer was this PC itself (built-in peer on loopback), so the figure shows how fast this PC handles network traffic, not the link")),
               _("Measure against the helper machine (qualify-cli serve on it, then --peer ADDRESS) for the link's figures."));
  if (audit != NULL)
    add_net_audit_causes (causes, audit, throughput);
  add_iface_fact_causes (causes, network, audit, throughput);
  if (loss > 0)
    add_cause (causes, "packet-loss", "result", 90,
               g_strdup_printf (_("%.1f %% of the packets were lost"), loss),
               _("Check the cable, connectors and switch; on Wi-Fi, the signal and channel congestion."));
  if (throughput && retransmits > 0)
    add_cause (causes, "retransmits", "result", 55,
               g_strdup_printf (_("TCP had to resend data %.0f times"), retransmits),
               _("Retransmissions point at a lossy link: check the cable, switch and duplex settings."));
}

static void
add_rt_result_causes (GPtrArray  *causes,
                      JsonObject *result)
{
  JsonNode *dma = result != NULL ? json_object_get_member (result, "dma_latency_held") : NULL;
  const char *policy = qf_json_get_string (result, "policy", NULL);

  if (dma != NULL && JSON_NODE_HOLDS_VALUE (dma) && json_node_get_value_type (dma) == G_TYPE_BOOLEAN &&
      !json_node_get_boolean (dma))
    add_cause (causes, "dma-latency", "result", 75,
               g_strdup (_("the test could not keep the CPUs out of deep idle states (/dev/cpu_dma_latency was not writable)")),
               _("Run the test as root, or disable deep C-states in the BIOS or with intel_idle.max_cstate=1."));
  if (policy != NULL && !g_str_equal (policy, "SCHED_FIFO") && !g_str_equal (policy, "fifo"))
    add_cause (causes, "no-rt-priority", "result", 130,
               g_strdup_printf (_("the test ran without real-time priority (policy %s)"), policy),
               _("Run as root, or allow real-time priority through rtkit or limits.conf (rtprio 99)."));
}

/* What the stress test's monitor saw, for latency figures measured on a loaded PC. */
static void
add_monitor_causes (GPtrArray  *causes,
                    JsonObject *session)
{
  JsonArray *steps = qf_json_get_array (session, "steps");

  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      JsonObject *summary;
      gdouble load;

      if (g_strcmp0 (qf_json_get_string (step, "status", NULL), "done") != 0)
        continue;
      summary = qf_json_get_object (qf_json_get_object (qf_json_get_object (step, "result"), "monitor"), "summary");
      if (summary == NULL)
        continue;
      load = qf_json_get_double (summary, "load1_max_per_cpu", 0);
      if (load > QF_LOAD_RULE_LOAD_PER_CPU_MAX)
        add_cause (causes, "monitor-load", "monitor", 30,
                   g_strdup_printf (_("under load the CPUs were overloaded (load average %.1f per CPU)"), load),
                   _("Stop background services that compete with the controller, or use a PC with more cores."));
    }
}

/* The message qf-load-rules gives for the rule judged by metric. */
static char *
stress_rule_message (JsonObject *result,
                     const char *metric)
{
  JsonObject *monitor = qf_json_get_object (result, "monitor");
  g_autoptr(JsonArray) outcomes = NULL;
  const char *leaf = strrchr (metric, '.');

  if (result == NULL)
    return NULL;
  outcomes = qf_load_rules_evaluate (monitor != NULL ? monitor : result, NULL);
  leaf = leaf != NULL ? leaf + 1 : metric;
  for (guint i = 0; outcomes != NULL && i < json_array_get_length (outcomes); i++)
    {
      JsonObject *outcome = json_array_get_object_element (outcomes, i);
      if (g_str_has_suffix (qf_json_get_string (outcome, "metric", ""), leaf))
        return g_strdup (qf_json_get_string (outcome, "message", NULL));
    }
  return NULL;
}

static char *
summary_sentence (JsonObject *verdict,
                  const char *title)
{
  const char *label = qf_json_get_string (verdict, "label", "");
  const char *unit = qf_json_get_string (verdict, "unit", "");
  const char *comparison = qf_json_get_string (verdict, "comparison", "<=");
  const char *status = qf_json_get_string (verdict, "verdict", "");
  g_autofree char *limit = qf_verdict_format_value (qf_json_get_double (verdict, "limit", 0), unit);
  g_autofree char *measured = NULL;
  const char *translated_label = *label != '\0' ? _(label) : label;

  if (g_str_equal (status, "invalid"))
    /* TRANSLATORS: "Real-time performance: the result is not valid: measured without …" */
    return g_strdup_printf (_("%s: the result cannot be judged: %s"), title,
                            qf_json_get_string (verdict, "reason", ""));
  measured = qf_verdict_format_value (qf_json_get_double (verdict, "measured", 0), unit);
  if (g_str_equal (comparison, "<="))
    return g_strdup_printf (g_str_equal (status, "warn")
                              ? _("%s %s is above its limit of %s (a warning: it does not decide the verdict).")
                              : _("%s %s is above the limit of %s."),
                            translated_label, measured, limit);
  return g_strdup_printf (g_str_equal (status, "warn")
                            ? _("%s %s is below its limit of %s (a warning: it does not decide the verdict).")
                            : _("%s %s is below the limit of %s."),
                          translated_label, measured, limit);
}

/* One thing the trace saw, summed over the worst spikes. */
typedef struct
{
  JsonObject *item;       /* borrowed: its largest occurrence */
  gint64      cpu;
  gdouble     us;
} TraceCulprit;

static TraceCulprit *
find_culprit (GPtrArray  *culprits,
              JsonObject *item)
{
  for (guint i = 0; i < culprits->len; i++)
    {
      TraceCulprit *c = g_ptr_array_index (culprits, i);

      if (g_strcmp0 (qf_json_get_string (c->item, "kind", ""), qf_json_get_string (item, "kind", "")) == 0
          && g_strcmp0 (qf_json_get_string (c->item, "name", ""), qf_json_get_string (item, "name", "")) == 0
          && qf_json_get_double (c->item, "pid", -1) == qf_json_get_double (item, "pid", -1))
        return c;
    }
  return NULL;
}

static gint
compare_culprits (gconstpointer a,
                  gconstpointer b)
{
  const TraceCulprit *x = *(TraceCulprit *const *) a, *y = *(TraceCulprit *const *) b;

  return x->us > y->us ? -1 : x->us < y->us ? 1 : 0;
}

/* What the trace saw take the worst spikes' time, each with its share, first among the causes
 * (weight 150 + its share in %): at most three, each with at least TRACE_SUPPORT. */
static void
add_trace_causes (GPtrArray  *causes,
                  JsonObject *result)
{
  JsonArray *spikes = qf_json_get_array (result, "latency_causes");
  g_autoptr(GPtrArray) culprits = g_ptr_array_new_with_free_func (g_free);
  guint n = spikes != NULL ? json_array_get_length (spikes) : 0;
  gdouble total = 0;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *spike = json_array_get_object_element (spikes, i);
      JsonArray *items = qf_json_get_array (spike, "breakdown");

      for (guint j = 0; items != NULL && j < json_array_get_length (items); j++)
        {
          JsonObject *item = json_array_get_object_element (items, j);
          TraceCulprit *c = find_culprit (culprits, item);
          gdouble us = qf_json_get_double (item, "duration_us", 0);

          if (c == NULL)
            g_ptr_array_add (culprits, c = g_new0 (TraceCulprit, 1));
          if (c->item == NULL || us > qf_json_get_double (c->item, "duration_us", 0))
            {
              c->item = item;
              c->cpu = (gint64) qf_json_get_double (spike, "cpu", 0);
            }
          c->us += us;
          total += us;
        }
    }
  g_ptr_array_sort (culprits, compare_culprits);
  for (guint i = 0; i < MIN (culprits->len, 3) && total > 0; i++)
    {
      TraceCulprit *c = g_ptr_array_index (culprits, i);
      g_autofree char *label = qf_step_trace_item_label (c->item, NULL, NULL);
      g_autofree char *fix = qf_step_trace_item_fix (c->item, c->cpu, NULL, NULL);
      g_autofree char *id = g_strdup_printf ("trace.%s", qf_json_get_string (c->item, "kind", ""));

      if (c->us / total < TRACE_SUPPORT)
        break;
      add_cause (causes, id, "trace", 150 + (gint) (100 * c->us / total),
                 /* TRANSLATORS: "cc1 (pid 4242, SCHED_OTHER) took 83 % of the 8 worst delays
                  * (kernel trace)" */
                 g_strdup_printf (qf_ngettext ("%s took %.0f %% of the worst delay (kernel trace)",
                                               "%s took %.0f %% of the %u worst delays (kernel trace)",
                                               n), label, 100 * c->us / total, n),
                 fix);
    }
}

static JsonObject *
find_step (JsonObject *session,
           const char *key)
{
  JsonArray *steps = qf_json_get_array (session, "steps");

  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      if (g_strcmp0 (qf_json_get_string (step, "key", NULL), key) == 0)
        return step;
    }
  return NULL;
}

/* Adds what can explain a verdict of this step, by what the step measures (QfStepInfo); a
 * load rule that explains itself is returned instead (newly allocated), or NULL. */
static char *
add_step_causes (GPtrArray  *causes,
                 JsonObject *session,
                 JsonObject *step,
                 const char *test,
                 const char *status,
                 const char *metric)
{
  const QfStepInfo *info = qf_step_lookup (test);
  QfStepMeasures measures = info != NULL ? info->measures : QF_STEP_MEASURES_NET_LATENCY;
  JsonObject *result = qf_json_get_object (step, "result");
  char *rule_message = NULL;
  char *own_cause = NULL, *own_fix = NULL;

  if (info != NULL && info->explain != NULL && result != NULL && !g_str_equal (status, "invalid")
      && info->explain (result, &own_cause, &own_fix))
    {
      add_cause (causes, info->id, "measured", 200, own_cause, own_fix);
      g_free (own_fix);
    }
  if (g_str_equal (status, "invalid"))
    {
      if (measures == QF_STEP_MEASURES_WAKEUP)
        add_rt_result_causes (causes, result);
    }
  else if (measures == QF_STEP_MEASURES_WAKEUP)
    {
      JsonObject *params = qf_json_get_object (step, "params");
      JsonNode *under_load = params != NULL ? json_object_get_member (params, "under_load") : NULL;
      TraceShares trace;

      trace_shares (result, &trace);
      add_trace_causes (causes, result);
      add_audit_causes (causes, session, 0, &trace);
      add_rt_result_causes (causes, result);
      /* The stress test's figures explain latency only when it was measured under that load. */
      if (under_load != NULL && JSON_NODE_HOLDS_VALUE (under_load) && json_node_get_value_type (under_load) == G_TYPE_BOOLEAN &&
          json_node_get_boolean (under_load))
        add_monitor_causes (causes, session);
    }
  else if (measures == QF_STEP_MEASURES_LOAD)
    {
      /* The stress rules explain themselves (cause and fix) in qf-load-rules. */
      rule_message = stress_rule_message (result, metric);
      if (rule_message == NULL)
        add_monitor_causes (causes, session);
    }
  else
    {
      TraceShares trace;

      trace_shares (result, &trace);
      add_trace_causes (causes, result);
      add_network_causes (causes, session, measures == QF_STEP_MEASURES_THROUGHPUT, result);
      /* A test unknown to this build gets the network's causes only, as it always did. */
      if (info != NULL && measures == QF_STEP_MEASURES_NET_LATENCY)
        add_audit_causes (causes, session, -60, &trace);
    }
  return rule_message;
}

static JsonObject *
explain (JsonObject *session,
         JsonObject *verdict)
{
  const char *key = qf_json_get_string (verdict, "key", "");
  const char *metric = qf_json_get_string (verdict, "metric", "");
  const char *status = qf_json_get_string (verdict, "verdict", "");
  JsonObject *step = find_step (session, key);
  const char *test = qf_json_get_string (step, "test", key);
  const char *title = qf_json_get_string (step, "title", key);
  g_autoptr(GPtrArray) causes = g_ptr_array_new_with_free_func (cause_free);
  g_autofree char *summary = summary_sentence (verdict, title);
  g_autoptr(GString) fix = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (summary);
  JsonObject *advice = json_object_new ();
  JsonArray *cause_array = json_array_new ();
  g_autofree char *rule_message = NULL;

  rule_message = add_step_causes (causes, session, step, test, status, metric);
  g_ptr_array_sort (causes, compare_causes);
  if (causes->len > MAX_CAUSES)
    g_ptr_array_set_size (causes, MAX_CAUSES);

  if (rule_message != NULL)
    {
      g_string_append_c (text, ' ');
      g_string_append (text, rule_message);
    }
  if (causes->len > 0)
    {
      g_string_append_c (text, ' ');
      g_string_append (text, _("Likely causes:"));
      for (guint i = 0; i < causes->len; i++)
        {
          Cause *cause = g_ptr_array_index (causes, i);
          JsonObject *c = json_object_new ();

          json_object_set_string_member (c, "id", cause->id);
          json_object_set_string_member (c, "source", cause->source);
          json_object_set_string_member (c, "text", cause->text);
          json_array_add_object_element (cause_array, c);
          g_string_append_printf (text, "%s %s", i == 0 ? "" : ";", cause->text);
          /* The fixes of the two most likely causes. */
          if (i < 2 && cause->fix != NULL && strstr (fix->str, cause->fix) == NULL)
            {
              if (fix->len > 0)
                g_string_append_c (fix, ' ');
              g_string_append (fix, cause->fix);
            }
        }
      g_string_append_c (text, '.');
    }
  if (fix->len == 0 && g_str_equal (status, "invalid"))
    g_string_append (fix, _("Repeat the test once the reason above is removed."));
  if (fix->len > 0)
    {
      g_string_append_c (text, ' ');
      /* TRANSLATORS: followed by one or two sentences saying what to change */
      g_string_append_printf (text, _("Fix: %s"), fix->str);
    }

  json_object_set_string_member (advice, "key", key);
  json_object_set_string_member (advice, "metric", metric);
  json_object_set_string_member (advice, "verdict", status);
  json_object_set_string_member (advice, "summary", summary);
  json_object_set_array_member (advice, "causes", cause_array);
  if (fix->len > 0)
    json_object_set_string_member (advice, "fix", fix->str);
  else
    json_object_set_null_member (advice, "fix");
  json_object_set_string_member (advice, "text", text->str);
  return advice;
}

JsonArray *
qf_advice_build (JsonObject *session)
{
  static const char *const order[] = { "fail", "invalid", "warn" };
  JsonArray *advice = json_array_new ();
  JsonArray *criteria;

  g_return_val_if_fail (session != NULL, advice);

  criteria = qf_json_get_array (qf_json_get_object (session, "verdict"), "criteria");
  for (guint o = 0; o < G_N_ELEMENTS (order); o++)
    for (guint i = 0; criteria != NULL && i < json_array_get_length (criteria); i++)
      {
        JsonObject *verdict = json_array_get_object_element (criteria, i);
        if (g_strcmp0 (qf_json_get_string (verdict, "verdict", NULL), order[o]) == 0)
          json_array_add_object_element (advice, explain (session, verdict));
      }
  return advice;
}
