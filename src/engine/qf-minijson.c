/* qf-minijson.c — bounded JSON reader and writer (src/engine). See qf-minijson.h.
 *
 * Values live in one node array owned by the document; children are linked by index, so a
 * document is freed in one go and nothing is sized by a number read from the input. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-minijson.h"

G_DEFINE_QUARK (qf-minijson-error-quark, qf_minijson_error)

#define NO_NODE G_MAXUINT

struct QfMiniJson
{
  QfMiniJsonType type;
  gboolean       boolean;
  gboolean       integral;     /* number written without fraction or exponent */
  gboolean       big_unsigned; /* integral and ≥ 2^63 */
  gint64         integer;
  gdouble        number;
  char          *string;       /* string value */
  char          *key;          /* member name when the parent is an object */
  guint          n_children;
  guint          first_child;
  guint          next;
  QfMiniJson    *doc;          /* node 0 of the document, whose array holds every node */
  GArray        *nodes;        /* only in node 0 */
};

typedef struct
{
  const char *p;
  const char *end;
  GArray     *nodes;
  GError    **error;
} Parser;

static gboolean
fail (Parser          *ps,
      QfMiniJsonError  code,
      const char      *what)
{
  if (ps->error != NULL && *ps->error == NULL)
    g_set_error (ps->error, QF_MINIJSON_ERROR, code, "JSON: %s", what);
  return FALSE;
}

static void
skip_ws (Parser *ps)
{
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static guint
new_node (Parser         *ps,
          QfMiniJsonType  type)
{
  QfMiniJson node = { 0 };

  if (ps->nodes->len >= QF_MINIJSON_MAX_NODES)
    return NO_NODE;
  node.type = type;
  node.first_child = NO_NODE;
  node.next = NO_NODE;
  g_array_append_val (ps->nodes, node);
  return ps->nodes->len - 1;
}

#define NODE(ps, i) (&g_array_index ((ps)->nodes, QfMiniJson, (i)))

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static gboolean
read_hex4 (Parser  *ps,
           guint32 *out)
{
  guint32 v = 0;

  if (ps->end - ps->p < 4)
    return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "truncated \\u escape");
  for (int i = 0; i < 4; i++)
    {
      int h = hex_value (ps->p[i]);
      if (h < 0)
        return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "bad \\u escape");
      v = (v << 4) | (guint32) h;
    }
  ps->p += 4;
  *out = v;
  return TRUE;
}

/* ps->p is just past the opening quote. The decoded string is never longer than its source. */
static gboolean
parse_string (Parser *ps,
              char  **out)
{
  GString *s = g_string_new (NULL);

  while (ps->p < ps->end)
    {
      char c = *ps->p++;

      if (c == '"')
        {
          if (!g_utf8_validate (s->str, s->len, NULL))
            {
              g_string_free (s, TRUE);
              return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "string is not UTF-8");
            }
          *out = g_string_free (s, FALSE);
          return TRUE;
        }
      if ((guchar) c < 0x20)
        break;
      if (c != '\\')
        {
          g_string_append_c (s, c);
          continue;
        }
      if (ps->p >= ps->end)
        break;
      c = *ps->p++;
      switch (c)
        {
        case '"': case '\\': case '/': g_string_append_c (s, c); break;
        case 'b': g_string_append_c (s, '\b'); break;
        case 'f': g_string_append_c (s, '\f'); break;
        case 'n': g_string_append_c (s, '\n'); break;
        case 'r': g_string_append_c (s, '\r'); break;
        case 't': g_string_append_c (s, '\t'); break;
        case 'u':
          {
            guint32 cp, lo;

            if (!read_hex4 (ps, &cp))
              goto out_fail;
            if (cp >= 0xD800 && cp <= 0xDBFF)
              {
                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
                  {
                    fail (ps, QF_MINIJSON_ERROR_SYNTAX, "lone surrogate");
                    goto out_fail;
                  }
                ps->p += 2;
                if (!read_hex4 (ps, &lo))
                  goto out_fail;
                if (lo < 0xDC00 || lo > 0xDFFF)
                  {
                    fail (ps, QF_MINIJSON_ERROR_SYNTAX, "bad surrogate pair");
                    goto out_fail;
                  }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              }
            else if (cp >= 0xDC00 && cp <= 0xDFFF)
              {
                fail (ps, QF_MINIJSON_ERROR_SYNTAX, "lone surrogate");
                goto out_fail;
              }
            if (cp == 0)
              {
                fail (ps, QF_MINIJSON_ERROR_SYNTAX, "NUL in string");
                goto out_fail;
              }
            g_string_append_unichar (s, cp);
          }
          break;
        default:
          fail (ps, QF_MINIJSON_ERROR_SYNTAX, "bad escape");
          goto out_fail;
        }
    }
  fail (ps, QF_MINIJSON_ERROR_SYNTAX, "unterminated string");
