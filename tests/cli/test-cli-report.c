/* test-cli-report.c — `qualify-cli cert`, `report` and `verify` end to end (tests/cli).
 *
 * Runs the built qualify-cli on the session fixtures of tests/core/fixtures/sessions/ (FIXTURES
 * after docs/session-format.md) with a temporary XDG_DATA_HOME for the signing key, and checks
 * the exit codes the issue asks for: verify 0 valid, 1 changed, 2 not a report.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../qf-test-time.h"
#include "cli-util.h"

static char *tmpdir;

static char *
fixture (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "core", "fixtures", "sessions", name, NULL);
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static void
ensure_certificate (void)
{
  g_autofree char *out = NULL, *err = NULL;
  int status;

  status = qf_test_run_cli (&out, &err, "cert", "show", "--json", NULL);
  if (status == 0)
    return;
  g_assert_cmpint (status, ==, 2);
  g_assert_nonnull (strstr (err, "cert create"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "cert", "create", "--name", "CLI Tester",
                                    "--org", "Qualify Tests", "--json", NULL), ==, 0);
}

static void
test_cert_create_and_show (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonObject) info = NULL;
  g_autofree char *key = g_build_filename (tmpdir, "data", "qualify", "keys", "signer-key.pem", NULL);
  g_autofree char *exported = tmp_path ("installer.pem");
  g_autofree char *pem = NULL;
  struct stat st;

  ensure_certificate ();
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "cert", "show", "--json", "--export", exported, NULL), ==, 0);
  info = qf_test_parse_json (out);
  g_assert_nonnull (strstr (json_object_get_string_member (info, "subject"), "CN=CLI Tester"));
  g_assert_cmpint (g_stat (key, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  /* The exported file is the certificate only, never the key. */
  g_assert_true (g_file_get_contents (exported, &pem, NULL, NULL));
  g_assert_nonnull (strstr (pem, "BEGIN CERTIFICATE"));
  g_assert_null (strstr (pem, "PRIVATE KEY"));
  /* A second create without --force refuses. */
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "cert", "create", "--name", "Someone", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--force"));
}

static void
test_report_and_verify (void)
{
  g_autofree char *session = fixture ("fail.json");
  g_autofree char *pdf = tmp_path ("cli.pdf"), *html = tmp_path ("cli.html");
  g_autofree char *trust = tmp_path ("trust.pem");
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonObject) written = NULL, verified = NULL;

  ensure_certificate ();
  g_assert_cmpint (qf_test_run_cli (&out, &err, "report", session, "--pdf", pdf, "--html", html,
                                    "--json", NULL), ==, 0);
  written = qf_test_parse_json (out);
  g_assert_true (json_object_get_boolean_member (written, "signed"));
  g_assert_true (g_file_test (pdf, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (html, G_FILE_TEST_IS_REGULAR));

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", pdf, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "CLI Tester"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "cert", "show", "--export", trust, NULL), ==, 0);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", html, "--trust", trust, "--json", NULL), ==, 0);
  verified = qf_test_parse_json (out);
  g_assert_true (json_object_get_boolean_member (verified, "valid"));
  g_assert_true (json_object_get_boolean_member (verified, "trusted"));
  g_assert_true (json_object_get_boolean_member (verified, "covers_whole_document"));
  g_assert_true (json_object_get_boolean_member (verified, "contents_match"));
  g_assert_cmpstr (json_object_get_string_member (verified, "verdict"), ==, "fail");
}

