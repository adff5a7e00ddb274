/* qf-cli-net.c — reading the network steps' results for printing (src/cli).
 * See qf-cli-net.h. */
#include "config.h"

#include "qf-cli-net.h"

gdouble
qf_cli_net_double (JsonObject *obj,
                   const char *key)
{
  return obj != NULL && json_object_has_member (obj, key)
           ? json_object_get_double_member (obj, key) : 0.0;
}

gint64
qf_cli_net_int (JsonObject *obj,
                const char *key)
{
  return obj != NULL && json_object_has_member (obj, key)
           ? json_object_get_int_member (obj, key) : 0;
}
