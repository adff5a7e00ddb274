/* qf-minijson.h — a small, bounded JSON reader and writer for wire protocols (src/engine).
 *
 * The engines exchange JSON with peers they do not trust (the iperf3 parameter and results
 * blocks). This reader takes at most QF_JSON_MAX_TEXT bytes, nests at most QF_JSON_MAX_DEPTH
 * levels, builds at most QF_JSON_MAX_NODES values and never allocates from a length found in
 * the input: everything is sized by the text it has already been given. The writer appends to a
 * GString. No GObject, so the engine layer stays plain GLib.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define QF_JSON_MAX_TEXT  (64 * 1024)  /* bytes of one document */
#define QF_JSON_MAX_DEPTH 16
#define QF_JSON_MAX_NODES 4096

#define QF_JSON_ERROR (qf_json_error_quark ())
GQuark qf_json_error_quark (void);

typedef enum
{
  QF_JSON_ERROR_SYNTAX,
  QF_JSON_ERROR_LIMIT,
} QfJsonError;

typedef enum
{
  QF_JSON_NULL,
  QF_JSON_BOOL,
  QF_JSON_NUMBER,
  QF_JSON_STRING,
  QF_JSON_ARRAY,
  QF_JSON_OBJECT,
} QfJsonType;

typedef struct QfJson QfJson;

/* Parses exactly one JSON value (surrounding white space allowed) from text[0..len). */
QfJson     *qf_json_parse         (const char    *text,
                                   gsize          len,
                                   GError       **error);
void        qf_json_free          (QfJson        *doc);

/* Accessors are NULL-safe: a NULL or mistyped node gives the default / NULL / 0. */
QfJsonType  qf_json_type          (const QfJson  *node);
const QfJson *qf_json_get         (const QfJson  *object,
                                   const char    *key);
guint       qf_json_length        (const QfJson  *array_or_object);
const QfJson *qf_json_index       (const QfJson  *array,
                                   guint          i);
gboolean    qf_json_is_true       (const QfJson  *node);
const char *qf_json_string        (const QfJson  *node);
gdouble     qf_json_double        (const QfJson  *node,
                                   gdouble        def);
/* Integers: an unsigned value ≥ 2^63 reads as -1 (iperf3 3.12/3.13 print -1 as 2^64-1);
 * a fraction is truncated; a non-number gives def. */
gint64      qf_json_int           (const QfJson  *node,
                                   gint64         def);

/* Iteration in document order, O(1) a step: first child of an array or object, then the next
 * sibling; NULL at the end. qf_json_key() names an object member. */
const QfJson *qf_json_first       (const QfJson  *array_or_object);
const QfJson *qf_json_next        (const QfJson  *node);
const char *qf_json_key           (const QfJson  *node);

/* Convenience: member of an object by key. */
gboolean    qf_json_has           (const QfJson  *object,
                                   const char    *key);

/* Writer: appends compact JSON to a GString, inserting commas itself. */
typedef struct
{
  GString *out;
  guint    depth;
  gboolean first[QF_JSON_MAX_DEPTH + 1];
} QfJsonWriter;

void qf_json_writer_init         (QfJsonWriter *w,
                                  GString      *out);
void qf_json_writer_begin_object (QfJsonWriter *w);
void qf_json_writer_end_object   (QfJsonWriter *w);
void qf_json_writer_begin_array  (QfJsonWriter *w);
void qf_json_writer_end_array    (QfJsonWriter *w);
void qf_json_writer_key          (QfJsonWriter *w,
                                  const char   *key);
void qf_json_writer_string       (QfJsonWriter *w,
                                  const char   *value);
void qf_json_writer_int          (QfJsonWriter *w,
                                  gint64        value);
void qf_json_writer_uint         (QfJsonWriter *w,
                                  guint64       value);
void qf_json_writer_double       (QfJsonWriter *w,
                                  gdouble       value);
void qf_json_writer_bool         (QfJsonWriter *w,
                                  gboolean      value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfJson, qf_json_free)

G_END_DECLS