static void
test_verify_detects_changes (void)
{
  g_autofree char *session = fixture ("pass.json");
  g_autofree char *pdf = tmp_path ("t.pdf"), *html = tmp_path ("t.html");
  g_autofree char *bad_pdf = tmp_path ("t-bad.pdf"), *bad_html = tmp_path ("t-bad.html");
  g_autofree char *data = NULL, *out = NULL;
  gsize size;
  char *p;

  ensure_certificate ();
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", session, "--pdf", pdf, "--html", html, NULL), ==, 0);

  /* One byte of the PDF, inside the first page's dictionary. */
  g_assert_true (g_file_get_contents (pdf, &data, &size, NULL));
  p = memmem (data, size, "/MediaBox", strlen ("/MediaBox"));
  g_assert_nonnull (p);
  p[2] = p[2] == 'e' ? 'E' : 'e';
  g_assert_true (g_file_set_contents (bad_pdf, data, size, NULL));
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", bad_pdf, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "INVALID"));
  g_clear_pointer (&data, g_free);
  g_clear_pointer (&out, g_free);

  /* One figure of the HTML: the measured average latency in the criteria table. */
  g_assert_true (g_file_get_contents (html, &data, &size, NULL));
  {
    GString *s = g_string_new (data);
    g_assert_cmpuint (g_string_replace (s, "<td>11.7 µs</td>", "<td>10.7 µs</td>", 1), ==, 1);
    g_assert_true (g_file_set_contents (bad_html, s->str, s->len, NULL));
    g_string_free (s, TRUE);
  }
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", bad_html, NULL), ==, 1);
  g_clear_pointer (&out, g_free);

  /* Bytes appended to a signed PDF. */
  {
    g_autofree char *orig = NULL;
    gsize orig_size;
    g_autofree char *grown = NULL;
    g_assert_true (g_file_get_contents (pdf, &orig, &orig_size, NULL));
    grown = g_malloc (orig_size + 4);
    memcpy (grown, orig, orig_size);
    memcpy (grown + orig_size, "\n%x\n", 4);
    g_assert_true (g_file_set_contents (bad_pdf, grown, orig_size + 4, NULL));
  }
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", bad_pdf, "--json", NULL), ==, 1);
  {
    g_autoptr(JsonObject) r = qf_test_parse_json (out);
    g_assert_false (json_object_get_boolean_member (r, "covers_whole_document"));
  }
}

static void
test_verify_not_a_report (void)
{
  g_autofree char *path = tmp_path ("random.bin");
  g_autofree char *err = NULL;

  g_assert_true (g_file_set_contents (path, "\x01\x02 not a report", -1, NULL));
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "verify", path, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "qualify-cli verify:"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "verify", "/nonexistent/x.pdf", NULL), ==, 2);
}

/* Runs `qualify-cli verify PATH` and returns its exit status and stderr, failing the test when
 * it has not ended within bound_s (scaled): the CLI must refuse, not read a stream forever. */
static int
verify_within (const char *path,
               gdouble     bound_s,
               char      **err)
{
  const char *argv[] = { g_getenv ("QUALIFY_CLI"), "verify", path, NULL };
  g_autoptr(GError) error = NULL;
  gint64 deadline = g_get_monotonic_time () + (gint64) (qf_test_s (bound_s) * G_USEC_PER_SEC);
  GPid pid;
  int err_fd, status = 0;
  pid_t done = 0;
  GString *text = g_string_new (NULL);
  char buf[4096];
  gssize n;

  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD |
                                           G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, &pid, NULL, NULL,
                                           &err_fd, &error));
  g_assert_no_error (error);
  while ((done = waitpid (pid, &status, WNOHANG)) == 0 && g_get_monotonic_time () < deadline)
    g_usleep (20000);
  if (done == 0)
    {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      g_error ("qualify-cli verify %s still running after %.0f s", path, qf_test_s (bound_s));
    }
  while ((n = read (err_fd, buf, sizeof buf)) > 0)
    g_string_append_len (text, buf, n);
  close (err_fd);
  g_spawn_close_pid (pid);
  *err = g_string_free (text, FALSE);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* What no report can be is refused at once, exit 2, naming the file: an endless device, a FIFO
 * nobody writes, a directory, a file larger than any report (sparse: nothing to read). */
static void
test_verify_refuses_non_files (void)
{
  g_autofree char *fifo = tmp_path ("report-fifo.html");
  g_autofree char *dir = tmp_path ("report-dir.pdf");
  g_autofree char *big = tmp_path ("huge.pdf");
  const char *paths[] = { "/dev/zero", fifo, dir, big };
  int fd;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  fd = g_open (big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 300 * 1024 * 1024), ==, 0);
  close (fd);
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *err = NULL;

      g_assert_cmpint (verify_within (paths[i], 10, &err), ==, 2);
      g_assert_nonnull (strstr (err, paths[i]));
      g_assert_nonnull (strstr (err, "not a report"));
    }
}

/* Runs a poppler tool; its stdout, or NULL when it is not installed. */
static char *
poppler (const char *const *argv)
{
  g_autofree char *path = g_find_program_in_path (argv[0]);
  char *out = NULL;

  if (path == NULL)
    return NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, NULL, NULL));
  return out;
}

