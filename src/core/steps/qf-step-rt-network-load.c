/* qf-step-rt-network-load.c — the "rt-network-load" step: the real-time test on this PC while the
 * bandwidth test saturates the link to the helper in both directions (src/core). The network
 * card's interrupts and softirqs then compete with the measuring thread, as a camera stream or
 * a file copy makes them compete in the field.
 *
 * Params: rt's (qf-step-rt.c: threads, cpus, priority, interval_us, loops, duration_s, trace…)
 * and the load's: host (default: the context's peer), iface, port (the helper's bandwidth port,
 * 5201), load ("tcp" or "udp:RATE"), load_streams, settle_s (qf-step-netload.h), token_file.
 * Result: rt's result (`qualify-cli rt --json`) with "network_load": what the load moved and
 * whether it ran to the end. A stop request is honoured as rt's, then the load stops within 1 s.
 */
#include "config.h"

#include "qf-json.h"
#include "qf-step-net-private.h"
#include "qf-step-netload.h"
#include "qf-step-rt-private.h"
#include "qf-steps.h"

static gboolean
rt_network_load_run (JsonObject     *params,
                     QfStepContext  *ctx,
                     JsonObject    **result,
                     GError        **error)
{
  g_autoptr(GBytes) token = NULL;
  QfStepNetLoad load;
  QfNetLoad *running;
  JsonObject *network_load;
  GError *load_error = NULL;
  const char *host;
  gboolean ok;

  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;

  if (!_qf_step_net_host (params, ctx, &host, error)
      || !_qf_step_net_token (params, ctx, &token, error)
      || !_qf_step_netload_config (params, ctx, host, "port", token, &load, error))
    return FALSE;
  running = _qf_step_netload_start (&load, qf_step_rt.estimate_duration (params), ctx, error);
  if (running == NULL)
    {
      _qf_step_netload_clear (&load);
      return FALSE;
    }
  ok = qf_step_rt.run (params, ctx, result, error);
  network_load = _qf_step_netload_stop (&load, running, &load_error);
  _qf_step_netload_clear (&load);
  if (*result == NULL)
    {
      json_object_unref (network_load);
      g_clear_error (&load_error);
      return ok;
    }
  json_object_set_string_member (*result, "test", "rt-network-load");
  json_object_set_object_member (*result, "network_load", network_load);
  if (ok && load_error != NULL)
    {
      g_propagate_prefixed_error (error, load_error,
                                  _("The figures were not measured under load to the end: the "
                                    "load stopped: "));
      return FALSE;
    }
  g_clear_error (&load_error);
  return ok;
}

/* Under network load the card's interrupts and softirqs are the suspects: where they run is what
 * to change (the network audit reads their affinity on the page of the interface). */
static gboolean
rt_network_load_explain (JsonObject  *result,
                         char       **cause,
                         char       **fix)
{
  JsonObject *load = qf_json_get_object (result, "network_load");

  if (load == NULL)
    return FALSE;
  *cause = g_strdup_printf (_("the network card's interrupts and softirqs competed with the measuring thread while the load moved %.0f Mbit/s to the helper and %.0f Mbit/s back"),
                            qf_json_get_double (load, "up_mbps", 0),
                            qf_json_get_double (load, "down_mbps", 0));
  *fix = g_strdup (_("Keep the network card's interrupts off the real-time CPU: set their affinity to the other CPUs (echo MASK > /proc/irq/N/smp_affinity_list for each of the card's interrupts in /proc/interrupts, or irqaffinity= beside isolcpus= on the kernel command line) and stop irqbalance from moving them back; on a PREEMPT_RT kernel, or one booted with threadirqs, the card's interrupt threads can also run below the robot's priority (chrt -f -p 40 on their irq/ threads)."));
  return TRUE;
}

static char *
rt_network_load_classic (JsonObject *params,
                         const char *peer)
{
  QfStepContext ctx = { .peer = peer != NULL ? peer : "PEER" };
  g_autofree char *rt = qf_step_rt.classic_command (params, peer);
  g_autofree char *load_cmd = NULL;
  QfStepNetLoad load;
  const char *host;

  if (!_qf_step_net_host (params, &ctx, &host, NULL)
      || !_qf_step_netload_config (params, &ctx, host, "port", NULL, &load, NULL))
    return g_strdup_printf ("iperf3 -c PEER --bidir -t 0 & %s", rt);
  load_cmd = _qf_step_netload_classic (&load);
  _qf_step_netload_clear (&load);
  return g_strdup_printf ("%s & %s", load_cmd, rt);
}

static gdouble
rt_network_load_duration (JsonObject *params)
{
  return qf_step_rt.estimate_duration (params) + _qf_step_netload_overhead_s (params);
}

const QfStepInfo qf_step_rt_network_load = {
  .id = "rt-network-load",
  .title = N_("Real-time performance under network load"),
  .description = N_("How late a real-time thread wakes up while the bandwidth test saturates the link to the helper machine, so the network card's interrupts compete with it."),
  .peer_service = QF_PEER_SERVICE_BANDWIDTH,
  .measures = QF_STEP_MEASURES_WAKEUP,
  .run = rt_network_load_run,
  .classic_command = rt_network_load_classic,
  .estimate_duration = rt_network_load_duration,
  .plot = {
    .unit = "µs", .axis = N_("Latency (µs)"), .unit_ns = 1000, .histogram = TRUE,
    .channels = { N_("Thread 1"), N_("Thread 2"), N_("Thread 3"), N_("Thread 4"), NULL },
  },
  .figures = _qf_step_rt_figures,
  .params = _qf_step_rt_params,
  .spikes = QF_STEP_SPIKES_WAKEUP,
  .explain = rt_network_load_explain,
};
