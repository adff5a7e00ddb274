/* qf-cert.c — creating, importing, storing and using the installer's signing key (src/core).
 *
 * GnuTLS does the cryptography. The store is two PEM files under $XDG_DATA_HOME/qualify/keys/:
 * signer-key.pem (PKCS#8, unencrypted — the folder is 0700 and the file 0600, like an ssh key)
 * and signer-chain.pem (the signer's certificate first, then any issuers).
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/pkcs12.h>
#include <gnutls/pkcs7.h>
#include <gnutls/x509.h>
#include <string.h>

#include "qf-cert.h"
#include "qf-i18n.h"
#include "qf-json.h"

G_DEFINE_QUARK (qf-cert-error-quark, qf_cert_error)

#define KEY_FILE "signer-key.pem"
#define CHAIN_FILE "signer-chain.pem"
#define MAX_CHAIN 16

struct _QfSigner
{
  gnutls_x509_privkey_t key;
  gnutls_x509_crt_t     chain[MAX_CHAIN];
  guint                 chain_len;
};

static gboolean
gnutls_failed (int         ret,
               const char *what,
               GError    **error)
{
  if (ret >= 0)
    return FALSE;
  g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_CRYPTO,
               _("%s failed: %s"), what, gnutls_strerror (ret));
  return TRUE;
}

void
qf_signer_free (QfSigner *signer)
{
  if (signer == NULL)
    return;
  if (signer->key != NULL)
    gnutls_x509_privkey_deinit (signer->key);
  for (guint i = 0; i < signer->chain_len; i++)
    gnutls_x509_crt_deinit (signer->chain[i]);
  g_free (signer);
}

char *
qf_cert_get_store_dir (void)
{
  return g_build_filename (g_get_user_data_dir (), "qualify", "keys", NULL);
}

gboolean
qf_cert_store_exists (void)
{
  g_autofree char *dir = qf_cert_get_store_dir ();
  g_autofree char *key = g_build_filename (dir, KEY_FILE, NULL);
  g_autofree char *chain = g_build_filename (dir, CHAIN_FILE, NULL);

  return g_file_test (key, G_FILE_TEST_IS_REGULAR) && g_file_test (chain, G_FILE_TEST_IS_REGULAR);
}

/* The key must be the one certified by chain[0]. */
static gboolean
check_key_matches (QfSigner *signer,
                   GError  **error)
{
  guint8 key_id[64], crt_id[64];
  size_t key_len = sizeof key_id, crt_len = sizeof crt_id;

  if (gnutls_x509_privkey_get_key_id (signer->key, GNUTLS_KEYID_USE_SHA256, key_id, &key_len) < 0 ||
      gnutls_x509_crt_get_key_id (signer->chain[0], GNUTLS_KEYID_USE_SHA256, crt_id, &crt_len) < 0 ||
      key_len != crt_len || memcmp (key_id, crt_id, key_len) != 0)
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_MISMATCH,
                   _("The private key does not belong to the certificate. Give the key that was used to request this certificate."));
      return FALSE;
    }
  return TRUE;
}

/* Fills the fields both certificates of a new identity share. */
static int
set_common (gnutls_x509_crt_t      crt,
            gnutls_x509_privkey_t  key,
            const char            *cn,
            const char            *organization)
{
  guint8 serial[16], key_id[64];
  size_t key_id_len = sizeof key_id;
  time_t now = time (NULL);
  int ret;

  gnutls_rnd (GNUTLS_RND_NONCE, serial, sizeof serial);
  serial[0] &= 0x7f;  /* a positive INTEGER */
  serial[0] |= 0x01;
  if ((ret = gnutls_x509_crt_set_version (crt, 3)) < 0 ||
      (ret = gnutls_x509_crt_set_serial (crt, serial, sizeof serial)) < 0 ||
      (ret = gnutls_x509_crt_set_activation_time (crt, now - 3600)) < 0 ||
      (ret = gnutls_x509_crt_set_expiration_time (crt, now + (time_t) 10 * 365 * 24 * 3600)) < 0 ||
      (ret = gnutls_x509_crt_set_dn_by_oid (crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn, strlen (cn))) < 0 ||
      (organization != NULL && *organization != '\0' &&
       (ret = gnutls_x509_crt_set_dn_by_oid (crt, GNUTLS_OID_X520_ORGANIZATION_NAME, 0,
                                             organization, strlen (organization))) < 0) ||
      (ret = gnutls_x509_crt_set_key (crt, key)) < 0)
    return ret;
  if (gnutls_x509_crt_get_key_id (crt, GNUTLS_KEYID_USE_SHA1, key_id, &key_id_len) >= 0)
    gnutls_x509_crt_set_subject_key_id (crt, key_id, key_id_len);
  return 0;
}

