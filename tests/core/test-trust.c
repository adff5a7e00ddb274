/* test-trust.c — the store of signers a reader chose to trust, and the outcome a verification
 * reports (tests/core). Everything lives in a temporary XDG_DATA_HOME.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-cert.h"
#include "qf-report.h"
#include "qf-trust.h"
#include "qf-verify.h"

static char *tmpdir;

static QfSigner *
new_signer (const char *name)
{
  g_autoptr(GError) error = NULL;
  QfSigner *signer = qf_signer_create_self_signed (name, "Acme Integrators", &error);

  g_assert_no_error (error);
  return signer;
}

/* The fixture session as a report, signed when signer is not NULL. */
static char *
write_report (const char *name,
              QfSigner   *signer)
{
  g_autofree char *session = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "sessions", "pass.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_path (session, &error);
  char *out = g_build_filename (tmpdir, name, NULL);

  g_assert_no_error (error);
  g_assert_true (qf_report_write_html (report, out, signer, &error));
  g_assert_no_error (error);
  return out;
}

static QfVerifyResult *
verify (const char        *path,
        const char *const *trust)
{
  g_autoptr(GError) error = NULL;
  QfVerifyResult *r = qf_verify_file (path, trust, &error);

  g_assert_no_error (error);
  g_assert_nonnull (r);
  return r;
}

static guint
mode_of (const char *path)
{
  struct stat st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 0777;
}

static void
test_store (void)
{
  g_autoptr(QfSigner) signer = new_signer ("Li Wei");
  g_autofree char *html = write_report ("store.html", signer);
  g_autoptr(QfVerifyResult) r = verify (html, NULL);
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = qf_trust_get_dir ();

  g_assert_nonnull (r->signer_certificate);
  added = qf_trust_add (r->signer_certificate, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (added->name, ==, "Li Wei");
  g_assert_cmpstr (added->organization, ==, "Acme Integrators");
  g_assert_cmpstr (added->fingerprint, ==, r->signer_fingerprint);
  g_assert_cmpuint (mode_of (dir), ==, 0700);
  g_assert_cmpuint (mode_of (added->path), ==, 0600);

  list = qf_trust_list ();
  g_assert_cmpuint (list->len, ==, 1);
  g_assert_cmpstr (((QfTrustedSigner *) list->pdata[0])->fingerprint, ==, r->signer_fingerprint);

  /* Not a certificate; an unknown fingerprint; then the real one, in lower case. */
  {
    g_autoptr(GBytes) junk = g_bytes_new_static ("hello", 5);
    g_assert_null (qf_trust_add (junk, &error));
    g_assert_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_CERT);
    g_clear_error (&error);
  }
  g_assert_false (qf_trust_remove ("00:11", &error));
  g_assert_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_NOT_FOUND);
  g_clear_error (&error);
  {
    g_autofree char *lower = g_ascii_strdown (r->signer_fingerprint, -1);
    g_assert_true (qf_trust_remove (lower, &error));
    g_assert_no_error (error);
  }
  g_clear_pointer (&list, g_ptr_array_unref);
  list = qf_trust_list ();
  g_assert_cmpuint (list->len, ==, 0);
}

/* A remembered certificate trusts its own reports only: a file holding another signer's
 * certificate under this signer's fingerprint trusts nothing. */
