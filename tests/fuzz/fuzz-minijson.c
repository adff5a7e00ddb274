/* fuzz-minijson.c — qf_minijson_parse (src/engine/qf-minijson.c), the bounded reader for the
 * iperf3 control JSON, on arbitrary bytes; every accessor is then walked over the tree, as the
 * bandwidth client and the iperf3 responder do, and the tree is written back with the writer. */
#include <stdint.h>

#include "qf-minijson.h"

/* Containers nested in node, itself included. */
static guint
nesting (const QfMiniJson *node)
{
  guint deepest = 0;

  if (qf_minijson_type (node) != QF_MINIJSON_ARRAY && qf_minijson_type (node) != QF_MINIJSON_OBJECT)
    return 0;
  for (const QfMiniJson *c = qf_minijson_first (node); c != NULL; c = qf_minijson_next (c))
    deepest = MAX (deepest, nesting (c));
  return deepest + 1;
}

/* Reads every node with every accessor; writes it with w unless w is NULL. */
static void
walk (const QfMiniJson *node,
      QfMiniJsonWriter *w,
      guint             depth)
{
  g_assert (depth <= QF_MINIJSON_MAX_DEPTH + 1);
  switch (qf_minijson_type (node))
    {
    case QF_MINIJSON_NULL:
      if (w != NULL)
        qf_minijson_writer_string (w, NULL);
      break;
    case QF_MINIJSON_BOOL:
      if (w != NULL)
        qf_minijson_writer_bool (w, qf_minijson_is_true (node));
      break;
    case QF_MINIJSON_NUMBER:
      (void) qf_minijson_int (node, 0);
      if (w != NULL)
        qf_minijson_writer_double (w, qf_minijson_double (node, 0));
      break;
    case QF_MINIJSON_STRING:
      if (w != NULL)
        qf_minijson_writer_string (w, qf_minijson_string (node));
      break;
    case QF_MINIJSON_ARRAY:
      if (w != NULL)
        qf_minijson_writer_begin_array (w);
      for (const QfMiniJson *c = qf_minijson_first (node); c != NULL; c = qf_minijson_next (c))
        walk (c, w, depth + 1);
      (void) qf_minijson_index (node, qf_minijson_length (node) / 2);
      (void) qf_minijson_index (node, qf_minijson_length (node));
      if (w != NULL)
        qf_minijson_writer_end_array (w);
      break;
    case QF_MINIJSON_OBJECT:
      if (w != NULL)
        qf_minijson_writer_begin_object (w);
      for (const QfMiniJson *c = qf_minijson_first (node); c != NULL; c = qf_minijson_next (c))
        {
          const char *key = qf_minijson_key (c);
          g_assert (key != NULL);
          g_assert (qf_minijson_get (node, key) != NULL);
          if (w != NULL)
            qf_minijson_writer_key (w, key);
          walk (c, w, depth + 1);
        }
      /* The keys the bandwidth client and responder look up. */
      (void) qf_minijson_int (qf_minijson_get (node, "id"), -1);
      (void) qf_minijson_has (node, "streams");
      if (w != NULL)
        qf_minijson_writer_end_object (w);
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
  g_autoptr(QfMiniJson) doc = qf_minijson_parse ((const char *) data, size, &error);
  g_autoptr(GString) out = g_string_new (NULL);
  QfMiniJsonWriter w;

  g_assert ((doc == NULL) == (error != NULL));
  if (doc == NULL)
    return 0;
  /* The reader accepts one level more than the writer nests (it counts the top value as 0);
   * nothing we write is that deep, so such documents are only read. */
  if (nesting (doc) > QF_MINIJSON_MAX_DEPTH)
    {
      walk (doc, NULL, 0);
      return 0;
    }
  qf_minijson_writer_init (&w, out);
  walk (doc, &w, 0);
  /* What the writer produced must read back (the writer is what our responder sends). */
  if (out->len <= QF_MINIJSON_MAX_TEXT)
    {
      g_autoptr(GError) again_error = NULL;
      g_autoptr(QfMiniJson) again = qf_minijson_parse (out->str, out->len, &again_error);
      if (again == NULL
          && !g_error_matches (again_error, QF_MINIJSON_ERROR, QF_MINIJSON_ERROR_LIMIT))
        g_error ("the writer's output does not parse: %s\n%s", again_error->message, out->str);
    }
  return 0;
}
