/* qf-pdf-sign.h — attach data to and sign a PDF written by cairo, by incremental update
 * (src/core).
 *
 * cairo writes the pages; this module appends one incremental update (PDF 1.5, /Prev to
 * cairo's; a classic xref table after cairo 1.16's table, a cross-reference stream after cairo
 * 1.18's stream) that can carry
 *   - an embedded file (the session JSON) listed in the catalog's /Names /EmbeddedFiles, and
 *   - a signature field whose /V is an adbe.pkcs7.detached CMS signature (SHA-256, signer
 *     certificate and signing time included) over the whole file but the /Contents hex, as
 *     poppler's pdfsig and Adobe Reader check it (layout: shared docs interop.md §3). Its widget
 *     is either invisible on the first page or, given a box, sits over that box on its page
 *     (listed in the page's /Annots) with a thin frame as its appearance, so PDF readers show
 *     the signature where the page prints who signed.
 * Readers for verification find the signature and the attachment again.
 */
#pragma once

#include <glib.h>

#include "qf-cert.h"
#include "qf-pdf-xref.h"   /* QF_PDF_ERROR */

G_BEGIN_DECLS

/* Bytes reserved for the DER CMS in /Contents (written as twice as many hex digits). */
#define QF_PDF_SIGNATURE_RESERVE 8192

/* Where a visible signature goes: a page (0 is the first) and a rectangle in that page's PDF
 * user space (points, origin at the lower left corner, y up). */
typedef struct
{
  guint   page_index;
  gdouble x1, y1, x2, y2;
} QfPdfSignatureBox;

/* Appends the update to pdf and returns the new file. attachment may be NULL (no file), signer
 * may be NULL (no signature); reason is the signature's /Reason (any language). box NULL makes
 * the widget invisible; signing_time (NULL: now) is written as /M and signed as the CMS
 * signingTime, to the second. */
GBytes  *qf_pdf_update          (GBytes                  *pdf,
                                 const char              *attachment_name,
                                 GBytes                  *attachment,
                                 const char              *attachment_description,
                                 QfSigner                *signer,
                                 const char              *reason,
                                 const QfPdfSignatureBox *box,
                                 GDateTime               *signing_time,
                                 GError                 **error);

typedef struct
{
  gsize   byte_range[4];    /* offset, length, offset, length */
  GBytes *cms;              /* the DER SignedData, zero padding removed */
  char   *sub_filter;       /* e.g. "adbe.pkcs7.detached" */
  char   *signing_time;     /* /M as written, e.g. "D:20261130150203+00'00'", or NULL */
  gboolean covers_whole_file;  /* the ranges start at 0, meet at the /Contents hex only, end at EOF */
  guint   n_signatures;     /* signature dictionaries found in the file */
} QfPdfSignature;

void     qf_pdf_signature_clear (QfPdfSignature *sig);

/* Finds the last signature dictionary (by its /ByteRange). QF_PDF_ERROR_NOT_FOUND when the file
 * has none; QF_PDF_ERROR_PARSE when the ranges lie outside the file or /Contents is not hex. */
gboolean qf_pdf_find_signature  (const guint8   *data,
                                 gsize           size,
                                 QfPdfSignature *sig,
                                 GError        **error);

/* The bytes the signature covers (the ranges concatenated); NULL if the ranges are invalid. */
GBytes  *qf_pdf_signed_bytes    (const guint8         *data,
                                 gsize                 size,
                                 const QfPdfSignature *sig);

/* Returns the decoded contents of the last embedded file stream named name (FlateDecode or
 * unfiltered), or NULL with QF_PDF_ERROR_NOT_FOUND. */
GBytes  *qf_pdf_find_attachment (const guint8   *data,
                                 gsize           size,
                                 const char     *name,
                                 GError        **error);

G_END_DECLS
