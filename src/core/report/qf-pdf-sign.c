/* qf-pdf-sign.c — incremental update of a cairo PDF: embedded file + adbe.pkcs7.detached
 * signature, and the readers verification needs (src/core).
 *
 * Only what cairo writes has to be understood here (its objects are read by qf-pdf-xref.c):
 * direct /Size, /Root, /Info in the trailer, the catalog and page as plain dictionaries. Anything
 * else is refused with QF_PDF_ERROR_UNSUPPORTED rather than guessed at. The update's own
 * cross-reference section is of the kind the file's newest one is: a classic table after a
 * table (cairo 1.16), a cross-reference stream after a stream (cairo 1.18).
 */
#include "config.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-pdf-sign.h"
#include "qf-pdf-xref.h"

/* Room for "[0 N N N]" with 10-digit numbers, padded with spaces. */
#define BYTE_RANGE_WIDTH 48

/* A dictionary with extra entries added before its closing ">>". */
static char *
dict_append (const char *dict,
             const char *extra)
{
  gsize len = strlen (dict);

  if (len < 4 || !g_str_has_prefix (dict, "<<") || !g_str_has_suffix (dict, ">>"))
    return NULL;
  return g_strdup_printf ("%.*s\n   %s\n>>", (int) (len - 2), dict, extra);
}

typedef struct
{
  gint64 num;
  gsize  offset;
} XrefEntry;

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const XrefEntry *x = a, *y = b;
  return x->num < y->num ? -1 : x->num > y->num;
}

static void
begin_object (GByteArray *out,
              GArray     *entries,
              gint64      num)
{
  XrefEntry e = { num, out->len };
  g_autofree char *s = g_strdup_printf ("%" G_GINT64_FORMAT " 0 obj\n", num);

  g_array_append_val (entries, e);
  g_byte_array_append (out, (const guint8 *) s, strlen (s));
}

static void
append_str (GByteArray *out,
            const char *s)
{
  g_byte_array_append (out, (const guint8 *) s, strlen (s));
}

static void G_GNUC_PRINTF (2, 3)
append_printf (GByteArray *out,
               const char *format,
               ...)
{
  va_list ap;
  g_autofree char *s = NULL;

  va_start (ap, format);
  s = g_strdup_vprintf (format, ap);
  va_end (ap);
  append_str (out, s);
}

/* A PDF text string as UTF-16BE hex with a byte-order mark: safe for any language. */
static char *
pdf_text_string (const char *utf8)
{
  g_autofree gunichar2 *utf16 = NULL;
  glong n = 0;
  GString *s = g_string_new ("<FEFF");

  utf16 = g_utf8_to_utf16 (utf8 ? utf8 : "", -1, NULL, &n, NULL);
  for (glong i = 0; utf16 != NULL && i < n; i++)
    g_string_append_printf (s, "%04X", utf16[i]);
  g_string_append_c (s, '>');
  return g_string_free (s, FALSE);
}