static gboolean
new_p256_key (gnutls_x509_privkey_t *key,
              GError               **error)
{
  if (gnutls_failed (gnutls_x509_privkey_init (key), "gnutls_x509_privkey_init", error))
    return FALSE;
  return !gnutls_failed (gnutls_x509_privkey_generate (*key, GNUTLS_PK_ECDSA,
                                                       GNUTLS_CURVE_TO_BITS (GNUTLS_ECC_CURVE_SECP256R1), 0),
                         _("Generating an ECDSA P-256 key"), error);
}

/* A self-made identity: a personal root certificate (self-signed, CA, may sign only this one
 * certificate: its key is thrown away afterwards) and the signing certificate it issues.
 * Why two: NSS, which pdfsig and Firefox-based readers use, validates a document signer only
 * through a trusted issuer — a lone self-signed end-entity certificate stays "issuer unknown"
 * whatever trust it is given. A customer who imports the root (`cert show --export`) then sees
 * "Certificate is Trusted." */
QfSigner *
qf_signer_create_self_signed (const char *name,
                              const char *organization,
                              GError    **error)
{
  g_autoptr(QfSigner) signer = g_new0 (QfSigner, 1);
  gnutls_x509_privkey_t root_key = NULL;
  gnutls_x509_crt_t crt, root;
  g_autofree char *root_cn = NULL;
  guint8 root_id[64];
  size_t root_id_len = sizeof root_id;
  int ret;

  g_return_val_if_fail (name != NULL && *name != '\0', NULL);

  if (!new_p256_key (&signer->key, error) || !new_p256_key (&root_key, error))
    goto fail;

  ret = gnutls_x509_crt_init (&crt);
  if (gnutls_failed (ret, "gnutls_x509_crt_init", error))
    goto fail;
  signer->chain[signer->chain_len++] = crt;
  ret = gnutls_x509_crt_init (&root);
  if (gnutls_failed (ret, "gnutls_x509_crt_init", error))
    goto fail;
  signer->chain[signer->chain_len++] = root;

  /* Not translated: a certificate's name must not depend on the language of the moment. */
  root_cn = g_strdup_printf ("%s (Qualify signing root)", name);
  if ((ret = set_common (root, root_key, root_cn, organization)) < 0 ||
      (ret = gnutls_x509_crt_set_basic_constraints (root, 1, 0)) < 0 ||
      (ret = gnutls_x509_crt_set_key_usage (root, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN)) < 0 ||
      (ret = gnutls_x509_crt_sign2 (root, root, root_key, GNUTLS_DIG_SHA256, 0)) < 0)
    {
      gnutls_failed (ret, _("Creating the certificate"), error);
      goto fail;
    }

  if ((ret = set_common (crt, signer->key, name, organization)) < 0 ||
      (ret = gnutls_x509_crt_set_basic_constraints (crt, 0, -1)) < 0 ||
      (ret = gnutls_x509_crt_set_key_usage (crt, GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_NON_REPUDIATION)) < 0 ||
      (ret = gnutls_x509_crt_set_key_purpose_oid (crt, GNUTLS_KP_EMAIL_PROTECTION, 0)) < 0)
    {
      gnutls_failed (ret, _("Creating the certificate"), error);
      goto fail;
    }
  if (gnutls_x509_crt_get_subject_key_id (root, root_id, &root_id_len, NULL) >= 0)
    gnutls_x509_crt_set_authority_key_id (crt, root_id, root_id_len);
  ret = gnutls_x509_crt_sign2 (crt, root, root_key, GNUTLS_DIG_SHA256, 0);
  if (gnutls_failed (ret, _("Self-signing the certificate"), error))
    goto fail;

  gnutls_x509_privkey_deinit (root_key);
  return g_steal_pointer (&signer);

fail:
  if (root_key != NULL)
    gnutls_x509_privkey_deinit (root_key);
  return NULL;
}

char *
qf_signer_get_anchor_pem (QfSigner *signer,
                          GError  **error)
{
  gnutls_datum_t out = { NULL, 0 };
  char *pem;

  g_return_val_if_fail (signer != NULL && signer->chain_len > 0, NULL);
  if (gnutls_failed (gnutls_x509_crt_export2 (signer->chain[signer->chain_len - 1], GNUTLS_X509_FMT_PEM, &out),
                     "gnutls_x509_crt_export2", error))
    return NULL;
  pem = g_strndup ((const char *) out.data, out.size);
  gnutls_free (out.data);
  return pem;
}