out_fail:
  g_string_free (s, TRUE);
  return FALSE;
}

static gboolean
parse_number (Parser *ps,
              guint   idx)
{
  const char *start = ps->p;
  gboolean integral = TRUE;
  char buf[64];
  gsize n;

  if (ps->p < ps->end && *ps->p == '-')
    ps->p++;
  if (ps->p >= ps->end || !g_ascii_isdigit (*ps->p))
    return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "bad number");
  if (*ps->p == '0')
    ps->p++;
  else
    while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
      ps->p++;
  if (ps->p < ps->end && *ps->p == '.')
    {
      integral = FALSE;
      ps->p++;
      if (ps->p >= ps->end || !g_ascii_isdigit (*ps->p))
        return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "bad number");
      while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
        ps->p++;
    }
  if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E'))
    {
      integral = FALSE;
      ps->p++;
      if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
        ps->p++;
      if (ps->p >= ps->end || !g_ascii_isdigit (*ps->p))
        return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "bad number");
      while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
        ps->p++;
    }
  n = ps->p - start;
  if (n >= sizeof buf)
    return fail (ps, QF_MINIJSON_ERROR_LIMIT, "number too long");
  memcpy (buf, start, n);
  buf[n] = '\0';

  {
    QfMiniJson *node = NODE (ps, idx);
    node->number = g_ascii_strtod (buf, NULL);
    node->integral = integral;
    if (!isfinite (node->number))
      return fail (ps, QF_MINIJSON_ERROR_LIMIT, "number out of range");
    if (integral)
      {
        if (buf[0] == '-')
          node->integer = g_ascii_strtoll (buf, NULL, 10);
        else
          {
            guint64 u = g_ascii_strtoull (buf, NULL, 10);
            if (u > G_MAXINT64)
              {
                node->big_unsigned = TRUE;
                node->integer = -1;
              }
            else
              node->integer = (gint64) u;
          }
      }
    else
      node->integer = (node->number >= -9.2e18 && node->number <= 9.2e18)
                        ? (gint64) node->number : 0;
  }
  return TRUE;
}

static gboolean
parse_literal (Parser     *ps,
               const char *word)
{
  gsize n = strlen (word);

  if ((gsize) (ps->end - ps->p) < n || memcmp (ps->p, word, n) != 0)
    return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "unexpected character");
  ps->p += n;
  return TRUE;
}

static gboolean parse_value (Parser *ps, guint depth, guint *out);

static gboolean
append_child (Parser *ps,
              guint   parent,
              guint  *last,
              guint   child)
{
  if (*last == NO_NODE)
    NODE (ps, parent)->first_child = child;
  else
    NODE (ps, *last)->next = child;
  *last = child;
  NODE (ps, parent)->n_children++;
  return TRUE;
}

