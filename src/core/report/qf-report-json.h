/* qf-report-json.h — the report model's readers of session JSON (src/core, private to the
 * report model: qf-report.c and the files that build its blocks).
 *
 * An absent member, a null and a member of the wrong type all read as "not there": the report
 * prints "—" for them rather than failing (the session's shape is checked once, on loading).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "qf-json.h"

G_BEGIN_DECLS

static inline JsonNode *
member (JsonObject *o,
        const char *key)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, key) : NULL;
  return n != NULL && !JSON_NODE_HOLDS_NULL (n) ? n : NULL;
}

/* Short names for common/qf-json's readers, which the block builders call on every line. */
static inline const char *
str (JsonObject *o,
     const char *key)
{
  return qf_json_get_string (o, key, NULL);
}

static inline JsonObject *
obj (JsonObject *o,
     const char *key)
{
  return qf_json_get_object (o, key);
}

static inline JsonArray *
arr (JsonObject *o,
     const char *key)
{
  return qf_json_get_array (o, key);
}

static inline gboolean
num (JsonObject *o,
     const char *key,
     gdouble    *out)
{
  JsonNode *n = member (o, key);
  GType t;

  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return FALSE;
  t = json_node_get_value_type (n);
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return FALSE;
  *out = json_node_get_double (n);
  return TRUE;
}

G_END_DECLS
