/* qf-json.h — small json-glib helpers shared by profiles, verdicts, sessions and the runner
 * (src/core): deep copies (json-glib's own copies share containers), reading a number by key
 * path, and writing a file atomically. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A deep copy: nothing is shared with the original. */
JsonNode   *qf_json_node_deep_copy   (JsonNode    *node);
JsonObject *qf_json_object_deep_copy (JsonObject  *object);

/* The node at a key path such as "avg_us", "monitor.summary.load1_max" or "threads[0].max_us";
 * NULL when a part is missing. Borrowed. */
JsonNode   *qf_json_get_path         (JsonObject  *object,
                                      const char  *path);
/* TRUE and *out when the path leads to a number (integer or floating point). */
gboolean    qf_json_get_path_double  (JsonObject  *object,
                                      const char  *path,
                                      gdouble     *out);

/* Typed member readers with defaults for absent or mistyped members. */
const char *qf_json_get_string       (JsonObject  *object,
                                      const char  *key,
                                      const char  *def);
gdouble     qf_json_get_double       (JsonObject  *object,
                                      const char  *key,
                                      gdouble      def);
JsonObject *qf_json_get_object       (JsonObject  *object,
                                      const char  *key);
JsonArray  *qf_json_get_array        (JsonObject  *object,
                                      const char  *key);

/* Sets key to value, or to null when value is NULL. */
void        qf_json_set_string_or_null (JsonObject *object,
                                        const char *key,
                                        const char *value);

/* Text of a node laid out as json-glib's generator does, but each double written with the
 * fewest digits that read back as exactly the same double (13.357, not 13.356999999999999). */
char       *qf_json_node_to_text     (JsonNode    *node,
                                      gboolean     pretty);
/* The same for an object, newline-terminated. */
char       *qf_json_to_text          (JsonObject  *object,
                                      gboolean     pretty);

/* Writes data to path so that a crash at any moment leaves either the old or the new file:
 * temp file in the same directory created with mode (as open() takes it, less the umask, so a
 * 0600 key is never readable by others, not even for a moment), fsync, rename, fsync of the
 * directory. On failure nothing partial is left; errors are in G_IO_ERROR. */
gboolean    qf_file_write_atomic     (const char  *path,
                                      const void  *data,
                                      gsize        length,
                                      int          mode,
                                      GError     **error);

G_END_DECLS
