/* qf-trust.c — the customer's remembered signers: one PEM certificate per file under
 * $XDG_DATA_HOME/qualify/trusted/, named after its SHA-256 fingerprint (src/core).
 *
 * A file counts only when the certificate it holds is exactly the one asked about (the DER bytes
 * are compared), so a file renamed to another fingerprint trusts nothing. As ssh's StrictModes
 * does for authorized_keys, the store counts only while no one else can change it: the folder and
 * its files are the user's own, not symbolic links, and neither group- nor world-writable (a
 * private group of the user's own excepted), and the qualify/ folder above is writable by no one
 * else either (qf_trust_check_store).
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <gnutls/gnutls.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-text.h"
#include "qf-trust.h"

G_DEFINE_QUARK (qf-trust-error-quark, qf_trust_error)

G_DEFINE_AUTO_CLEANUP_FREE_FUNC (gnutls_x509_crt_t, gnutls_x509_crt_deinit, NULL)

void
qf_trusted_signer_free (QfTrustedSigner *signer)
{
  if (signer == NULL)
    return;
  g_free (signer->fingerprint);
  g_free (signer->subject);
  g_free (signer->name);
  g_free (signer->organization);
  g_free (signer->not_after);
  g_free (signer->path);
  g_free (signer);
}

char *
qf_trust_fingerprint (gnutls_x509_crt_t crt)
{
  guint8 fp[32];
  size_t fp_len = sizeof fp;
  GString *hex = g_string_new (NULL);

  if (gnutls_x509_crt_get_fingerprint (crt, GNUTLS_DIG_SHA256, fp, &fp_len) >= 0)
    for (size_t i = 0; i < fp_len; i++)
      g_string_append_printf (hex, i ? ":%02X" : "%02X", fp[i]);
  return g_string_free (hex, FALSE);
}

/* The first value of the subject attribute oid, or NULL. */
static char *
subject_part (gnutls_x509_crt_t crt,
              const char       *oid)
{
  char buf[512];
  size_t size = sizeof buf;

  if (gnutls_x509_crt_get_dn_by_oid (crt, oid, 0, 0, buf, &size) < 0)
    return NULL;
  return qf_text_clean (buf, size);
}

QfTrustedSigner *
qf_trusted_signer_new_from_crt (gnutls_x509_crt_t crt)
{
  QfTrustedSigner *s = g_new0 (QfTrustedSigner, 1);
  gnutls_datum_t dn = { NULL, 0 };
  time_t expires = gnutls_x509_crt_get_expiration_time (crt);
  g_autoptr(GDateTime) dt = expires > 0 ? g_date_time_new_from_unix_utc (expires) : NULL;

  s->fingerprint = qf_trust_fingerprint (crt);
  /* Names from a certificate anyone can make: cleaned before anything prints them. */
  if (gnutls_x509_crt_get_dn3 (crt, &dn, 0) >= 0)
    {
      s->subject = qf_text_clean ((const char *) dn.data, dn.size);
      gnutls_free (dn.data);
    }
  s->name = subject_part (crt, GNUTLS_OID_X520_COMMON_NAME);
  s->organization = subject_part (crt, GNUTLS_OID_X520_ORGANIZATION_NAME);
  s->not_after = dt ? g_date_time_format_iso8601 (dt) : NULL;
  return s;
}

char *
qf_trust_get_dir (void)
{
  return g_build_filename (g_get_user_data_dir (), "qualify", "trusted", NULL);
}

/* ---- StrictModes ----------------------------------------------------------------------------- */

/* The user's own private group (a group of that name, the user's primary one, with no other
 * member), where group-writable means writable by the user alone: Debian's ssh accepts that too,
 * and a umask of 002 with such groups is the default on Debian and Ubuntu. */
static gboolean
private_group (gid_t gid)
{
  /* the reentrant forms: the store may be checked from a worker thread (a verify) */
  char pw_buf[4096], gr_buf[16384];
  struct passwd pw_entry, *pw = NULL;
  struct group gr_entry, *gr = NULL;

  if (getpwuid_r (geteuid (), &pw_entry, pw_buf, sizeof pw_buf, &pw) != 0 ||
      getgrgid_r (gid, &gr_entry, gr_buf, sizeof gr_buf, &gr) != 0)
    return FALSE;
  if (pw == NULL || gr == NULL || pw->pw_gid != gid || g_strcmp0 (gr->gr_name, pw->pw_name) != 0)
    return FALSE;
  for (char **member = gr->gr_mem; *member != NULL; member++)
    if (g_strcmp0 (*member, pw->pw_name) != 0)
      return FALSE;
  return TRUE;
}

