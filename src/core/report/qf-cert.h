/* qf-cert.h — the installer's signing identity: key + certificate chain (src/core).
 *
 * A QfSigner holds a private key and its certificate chain (signer first). It comes from the
 * store under $XDG_DATA_HOME/qualify/keys/ (files mode 0600, folder 0700), from PEM files
 * (key + chain), from a PKCS#12 bundle, or is created: an ECDSA P-256 signing certificate with
 * keyUsage digitalSignature and extendedKeyUsage emailProtection (what PDF readers and pdfsig's
 * NSS check expect of a document signer), issued by a self-signed personal root whose key is
 * discarded at once — NSS validates a signer only through a trusted issuer, so the customer
 * imports that root (qf_signer_get_anchor_pem) to see the signature as trusted. Key material is never logged, printed or
 * written into a report; only the certificate travels inside the signatures.
 *
 * Not thread-safe per object; different signers may be used from different threads.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define QF_CERT_ERROR (qf_cert_error_quark ())
GQuark qf_cert_error_quark (void);

typedef enum
{
  QF_CERT_ERROR_NOT_FOUND,   /* no certificate in the store / a file does not exist */
  QF_CERT_ERROR_INVALID,     /* a file is not a key / certificate / PKCS#12 we can read */
  QF_CERT_ERROR_PASSWORD,    /* the PKCS#12 password is wrong or missing */
  QF_CERT_ERROR_MISMATCH,    /* the key does not belong to the certificate */
  QF_CERT_ERROR_IO,          /* the store cannot be written */
  QF_CERT_ERROR_CRYPTO,      /* GnuTLS failed (message says where) */
  QF_CERT_ERROR_EXPIRED,     /* the certificate is not valid today */
} QfCertError;

typedef struct _QfSigner QfSigner;

/* $XDG_DATA_HOME/qualify/keys (not created). */
char      *qf_cert_get_store_dir        (void);
gboolean   qf_cert_store_exists         (void);

/* Creates the installer's own identity (see above); name and organization form the subject. */
QfSigner  *qf_signer_create_self_signed (const char   *name,
                                         const char   *organization,
                                         GError      **error);
QfSigner  *qf_signer_load_pem           (const char   *cert_path,
                                         const char   *key_path,
                                         GError      **error);
QfSigner  *qf_signer_load_pkcs12        (const char   *p12_path,
                                         const char   *password,
                                         GError      **error);
/* Loads the signer of the store; QF_CERT_ERROR_NOT_FOUND when there is none. */
QfSigner  *qf_signer_load_default       (GError      **error);
/* Writes key and chain into the store (replacing any), files 0600, folder 0700, atomically. */
gboolean   qf_signer_save_default       (QfSigner     *signer,
                                         GError      **error);
void       qf_signer_free               (QfSigner     *signer);

/* The top certificate of the chain (the personal root, or the company's CA as imported), PEM:
 * what a customer adds to their trust store. Never the key. */
char      *qf_signer_get_anchor_pem     (QfSigner     *signer,
                                         GError      **error);

/* {"subject", "issuer", "not_before", "not_after", "sha256_fingerprint", "self_signed",
 *  "key_algorithm", "chain_length", "anchor_subject"} — nothing secret. */
JsonObject *qf_signer_describe          (QfSigner     *signer);
/* The signer's subject DN, e.g. "CN=Li Wei,O=Acme Robotics". */
char      *qf_signer_get_subject        (QfSigner     *signer);
/* The subject's common name and organization as plain UTF-8 ("" when absent), for a person
 * to read (no DN escaping). Either out pointer may be NULL. */
void       qf_signer_get_names          (QfSigner     *signer,
                                         char        **name,
                                         char        **organization);

/* What the wizard and `qualify-cli cert` share: a signing certificate in the words a person
 * reads, and the store's create / import / export. */

/* {"holder" (the subject's CN), "company" (its O, "" when none), "fingerprint" (SHA-256 in groups
 *  of four hex digits, "3F2A 9C01 …", to read aloud), "not_before", "not_after" (ISO 8601, UTC),
 *  "expired"} — nothing secret. */
JsonObject *qf_signer_summarize         (QfSigner     *signer);
/* The same for the certificate in the store, read without its key; NULL and
 * QF_CERT_ERROR_NOT_FOUND when there is none. */
JsonObject *qf_cert_summarize_stored    (GError      **error);
/* "3F2A 9C01 …": bytes as upper-case hex in groups of four digits. */
char      *qf_cert_group_fingerprint    (const guint8 *bytes,
                                         gsize         size);
/* The same grouping for a fingerprint already spelled in hex ("3F:2A:9C:…", as verification and
 * the trust store give it): what a person compares with the Signing Certificate window. NULL
 * for NULL. */
char      *qf_cert_group_fingerprint_hex (const char  *hex);

/* The signer as every screen, report and `qualify-cli verify` names it: "Li Wei, Example
 * Robotics" (holder, company), "Li Wei" without a company, the subject DN (fallback) when the
 * certificate has no common name; NULL when all are NULL or empty. */
char      *qf_cert_signer_label         (const char   *holder,
                                         const char   *company,
                                         const char   *fallback);

/* Creates the installer's own identity (qf_signer_create_self_signed) and saves it in the store,
 * replacing any. */
QfSigner  *qf_cert_create               (const char   *name,
                                         const char   *organization,
                                         GError      **error);
/* Reads a PEM/DER chain and its key (p12_path NULL) or a PKCS#12 file with its password, checks
 * that the key belongs to the certificate and that the certificate is valid today, and saves it
 * in the store, replacing any. */
QfSigner  *qf_cert_import               (const char   *chain_path,
                                         const char   *key_path,
                                         const char   *p12_path,
                                         const char   *password,
                                         GError      **error);
/* Writes the public part a customer needs (qf_signer_get_anchor_pem, never the key) to path,
 * mode 0644. */
gboolean   qf_cert_export_public        (QfSigner     *signer,
                                         const char   *path,
                                         GError      **error);
/* The same for the certificate in the store, read without its key. */
gboolean   qf_cert_export_stored        (const char   *path,
                                         GError      **error);

/* A detached CMS SignedData (DER) over data: SHA-256, the whole chain included, with the
 * signing time (and so contentType and messageDigest) as signed attributes. */
GBytes    *qf_signer_sign_detached      (QfSigner      *signer,
                                         const guint8  *data,
                                         gsize          size,
                                         GError       **error);
/* The same with signing_time as the signed signingTime (to the second; NULL: now), so a time
 * printed in the document before it was signed is the signature's own. */
GBytes    *qf_signer_sign_detached_at   (QfSigner      *signer,
                                         const guint8  *data,
                                         gsize          size,
                                         GDateTime     *signing_time,
                                         GError       **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfSigner, qf_signer_free)

G_END_DECLS
