/* qf-pdf-xref.c — reading the objects of a PDF that cairo wrote, through classic xref tables and
 * cross-reference streams, with objects in object streams (src/core/report; see the header).
 *
 * PDF 1.7 (ISO 32000-1) §7.5.4 (xref table), §7.5.5 (trailer), §7.5.7 (object streams),
 * §7.5.8 (cross-reference streams). Every offset and count read from the file is checked
 * against the file's size before it is used.
 */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-pdf-xref.h"

G_DEFINE_QUARK (qf-pdf-error-quark, qf_pdf_error)

/* Where an object in an object stream is: the stream's object number and its index there. */
typedef struct
{
  gint64 stream;
  gint64 index;
} InStream;

const guint8 *
qf_pdf_find_bytes (const guint8 *hay,
                   gsize         hay_len,
                   const char   *needle)
{
  gsize n = strlen (needle);
  return n <= hay_len ? memmem (hay, hay_len, needle, n) : NULL;
}

const guint8 *
qf_pdf_rfind_bytes (const guint8 *hay,
                    gsize         hay_len,
                    const char   *needle)
{
  gsize n = strlen (needle);

  if (n > hay_len)
    return NULL;
  for (gsize i = hay_len - n + 1; i-- > 0; )
    if (hay[i] == (guint8) needle[0] && memcmp (hay + i, needle, n) == 0)
      return hay + i;
  return NULL;
}

gboolean
qf_pdf_dict_int (const char *text,
                 gsize       len,
                 const char *key,
                 gint64     *out)
{
  g_autofree char *pattern = g_strdup_printf ("%s ", key);
  const guint8 *p = qf_pdf_find_bytes ((const guint8 *) text, len, pattern);
  char *end;

  if (p == NULL)
    return FALSE;
  p += strlen (pattern);
  *out = g_ascii_strtoll ((const char *) p, &end, 10);
  return end != (const char *) p;
}

gboolean
qf_pdf_parse_error (GError    **error,
                    const char *what)
{
  g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_PARSE,
               _("Cannot read the PDF: %s. Was it written by Qualify?"), what);
  return FALSE;
}

GBytes *
qf_pdf_convert (GConverter   *converter,
                const guint8 *data,
                gsize         size,
                GError      **error)
{
  g_autoptr(GInputStream) src = g_memory_input_stream_new_from_data (data, size, NULL);
  g_autoptr(GInputStream) conv = g_converter_input_stream_new (src, converter);
  g_autoptr(GOutputStream) dst = g_memory_output_stream_new_resizable ();

  if (g_output_stream_splice (dst, conv, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, error) < 0)
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (dst));
}

GBytes *
qf_pdf_inflate (const guint8 *data,
                gsize         size,
                GError      **error)
{
  g_autoptr(GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_ZLIB);

  return qf_pdf_convert (G_CONVERTER (z), data, size, error);
}

/* Notes where object num is, unless a newer section said so already. */
static void
note_offset (QfPdfFile *pdf,
             gint64     num,
             gsize      offset)
{
  gpointer key = GINT_TO_POINTER ((gint) num);

  if (num < 0 || num > G_MAXINT || g_hash_table_contains (pdf->offsets, key) ||
      g_hash_table_contains (pdf->compressed, key))
    return;
  g_hash_table_insert (pdf->offsets, key, GSIZE_TO_POINTER (offset));
}

static void
note_in_stream (QfPdfFile *pdf,
                gint64     num,
                gint64     stream,
                gint64     index)
{
  gpointer key = GINT_TO_POINTER ((gint) num);
  InStream *where;

  if (num < 0 || num > G_MAXINT || g_hash_table_contains (pdf->offsets, key) ||
      g_hash_table_contains (pdf->compressed, key))
    return;
  where = g_new (InStream, 1);
  *where = (InStream) { stream, index };
  g_hash_table_insert (pdf->compressed, key, where);
}