static gboolean
read_file (const char  *path,
           gnutls_datum_t *datum,
           char       **contents,
           GError     **error)
{
  gsize len;
  g_autoptr(GError) local = NULL;

  if (!g_file_get_contents (path, contents, &len, &local))
    {
      g_set_error (error, QF_CERT_ERROR,
                   g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT)
                   ? QF_CERT_ERROR_NOT_FOUND : QF_CERT_ERROR_IO,
                   _("%s. Choose a file that exists and that you may read."), local->message);
      return FALSE;
    }
  datum->data = (unsigned char *) *contents;
  datum->size = len;
  return TRUE;
}

static gboolean
load_chain (QfSigner   *signer,
            const char *path,
            GError    **error)
{
  g_autofree char *contents = NULL;
  gnutls_datum_t datum;
  unsigned int n = MAX_CHAIN;
  int ret;

  if (!read_file (path, &datum, &contents, error))
    return FALSE;
  ret = gnutls_x509_crt_list_import (signer->chain, &n, &datum, GNUTLS_X509_FMT_PEM, 0);
  if (ret <= 0)
    ret = (n = MAX_CHAIN, gnutls_x509_crt_list_import (signer->chain, &n, &datum, GNUTLS_X509_FMT_DER, 0));
  if (ret <= 0)
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_INVALID,
                   _("%s holds no certificate GnuTLS can read (PEM or DER expected)."), path);
      return FALSE;
    }
  signer->chain_len = (guint) ret;
  return TRUE;
}

static gboolean
load_key (QfSigner   *signer,
          const char *path,
          GError    **error)
{
  g_autofree char *contents = NULL;
  gnutls_datum_t datum;
  int ret;

  if (!read_file (path, &datum, &contents, error))
    return FALSE;
  ret = gnutls_x509_privkey_init (&signer->key);
  if (gnutls_failed (ret, "gnutls_x509_privkey_init", error))
    return FALSE;
  ret = gnutls_x509_privkey_import2 (signer->key, &datum, GNUTLS_X509_FMT_PEM, NULL, 0);
  if (ret < 0)
    ret = gnutls_x509_privkey_import2 (signer->key, &datum, GNUTLS_X509_FMT_DER, NULL, 0);
  explicit_bzero (contents, datum.size);
  if (ret < 0)
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_INVALID,
                   _("%s is not an unencrypted private key GnuTLS can read: %s"), path,
                   gnutls_strerror (ret));
      return FALSE;
    }
  return TRUE;
}

QfSigner *
qf_signer_load_pem (const char *cert_path,
                    const char *key_path,
                    GError    **error)
{
  g_autoptr(QfSigner) signer = g_new0 (QfSigner, 1);

  g_return_val_if_fail (cert_path != NULL && key_path != NULL, NULL);
  if (!load_chain (signer, cert_path, error) || !load_key (signer, key_path, error) ||
      !check_key_matches (signer, error))
    return NULL;
  return g_steal_pointer (&signer);
}

G_DEFINE_AUTO_CLEANUP_FREE_FUNC (gnutls_pkcs12_bag_t, gnutls_pkcs12_bag_deinit, NULL)

/* The most rounds of a PKCS#12 file's password function (its MAC, an encrypted bag, a shrouded
 * key) Qualify runs: about a second of work here. Exports use 2 000 (Windows) to 10 000 (Java),
 * OpenSSL 2 048; GnuTLS itself stops key decryption at 10 M rounds but runs the MAC's count,
 * whatever it says, before anything else, so a file asking for 2^31 would keep the process busy
 * for hours. */
#define PKCS12_MAX_ROUNDS 2000000u

static gboolean
pkcs12_rounds_refused (const char   *p12_path,
                       const char   *what,
                       unsigned int  rounds,
                       GError      **error)
{
  if (rounds <= PKCS12_MAX_ROUNDS)
    return FALSE;
  /* TRANSLATORS: the second %s is "its integrity check", "its encrypted contents" or "its
   * private key" */
  g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_INVALID,
               _("%s asks for %u rounds of its password function for %s; Qualify runs at most %u, "
                 "so that a file cannot keep it busy for hours. Export the certificate again with "
                 "the usual settings (openssl pkcs12 -export uses 2048)."),
               p12_path, rounds, what, PKCS12_MAX_ROUNDS);
  return TRUE;
}