static gboolean
parse_container (Parser *ps,
                 guint   depth,
                 guint   idx,
                 gboolean object)
{
  char close = object ? '}' : ']';
  guint last = NO_NODE;

  skip_ws (ps);
  if (ps->p < ps->end && *ps->p == close)
    {
      ps->p++;
      return TRUE;
    }
  for (;;)
    {
      char *key = NULL;
      guint child;

      skip_ws (ps);
      if (object)
        {
          if (ps->p >= ps->end || *ps->p != '"')
            return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "expected a member name");
          ps->p++;
          if (!parse_string (ps, &key))
            return FALSE;
          skip_ws (ps);
          if (ps->p >= ps->end || *ps->p != ':')
            {
              g_free (key);
              return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "expected ':'");
            }
          ps->p++;
        }
      if (!parse_value (ps, depth + 1, &child))
        {
          g_free (key);
          return FALSE;
        }
      NODE (ps, child)->key = key;
      append_child (ps, idx, &last, child);
      skip_ws (ps);
      if (ps->p < ps->end && *ps->p == ',')
        {
          ps->p++;
          continue;
        }
      if (ps->p < ps->end && *ps->p == close)
        {
          ps->p++;
          return TRUE;
        }
      return fail (ps, QF_MINIJSON_ERROR_SYNTAX,
                   object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static gboolean
parse_value (Parser *ps,
             guint   depth,
             guint  *out)
{
  guint idx;

  if (depth > QF_MINIJSON_MAX_DEPTH)
    return fail (ps, QF_MINIJSON_ERROR_LIMIT, "nested too deeply");
  skip_ws (ps);
  if (ps->p >= ps->end)
    return fail (ps, QF_MINIJSON_ERROR_SYNTAX, "unexpected end");

  switch (*ps->p)
    {
    case '{':
    case '[':
      {
        gboolean object = *ps->p == '{';
        idx = new_node (ps, object ? QF_MINIJSON_OBJECT : QF_MINIJSON_ARRAY);
        if (idx == NO_NODE)
          return fail (ps, QF_MINIJSON_ERROR_LIMIT, "too many values");
        ps->p++;
        *out = idx;
        return parse_container (ps, depth, idx, object);
      }
    case '"':
      {
        char *s;
        idx = new_node (ps, QF_MINIJSON_STRING);
        if (idx == NO_NODE)
          return fail (ps, QF_MINIJSON_ERROR_LIMIT, "too many values");
        ps->p++;
        *out = idx;
        if (!parse_string (ps, &s))
          return FALSE;
        NODE (ps, idx)->string = s;
        return TRUE;
      }
    case 't':
    case 'f':
      idx = new_node (ps, QF_MINIJSON_BOOL);
      if (idx == NO_NODE)
        return fail (ps, QF_MINIJSON_ERROR_LIMIT, "too many values");
      *out = idx;
      NODE (ps, idx)->boolean = *ps->p == 't';
      return parse_literal (ps, *ps->p == 't' ? "true" : "false");
    case 'n':
      idx = new_node (ps, QF_MINIJSON_NULL);
      if (idx == NO_NODE)
        return fail (ps, QF_MINIJSON_ERROR_LIMIT, "too many values");
      *out = idx;
      return parse_literal (ps, "null");
    default:
      idx = new_node (ps, QF_MINIJSON_NUMBER);
      if (idx == NO_NODE)
        return fail (ps, QF_MINIJSON_ERROR_LIMIT, "too many values");
      *out = idx;
      return parse_number (ps, idx);
    }
}

static void
free_nodes (GArray *nodes)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      g_free (g_array_index (nodes, QfMiniJson, i).string);
      g_free (g_array_index (nodes, QfMiniJson, i).key);
    }
  g_array_free (nodes, TRUE);
}

QfMiniJson *
qf_minijson_parse (const char  *text,
                   gsize        len,
                   GError     **error)
{
  Parser ps = { text, text + len, NULL, error };
  guint root;
  QfMiniJson *doc;

  g_return_val_if_fail (text != NULL || len == 0, NULL);

  if (len > QF_MINIJSON_MAX_TEXT)
    {
      g_set_error (error, QF_MINIJSON_ERROR, QF_MINIJSON_ERROR_LIMIT,
                   "JSON: document of %" G_GSIZE_FORMAT " bytes is over the %d-byte limit",
                   len, QF_MINIJSON_MAX_TEXT);
      return NULL;
    }
  ps.nodes = g_array_new (FALSE, TRUE, sizeof (QfMiniJson));
  if (!parse_value (&ps, 0, &root))
    {
      free_nodes (ps.nodes);
      return NULL;
    }
  skip_ws (&ps);
  if (ps.p != ps.end)
    {
      fail (&ps, QF_MINIJSON_ERROR_SYNTAX, "text after the value");
      free_nodes (ps.nodes);
      return NULL;
    }
  g_assert (root == 0);
  /* The array no longer grows: node pointers stay valid from here on. */
  for (guint i = 0; i < ps.nodes->len; i++)
    g_array_index (ps.nodes, QfMiniJson, i).doc = &g_array_index (ps.nodes, QfMiniJson, 0);
  doc = &g_array_index (ps.nodes, QfMiniJson, 0);
  doc->nodes = ps.nodes;
  return doc;
}

void
qf_minijson_free (QfMiniJson *doc)
{
  if (doc == NULL)
    return;
  g_return_if_fail (doc->nodes != NULL);
  free_nodes (doc->nodes);
}

static const QfMiniJson *
node_at (const QfMiniJson *any,
         guint             i)
{
  return i == NO_NODE ? NULL : &g_array_index (any->doc->nodes, QfMiniJson, i);
}

QfMiniJsonType
qf_minijson_type (const QfMiniJson *node)
{
  return node != NULL ? node->type : QF_MINIJSON_NULL;
}

const QfMiniJson *
qf_minijson_get (const QfMiniJson *object,
                 const char       *key)
{
  if (object == NULL || object->type != QF_MINIJSON_OBJECT || key == NULL)
    return NULL;
  for (const QfMiniJson *c = node_at (object, object->first_child); c != NULL;
       c = node_at (c, c->next))
    if (c->key != NULL && strcmp (c->key, key) == 0)
      return c;
  return NULL;
}

gboolean
qf_minijson_has (const QfMiniJson *object,
                 const char       *key)
{
  return qf_minijson_get (object, key) != NULL;
}