/* The trailer keys of the newest section, from its trailer or xref stream dictionary. */
static gboolean
read_trailer (QfPdfFile  *pdf,
              const char *dict,
              gsize       len,
              GError    **error)
{
  if (!qf_pdf_dict_int (dict, len, "/Size", &pdf->size_entry) ||
      !qf_pdf_dict_int (dict, len, "/Root", &pdf->root))
    return qf_pdf_parse_error (error, _("the trailer lacks /Size or /Root"));
  if (!qf_pdf_dict_int (dict, len, "/Info", &pdf->info))
    pdf->info = -1;
  if (qf_pdf_find_bytes ((const guint8 *) dict, len, "/Encrypt") != NULL)
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_UNSUPPORTED, _("The PDF is encrypted."));
      return FALSE;
    }
  return TRUE;
}

static gboolean parse_section (QfPdfFile *pdf, gsize off, int depth, GError **error);

/* One classic xref table at p (just after "xref") and its trailer; follows /Prev. */
static gboolean
parse_table (QfPdfFile  *pdf,
             const char *p,
             int         depth,
             GError    **error)
{
  const char *end = (const char *) pdf->data + pdf->size;
  const guint8 *trailer, *trailer_end;
  gint64 prev;

  for (;;)
    {
      char *q;
      gint64 first, count;

      while (p < end && g_ascii_isspace (*p))
        p++;
      if (p >= end || !g_ascii_isdigit (*p))
        break;
      first = g_ascii_strtoll (p, &q, 10);
      count = g_ascii_strtoll (q, &q, 10);
      p = q;
      while (p < end && g_ascii_isspace (*p))
        p++;
      if (count < 0 || first < 0 || end - p < count * 20)
        return qf_pdf_parse_error (error, _("truncated cross-reference table"));
      for (gint64 i = 0; i < count; i++, p += 20)
        if (p[17] == 'n')
          note_offset (pdf, first + i, (gsize) g_ascii_strtoull (p, NULL, 10));
    }
  trailer = qf_pdf_find_bytes ((const guint8 *) p, end - p, "trailer");
  if (trailer == NULL)
    return qf_pdf_parse_error (error, _("no trailer"));
  trailer_end = qf_pdf_find_bytes (trailer, (const guint8 *) end - trailer, "startxref");
  if (trailer_end == NULL)
    return qf_pdf_parse_error (error, _("no startxref after the trailer"));
  if (depth == 0 && !read_trailer (pdf, (const char *) trailer, trailer_end - trailer, error))
    return FALSE;
  if (qf_pdf_dict_int ((const char *) trailer, trailer_end - trailer, "/Prev", &prev))
    return parse_section (pdf, (gsize) prev, depth + 1, error);
  return TRUE;
}

/* The stream of the object whose "N G obj" is at off: its dictionary's text and its raw bytes.
 * /Length is direct, or a reference to an object holding the number. */
static const guint8 *
stream_at (QfPdfFile *pdf,
           gsize      off,
           gsize     *length,
           char     **dict,
           GError   **error)
{
  const guint8 *end = pdf->data + pdf->size, *head, *kw, *s;
  gint64 len = -1;

  head = qf_pdf_find_bytes (pdf->data + off, end - (pdf->data + off), "obj");
  kw = head != NULL ? qf_pdf_find_bytes (head, end - head, "stream") : NULL;
  if (kw == NULL)
    {
      qf_pdf_parse_error (error, _("an object has no stream"));
      return NULL;
    }
  *dict = g_strndup ((const char *) head + 3, kw - (head + 3));
  s = kw + strlen ("stream");
  if (s < end && *s == '\r')
    s++;
  if (s < end && *s == '\n')
    s++;
  if (qf_pdf_dict_int (*dict, strlen (*dict), "/Length", &len))
    {
      g_autofree char *ref = g_strdup_printf ("/Length %" G_GINT64_FORMAT " 0 R", len);
      if (strstr (*dict, ref) != NULL)
        {
          g_autofree char *value = qf_pdf_file_object (pdf, len, error);
          if (value == NULL)
            return NULL;
          len = g_ascii_strtoll (value, NULL, 10);
        }
    }
  if (len < 0 || (guint64) len > (guint64) (end - s))
    {
      g_clear_pointer (dict, g_free);
      qf_pdf_parse_error (error, _("a stream runs past the end of the file"));
      return NULL;
    }
  *length = (gsize) len;
  return s;
}

