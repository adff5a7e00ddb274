/* qf-verify.c — verification of signed Qualify reports (src/core).
 *
 * GnuTLS checks the CMS (gnutls_pkcs7_verify_direct with the signer certificate carried in the
 * CMS) and, separately, the signer's chain against a trust list (--trust files or the system
 * store) for the emailProtection purpose, as pdfsig's NSS check does. A valid signature by an
 * unknown signer is reported as such: the reader decides whom to trust.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <gnutls/gnutls.h>
#include <gnutls/pkcs7.h>
#include <gnutls/x509.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-pdf-sign.h"
#include "qf-report-private.h"
#include "qf-text.h"
#include "qf-trust.h"
#include "qf-verify.h"

G_DEFINE_QUARK (qf-verify-error-quark, qf_verify_error)

void
qf_verify_result_free (QfVerifyResult *r)
{
  if (r == NULL)
    return;
  g_free (r->path);
  g_free (r->format);
  g_free (r->signer);
  g_free (r->signer_name);
  g_free (r->signer_organization);
  g_clear_pointer (&r->signer_certificate, g_bytes_unref);
  g_free (r->signer_fingerprint);
  g_free (r->signing_time);
  g_free (r->trust_detail);
  g_free (r->same_name_as_trusted);
  g_free (r->contents_detail);
  g_free (r->overall_verdict);
  g_free (r->session_id);
  g_free (r->pc);
  g_free (r->profile);
  g_clear_pointer (&r->problems, g_ptr_array_unref);
  g_free (r);
}

static void G_GNUC_PRINTF (2, 3)
problem (QfVerifyResult *r,
         const char     *format,
         ...)
{
  va_list ap;

  va_start (ap, format);
  g_ptr_array_add (r->problems, g_strdup_vprintf (format, ap));
  va_end (ap);
}

gboolean
qf_verify_result_ok (const QfVerifyResult *r)
{
  return r->is_signed && r->signature_valid && r->covers_whole &&
         (!r->contents_checked || r->contents_match) &&
         (!r->trust_requested || r->trusted);
}

/* Intact means every check but trust holds. qf_verify_result_ok() also requires trust when --trust
 * was given; a report whose only problem is that (note_untrusted adds exactly one) is still intact,
 * and reads "valid but not trusted" rather than "changed". */
QfVerifyOutcome
qf_verify_result_outcome (const QfVerifyResult *r)
{
  gboolean only_untrusted;

  if (r == NULL)
    return QF_VERIFY_OUTCOME_NOT_REPORT;
  if (!r->is_signed)
    return QF_VERIFY_OUTCOME_NOT_SIGNED;
  if (qf_verify_result_ok (r))
    return r->trusted ? QF_VERIFY_OUTCOME_TRUSTED : QF_VERIFY_OUTCOME_UNTRUSTED;
  only_untrusted = r->trust_requested && !r->trusted && r->signature_valid && r->covers_whole &&
                   (!r->contents_checked || r->contents_match) && r->problems->len == 1;
  return only_untrusted ? QF_VERIFY_OUTCOME_UNTRUSTED : QF_VERIFY_OUTCOME_CHANGED;
}

const char *
qf_verify_outcome_id (QfVerifyOutcome outcome)
{
  static const char *const ids[] = { "valid-trusted", "valid-untrusted", "changed", "not-signed", "not-report" };

  g_return_val_if_fail ((guint) outcome < G_N_ELEMENTS (ids), "not-report");
  return ids[outcome];
}

const char *
qf_verify_outcome_text (QfVerifyOutcome outcome)
{
  static const char *const texts[] = {
    N_("Valid, from a trusted signer"),
    N_("Valid, but the signer is not yet trusted"),
    N_("Changed after signing"),
    N_("Not signed"),
    N_("Not a Qualify report"),
  };

  g_return_val_if_fail ((guint) outcome < G_N_ELEMENTS (texts), "");
  return _(texts[outcome]);
}

/* The certificates carried in a CMS structure, and which one is the signer's (-1: none). */
typedef struct
{
  gnutls_x509_crt_t certs[16];
  guint             n;
  int               signer;
} CmsCerts;

/* Imports the CMS and reads its first SignerInfo into info; notes the problem when it cannot. */
static gboolean
read_signer_info (QfVerifyResult                 *r,
                  gnutls_pkcs7_t                  p7,
                  const gnutls_datum_t           *der,
                  gnutls_pkcs7_signature_info_st *info)
{
  int ret;

  if ((ret = gnutls_pkcs7_import (p7, der, GNUTLS_X509_FMT_DER)) < 0)
    {
      problem (r, _("The signature is not a CMS structure GnuTLS can read (%s)."), gnutls_strerror (ret));
      return FALSE;
    }
  if (gnutls_pkcs7_get_signature_count (p7) < 1 ||
      (ret = gnutls_pkcs7_get_signature_info (p7, 0, info)) < 0)
    {
      problem (r, _("The CMS structure holds no signer."));
      return FALSE;
    }
  return TRUE;
}

