/* qf-cli-ping.c — `qualify-cli ping`: ICMP round trip like iputils ping (src/cli).
 *
 * Accepts iputils' -i (seconds) -s -c -w -W -I -q -t, prints a reply line per echo and ends with
 * iputils' two statistics lines, or prints the step's JSON object with --json.
 */
#include "config.h"

#include <stdio.h>

#include "qf-cli.h"
#include "qf-cli-net.h"
#include "qf-cli-step.h"
#include "qf-i18n.h"
#include "qf-ping.h"
#include "qf-steps.h"

typedef struct
{
  QfRing     *ring;
  const char *address;
  guint       size;
  gboolean    quiet;
} ReplyPrinter;

static void
print_replies (ReplyPrinter *p)
{
  QfSample samples[256];
  guint n;

  while ((n = qf_ring_pop (p->ring, samples, G_N_ELEMENTS (samples))) > 0)
    for (guint i = 0; i < n && !p->quiet; i++)
      {
        guint ttl = samples[i].flags >> 8;
        long us = (long) (samples[i].value_ns / 1000);
        g_autofree char *time = NULL;

        /* iputils' format: integer µs, 3 decimals below 1 ms, 2 below 10, 1 below 100. */
        if (us >= 100000)
          time = g_strdup_printf ("%ld", us / 1000);
        else if (us >= 10000)
          time = g_strdup_printf ("%ld.%01ld", us / 1000, (us % 1000) / 100);
        else if (us >= 1000)
          time = g_strdup_printf ("%ld.%02ld", us / 1000, (us % 1000) / 10);
        else
          time = g_strdup_printf ("%ld.%03ld", us / 1000, us % 1000);
        g_print ("%u bytes from %s: icmp_seq=%u ttl=%u time=%s ms%s\n", p->size + 8, p->address,
                 samples[i].channel, ttl, time, (samples[i].flags & 1) ? " (DUP!)" : "");
      }
  fflush (stdout);
}

static void
on_progress (QfStepContext *ctx,
             gdouble        fraction,
             JsonObject    *live,
             gpointer       user_data)
{
  print_replies (user_data);
}

static void
print_summary (JsonObject *r,
               const char *host)
{
  gint64 transmitted = qf_cli_net_int (r, "transmitted");
  gint64 received = qf_cli_net_int (r, "received");
  gint64 duplicates = qf_cli_net_int (r, "duplicates");
  gint64 errors = qf_cli_net_int (r, "errors");

  g_print ("\n");
  g_print (_("--- %s ping statistics ---\n"), host);
  g_print (_("%lld packets transmitted, %lld received"), (long long) transmitted,
           (long long) received);
  if (duplicates > 0)
    g_print (_(", +%lld duplicates"), (long long) duplicates);
  if (errors > 0)
    g_print (_(", +%lld errors"), (long long) errors);
  if (transmitted > 0)
    {
      g_print (_(", %g%% packet loss"), qf_cli_net_double (r, "loss_pct"));
      g_print (_(", time %lldms"), (long long) qf_cli_net_int (r, "time_ms"));
    }
  g_print ("\n");
  if (json_object_has_member (r, "avg_ms"))
    {
      g_print ("rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms\n",
               qf_cli_net_double (r, "min_ms"), qf_cli_net_double (r, "avg_ms"),
               qf_cli_net_double (r, "max_ms"), qf_cli_net_double (r, "mdev_ms"));
      g_print ("rtt p50/p99/p99.9 = %.3f/%.3f/%.3f ms\n", qf_cli_net_double (r, "p50_ms"),
               qf_cli_net_double (r, "p99_ms"), qf_cli_net_double (r, "p999_ms"));
    }
}