/* A PDF literal string of printable ASCII (names of files). */
static char *
pdf_ascii_string (const char *s)
{
  GString *out = g_string_new ("(");

  for (const char *p = s; *p; p++)
    {
      if (*p == '(' || *p == ')' || *p == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, (*p >= 32 && *p < 127) ? *p : '_');
    }
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

static GBytes *
deflate_bytes (GBytes  *in,
               GError **error)
{
  g_autoptr(GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_ZLIB, 6);
  gsize size;
  const guint8 *data = g_bytes_get_data (in, &size);

  return qf_pdf_convert (G_CONVERTER (z), data, size, error);
}

/* One incremental update while it is planned and written. */
typedef struct
{
  QfPdfFile   pdf;
  GArray     *entries;         /* XrefEntry of each object written */
  GByteArray *out;             /* the original file, then the update */
  gint64      next;            /* the next free object number */
  gint64      page_num;        /* the page rewritten with the signature's widget */
  char       *new_page;
  const QfPdfSignatureBox *box;  /* where the widget shows; NULL: invisible on the first page */
  GDateTime  *signing_time;    /* /M and the CMS signingTime */
  gint64      sig_obj, widget_obj, form_obj, appearance_obj;
  gint64      file_obj, spec_obj;
  gsize       byte_range_pos;  /* where the /ByteRange placeholder starts */
  gsize       contents_pos;    /* where the /Contents hex string starts ("<") */
} PdfUpdate;

static void
pdf_update_clear (PdfUpdate *u)
{
  qf_pdf_file_close (&u->pdf);
  g_clear_pointer (&u->entries, g_array_unref);
  g_clear_pointer (&u->out, g_byte_array_unref);
  g_clear_pointer (&u->new_page, g_free);
  g_clear_pointer (&u->signing_time, g_date_time_unref);
}

/* The object number of the index-th reference in the /Kids array of pages; -1 when the array
 * is shorter. */
static gint64
kid_at (const char *kids,
        guint       index)
{
  const char *p = kids;

  for (guint i = 0;; i++)
    {
      char *end;
      gint64 num;

      while (*p == ' ' || *p == '\n' || *p == '\r')
        p++;
      if (!g_ascii_isdigit (*p))
        return -1;
      num = g_ascii_strtoll (p, &end, 10);
      if (i == index)
        return num;
      /* Skip "N G R". */
      p = end;
      g_ascii_strtoll (p, &end, 10);
      p = end;
      while (*p == ' ')
        p++;
      if (*p != 'R')
        return -1;
      p++;
    }
}

/* The index-th page of the page tree (cairo writes one flat /Pages node): its text, and its
 * number in *page_num. */
static char *
page_at (QfPdfFile    *pdf,
         const char *catalog,
         guint       index,
         gint64     *page_num,
         GError    **error)
{
  g_autofree char *pages = NULL;
  gint64 pages_num;
  const char *kids;
  char *page;

  if (!qf_pdf_dict_int (catalog, strlen (catalog), "/Pages", &pages_num))
    {
      qf_pdf_parse_error (error, _("the catalog has no /Pages"));
      return NULL;
    }
  pages = qf_pdf_file_object (pdf, pages_num, error);
  if (pages == NULL)
    return NULL;
  kids = strstr (pages, "/Kids");
  if (kids == NULL || strchr (kids, '[') == NULL)
    {
      qf_pdf_parse_error (error, _("the page tree has no /Kids"));
      return NULL;
    }
  *page_num = kid_at (strchr (kids, '[') + 1, index);
  if (*page_num < 0)
    {
      qf_pdf_parse_error (error, _("the page for the signature is not in the page tree"));
      return NULL;
    }
  page = qf_pdf_file_object (pdf, *page_num, error);
  if (page != NULL && (strstr (page, "/Type /Page") == NULL || strstr (page, "/Type /Pages") != NULL))
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_UNSUPPORTED,
                   _("The page tree is not flat; only the page trees cairo writes can be updated."));
      g_free (page);
      return NULL;
    }
  return page;
}

/* Numbers the signature's objects (signature, widget, form, and the widget's appearance when
 * it is visible), puts the widget first in its page's /Annots and adds the /AcroForm to
 * catalog_extra. */
static gboolean
plan_signature (PdfUpdate  *u,
                const char *catalog,
                GString    *catalog_extra,
                GError    **error)
{
  g_autofree char *page = page_at (&u->pdf, catalog, u->box ? u->box->page_index : 0,
                                   &u->page_num, error);

  if (page == NULL)
    return FALSE;
  u->sig_obj = u->next++;
  u->widget_obj = u->next++;
  u->form_obj = u->next++;
  if (u->box != NULL)
    u->appearance_obj = u->next++;
  if (strstr (page, "/Annots") != NULL)
    {
      char *bracket = strstr (strstr (page, "/Annots"), "[");
      if (bracket == NULL)
        {
          g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_UNSUPPORTED,
                       _("The page's /Annots is not a direct array."));
          return FALSE;
        }
      u->new_page = g_strdup_printf ("%.*s[ %" G_GINT64_FORMAT " 0 R %s", (int) (bracket - page),
                                     page, u->widget_obj, bracket + 1);
    }
  else
    {
      g_autofree char *annots = g_strdup_printf ("/Annots [ %" G_GINT64_FORMAT " 0 R ]", u->widget_obj);
      u->new_page = dict_append (page, annots);
    }
  g_string_append_printf (catalog_extra, "/AcroForm %" G_GINT64_FORMAT " 0 R ", u->form_obj);
  return TRUE;
}