/* A PDF signed by `report` shows the signer on its last (sign-off) page, and pdfsig finds that
 * signature valid over the whole document; --no-sign leaves the page without it. */
static void
test_report_visible_signature (void)
{
  g_autofree char *session = fixture ("fail.json");
  g_autofree char *pdf = tmp_path ("visible.pdf"), *plain = tmp_path ("plain.pdf");
  g_autofree char *info = NULL, *last = NULL, *text = NULL, *plain_text = NULL, *sig = NULL;
  const char *info_argv[] = { "pdfinfo", pdf, NULL };
  const char *sig_argv[] = { "pdfsig", pdf, NULL };

  ensure_certificate ();
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", session, "--pdf", pdf, NULL), ==, 0);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", session, "--pdf", plain, "--no-sign", NULL), ==, 0);
  info = poppler (info_argv);
  if (info == NULL)
    {
      g_test_skip ("poppler-utils (pdfinfo, pdftotext, pdfsig) is not installed");
      return;
    }
  last = g_strdup_printf ("%d", atoi (strstr (info, "Pages:") + strlen ("Pages:")));
  {
    const char *argv[] = { "pdftotext", "-f", last, "-l", last, pdf, "-", NULL };
    const char *plain_argv[] = { "pdftotext", "-f", last, "-l", last, plain, "-", NULL };
    text = poppler (argv);
    plain_text = poppler (plain_argv);
  }
  g_assert_nonnull (strstr (text, "Digitally signed by"));
  g_assert_nonnull (strstr (text, "CLI Tester"));
  g_assert_nonnull (strstr (text, "Signing time"));
  g_assert_null (strstr (plain_text, "Digitally signed by"));
  sig = poppler (sig_argv);
  g_assert_nonnull (strstr (sig, "Signature Validation: Signature is Valid."));
  g_assert_nonnull (strstr (sig, "Total document signed"));
}

static void
test_report_unsigned_chinese (void)
{
  g_autofree char *session = fixture ("fail.json");
  g_autofree char *html = tmp_path ("zh.html");
  g_autofree char *page = NULL, *out = NULL, *err = NULL;

  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", session, "--html", html, "--lang", "zh_CN",
                                    "--no-sign", NULL), ==, 0);
  g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
  g_assert_nonnull (strstr (page, "验收报告"));
  g_assert_nonnull (strstr (page, "不合格"));
  g_assert_null (strstr (page, "qf-signature"));
  /* Unsigned: verify says so and exits 1. */
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", html, NULL), ==, 1);
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", session, "--html", html, "--lang", "fr", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "zh_CN"));
}

/* With a certificate stored, --no-sign says why the reports are unsigned and never advises
 * creating a certificate; without one, the advice stays. */
static void
test_report_no_sign_advice (void)
{
  g_autofree char *session = fixture ("pass.json");
  g_autofree char *html = tmp_path ("nosign.html");
  g_autofree char *err = NULL;

  ensure_certificate ();
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", session, "--html", html, "--no-sign", NULL), ==, 0);
  g_assert_nonnull (strstr (err, "--no-sign"));
  g_assert_null (strstr (err, "cert create"));
}

/* Well-formed JSON of the wrong shape (issue 11): exit 2, one line naming the file and the key
 * path that is wrong, no report written. The good fixture with one member broken each time. */
