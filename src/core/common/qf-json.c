/* qf-json.c — json-glib helpers and atomic file writes (src/core). See qf-json.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-json.h"

JsonNode *
qf_json_node_deep_copy (JsonNode *node)
{
  JsonNode *copy;

  g_return_val_if_fail (node != NULL, NULL);

  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      copy = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (copy, qf_json_object_deep_copy (json_node_get_object (node)));
      return copy;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        JsonArray *array_copy = json_array_sized_new (json_array_get_length (array));

        for (guint i = 0; i < json_array_get_length (array); i++)
          json_array_add_element (array_copy, qf_json_node_deep_copy (json_array_get_element (array, i)));
        copy = json_node_new (JSON_NODE_ARRAY);
        json_node_take_array (copy, array_copy);
        return copy;
      }
    case JSON_NODE_VALUE:
    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

JsonObject *
qf_json_object_deep_copy (JsonObject *object)
{
  JsonObject *copy = json_object_new ();
  g_autoptr(GList) members = NULL;

  g_return_val_if_fail (object != NULL, copy);

  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy, l->data,
                            qf_json_node_deep_copy (json_object_get_member (object, l->data)));
  return copy;
}

JsonNode *
qf_json_get_path (JsonObject *object,
                  const char *path)
{
  g_auto(GStrv) parts = NULL;
  JsonNode *node = NULL;

  if (object == NULL || path == NULL)
    return NULL;
  parts = g_strsplit (path, ".", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *p = parts[i];
      char *bracket = strchr (p, '[');

      if (bracket != NULL)
        *bracket = '\0';
      if (i > 0)
        {
          if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
            return NULL;
          object = json_node_get_object (node);
        }
      node = json_object_get_member (object, p);
      if (node == NULL)
        return NULL;
      while (bracket != NULL)
        {
          char *end = NULL;
          guint64 index = g_ascii_strtoull (bracket + 1, &end, 10);
          JsonArray *array;

          if (end == NULL || *end != ']' || !JSON_NODE_HOLDS_ARRAY (node))
            return NULL;
          array = json_node_get_array (node);
          if (index >= json_array_get_length (array))
            return NULL;
          node = json_array_get_element (array, (guint) index);
          bracket = end[1] == '[' ? end + 1 : NULL;
        }
    }
  return node;
}

gboolean
qf_json_get_path_double (JsonObject *object,
                         const char *path,
                         gdouble    *out)
{
  JsonNode *node = qf_json_get_path (object, path);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return FALSE;
  *out = json_node_get_double (node);
  return TRUE;
}

const char *
qf_json_get_string (JsonObject *object,
                    const char *key,
                    const char *def)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, key) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return def;
  return json_node_get_string (node);
}

void
qf_json_set_string_or_null (JsonObject *object,
                            const char *key,
                            const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, key, value);
  else
    json_object_set_null_member (object, key);
}

gdouble
qf_json_get_double (JsonObject *object,
                    const char *key,
                    gdouble     def)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, key) : NULL;
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return def;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return def;
  return json_node_get_double (node);
}

JsonObject *
qf_json_get_object (JsonObject *object,
                    const char *key)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, key) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonArray *
qf_json_get_array (JsonObject *object,
                   const char *key)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, key) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/* The shortest decimal text that reads back as exactly this double (json-glib prints 17
 * significant digits, so 13.357 became 13.356999999999999: the same number, but not the figure a
 * person expects to read). Integral values keep a ".0" so they stay doubles when read back. */
static void
append_double (GString *out,
               gdouble  value)
{
  /* 17 significant digits always read back exactly; fewer usually do. */
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    {
      g_string_append (out, "null");   /* JSON has no NaN or infinity */
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  g_string_append (out, buf);
  if (strpbrk (buf, ".eE") == NULL)
    g_string_append (out, ".0");
}

/* Beyond json-glib's escapes, DEL and the C1 controls are written as \u escapes too (JSON reads
 * them back unchanged, and a terminal showing the text gets no raw control), and a byte that is
 * not UTF-8 (an interface may be called so) as U+FFFD: JSON text is UTF-8. */
static void
append_string (GString    *out,
               const char *s)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) s; *p != '\0'; p++)
    switch (*p)
      {
      case '"':  g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\b': g_string_append (out, "\\b"); break;
      case '\f': g_string_append (out, "\\f"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      default:
        if (*p < 0x20 || *p == 0x7f)
          g_string_append_printf (out, "\\u%04x", *p);
        else if (*p < 0x80)
          g_string_append_c (out, (char) *p);
        else
          {
            gunichar c = g_utf8_get_char_validated ((const char *) p, -1);
            guint n = (guchar) g_utf8_skip[*p];

            if (c == (gunichar) -1 || c == (gunichar) -2)
              {
                g_string_append (out, "\\ufffd");   /* this byte; the next one is read afresh */
                continue;
              }
            if (c < 0xa0)
              g_string_append_printf (out, "\\u%04x", c);
            else
              g_string_append_len (out, (const char *) p, n);
            p += n - 1;
          }
      }
  g_string_append_c (out, '"');
}