static void
note_signing_time (QfVerifyResult                       *r,
                   const gnutls_pkcs7_signature_info_st *info)
{
  g_autoptr(GDateTime) dt = NULL;

  if (info->signing_time <= 0)
    return;
  dt = g_date_time_new_from_unix_utc (info->signing_time);
  r->signing_time = dt ? g_date_time_format_iso8601 (dt) : NULL;
}

/* The signer is the certificate whose issuer and serial the SignerInfo names. */
static gboolean
is_signer (gnutls_x509_crt_t                     crt,
           const gnutls_pkcs7_signature_info_st *info)
{
  guint8 serial[64];
  size_t serial_len = sizeof serial;
  gnutls_datum_t issuer = { NULL, 0 };
  gboolean match;

  if (gnutls_x509_crt_get_serial (crt, serial, &serial_len) < 0 ||
      serial_len != info->signer_serial.size ||
      memcmp (serial, info->signer_serial.data, serial_len) != 0 ||
      gnutls_x509_crt_get_raw_issuer_dn (crt, &issuer) < 0)
    return FALSE;
  match = issuer.size == info->issuer_dn.size &&
          memcmp (issuer.data, info->issuer_dn.data, issuer.size) == 0;
  gnutls_free (issuer.data);
  return match;
}

/* Imports up to 16 certificates of the CMS (unreadable ones skipped) and finds the signer's. */
static void
import_certs (gnutls_pkcs7_t                        p7,
              const gnutls_pkcs7_signature_info_st *info,
              CmsCerts                             *c)
{
  for (int i = 0; i < gnutls_pkcs7_get_crt_count (p7) && c->n < G_N_ELEMENTS (c->certs); i++)
    {
      gnutls_datum_t raw = { NULL, 0 };
      int ret;

      if (gnutls_pkcs7_get_crt_raw2 (p7, i, &raw) < 0)
        continue;
      gnutls_x509_crt_init (&c->certs[c->n]);
      ret = gnutls_x509_crt_import (c->certs[c->n], &raw, GNUTLS_X509_FMT_DER);
      gnutls_free (raw.data);
      if (ret < 0)
        {
          gnutls_x509_crt_deinit (c->certs[c->n]);
          continue;
        }
      if (c->signer < 0 && is_signer (c->certs[c->n], info))
        c->signer = (int) c->n;
      c->n++;
    }
}

/* Fills tl from the --trust files (noting that trust was requested) or else from the system
 * store; *added is the number of certificates added (negative: the store's error). Fails with
 * QF_VERIFY_ERROR_TRUST when a --trust file holds no certificate. */
static gboolean
load_trust (QfVerifyResult           *r,
            gnutls_x509_trust_list_t  tl,
            const char *const        *trust_paths,
            int                      *added,
            GError                  **error)
{
  *added = 0;
  if (trust_paths == NULL || trust_paths[0] == NULL)
    {
      *added = gnutls_x509_trust_list_add_system_trust (tl, 0, 0);
      return TRUE;
    }
  r->trust_requested = TRUE;
  for (guint i = 0; trust_paths[i] != NULL; i++)
    {
      int n = gnutls_x509_trust_list_add_trust_file (tl, trust_paths[i], NULL, GNUTLS_X509_FMT_PEM, 0, 0);
      if (n <= 0)
        n = gnutls_x509_trust_list_add_trust_file (tl, trust_paths[i], NULL, GNUTLS_X509_FMT_DER, 0, 0);
      if (n <= 0)
        {
          g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_TRUST,
                       _("%s holds no certificate to trust (PEM or DER expected)."), trust_paths[i]);
          return FALSE;
        }
      *added += n;
    }
  return TRUE;
}

/* Why the chain is not trusted (ret and status of the chain check), in r->trust_detail; a
 * problem only when the reader asked for a trust anchor. */
static void
note_untrusted (QfVerifyResult *r,
                int             ret,
                unsigned int    status,
                int             added)
{
  gnutls_datum_t why = { NULL, 0 };

  if (ret < 0)
    r->trust_detail = g_strdup (gnutls_strerror (ret));
  else if (gnutls_certificate_verification_status_print (status, GNUTLS_CRT_X509, &why, 0) >= 0)
    {
      r->trust_detail = g_strstrip (g_strndup ((const char *) why.data, why.size));
      gnutls_free (why.data);
    }
  if (added <= 0 && !r->trust_requested)
    {
      g_free (r->trust_detail);
      r->trust_detail = g_strdup (_("no system certificate store could be read"));
    }
  if (r->trust_requested)
    problem (r, _("The signer is not trusted by the given --trust certificate(s): %s"),
             r->trust_detail ? r->trust_detail : "");
}

/* A store of remembered signers that someone else could change counts for nothing
 * (qf_trust_check_store); the reader is told why the signer is not trusted. */
static void
note_untrusted_store (QfVerifyResult *r)
{
  g_autoptr(GError) unsafe = NULL;
  char *detail;

  if (qf_trust_check_store (&unsafe))
    return;
  detail = r->trust_detail != NULL ? g_strdup_printf ("%s; %s", r->trust_detail, unsafe->message)
                                   : g_strdup (unsafe->message);
  g_free (r->trust_detail);
  r->trust_detail = detail;
}