static gboolean
pkcs12_settings_unreadable (const char  *p12_path,
                            int          ret,
                            GError     **error)
{
  g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_INVALID,
               _("%s protects its contents with settings that cannot be used (%s): too many rounds "
                 "of its password function or an unknown cipher. Export the certificate again with "
                 "the usual settings (openssl pkcs12 -export uses 2048 rounds and AES-256)."),
               p12_path, gnutls_strerror (ret));
  return FALSE;
}

/* How much work the file asks for, read before any of it is done: the rounds of the MAC and of
 * every encrypted bag and shrouded key that can be seen without decrypting (keys inside an
 * encrypted bag are bounded by GnuTLS's own limit). FALSE with the reason. */
static gboolean
pkcs12_work_bounded (gnutls_pkcs12_t  p12,
                     const char      *p12_path,
                     GError         **error)
{
  unsigned int rounds = 0;

  if (gnutls_pkcs12_mac_info (p12, NULL, NULL, NULL, &rounds, NULL) >= 0 &&
      pkcs12_rounds_refused (p12_path, _("its integrity check"), rounds, error))
    return FALSE;
  for (int i = 0;; i++)
    {
      g_auto(gnutls_pkcs12_bag_t) bag = NULL;
      int ret;

      if (gnutls_pkcs12_bag_init (&bag) < 0 || gnutls_pkcs12_get_bag (p12, i, bag) < 0)
        return TRUE;
      if (gnutls_pkcs12_bag_get_type (bag, 0) == GNUTLS_BAG_ENCRYPTED)
        {
          ret = gnutls_pkcs12_bag_enc_info (bag, NULL, NULL, NULL, NULL, &rounds, NULL);
          if (ret < 0)
            return pkcs12_settings_unreadable (p12_path, ret, error);
          if (pkcs12_rounds_refused (p12_path, _("its encrypted contents"), rounds, error))
            return FALSE;
          continue;
        }
      for (int j = 0; j < gnutls_pkcs12_bag_get_count (bag); j++)
        {
          gnutls_datum_t data = { NULL, 0 };

          if (gnutls_pkcs12_bag_get_type (bag, j) != GNUTLS_BAG_PKCS8_ENCRYPTED_KEY ||
              gnutls_pkcs12_bag_get_data (bag, j, &data) < 0)
            continue;
          ret = gnutls_pkcs8_info (&data, GNUTLS_X509_FMT_DER, NULL, NULL, NULL, NULL, &rounds, NULL);
          if (ret < 0)
            return pkcs12_settings_unreadable (p12_path, ret, error);
          if (pkcs12_rounds_refused (p12_path, _("its private key"), rounds, error))
            return FALSE;
        }
    }
}

QfSigner *
qf_signer_load_pkcs12 (const char *p12_path,
                       const char *password,
                       GError    **error)
{
  g_autoptr(QfSigner) signer = g_new0 (QfSigner, 1);
  g_autofree char *contents = NULL;
  gnutls_pkcs12_t p12;
  gnutls_datum_t datum;
  gnutls_x509_crt_t *chain = NULL, *extra = NULL;
  unsigned int chain_len = 0, extra_len = 0;
  int ret;

  g_return_val_if_fail (p12_path != NULL, NULL);
  if (!read_file (p12_path, &datum, &contents, error))
    return NULL;
  ret = gnutls_pkcs12_init (&p12);
  if (gnutls_failed (ret, "gnutls_pkcs12_init", error))
    return NULL;
  ret = gnutls_pkcs12_import (p12, &datum, GNUTLS_X509_FMT_DER, 0);
  if (ret < 0)
    ret = gnutls_pkcs12_import (p12, &datum, GNUTLS_X509_FMT_PEM, 0);
  if (ret < 0)
    {
      gnutls_pkcs12_deinit (p12);
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_INVALID,
                   _("%s is not a PKCS#12 file: %s"), p12_path, gnutls_strerror (ret));
      return NULL;
    }
  if (!pkcs12_work_bounded (p12, p12_path, error))
    {
      gnutls_pkcs12_deinit (p12);
      return NULL;
    }
  if (gnutls_pkcs12_verify_mac (p12, password ? password : "") < 0)
    {
      gnutls_pkcs12_deinit (p12);
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_PASSWORD,
                   _("The password of %s is wrong. Type the password the file was protected with when it was made."),
                   p12_path);
      return NULL;
    }
  ret = gnutls_pkcs12_simple_parse (p12, password ? password : "", &signer->key, &chain, &chain_len,
                                    &extra, &extra_len, NULL, GNUTLS_PKCS12_SP_INCLUDE_SELF_SIGNED);
  gnutls_pkcs12_deinit (p12);
  explicit_bzero (contents, datum.size);
  if (ret < 0 || chain_len == 0)
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_INVALID,
                   _("%s holds no private key with its certificate: %s"), p12_path,
                   gnutls_strerror (ret < 0 ? ret : GNUTLS_E_CERTIFICATE_ERROR));
      return NULL;
    }
  for (unsigned int i = 0; i < chain_len; i++)
    if (signer->chain_len < MAX_CHAIN)
      signer->chain[signer->chain_len++] = chain[i];
    else
      gnutls_x509_crt_deinit (chain[i]);
  for (unsigned int i = 0; i < extra_len; i++)
    if (signer->chain_len < MAX_CHAIN)
      signer->chain[signer->chain_len++] = extra[i];
    else
      gnutls_x509_crt_deinit (extra[i]);
  gnutls_free (chain);
  gnutls_free (extra);
  if (!check_key_matches (signer, error))
    return NULL;
  return g_steal_pointer (&signer);
}