static void
test_store_exact_certificate (void)
{
  g_autoptr(QfSigner) mine = new_signer ("Li Wei");
  g_autoptr(QfSigner) other = new_signer ("Someone Else");
  g_autofree char *html = write_report ("mine.html", mine);
  g_autofree char *theirs = write_report ("theirs.html", other);
  g_autoptr(QfVerifyResult) r = verify (html, NULL);
  g_autoptr(QfVerifyResult) o = verify (theirs, NULL);
  g_autoptr(QfVerifyResult) again = NULL;
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autofree char *wrong = NULL;
  g_autoptr(GError) error = NULL;

  added = qf_trust_add (o->signer_certificate, &error);
  g_assert_no_error (error);
  {
    g_autofree char *hex = g_strdup (r->signer_fingerprint);
    g_autofree char *dir = qf_trust_get_dir ();
    g_autoptr(GString) name = g_string_new (NULL);

    for (const char *p = hex; *p; p++)
      if (*p != ':')
        g_string_append_c (name, *p);
    g_string_append (name, ".pem");
    wrong = g_build_filename (dir, name->str, NULL);
  }
  g_assert_cmpint (g_rename (added->path, wrong), ==, 0);
  again = verify (html, NULL);
  g_assert_false (again->trusted);
  g_assert_cmpint (qf_verify_result_outcome (again), ==, QF_VERIFY_OUTCOME_UNTRUSTED);
  g_assert_cmpint (g_unlink (wrong), ==, 0);
}

static char *
changed_copy (const char *path)
{
  g_autofree char *text = NULL;
  gsize size = 0;
  char *copy = g_strconcat (path, ".changed.html", NULL);
  char *at;

  g_assert_true (g_file_get_contents (path, &text, &size, NULL));
  at = strstr (text, "id=\"qf-criteria\"");
  g_assert_nonnull (at);
  at[40] ^= 0x01;
  g_assert_true (g_file_set_contents (copy, text, size, NULL));
  return copy;
}

static void
test_outcomes (void)
{
  g_autoptr(QfSigner) signer = new_signer ("Li Wei");
  g_autofree char *html = write_report ("outcome.html", signer);
  g_autofree char *unsigned_html = write_report ("unsigned.html", NULL);
  g_autofree char *changed = changed_copy (html);
  g_autoptr(QfVerifyResult) first = verify (html, NULL);
  g_autoptr(QfVerifyResult) trusted = NULL, tampered = NULL, bare = NULL;
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (qf_verify_result_outcome (first), ==, QF_VERIFY_OUTCOME_UNTRUSTED);
  g_assert_cmpstr (first->signer_name, ==, "Li Wei");
  g_assert_cmpstr (first->pc, ==, "cell-07-ipc (Advantech IPC-610)");
  g_assert_cmpstr (first->profile, ==, "ARCS robot controller, wired (arcs-wired)");
  g_assert_cmpstr (first->overall_verdict, ==, "pass");

  added = qf_trust_add (first->signer_certificate, &error);
  g_assert_no_error (error);
  trusted = verify (html, NULL);
  g_assert_true (trusted->trusted && trusted->trusted_by_reader);
  g_assert_cmpint (qf_verify_result_outcome (trusted), ==, QF_VERIFY_OUTCOME_TRUSTED);
  g_assert_cmpstr (qf_verify_outcome_id (QF_VERIFY_OUTCOME_TRUSTED), ==, "valid-trusted");

  tampered = verify (changed, NULL);
  g_assert_cmpint (qf_verify_result_outcome (tampered), ==, QF_VERIFY_OUTCOME_CHANGED);
  bare = verify (unsigned_html, NULL);
  g_assert_cmpint (qf_verify_result_outcome (bare), ==, QF_VERIFY_OUTCOME_NOT_SIGNED);
  g_assert_cmpint (qf_verify_result_outcome (NULL), ==, QF_VERIFY_OUTCOME_NOT_REPORT);
  g_assert_true (qf_trust_remove (added->fingerprint, &error));
}

/* With --trust naming another root, an intact report is not ok (exit 1) but reads "not
 * trusted", not "changed"; once the signer is remembered it is trusted even then. */