/* A name as people compare it: the same letters whatever their case or Unicode form. */
static char *
name_key (const char *name)
{
  g_autofree char *normal = name != NULL ? g_utf8_normalize (name, -1, G_NORMALIZE_ALL) : NULL;

  return normal != NULL ? g_utf8_casefold (normal, -1) : NULL;
}

/* An untrusted certificate whose holder and company are those of a signer the reader trusts is
 * what an impostor would make: it is noted (the trusted one's fingerprint) so every reader of
 * the result says so. */
static void
note_same_name (QfVerifyResult *r)
{
  g_autoptr(GPtrArray) trusted = NULL;
  g_autofree char *name = name_key (r->signer_name);
  g_autofree char *company = name_key (r->signer_organization);

  if (r->trusted || name == NULL)
    return;
  trusted = qf_trust_list ();
  for (guint i = 0; i < trusted->len && r->same_name_as_trusted == NULL; i++)
    {
      const QfTrustedSigner *s = g_ptr_array_index (trusted, i);
      g_autofree char *s_name = name_key (s->name);
      g_autofree char *s_company = name_key (s->organization);

      if (g_strcmp0 (name, s_name) == 0 && g_strcmp0 (company, s_company) == 0
          && g_strcmp0 (r->signer_fingerprint, s->fingerprint) != 0)
        r->same_name_as_trusted = g_strdup (s->fingerprint);
    }
}

char *
qf_verify_result_warning (const QfVerifyResult *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  if (r->same_name_as_trusted == NULL)
    return NULL;
  /* TRANSLATORS: the names come from the report's certificate; then two SHA-256 fingerprints */
  return g_strdup_printf (_("A different certificate with the name of a signer you trust: this "
                            "report is signed by a certificate for %s (%s) that is not the one you "
                            "trust under that name. Someone may be posing as them. Do not trust "
                            "it unless the signer confirms its fingerprint (SHA-256 %s); the one "
                            "you trust is SHA-256 %s."),
                          r->signer_name, r->signer_organization ? r->signer_organization : "—",
                          r->signer_fingerprint, r->same_name_as_trusted);
}

/* The signer certificate is one the reader chose to trust (qf-trust.h), and valid today. */
static gboolean
remembered (gnutls_x509_crt_t crt)
{
  time_t now = time (NULL);

  return qf_trust_contains (crt) && gnutls_x509_crt_get_activation_time (crt) <= now &&
         gnutls_x509_crt_get_expiration_time (crt) > now;
}

/* Trust: the chain from the signer through the other certificates in the CMS, for the
 * emailProtection purpose. */
static void
check_trust (QfVerifyResult    *r,
             const CmsCerts    *c,
             const char *const *trust_paths,
             GError           **error)
{
  gnutls_x509_trust_list_t tl;
  gnutls_x509_crt_t chain[16];
  guint n_chain = 0;
  unsigned int status = 0;
  gnutls_typed_vdata_st purpose = { GNUTLS_DT_KEY_PURPOSE_OID, (unsigned char *) GNUTLS_KP_EMAIL_PROTECTION, 0 };
  int added, ret;

  gnutls_x509_trust_list_init (&tl, 0);
  if (!load_trust (r, tl, trust_paths, &added, error))
    {
      gnutls_x509_trust_list_deinit (tl, 1);
      return;
    }
  chain[n_chain++] = c->certs[c->signer];
  for (guint i = 0; i < c->n && n_chain < G_N_ELEMENTS (chain); i++)
    if ((int) i != c->signer)
      chain[n_chain++] = c->certs[i];
  ret = gnutls_x509_trust_list_verify_crt2 (tl, chain, n_chain, &purpose, 1, 0, &status, NULL);
  r->trusted = ret >= 0 && status == 0;
  if (!r->trusted && remembered (c->certs[c->signer]))
    r->trusted = r->trusted_by_reader = TRUE;
  if (!r->trusted)
    note_untrusted (r, ret, status, added);
  if (!r->trusted)
    note_untrusted_store (r);
  gnutls_x509_trust_list_deinit (tl, 1);
}

/* The signer's subject, name, company (cleaned of control characters by qf-trust),
 * fingerprint and certificate. */
static void
note_signer (QfVerifyResult    *r,
             gnutls_x509_crt_t  crt)
{
  g_autoptr(QfTrustedSigner) s = qf_trusted_signer_new_from_crt (crt);
  gnutls_datum_t der = { NULL, 0 };

  r->signer = g_steal_pointer (&s->subject);
  r->signer_fingerprint = g_steal_pointer (&s->fingerprint);
  r->signer_name = g_steal_pointer (&s->name);
  r->signer_organization = g_steal_pointer (&s->organization);
  if (gnutls_x509_crt_export2 (crt, GNUTLS_X509_FMT_DER, &der) >= 0)
    {
      r->signer_certificate = g_bytes_new (der.data, der.size);
      gnutls_free (der.data);
    }
}