QfSigner *
qf_signer_load_default (GError **error)
{
  g_autofree char *dir = qf_cert_get_store_dir ();
  g_autofree char *key = g_build_filename (dir, KEY_FILE, NULL);
  g_autofree char *chain = g_build_filename (dir, CHAIN_FILE, NULL);

  if (!qf_cert_store_exists ())
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_NOT_FOUND,
                   _("No signing certificate in %s. Create one with “qualify-cli cert create --name NAME” or import one with “qualify-cli cert import”."),
                   dir);
      return NULL;
    }
  return qf_signer_load_pem (chain, key, error);
}

gboolean
qf_signer_save_default (QfSigner *signer,
                        GError  **error)
{
  g_autofree char *dir = qf_cert_get_store_dir ();
  g_autofree char *key_path = g_build_filename (dir, KEY_FILE, NULL);
  g_autofree char *chain_path = g_build_filename (dir, CHAIN_FILE, NULL);
  g_autoptr(GString) chain = g_string_new (NULL);
  gnutls_datum_t out = { NULL, 0 };
  g_autoptr(GError) local = NULL;
  int ret;

  g_return_val_if_fail (signer != NULL, FALSE);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_IO, _("Cannot create %s: %s"), dir,
                   g_strerror (saved));
      return FALSE;
    }
  g_chmod (dir, 0700);

  for (guint i = 0; i < signer->chain_len; i++)
    {
      ret = gnutls_x509_crt_export2 (signer->chain[i], GNUTLS_X509_FMT_PEM, &out);
      if (gnutls_failed (ret, "gnutls_x509_crt_export2", error))
        return FALSE;
      g_string_append_len (chain, (const char *) out.data, out.size);
      gnutls_free (out.data);
    }
  ret = gnutls_x509_privkey_export2_pkcs8 (signer->key, GNUTLS_X509_FMT_PEM, NULL,
                                           GNUTLS_PKCS_PLAIN, &out);
  if (gnutls_failed (ret, "gnutls_x509_privkey_export2_pkcs8", error))
    return FALSE;
  /* The temp file is created with this mode before it is renamed: the key is never readable
   * by others, not even for a moment. */
  if (!qf_file_write_atomic (key_path, out.data, out.size, 0600, &local))
    {
      explicit_bzero (out.data, out.size);
      gnutls_free (out.data);
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_IO, "%s", local->message);
      return FALSE;
    }
  explicit_bzero (out.data, out.size);
  gnutls_free (out.data);
  if (!qf_file_write_atomic (chain_path, chain->str, chain->len, 0600, &local))
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_IO, "%s", local->message);
      return FALSE;
    }
  return TRUE;
}

static char *
dn_string (gnutls_x509_crt_t crt,
           gboolean          issuer)
{
  gnutls_datum_t dn = { NULL, 0 };
  char *s;

  if ((issuer ? gnutls_x509_crt_get_issuer_dn3 (crt, &dn, 0)
              : gnutls_x509_crt_get_dn3 (crt, &dn, 0)) < 0)
    return g_strdup ("");
  s = g_strndup ((const char *) dn.data, dn.size);
  gnutls_free (dn.data);
  return s;
}

char *
qf_signer_get_subject (QfSigner *signer)
{
  g_return_val_if_fail (signer != NULL, NULL);
  return dn_string (signer->chain[0], FALSE);
}

static char *
iso_time (time_t t)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (t);
  return dt ? g_date_time_format_iso8601 (dt) : g_strdup ("");
}