/* Numbers the embedded file and its file specification, listed in catalog_extra's name tree. */
static void
plan_attachment (PdfUpdate  *u,
                 const char *attachment_name,
                 GString    *catalog_extra)
{
  g_autofree char *name = pdf_ascii_string (attachment_name ? attachment_name : "attachment");

  u->file_obj = u->next++;
  u->spec_obj = u->next++;
  g_string_append_printf (catalog_extra,
                          "/Names << /EmbeddedFiles << /Names [ %s %" G_GINT64_FORMAT " 0 R ] >> >> ",
                          name, u->spec_obj);
}

/* Reads the catalog, numbers the new objects and returns the new catalog's text. Returns NULL
 * with *unchanged set when there is nothing to add, or NULL with error. */
static char *
plan_update (PdfUpdate  *u,
             const char *attachment_name,
             GBytes     *attachment,
             QfSigner   *signer,
             gboolean   *unchanged,
             GError    **error)
{
  g_autofree char *catalog = qf_pdf_file_object (&u->pdf, u->pdf.root, error);
  g_autoptr(GString) catalog_extra = g_string_new (NULL);
  char *new_catalog;

  if (catalog == NULL)
    return NULL;
  if (strstr (catalog, "/AcroForm") != NULL || strstr (catalog, "/Names") != NULL)
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_UNSUPPORTED,
                   _("The PDF already has a form or a name tree; Qualify signs only the reports it has just written."));
      return NULL;
    }
  u->next = u->pdf.size_entry;
  if (signer != NULL && !plan_signature (u, catalog, catalog_extra, error))
    return NULL;
  if (attachment != NULL)
    plan_attachment (u, attachment_name, catalog_extra);
  if (catalog_extra->len == 0)
    {
      *unchanged = TRUE;
      return NULL;
    }
  new_catalog = dict_append (catalog, catalog_extra->str);
  if (new_catalog == NULL || (signer != NULL && u->new_page == NULL))
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_UNSUPPORTED,
                   _("The catalog or the signature's page is not a plain dictionary."));
      g_free (new_catalog);
      return NULL;
    }
  return new_catalog;
}

/* The embedded file (deflated) and its file specification. */
static gboolean
write_attachment (PdfUpdate  *u,
                  const char *attachment_name,
                  GBytes     *attachment,
                  const char *attachment_description,
                  GError    **error)
{
  g_autoptr(GBytes) packed = deflate_bytes (attachment, error);
  g_autofree char *name = pdf_ascii_string (attachment_name ? attachment_name : "attachment");
  g_autofree char *uname = pdf_text_string (attachment_name ? attachment_name : "attachment");
  g_autofree char *desc = pdf_text_string (attachment_description ? attachment_description : "");
  gsize packed_len;
  const guint8 *packed_data;

  if (packed == NULL)
    return FALSE;
  packed_data = g_bytes_get_data (packed, &packed_len);
  begin_object (u->out, u->entries, u->file_obj);
  append_printf (u->out, "<< /Type /EmbeddedFile /Subtype /application#2Fjson /Filter /FlateDecode"
                         " /Length %" G_GSIZE_FORMAT " /Params << /Size %" G_GSIZE_FORMAT " >> >>\nstream\n",
                 packed_len, g_bytes_get_size (attachment));
  g_byte_array_append (u->out, packed_data, packed_len);
  append_str (u->out, "\nendstream\nendobj\n");
  begin_object (u->out, u->entries, u->spec_obj);
  append_printf (u->out, "<< /Type /Filespec /F %s /UF %s /Desc %s /AFRelationship /Data"
                         " /EF << /F %" G_GINT64_FORMAT " 0 R /UF %" G_GINT64_FORMAT " 0 R >> >>\nendobj\n",
                 name, uname, desc, u->file_obj, u->file_obj);
  return TRUE;
}