static void
test_report_wrong_shape (void)
{
  g_autofree char *good = NULL;
  g_autofree char *pdf = tmp_path ("shape.pdf");
  g_autofree char *fixture_path = fixture ("fail.json");
  struct { const char *member; const char *value; const char *path; } cases[] = {
    { "steps", "5", "“steps”" },
    { "steps", "[1]", "“steps[0]”" },
    { "verdict", "[]", "“verdict”" },
    { "pc", "\"x\"", "“pc”" },
    { "id", "null", "“id”" },
  };

  g_assert_true (g_file_get_contents (fixture_path, &good, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autoptr(JsonParser) value = json_parser_new ();
      g_autofree char *name = g_strdup_printf ("shape-%u.json", i);
      g_autofree char *path = tmp_path (name);
      g_autofree char *err = NULL;
      JsonObject *root;

      g_assert_true (json_parser_load_from_data (parser, good, -1, NULL));
      g_assert_true (json_parser_load_from_data (value, cases[i].value, -1, NULL));
      root = json_node_get_object (json_parser_get_root (parser));
      json_object_set_member (root, cases[i].member, json_node_copy (json_parser_get_root (value)));
      json_generator_set_root (gen, json_parser_get_root (parser));
      g_assert_true (json_generator_to_file (gen, path, NULL));
      g_remove (pdf);
      g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", path, "--pdf", pdf, "--no-sign", NULL),
                       ==, 2);
      g_assert_nonnull (strstr (err, path));
      g_assert_nonnull (strstr (err, cases[i].path));
      g_assert_null (strchr (strchr (err, '\n') + 1, '\n'));
      g_assert_false (g_file_test (pdf, G_FILE_TEST_EXISTS));
    }
  /* {} and a session without steps are refused too. */
  {
    g_autofree char *path = tmp_path ("shape-empty.json");
    g_autofree char *err = NULL;
    g_assert_true (g_file_set_contents (path, "{\"format\": \"qualify-session\", \"id\": \"x\", "
                                        "\"profile\": {}}", -1, NULL));
    g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", path, "--pdf", pdf, "--no-sign", NULL),
                     ==, 2);
    g_assert_nonnull (strstr (err, "“steps”"));
    g_clear_pointer (&err, g_free);
    g_assert_true (g_file_set_contents (path, "{}", -1, NULL));
    g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", path, "--pdf", pdf, "--no-sign", NULL),
                     ==, 2);
    g_assert_nonnull (strstr (err, path));
  }
  /* The good fixture still reports. */
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", fixture_path, "--pdf", pdf, "--no-sign",
                                    NULL), ==, 0);
}

static void
drop_root (gpointer data)
{
  if (getuid () == 0 && (setgid (65534) != 0 || setuid (65534) != 0))
    _exit (99);
}

/* Export into a read-only folder: exit 2, one clear line, no file left. As root a 0555 folder
 * is still writable, so the CLI runs as nobody: a copy of it where nobody can reach it when the
 * build sits in a folder nobody cannot enter (a clone in /root). */
static void
test_report_read_only_folder (void)
{
  g_autofree char *original = fixture ("pass.json");
  g_autofree char *session = tmp_path ("ro-session.json");
  g_autofree char *dir = tmp_path ("ro");
  g_autofree char *pdf = g_build_filename (dir, "r.pdf", NULL);
  g_autofree char *html = g_build_filename (dir, "r.html", NULL);
  g_autofree char *cli = NULL, *why = NULL;
  const char *argv[] = { NULL, "report", session, "--pdf", pdf, "--html", html, "--no-sign", NULL };
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  int status = 0;

  /* The session where nobody can read it, whatever the source tree's permissions. */
  {
    g_autofree char *text = NULL;
    gsize len;
    g_assert_true (g_file_get_contents (original, &text, &len, NULL));
    g_assert_true (g_file_set_contents (session, text, len, NULL));
    g_assert_cmpint (g_chmod (session, 0644), ==, 0);
  }
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (tmpdir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (dir, 0555), ==, 0);
  cli = getuid () == 0 ? qf_test_cli_for_others (tmpdir, &why) : g_strdup (g_getenv ("QUALIFY_CLI"));
  if (cli == NULL)
    {
      g_test_skip (why);
      return;
    }
  argv[0] = cli;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, drop_root, NULL,
                               NULL, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  g_assert_nonnull (strstr (err, "Cannot write the report"));
  g_assert_nonnull (strstr (err, dir));
  listing = g_dir_open (dir, 0, NULL);
  g_assert_null (g_dir_read_name (listing));
  g_chmod (dir, 0755);
}

/* The demo session a real run wrote (its average latency 73.99 µs, FAIL against ≤ 32 µs) with the
 * rt step's average stored as PASS: in the step's own verdicts, and in the criteria table too
 * when in_table. Written to name in the temporary folder. */