static void
set_owned_string (JsonObject *obj,
                  const char *key,
                  char       *value)
{
  json_object_set_string_member (obj, key, value);
  g_free (value);
}

JsonObject *
qf_signer_describe (QfSigner *signer)
{
  JsonObject *obj = json_object_new ();
  gnutls_x509_crt_t crt;
  guint8 fp[32];
  size_t fp_len = sizeof fp;
  g_autoptr(GString) hex = g_string_new (NULL);
  unsigned int bits = 0;
  int algo;

  g_return_val_if_fail (signer != NULL, obj);
  crt = signer->chain[0];
  set_owned_string (obj, "subject", dn_string (crt, FALSE));
  set_owned_string (obj, "issuer", dn_string (crt, TRUE));
  set_owned_string (obj, "not_before", iso_time (gnutls_x509_crt_get_activation_time (crt)));
  set_owned_string (obj, "not_after", iso_time (gnutls_x509_crt_get_expiration_time (crt)));
  if (gnutls_x509_crt_get_fingerprint (crt, GNUTLS_DIG_SHA256, fp, &fp_len) >= 0)
    for (size_t i = 0; i < fp_len; i++)
      g_string_append_printf (hex, i ? ":%02X" : "%02X", fp[i]);
  json_object_set_string_member (obj, "sha256_fingerprint", hex->str);
  json_object_set_boolean_member (obj, "self_signed",
                                  gnutls_x509_crt_check_issuer (crt, crt) != 0);
  algo = gnutls_x509_crt_get_pk_algorithm (crt, &bits);
  set_owned_string (obj, "key_algorithm",
                    g_strdup_printf ("%s %u", gnutls_pk_algorithm_get_name (algo), bits));
  json_object_set_int_member (obj, "chain_length", signer->chain_len);
  set_owned_string (obj, "anchor_subject", dn_string (signer->chain[signer->chain_len - 1], FALSE));
  return obj;
}

/* One attribute of the subject, as UTF-8 text ("" when absent). */
static char *
subject_attribute (gnutls_x509_crt_t crt,
                   const char       *oid)
{
  char buf[1024];
  size_t len = sizeof buf;

  if (gnutls_x509_crt_get_dn_by_oid (crt, oid, 0, 0, buf, &len) < 0 || !g_utf8_validate (buf, len, NULL))
    return g_strdup ("");
  return g_strndup (buf, len);
}

void
qf_signer_get_names (QfSigner  *signer,
                     char     **name,
                     char     **organization)
{
  g_return_if_fail (signer != NULL);
  if (name != NULL)
    *name = subject_attribute (signer->chain[0], GNUTLS_OID_X520_COMMON_NAME);
  if (organization != NULL)
    *organization = subject_attribute (signer->chain[0], GNUTLS_OID_X520_ORGANIZATION_NAME);
}

GBytes *
qf_signer_sign_detached (QfSigner     *signer,
                         const guint8 *data,
                         gsize         size,
                         GError      **error)
{
  return qf_signer_sign_detached_at (signer, data, size, NULL, error);
}

/* The signingTime attribute's value (RFC 5652 §11.3): UTCTime up to 2049, then
 * GeneralizedTime, both in UTC to the second. */
static void
signing_time_der (GDateTime *when,
                  guint8     der[17],
                  guint     *der_len)
{
  g_autoptr(GDateTime) utc = g_date_time_to_utc (when);
  gboolean utc_time = g_date_time_get_year (utc) >= 1950 && g_date_time_get_year (utc) < 2050;
  g_autofree char *text = g_date_time_format (utc, utc_time ? "%y%m%d%H%M%SZ" : "%Y%m%d%H%M%SZ");

  der[0] = utc_time ? 0x17 : 0x18;
  der[1] = (guint8) strlen (text);
  memcpy (der + 2, text, der[1]);
  *der_len = 2 + der[1];
}