guint
qf_minijson_length (const QfMiniJson *node)
{
  if (node == NULL || (node->type != QF_MINIJSON_ARRAY && node->type != QF_MINIJSON_OBJECT))
    return 0;
  return node->n_children;
}

const QfMiniJson *
qf_minijson_index (const QfMiniJson *array,
                   guint             i)
{
  const QfMiniJson *c;

  if (array == NULL || array->type != QF_MINIJSON_ARRAY || i >= array->n_children)
    return NULL;
  c = node_at (array, array->first_child);
  while (i-- > 0 && c != NULL)
    c = node_at (c, c->next);
  return c;
}

const QfMiniJson *
qf_minijson_first (const QfMiniJson *node)
{
  if (node == NULL || (node->type != QF_MINIJSON_ARRAY && node->type != QF_MINIJSON_OBJECT))
    return NULL;
  return node_at (node, node->first_child);
}

const QfMiniJson *
qf_minijson_next (const QfMiniJson *node)
{
  return node != NULL ? node_at (node, node->next) : NULL;
}

const char *
qf_minijson_key (const QfMiniJson *node)
{
  return node != NULL ? node->key : NULL;
}

gboolean
qf_minijson_is_true (const QfMiniJson *node)
{
  if (node == NULL)
    return FALSE;
  if (node->type == QF_MINIJSON_BOOL)
    return node->boolean;
  if (node->type == QF_MINIJSON_NUMBER)
    return node->number != 0;
  return FALSE;
}

const char *
qf_minijson_string (const QfMiniJson *node)
{
  return node != NULL && node->type == QF_MINIJSON_STRING ? node->string : NULL;
}

gdouble
qf_minijson_double (const QfMiniJson *node,
                    gdouble           def)
{
  if (node == NULL || node->type != QF_MINIJSON_NUMBER)
    return def;
  return node->big_unsigned ? -1.0 : node->number;
}

gint64
qf_minijson_int (const QfMiniJson *node,
                 gint64            def)
{
  if (node == NULL || node->type != QF_MINIJSON_NUMBER)
    return def;
  return node->integer;
}

/* Writer */

void
qf_minijson_writer_init (QfMiniJsonWriter *w,
                         GString          *out)
{
  memset (w, 0, sizeof *w);
  w->out = out;
  w->first[0] = TRUE;
}

static void
before_value (QfMiniJsonWriter *w)
{
  if (!w->first[w->depth])
    g_string_append_c (w->out, ',');
  w->first[w->depth] = FALSE;
}

static void
begin (QfMiniJsonWriter *w,
       char              c)
{
  before_value (w);
  g_string_append_c (w->out, c);
  g_return_if_fail (w->depth < QF_MINIJSON_MAX_DEPTH);
  w->depth++;
  w->first[w->depth] = TRUE;
}

static void
end (QfMiniJsonWriter *w,
     char              c)
{
  g_return_if_fail (w->depth > 0);
  w->depth--;
  g_string_append_c (w->out, c);
}

void qf_minijson_writer_begin_object (QfMiniJsonWriter *w) { begin (w, '{'); }
void qf_minijson_writer_end_object (QfMiniJsonWriter *w) { end (w, '}'); }
void qf_minijson_writer_begin_array (QfMiniJsonWriter *w) { begin (w, '['); }
void qf_minijson_writer_end_array (QfMiniJsonWriter *w) { end (w, ']'); }

static void
append_quoted (GString    *out,
               const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

void
qf_minijson_writer_key (QfMiniJsonWriter *w,
                        const char       *key)
{
  before_value (w);
  append_quoted (w->out, key);
  g_string_append_c (w->out, ':');
  /* The value that follows must not get a comma of its own. */
  w->first[w->depth] = TRUE;
}

void
qf_minijson_writer_string (QfMiniJsonWriter *w,
                           const char       *value)
{
  before_value (w);
  append_quoted (w->out, value != NULL ? value : "");
}

void
qf_minijson_writer_int (QfMiniJsonWriter *w,
                        gint64            value)
{
  before_value (w);
  g_string_append_printf (w->out, "%" G_GINT64_FORMAT, value);
}

void
qf_minijson_writer_uint (QfMiniJsonWriter *w,
                         guint64           value)
{
  before_value (w);
  g_string_append_printf (w->out, "%" G_GUINT64_FORMAT, value);
}

void
qf_minijson_writer_double (QfMiniJsonWriter *w,
                           gdouble           value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  before_value (w);
  if (!isfinite (value))
    value = 0;
  g_ascii_formatd (buf, sizeof buf, "%.9g", value);
  g_string_append (w->out, buf);
}

void
qf_minijson_writer_bool (QfMiniJsonWriter *w,
                         gboolean          value)
{
  before_value (w);
  g_string_append (w->out, value ? "true" : "false");
}
