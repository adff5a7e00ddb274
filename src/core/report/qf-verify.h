/* qf-verify.h — checking a Qualify report: signature, coverage, signer, trust, contents
 * (src/core).
 *
 * For a PDF: the last signature's CMS (adbe.pkcs7.detached) is checked over its byte ranges,
 * the ranges must cover the whole file but the signature itself, the signer's chain is checked
 * against --trust certificates or the system's store, the embedded session.json is read back
 * and the printed verdict table (text from `pdftotext -layout`, when poppler-utils is installed)
 * must show the embedded figures and verdicts.
 * For an HTML file: the CMS in <script id="qf-signature"> over every other byte, the same trust
 * check, and the criteria table in the body must be exactly the one the embedded session data
 * renders to.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define QF_VERIFY_ERROR (qf_verify_error_quark ())
GQuark qf_verify_error_quark (void);

typedef enum
{
  QF_VERIFY_ERROR_READ,         /* the file cannot be read */
  QF_VERIFY_ERROR_NOT_REPORT,   /* not a PDF/HTML report written by Qualify */
  QF_VERIFY_ERROR_TRUST,        /* a --trust file cannot be read */
} QfVerifyError;

/* What a reader is told first, the same in `qualify-cli verify` and the wizard's verify view. */
typedef enum
{
  QF_VERIFY_OUTCOME_TRUSTED,      /* intact, signed by a trusted signer */
  QF_VERIFY_OUTCOME_UNTRUSTED,    /* intact, but the signer is not (yet) trusted */
  QF_VERIFY_OUTCOME_CHANGED,      /* signed, but changed after signing or not as Qualify signs */
  QF_VERIFY_OUTCOME_NOT_SIGNED,   /* a Qualify report without a signature */
  QF_VERIFY_OUTCOME_NOT_REPORT,   /* unreadable, or not a report Qualify wrote */
} QfVerifyOutcome;

typedef struct
{
  char      *path;
  char      *format;              /* "pdf" or "html" */
  gboolean   is_signed;
  gboolean   signature_valid;     /* the CMS verifies over the signed bytes */
  gboolean   covers_whole;        /* every byte but the signature itself is signed */
  char      *signer;              /* subject DN, or NULL */
  char      *signer_name;         /* the signer certificate's CN, or NULL */
  char      *signer_organization; /* its O, or NULL */
  GBytes    *signer_certificate;  /* DER, for "Trust this signer"; NULL when not found */
  char      *signer_fingerprint;  /* SHA-256 of the signer certificate, hex with colons */
  char      *signing_time;        /* ISO 8601 UTC, or NULL */
  gboolean   trusted;             /* the chain ends in a --trust / system certificate, or the
                                   * signer certificate is one the reader chose to trust */
  gboolean   trusted_by_reader;   /* trusted because it is remembered (qf-trust.h) */
  char      *trust_detail;        /* why not, in words */
  char      *same_name_as_trusted; /* not trusted, but holder and company are those of a signer
                                   * the reader trusts: that signer's SHA-256; else NULL */
  gboolean   trust_requested;     /* --trust was given */
  gboolean   contents_checked;
  gboolean   contents_match;
  char      *contents_detail;
  char      *overall_verdict;     /* from the embedded session: "pass", "fail", … */
  char      *session_id;
  char      *pc;                  /* from the embedded session: "host (vendor product)" */
  char      *profile;             /* from the embedded session: "name (id)" */
  GPtrArray *problems;            /* char*, each one sentence: why the report is not valid */
} QfVerifyResult;

/* NULL and error when the file is unreadable or not a Qualify report (exit 2). Otherwise a
 * result; qf_verify_result_ok() says whether it passes (exit 0) or not (exit 1). trust_paths may
 * be NULL (system store). */
QfVerifyResult *qf_verify_file          (const char         *path,
                                         const char *const  *trust_paths,
                                         GError            **error);
gboolean        qf_verify_result_ok     (const QfVerifyResult *result);
/* result NULL: the file could not be checked (NOT_REPORT). */
QfVerifyOutcome qf_verify_result_outcome (const QfVerifyResult *result);
/* "valid-trusted", "valid-untrusted", "changed", "not-signed", "not-report" (JSON, scripts). */
const char     *qf_verify_outcome_id     (QfVerifyOutcome       outcome);
/* The outcome in a few words for a person (translated). */
const char     *qf_verify_outcome_text   (QfVerifyOutcome       outcome);
JsonObject     *qf_verify_result_to_json (const QfVerifyResult *result);
/* What a reader must be told loudly before anything else, or NULL: "a different certificate
 * with the name of a signer you trust" (same_name_as_trusted). */
char           *qf_verify_result_warning (const QfVerifyResult *result);
void            qf_verify_result_free   (QfVerifyResult      *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfVerifyResult, qf_verify_result_free)

/* The largest file verify reads: a report Qualify writes is far smaller (docs/security.md, Reports
 * and verification); anything larger, and anything not a regular file, is refused unread. */
#define QF_VERIFY_MAX_BYTES (256 * 1024 * 1024)

typedef enum
{
  QF_HTML_SIGNATURE_NONE,       /* no signature element: the report is not signed */
  QF_HTML_SIGNATURE_MISPLACED,  /* one is there, but not once, not canonical or not where the writer puts it */
  QF_HTML_SIGNATURE_FOUND,
} QfHtmlSignatureBlock;

/* The signature element of an HTML report, accepted only in the writer's form: the one
 * occurrence of its opening tag, canonical base64 DER, its </script>, then "</body>\n</html>\n"
 * and the end of the file. On FOUND, [*start, *end) is the element (the signed bytes are all the
 * others) and *cms the decoded signature. text needs no NUL; size is its length. */
QfHtmlSignatureBlock qf_verify_html_signature_block (const char  *text,
                                                     gsize        size,
                                                     gsize       *start,
                                                     gsize       *end,
                                                     GBytes     **cms);

G_END_DECLS