/* The signature dictionary with blanks for /ByteRange and zeros for /Contents, filled in by
 * fill_signature() once the whole update is written. */
static void
write_signature_dictionary (PdfUpdate  *u,
                            QfSigner   *signer,
                            const char *reason)
{
  g_autofree char *when = g_date_time_format (u->signing_time, "D:%Y%m%d%H%M%S+00'00'");
  g_autofree char *why = pdf_text_string (reason ? reason : "");
  g_autofree char *signer_name = qf_signer_get_subject (signer);
  g_autofree char *who = pdf_text_string (signer_name);

  begin_object (u->out, u->entries, u->sig_obj);
  append_printf (u->out, "<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached\n"
                         "   /M (%s) /Reason %s /Name %s\n   /ByteRange ", when, why, who);
  u->byte_range_pos = u->out->len;
  for (int i = 0; i < BYTE_RANGE_WIDTH; i++)
    append_str (u->out, " ");
  append_str (u->out, "\n   /Contents ");
  u->contents_pos = u->out->len;
  append_str (u->out, "<");
  for (int i = 0; i < 2 * QF_PDF_SIGNATURE_RESERVE; i++)
    append_str (u->out, "0");
  append_str (u->out, ">\n>>\nendobj\n");
}

/* A number for a PDF file: C locale, two decimals. */
static char *
pdf_real (gdouble value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.2f", value));
}

/* The visible widget's appearance: a form XObject drawing a thin frame just inside the box
 * (what the box says is printed on the page itself, in the report's embedded fonts). */
static void
write_appearance (PdfUpdate *u,
                  gdouble    width,
                  gdouble    height)
{
  g_autofree char *w = pdf_real (width), *h = pdf_real (height);
  g_autofree char *fw = pdf_real (width - 1.2), *fh = pdf_real (height - 1.2);
  g_autofree char *content = g_strdup_printf ("q 0.16 0.33 0.58 RG 1.2 w 0.6 0.6 %s %s re S Q\n", fw, fh);

  begin_object (u->out, u->entries, u->appearance_obj);
  append_printf (u->out, "<< /Type /XObject /Subtype /Form /BBox [ 0 0 %s %s ] /Resources << >>"
                         " /Length %" G_GSIZE_FORMAT " >>\nstream\n%sendstream\nendobj\n",
                 w, h, strlen (content), content);
}

/* The widget, merged with its field: invisible (empty /Rect) or over the box with its
 * appearance. /F 132 = Print + Locked: printed with the page, not movable. */
static void
write_widget (PdfUpdate *u)
{
  g_autofree char *rect = NULL, *appearance = NULL;

  if (u->box != NULL)
    {
      g_autofree char *x1 = pdf_real (u->box->x1), *y1 = pdf_real (u->box->y1);
      g_autofree char *x2 = pdf_real (u->box->x2), *y2 = pdf_real (u->box->y2);
      rect = g_strdup_printf ("[ %s %s %s %s ]", x1, y1, x2, y2);
      appearance = g_strdup_printf (" /AP << /N %" G_GINT64_FORMAT " 0 R >>", u->appearance_obj);
    }
  begin_object (u->out, u->entries, u->widget_obj);
  append_printf (u->out, "<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signature1) /V %" G_GINT64_FORMAT
                         " 0 R /F 132 /Rect %s /P %" G_GINT64_FORMAT " 0 R%s >>\nendobj\n",
                 u->sig_obj, rect ? rect : "[0 0 0 0]", u->page_num, appearance ? appearance : "");
  if (u->box != NULL)
    write_appearance (u, u->box->x2 - u->box->x1, u->box->y2 - u->box->y1);
}