/* The decoded data of a stream dictionary's stream: FlateDecode or none, no predictor. */
static GBytes *
decode_stream (const char   *dict,
               const guint8 *raw,
               gsize         length,
               GError      **error)
{
  gint64 predictor;

  if (qf_pdf_dict_int (dict, strlen (dict), "/Predictor", &predictor) && predictor > 1)
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_UNSUPPORTED,
                   _("The PDF's cross-reference stream uses a predictor, which Qualify does not read."));
      return NULL;
    }
  if (strstr (dict, "/Filter") == NULL)
    return g_bytes_new (raw, length);
  if (strstr (dict, "/FlateDecode") == NULL)
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_UNSUPPORTED,
                   _("The PDF uses a stream filter other than FlateDecode."));
      return NULL;
    }
  return qf_pdf_inflate (raw, length, error);
}

/* Reads the numbers of the array after key ("/W [1 2 2]"), at most max; their count, or -1. */
static int
dict_ints (const char *dict,
           const char *key,
           gint64     *out,
           int         max)
{
  const char *p = strstr (dict, key);
  int n = 0;

  if (p == NULL || (p = strchr (p, '[')) == NULL)
    return -1;
  for (p++;; n++)
    {
      char *q;
      while (g_ascii_isspace (*p))
        p++;
      if (*p == ']')
        return n;
      if (n == max)
        return -1;
      out[n] = g_ascii_strtoll (p, &q, 10);
      if (q == p || out[n] < 0)
        return -1;
      p = q;
    }
}

/* A big-endian field of width w (0: the default def). */
static guint64
field (const guint8 *row,
       gint64        w,
       guint64       def)
{
  guint64 v = 0;

  if (w == 0)
    return def;
  for (gint64 i = 0; i < w; i++)
    v = (v << 8) | row[i];
  return v;
}

/* The entries of a cross-reference stream's data (/W widths, /Index subsections). */
static gboolean
read_xref_rows (QfPdfFile  *pdf,
                const char *dict,
                GBytes     *rows,
                GError    **error)
{
  gint64 w[3], index[64], size;
  int n_index;
  gsize len, row_len, pos = 0;
  const guint8 *d = g_bytes_get_data (rows, &len);

  if (dict_ints (dict, "/W", w, 3) != 3 || w[0] > 4 || w[1] > 8 || w[2] > 8 ||
      !qf_pdf_dict_int (dict, strlen (dict), "/Size", &size))
    return qf_pdf_parse_error (error, _("a cross-reference stream without /W or /Size"));
  row_len = (gsize) (w[0] + w[1] + w[2]);
  /* no /Index: one subsection of all objects; an /Index that cannot be read (or has more than
   * 32 subsections) is refused rather than read as the default */
  n_index = dict_ints (dict, "/Index", index, G_N_ELEMENTS (index));
  if (n_index < 0 && strstr (dict, "/Index") == NULL)
    {
      index[0] = 0;
      index[1] = size;
      n_index = 2;
    }
  if (row_len == 0 || n_index < 0 || n_index % 2 != 0)
    return qf_pdf_parse_error (error, _("a cross-reference stream with a bad /W or /Index"));
  for (int s = 0; s < n_index; s += 2)
    for (gint64 i = 0; i < index[s + 1]; i++, pos += row_len)
      {
        const guint8 *row = d + pos;
        guint64 type, f2, f3;

        if (pos + row_len > len)
          return qf_pdf_parse_error (error, _("truncated cross-reference stream"));
        type = field (row, w[0], 1);
        f2 = field (row + w[0], w[1], 0);
        f3 = field (row + w[0] + w[1], w[2], 0);
        if (type == 1 && f2 < pdf->size)
          note_offset (pdf, index[s] + i, (gsize) f2);
        else if (type == 2)
          note_in_stream (pdf, index[s] + i, (gint64) f2, (gint64) f3);
      }
  return TRUE;
}

