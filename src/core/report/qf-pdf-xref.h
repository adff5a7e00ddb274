/* qf-pdf-xref.h — reading the objects of a PDF that cairo wrote, through its cross-reference
 * sections (src/core/report; used by qf-pdf-sign.c only).
 *
 * cairo 1.16 (Debian 12) writes classic xref tables; cairo 1.18 (Ubuntu 24.04) writes a
 * cross-reference stream and puts most dictionaries (catalog, page tree, pages) into compressed
 * object streams. Both are read here, and so are incremental updates of either kind (/Prev).
 * Anything else (encryption, predictors, hybrid files) is refused with QF_PDF_ERROR_UNSUPPORTED
 * rather than guessed at.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define QF_PDF_ERROR (qf_pdf_error_quark ())
GQuark qf_pdf_error_quark (void);

typedef enum
{
  QF_PDF_ERROR_PARSE,        /* not a PDF, or its xref/trailer cannot be read */
  QF_PDF_ERROR_UNSUPPORTED,  /* e.g. an encrypted file, a predictor in an xref stream */
  QF_PDF_ERROR_SIGN,         /* the signature could not be made or does not fit */
  QF_PDF_ERROR_NOT_FOUND,    /* no signature / attachment in the file */
} QfPdfError;


typedef struct
{
  const guint8 *data;
  gsize         size;
  GHashTable   *offsets;      /* object number → offset of "N 0 obj" (newest section wins) */
  GHashTable   *compressed;   /* object number → where in which object stream it is */
  gint64        size_entry;   /* the newest trailer's /Size */
  gint64        root;
  gint64        info;         /* -1 when absent */
  gsize         startxref;    /* the newest cross-reference section */
  gboolean      xref_stream;  /* the newest section is a cross-reference stream */
  guint         nesting;      /* object-stream lookups under way (bounded) */
} QfPdfFile;

/* Reads the cross-reference sections of data (borrowed: it must outlive pdf). On error, pdf
 * still needs qf_pdf_file_close. */
gboolean      qf_pdf_file_open    (QfPdfFile    *pdf,
                                   const guint8 *data,
                                   gsize         size,
                                   GError      **error);
void          qf_pdf_file_close   (QfPdfFile    *pdf);

/* The text of object num (between "N 0 obj" and "endobj", or its slice of an object stream),
 * trimmed; NULL with QF_PDF_ERROR_PARSE when it is missing or misplaced. */
char         *qf_pdf_file_object  (QfPdfFile    *pdf,
                                   gint64        num,
                                   GError      **error);

/* The raw bytes of the stream of object num (not in an object stream) and, in *dict, the text
 * of its dictionary; NULL with QF_PDF_ERROR_PARSE when it has none or it runs past the end. */
const guint8 *qf_pdf_file_stream  (QfPdfFile    *pdf,
                                   gint64        num,
                                   gsize        *length,
                                   char        **dict,
                                   GError      **error);

/* Reads "/Key <int>" inside text[0..len). */
gboolean      qf_pdf_dict_int     (const char   *text,
                                   gsize         len,
                                   const char   *key,
                                   gint64       *out);

/* data run through converter (zlib either way). */
GBytes       *qf_pdf_convert      (GConverter   *converter,
                                   const guint8 *data,
                                   gsize         size,
                                   GError      **error);
/* Decoded zlib (FlateDecode) data. */
GBytes       *qf_pdf_inflate      (const guint8 *data,
                                   gsize         size,
                                   GError      **error);

/* Sets QF_PDF_ERROR_PARSE "Cannot read the PDF: what" and returns FALSE. */
gboolean      qf_pdf_parse_error  (GError      **error,
                                   const char   *what);

const guint8 *qf_pdf_find_bytes   (const guint8 *hay,
                                   gsize         hay_len,
                                   const char   *needle);
const guint8 *qf_pdf_rfind_bytes  (const guint8 *hay,
                                   gsize         hay_len,
                                   const char   *needle);

G_END_DECLS
