/* qf-cli-load.c — the tests under network load on the command line (src/cli). See
 * qf-cli-load.h. */
#include "config.h"

#include "qf-cli-load.h"
#include "qf-cli-net.h"
#include "qf-i18n.h"

void
qf_cli_load_params (const QfCliLoadOptions *o,
                    const char             *port_key,
                    JsonObject             *params)
{
  json_object_set_string_member (params, "load", o->load != NULL ? o->load : "tcp");
  json_object_set_int_member (params, port_key, o->load_port);
  if (o->settle_s >= 0)
    json_object_set_double_member (params, "settle_s", o->settle_s);
}

void
qf_cli_load_options_clear (QfCliLoadOptions *o)
{
  g_clear_pointer (&o->load, g_free);
}

static void
print_phase (const char *title,
             JsonObject *phase)
{
  if (phase == NULL)
    return;
  /* TRANSLATORS: one phase's one-way latency figures; "%s" is "idle" or "loaded" */
  g_print (_("%-7s avg %10.3f  p50 %10.3f  p99 %10.3f  p99.9 %10.3f  max %10.3f µs  loss %.3f %%\n"),
           title, qf_cli_net_double (phase, "avg_us"), qf_cli_net_double (phase, "p50_us"),
           qf_cli_net_double (phase, "p99_us"), qf_cli_net_double (phase, "p999_us"),
           qf_cli_net_double (phase, "max_us"), qf_cli_net_double (phase, "loss_pct"));
}

static void
print_load (JsonObject *load)
{
  if (load == NULL)
    return;
  g_print (_("Load: %s both ways, %.1f Mbit/s up and %.1f Mbit/s down%s\n"),
           json_object_get_string_member (load, "load"), qf_cli_net_double (load, "up_mbps"),
           qf_cli_net_double (load, "down_mbps"),
           json_object_get_boolean_member (load, "complete") ? "" : _(" (ended early)"));
}

void
qf_cli_load_print_loaded (JsonObject *result)
{
  JsonObject *idle = json_object_has_member (result, "idle")
                       ? json_object_get_object_member (result, "idle") : NULL;
  JsonObject *loaded = json_object_has_member (result, "loaded")
                         ? json_object_get_object_member (result, "loaded") : NULL;

  print_phase (_("idle"), idle);
  print_phase (_("loaded"), loaded);
  if (json_object_has_member (result, "added_us"))
    {
      gdouble added_us = json_object_get_double_member (result, "added_us");
      if (added_us >= 1000 || added_us <= -1000)
        g_print (_("Added by the load (median, one way): %+.1f ms\n"), added_us / 1000);
      else
        g_print (_("Added by the load (median, one way): %+.1f µs\n"), added_us);
    }
  print_load (json_object_has_member (result, "load")
                ? json_object_get_object_member (result, "load") : NULL);
  g_print ("%s\n", _("Latency is half the round trip, as sockperf reports it."));
}

void
qf_cli_load_print_network (JsonObject *result)
{
  if (json_object_has_member (result, "network_load"))
    print_load (json_object_get_object_member (result, "network_load"));
}