/* The page with its widget, the signature, the widget and the form. */
static void
write_signature_objects (PdfUpdate  *u,
                         QfSigner   *signer,
                         const char *reason)
{
  begin_object (u->out, u->entries, u->page_num);
  append_printf (u->out, "%s\nendobj\n", u->new_page);
  write_signature_dictionary (u, signer, reason);
  write_widget (u);
  begin_object (u->out, u->entries, u->form_obj);
  append_printf (u->out, "<< /Fields [ %" G_GINT64_FORMAT " 0 R ] /SigFlags 3 >>\nendobj\n", u->widget_obj);
}

/* The end of the run of consecutive object numbers that starts at entry i (sorted entries). */
static guint
run_end (GArray *entries,
         guint   i)
{
  guint j = i + 1;

  while (j < entries->len &&
         g_array_index (entries, XrefEntry, j).num == g_array_index (entries, XrefEntry, j - 1).num + 1)
    j++;
  return j;
}

/* The update's classic cross-reference section: the free head, then one subsection per run of
 * consecutive object numbers; then the trailer pointing back to the previous section. */
static void
write_xref_table (PdfUpdate *u)
{
  GArray *entries = u->entries;
  gsize xref_pos;

  g_array_sort (entries, compare_entries);
  xref_pos = u->out->len;
  append_str (u->out, "xref\n0 1\n0000000000 65535 f \n");
  for (guint i = 0, j; i < entries->len; i = j)
    {
      j = run_end (entries, i);
      append_printf (u->out, "%" G_GINT64_FORMAT " %u\n", g_array_index (entries, XrefEntry, i).num, j - i);
      for (guint k = i; k < j; k++)
        append_printf (u->out, "%010" G_GSIZE_FORMAT " 00000 n \n", g_array_index (entries, XrefEntry, k).offset);
    }
  append_printf (u->out, "trailer\n<< /Size %" G_GINT64_FORMAT " /Root %" G_GINT64_FORMAT " 0 R",
                 u->next, u->pdf.root);
  if (u->pdf.info >= 0)
    append_printf (u->out, " /Info %" G_GINT64_FORMAT " 0 R", u->pdf.info);
  append_printf (u->out, " /Prev %" G_GSIZE_FORMAT " >>\nstartxref\n%" G_GSIZE_FORMAT "\n%%%%EOF\n",
                 u->pdf.startxref, xref_pos);
}

/* The update's cross-reference stream, after a file whose newest section is one (PDF 1.7
 * §7.5.8): an object of its own, numbered last and listed in itself, with the trailer's keys in
 * its dictionary and uncompressed rows of /W [1 4 2] (type 1, offset, generation 0). */
static void
write_xref_stream (PdfUpdate *u)
{
  GArray *entries = u->entries;
  XrefEntry self = { u->next++, u->out->len };
  g_autoptr(GString) index = g_string_new ("0 1");
  g_autoptr(GByteArray) rows = g_byte_array_new ();
  static const guint8 free_head[7] = { 0, 0, 0, 0, 0, 0xff, 0xff };

  g_array_append_val (entries, self);
  g_array_sort (entries, compare_entries);
  g_byte_array_append (rows, free_head, sizeof free_head);
  for (guint i = 0, j; i < entries->len; i = j)
    {
      j = run_end (entries, i);
      g_string_append_printf (index, " %" G_GINT64_FORMAT " %u", g_array_index (entries, XrefEntry, i).num, j - i);
      for (guint k = i; k < j; k++)
        {
          gsize off = g_array_index (entries, XrefEntry, k).offset;
          guint8 row[7] = { 1, (guint8) (off >> 24), (guint8) (off >> 16), (guint8) (off >> 8), (guint8) off, 0, 0 };

          g_assert (off <= G_MAXUINT32);
          g_byte_array_append (rows, row, sizeof row);
        }
    }
  append_printf (u->out, "%" G_GINT64_FORMAT " 0 obj\n<< /Type /XRef /Size %" G_GINT64_FORMAT
                 " /Root %" G_GINT64_FORMAT " 0 R", self.num, u->next, u->pdf.root);
  if (u->pdf.info >= 0)
    append_printf (u->out, " /Info %" G_GINT64_FORMAT " 0 R", u->pdf.info);
  append_printf (u->out, " /Prev %" G_GSIZE_FORMAT " /W [1 4 2] /Index [%s] /Length %u >>\nstream\n",
                 u->pdf.startxref, index->str, rows->len);
  g_byte_array_append (u->out, rows->data, rows->len);
  append_printf (u->out, "\nendstream\nendobj\nstartxref\n%" G_GSIZE_FORMAT "\n%%%%EOF\n", self.offset);
}

