/* qf-minijson.h — a small, bounded JSON reader and writer for wire protocols (src/engine).
 *
 * The engines exchange JSON with peers they do not trust (the iperf3 parameter and results
 * blocks). This reader takes at most QF_MINIJSON_MAX_TEXT bytes, nests at most
 * QF_MINIJSON_MAX_DEPTH levels, builds at most QF_MINIJSON_MAX_NODES values and never allocates
 * from a length found in the input: everything is sized by the text it has already been given.
 * The writer appends to a GString. No GObject, so the engine layer stays plain GLib; core's
 * json-glib helpers are a different thing (qf_json_*, src/core/qf-json.h).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define QF_MINIJSON_MAX_TEXT  (64 * 1024)  /* bytes of one document */
#define QF_MINIJSON_MAX_DEPTH 16
#define QF_MINIJSON_MAX_NODES 4096

#define QF_MINIJSON_ERROR (qf_minijson_error_quark ())
GQuark qf_minijson_error_quark (void);

typedef enum
{
  QF_MINIJSON_ERROR_SYNTAX,
  QF_MINIJSON_ERROR_LIMIT,
} QfMiniJsonError;

typedef enum
{
  QF_MINIJSON_NULL,
  QF_MINIJSON_BOOL,
  QF_MINIJSON_NUMBER,
  QF_MINIJSON_STRING,
  QF_MINIJSON_ARRAY,
  QF_MINIJSON_OBJECT,
} QfMiniJsonType;

typedef struct QfMiniJson QfMiniJson;

/* Parses exactly one JSON value (surrounding white space allowed) from text[0..len). */
QfMiniJson       *qf_minijson_parse   (const char        *text,
                                       gsize              len,
                                       GError           **error);
void              qf_minijson_free    (QfMiniJson        *doc);

/* Accessors are NULL-safe: a NULL or mistyped node gives the default / NULL / 0. */
QfMiniJsonType    qf_minijson_type    (const QfMiniJson  *node);
const QfMiniJson *qf_minijson_get     (const QfMiniJson  *object,
                                       const char        *key);
guint             qf_minijson_length  (const QfMiniJson  *array_or_object);
const QfMiniJson *qf_minijson_index   (const QfMiniJson  *array,
                                       guint              i);
gboolean          qf_minijson_is_true (const QfMiniJson  *node);
const char       *qf_minijson_string  (const QfMiniJson  *node);
gdouble           qf_minijson_double  (const QfMiniJson  *node,
                                       gdouble            def);
/* Integers: an unsigned value ≥ 2^63 reads as -1 (iperf3 3.12/3.13 print -1 as 2^64-1);
 * a fraction is truncated; a non-number gives def. */
gint64            qf_minijson_int     (const QfMiniJson  *node,
                                       gint64             def);

/* Iteration in document order, O(1) a step: first child of an array or object, then the next
 * sibling; NULL at the end. qf_minijson_key() names an object member. */
const QfMiniJson *qf_minijson_first   (const QfMiniJson  *array_or_object);
const QfMiniJson *qf_minijson_next    (const QfMiniJson  *node);
const char       *qf_minijson_key     (const QfMiniJson  *node);

/* Convenience: member of an object by key. */
gboolean          qf_minijson_has     (const QfMiniJson  *object,
                                       const char        *key);

/* Writer: appends compact JSON to a GString, inserting commas itself. */
typedef struct
{
  GString *out;
  guint    depth;
  gboolean first[QF_MINIJSON_MAX_DEPTH + 1];
} QfMiniJsonWriter;

void qf_minijson_writer_init         (QfMiniJsonWriter *w,
                                      GString          *out);
void qf_minijson_writer_begin_object (QfMiniJsonWriter *w);
void qf_minijson_writer_end_object   (QfMiniJsonWriter *w);
void qf_minijson_writer_begin_array  (QfMiniJsonWriter *w);
void qf_minijson_writer_end_array    (QfMiniJsonWriter *w);
void qf_minijson_writer_key          (QfMiniJsonWriter *w,
                                      const char       *key);
void qf_minijson_writer_string       (QfMiniJsonWriter *w,
                                      const char       *value);
void qf_minijson_writer_int          (QfMiniJsonWriter *w,
                                      gint64            value);
void qf_minijson_writer_uint         (QfMiniJsonWriter *w,
                                      guint64           value);
void qf_minijson_writer_double       (QfMiniJsonWriter *w,
                                      gdouble           value);
void qf_minijson_writer_bool         (QfMiniJsonWriter *w,
                                      gboolean          value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfMiniJson, qf_minijson_free)

G_END_DECLS