/* One cross-reference stream object at off; follows /Prev. */
static gboolean
parse_stream_section (QfPdfFile *pdf,
                      gsize      off,
                      int        depth,
                      GError   **error)
{
  g_autofree char *dict = NULL;
  g_autoptr(GBytes) rows = NULL;
  const guint8 *raw;
  gsize length;
  gint64 prev;

  raw = stream_at (pdf, off, &length, &dict, error);
  if (raw == NULL)
    return FALSE;
  if (strstr (dict, "/XRef") == NULL)
    return qf_pdf_parse_error (error, _("startxref points to neither a table nor a cross-reference stream"));
  if (depth == 0 && !read_trailer (pdf, dict, strlen (dict), error))
    return FALSE;
  rows = decode_stream (dict, raw, length, error);
  if (rows == NULL || !read_xref_rows (pdf, dict, rows, error))
    return FALSE;
  if (qf_pdf_dict_int (dict, strlen (dict), "/Prev", &prev))
    return parse_section (pdf, (gsize) prev, depth + 1, error);
  return TRUE;
}

/* The cross-reference section at off, a table or a stream, and the older ones it points to. */
static gboolean
parse_section (QfPdfFile *pdf,
               gsize      off,
               int        depth,
               GError   **error)
{
  const char *p;

  if (depth > 32 || off >= pdf->size)
    return qf_pdf_parse_error (error, _("cross-reference offset outside the file"));
  p = (const char *) pdf->data + off;
  if (pdf->size - off >= 4 && memcmp (p, "xref", 4) == 0)
    return parse_table (pdf, p + 4, depth, error);
  if (depth == 0)
    pdf->xref_stream = TRUE;
  return parse_stream_section (pdf, off, depth, error);
}

gboolean
qf_pdf_file_open (QfPdfFile    *pdf,
                  const guint8 *data,
                  gsize         size,
                  GError      **error)
{
  const guint8 *sx;
  gsize tail = MIN (size, 1024);

  memset (pdf, 0, sizeof *pdf);
  pdf->data = data;
  pdf->size = size;
  pdf->offsets = g_hash_table_new (NULL, NULL);
  pdf->compressed = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  if (size < 8 || memcmp (data, "%PDF-", 5) != 0)
    return qf_pdf_parse_error (error, _("it does not start with %PDF-"));
  sx = qf_pdf_rfind_bytes (data + size - tail, tail, "startxref");
  if (sx == NULL)
    return qf_pdf_parse_error (error, _("no startxref at the end"));
  pdf->startxref = g_ascii_strtoull ((const char *) sx + 9, NULL, 10);
  return parse_section (pdf, pdf->startxref, 0, error);
}

void
qf_pdf_file_close (QfPdfFile *pdf)
{
  g_clear_pointer (&pdf->offsets, g_hash_table_unref);
  g_clear_pointer (&pdf->compressed, g_hash_table_unref);
}