/* Checks cms over data and fills the signature part of r. */
static void
verify_cms (QfVerifyResult    *r,
            GBytes            *cms,
            GBytes            *data,
            const char *const *trust_paths,
            GError           **error)
{
  gnutls_pkcs7_t p7 = NULL;
  gnutls_pkcs7_signature_info_st info;
  gnutls_datum_t der = { (unsigned char *) g_bytes_get_data (cms, NULL), g_bytes_get_size (cms) };
  gnutls_datum_t content = { (unsigned char *) g_bytes_get_data (data, NULL), g_bytes_get_size (data) };
  CmsCerts c = { .n = 0, .signer = -1 };
  int ret;

  memset (&info, 0, sizeof info);
  if (gnutls_pkcs7_init (&p7) < 0)
    return;
  if (!read_signer_info (r, p7, &der, &info))
    goto out;
  note_signing_time (r, &info);
  import_certs (p7, &info, &c);
  if (c.signer < 0)
    {
      problem (r, _("The signer's certificate is not included in the signature."));
      goto out;
    }
  note_signer (r, c.certs[c.signer]);

  ret = gnutls_pkcs7_verify_direct (p7, c.certs[c.signer], 0, &content, 0);
  r->signature_valid = ret >= 0;
  if (!r->signature_valid)
    problem (r, _("The signature does not match the document: it was changed after signing (%s)."),
             gnutls_strerror (ret));
  check_trust (r, &c, trust_paths, error);
  note_same_name (r);

out:
  for (guint i = 0; i < c.n; i++)
    gnutls_x509_crt_deinit (c.certs[i]);
  gnutls_pkcs7_signature_info_deinit (&info);
  gnutls_pkcs7_deinit (p7);
}

/* The PC and the profile as the embedded session names them; absent members stay NULL. */
static void
note_pc_and_profile (QfVerifyResult *r,
                     JsonObject     *session)
{
  JsonObject *pc = qf_json_get_object (session, "pc");
  JsonObject *profile = qf_json_get_object (session, "profile");
  const char *host = pc ? qf_json_get_string (pc, "hostname", NULL) : NULL;
  const char *vendor = pc ? qf_json_get_string (pc, "dmi_vendor", NULL) : NULL;
  const char *product = pc ? qf_json_get_string (pc, "dmi_product", NULL) : NULL;
  const char *name = profile ? qf_json_get_string (profile, "name", NULL) : NULL;
  const char *id = profile ? qf_json_get_string (profile, "id", NULL) : NULL;

  g_autofree char *shown_pc = NULL, *shown_profile = NULL;

  /* Names from the file being checked, which anyone can write: cleaned before they are shown. */
  if (host != NULL && (vendor != NULL || product != NULL))
    shown_pc = g_strdup_printf ("%s (%s%s%s)", host, vendor ? vendor : "", vendor && product ? " " : "",
                                product ? product : "");
  else
    shown_pc = g_strdup (host);
  if (name != NULL && id != NULL && g_strcmp0 (name, id) != 0)
    shown_profile = g_strdup_printf ("%s (%s)", name, id);
  else
    shown_profile = g_strdup (name ? name : id);
  r->pc = shown_pc != NULL ? qf_text_clean (shown_pc, -1) : NULL;
  r->profile = shown_profile != NULL ? qf_text_clean (shown_profile, -1) : NULL;
}

static void
note_session (QfVerifyResult *r,
              QfReport       *report)
{
  JsonObject *s = qf_report_get_session (report);
  /* The embedded session comes from the file being checked: missing or mistyped members are
   * read as absent (qf_json_get_*), never asserted. */
  JsonObject *v = qf_json_get_object (s, "verdict");
  const char *id = qf_json_get_string (s, "id", NULL);

  r->session_id = g_strdup (id);
  if (v != NULL)
    r->overall_verdict = g_strdup (qf_json_get_string (v, "overall", NULL));
  note_pc_and_profile (r, s);
}

/* pdftotext may drop or add spaces between glyphs: compare without them. */
static char *
squeeze (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p; p++)
    if (*p != ' ' && *p != '\t')
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* PDF: the printed criteria rows, as pdftotext reads them, against the embedded data. */
static gboolean
pdf_text_matches (QfReport   *report,
                  const char *text,
                  char      **why)
{
  g_autoptr(GPtrArray) rows = _qf_report_criteria_rows (report, NULL);
  g_autofree char *overall = _qf_report_overall_text (report, NULL);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint line = 0;
  const char *word = strchr (overall, ' ') ? strchr (overall, ' ') + 1 : overall;

  if (strstr (text, word) == NULL)
    {
      *why = g_strdup_printf (_("the overall verdict “%s” of the data is not printed"), word);
      return FALSE;
    }
  for (guint i = 0; i < rows->len; i++)
    {
      GPtrArray *row = g_ptr_array_index (rows, i);
      const char *verdict = g_ptr_array_index (row, 4);
      g_autofree char *measured = squeeze (g_ptr_array_index (row, 2));
      g_autofree char *limit = squeeze (g_ptr_array_index (row, 3));
      g_autofree char *vword = squeeze (strchr (verdict, ' ') ? strchr (verdict, ' ') + 1 : verdict);
      gboolean found = FALSE;

      /* Rows are printed in order, each on one line of the layout text. */
      for (; lines[line] != NULL; line++)
        {
          g_autofree char *squeezed = squeeze (lines[line]);
          const char *m = strstr (squeezed, measured);
          const char *l = m ? strstr (m + strlen (measured), limit) : NULL;
          if (l != NULL && strstr (l + strlen (limit), vword) != NULL)
            {
              found = TRUE;
              line++;
              break;
            }
        }
      if (!found)
        {
          *why = g_strdup_printf (_("the row “%s: %s, %s, %s” of the data is not printed as such"),
                                  (const char *) g_ptr_array_index (row, 1), measured, limit, vword);
          return FALSE;
        }
    }
  return TRUE;
}

