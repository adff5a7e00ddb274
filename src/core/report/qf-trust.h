/* qf-trust.h — the signers a customer chose to trust (src/core).
 *
 * "Trust this signer" in the verify view (and `qualify-cli trust add`) remembers the signer's own
 * certificate under $XDG_DATA_HOME/qualify/trusted/ (folder 0700, one PEM file 0600 per
 * certificate, named after its SHA-256 fingerprint). qf_verify_file() then reports a later report
 * signed with exactly that certificate as trusted, in addition to --trust certificates and the
 * system store. Only the certificate itself is trusted, never what its issuer may sign.
 */
#pragma once

#include <glib.h>
#include <gnutls/x509.h>

G_BEGIN_DECLS

#define QF_TRUST_ERROR (qf_trust_error_quark ())
GQuark qf_trust_error_quark (void);

typedef enum
{
  QF_TRUST_ERROR_IO,          /* the folder or a file cannot be written or removed */
  QF_TRUST_ERROR_CERT,        /* not a certificate */
  QF_TRUST_ERROR_NOT_FOUND,   /* no trusted signer has that fingerprint */
  QF_TRUST_ERROR_UNSAFE,      /* the store can be changed by someone else (qf_trust_check_store) */
} QfTrustError;

typedef struct
{
  char *fingerprint;    /* SHA-256 of the DER certificate, "AB:CD:…" */
  char *subject;        /* the whole subject DN */
  char *name;           /* CN, or NULL */
  char *organization;   /* O, or NULL */
  char *not_after;      /* ISO 8601 UTC: when the certificate expires */
  char *path;           /* the file it is remembered in, or NULL */
} QfTrustedSigner;

void             qf_trusted_signer_free     (QfTrustedSigner    *signer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfTrustedSigner, qf_trusted_signer_free)

/* What a certificate says about its holder (path NULL). */
QfTrustedSigner *qf_trusted_signer_new_from_crt (gnutls_x509_crt_t crt);
/* "AB:CD:…", the SHA-256 fingerprint of crt; "" when it cannot be computed. */
char            *qf_trust_fingerprint       (gnutls_x509_crt_t   crt);

/* $XDG_DATA_HOME/qualify/trusted */
char            *qf_trust_get_dir           (void);
/* Remembers the certificate (DER or PEM); returns what was stored. Adding it again is no error;
 * a store qf_trust_check_store refuses is left as it is, with its error. */
QfTrustedSigner *qf_trust_add               (GBytes             *certificate,
                                             GError            **error);
/* TRUE when the store may be used, as ssh's StrictModes decides for authorized_keys: the folder
 * and every .pem file in it are the user's own, neither symbolic links nor group- or
 * world-writable, and the qualify/ folder above is the user's (or root's) and writable by no one
 * else. An absent folder is a safe, empty store. Otherwise FALSE with QF_TRUST_ERROR_UNSAFE
 * naming the file, why it is refused and the command that fixes it. */
gboolean         qf_trust_check_store       (GError            **error);
/* The remembered signers (QfTrustedSigner *), by name; files that hold no certificate are
 * skipped. An absent folder, and one qf_trust_check_store refuses, is an empty list. */
GPtrArray       *qf_trust_list              (void);
/* Forgets the signer with this fingerprint (any case, colons optional). */
gboolean         qf_trust_remove            (const char         *fingerprint,
                                             GError            **error);
/* TRUE when exactly this certificate is remembered, in a store qf_trust_check_store accepts. */
gboolean         qf_trust_contains          (gnutls_x509_crt_t   crt);

G_END_DECLS