/* Object index of the object stream stream: its text. */
static char *
object_in_stream (QfPdfFile *pdf,
                  gint64     stream,
                  gint64     index,
                  GError   **error)
{
  g_autofree char *dict = NULL;
  g_autoptr(GBytes) body = NULL;
  const guint8 *raw, *d;
  gsize length, len;
  gint64 n, first, start = -1, stop = -1;
  const char *p;

  raw = qf_pdf_file_stream (pdf, stream, &length, &dict, error);
  if (raw == NULL)
    return NULL;
  if (strstr (dict, "/ObjStm") == NULL || !qf_pdf_dict_int (dict, strlen (dict), "/N", &n) ||
      !qf_pdf_dict_int (dict, strlen (dict), "/First", &first))
    {
      qf_pdf_parse_error (error, _("an object stream without /N or /First"));
      return NULL;
    }
  body = decode_stream (dict, raw, length, error);
  if (body == NULL)
    return NULL;
  d = g_bytes_get_data (body, &len);
  if (index < 0 || index >= n || first < 0 || (guint64) first > len)
    {
      qf_pdf_parse_error (error, _("an object stream is shorter than its index"));
      return NULL;
    }
  /* the header: n pairs "number offset", offsets relative to /First, in order */
  p = (const char *) d;
  for (gint64 i = 0; i <= index + 1 && i < n; i++)
    {
      char *q;
      g_ascii_strtoll (p, &q, 10);
      gint64 off = g_ascii_strtoll (q, &q, 10);
      if (q == p || q > (const char *) d + first)
        {
          qf_pdf_parse_error (error, _("an object stream's header is damaged"));
          return NULL;
        }
      p = q;
      if (i == index)
        start = first + off;
      else if (i == index + 1)
        stop = first + off;
    }
  if (stop < 0)
    stop = (gint64) len;
  if (start < first || stop < start || (guint64) stop > len)
    {
      qf_pdf_parse_error (error, _("an object stream's header is damaged"));
      return NULL;
    }
  return g_strstrip (g_strndup ((const char *) d + start, (gsize) (stop - start)));
}

/* Where the uncompressed object num starts: the offset of its "num 0 obj", checked to be there,
 * and in *body the offset just after it. */
static gboolean
object_offset (QfPdfFile *pdf,
               gint64     num,
               gsize     *offset,
               gsize     *body,
               GError   **error)
{
  gpointer value;
  g_autofree char *header = g_strdup_printf ("%" G_GINT64_FORMAT " 0 obj", num);

  if (num < 0 || num > G_MAXINT ||
      !g_hash_table_lookup_extended (pdf->offsets, GINT_TO_POINTER ((gint) num), NULL, &value))
    return qf_pdf_parse_error (error, _("an object is missing from the cross-reference table"));
  *offset = GPOINTER_TO_SIZE (value);
  if (*offset + strlen (header) > pdf->size ||
      memcmp (pdf->data + *offset, header, strlen (header)) != 0)
    return qf_pdf_parse_error (error, _("a cross-reference entry points to the wrong place"));
  *body = *offset + strlen (header);
  return TRUE;
}

char *
qf_pdf_file_object (QfPdfFile *pdf,
                    gint64     num,
                    GError   **error)
{
  gsize off, body;
  const guint8 *start, *stop;
  InStream *where = num >= 0 && num <= G_MAXINT
                    ? g_hash_table_lookup (pdf->compressed, GINT_TO_POINTER ((gint) num)) : NULL;

  if (where != NULL)
    {
      char *text = NULL;

      /* an object stream's /Length may itself sit in an object stream: bounded, since a
       * damaged file could make that a loop */
      if (pdf->nesting >= 4)
        qf_pdf_parse_error (error, _("object streams refer to each other in a loop"));
      else
        {
          pdf->nesting++;
          text = object_in_stream (pdf, where->stream, where->index, error);
          pdf->nesting--;
        }
      return text;
    }
  if (!object_offset (pdf, num, &off, &body, error))
    return NULL;
  start = pdf->data + body;
  stop = qf_pdf_find_bytes (start, pdf->data + pdf->size - start, "endobj");
  if (stop == NULL)
    {
      qf_pdf_parse_error (error, _("an object has no endobj"));
      return NULL;
    }
  return g_strstrip (g_strndup ((const char *) start, stop - start));
}

const guint8 *
qf_pdf_file_stream (QfPdfFile *pdf,
                    gint64     num,
                    gsize     *length,
                    char     **dict,
                    GError   **error)
{
  gsize off, body;

  if (!object_offset (pdf, num, &off, &body, error))
    return NULL;
  return stream_at (pdf, off, length, dict, error);
}
