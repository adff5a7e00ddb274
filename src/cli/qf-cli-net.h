/* qf-cli-net.h — what the network subcommands (ping, latency, cycle) share (src/cli). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Reads a double member, 0 when absent. */
gdouble  qf_cli_net_double   (JsonObject        *obj,
                              const char        *key);
gint64   qf_cli_net_int      (JsonObject        *obj,
                              const char        *key);

G_END_DECLS