GBytes *
qf_signer_sign_detached_at (QfSigner     *signer,
                            const guint8 *data,
                            gsize         size,
                            GDateTime    *signing_time,
                            GError      **error)
{
  gnutls_pkcs7_t p7 = NULL;
  gnutls_privkey_t key = NULL;
  gnutls_pkcs7_attrs_t attrs = NULL;
  gnutls_datum_t in = { (unsigned char *) data, (unsigned int) size };
  gnutls_datum_t out = { NULL, 0 };
  GBytes *der = NULL;
  int ret;

  g_return_val_if_fail (signer != NULL, NULL);
  g_return_val_if_fail (size <= G_MAXUINT, NULL);

  if (signing_time != NULL)
    {
      guint8 when[17];
      guint when_len;
      gnutls_datum_t value = { when, 0 };

      signing_time_der (signing_time, when, &when_len);
      value.size = when_len;
      /* GnuTLS adds contentType and messageDigest with it, as for INCLUDE_TIME. */
      if (gnutls_failed (gnutls_pkcs7_add_attr (&attrs, "1.2.840.113549.1.9.5", &value, 0),
                         "gnutls_pkcs7_add_attr", error))
        return NULL;
    }
  if (gnutls_failed (gnutls_pkcs7_init (&p7), "gnutls_pkcs7_init", error))
    {
      gnutls_pkcs7_attrs_deinit (attrs);
      return NULL;
    }
  if (gnutls_failed (gnutls_privkey_init (&key), "gnutls_privkey_init", error))
    goto out;
  ret = gnutls_privkey_import_x509 (key, signer->key, 0);
  if (gnutls_failed (ret, "gnutls_privkey_import_x509", error))
    goto out;
  /* The issuers first, so a verifier that has only the root can build the path; the signer's
   * own certificate is added by INCLUDE_CERT. */
  for (guint i = 1; i < signer->chain_len; i++)
    if (gnutls_failed (gnutls_pkcs7_set_crt (p7, signer->chain[i]), "gnutls_pkcs7_set_crt", error))
      goto out;
  ret = gnutls_pkcs7_sign (p7, signer->chain[0], key, &in, attrs, NULL, GNUTLS_DIG_SHA256,
                           GNUTLS_PKCS7_INCLUDE_CERT | (attrs ? 0 : GNUTLS_PKCS7_INCLUDE_TIME));
  if (gnutls_failed (ret, _("Signing"), error))
    goto out;
  ret = gnutls_pkcs7_export2 (p7, GNUTLS_X509_FMT_DER, &out);
  if (gnutls_failed (ret, "gnutls_pkcs7_export2", error))
    goto out;
  der = g_bytes_new (out.data, out.size);
  gnutls_free (out.data);

out:
  if (key != NULL)
    gnutls_privkey_deinit (key);
  gnutls_pkcs7_attrs_deinit (attrs);
  gnutls_pkcs7_deinit (p7);
  return der;
}

/* ---- what the wizard and `qualify-cli cert` share ---- */

char *
qf_cert_group_fingerprint (const guint8 *bytes,
                           gsize         size)
{
  GString *text = g_string_sized_new (size * 2 + size / 2);

  for (gsize i = 0; i < size; i++)
    g_string_append_printf (text, (i > 0 && i % 2 == 0) ? " %02X" : "%02X", bytes[i]);
  return g_string_free (text, FALSE);
}

char *
qf_cert_signer_label (const char *holder,
                      const char *company,
                      const char *fallback)
{
  if (holder == NULL || *holder == '\0')
    return fallback != NULL && *fallback != '\0' ? g_strdup (fallback) : NULL;
  if (company == NULL || *company == '\0')
    return g_strdup (holder);
  return g_strdup_printf ("%s, %s", holder, company);
}

char *
qf_cert_group_fingerprint_hex (const char *hex)
{
  g_autoptr(GByteArray) bytes = NULL;
  int high = -1;

  if (hex == NULL)
    return NULL;
  bytes = g_byte_array_new ();
  for (const char *p = hex; *p != '\0'; p++)
    {
      int digit = g_ascii_xdigit_value (*p);
      guint8 byte;

      if (digit < 0)
        continue;
      if (high < 0)
        {
          high = digit;
          continue;
        }
      byte = (guint8) (high << 4 | digit);
      g_byte_array_append (bytes, &byte, 1);
      high = -1;
    }
  return qf_cert_group_fingerprint (bytes->data, bytes->len);
}

/* The first value of one attribute of the subject, "" when it has none. */
static char *
subject_part (gnutls_x509_crt_t  crt,
              const char        *oid)
{
  size_t size = 0;
  char *value;

  if (gnutls_x509_crt_get_dn_by_oid (crt, oid, 0, 0, NULL, &size) != GNUTLS_E_SHORT_MEMORY_BUFFER)
    return g_strdup ("");
  value = g_malloc0 (size + 1);
  if (gnutls_x509_crt_get_dn_by_oid (crt, oid, 0, 0, value, &size) < 0)
    value[0] = '\0';
  return value;
}