/* Writes the byte ranges (everything but the /Contents hex), signs those bytes and puts the
 * DER signature as hex into the reserved /Contents. */
static gboolean
fill_signature (PdfUpdate *u,
                QfSigner  *signer,
                GError   **error)
{
  GByteArray *out = u->out;
  gsize sig_start = u->contents_pos, sig_end = u->contents_pos + 2 + 2 * QF_PDF_SIGNATURE_RESERVE;
  g_autofree char *range = g_strdup_printf ("[0 %" G_GSIZE_FORMAT " %" G_GSIZE_FORMAT " %" G_GSIZE_FORMAT "]",
                                            sig_start, sig_end, out->len - sig_end);
  g_autoptr(GByteArray) covered = g_byte_array_sized_new (out->len);
  g_autoptr(GBytes) cms = NULL;
  const guint8 *der;
  gsize der_len;

  g_assert (strlen (range) <= BYTE_RANGE_WIDTH);
  memcpy (out->data + u->byte_range_pos, range, strlen (range));
  g_byte_array_append (covered, out->data, sig_start);
  g_byte_array_append (covered, out->data + sig_end, out->len - sig_end);
  cms = qf_signer_sign_detached_at (signer, covered->data, covered->len, u->signing_time, error);
  if (cms == NULL)
    return FALSE;
  der = g_bytes_get_data (cms, &der_len);
  if (der_len > QF_PDF_SIGNATURE_RESERVE)
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_SIGN,
                   _("The signature (%u bytes) is larger than the %u bytes reserved for it; the certificate chain is too long."),
                   (guint) der_len, (guint) QF_PDF_SIGNATURE_RESERVE);
      return FALSE;
    }
  for (gsize i = 0; i < der_len; i++)
    {
      static const char hex[] = "0123456789ABCDEF";
      out->data[sig_start + 1 + 2 * i] = hex[der[i] >> 4];
      out->data[sig_start + 2 + 2 * i] = hex[der[i] & 15];
    }
  return TRUE;
}

GBytes *
qf_pdf_update (GBytes                  *pdf_bytes,
               const char              *attachment_name,
               GBytes                  *attachment,
               const char              *attachment_description,
               QfSigner                *signer,
               const char              *reason,
               const QfPdfSignatureBox *box,
               GDateTime               *signing_time,
               GError                 **error)
{
  PdfUpdate u = { .page_num = -1, .sig_obj = -1, .widget_obj = -1, .form_obj = -1,
                  .appearance_obj = -1, .file_obj = -1, .spec_obj = -1, .box = box };
  gsize size;
  const guint8 *data = g_bytes_get_data (pdf_bytes, &size);
  g_autofree char *new_catalog = NULL;
  gboolean unchanged = FALSE;
  GBytes *result = NULL;

  g_return_val_if_fail (pdf_bytes != NULL, NULL);
  g_return_val_if_fail (box == NULL || (box->x2 > box->x1 && box->y2 > box->y1), NULL);

  /* To the second: /M and the CMS signingTime hold no fraction. */
  u.signing_time = signing_time != NULL ? g_date_time_to_utc (signing_time)
                   : g_date_time_new_from_unix_utc (g_get_real_time () / G_USEC_PER_SEC);
  if (!qf_pdf_file_open (&u.pdf, data, size, error))
    goto out;
  new_catalog = plan_update (&u, attachment_name, attachment, signer, &unchanged, error);
  if (unchanged)
    {
      result = g_bytes_ref (pdf_bytes);
      goto out;
    }
  if (new_catalog == NULL)
    goto out;

  u.entries = g_array_new (FALSE, FALSE, sizeof (XrefEntry));
  u.out = g_byte_array_sized_new (size + 64 * 1024);
  g_byte_array_append (u.out, data, size);
  if (size > 0 && data[size - 1] != '\n')
    append_str (u.out, "\n");
  begin_object (u.out, u.entries, u.pdf.root);
  append_printf (u.out, "%s\nendobj\n", new_catalog);
  if (attachment != NULL &&
      !write_attachment (&u, attachment_name, attachment, attachment_description, error))
    goto out;
  if (signer != NULL)
    write_signature_objects (&u, signer, reason);
  if (u.pdf.xref_stream)
    write_xref_stream (&u);
  else
    write_xref_table (&u);
  if (signer != NULL && !fill_signature (&u, signer, error))
    goto out;
  result = g_byte_array_free_to_bytes (g_steal_pointer (&u.out));

out:
  pdf_update_clear (&u);
  return result;
}