int
qf_cli_ping (int    argc,
             char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(QfRing) ring = NULL;
  g_autofree char *iface = NULL, *source = NULL;
  gdouble interval_s = -1, interval_ms = -1, deadline_s = 0, timeout_s = 2;
  int size = QF_PING_DEFAULT_SIZE, count = 100, ttl = 0;
  gboolean json = FALSE, quiet = FALSE, ok;
  ReplyPrinter printer = { 0 };
  QfStepContext ctx = { 0 };
  int exit_code;
  const GOptionEntry entries[] = {
    { "interval-ms", 0, 0, G_OPTION_ARG_DOUBLE, &interval_ms,
      N_("Send a request every MS milliseconds (default 1, as the procedure)"), N_("MS") },
    { "interval", 'i', 0, G_OPTION_ARG_DOUBLE, &interval_s,
      N_("Send a request every S seconds (iputils' -i)"), N_("S") },
    { "size", 's', 0, G_OPTION_ARG_INT, &size,
      N_("Payload bytes per request (default 1024)"), N_("BYTES") },
    { "count", 'c', 0, G_OPTION_ARG_INT, &count,
      N_("Send N requests (default 100; 0 = until the deadline)"), N_("N") },
    { "deadline", 'w', 0, G_OPTION_ARG_DOUBLE, &deadline_s,
      N_("Stop after S seconds whatever happens"), N_("S") },
    { "timeout", 'W', 0, G_OPTION_ARG_DOUBLE, &timeout_s,
      N_("Wait S seconds for the last replies (default 2)"), N_("S") },
    { "iface", 'I', 0, G_OPTION_ARG_STRING, &iface,
      N_("Send from this interface (or source address)"), N_("IF") },
    { "source", 0, 0, G_OPTION_ARG_STRING, &source,
      N_("Send from this source address"), N_("ADDR") },
    { "ttl", 't', 0, G_OPTION_ARG_INT, &ttl, N_("Time to live of the requests"), N_("TTL") },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("Print only the summary"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("ping", "HOST",
                             _("Measure the ICMP round-trip time to a peer, like iputils ping "
                               "(the procedure runs ping -i 0.001 -s 1024 -c 100)."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc < 2)
    return qf_cli_errorf ("ping", _("give the address of the peer, e.g. qualify-cli ping 192.168.1.2"));
  if (argc > 2)
    return qf_cli_errorf ("ping", _("unexpected argument “%s”"), argv[2]);
  if (interval_ms < 0)
    interval_ms = interval_s >= 0 ? interval_s * 1000.0 : 1.0;
  if (size < 0 || count < 0 || ttl < 0)
    return qf_cli_errorf ("ping", _("sizes, counts and TTL cannot be negative"));

  json_object_set_string_member (params, "host", argv[1]);
  json_object_set_double_member (params, "interval_ms", interval_ms);
  json_object_set_int_member (params, "size", size);
  json_object_set_int_member (params, "count", count);
  json_object_set_double_member (params, "deadline_s", deadline_s);
  json_object_set_double_member (params, "timeout_s", timeout_s);
  json_object_set_int_member (params, "ttl", ttl);
  if (iface != NULL)
    json_object_set_string_member (params, "iface", iface);
  if (source != NULL)
    json_object_set_string_member (params, "source", source);

  ring = qf_ring_new (65536);
  printer.ring = ring;
  printer.address = argv[1];
  printer.size = (guint) size;
  printer.quiet = quiet || json;
  ctx.samples = ring;
  ctx.progress = on_progress;
  ctx.user_data = &printer;

  if (!json)
    g_print ("PING %s %d(%d) bytes of data.\n", argv[1], size, size + 28);
  ok = qf_cli_step_run (&qf_step_ping, params, &ctx, &result, &error);
  print_replies (&printer);

  if (json && result != NULL)
    qf_cli_print_json (result);
  else if (result != NULL)
    print_summary (result, argv[1]);
  /* Ctrl-C ends an open-ended ping as it does iputils': a summary, and success if replies came. */
  if (!ok && g_error_matches (error, QF_STEP_ERROR, QF_STEP_ERROR_CANCELLED)
      && result != NULL && qf_cli_net_int (result, "received") > 0)
    return QF_CLI_EXIT_OK;
  if (!ok)
    return qf_cli_error ("ping", error);
  return QF_CLI_EXIT_OK;
}
