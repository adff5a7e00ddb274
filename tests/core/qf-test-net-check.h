/* qf-test-net-check.h — a network_audit check as a session records it (docs/session-format.md),
 * for the tests of what reads it: the report's table and the advice (tests/core). */
#pragma once

#include <json-glib/json-glib.h>

/* A check with the advice "What the audit advises."; fix_nm NULL: NetworkManager cannot hold it. */
static inline JsonObject *
qf_test_net_check (const char *id,
                   const char *title,
                   const char *status,
                   const char *found,
                   const char *recommended,
                   const char *fix,
                   const char *fix_nm)
{
  JsonObject *c = json_object_new ();

  json_object_set_string_member (c, "id", id);
  json_object_set_string_member (c, "title", title);
  json_object_set_string_member (c, "status", status);
  json_object_set_string_member (c, "found", found);
  json_object_set_string_member (c, "recommended", recommended);
  json_object_set_string_member (c, "advice", "What the audit advises.");
  json_object_set_string_member (c, "fix", fix);
  if (fix_nm != NULL)
    json_object_set_string_member (c, "fix_nm", fix_nm);
  else
    json_object_set_null_member (c, "fix_nm");
  return c;
}