void
qf_pdf_signature_clear (QfPdfSignature *sig)
{
  g_clear_pointer (&sig->cms, g_bytes_unref);
  g_clear_pointer (&sig->sub_filter, g_free);
  g_clear_pointer (&sig->signing_time, g_free);
}

/* Length of a DER object from its header; 0 when it is not a definite-length SEQUENCE. */
static gsize
der_length (const guint8 *d,
            gsize         n)
{
  gsize len = 0, hdr;

  if (n < 2 || d[0] != 0x30)
    return 0;
  if (d[1] < 0x80)
    return 2 + d[1];
  hdr = d[1] & 0x7f;
  if (hdr == 0 || hdr > 4 || n < 2 + hdr)
    return 0;
  for (gsize i = 0; i < hdr; i++)
    len = (len << 8) | d[2 + i];
  return 2 + hdr + len;
}

gboolean
qf_pdf_find_signature (const guint8   *data,
                       gsize           size,
                       QfPdfSignature *sig,
                       GError        **error)
{
  const guint8 *br, *p, *dict_start;
  gint64 v[4];
  char *end;
  g_autoptr(GByteArray) der = g_byte_array_new ();
  gsize hex_start, hex_end, dl;

  g_return_val_if_fail (sig != NULL, FALSE);
  memset (sig, 0, sizeof *sig);

  for (p = data; (p = qf_pdf_find_bytes (p, data + size - p, "/ByteRange")) != NULL; p++)
    sig->n_signatures++;
  br = qf_pdf_rfind_bytes (data, size, "/ByteRange");
  if (br == NULL)
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_NOT_FOUND, _("The PDF is not signed."));
      return FALSE;
    }
  p = br + strlen ("/ByteRange");
  while (p < data + size && (*p == ' ' || *p == '\n' || *p == '\r'))
    p++;
  if (p >= data + size || *p != '[')
    return qf_pdf_parse_error (error, _("/ByteRange is not an array"));
  p++;
  for (int i = 0; i < 4; i++)
    {
      v[i] = g_ascii_strtoll ((const char *) p, &end, 10);
      if (end == (const char *) p || v[i] < 0)
        return qf_pdf_parse_error (error, _("/ByteRange does not hold four offsets"));
      p = (const guint8 *) end;
    }
  for (int i = 0; i < 4; i++)
    sig->byte_range[i] = (gsize) v[i];
  if (sig->byte_range[0] + sig->byte_range[1] > size ||
      sig->byte_range[2] > size || sig->byte_range[2] + sig->byte_range[3] > size ||
      sig->byte_range[0] + sig->byte_range[1] >= sig->byte_range[2])
    return qf_pdf_parse_error (error, _("the signed byte ranges lie outside the file"));

  hex_start = sig->byte_range[0] + sig->byte_range[1];
  hex_end = sig->byte_range[2];
  if (data[hex_start] != '<' || data[hex_end - 1] != '>')
    return qf_pdf_parse_error (error, _("the gap between the signed ranges is not the /Contents string"));
  for (gsize i = hex_start + 1; i + 1 < hex_end - 1; i += 2)
    {
      int hi = g_ascii_xdigit_value (data[i]), lo = g_ascii_xdigit_value (data[i + 1]);
      guint8 b;
      if (hi < 0 || lo < 0)
        return qf_pdf_parse_error (error, _("/Contents is not hexadecimal"));
      b = (guint8) (hi << 4 | lo);
      g_byte_array_append (der, &b, 1);
    }
  dl = der_length (der->data, der->len);
  if (dl == 0 || dl > der->len)
    return qf_pdf_parse_error (error, _("/Contents does not hold a DER signature"));
  sig->cms = g_bytes_new (der->data, dl);

  /* The dictionary around the ranges: its /SubFilter and /M. */
  dict_start = qf_pdf_rfind_bytes (data, br - data, "/Type /Sig");
  if (dict_start != NULL)
    {
      const guint8 *sf = qf_pdf_find_bytes (dict_start, br - dict_start, "/SubFilter /");
      const guint8 *m = qf_pdf_find_bytes (dict_start, br - dict_start, "/M (");
      if (sf != NULL)
        {
          const guint8 *s = sf + strlen ("/SubFilter /"), *e = s;
          while (e < br && (g_ascii_isalnum (*e) || *e == '.' || *e == '_'))
            e++;
          sig->sub_filter = g_strndup ((const char *) s, e - s);
        }
      if (m != NULL)
        {
          const guint8 *s = m + 4, *e = memchr (s, ')', br - s);
          if (e != NULL)
            sig->signing_time = g_strndup ((const char *) s, e - s);
        }
    }
  sig->covers_whole_file = sig->byte_range[0] == 0 &&
                           sig->byte_range[2] + sig->byte_range[3] == size;
  return TRUE;
}