/* The embedded session judged again, as `report` judges a session: stored verdicts that are not
 * what its figures and limits give make the report invalid, whatever its table prints. FALSE
 * (contents not matching, the problem noted) when they disagree. */
static gboolean
check_judged (QfVerifyResult *r,
              const GError   *disagreement)
{
  if (disagreement == NULL)
    return TRUE;
  r->contents_checked = TRUE;
  r->contents_match = FALSE;
  r->contents_detail = g_strdup_printf (_("mismatch: %s"), disagreement->message);
  problem (r, _("The embedded session's stored verdicts are not what its measured figures give: %s."),
           disagreement->message);
  return FALSE;
}

/* The report model of the session.json attached to a PDF (*disagreement: its stored verdicts
 * against its figures); NULL with QF_VERIFY_ERROR_NOT_REPORT when there is none or it cannot be
 * read. */
static QfReport *
pdf_session_report (QfVerifyResult *r,
                    const guint8   *data,
                    gsize           size,
                    GError        **disagreement,
                    GError        **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GBytes) session = qf_pdf_find_attachment (data, size, "session.json", &local);
  QfReport *report;

  if (session == NULL)
    {
      g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                   _("%s is not a Qualify report: %s"), r->path, local->message);
      return NULL;
    }
  report = _qf_report_new_for_verify (g_bytes_get_data (session, NULL), g_bytes_get_size (session),
                                      disagreement, &local);
  if (report == NULL)
    g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                 _("%s is not a Qualify report: its embedded session.json cannot be read (%s)."),
                 r->path, local->message);
  return report;
}

/* The PDF's signature: found, covering the whole file, the only one, of the expected kind, and
 * valid over the bytes it covers. */
static void
pdf_check_signature (QfVerifyResult    *r,
                     const guint8      *data,
                     gsize              size,
                     const char *const *trust_paths,
                     GError           **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GBytes) covered = NULL;
  QfPdfSignature sig;

  if (!qf_pdf_find_signature (data, size, &sig, &local))
    {
      if (g_error_matches (local, QF_PDF_ERROR, QF_PDF_ERROR_NOT_FOUND))
        problem (r, _("The report is not signed."));
      else
        {
          r->is_signed = TRUE;
          problem (r, _("The signature cannot be read: %s"), local->message);
        }
      return;
    }
  covered = qf_pdf_signed_bytes (data, size, &sig);
  r->is_signed = TRUE;
  r->covers_whole = sig.covers_whole_file;
  if (!sig.covers_whole_file)
    problem (r, _("The signature does not cover the whole document: %lld bytes were added or changed after the signed part."),
             (long long) (size - MIN (size, sig.byte_range[2] + sig.byte_range[3])));
  if (sig.n_signatures > 1)
    problem (r, _("The file holds %u signatures; a Qualify report has one."), sig.n_signatures);
  if (g_strcmp0 (sig.sub_filter, "adbe.pkcs7.detached") != 0)
    problem (r, _("The signature is of an unexpected kind (%s)."), sig.sub_filter ? sig.sub_filter : "?");
  verify_cms (r, sig.cms, covered, trust_paths, error);
  qf_pdf_signature_clear (&sig);
  if (sig.n_signatures > 1)
    r->covers_whole = FALSE;
}

/* Compares pdftotext's text with the report in each language until one matches; notes the
 * first language's reason when none does. */
static void
pdf_compare_text (QfVerifyResult *r,
                  QfReport       *report,
                  const char     *text)
{
  g_autofree char *why = NULL;

  r->contents_checked = TRUE;
  for (const char *const *lang = qf_report_languages (); *lang != NULL && !r->contents_match; lang++)
    {
      g_autofree char *lang_why = NULL;
      if (!qf_report_set_language (report, *lang, NULL))
        continue;
      r->contents_match = pdf_text_matches (report, text, &lang_why);
      /* Report the first language's reason: English unless it was written otherwise. */
      if (why == NULL)
        why = g_steal_pointer (&lang_why);
    }
  if (!r->contents_match)
    {
      r->contents_detail = g_strdup_printf (_("mismatch: %s"), why ? why : "?");
      problem (r, _("The printed verdict table does not match the embedded data: %s."), why ? why : "?");
    }
  else
    r->contents_detail = g_strdup (_("the printed verdict table matches the embedded session data"));
}