static void
test_outcome_with_trust_option (void)
{
  g_autoptr(QfSigner) signer = new_signer ("Li Wei");
  g_autoptr(QfSigner) other = new_signer ("Someone Else");
  g_autofree char *html = write_report ("option.html", signer);
  g_autofree char *anchor = g_build_filename (tmpdir, "other-root.pem", NULL);
  g_autofree char *pem = NULL;
  g_autoptr(QfVerifyResult) r = NULL, again = NULL;
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autoptr(GError) error = NULL;
  const char *trust[] = { anchor, NULL };

  pem = qf_signer_get_anchor_pem (other, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (anchor, pem, -1, NULL));
  r = verify (html, trust);
  g_assert_false (qf_verify_result_ok (r));
  g_assert_cmpint (qf_verify_result_outcome (r), ==, QF_VERIFY_OUTCOME_UNTRUSTED);

  added = qf_trust_add (r->signer_certificate, &error);
  g_assert_no_error (error);
  again = verify (html, trust);
  g_assert_true (qf_verify_result_ok (again));
  g_assert_cmpint (qf_verify_result_outcome (again), ==, QF_VERIFY_OUTCOME_TRUSTED);
  g_assert_true (qf_trust_remove (added->fingerprint, &error));
}

/* Makes the store unsafe in one way (how), checks it is refused with why, then undoes it. */
static void
check_unsafe_store (const char *html,
                    const char *how)
{
  g_autofree char *dir = qf_trust_get_dir ();
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *aside = g_strconcat (dir, ".aside", NULL);
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(QfVerifyResult) r = NULL;
  g_autoptr(QfTrustedSigner) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char *file, *expect;
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);

  while ((file = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (files, g_build_filename (dir, file, NULL));
  g_assert_cmpuint (files->len, ==, 1);
  file = g_ptr_array_index (files, 0);
  if (g_str_equal (how, "folder-link"))
    {
      g_assert_cmpint (g_rename (dir, aside), ==, 0);
      g_assert_cmpint (symlink (aside, dir), ==, 0);
      expect = "is a symbolic link";
    }
  else if (g_str_equal (how, "file-link"))
    {
      g_autofree char *target = g_strconcat (dir, ".pem", NULL);
      g_assert_cmpint (g_rename (file, target), ==, 0);
      g_assert_cmpint (symlink (target, file), ==, 0);
      expect = "is a symbolic link";
    }
  else
    {
      const char *path = g_str_has_prefix (how, "folder") ? dir : g_str_has_prefix (how, "parent") ? parent : file;
      gboolean group = g_str_has_suffix (how, "group");
      guint mode = group ? 0720 : 0702;

      g_assert_cmpint (g_chmod (path, path == file ? (mode & 0666) : mode), ==, 0);
      /* writable by the group nogroup, which is not the user's own private group */
      if (group)
        g_assert_cmpint (chown (path, (uid_t) -1, 65534), ==, 0);
      expect = "can be written by other users";
    }

  g_assert_false (qf_trust_check_store (&error));
  g_assert_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_UNSAFE);
  g_test_message ("%s: %s", how, error->message);
  g_assert_nonnull (strstr (error->message, expect));
  g_clear_error (&error);
  r = verify (html, NULL);
  g_assert_false (r->trusted);
  g_assert_cmpint (qf_verify_result_outcome (r), ==, QF_VERIFY_OUTCOME_UNTRUSTED);
  g_assert_nonnull (strstr (r->trust_detail, expect));
  list = qf_trust_list ();
  g_assert_cmpuint (list->len, ==, 0);
  again = qf_trust_add (r->signer_certificate, &error);
  g_assert_null (again);
  g_assert_error (error, QF_TRUST_ERROR, QF_TRUST_ERROR_UNSAFE);

  /* undone: trusted again */
  if (g_str_equal (how, "folder-link"))
    {
      g_assert_cmpint (g_unlink (dir), ==, 0);
      g_assert_cmpint (g_rename (aside, dir), ==, 0);
    }
  else if (g_str_equal (how, "file-link"))
    {
      g_autofree char *target = g_strconcat (dir, ".pem", NULL);
      g_assert_cmpint (g_unlink (file), ==, 0);
      g_assert_cmpint (g_rename (target, file), ==, 0);
    }
  g_assert_cmpint (g_chmod (parent, 0700), ==, 0);
  g_assert_cmpint (g_chmod (dir, 0700), ==, 0);
  g_assert_cmpint (g_chmod (file, 0600), ==, 0);
  g_assert_cmpint (chown (parent, (uid_t) -1, getegid ()), ==, 0);
  g_assert_cmpint (chown (dir, (uid_t) -1, getegid ()), ==, 0);
  g_assert_cmpint (chown (file, (uid_t) -1, getegid ()), ==, 0);
  g_assert_true (qf_trust_check_store (NULL));
  g_clear_pointer (&r, qf_verify_result_free);
  r = verify (html, NULL);
  g_assert_true (r->trusted_by_reader);
}