static void
append_indent (GString *out,
               gboolean pretty,
               guint    level)
{
  if (pretty)
    {
      g_string_append_c (out, '\n');
      for (guint i = 0; i < level; i++)
        g_string_append (out, "  ");
    }
}

/* Writes node as json-glib's generator does (same layout, same escapes), except doubles. */
static void
append_node (GString  *out,
             JsonNode *node,
             gboolean  pretty,
             guint     level)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        JsonObjectIter iter;
        const char *key;
        JsonNode *member;
        gboolean first = TRUE;

        if (json_object_get_size (object) == 0)
          {
            g_string_append (out, pretty ? "{  }" : "{}");
            return;
          }
        g_string_append_c (out, '{');
        json_object_iter_init_ordered (&iter, object);
        while (json_object_iter_next_ordered (&iter, &key, &member))
          {
            if (!first)
              g_string_append_c (out, ',');
            first = FALSE;
            append_indent (out, pretty, level + 1);
            append_string (out, key);
            g_string_append (out, pretty ? " : " : ":");
            append_node (out, member, pretty, level + 1);
          }
        append_indent (out, pretty, level);
        g_string_append_c (out, '}');
        return;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        if (n == 0)
          {
            g_string_append (out, "[]");
            return;
          }
        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            append_indent (out, pretty, level + 1);
            append_node (out, json_array_get_element (array, i), pretty, level + 1);
          }
        append_indent (out, pretty, level);
        g_string_append_c (out, ']');
        return;
      }
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_DOUBLE:
          append_double (out, json_node_get_double (node));
          return;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          return;
        case G_TYPE_STRING:
          append_string (out, json_node_get_string (node));
          return;
        case G_TYPE_INT64:
        default:
          g_string_append_printf (out, "%lld", (long long) json_node_get_int (node));
          return;
        }
    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      return;
    }
}

char *
qf_json_node_to_text (JsonNode *node,
                      gboolean  pretty)
{
  GString *out = g_string_sized_new (256);

  g_return_val_if_fail (node != NULL, NULL);

  append_node (out, node, pretty, 0);
  return g_string_free (out, FALSE);
}

char *
qf_json_to_text (JsonObject *object,
                 gboolean    pretty)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;

  json_node_set_object (node, object);
  text = qf_json_node_to_text (node, pretty);
  return g_strconcat (text, "\n", NULL);
}

static gboolean
write_all (int          fd,
           const char  *data,
           gsize        length,
           const char  *path,
           GError     **error)
{
  while (length > 0)
    {
      ssize_t n = write (fd, data, length);
      if (n < 0)
        {
          int saved = errno;
          if (saved == EINTR)
            continue;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Cannot write %s: %s"), path, g_strerror (saved));
          return FALSE;
        }
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* Creates tmp (a mkstemp template) with mode, writes data, flushes it to disk and closes it;
 * on failure nothing is left behind. */
static gboolean
write_temp_file (char        *tmp,
                 const char  *dir,
                 const void  *data,
                 gsize        length,
                 int          mode,
                 GError     **error)
{
  int fd, saved;

  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, mode);
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot create a file in %s: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  if (!write_all (fd, data, length, tmp, error))
    {
      close (fd);
      g_unlink (tmp);
      return FALSE;
    }
  if (fsync (fd) != 0)
    {
      saved = errno;
      close (fd);
      g_unlink (tmp);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot flush %s to disk: %s"), tmp, g_strerror (saved));
      return FALSE;
    }
  if (close (fd) != 0)
    {
      saved = errno;
      g_unlink (tmp);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot write %s: %s"), tmp, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* Renames tmp over path; the rename is durable only once the directory entry is on disk too. */
static gboolean
rename_durably (const char  *tmp,
                const char  *path,
                const char  *dir,
                GError     **error)
{
  int dir_fd, saved;

  if (g_rename (tmp, path) != 0)
    {
      saved = errno;
      g_unlink (tmp);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot replace %s: %s"), path, g_strerror (saved));
      return FALSE;
    }
  dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || fsync (dir_fd) != 0)
    {
      saved = errno;
      if (dir_fd >= 0)
        close (dir_fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot flush the folder %s to disk: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  close (dir_fd);
  return TRUE;
}

gboolean
qf_file_write_atomic (const char  *path,
                      const void  *data,
                      gsize        length,
                      int          mode,
                      GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  return write_temp_file (tmp, dir, data, length, mode, error) &&
         rename_durably (tmp, path, dir, error);
}