static char *
demo_with_pass (const char *name,
                gboolean    in_table)
{
  g_autofree char *demo = g_build_filename (g_getenv ("QUALIFY_DATADIR"), "demo", "demo-fail.session.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  char *path = tmp_path (name);
  JsonObject *session, *step;
  JsonObject *verdicts[2];

  g_assert_true (json_parser_load_from_file (parser, demo, NULL));
  session = json_node_get_object (json_parser_get_root (parser));
  step = json_array_get_object_element (json_object_get_array_member (session, "steps"), 0);
  verdicts[0] = json_array_get_object_element (json_object_get_array_member (step, "verdicts"), 0);
  verdicts[1] = json_array_get_object_element (json_object_get_array_member (json_object_get_object_member (session, "verdict"),
                                                                             "criteria"), 0);
  for (guint i = 0; i < (in_table ? 2u : 1u); i++)
    {
      g_assert_cmpstr (json_object_get_string_member (verdicts[i], "metric"), ==, "avg_us");
      g_assert_cmpstr (json_object_get_string_member (verdicts[i], "verdict"), ==, "fail");
      json_object_set_string_member (verdicts[i], "verdict", "pass");
    }
  text = json_to_string (json_parser_get_root (parser), TRUE);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* `report` judges every criterion again: a session whose stored verdicts are not what its figures
 * give is refused (exit 2, naming the test and the metric, no file written); the untouched
 * session reports. */
static void
test_report_refuses_edited_verdicts (void)
{
  g_autofree char *both = demo_with_pass ("edited-both.json", TRUE);
  g_autofree char *step_only = demo_with_pass ("edited-step.json", FALSE);
  g_autofree char *demo = g_build_filename (g_getenv ("QUALIFY_DATADIR"), "demo", "demo-fail.session.json", NULL);
  g_autofree char *pdf = tmp_path ("edited.pdf"), *html = tmp_path ("edited.html");
  const char *sessions[] = { both, step_only };

  for (guint i = 0; i < G_N_ELEMENTS (sessions); i++)
    {
      g_autofree char *err = NULL;

      g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", sessions[i], "--pdf", pdf, "--html", html,
                                        "--no-sign", NULL), ==, 2);
      g_assert_nonnull (strstr (err, sessions[i]));
      g_assert_nonnull (strstr (err, "test “rt”, metric “avg_us”"));
      g_assert_nonnull (strstr (err, "the stored verdict is PASS, but the figure (73.99 µs) against the limit ≤ 32 µs gives FAIL"));
      g_assert_false (g_file_test (pdf, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (html, G_FILE_TEST_EXISTS));
    }
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", demo, "--pdf", pdf, "--html", html, "--no-sign", NULL), ==, 0);
}

/* A signed HTML report whose embedded session has a figure edited (the printed table still
 * agrees with the stored verdicts, not with the figure): verify judges the embedded session and
 * says which test and metric disagree (exit 1). The untouched report verifies. Editing signed
 * bytes breaks the signature too; core's tests sign such a report validly. */
static void
test_verify_judges_embedded_session (void)
{
  g_autofree char *session = fixture ("pass.json");
  g_autofree char *html = tmp_path ("judged.html"), *bad_html = tmp_path ("judged-bad.html");
  g_autofree char *data = NULL, *out = NULL;
  GString *s;

  ensure_certificate ();
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", session, "--html", html, NULL), ==, 0);
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", html, NULL), ==, 0);
  g_clear_pointer (&out, g_free);

  g_assert_true (g_file_get_contents (html, &data, NULL, NULL));
  s = g_string_new (data);
  g_assert_cmpuint (g_string_replace (s, "\"avg_us\": 11.69,", "\"avg_us\": 74.00,", 1), ==, 1);
  g_assert_true (g_file_set_contents (bad_html, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", bad_html, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "Result: INVALID"));
  g_assert_nonnull (strstr (out, "test “rt”, metric “avg_us”: the stored figure (11.69 µs) is not the one in the test's result (74 µs)"));
}

/* A signed report names who qualified the PC, for whom and where (issue #29 item 6): a session
 * without a customer and a site is refused for signing — with --sign and with the stored
 * certificate alone — naming what is missing and the fix; an unsigned draft (--no-sign) is written. */
static void
test_report_sign_needs_names (void)
{
  g_autofree char *fixture_path = fixture ("pass.json");
  g_autofree char *session = tmp_path ("nameless.json"), *html = tmp_path ("nameless.html");
  g_autofree char *data = NULL, *err = NULL;
  GString *s;

  ensure_certificate ();
  g_assert_true (g_file_get_contents (fixture_path, &data, NULL, NULL));
  s = g_string_new (data);
  g_assert_cmpuint (g_string_replace (s, "\"customer\": \"Acme Robotics GmbH\"", "\"customer\": \"  \"", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (s, "\"site\": \"Hall 3, Line B\"", "\"site\": \"\"", 1), ==, 1);
  g_assert_true (g_file_set_contents (session, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", session, "--html", html, "--sign", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "the customer and the site"));
  g_assert_nonnull (strstr (err, "--no-sign"));
  g_assert_false (g_file_test (html, G_FILE_TEST_EXISTS));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (qf_test_run_cli (NULL, &err, "report", session, "--html", html, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "the customer and the site"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", session, "--html", html, "--no-sign", NULL), ==, 0);
  g_assert_true (g_file_test (html, G_FILE_TEST_IS_REGULAR));
}

/* One fingerprint format and one signer label (issue #29 item 9): `verify` prints the signer as
 * "CLI Tester, Qualify Tests" and the fingerprint in the groups `cert show` prints (and the
 * wizard shows), never "O=…,CN=…" or "AB:CD:…"; --json adds both and keeps the keys it had; the
 * signed HTML and the PDF name the signer the same way. */
static void
test_verify_signer_words (void)
{
  g_autofree char *session = fixture ("pass.json");
  g_autofree char *pdf = tmp_path ("words.pdf"), *html = tmp_path ("words.html");
  g_autofree char *out = NULL, *shown = NULL, *data = NULL, *line = NULL;
  g_autoptr(JsonObject) cert = NULL, verified = NULL;
  const char *fingerprint;

  ensure_certificate ();
  g_assert_cmpint (qf_test_run_cli (&out, NULL, "cert", "show", "--json", NULL), ==, 0);
  cert = qf_test_parse_json (out);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (qf_test_run_cli (&shown, NULL, "cert", "show", NULL), ==, 0);
  fingerprint = json_object_get_string_member (cert, "fingerprint");
  g_assert_nonnull (strstr (shown, fingerprint));    /* the grouped form, "345F 4E86 …" */
  g_assert_cmpint (strlen (fingerprint), ==, 16 * 4 + 15);
  g_assert_cmpint (qf_test_run_cli (NULL, NULL, "report", session, "--pdf", pdf, "--html", html, NULL), ==, 0);

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", html, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "CLI Tester, Qualify Tests\n"));
  g_assert_null (strstr (out, "CN="));
  line = g_strdup_printf ("Certificate SHA-256:   %s\n", fingerprint);
  g_assert_nonnull (strstr (out, line));
  g_clear_pointer (&out, g_free);

  g_assert_cmpint (qf_test_run_cli (&out, NULL, "verify", pdf, "--json", NULL), ==, 0);
  verified = qf_test_parse_json (out);
  g_assert_cmpstr (json_object_get_string_member (verified, "signer_label"), ==, "CLI Tester, Qualify Tests");
  g_assert_cmpstr (json_object_get_string_member (verified, "signer_fingerprint"), ==, fingerprint);
  /* the keys other tools read stay */
  g_assert_nonnull (strstr (json_object_get_string_member (verified, "signer"), "CN=CLI Tester"));
  g_assert_cmpstr (json_object_get_string_member (verified, "signer_name"), ==, "CLI Tester");
  g_assert_cmpuint (strlen (json_object_get_string_member (verified, "signer_sha256")), ==, 32 * 3 - 1);

  g_assert_true (g_file_get_contents (html, &data, NULL, NULL));
  g_assert_nonnull (strstr (data, "<b>CLI Tester, Qualify Tests</b>"));
  g_assert_nonnull (strstr (data, fingerprint));
  {
    const char *argv[] = { "pdftotext", pdf, "-", NULL };
    g_autofree char *text = poppler (argv);

    if (text != NULL)
      g_assert_nonnull (strstr (text, "CLI Tester, Qualify Tests"));
  }
}


/* Issue #29 item 3: a wired profile's network tests run against the built-in peer measured this
 * PC's loopback, not the link. Their criteria are "not-over-link" (never a pass), the overall
 * verdict is not PASS, the CLI and both reports say "not measured over the link", and the
 * signed reports verify VALID with their printed tables matching the data. */
static void
test_run_builtin_peer_not_over_link (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "builtin-run", NULL);
  g_autofree char *session_path = g_build_filename (dir, "session.json", NULL);
  g_autofree char *pdf = g_build_filename (dir, "report.pdf", NULL);
  g_autofree char *html = g_build_filename (dir, "report.html", NULL);
  g_autofree char *out = NULL, *err = NULL, *text = NULL, *verified_out = NULL;
  g_autoptr(JsonObject) summary = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *session, *counts;
  JsonArray *criteria;
  guint network = 0;

  ensure_certificate ();
  qf_test_run_cli (&out, &err, "run", "--profile", "arcs-wired", "--quick", "--peer", "builtin",
                   "--only", "ping,latency", "--operator", "Test", "--customer", "Acme", "--site", "Hall 3",
                   "--out", dir, "--json", NULL);
  g_test_message ("stderr:\n%s", err);
  summary = qf_test_parse_json (out);
  g_assert_cmpstr (json_object_get_string_member (summary, "overall"), !=, "pass");
  criteria = json_object_get_array_member (summary, "criteria");
  for (guint i = 0; i < json_array_get_length (criteria); i++)
    {
      JsonObject *v = json_array_get_object_element (criteria, i);
      const char *key = json_object_get_string_member (v, "key");

      if (!g_str_equal (key, "ping") && !g_str_equal (key, "latency"))
        continue;
      if (json_node_is_null (json_object_get_member (v, "measured")))
        continue;  /* a figure this run could not take (e.g. no ICMP here) */
      g_assert_cmpstr (json_object_get_string_member (v, "verdict"), ==, "not-over-link");
      network++;
    }
  g_assert_cmpuint (network, >, 0);
  g_assert_nonnull (strstr (err, "NOT OVER THE LINK"));

  /* the session on disk counts them */
  g_assert_true (json_parser_load_from_file (parser, session_path, NULL));
  session = json_node_get_object (json_parser_get_root (parser));
  counts = json_object_get_object_member (json_object_get_object_member (session, "verdict"), "counts");
  g_assert_cmpint (json_object_get_int_member (counts, "not-over-link"), ==, network);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (session, "verdict"), "overall"), !=, "pass");

  /* both reports print it and verify VALID, their tables matching the data */
  g_assert_true (g_file_get_contents (html, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "NOT OVER THE LINK"));
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(JsonObject) verified = NULL;

      g_clear_pointer (&verified_out, g_free);
      g_assert_cmpint (qf_test_run_cli (&verified_out, NULL, "verify", i == 0 ? pdf : html, "--json", NULL), ==, 0);
      verified = qf_test_parse_json (verified_out);
      g_assert_true (json_object_get_boolean_member (verified, "valid"));
      g_assert_true (json_object_get_boolean_member (verified, "contents_match"));
      g_assert_cmpstr (json_object_get_string_member (verified, "verdict"), !=, "pass");
    }
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  int ret;

  tmpdir = g_dir_make_tmp ("qf-cli-report-XXXXXX", &error);
  g_assert_no_error (error);
  data = g_build_filename (tmpdir, "data", NULL);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/cert/create-and-show", test_cert_create_and_show);
  g_test_add_func ("/cli/report/report-and-verify", test_report_and_verify);
  g_test_add_func ("/cli/report/verify-detects-changes", test_verify_detects_changes);
  g_test_add_func ("/cli/report/verify-not-a-report", test_verify_not_a_report);
  g_test_add_func ("/cli/report/verify-refuses-non-files", test_verify_refuses_non_files);
  g_test_add_func ("/cli/report/visible-signature", test_report_visible_signature);
  g_test_add_func ("/cli/report/unsigned-chinese", test_report_unsigned_chinese);
  g_test_add_func ("/cli/report/no-sign-advice", test_report_no_sign_advice);
  g_test_add_func ("/cli/report/read-only-folder", test_report_read_only_folder);
  g_test_add_func ("/cli/report/wrong-shape", test_report_wrong_shape);
  g_test_add_func ("/cli/report/refuses-edited-verdicts", test_report_refuses_edited_verdicts);
  g_test_add_func ("/cli/report/verify-judges-embedded-session", test_verify_judges_embedded_session);
  g_test_add_func ("/cli/report/sign-needs-names", test_report_sign_needs_names);
  g_test_add_func ("/cli/report/verify-signer-words", test_verify_signer_words);
  g_test_add_func ("/cli/report/builtin-peer-not-over-link", test_run_builtin_peer_not_over_link);

  ret = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      g_printerr ("could not remove %s\n", tmpdir);
  }
  g_free (tmpdir);
  return ret;
}
