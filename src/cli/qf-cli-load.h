/* qf-cli-load.h — the options and the summary of the tests under network load: `latency
 * --under-load`, `cycle --under-load` (the "loaded-latency" step) and `rt --network-load`
 * (src/cli). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean under_load;
  char    *load;          /* "tcp" or "udp:RATE"; NULL = tcp */
  int      load_port;     /* the helper's bandwidth port */
  gdouble  settle_s;      /* < 0 = the step's default */
} QfCliLoadOptions;

#define QF_CLI_LOAD_OPTIONS_INIT { FALSE, NULL, 5201, -1 }

/* The options' entries, for a command's GOptionEntry array (o: a QfCliLoadOptions). */
#define QF_CLI_LOAD_ENTRIES(o) \
  { "load", 0, 0, G_OPTION_ARG_STRING, &(o).load, \
    N_("The load: tcp (both directions at full speed, the default) or udp:RATE (RATE bit/s each " \
       "way, e.g. udp:150M)"), N_("LOAD") }, \
  { "load-port", 0, 0, G_OPTION_ARG_INT, &(o).load_port, \
    N_("The helper's bandwidth port for the load (default 5201, as iperf3)"), N_("P") }, \
  { "settle", 0, 0, G_OPTION_ARG_DOUBLE, &(o).settle_s, \
    N_("Seconds of load before the loaded measurement starts (default 2)"), N_("S") }

/* Puts the load's parameters into params; port_key names the bandwidth port's parameter. */
void qf_cli_load_params        (const QfCliLoadOptions *o,
                                const char             *port_key,
                                JsonObject             *params);
void qf_cli_load_options_clear (QfCliLoadOptions       *o);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (QfCliLoadOptions, qf_cli_load_options_clear)

/* The idle and loaded figures of a "loaded-latency" result side by side, and the delay added. */
void qf_cli_load_print_loaded  (JsonObject             *result);
/* The line about the load of an rt result under network load ("network_load"). */
void qf_cli_load_print_network (JsonObject             *result);

G_END_DECLS