/* The printed table against the embedded data, in whichever language it was written. */
static void
pdf_check_contents (QfVerifyResult *r,
                    QfReport       *report)
{
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");
  g_autofree char *out = NULL;
  int status = 0;

  if (pdftotext == NULL)
    {
      r->contents_detail = g_strdup (_("not checked: pdftotext (poppler-utils) is not installed; the signature covers the printed table"));
      return;
    }
  {
    const char *argv[] = { pdftotext, "-layout", "-enc", "UTF-8", r->path, "-", NULL };

    if (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, NULL) &&
        g_spawn_check_wait_status (status, NULL))
      pdf_compare_text (r, report, out);
    else
      r->contents_detail = g_strdup (_("not checked: pdftotext could not read the file"));
  }
}

static void
verify_pdf (QfVerifyResult    *r,
            const guint8      *data,
            gsize              size,
            const char *const *trust_paths,
            GError           **error)
{
  g_autoptr(GError) disagreement = NULL;
  g_autoptr(QfReport) report = pdf_session_report (r, data, size, &disagreement, error);

  if (report == NULL)
    return;
  note_session (r, report);
  pdf_check_signature (r, data, size, trust_paths, error);
  if (check_judged (r, disagreement))
    pdf_check_contents (r, report);
}

static const char *
find_unique (const char *hay,
             const char *needle,
             guint      *count)
{
  const char *first = strstr (hay, needle), *p = first;

  *count = 0;
  while (p != NULL)
    {
      (*count)++;
      p = strstr (p + 1, needle);
    }
  return first;
}

/* The report model of the session data embedded in an HTML report (*json_start: where that
 * data starts in text; *disagreement: its stored verdicts against its figures); NULL with
 * QF_VERIFY_ERROR_NOT_REPORT when there is none or it cannot be read. */
static QfReport *
html_session_report (QfVerifyResult *r,
                     const char     *text,
                     gsize           size,
                     const char    **json_start,
                     GError        **disagreement,
                     GError        **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *json = NULL;
  const char *json_end;
  QfReport *report;
  guint n;

  if (memchr (text, '\0', size) != NULL)
    {
      g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                   _("%s is not a Qualify report (it holds binary data)."), r->path);
      return NULL;
    }
  *json_start = find_unique (text, QF_HTML_SESSION_OPEN, &n);
  if (*json_start == NULL)
    {
      g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                   _("%s is not a Qualify report: it has no embedded session data."), r->path);
      return NULL;
    }
  if (n > 1)
    problem (r, _("The file holds %u session data blocks; a Qualify report has one."), n);
  *json_start += strlen (QF_HTML_SESSION_OPEN);
  json_end = strstr (*json_start, QF_HTML_SCRIPT_CLOSE);
  if (json_end == NULL)
    {
      g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                   _("%s is not a Qualify report: its session data is not closed."), r->path);
      return NULL;
    }
  json = g_strndup (*json_start, json_end - *json_start);
  report = _qf_report_new_for_verify (json, json_end - *json_start, disagreement, &local);
  if (report == NULL)
    g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                 _("%s is not a Qualify report: its session data cannot be read (%s)."), r->path, local->message);
  return report;
}

static gboolean
is_base64_text (const char *text,
                gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (text[i]) && text[i] != '+' && text[i] != '/' && text[i] != '=')
      return FALSE;
  return len > 0 && len % 4 == 0;
}

QfHtmlSignatureBlock
qf_verify_html_signature_block (const char *text,
                                gsize       size,
                                gsize      *start,
                                gsize      *end,
                                GBytes    **cms)
{
  const gsize open_len = strlen (QF_HTML_SIGNATURE_OPEN), close_len = strlen (QF_HTML_SCRIPT_CLOSE);
  const gsize after_len = strlen (QF_HTML_SIGNATURE_AFTER);
  const char *first = memmem (text, size, QF_HTML_SIGNATURE_OPEN, open_len), *b64, *b64_end;
  g_autofree char *canonical = NULL, *b64_text = NULL;
  guchar *der;
  gsize der_len;

  g_return_val_if_fail (start != NULL && end != NULL && cms != NULL, QF_HTML_SIGNATURE_NONE);
  *cms = NULL;
  if (first == NULL)
    return QF_HTML_SIGNATURE_NONE;
  /* The writer's form only: the element, then the last bytes of the file, and nothing like it
   * anywhere before (a file holds one). */
  if (size < after_len + close_len ||
      memcmp (text + size - after_len, QF_HTML_SIGNATURE_AFTER, after_len) != 0 ||
      memcmp (text + size - after_len - close_len, QF_HTML_SCRIPT_CLOSE, close_len) != 0 ||
      memmem (first + 1, text + size - (first + 1), QF_HTML_SIGNATURE_OPEN, open_len) != NULL)
    return QF_HTML_SIGNATURE_MISPLACED;
  b64 = first + open_len;
  b64_end = text + size - after_len - close_len;
  if (b64_end < b64 || !is_base64_text (b64, b64_end - b64))
    return QF_HTML_SIGNATURE_MISPLACED;
  b64_text = g_strndup (b64, b64_end - b64);
  der = g_base64_decode (b64_text, &der_len);
  /* Canonical base64 only, as g_base64_encode writes it: one text for one signature. */
  canonical = g_base64_encode (der, der_len);
  if (der_len == 0 || strcmp (canonical, b64_text) != 0)
    {
      g_free (der);
      return QF_HTML_SIGNATURE_MISPLACED;
    }
  *start = first - text;
  *end = size - after_len;
  *cms = g_bytes_new_take (der, der_len);
  return QF_HTML_SIGNATURE_FOUND;
}