GBytes *
qf_pdf_signed_bytes (const guint8         *data,
                     gsize                 size,
                     const QfPdfSignature *sig)
{
  GByteArray *covered;

  if (sig->byte_range[0] + sig->byte_range[1] > size || sig->byte_range[2] + sig->byte_range[3] > size)
    return NULL;
  covered = g_byte_array_sized_new (sig->byte_range[1] + sig->byte_range[3]);
  g_byte_array_append (covered, data + sig->byte_range[0], sig->byte_range[1]);
  g_byte_array_append (covered, data + sig->byte_range[2], sig->byte_range[3]);
  return g_byte_array_free_to_bytes (covered);
}

GBytes *
qf_pdf_find_attachment (const guint8 *data,
                        gsize         size,
                        const char   *name,
                        GError      **error)
{
  QfPdfFile pdf;
  g_autofree char *lit = pdf_ascii_string (name);
  g_autofree char *needle = g_strdup_printf ("/Type /Filespec /F %s", lit);
  const guint8 *spec, *ef;
  gint64 num;
  GBytes *result = NULL;

  spec = qf_pdf_rfind_bytes (data, size, needle);
  if (spec == NULL)
    {
      g_set_error (error, QF_PDF_ERROR, QF_PDF_ERROR_NOT_FOUND,
                   _("The PDF has no embedded %s."), name);
      return NULL;
    }
  ef = qf_pdf_find_bytes (spec, data + size - spec, "/EF << /F ");
  if (ef == NULL)
    {
      qf_pdf_parse_error (error, _("the file specification has no /EF"));
      return NULL;
    }
  num = g_ascii_strtoll ((const char *) ef + strlen ("/EF << /F "), NULL, 10);
  if (qf_pdf_file_open (&pdf, data, size, error))
    {
      g_autofree char *dict = NULL;
      gsize length;
      const guint8 *raw = qf_pdf_file_stream (&pdf, num, &length, &dict, error);

      if (raw != NULL)
        result = strstr (dict, "/FlateDecode") != NULL ? qf_pdf_inflate (raw, length, error)
                                                       : g_bytes_new (raw, length);
    }
  qf_pdf_file_close (&pdf);
  return result;
}
