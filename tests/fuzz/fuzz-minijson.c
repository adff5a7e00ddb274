/* fuzz-minijson.c — qf_json_parse (src/engine/qf-minijson.c), the bounded reader for the
 * iperf3 control JSON, on arbitrary bytes; every accessor is then walked over the tree, as the
 * bandwidth client and the iperf3 responder do, and the tree is written back with the writer. */
#include <stdint.h>

#include "qf-minijson.h"

/* Containers nested in node, itself included. */
static guint
nesting (const QfJson *node)
{
  guint deepest = 0;

  if (qf_json_type (node) != QF_JSON_ARRAY && qf_json_type (node) != QF_JSON_OBJECT)
    return 0;
  for (const QfJson *c = qf_json_first (node); c != NULL; c = qf_json_next (c))
    deepest = MAX (deepest, nesting (c));
  return deepest + 1;
}

/* Reads every node with every accessor; writes it with w unless w is NULL. */
static void
walk (const QfJson *node,
      QfJsonWriter *w,
      guint         depth)
{
  g_assert (depth <= QF_JSON_MAX_DEPTH + 1);
  switch (qf_json_type (node))
    {
    case QF_JSON_NULL:
      if (w != NULL)
        qf_json_writer_string (w, NULL);
      break;
    case QF_JSON_BOOL:
      if (w != NULL)
        qf_json_writer_bool (w, qf_json_is_true (node));
      break;
    case QF_JSON_NUMBER:
      (void) qf_json_int (node, 0);
      if (w != NULL)
        qf_json_writer_double (w, qf_json_double (node, 0));
      break;
    case QF_JSON_STRING:
      if (w != NULL)
        qf_json_writer_string (w, qf_json_string (node));
      break;
    case QF_JSON_ARRAY:
      if (w != NULL)
        qf_json_writer_begin_array (w);
      for (const QfJson *c = qf_json_first (node); c != NULL; c = qf_json_next (c))
        walk (c, w, depth + 1);
      (void) qf_json_index (node, qf_json_length (node) / 2);
      (void) qf_json_index (node, qf_json_length (node));
      if (w != NULL)
        qf_json_writer_end_array (w);
      break;
    case QF_JSON_OBJECT:
      if (w != NULL)
        qf_json_writer_begin_object (w);
      for (const QfJson *c = qf_json_first (node); c != NULL; c = qf_json_next (c))
        {
          const char *key = qf_json_key (c);
          g_assert (key != NULL);
          g_assert (qf_json_get (node, key) != NULL);
          if (w != NULL)
            qf_json_writer_key (w, key);
          walk (c, w, depth + 1);
        }
      /* The keys the bandwidth client and responder look up. */
      (void) qf_json_int (qf_json_get (node, "id"), -1);
      (void) qf_json_has (node, "streams");
      if (w != NULL)
        qf_json_writer_end_object (w);
      break;
    default:
      g_assert_not_reached ();
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfJson) doc = qf_json_parse ((const char *) data, size, &error);
  g_autoptr(GString) out = g_string_new (NULL);
  QfJsonWriter w;

  g_assert ((doc == NULL) == (error != NULL));
  if (doc == NULL)
    return 0;
  /* The reader accepts one level more than the writer nests (it counts the top value as 0);
   * nothing we write is that deep, so such documents are only read. */
  if (nesting (doc) > QF_JSON_MAX_DEPTH)
    {
      walk (doc, NULL, 0);
      return 0;
    }
  qf_json_writer_init (&w, out);
  walk (doc, &w, 0);
  /* What the writer produced must read back (the writer is what our responder sends). */
  if (out->len <= QF_JSON_MAX_TEXT)
    {
      g_autoptr(GError) again_error = NULL;
      g_autoptr(QfJson) again = qf_json_parse (out->str, out->len, &again_error);
      if (again == NULL && !g_error_matches (again_error, QF_JSON_ERROR, QF_JSON_ERROR_LIMIT))
        g_error ("the writer's output does not parse: %s\n%s", again_error->message, out->str);
    }
  return 0;
}