/* The HTML signature element: once, exactly where and as the writer puts it, and valid over
 * every other byte of the file, so nothing can be added, moved or removed anywhere. */
static void
html_check_signature (QfVerifyResult    *r,
                      const char        *text,
                      gsize              size,
                      const char *const *trust_paths,
                      GError           **error)
{
  g_autoptr(GByteArray) covered = g_byte_array_new ();
  g_autoptr(GBytes) covered_bytes = NULL;
  g_autoptr(GBytes) cms = NULL;
  gsize start = 0, end = 0;

  switch (qf_verify_html_signature_block (text, size, &start, &end, &cms))
    {
    case QF_HTML_SIGNATURE_NONE:
      problem (r, _("The report is not signed."));
      return;
    case QF_HTML_SIGNATURE_MISPLACED:
      r->is_signed = TRUE;
      problem (r, _("The signature element is not the one Qualify writes: it must appear once, as the last element before </body> at the end of the file."));
      return;
    case QF_HTML_SIGNATURE_FOUND:
    default:
      break;
    }
  r->is_signed = TRUE;
  g_byte_array_append (covered, (const guint8 *) text, start);
  g_byte_array_append (covered, (const guint8 *) text + end, size - end);
  covered_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&covered));
  r->covers_whole = TRUE;
  verify_cms (r, cms, covered_bytes, trust_paths, error);
}

/* The report's language from data-qf-lang="…" before the session data; NULL when absent. */
static char *
html_language (const char *text,
               const char *json_start)
{
  const char *lang_attr = strstr (text, "data-qf-lang=\"");
  const char *q, *e;

  if (lang_attr == NULL || lang_attr >= json_start)
    return NULL;
  q = lang_attr + strlen ("data-qf-lang=\"");
  e = strchr (q, '"');
  if (e != NULL && e - q < 16)
    return g_strndup (q, e - q);
  return NULL;
}

/* The printed criteria table and overall verdict against the embedded data, rendered again in
 * the report's language. */
static void
html_check_contents (QfVerifyResult *r,
                     QfReport       *report,
                     const char     *text,
                     const char     *lang)
{
  g_autofree char *table = NULL, *overall = NULL, *esc = NULL, *overall_html = NULL;
  guint tables = 0;

  r->contents_checked = TRUE;
  if (lang == NULL || !qf_report_set_language (report, lang, NULL))
    {
      r->contents_detail = g_strdup (_("mismatch: the report's language is unknown"));
      problem (r, _("The report's language cannot be read, so its table cannot be compared."));
      return;
    }
  table = _qf_report_html_criteria_table (report);
  overall = _qf_report_overall_text (report, NULL);
  esc = g_markup_escape_text (overall, -1);
  overall_html = g_strdup_printf ("<span class=\"qf-big\">%s</span>", esc);
  find_unique (text, "<table class=\"qf-table\" id=\"qf-criteria\">", &tables);
  r->contents_match = table != NULL && tables == 1 && strstr (text, table) != NULL &&
                      strstr (text, overall_html) != NULL;
  if (r->contents_match)
    r->contents_detail = g_strdup (_("the printed verdict table matches the embedded session data"));
  else
    {
      r->contents_detail = g_strdup (_("mismatch: the printed verdict table or overall verdict differs from the embedded session data"));
      problem (r, _("The printed verdict table or overall verdict differs from the embedded session data."));
    }
}

static void
verify_html (QfVerifyResult    *r,
             const char        *text,
             gsize              size,
             const char *const *trust_paths,
             GError           **error)
{
  const char *json_start = NULL;
  g_autoptr(GError) disagreement = NULL;
  g_autoptr(QfReport) report = html_session_report (r, text, size, &json_start, &disagreement, error);
  g_autofree char *lang = NULL;

  if (report == NULL)
    return;
  note_session (r, report);
  html_check_signature (r, text, size, trust_paths, error);
  lang = html_language (text, json_start);
  if (check_judged (r, disagreement))
    html_check_contents (r, report, text, lang);
}

/* Reads fd to its end (and closes it) into a NUL-terminated buffer; fails when it holds more
 * than QF_VERIFY_MAX_BYTES, reading at most one chunk beyond. */
static char *
read_bounded (int         fd,
              const char *path,
              gsize      *size,
              GError    **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  guint8 chunk[65536];
  gssize n;

  while ((n = read (fd, chunk, sizeof chunk)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 || data->len + (gsize) n > QF_VERIFY_MAX_BYTES)
        {
          int saved = errno;
          if (n < 0)
            g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_READ, _("Cannot read %s: %s"), path,
                         g_strerror (saved));
          else
            g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                         _("%s is not a report: it grew past the size of any report Qualify writes while it was read."),
                         path);
          close (fd);
          return NULL;
        }
      g_byte_array_append (data, chunk, n);
    }
  close (fd);
  *size = data->len;
  g_byte_array_append (data, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&data), FALSE);
}