/* Why an entry of the store is refused. */
typedef enum { ENTRY_OK, ENTRY_UNREADABLE, ENTRY_LINK, ENTRY_KIND, ENTRY_OWNER, ENTRY_WRITABLE } Entry;

/* path (lstat) as the store may hold it: kind S_IFDIR or S_IFREG, owned by this user (or by root,
 * for the folder above the store), writable by no one else. */
static Entry
check_entry (const char *path,
             mode_t      kind,
             gboolean    root_may_own)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    return errno == ENOENT ? ENTRY_OK : ENTRY_UNREADABLE;
  if (S_ISLNK (st.st_mode))
    return ENTRY_LINK;
  if ((st.st_mode & S_IFMT) != kind)
    return ENTRY_KIND;
  if (st.st_uid != geteuid () && !(root_may_own && st.st_uid == 0))
    return ENTRY_OWNER;
  if ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && !private_group (st.st_gid)))
    return ENTRY_WRITABLE;
  return ENTRY_OK;
}

/* The refusal of path, as cause and fix (the path quoted in the command to paste). */
static gboolean
refuse (const char  *path,
        Entry        why,
        gboolean     folder,
        GError     **error)
{
  g_autofree char *shown = qf_text_clean (path, -1);
  g_autofree char *word = qf_text_shell_word (path);

  switch (why)
    {
    case ENTRY_UNREADABLE:
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_UNSAFE,
                   _("%s cannot be read, so the signers you trust cannot be checked. Check its "
                     "permissions."), shown);
      break;
    case ENTRY_LINK:
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_UNSAFE,
                   _("%s is a symbolic link: whoever controls where it points would choose whom "
                     "you trust, so no signer there counts. Fix: remove the link (rm %s) and trust "
                     "the signers again."), shown, word);
      break;
    case ENTRY_KIND:
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_UNSAFE,
                   _("%s is neither a folder nor a regular file where the store expects one, so no "
                     "signer there counts. Fix: remove it (rm -r %s) and trust the signers again."),
                   shown, word);
      break;
    case ENTRY_OWNER:
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_UNSAFE,
                   _("%s belongs to another user, who could change whom you trust, so no signer "
                     "there counts. Fix: remove it (rm -r %s) and trust the signers again."),
                   shown, word);
      break;
    case ENTRY_WRITABLE:
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_UNSAFE,
                   _("%s can be written by other users, who could add a signer you never chose, so "
                     "no signer there counts. Fix: chmod %s %s, then check which signers the store "
                     "holds (qualify-cli trust list)."), shown, folder ? "700" : "600", word);
      break;
    case ENTRY_OK:
    default:
      return TRUE;
    }
  return FALSE;
}

gboolean
qf_trust_check_store (GError **error)
{
  g_autofree char *dir_path = qf_trust_get_dir ();
  g_autofree char *parent = g_path_get_dirname (dir_path);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!refuse (parent, check_entry (parent, S_IFDIR, TRUE), TRUE, error) ||
      !refuse (dir_path, check_entry (dir_path, S_IFDIR, FALSE), TRUE, error))
    return FALSE;
  dir = g_dir_open (dir_path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);

      if (g_str_has_suffix (name, ".pem") && !refuse (path, check_entry (path, S_IFREG, FALSE), FALSE, error))
        return FALSE;
    }
  return TRUE;
}

/* "AB:CD:…" or "abcd…" → the file that remembers it; NULL when it is no SHA-256 fingerprint. */
static char *
file_for_fingerprint (const char *fingerprint)
{
  g_autoptr(GString) hex = g_string_new (NULL);
  g_autofree char *dir = qf_trust_get_dir ();

  for (const char *p = fingerprint; *p != '\0'; p++)
    {
      if (*p == ':' || *p == ' ')
        continue;
      if (!g_ascii_isxdigit (*p))
        return NULL;
      g_string_append_c (hex, g_ascii_toupper (*p));
    }
  if (hex->len != 64)
    return NULL;
  g_string_append (hex, ".pem");
  return g_build_filename (dir, hex->str, NULL);
}