/* As ssh's StrictModes: a store someone else could change trusts no one, and says why. */
static void
test_store_strict_modes (void)
{
  static const char *const ways[] = {
    "folder-link", "folder-group", "folder-other", "file-link", "file-group", "file-other",
    "parent-group", "parent-other",
  };
  g_autoptr(QfSigner) signer = new_signer ("Li Wei");
  g_autofree char *html = write_report ("strict.html", signer);
  g_autoptr(QfVerifyResult) r = verify (html, NULL);
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autoptr(GError) error = NULL;

  added = qf_trust_add (r->signer_certificate, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (ways); i++)
    {
      /* a group other than one's own needs root to give away */
      if (geteuid () != 0 && g_str_has_suffix (ways[i], "group"))
        continue;
      check_unsafe_store (html, ways[i]);
    }
  g_assert_true (qf_trust_remove (added->fingerprint, &error));
}

/* A certificate that repeats the holder and company of a signer the reader trusts is named as
 * what it is, in the result, its warning and its JSON; another name is not. */
static void
test_same_name_as_trusted (void)
{
  g_autoptr(QfSigner) real = new_signer ("Li Wei");
  g_autoptr(QfSigner) impostor = new_signer ("li wei");
  g_autoptr(QfSigner) stranger = new_signer ("Someone Else");
  g_autofree char *real_html = write_report ("real.html", real);
  g_autofree char *fake_html = write_report ("fake.html", impostor);
  g_autofree char *other_html = write_report ("other.html", stranger);
  g_autoptr(QfVerifyResult) first = verify (real_html, NULL);
  g_autoptr(QfVerifyResult) fake = NULL, other = NULL, again = NULL;
  g_autoptr(QfTrustedSigner) added = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) json = NULL;
  g_autofree char *warning = NULL;

  g_assert_null (first->same_name_as_trusted);
  added = qf_trust_add (first->signer_certificate, &error);
  g_assert_no_error (error);

  fake = verify (fake_html, NULL);
  g_assert_false (fake->trusted);
  g_assert_cmpstr (fake->same_name_as_trusted, ==, added->fingerprint);
  warning = qf_verify_result_warning (fake);
  g_assert_nonnull (strstr (warning, "A different certificate with the name of a signer you trust"));
  g_assert_nonnull (strstr (warning, fake->signer_fingerprint));
  json = qf_verify_result_to_json (fake);
  g_assert_cmpstr (json_object_get_string_member (json, "same_name_as_trusted_signer"), ==,
                   added->fingerprint);

  other = verify (other_html, NULL);
  g_assert_null (other->same_name_as_trusted);
  g_assert_null (qf_verify_result_warning (other));
  again = verify (real_html, NULL);
  g_assert_true (again->trusted);
  g_assert_null (again->same_name_as_trusted);
  g_assert_true (qf_trust_remove (added->fingerprint, &error));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  int ret;

  tmpdir = g_dir_make_tmp ("qf-trust-test-XXXXXX", &error);
  g_assert_no_error (error);
  data = g_build_filename (tmpdir, "data", NULL);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/trust/store", test_store);
  g_test_add_func ("/core/trust/exact-certificate", test_store_exact_certificate);
  g_test_add_func ("/core/trust/strict-modes", test_store_strict_modes);
  g_test_add_func ("/core/verify/same-name-as-trusted", test_same_name_as_trusted);
  g_test_add_func ("/core/verify/outcomes", test_outcomes);
  g_test_add_func ("/core/verify/outcome-with-trust-option", test_outcome_with_trust_option);

  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_printerr ("could not remove %s\n", tmpdir);
  }
  g_free (tmpdir);
  return ret;
}