/* Reads the whole report from the opened fd, refusing what no report can be: anything but a
 * regular file (a FIFO, a device such as /dev/zero, a directory), or more bytes than
 * QF_VERIFY_MAX_BYTES. The type and size come from fstat on the fd itself, so the file checked is
 * the file read; O_NONBLOCK keeps opening a FIFO from waiting for a writer. A file that grows
 * past the bound after fstat is refused while it is read. */
static char *
read_report (const char *path,
             gsize      *size,
             GError    **error)
{
  g_autofree char *max = g_format_size_full (QF_VERIFY_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);
  struct stat st;
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);

  if (fd < 0 || fstat (fd, &st) < 0)
    {
      int saved = errno;
      g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_READ, _("Cannot read %s: %s"), path,
                   g_strerror (saved));
      if (fd >= 0)
        close (fd);
      return NULL;
    }
  if (!S_ISREG (st.st_mode) || st.st_size > QF_VERIFY_MAX_BYTES)
    {
      g_autofree char *got = g_format_size_full (st.st_size, G_FORMAT_SIZE_IEC_UNITS);
      if (!S_ISREG (st.st_mode))
        g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                     _("%s is not a report: it is not a regular file (a directory, a device or a pipe)."), path);
      else
        g_set_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                     _("%s is not a report: it holds %s, more than any report Qualify writes (%s at most)."),
                     path, got, max);
      close (fd);
      return NULL;
    }
  return read_bounded (fd, path, size, error);
}

QfVerifyResult *
qf_verify_file (const char        *path,
                const char *const *trust_paths,
                GError           **error)
{
  g_autoptr(QfVerifyResult) r = g_new0 (QfVerifyResult, 1);
  g_autofree char *data = NULL;
  gsize size = 0;
  GError *inner = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  r->path = g_strdup (path);
  r->problems = g_ptr_array_new_with_free_func (g_free);
  data = read_report (path, &size, error);
  if (data == NULL)
    return NULL;
  if (size >= 5 && memcmp (data, "%PDF-", 5) == 0)
    {
      r->format = g_strdup ("pdf");
      verify_pdf (r, (const guint8 *) data, size, trust_paths, &inner);
    }
  else if (g_strstr_len (data, MIN (size, 1024), "<html") != NULL ||
           g_strstr_len (data, MIN (size, 1024), "<!DOCTYPE html") != NULL)
    {
      r->format = g_strdup ("html");
      verify_html (r, data, size, trust_paths, &inner);
    }
  else
    g_set_error (&inner, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT,
                 _("%s is neither a PDF nor an HTML report."), path);
  if (inner != NULL)
    {
      g_propagate_error (error, inner);
      return NULL;
    }
  return g_steal_pointer (&r);
}

JsonObject *
qf_verify_result_to_json (const QfVerifyResult *r)
{
  JsonObject *o = json_object_new ();
  JsonArray *problems = json_array_new ();
  g_autofree char *label = qf_cert_signer_label (r->signer_name, r->signer_organization, r->signer);
  g_autofree char *fingerprint = qf_cert_group_fingerprint_hex (r->signer_fingerprint);

  json_object_set_string_member (o, "file", r->path);
  json_object_set_string_member (o, "format", r->format);
  json_object_set_boolean_member (o, "valid", qf_verify_result_ok (r));
  json_object_set_string_member (o, "outcome", qf_verify_outcome_id (qf_verify_result_outcome (r)));
  json_object_set_boolean_member (o, "signed", r->is_signed);
  json_object_set_boolean_member (o, "signature_valid", r->signature_valid);
  json_object_set_boolean_member (o, "covers_whole_document", r->covers_whole);
  json_object_set_string_member (o, "signer", r->signer);
  json_object_set_string_member (o, "signer_name", r->signer_name);
  json_object_set_string_member (o, "signer_organization", r->signer_organization);
  json_object_set_string_member (o, "signer_sha256", r->signer_fingerprint);
  /* the signer and fingerprint in the words the wizard and the report use */
  json_object_set_string_member (o, "signer_label", label);
  json_object_set_string_member (o, "signer_fingerprint", fingerprint);
  json_object_set_string_member (o, "signing_time", r->signing_time);
  json_object_set_boolean_member (o, "trusted", r->trusted);
  json_object_set_boolean_member (o, "trusted_by_reader", r->trusted_by_reader);
  json_object_set_string_member (o, "trust_detail", r->trust_detail);
  json_object_set_string_member (o, "same_name_as_trusted_signer", r->same_name_as_trusted);
  if (r->contents_checked)
    json_object_set_boolean_member (o, "contents_match", r->contents_match);
  else
    json_object_set_null_member (o, "contents_match");
  json_object_set_string_member (o, "contents_detail", r->contents_detail);
  json_object_set_string_member (o, "session_id", r->session_id);
  json_object_set_string_member (o, "verdict", r->overall_verdict);
  json_object_set_string_member (o, "pc", r->pc);
  json_object_set_string_member (o, "profile", r->profile);
  for (guint i = 0; i < r->problems->len; i++)
    json_array_add_string_element (problems, g_ptr_array_index (r->problems, i));
  json_object_set_array_member (o, "problems", problems);
  return o;
}