JsonObject *
qf_signer_summarize (QfSigner *signer)
{
  JsonObject *obj = json_object_new ();
  gnutls_x509_crt_t crt;
  guint8 fp[32];
  size_t fp_len = sizeof fp;
  time_t now = time (NULL);

  g_return_val_if_fail (signer != NULL && signer->chain_len > 0, obj);
  crt = signer->chain[0];
  set_owned_string (obj, "holder", subject_part (crt, GNUTLS_OID_X520_COMMON_NAME));
  set_owned_string (obj, "company", subject_part (crt, GNUTLS_OID_X520_ORGANIZATION_NAME));
  if (gnutls_x509_crt_get_fingerprint (crt, GNUTLS_DIG_SHA256, fp, &fp_len) < 0)
    fp_len = 0;
  set_owned_string (obj, "fingerprint", qf_cert_group_fingerprint (fp, fp_len));
  set_owned_string (obj, "not_before", iso_time (gnutls_x509_crt_get_activation_time (crt)));
  set_owned_string (obj, "not_after", iso_time (gnutls_x509_crt_get_expiration_time (crt)));
  json_object_set_boolean_member (obj, "expired",
                                  now < gnutls_x509_crt_get_activation_time (crt)
                                  || now > gnutls_x509_crt_get_expiration_time (crt));
  return obj;
}

/* The store's certificates without the key: for showing and exporting the public part. */
static QfSigner *
load_stored_chain (GError **error)
{
  g_autofree char *dir = qf_cert_get_store_dir ();
  g_autofree char *chain = g_build_filename (dir, CHAIN_FILE, NULL);
  g_autoptr(QfSigner) signer = g_new0 (QfSigner, 1);

  if (!qf_cert_store_exists ())
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_NOT_FOUND,
                   _("There is no signing certificate yet. Create one or import your company's."));
      return NULL;
    }
  if (!load_chain (signer, chain, error))
    return NULL;
  return g_steal_pointer (&signer);
}

JsonObject *
qf_cert_summarize_stored (GError **error)
{
  g_autoptr(QfSigner) signer = load_stored_chain (error);

  return signer != NULL ? qf_signer_summarize (signer) : NULL;
}

QfSigner *
qf_cert_create (const char *name,
                const char *organization,
                GError    **error)
{
  g_autoptr(QfSigner) signer = NULL;
  g_autofree char *trimmed = g_strstrip (g_strdup (name != NULL ? name : ""));

  if (*trimmed == '\0')
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_INVALID,
                   _("A certificate needs its holder's name. Type your name as it should appear on the signature."));
      return NULL;
    }
  signer = qf_signer_create_self_signed (trimmed, organization, error);
  if (signer == NULL || !qf_signer_save_default (signer, error))
    return NULL;
  return g_steal_pointer (&signer);
}

static gboolean
check_valid_today (QfSigner *signer,
                   GError  **error)
{
  time_t now = time (NULL);
  time_t from = gnutls_x509_crt_get_activation_time (signer->chain[0]);
  time_t until = gnutls_x509_crt_get_expiration_time (signer->chain[0]);
  g_autofree char *from_text = iso_time (from), *until_text = iso_time (until);

  if (now >= from && now <= until)
    return TRUE;
  g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_EXPIRED,
               _("The certificate is valid only from %s to %s, not today. Ask your company for a current certificate, or check this PC's clock."),
               from_text, until_text);
  return FALSE;
}

QfSigner *
qf_cert_import (const char *chain_path,
                const char *key_path,
                const char *p12_path,
                const char *password,
                GError    **error)
{
  g_autoptr(QfSigner) signer = NULL;

  g_return_val_if_fail (p12_path != NULL || (chain_path != NULL && key_path != NULL), NULL);
  if (p12_path != NULL)
    signer = qf_signer_load_pkcs12 (p12_path, password, error);
  else
    signer = qf_signer_load_pem (chain_path, key_path, error);
  if (signer == NULL || !check_valid_today (signer, error) || !qf_signer_save_default (signer, error))
    return NULL;
  return g_steal_pointer (&signer);
}

gboolean
qf_cert_export_public (QfSigner   *signer,
                       const char *path,
                       GError    **error)
{
  g_autofree char *pem = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (signer != NULL && path != NULL, FALSE);
  pem = qf_signer_get_anchor_pem (signer, error);
  if (pem == NULL)
    return FALSE;
  if (!qf_file_write_atomic (path, pem, strlen (pem), 0644, &local))
    {
      g_set_error (error, QF_CERT_ERROR, QF_CERT_ERROR_IO,
                   _("%s. Choose a folder you may write to."), local->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_cert_export_stored (const char *path,
                       GError    **error)
{
  g_autoptr(QfSigner) signer = load_stored_chain (error);

  return signer != NULL && qf_cert_export_public (signer, path, error);
}