/* A certificate from DER or PEM bytes; NULL when they hold none. */
static gnutls_x509_crt_t
crt_from_bytes (const void *data,
                gsize       size)
{
  gnutls_datum_t datum = { (unsigned char *) data, size };
  gnutls_x509_crt_t crt = NULL;

  if (gnutls_x509_crt_init (&crt) < 0)
    return NULL;
  if (gnutls_x509_crt_import (crt, &datum, GNUTLS_X509_FMT_DER) < 0 &&
      gnutls_x509_crt_import (crt, &datum, GNUTLS_X509_FMT_PEM) < 0)
    {
      gnutls_x509_crt_deinit (crt);
      return NULL;
    }
  return crt;
}

static gnutls_x509_crt_t
crt_from_file (const char *path)
{
  g_autofree char *text = NULL;
  gsize size = 0;

  if (!g_file_get_contents (path, &text, &size, NULL))
    return NULL;
  return crt_from_bytes (text, size);
}

static gboolean
make_dir (const char  *dir,
          GError     **error)
{
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_IO, _("Cannot create %s: %s"), dir,
                   g_strerror (saved));
      return FALSE;
    }
  g_chmod (dir, 0700);
  return TRUE;
}

QfTrustedSigner *
qf_trust_add (GBytes  *certificate,
              GError **error)
{
  g_auto(gnutls_x509_crt_t) crt = NULL;
  g_autofree char *dir = qf_trust_get_dir ();
  g_autofree char *fingerprint = NULL, *path = NULL;
  gnutls_datum_t pem = { NULL, 0 };
  QfTrustedSigner *signer;
  gboolean written;

  g_return_val_if_fail (certificate != NULL, NULL);
  if (!qf_trust_check_store (error))
    return NULL;
  crt = crt_from_bytes (g_bytes_get_data (certificate, NULL), g_bytes_get_size (certificate));
  if (crt == NULL)
    {
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_CERT,
                   _("This is not a certificate (PEM or DER expected)."));
      return NULL;
    }
  fingerprint = qf_trust_fingerprint (crt);
  path = file_for_fingerprint (fingerprint);
  if (path == NULL || !make_dir (dir, error))
    {
      if (path == NULL)
        g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_CERT,
                     _("The certificate's fingerprint cannot be computed."));
      return NULL;
    }
  if (gnutls_x509_crt_export2 (crt, GNUTLS_X509_FMT_PEM, &pem) < 0)
    {
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_CERT, _("The certificate cannot be written as PEM."));
      return NULL;
    }
  written = qf_file_write_atomic (path, pem.data, pem.size, 0600, error);
  gnutls_free (pem.data);
  if (!written)
    return NULL;
  signer = qf_trusted_signer_new_from_crt (crt);
  signer->path = g_steal_pointer (&path);
  return signer;
}

static int
compare_by_name (gconstpointer a,
                 gconstpointer b)
{
  const QfTrustedSigner *x = *(QfTrustedSigner **) a, *y = *(QfTrustedSigner **) b;
  int c = g_strcmp0 (x->name, y->name);

  return c != 0 ? c : g_strcmp0 (x->fingerprint, y->fingerprint);
}

GPtrArray *
qf_trust_list (void)
{
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_trusted_signer_free);
  g_autofree char *dir_path = qf_trust_get_dir ();
  g_autoptr(GDir) dir = qf_trust_check_store (NULL) ? g_dir_open (dir_path, 0, NULL) : NULL;
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_auto(gnutls_x509_crt_t) crt = NULL;
      QfTrustedSigner *signer;

      if (!g_str_has_suffix (name, ".pem") || (crt = crt_from_file (path)) == NULL)
        continue;
      signer = qf_trusted_signer_new_from_crt (crt);
      signer->path = g_steal_pointer (&path);
      g_ptr_array_add (list, signer);
    }
  g_ptr_array_sort (list, compare_by_name);
  return list;
}

gboolean
qf_trust_remove (const char  *fingerprint,
                 GError     **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (fingerprint != NULL, FALSE);
  path = file_for_fingerprint (fingerprint);
  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_NOT_FOUND,
                   _("No trusted signer has the fingerprint %s."), fingerprint);
      return FALSE;
    }
  if (g_unlink (path) != 0)
    {
      int saved = errno;
      g_set_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_IO, _("Cannot remove %s: %s"), path,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_trust_contains (gnutls_x509_crt_t crt)
{
  g_autofree char *fingerprint = qf_trust_fingerprint (crt);
  g_autofree char *path = file_for_fingerprint (fingerprint);
  g_auto(gnutls_x509_crt_t) stored = NULL;

  if (path == NULL || !qf_trust_check_store (NULL) || (stored = crt_from_file (path)) == NULL)
    return FALSE;
  return gnutls_x509_crt_equals (crt, stored) != 0;
}
