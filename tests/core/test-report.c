/* test-report.c — plots, report writers, signing, certificates and verification (tests/core).
 *
 * Sessions come from tests/core/fixtures/sessions/ (FIXTURES written by make-fixtures.py after
 * docs/session-format.md, not measurements). The PDF is checked with the poppler tools a
 * customer would use (pdftotext, pdftoppm, pdffonts, pdfsig); each such case skips when the tool
 * is missing. Certificates and keys live in a temporary XDG_DATA_HOME.
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-cert.h"
#include "qf-format.h"
#include "qf-json.h"
#include "qf-pdf-sign.h"
#include "qf-plot.h"
#include "qf-report-private.h"
#include "qf-report.h"
#include "qf-test-net-check.h"
#include "qf-verdict.h"
#include "qf-verify.h"

static char *tmpdir;

static char *
fixture (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "core", "fixtures", "sessions", name, NULL);
}

/* Runs argv, returns its stdout (NULL and a skip when the tool is missing). */
static char *
run_tool (const char *const *argv,
          int                *exit_status)
{
  g_autofree char *path = g_find_program_in_path (argv[0]);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (path == NULL)
    return NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, &status, &error))
    g_error ("%s: %s", argv[0], error->message);
  if (exit_status != NULL)
    *exit_status = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
  return g_steal_pointer (&out);
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static QfSigner *
test_signer (void)
{
  g_autoptr(GError) error = NULL;
  QfSigner *signer = qf_signer_create_self_signed ("Test Installer", "Qualify Tests", &error);

  g_assert_no_error (error);
  g_assert_nonnull (signer);
  return signer;
}

static char *
write_report (const char *session,
              const char *language,
              const char *name,
              QfSigner   *signer)
{
  g_autofree char *path = fixture (session);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_path (path, &error);
  char *out = tmp_path (name);

  g_assert_no_error (error);
  g_assert_true (qf_report_set_language (report, language, &error));
  g_assert_no_error (error);
  if (g_str_has_suffix (name, ".pdf"))
    g_assert_true (qf_report_write_pdf (report, out, signer, &error));
  else
    g_assert_true (qf_report_write_html (report, out, signer, &error));
  g_assert_no_error (error);
  return out;
}

/* Plots */

static void
test_plot_format (void)
{
  struct { gdouble v; const char *s; } cases[] = {
    { 0, "0" }, { 12.34, "12.3" }, { 0.1256, "0.126" }, { 125, "125" }, { 1234, "1230" },
    { 99.95, "100" }, { 5, "5" }, { 0.5, "0.5" }, { -12.34, "-12.3" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *s = qf_plot_format_value (cases[i].v);
      g_assert_cmpstr (s, ==, cases[i].s);
    }
}

/* True when some pixel of the column x in [y0, y1) has (about) the colour of series 0. */
static gboolean
column_has_series_colour (cairo_surface_t *img,
                          int              x,
                          int              y0,
                          int              y1)
{
  gdouble r, g, b;
  int stride = cairo_image_surface_get_stride (img);
  const guint8 *data = cairo_image_surface_get_data (img);

  qf_plot_series_color (0, FALSE, &r, &g, &b);
  for (int y = y0; y < y1; y++)
    {
      const guint32 px = *(const guint32 *) (data + y * stride + x * 4);
      int pr = (px >> 16) & 0xff, pg = (px >> 8) & 0xff, pb = px & 0xff;
      if (ABS (pr - (int) (r * 255)) < 40 && ABS (pg - (int) (g * 255)) < 40 && ABS (pb - (int) (b * 255)) < 40)
        return TRUE;
    }
  return FALSE;
}

static void
test_plot_time_series_keeps_spikes (void)
{
  const gsize n = 1000000;
  g_autofree gdouble *values = g_new (gdouble, n);
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 200);
  cairo_t *cr = cairo_create (img);
  QfPlotOptions opt;
  QfPlotSeries series = { "rt", NULL, values, n, 0, 1e-4, FALSE };
  gboolean top_found = FALSE;

  /* A flat line at 10 with one sample of 100: decimation must keep the one spike visible in
   * the top part of the plot area. */
  for (gsize i = 0; i < n; i++)
    values[i] = 10;
  values[n / 2] = 100;
  qf_plot_options_init (&opt);
  qf_plot_time_series (cr, 400, 200, &opt, &series, 1, NULL, 0);
  cairo_surface_flush (img);
  for (int x = 150; x < 300 && !top_found; x++)
    top_found = column_has_series_colour (img, x, 20, 100);
  g_assert_true (top_found);
  cairo_destroy (cr);
  cairo_surface_destroy (img);
}

/* The scrolling 60 s view shows the last 60 s only: a spike before the window is not drawn, one
 * inside it is. */
static void
test_plot_time_series_window (void)
{
  const gsize n = 2000;
  g_autofree gdouble *values = g_new (gdouble, n);
  QfPlotSeries series = { "rtt", NULL, values, n, 0, 0.1, FALSE };
  QfPlotOptions opt;

  for (guint run = 0; run < 2; run++)
    {
      cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 200);
      cairo_t *cr = cairo_create (img);
      gboolean top = FALSE;

      for (gsize i = 0; i < n; i++)
        values[i] = 10;
      /* t = 10 s (outside the last 60 s of 200 s) or t = 190 s (inside) */
      values[run == 0 ? 100 : 1900] = 100;
      qf_plot_options_init (&opt);
      opt.window_s = 60;
      opt.fixed_scale = FALSE;
      qf_plot_time_series (cr, 400, 200, &opt, &series, 1, NULL, 0);
      cairo_surface_flush (img);
      /* Without the spike the flat line sits near the top of the autoscaled axis and nothing is
       * drawn in the middle band; with it, the spike crosses the band. */
      for (int x = 40; x < 395 && !top; x++)
        top = column_has_series_colour (img, x, 70, 130);
      if (run == 0)
        g_assert_false (top);
      else
        g_assert_true (top);
      cairo_destroy (cr);
      cairo_surface_destroy (img);
    }
}

/* A run whose samples sit between 10 and 60 µs with a 2335 µs limit: the value axis follows the
 * samples (they fill most of the height), a limit near them still joins the axis. */
static void
test_plot_series_scale (void)
{
  gdouble values[200], y_min, y_max;
  QfPlotSeries series = { "rt", NULL, values, G_N_ELEMENTS (values), 0, 0.01, FALSE };
  const QfPlotLimit far[] = { { "Maximum latency ≤ 2335 µs", 2335 } };
  const QfPlotLimit near[] = { { "Average latency ≤ 80 µs", 80 }, { "Maximum latency ≤ 2335 µs", 2335 } };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = 10 + (i * 7919 % 51);
  qf_plot_series_scale (NULL, &series, 1, far, G_N_ELEMENTS (far), &y_min, &y_max);
  g_assert_cmpfloat (y_min, ==, 0);
  g_assert_cmpfloat (y_max, >=, 60);
  g_assert_cmpfloat ((60 - 10) / (y_max - y_min), >, 0.6);   /* the samples use most of the height */
  qf_plot_series_scale (NULL, &series, 1, near, G_N_ELEMENTS (near), &y_min, &y_max);
  g_assert_cmpfloat (y_max, >=, 80);
  g_assert_cmpfloat (y_max, <, 200);
  /* No samples: the limits set the axis. */
  qf_plot_series_scale (NULL, &series, 0, far, G_N_ELEMENTS (far), &y_min, &y_max);
  g_assert_cmpfloat (y_max, >=, 2335);
}

/* Pixels of about the limits' colour in the rectangle [x0, x1) × [y0, y1). */
static guint
count_limit_pixels (cairo_surface_t *img,
                    int x0, int x1, int y0, int y1)
{
  int stride = cairo_image_surface_get_stride (img);
  const guint8 *data = cairo_image_surface_get_data (img);
  guint n = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        const guint32 px = *(const guint32 *) (data + y * stride + x * 4);
        int pr = (px >> 16) & 0xff, pg = (px >> 8) & 0xff, pb = px & 0xff;
        if (pr > 150 && pg < 90 && pb < 90)
          n++;
      }
  return n;
}

/* The far limit is no line across the plot but a marker at its top edge, at the right; the
 * samples reach well above the bottom quarter. */
static void
test_plot_series_edge_marker (void)
{
  gdouble values[400];
  QfPlotSeries series = { "rt", NULL, values, G_N_ELEMENTS (values), 0, 0.01, FALSE };
  const QfPlotLimit limits[] = { { "Maximum latency ≤ 2335 µs", 2335 } };
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 200);
  cairo_t *cr = cairo_create (img);
  QfPlotOptions opt;
  gboolean high = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = i % 50 == 0 ? 60 : 10 + (i * 7919 % 31);
  qf_plot_options_init (&opt);
  qf_plot_time_series (cr, 400, 200, &opt, &series, 1, limits, G_N_ELEMENTS (limits));
  cairo_surface_flush (img);
  for (int x = 60; x < 390 && !high; x++)
    high = column_has_series_colour (img, x, 20, 100);
  g_assert_true (high);
  g_assert_cmpuint (count_limit_pixels (img, 200, 400, 0, 60), >, 20);   /* the marker */
  g_assert_cmpuint (count_limit_pixels (img, 0, 150, 0, 200), ==, 0);   /* no line across */
  g_assert_cmpuint (count_limit_pixels (img, 0, 400, 60, 200), ==, 0);
  cairo_destroy (cr);
  cairo_surface_destroy (img);
}

static void
test_plot_histogram_from_result (void)
{
  g_autofree char *path = fixture ("fail.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *step, *result;
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 500, 250);
  cairo_t *cr = cairo_create (img);
  g_autoptr(JsonObject) empty = json_object_new ();
  QfPlotLimit limits[] = { { "Max", 100 } };
  gboolean drawn = FALSE;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  step = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "steps"), 0);
  result = json_object_get_object_member (step, "result");
  g_assert_true (qf_plot_result_histogram (cr, 500, 250, NULL, result, limits, 1));
  g_assert_false (qf_plot_result_histogram (cr, 500, 250, NULL, empty, NULL, 0));
  g_assert_false (qf_plot_result_time_series (cr, 500, 250, NULL, empty, NULL, 0));
  cairo_surface_flush (img);
  for (int x = 60; x < 490 && !drawn; x++)
    drawn = column_has_series_colour (img, x, 20, 220);
  g_assert_true (drawn);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (img);
}

/* Reports */

static void
test_report_rejects_non_session (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_data ("{\"format\": \"something\"}", -1, &error);

  g_assert_null (report);
  g_assert_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT);
  g_clear_error (&error);
  report = qf_report_new_from_data ("{\"format\": \"qualify-session\", \"schema_version\": 9}", -1, &error);
  g_assert_null (report);
  g_assert_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_FORMAT);
  g_clear_error (&error);
  report = qf_report_new_from_data ("{\"format\": \"qualify-session\", \"schema_version\": 1}", -1, &error);
  g_assert_no_error (error);
  g_assert_false (qf_report_set_language (report, "fr", &error));
  g_assert_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_LANGUAGE);
}

static void
test_pdf_text (void)
{
  g_autofree char *pdf = write_report ("fail.json", "en", "text.pdf", NULL);
  const char *argv[] = { "pdftotext", "-layout", pdf, "-", NULL };
  g_autofree char *text = run_tool (argv, NULL);
  const char *expected[] = {
    "FAIL", "Acme Robotics GmbH", "Hall 3, Line B", "cell-07-ipc", "Li Wei",
    "61.7 µs", "6990 µs", "0.104 ms", "613 Mbit/s", "602 Mbit/s", "≤ 32 µs", "≥ 900 Mbit/s",
    "cyclictest -m -t1 -p 99 -i 1000 -l 100000", "ping -c 338 -i 0.01 -s 56 127.0.0.1",
    "iperf3 -c 127.0.0.1 -t 10", "PREEMPT_DYNAMIC", "Page 1 of", "built-in peer",
    "Compared with the previous session", "+49.3 µs", "Sign-off", "Customer representative",
    "Operating system", "Debian GNU/Linux 12 (bookworm)",
  };

  if (text == NULL)
    {
      g_test_skip ("pdftotext (poppler-utils) is not installed");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    if (strstr (text, expected[i]) == NULL)
      g_error ("pdftotext output lacks “%s”:\n%s", expected[i], text);
}

static void
test_pdf_renders_and_embeds_fonts (void)
{
  g_autofree char *pdf = write_report ("pass.json", "en", "render.pdf", NULL);
  g_autofree char *prefix = tmp_path ("page");
  const char *info_argv[] = { "pdfinfo", pdf, NULL };
  const char *ppm_argv[] = { "pdftoppm", "-png", "-r", "30", pdf, prefix, NULL };
  const char *fonts_argv[] = { "pdffonts", pdf, NULL };
  g_autofree char *info = run_tool (info_argv, NULL);
  g_autofree char *ppm = NULL, *fonts = NULL;
  g_auto(GStrv) lines = NULL;
  const char *pages_line;
  int pages, status = -1, rendered = 0, font_rows = 0;

  if (info == NULL)
    {
      g_test_skip ("pdfinfo (poppler-utils) is not installed");
      return;
    }
  pages_line = strstr (info, "Pages:");
  g_assert_nonnull (pages_line);
  pages = atoi (pages_line + strlen ("Pages:"));
  g_assert_cmpint (pages, >=, 3);

  ppm = run_tool (ppm_argv, &status);
  g_assert_cmpint (status, ==, 0);
  for (int i = 1; i <= pages; i++)
    {
      g_autofree char *a = g_strdup_printf ("%s-%d.png", prefix, i);
      g_autofree char *b = g_strdup_printf ("%s-%02d.png", prefix, i);
      struct stat st;
      if ((g_stat (a, &st) == 0 || g_stat (b, &st) == 0) && st.st_size > 500)
        rendered++;
    }
  g_assert_cmpint (rendered, ==, pages);

  fonts = run_tool (fonts_argv, &status);
  g_assert_cmpint (status, ==, 0);
  lines = g_strsplit (fonts, "\n", -1);
  /* name type encoding emb sub uni object ID: after the two header lines, every font row must
   * say "yes" in the emb column. */
  for (guint i = 2; lines[i] != NULL; i++)
    {
      g_auto(GStrv) cols = NULL;
      const char *words[32];
      guint n = 0;
      if (*lines[i] == '\0')
        continue;
      cols = g_strsplit_set (lines[i], " ", -1);
      for (guint c = 0; cols[c] != NULL && n < G_N_ELEMENTS (words); c++)
        if (*cols[c] != '\0')
          words[n++] = cols[c];
      g_assert_cmpuint (n, >=, 7);
      if (!g_str_equal (words[n - 5], "yes"))
        g_error ("font not embedded: %s", lines[i]);
      font_rows++;
    }
  g_assert_cmpint (font_rows, >=, 1);
}

static void
test_pdf_has_session_attachment (void)
{
  g_autofree char *pdf = write_report ("pass.json", "en", "attach.pdf", NULL);
  g_autofree char *fix = fixture ("pass.json");
  g_autofree char *data = NULL, *original = NULL;
  gsize size, original_size;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) session = NULL;

  g_assert_true (g_file_get_contents (pdf, &data, &size, NULL));
  g_assert_true (g_file_get_contents (fix, &original, &original_size, NULL));
  session = qf_pdf_find_attachment ((const guint8 *) data, size, "session.json", &error);
  g_assert_no_error (error);
  /* Byte for byte the session that was reported. */
  g_assert_cmpuint (g_bytes_get_size (session), ==, original_size);
  g_assert_true (memcmp (g_bytes_get_data (session, NULL), original, original_size) == 0);
}

static gboolean
has_text (const char *haystack,
          const char *needle)
{
  return haystack != NULL && strstr (haystack, needle) != NULL;
}

static void
test_pdf_signed_and_tampered (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autofree char *pdf = write_report ("fail.json", "en", "signed.pdf", signer);
  g_autofree char *flipped = tmp_path ("flipped.pdf");
  g_autofree char *appended = tmp_path ("appended.pdf");
  g_autofree char *data = NULL;
  gsize size;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) ok = NULL, bad = NULL, longer = NULL;
  const char *sig_argv[] = { "pdfsig", pdf, NULL };
  const char *flip_argv[] = { "pdfsig", flipped, NULL };
  const char *app_argv[] = { "pdfsig", appended, NULL };
  g_autofree char *sig = NULL, *sig_flip = NULL, *sig_app = NULL;
  char *mediabox;

  ok = qf_verify_file (pdf, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ok->is_signed && ok->signature_valid && ok->covers_whole);
  g_assert_true (qf_verify_result_ok (ok));
  g_assert_nonnull (strstr (ok->signer, "CN=Test Installer"));
  g_assert_nonnull (ok->signing_time);
  g_assert_cmpstr (ok->overall_verdict, ==, "fail");

  /* One byte of the first page's dictionary, in the first signed range. */
  g_assert_true (g_file_get_contents (pdf, &data, &size, NULL));
  mediabox = memmem (data, size, "/MediaBox", strlen ("/MediaBox"));
  g_assert_nonnull (mediabox);
  mediabox[3] ^= 0x01;
  g_assert_true (g_file_set_contents (flipped, data, size, NULL));
  mediabox[3] ^= 0x01;
  bad = qf_verify_file (flipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (bad->signature_valid);
  g_assert_false (qf_verify_result_ok (bad));

  {
    const char *tail = "\n% appended after signing\n";
    g_autofree char *more = g_malloc (size + strlen (tail));
    memcpy (more, data, size);
    memcpy (more + size, tail, strlen (tail));
    g_assert_true (g_file_set_contents (appended, more, size + strlen (tail), NULL));
  }
  longer = qf_verify_file (appended, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (longer->covers_whole);
  g_assert_false (qf_verify_result_ok (longer));

  sig = run_tool (sig_argv, NULL);
  if (sig == NULL)
    {
      g_test_message ("pdfsig is not installed: only Qualify's own verification ran");
      return;
    }
  /* pdfsig exits 0 even for invalid signatures: read its text. */
  g_assert_true (has_text (sig, "Signature Validation: Signature is Valid."));
  g_assert_true (has_text (sig, "Total document signed"));
  g_assert_true (has_text (sig, "adbe.pkcs7.detached"));
  sig_flip = run_tool (flip_argv, NULL);
  g_assert_false (has_text (sig_flip, "Signature is Valid."));
  g_assert_true (has_text (sig_flip, "Digest Mismatch"));
  sig_app = run_tool (app_argv, NULL);
  g_assert_true (has_text (sig_app, "Not total document signed"));
}

/* cairo 1.18 (Ubuntu 24.04) writes a cross-reference stream and keeps the catalog, page tree
 * and pages in compressed object streams. The fixture is such a file: two pages with a link
 * annotation each and document info, made by cairo 1.18.0 (cairo_pdf_surface_create, show_text,
 * a CAIRO_TAG_LINK, show_page twice). The update reads it, appends an xref stream of its own,
 * and what it wrote is found again, verifies, and is well-formed for qpdf and pdfsig. */
static void
test_pdf_update_after_xref_stream (void)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "pdf",
                                                "cairo-1.18-two-pages.pdf", NULL);
  g_autofree char *out = tmp_path ("cairo-1.18-signed.pdf");
  g_autofree char *data = NULL, *session = NULL, *session_path = fixture ("pass.json");
  gsize size, session_size;
  g_autoptr(GBytes) in = NULL, updated = NULL, attachment = NULL, found = NULL;
  g_autoptr(QfSigner) signer = test_signer ();
  g_autoptr(QfVerifyResult) verified = NULL;
  g_autoptr(GError) error = NULL;
  QfPdfSignatureBox box = { 1, 50, 50, 250, 100 };
  const char *check_argv[] = { "qpdf", "--check", out, NULL };
  const char *sig_argv[] = { "pdfsig", out, NULL };
  g_autofree char *check = NULL, *sig = NULL;
  const char *tail;
  gsize tail_len;
  int status = -1;

  g_assert_true (g_file_get_contents (src, &data, &size, NULL));
  g_assert_null (memmem (data, size, "\nxref", 5));              /* no classic table at all */
  g_assert_nonnull (memmem (data, size, "/ObjStm", 7));
  g_assert_true (g_file_get_contents (session_path, &session, &session_size, NULL));
  in = g_bytes_new (data, size);
  attachment = g_bytes_new (session, session_size);
  updated = qf_pdf_update (in, "session.json", attachment, "session", signer, "acceptance", &box, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (updated);
  g_assert_true (g_file_set_contents (out, g_bytes_get_data (updated, NULL), g_bytes_get_size (updated), NULL));

  /* the update ends in a cross-reference stream of its own, pointing back to cairo's */
  tail = (const char *) g_bytes_get_data (updated, NULL) + size;
  tail_len = g_bytes_get_size (updated) - size;
  g_assert_nonnull (memmem (tail, tail_len, "/Type /XRef", strlen ("/Type /XRef")));
  g_assert_null (memmem (tail, tail_len, "\nxref\n", strlen ("\nxref\n")));

  found = qf_pdf_find_attachment (g_bytes_get_data (updated, NULL), g_bytes_get_size (updated), "session.json", &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (found, attachment));
  verified = qf_verify_file (out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (verified->is_signed && verified->signature_valid && verified->covers_whole);

  check = run_tool (check_argv, &status);
  if (check == NULL)
    g_test_message ("qpdf is not installed: the file's structure was not checked by it");
  else
    {
      /* exit 0: neither errors (2) nor warnings (3, e.g. a cross-reference it had to repair) */
      g_assert_cmpint (status, ==, 0);
      g_assert_true (has_text (check, "No syntax or stream encoding errors found"));
    }
  sig = run_tool (sig_argv, NULL);
  if (sig == NULL)
    return;
  g_assert_true (has_text (sig, "Signature Validation: Signature is Valid."));
  g_assert_true (has_text (sig, "Total document signed"));
}

/* A damaged file whose object stream needs its own content to know its length (its /Length is
 * object 2, inside it, and so is the catalog /Root 2 0 R): reading ends with an error, neither
 * endless recursion nor a crash, for the update (which reads the catalog) and for the
 * attachment reader (whose embedded-file entry points into that stream). */
static void
test_pdf_object_stream_loop (void)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "pdf",
                                                "objstm-loop.pdf", NULL);
  g_autofree char *data = NULL;
  gsize size;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) found = NULL, in = NULL, attachment = g_bytes_new_static ("{}", 2), updated = NULL;

  g_assert_true (g_file_get_contents (src, &data, &size, NULL));
  in = g_bytes_new (data, size);
  updated = qf_pdf_update (in, "session.json", attachment, "session", NULL, NULL, NULL, NULL, &error);
  g_assert_null (updated);
  g_assert_error (error, QF_PDF_ERROR, QF_PDF_ERROR_PARSE);
  g_clear_error (&error);
  found = qf_pdf_find_attachment ((const guint8 *) data, size, "session.json", &error);
  g_assert_null (found);
  g_assert_error (error, QF_PDF_ERROR, QF_PDF_ERROR_PARSE);
}

/* A cross-reference stream whose /Index cannot be read is refused, not read as if it had none. */
static void
test_pdf_bad_xref_index (void)
{
  g_autoptr(GByteArray) pdf = g_byte_array_new ();
  g_autoptr(GBytes) in = NULL, attachment = g_bytes_new_static ("{}", 2), updated = NULL;
  g_autoptr(GError) error = NULL;
  static const guint8 rows[14] = { 0, 0, 0, 0, 0, 0xff, 0xff, 1, 0, 0, 0, 9, 0, 0 };
  const char *head = "%PDF-1.5\n";
  g_autofree char *tail = g_strdup_printf ("\nendstream\nendobj\nstartxref\n%zu\n%%%%EOF\n", strlen (head));

  g_byte_array_append (pdf, (const guint8 *) head, strlen (head));
  /* "/Index [0 2" never closes: the rows could not be placed */
  g_byte_array_append (pdf, (const guint8 *) "1 0 obj\n<< /Type /XRef /Size 2 /Root 1 0 R /W [1 4 2] /Index [0 2 /Length 14 >>\nstream\n",
                       strlen ("1 0 obj\n<< /Type /XRef /Size 2 /Root 1 0 R /W [1 4 2] /Index [0 2 /Length 14 >>\nstream\n"));
  g_byte_array_append (pdf, rows, sizeof rows);
  g_byte_array_append (pdf, (const guint8 *) tail, strlen (tail));
  in = g_bytes_new (pdf->data, pdf->len);
  updated = qf_pdf_update (in, "session.json", attachment, "session", NULL, NULL, NULL, NULL, &error);
  g_assert_null (updated);
  g_assert_error (error, QF_PDF_ERROR, QF_PDF_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "/Index"));
}

/* Occurrences of needle in data[0..size). */
static guint
count_bytes (const char *data,
             gsize       size,
             const char *needle)
{
  guint n = 0;

  for (const char *p = data; (p = memmem (p, data + size - p, needle, strlen (needle))) != NULL; p++)
    n++;
  return n;
}

/* The text of the newest "num 0 obj" in the file, up to its endobj. */
static char *
newest_object (const char *data,
               gsize       size,
               gint64      num)
{
  g_autofree char *head = g_strdup_printf ("\n%" G_GINT64_FORMAT " 0 obj", num);
  const char *last = NULL, *end;

  for (const char *p = data; (p = memmem (p, data + size - p, head, strlen (head))) != NULL; p++)
    last = p;
  g_assert_nonnull (last);
  end = memmem (last, data + size - last, "endobj", 6);
  g_assert_nonnull (end);
  return g_strndup (last + strlen (head), end - last - strlen (head));
}

/* The object number of the last page in cairo's flat page tree. */
static gint64
last_page_object (const char *data,
                  gsize       size)
{
  const char *pages = memmem (data, size, "/Type /Pages", strlen ("/Type /Pages"));
  const char *kids, *close;
  g_auto(GStrv) refs = NULL;
  guint n;

  g_assert_nonnull (pages);
  kids = strchr (strstr (pages, "/Kids"), '[');
  close = strchr (kids, ']');
  {
    g_autofree char *inner = g_strndup (kids + 1, close - kids - 1);
    refs = g_strsplit (g_strstrip (inner), " 0 R", -1);
  }
  n = g_strv_length (refs);
  /* "a 0 R b 0 R" splits into "a", " b", "": the last number is the one before the empty end. */
  g_assert_cmpuint (n, >=, 2);
  return g_ascii_strtoll (refs[n - 2], NULL, 10);
}

/* The fingerprint as the box prints it: 16 groups of four hex digits. */
static GPtrArray *
fingerprint_groups (QfSigner *signer)
{
  g_autoptr(JsonObject) info = qf_signer_describe (signer);
  const char *colons = json_object_get_string_member (info, "sha256_fingerprint");
  g_autoptr(GString) hex = g_string_new (NULL);
  GPtrArray *groups = g_ptr_array_new_with_free_func (g_free);

  for (const char *p = colons; *p; p++)
    if (*p != ':')
      g_string_append_c (hex, *p);
  g_assert_cmpuint (hex->len, ==, 64);
  for (guint i = 0; i < 64; i += 4)
    g_ptr_array_add (groups, g_strndup (hex->str + i, 4));
  return groups;
}

/* The widget of the one /Sig field: its object number, page and rectangle. */
static void
find_signature_widget (const char *data,
                       gsize       size,
                       gint64     *widget,
                       gint64     *page,
                       gdouble     rect[4])
{
  const char *w = memmem (data, size, "/FT /Sig", strlen ("/FT /Sig"));
  const char *obj, *r, *p, *end;
  char *next;

  g_assert_nonnull (w);
  end = strstr (w, "endobj");
  for (obj = w; obj > data && memcmp (obj, " 0 obj", 6) != 0; obj--)
    ;
  while (obj > data && g_ascii_isdigit (obj[-1]))
    obj--;
  *widget = g_ascii_strtoll (obj, NULL, 10);
  r = strstr (w, "/Rect");
  g_assert_true (r != NULL && r < end);
  next = strchr (r, '[') + 1;
  for (int i = 0; i < 4; i++)
    rect[i] = g_ascii_strtod (next, &next);
  p = strstr (w, "/P ");
  g_assert_true (p != NULL && p < end);
  *page = g_ascii_strtoll (p + 3, NULL, 10);
  g_assert_true (strstr (w, "/AP << /N ") != NULL && strstr (w, "/AP << /N ") < end);
}

/* A signed report shows its signature where PDF readers look: one /Sig field whose widget sits
 * on the sign-off (last) page, in that page's /Annots, with a box that prints the signer
 * (Chinese included), the fingerprint groups and the signature's own signing time. */
static void
test_pdf_visible_signature (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSigner) signer = qf_signer_create_self_signed ("李伟 Tester", "测试集成公司", &error);
  g_autofree char *pdf = NULL, *unsigned_pdf = NULL, *data = NULL, *page = NULL;
  g_autofree char *annots = NULL, *text = NULL, *shown_time = NULL;
  g_autoptr(GPtrArray) groups = NULL;
  g_autoptr(QfVerifyResult) ok = NULL;
  gint64 widget, widget_page, last_page;
  gdouble rect[4];
  gsize size;

  g_assert_no_error (error);
  pdf = write_report ("fail.json", "en", "visible.pdf", signer);
  g_assert_true (g_file_get_contents (pdf, &data, &size, NULL));
  g_assert_cmpuint (count_bytes (data, size, "/FT /Sig"), ==, 1);
  find_signature_widget (data, size, &widget, &widget_page, rect);
  g_assert_cmpfloat (rect[2] - rect[0], >, 100);
  g_assert_cmpfloat (rect[3] - rect[1], >, 40);
  g_assert_cmpfloat (rect[0], >=, 0);
  g_assert_cmpfloat (rect[3], <=, 842);
  last_page = last_page_object (data, size);
  g_assert_cmpint (widget_page, ==, last_page);
  page = newest_object (data, size, last_page);
  annots = g_strdup_printf ("/Annots [ %" G_GINT64_FORMAT " 0 R", widget);
  g_assert_nonnull (strstr (page, annots));

  ok = qf_verify_file (pdf, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ok->signature_valid && ok->covers_whole && qf_verify_result_ok (ok));
  /* "2026-11-30T15:02:03Z" is printed as "2026-11-30 15:02:03 UTC". */
  g_assert_nonnull (ok->signing_time);
  shown_time = g_strdup_printf ("%.10s %.8s UTC", ok->signing_time, ok->signing_time + 11);

  {
    g_autofree char *pages_text = NULL, *last = NULL;
    const char *info_argv[] = { "pdfinfo", pdf, NULL };
    g_autofree char *info = run_tool (info_argv, NULL);
    if (info == NULL)
      {
        g_test_skip ("pdfinfo/pdftotext (poppler-utils) is not installed");
        return;
      }
    last = g_strdup_printf ("%d", atoi (strstr (info, "Pages:") + strlen ("Pages:")));
    {
      const char *argv[] = { "pdftotext", "-f", last, "-l", last, pdf, "-", NULL };
      text = run_tool (argv, NULL);
    }
  }
  g_assert_nonnull (strstr (text, "Sign-off"));
  g_assert_nonnull (strstr (text, "Digitally signed by"));
  g_assert_nonnull (strstr (text, "李伟 Tester"));
  g_assert_nonnull (strstr (text, "测试集成公司"));
  if (strstr (text, shown_time) == NULL)
    g_error ("the sign-off page does not print the signing time %s:\n%s", shown_time, text);
  groups = fingerprint_groups (signer);
  for (guint i = 0; i < groups->len; i++)
    if (strstr (text, g_ptr_array_index (groups, i)) == NULL)
      g_error ("the sign-off page lacks fingerprint group %s:\n%s", (char *) g_ptr_array_index (groups, i), text);

  /* Unsigned: the hand-signing lines, no field, no box. */
  unsigned_pdf = write_report ("fail.json", "en", "visible-unsigned.pdf", NULL);
  g_clear_pointer (&data, g_free);
  g_assert_true (g_file_get_contents (unsigned_pdf, &data, &size, NULL));
  g_assert_cmpuint (count_bytes (data, size, "/FT /Sig"), ==, 0);
  g_assert_cmpuint (count_bytes (data, size, "/AcroForm"), ==, 0);
  g_assert_cmpuint (count_bytes (data, size, "/Annots"), ==, 0);
}

/* The widget's appearance is drawn (a reader that hides annotations shows less), and a changed
 * byte in the widget's rectangle breaks the signature for Qualify and for pdfsig. */
static void
test_pdf_visible_signature_checked (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autofree char *pdf = write_report ("pass.json", "en", "visible-check.pdf", signer);
  g_autofree char *moved = tmp_path ("visible-moved.pdf");
  g_autofree char *with = tmp_path ("with"), *without = tmp_path ("without");
  g_autofree char *data = NULL, *sig = NULL, *sig_moved = NULL, *info = NULL, *last = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) bad = NULL;
  const char *info_argv[] = { "pdfinfo", pdf, NULL };
  const char *sig_argv[] = { "pdfsig", pdf, NULL };
  const char *moved_argv[] = { "pdfsig", moved, NULL };
  gsize size;
  char *rect;

  g_assert_true (g_file_get_contents (pdf, &data, &size, NULL));
  rect = memmem (data, size, "/Rect [ ", strlen ("/Rect [ "));
  g_assert_nonnull (rect);
  rect[8] = rect[8] == '1' ? '2' : '1';
  g_assert_true (g_file_set_contents (moved, data, size, NULL));
  bad = qf_verify_file (moved, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (bad->signature_valid);
  g_assert_false (qf_verify_result_ok (bad));

  sig = run_tool (sig_argv, NULL);
  if (sig == NULL)
    {
      g_test_skip ("pdfsig (poppler-utils) is not installed");
      return;
    }
  g_assert_true (has_text (sig, "Signature Validation: Signature is Valid."));
  g_assert_true (has_text (sig, "Total document signed"));
  sig_moved = run_tool (moved_argv, NULL);
  g_assert_false (has_text (sig_moved, "Signature is Valid."));

  info = run_tool (info_argv, NULL);
  last = g_strdup_printf ("%d", atoi (strstr (info, "Pages:") + strlen ("Pages:")));
  {
    const char *a[] = { "pdftoppm", "-f", last, "-l", last, "-singlefile", "-gray", "-r", "40", pdf, with, NULL };
    const char *b[] = { "pdftoppm", "-hide-annotations", "-f", last, "-l", last, "-singlefile", "-gray",
                        "-r", "40", pdf, without, NULL };
    g_autofree char *pa = g_strconcat (with, ".pgm", NULL), *pb = g_strconcat (without, ".pgm", NULL);
    g_autofree char *ia = NULL, *ib = NULL, *oa = NULL, *ob = NULL;
    gsize la, lb;
    int status = -1;

    oa = run_tool (a, &status);
    g_assert_cmpint (status, ==, 0);
    ob = run_tool (b, &status);
    g_assert_cmpint (status, ==, 0);
    g_assert_true (g_file_get_contents (pa, &ia, &la, NULL));
    g_assert_true (g_file_get_contents (pb, &ib, &lb, NULL));
    g_assert_cmpuint (la, ==, lb);
    g_assert_true (memcmp (ia, ib, la) != 0);
  }
}

/* A customer who imports the installer's root into NSS sees the signer as trusted in pdfsig. */
static void
test_pdfsig_trusts_imported_root (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autofree char *pdf = write_report ("pass.json", "en", "nss.pdf", signer);
  g_autofree char *root = tmp_path ("root.pem"), *nss = tmp_path ("nssdb");
  g_autofree char *db = NULL, *pem = NULL, *out = NULL, *before = NULL;
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_autofree char *certutil = g_find_program_in_path ("certutil");
  g_autofree char *pdfsig = g_find_program_in_path ("pdfsig");

  if (certutil == NULL || pdfsig == NULL)
    {
      g_test_skip ("certutil (libnss3-tools) or pdfsig (poppler-utils) is not installed");
      return;
    }
  pem = qf_signer_get_anchor_pem (signer, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (root, pem, -1, NULL));
  g_assert_cmpint (g_mkdir (nss, 0700), ==, 0);
  db = g_strconcat ("sql:", nss, NULL);
  {
    const char *init[] = { "certutil", "-N", "-d", db, "--empty-password", NULL };
    const char *add[] = { "certutil", "-A", "-n", "installer", "-t", ",C,", "-i", root, "-d", db, NULL };
    const char *check_before[] = { "pdfsig", pdf, NULL };
    g_free (run_tool (init, &status));
    g_assert_cmpint (status, ==, 0);
    before = run_tool (check_before, NULL);
    g_free (run_tool (add, &status));
    g_assert_cmpint (status, ==, 0);
  }
  {
    const char *check[] = { "pdfsig", "-nssdir", db, pdf, NULL };
    out = run_tool (check, NULL);
  }
  g_assert_true (has_text (out, "Signature is Valid."));
  g_assert_true (has_text (out, "Certificate is Trusted."));
  g_assert_false (has_text (before, "Certificate is Trusted."));
}

static void
test_html_signed_and_tampered (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autofree char *html = write_report ("fail.json", "en", "signed.html", signer);
  g_autofree char *changed = tmp_path ("changed.html");
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) ok = NULL, bad = NULL;
  GString *s;
  gsize n;

  g_assert_true (g_file_get_contents (html, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "<script type=\"application/json\" id=\"qf-session\">"));
  g_assert_nonnull (strstr (text, "<svg"));
  g_assert_null (strstr (text, "<script src"));
  g_assert_null (strstr (text, "<link"));
  /* the release in the inventory table, not only in the embedded session */
  g_assert_nonnull (strstr (text, "Operating system"));
  ok = qf_verify_file (html, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (qf_verify_result_ok (ok));
  g_assert_true (ok->contents_match);

  /* One figure in the criteria table. */
  s = g_string_new (text);
  n = g_string_replace (s, "<td>61.7 µs</td>", "<td>31.7 µs</td>", 1);
  g_assert_cmpuint (n, ==, 1);
  g_assert_true (g_file_set_contents (changed, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  bad = qf_verify_file (changed, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (bad->signature_valid);
  g_assert_false (bad->contents_match);
  g_assert_false (qf_verify_result_ok (bad));
}

/* A session fixture with the rt step's average edited: its result figure to figure (when >= 0),
 * and its stored verdict to verdict in the step (in_step) and in the criteria table (in_table). */
static char *
edited_session (const char *name,
                gdouble     figure,
                const char *verdict,
                gboolean    in_step,
                gboolean    in_table)
{
  g_autofree char *path = fixture (name), *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *session, *step;
  JsonArray *lists[2];

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  session = json_node_get_object (json_parser_get_root (parser));
  step = json_array_get_object_element (json_object_get_array_member (session, "steps"), 0);
  g_assert_cmpstr (json_object_get_string_member (step, "key"), ==, "rt");
  lists[0] = in_step ? json_object_get_array_member (step, "verdicts") : NULL;
  lists[1] = in_table ? json_object_get_array_member (json_object_get_object_member (session, "verdict"), "criteria") : NULL;
  if (figure >= 0)
    json_object_set_double_member (json_object_get_object_member (step, "result"), "avg_us", figure);
  for (guint l = 0; l < 2; l++)
    {
      JsonObject *v = lists[l] != NULL ? json_array_get_object_element (lists[l], 0) : NULL;
      if (v == NULL)
        continue;
      g_assert_cmpstr (json_object_get_string_member (v, "metric"), ==, "avg_us");
      if (figure >= 0)
        json_object_set_double_member (v, "measured", figure);
      json_object_set_string_member (v, "verdict", verdict);
    }
  return json_to_string (json_parser_get_root (parser), TRUE);
}

/* A session whose stored verdicts are not what its figures give is refused, naming the test and
 * the metric: a 74 µs average stored as PASS for "≤ 32 µs", and a step's verdict alone edited
 * (the table would say FAIL and the test's section PASS). */
static void
test_report_refuses_edited_verdicts (void)
{
  g_autofree char *average = edited_session ("fail.json", 74, "pass", TRUE, TRUE);
  g_autofree char *step_only = edited_session ("fail.json", -1, "pass", TRUE, FALSE);
  g_autofree char *file = tmp_path ("edited-session.json");
  const char *texts[] = { average, step_only };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(QfReport) report = qf_report_new_from_data (texts[i], -1, &error);

      g_assert_null (report);
      g_assert_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_VERDICT);
      g_assert_nonnull (strstr (error->message, "test “rt”, metric “avg_us”"));
      g_assert_nonnull (strstr (error->message, "the stored verdict is PASS"));
    }
  /* From a file, the message names it too. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(QfReport) report = NULL;

    g_assert_true (g_file_set_contents (file, average, -1, NULL));
    report = qf_report_new_from_path (file, &error);
    g_assert_null (report);
    g_assert_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_VERDICT);
    g_assert_true (g_str_has_prefix (error->message, file));
    g_assert_nonnull (strstr (error->message, "figure (74 µs) against the limit ≤ 32 µs gives FAIL"));
  }
}

/* A signed report whose table agrees with the stored verdicts of its embedded session but whose
 * session's figure says otherwise (as a writer that copied verdicts would sign it): the signature
 * is valid, yet verify judges the embedded session and finds the report invalid. The model is
 * built from the untouched session and the edited text swapped in as what gets embedded. */
static void
test_verify_judges_embedded_session (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autofree char *edited = edited_session ("pass.json", 74, "pass", FALSE, FALSE);
  const char *names[] = { "judged.pdf", "judged.html" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = fixture ("pass.json"), *out = tmp_path (names[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(QfReport) report = qf_report_new_from_path (path, &error);
      g_autoptr(QfVerifyResult) r = NULL;
      gboolean pdf = g_str_has_suffix (names[i], ".pdf");
      gboolean problem_named = FALSE;

      g_assert_no_error (error);
      g_free (report->session_text);
      report->session_text = g_strdup (edited);
      g_assert_true (pdf ? qf_report_write_pdf (report, out, signer, &error)
                         : qf_report_write_html (report, out, signer, &error));
      g_assert_no_error (error);
      r = qf_verify_file (out, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (r->signature_valid);
      g_assert_true (r->covers_whole);
      g_assert_true (r->contents_checked);
      g_assert_false (r->contents_match);
      g_assert_false (qf_verify_result_ok (r));
      for (guint p = 0; p < r->problems->len; p++)
        problem_named |= strstr (g_ptr_array_index (r->problems, p), "test “rt”, metric “avg_us”") != NULL;
      g_assert_true (problem_named);
    }
  /* The same report written from the untouched session still verifies. */
  {
    g_autofree char *html = write_report ("pass.json", "en", "untouched.html", signer);
    g_autoptr(GError) error = NULL;
    g_autoptr(QfVerifyResult) r = qf_verify_file (html, NULL, &error);

    g_assert_no_error (error);
    g_assert_true (qf_verify_result_ok (r));
    g_assert_true (r->contents_match);
  }
}

/* The signature element is accepted only once, as and where the writer puts it: moved
 * elsewhere (the bytes it covers unchanged), repeated, re-encoded or followed by anything, the
 * report is invalid. */
static void
test_html_signature_only_where_written (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autofree char *html = write_report ("pass.json", "en", "placed.html", signer);
  g_autofree char *text = NULL, *element = NULL;
  g_autoptr(GBytes) cms = NULL;
  const char *open_tag = "<script type=\"application/pkcs7-signature\" id=\"qf-signature\">";
  const char *start, *end;
  gsize size, el_start = 0, el_end = 0;
  char *variants[5];

  g_assert_true (g_file_get_contents (html, &text, &size, NULL));
  g_assert_cmpint (qf_verify_html_signature_block (text, size, &el_start, &el_end, &cms), ==,
                   QF_HTML_SIGNATURE_FOUND);
  g_assert_true (g_str_has_suffix (text, "</script></body>\n</html>\n"));
  start = strstr (text, open_tag);
  end = strstr (start, "</script>") + strlen ("</script>");
  g_assert_cmpuint (el_start, ==, (gsize) (start - text));
  g_assert_cmpuint (el_end, ==, (gsize) (end - text));
  element = g_strndup (start, end - start);
  {
    g_autofree char *head = g_strndup (text, start - text);
    g_autofree char *b64 = g_strndup (start + strlen (open_tag), end - start - strlen (open_tag) - 9);
    GString *title = g_string_new (head);
    g_autofree char *in_title = g_strconcat ("<title>", element, NULL);

    /* Into <title>: what a browser shows changes, the bytes the signature covers do not. */
    g_string_append (title, end);
    g_assert_cmpuint (g_string_replace (title, "<title>", in_title, 1), ==, 1);
    variants[0] = g_string_free (title, FALSE);
    variants[1] = g_strconcat (head, element, element, end, NULL);
    variants[2] = g_strconcat (head, open_tag, "\n", b64, "</script>", end, NULL);
    variants[3] = g_strconcat (text, "<p>added</p>\n", NULL);
    variants[4] = g_strconcat (head, "\n", element, end, NULL);
  }
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autofree char *name = g_strdup_printf ("placed-%u.html", i);
      g_autofree char *path = tmp_path (name);
      g_autoptr(GError) error = NULL;
      g_autoptr(QfVerifyResult) r = NULL;

      g_assert_true (g_file_set_contents (path, variants[i], -1, NULL));
      r = qf_verify_file (path, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (r->is_signed);
      g_assert_false (qf_verify_result_ok (r));
      g_free (variants[i]);
    }
}

/* The pass fixture with names people type made hostile: a right-to-left override inside the
 * host and operator names, 200-character names without a space in four scripts, a note longer
 * than a page. */
static char *
write_hostile_session (const char *name)
{
  g_autofree char *path = fixture ("pass.json"), *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(GString) long_name = g_string_new (NULL), long_note = g_string_new (NULL);
  JsonObject *root, *note = json_object_new ();
  char *out = tmp_path (name);

  for (guint i = 0; i < 20; i++)
    g_string_append (long_name, "Ab\u0645\u0631\u062d\u0628\u0627\u05e9\u674ex");
  for (guint i = 0; i < 150; i++)
    g_string_append (long_note, "a note line that goes on and on and on and on and on and on\n");
  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  json_object_set_string_member (json_object_get_object_member (root, "pc"), "hostname", "host\u202eRLO");
  json_object_set_string_member (root, "operator", "Li\u202eWei");
  json_object_set_string_member (root, "customer", long_name->str);
  json_object_set_string_member (root, "site", long_name->str);
  json_object_set_string_member (note, "id", "user");
  json_object_set_string_member (note, "text", long_note->str);
  json_array_add_object_element (json_object_get_array_member (root, "notes"), note);
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, out, NULL));
  return out;
}

/* Every word pdftotext -bbox finds lies between the margins, and below the header rule only
 * content above the footer or the footer itself. */
static void
assert_words_inside_page (const char *bbox)
{
  const gdouble page_w = 595.276, page_h = 841.89;
  guint words = 0;

  for (const char *p = strstr (bbox, "<word "); p != NULL; p = strstr (p + 1, "<word "))
    {
      gdouble x_min = g_ascii_strtod (strstr (p, "xMin=\"") + 6, NULL);
      gdouble y_min = g_ascii_strtod (strstr (p, "yMin=\"") + 6, NULL);
      gdouble x_max = g_ascii_strtod (strstr (p, "xMax=\"") + 6, NULL);
      gdouble y_max = g_ascii_strtod (strstr (p, "yMax=\"") + 6, NULL);

      words++;
      g_assert_cmpfloat (x_min, >=, 48.0 - 1);
      g_assert_cmpfloat (x_max, <=, page_w - 48.0 + 1);
      /* The content ends at page_h - 52; the footer's text starts below its rule at page_h - 40. */
      if (y_max > page_h - 52.0 + 1)
        g_assert_cmpfloat (y_min, >=, page_h - 40.0);
    }
  g_assert_cmpuint (words, >, 100);
}

static void
test_user_names_isolated_and_wrapped (void)
{
  g_autofree char *session = write_hostile_session ("hostile.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_path (session, &error);
  g_autofree char *pdf = tmp_path ("hostile.pdf"), *html = tmp_path ("hostile.html");
  g_autofree char *page = NULL, *text = NULL, *bbox = NULL;
  const char *layout_argv[] = { "pdftotext", "-layout", pdf, "-", NULL };
  const char *bbox_argv[] = { "pdftotext", "-bbox", pdf, "-", NULL };

  g_assert_no_error (error);
  g_assert_true (qf_report_write_pdf (report, pdf, NULL, &error));
  g_assert_true (qf_report_write_html (report, html, NULL, &error));
  g_assert_no_error (error);

  /* HTML: each name between FSI and PDI. */
  g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
  g_assert_nonnull (strstr (page, "\u2068host\u202eRLO\u2069 (\u2068Advantech\u2069 \u2068IPC-610\u2069)"));
  g_assert_nonnull (strstr (page, "<td>\u2068Li\u202eWei\u2069</td>"));
  g_assert_nonnull (strstr (page, "<td>\u2068Ab\u0645"));
  g_assert_nonnull (strstr (page, "\u2068host\u202eRLO\u2069 · \u2068Ab"));

  text = run_tool (layout_argv, NULL);
  bbox = run_tool (bbox_argv, NULL);
  if (text == NULL || bbox == NULL)
    {
      g_test_skip ("pdftotext (poppler-utils) is not installed");
      return;
    }
  /* PDF: the override reverses the rest of the host name only, not the text after it. */
  g_assert_nonnull (strstr (text, "(Advantech IPC-610)"));
  g_assert_null (strstr (text, ")016-CPI hcetnavdA("));
  assert_words_inside_page (bbox);
}

/* pass.json, with a network_audit of eth0 (three checks) when with_net_audit, and the readiness
 * audit's virtualization check saying virtual machine (warn) or own hardware (ok). */
static char *
write_network_session (const char *name,
                       gboolean    with_net_audit,
                       gboolean    vm)
{
  g_autofree char *path = fixture ("pass.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  JsonObject *root, *virt = json_object_new ();
  char *out = tmp_path (name);

  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  json_object_set_string_member (virt, "id", "virtualization");
  json_object_set_string_member (virt, "title", "Virtual machine");
  json_object_set_string_member (virt, "value", vm ? "the CPU reports a hypervisor" : "no hypervisor");
  json_object_set_string_member (virt, "status", vm ? "warn" : "ok");
  json_object_set_string_member (virt, "advice", "as the run wrote it");
  json_array_add_object_element (json_object_get_array_member (json_object_get_object_member (root, "audit"), "checks"), virt);
  if (with_net_audit)
    {
      JsonObject *net = json_object_new ();
      JsonArray *checks = json_array_new ();

      json_object_set_string_member (net, "iface", "eth0");
      json_array_add_object_element (checks, qf_test_net_check ("link-speed", "Link speed", "ok",
                                                                "1000 Mbit/s", "1000 Mbit/s or faster",
                                                                "", NULL));
      json_array_add_object_element (checks, qf_test_net_check ("eee", "Energy-Efficient Ethernet", "warn",
                                                                "on, active on the link", "off",
                                                                "ethtool --set-eee eth0 eee off", NULL));
      json_array_add_object_element (checks, qf_test_net_check ("coalescing", "Interrupt coalescing", "fail",
                                                                "not reported by this card",
                                                                "adaptive off, rx-usecs 0 (at most 10)",
                                                                "ethtool -C eth0 adaptive-rx off rx-usecs 0",
                                                                "nmcli connection modify eth0 ethtool.coalesce-rx-usecs 0"));
      json_object_set_array_member (net, "checks", checks);
      json_object_set_object_member (root, "network_audit", net);
    }
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, out, NULL));
  return out;
}

/* The report's block with that id (NULL when absent), built for the current language. */
static QfBlock *
block_by_id (QfReport   *report,
             const char *id)
{
  _qf_report_build (report);
  for (guint i = 0; i < report->blocks->len; i++)
    {
      QfBlock *b = g_ptr_array_index (report->blocks, i);
      if (g_strcmp0 (b->id, id) == 0)
        return b;
    }
  return NULL;
}

/* A cell of a table block without the isolation marks around text Qualify did not write. */
static char *
cell (QfBlock *b,
      guint    row,
      guint    col)
{
  const char *text = g_ptr_array_index ((GPtrArray *) g_ptr_array_index (b->rows, row), col);
  g_autoptr(GString) out = g_string_new (text);

  g_string_replace (out, "\u2068", "", 0);
  g_string_replace (out, "\u2069", "", 0);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
assert_cell (QfBlock    *b,
             guint       row,
             guint       col,
             const char *expected)
{
  g_autofree char *text = cell (b, row, col);

  g_assert_cmpstr (text, ==, expected);
}

/* The network readiness table: one row per check (check, found, recommended, status, fix) with
 * the status's colour, the command and NetworkManager's way, in English and in Chinese, in
 * both writers. */
static void
test_network_readiness_table (void)
{
  g_autofree char *path = write_network_session ("net-audit.json", TRUE, FALSE);
  g_autofree char *html = tmp_path ("net-audit.html"), *page = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_path (path, &error);
  QfBlock *b;

  g_assert_no_error (error);
  b = block_by_id (report, "qf-network-readiness");
  g_assert_nonnull (b);
  g_assert_cmpuint (b->header->len, ==, 5);
  g_assert_cmpstr (g_ptr_array_index (b->header, 2), ==, "Recommended");
  g_assert_cmpstr (g_ptr_array_index (b->header, 4), ==, "Fix");
  g_assert_cmpuint (b->rows->len, ==, 3);
  assert_cell (b, 0, 0, "Link speed");
  assert_cell (b, 0, 1, "1000 Mbit/s");
  assert_cell (b, 0, 2, "1000 Mbit/s or faster");
  assert_cell (b, 0, 3, "OK");
  assert_cell (b, 0, 4, "—");
  g_assert_cmpstr (g_ptr_array_index (b->row_css, 0), ==, "pass");
  assert_cell (b, 1, 3, "WARN");
  assert_cell (b, 1, 4, "ethtool --set-eee eth0 eee off");
  g_assert_cmpstr (g_ptr_array_index (b->row_css, 1), ==, "warn");
  assert_cell (b, 2, 1, "not reported by this card");
  assert_cell (b, 2, 3, "FAIL");
  assert_cell (b, 2, 4, "ethtool -C eth0 adaptive-rx off rx-usecs 0\n"
                        "nmcli connection modify eth0 ethtool.coalesce-rx-usecs 0");
  g_assert_cmpstr (g_ptr_array_index (b->row_css, 2), ==, "fail");

  g_assert_true (qf_report_write_html (report, html, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
  g_assert_nonnull (strstr (page, "<h2>Network readiness</h2>"));
  g_assert_nonnull (strstr (page, "id=\"qf-network-readiness\""));
  g_assert_nonnull (strstr (page, "ethtool --set-eee eth0 eee off"));

  g_assert_true (qf_report_set_language (report, "zh_CN", &error));
  g_assert_no_error (error);
  b = block_by_id (report, "qf-network-readiness");
  g_assert_nonnull (b);
  g_assert_cmpstr (g_ptr_array_index (b->header, 2), ==, "推荐值");
  assert_cell (b, 1, 0, "节能以太网（EEE）");
  assert_cell (b, 2, 1, "此网卡未报告");
  assert_cell (b, 2, 3, "不合格");
  assert_cell (b, 1, 4, "ethtool --set-eee eth0 eee off");
}

/* A session without network_audit has no network readiness section. */
static void
test_network_readiness_absent (void)
{
  g_autofree char *path = write_network_session ("no-net-audit.json", FALSE, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_path (path, &error);

  g_assert_no_error (error);
  g_assert_null (block_by_id (report, "qf-network-readiness"));
  for (guint i = 0; i < report->blocks->len; i++)
    {
      QfBlock *b = g_ptr_array_index (report->blocks, i);
      g_assert_cmpstr (b->text, !=, "Network readiness");
    }
}

/* The first page says plainly that the PC is a virtual machine, in the report's language, only
 * when the readiness audit found one; and the note comes before the criteria table. */
static void
test_virtual_machine_note (void)
{
  g_autofree char *vm_path = write_network_session ("vm.json", FALSE, TRUE);
  g_autofree char *hw_path = write_network_session ("hw.json", FALSE, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) vm = qf_report_new_from_path (vm_path, &error);
  g_autoptr(QfReport) hw = qf_report_new_from_path (hw_path, &error);
  QfBlock *note;
  guint note_at = 0, criteria_at = 0;

  g_assert_no_error (error);
  note = block_by_id (vm, "qf-virtual-machine");
  g_assert_nonnull (note);
  g_assert_cmpint (note->kind, ==, QF_BLOCK_NOTE);
  g_assert_nonnull (strstr (note->text, "Inside a virtual machine every latency figure includes the host’s scheduling"));
  g_assert_true (g_ptr_array_find (vm->blocks, note, &note_at));
  g_assert_true (g_ptr_array_find (vm->blocks, block_by_id (vm, "qf-criteria"), &criteria_at));
  g_assert_cmpuint (note_at, <, criteria_at);
  g_assert_null (block_by_id (hw, "qf-virtual-machine"));

  g_assert_true (qf_report_set_language (vm, "zh_CN", &error));
  g_assert_no_error (error);
  note = block_by_id (vm, "qf-virtual-machine");
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note->text, "宿主机的调度"));
}

static void
test_verify_trust (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autoptr(QfSigner) other = test_signer ();
  g_autofree char *html = write_report ("pass.json", "en", "trust.html", signer);
  g_autofree char *mine = tmp_path ("mine.pem"), *theirs = tmp_path ("theirs.pem");
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) trusted = NULL, untrusted = NULL;
  const char *mine_list[] = { mine, NULL }, *theirs_list[] = { theirs, NULL };

  /* The root certificate is what a customer is given. */
  {
    g_autofree char *a = qf_signer_get_anchor_pem (signer, &error);
    g_autofree char *b = qf_signer_get_anchor_pem (other, &error);
    g_assert_no_error (error);
    g_assert_null (strstr (a, "PRIVATE"));
    g_assert_true (g_file_set_contents (mine, a, -1, NULL));
    g_assert_true (g_file_set_contents (theirs, b, -1, NULL));
  }

  trusted = qf_verify_file (html, mine_list, &error);
  g_assert_no_error (error);
  g_assert_true (trusted->trusted);
  g_assert_true (qf_verify_result_ok (trusted));
  untrusted = qf_verify_file (html, theirs_list, &error);
  g_assert_no_error (error);
  g_assert_false (untrusted->trusted);
  g_assert_false (qf_verify_result_ok (untrusted));
}

static void
test_verify_not_a_report (void)
{
  g_autofree char *path = tmp_path ("notes.txt");
  g_autofree char *html = tmp_path ("plain.html");
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) r = NULL;

  g_assert_true (g_file_set_contents (path, "hello", -1, NULL));
  r = qf_verify_file (path, NULL, &error);
  g_assert_null (r);
  g_assert_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT);
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (html, "<!DOCTYPE html><html><body>hi</body></html>", -1, NULL));
  r = qf_verify_file (html, NULL, &error);
  g_assert_null (r);
  g_assert_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_NOT_REPORT);
  g_clear_error (&error);
  r = qf_verify_file ("/nonexistent/report.pdf", NULL, &error);
  g_assert_null (r);
  g_assert_error (error, QF_VERIFY_ERROR, QF_VERIFY_ERROR_READ);
}

/* Every member name of the objects in node that reads like a key of the code (a word, "_", more
 * words: "vm_bytes", "p99_us"), into keys. */
static void
collect_keys (JsonNode   *node,
              GHashTable *keys)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        collect_keys (json_array_get_element (a, i), keys);
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (o);

      for (GList *l = members; l != NULL; l = l->next)
        {
          if (g_regex_match_simple ("^[a-z0-9]+_[a-z0-9_]+$", l->data, 0, 0))
            g_hash_table_add (keys, g_strdup (l->data));
          collect_keys (json_object_get_member (o, l->data), keys);
        }
    }
}

/* The text a reader sees in an HTML report: no style, no script, no tags. */
static char *
html_visible_text (const char *path)
{
  g_autofree char *html = NULL;
  g_autoptr(GRegex) hidden = g_regex_new ("<(style|script)[^>]*>.*?</\\1>", G_REGEX_DOTALL, 0, NULL);
  g_autoptr(GRegex) tags = g_regex_new ("<[^>]*>", G_REGEX_DOTALL, 0, NULL);
  g_autofree char *shown = NULL;

  g_assert_true (g_file_get_contents (path, &html, NULL, NULL));
  shown = g_regex_replace_literal (hidden, html, -1, 0, " ", 0, NULL);
  return g_regex_replace_literal (tags, shown, -1, 0, " ", 0, NULL);
}

static void
assert_no_raw_key (const char *what,
                   const char *text,
                   GHashTable *keys)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, keys);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      g_autofree char *pattern = g_strdup_printf ("\\b%s\\b", (const char *) key);
      if (g_regex_match_simple (pattern, text, 0, 0))
        g_error ("%s shows the raw key “%s”:\n%s", what, (const char *) key, text);
    }
}

/* The report of a real quick run (quick-run.json: every test, as the engines wrote their
 * results, with the built-in peer) speaks a person's words in English and Chinese: no key of any
 * result or parameter in the PDF's text or the HTML's visible text, sizes in MiB, the real-time
 * test's one second as "1 s". */
static void
test_figures_readable (void)
{
  g_autofree char *path = fixture ("quick-run.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GError) error = NULL;
  JsonArray *steps;
  const char *langs[] = { "en", "zh_CN" };

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  steps = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "steps");
  g_assert_cmpuint (json_array_get_length (steps), ==, 7);
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      collect_keys (json_object_get_member (step, "result"), keys);
      collect_keys (json_object_get_member (step, "params"), keys);
    }
  g_assert_true (g_hash_table_contains (keys, "vm_bytes"));
  g_assert_true (g_hash_table_contains (keys, "bytes_written"));

  for (guint l = 0; l < G_N_ELEMENTS (langs); l++)
    {
      g_autofree char *pdf_name = g_strdup_printf ("quick-%s.pdf", langs[l]);
      g_autofree char *html_name = g_strdup_printf ("quick-%s.html", langs[l]);
      g_autofree char *pdf = write_report ("quick-run.json", langs[l], pdf_name, NULL);
      g_autofree char *html = write_report ("quick-run.json", langs[l], html_name, NULL);
      const char *argv[] = { "pdftotext", "-layout", pdf, "-", NULL };
      g_autofree char *text = run_tool (argv, NULL);
      g_autofree char *shown = html_visible_text (html);
      g_autofree char *rt = NULL;
      const char *start, *end;

      if (text == NULL)
        {
          g_test_skip ("pdftotext (poppler-utils) is not installed");
          return;
        }
      assert_no_raw_key ("the PDF", text, keys);
      assert_no_raw_key ("the HTML", shown, keys);
      for (const char *const *t = (const char *const[]) { text, shown, NULL }; *t != NULL; t++)
        {
          g_assert_nonnull (strstr (*t, "256 MiB"));   /* vm_bytes "256M" */
          g_assert_nonnull (strstr (*t, "128 MiB"));   /* hdd_bytes "128M" */
          g_assert_null (strstr (*t, "268435456"));
          g_assert_true (g_regex_match_simple ("[0-9.]+ MiB", *t, 0, 0));
        }
      /* The real-time section (from its heading to the next test's): its durations read 1 s. */
      start = strstr (shown, "1. ");
      g_assert_nonnull (start);
      end = strstr (start, "2. ");
      g_assert_nonnull (end);
      rt = g_strndup (start, end - start);
      g_assert_true (g_regex_match_simple ("\\s1(\\.0[0-9]*)? s\\b", rt, 0, 0));
      g_assert_false (g_regex_match_simple ("\\s0 s\\b", rt, 0, 0));
    }
}

/* One printed form of each figure (issue #29 item 8): an average of 9396.4 µs reads "9396 µs" in
 * the PDF and the HTML — the form qf_format_value gives the results page and `qualify-cli run`
 * (through qf_verdict_format_value) — never "9400 µs"; its limit reads "≤ 32 µs", and a
 * percentage "0 %", the same spacing everywhere. */
static void
test_figures_one_format (void)
{
  g_autofree char *text = edited_session ("fail.json", 9396.4, "fail", TRUE, TRUE);
  g_autofree char *pdf = tmp_path ("one-format.pdf"), *html = tmp_path ("one-format.html");
  g_autofree char *screen = qf_verdict_format_value (9396.4, "µs");
  g_autofree char *value = qf_format_value (9396.4, "µs");
  g_autofree char *limit = qf_format_limit ("<=", 32, "µs");
  g_autofree char *loss = qf_format_limit ("<=", 0, "%");
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_data (text, -1, &error);
  const char *argv[] = { "pdftotext", "-layout", pdf, "-", NULL };
  g_autofree char *pdf_text = NULL, *shown = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "9396 µs");
  g_assert_cmpstr (screen, ==, value);
  g_assert_cmpstr (limit, ==, "≤ 32 µs");
  g_assert_cmpstr (loss, ==, "≤ 0 %");
  g_assert_true (qf_report_write_pdf (report, pdf, NULL, &error));
  g_assert_true (qf_report_write_html (report, html, NULL, &error));
  g_assert_no_error (error);
  shown = html_visible_text (html);
  g_assert_nonnull (strstr (shown, value));
  g_assert_null (strstr (shown, "9400"));
  g_assert_nonnull (strstr (shown, limit));
  g_assert_nonnull (strstr (shown, loss));
  /* The PDF: the same digits. pdftotext joins a narrow word to the next one whatever the gap
   * ("≤0%" for the "≤ 0 %" laid out with a space), so spacing is compared without spaces. */
  pdf_text = run_tool (argv, NULL);
  if (pdf_text == NULL)
    {
      g_test_skip ("pdftotext (poppler-utils) is not installed");
      return;
    }
  g_assert_nonnull (strstr (pdf_text, value));
  g_assert_null (strstr (pdf_text, "9400"));
  {
    g_autoptr(GRegex) blanks = g_regex_new ("\\s+", 0, 0, NULL);
    g_autofree char *packed = g_regex_replace_literal (blanks, pdf_text, -1, 0, "", 0, NULL);
    g_autofree char *packed_loss = g_regex_replace_literal (blanks, loss, -1, 0, "", 0, NULL);
    g_autofree char *packed_limit = g_regex_replace_literal (blanks, limit, -1, 0, "", 0, NULL);

    g_assert_nonnull (strstr (packed, packed_limit));
    g_assert_nonnull (strstr (packed, packed_loss));
  }
}

static void
test_chinese_report (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autofree char *pdf = write_report ("fail.json", "zh_CN", "zh.pdf", signer);
  g_autofree char *html = write_report ("fail.json", "zh_CN", "zh.html", signer);
  const char *argv[] = { "pdftotext", "-layout", pdf, "-", NULL };
  g_autofree char *text = run_tool (argv, NULL);
  g_autofree char *page = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) r = NULL;

  g_assert_true (g_file_get_contents (html, &page, NULL, NULL));
  g_assert_nonnull (strstr (page, "lang=\"zh-CN\""));
  g_assert_nonnull (strstr (page, "验收报告"));
  g_assert_nonnull (strstr (page, "不合格"));
  g_assert_nonnull (strstr (page, "被测试机"));
  r = qf_verify_file (html, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (qf_verify_result_ok (r));
  if (text == NULL)
    {
      g_test_skip ("pdftotext (poppler-utils) is not installed");
      return;
    }
  g_assert_nonnull (strstr (text, "验收报告"));
  g_assert_nonnull (strstr (text, "不合格"));
  g_assert_nonnull (strstr (text, "测试人员"));
  g_clear_pointer (&r, qf_verify_result_free);
  r = qf_verify_file (pdf, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (r->contents_match);
  g_assert_true (qf_verify_result_ok (r));
}

/* A read-only folder: the subprocess drops root (root writes anywhere) and must fail cleanly. */
static void
test_read_only_folder (void)
{
  g_autofree char *dir = tmp_path ("read-only");
  g_autoptr(GDir) listing = NULL;

  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *path = g_build_filename (dir, "report.pdf", NULL);
      g_autofree char *session = fixture ("pass.json");
      g_autoptr(QfReport) report = qf_report_new_from_path (session, &error);

      g_assert_no_error (error);
      if (getuid () == 0 && (setgid (65534) != 0 || setuid (65534) != 0))
        g_error ("cannot drop root: %s", g_strerror (errno));
      g_assert_false (qf_report_write_pdf (report, path, NULL, &error));
      g_assert_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_WRITE);
      g_assert_nonnull (strstr (error->message, dir));
      g_printerr ("%s\n", error->message);
      return;
    }
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (tmpdir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (dir, 0555), ==, 0);
  g_test_trap_subprocess (NULL, 0, 0);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*Cannot write the report*");
  listing = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (listing);
  g_assert_null (g_dir_read_name (listing));
  g_chmod (dir, 0755);
}

/* Certificates */

static void
test_cert_store_modes (void)
{
  g_autoptr(QfSigner) signer = test_signer ();
  g_autoptr(QfSigner) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = qf_cert_get_store_dir ();
  g_autofree char *key = g_build_filename (dir, "signer-key.pem", NULL);
  g_autofree char *a = NULL, *b = NULL;
  g_autoptr(JsonObject) info = NULL;
  struct stat st;

  g_assert_true (g_str_has_prefix (dir, tmpdir));
  g_assert_true (qf_signer_save_default (signer, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  g_assert_cmpint (g_stat (key, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  loaded = qf_signer_load_default (&error);
  g_assert_no_error (error);
  a = qf_signer_get_subject (signer);
  b = qf_signer_get_subject (loaded);
  g_assert_cmpstr (a, ==, b);
  info = qf_signer_describe (loaded);
  /* The signing certificate and the personal root that issued it. */
  g_assert_false (json_object_get_boolean_member (info, "self_signed"));
  g_assert_cmpint (json_object_get_int_member (info, "chain_length"), ==, 2);
  g_assert_nonnull (strstr (json_object_get_string_member (info, "anchor_subject"), "Qualify signing root"));
  g_assert_nonnull (strstr (json_object_get_string_member (info, "key_algorithm"), "EC"));
}

static void
test_cert_pkcs12_and_mismatch (void)
{
  g_autofree char *key = tmp_path ("k.pem"), *crt = tmp_path ("c.pem"), *tmpl = tmp_path ("t.tmpl");
  g_autofree char *key2 = tmp_path ("k2.pem"), *p12 = tmp_path ("c.p12");
  const char *gen[] = { "certtool", "--generate-privkey", "--key-type=ecdsa", "--outfile", key, NULL };
  const char *gen2[] = { "certtool", "--generate-privkey", "--key-type=ecdsa", "--outfile", key2, NULL };
  const char *self[] = { "certtool", "--generate-self-signed", "--load-privkey", key, "--template", tmpl,
                         "--outfile", crt, NULL };
  const char *pack[] = { "certtool", "--to-p12", "--load-privkey", key, "--load-certificate", crt,
                         "--p12-name", "qualify", "--password", "s3cret", "--outder", "--outfile", p12, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSigner) pem = NULL, pk = NULL, wrong = NULL, mismatch = NULL;
  int status = -1;

  out = run_tool (gen, &status);
  if (out == NULL)
    {
      g_test_skip ("certtool (gnutls-bin) is not installed");
      return;
    }
  g_assert_cmpint (status, ==, 0);
  g_free (run_tool (gen2, &status));
  g_assert_true (g_file_set_contents (tmpl, "cn = \"Company Signer\"\norganization = \"Acme\"\nserial = 7\n"
                                            "expiration_days = 30\nsigning_key\nemail_protection_key\n", -1, NULL));
  g_free (run_tool (self, &status));
  g_assert_cmpint (status, ==, 0);
  g_free (run_tool (pack, &status));
  g_assert_cmpint (status, ==, 0);

  pem = qf_signer_load_pem (crt, key, &error);
  g_assert_no_error (error);
  pk = qf_signer_load_pkcs12 (p12, "s3cret", &error);
  g_assert_no_error (error);
  {
    g_autofree char *a = qf_signer_get_subject (pem), *b = qf_signer_get_subject (pk);
    g_assert_cmpstr (a, ==, b);
    g_assert_nonnull (strstr (a, "Company Signer"));
  }
  wrong = qf_signer_load_pkcs12 (p12, "guess", &error);
  g_assert_null (wrong);
  g_assert_error (error, QF_CERT_ERROR, QF_CERT_ERROR_PASSWORD);
  g_clear_error (&error);
  mismatch = qf_signer_load_pem (crt, key2, &error);
  g_assert_null (mismatch);
  g_assert_error (error, QF_CERT_ERROR, QF_CERT_ERROR_MISMATCH);
}

/* Whether label (an axis title) names unit as its data's: "Load (%)" for "%"; a ratio ("")
 * names none. */
static gboolean
axis_names_unit (const char *label,
                 const char *unit)
{
  g_autofree char *wanted = g_strdup_printf ("(%s)", unit);

  if (label == NULL)
    return FALSE;
  if (unit == NULL || *unit == '\0')
    return strchr (label, '(') == NULL;
  return g_str_has_suffix (label, wanted);
}

/* Counts the criteria (objects with "metric") under node stating metric, failing when one
 * states it in another unit than unit. */
static guint
check_criteria_unit (JsonNode   *node,
                     const char *metric,
                     const char *unit,
                     const char *where)
{
  guint found = 0;

  if (JSON_NODE_HOLDS_ARRAY (node))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
      found += check_criteria_unit (json_array_get_element (json_node_get_array (node), i), metric, unit, where);
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (o);

      if (g_strcmp0 (qf_json_get_string (o, "metric", NULL), metric) == 0)
        {
          const char *stated = qf_json_get_string (o, "unit", "");
          if (g_strcmp0 (stated, unit) != 0)
            g_error ("%s draws %s as a limit in “%s”, but a profile states it in “%s”", where,
                     metric, unit, stated);
          return 1;
        }
      for (GList *m = members; m != NULL; m = m->next)
        found += check_criteria_unit (json_object_get_member (o, m->data), metric, unit, where);
    }
  return found;
}

/* Every profile's criteria state metric in unit: a limit drawn on an axis must be in the axis's
 * unit. */
static void
assert_metric_unit (const char *metric,
                    const char *unit,
                    const char *where)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "..", "data", "profiles", NULL);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint found = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();

      if (g_str_has_suffix (name, ".json") && json_parser_load_from_file (parser, path, NULL))
        found += check_criteria_unit (json_parser_get_root (parser), metric, unit, where);
    }
  g_assert_cmpuint (found, >, 0);
}

/* Every step's plot and charts name their data's unit on the axis and draw only limits in it,
 * and every figure the report draws of the stored sessions labels its value axis with the unit
 * of the values drawn (issue #33: the stress figure was labelled "Latency (µs)"). */
static void
test_figure_units (void)
{
  const char *sessions[] = { "pass.json", "fail.json", "quick-run.json" };
  guint figures = 0;

  for (const QfStepInfo *const *info = qf_step_list (); *info != NULL; info++)
    {
      const QfStepPlot *plot = &(*info)->plot;

      if (plot->unit != NULL && !axis_names_unit (plot->axis, plot->unit))
        g_error ("step %s: live plot axis “%s” is not in its unit “%s”", (*info)->id, plot->axis, plot->unit);
      for (guint i = 0; plot->limit_metrics != NULL && plot->limit_metrics[i] != NULL; i++)
        assert_metric_unit (plot->limit_metrics[i], plot->unit, (*info)->id);
      for (const QfStepChart *c = (*info)->charts; c != NULL && c->axis != NULL; c++)
        {
          if (!axis_names_unit (c->axis, c->unit))
            g_error ("step %s: chart axis “%s” is not in its unit “%s”", (*info)->id, c->axis, c->unit);
          for (guint i = 0; c->limit_metrics != NULL && c->limit_metrics[i] != NULL; i++)
            assert_metric_unit (c->limit_metrics[i], c->unit, (*info)->id);
        }
    }

  for (guint s = 0; s < G_N_ELEMENTS (sessions); s++)
    {
      g_autofree char *path = fixture (sessions[s]);
      g_autoptr(GError) error = NULL;
      g_autoptr(QfReport) report = qf_report_new_from_path (path, &error);

      g_assert_no_error (error);
      _qf_report_build (report);
      for (guint i = 0; i < report->blocks->len; i++)
        {
          QfBlock *b = g_ptr_array_index (report->blocks, i);
          const char *axis;

          if (b->kind != QF_BLOCK_FIGURE || b->figure == QF_FIGURE_SPIKE_TIMELINE)
            continue;
          axis = b->figure == QF_FIGURE_HISTOGRAM ? b->x_label : b->y_label;
          g_assert_nonnull (b->data_unit);
          if (!axis_names_unit (axis, b->data_unit))
            g_error ("%s: figure “%s” labels its axis “%s”, but its values are in “%s”", sessions[s],
                     b->fig_title, axis, b->data_unit);
          figures++;
        }
    }
  g_assert_cmpuint (figures, >=, 17);
}

/* The stress and bandwidth figures of a real quick run are the steps' own (issue #33): the
 * monitor's CPU busy, I/O wait and each disk in %, the load average per CPU on an axis of its
 * own, each against the criteria in its unit; bandwidth in both directions draws each direction
 * (the intervals' up_mbps and down_mbps, not their sum) against both limits. */
static void
test_step_charts (void)
{
  g_autofree char *path = fixture ("quick-run.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(QfReport) report = qf_report_new_from_path (path, &error);
  guint stress = 0, bandwidth = 0;

  g_assert_no_error (error);
  _qf_report_build (report);
  for (guint i = 0; i < report->blocks->len; i++)
    {
      QfBlock *b = g_ptr_array_index (report->blocks, i);
      g_autoptr(GPtrArray) lines = NULL;
      const char *test = b->kind == QF_BLOCK_FIGURE ? qf_json_get_string (b->result, "test", "") : "";

      if (!g_str_equal (test, "stress") && !g_str_equal (test, "bandwidth"))
        continue;
      g_assert_nonnull (b->chart);
      lines = qf_step_chart_read (b->chart, b->result);
      if (g_str_equal (test, "stress") && stress++ == 0)
        {
          JsonArray *samples = json_node_get_array (qf_json_get_path (b->result, "monitor.samples"));
          QfStepLineData *busy = g_ptr_array_index (lines, 0), *disk = g_ptr_array_index (lines, 2);

          g_assert_cmpstr (b->y_label, ==, "Load (%)");
          g_assert_cmpuint (lines->len, ==, 3);
          g_assert_cmpstr (busy->label, ==, "CPU busy");
          g_assert_cmpstr (disk->name, ==, "vda");
          g_assert_cmpuint (busy->values->len, ==, json_array_get_length (samples));
          g_assert_cmpfloat (g_array_index (disk->values, gdouble, 0), ==, 30.65);
          g_assert_cmpuint (b->n_limits, ==, 2);   /* I/O wait ≤ 30 %, disk ≤ 95 % */
        }
      else if (g_str_equal (test, "stress"))
        {
          QfStepLineData *load = g_ptr_array_index (lines, 0);

          g_assert_cmpstr (b->y_label, ==, "Load average per CPU");
          g_assert_cmpuint (lines->len, ==, 1);
          g_assert_cmpfloat_with_epsilon (g_array_index (load->values, gdouble, 0), 8.84 / 2, 1e-9);
          g_assert_cmpuint (b->n_limits, ==, 1);
          g_assert_cmpfloat (b->limits[0].value, ==, 1.0);
        }
      else if (bandwidth++ == 0)
        {
          QfStepLineData *up = g_ptr_array_index (lines, 0), *down = g_ptr_array_index (lines, 1);

          g_assert_cmpuint (lines->len, ==, 2);
          g_assert_cmpstr (up->label, ==, "PC to helper");
          g_assert_cmpfloat (g_array_index (up->values, gdouble, 0), ==, 4478.922);
          g_assert_cmpfloat (g_array_index (down->values, gdouble, 0), ==, 5670.031);
          g_assert_cmpuint (b->n_limits, ==, 2);
        }
      else
        {
          /* one direction: its rate, the only line, unlabelled as before */
          QfStepLineData *rate = g_ptr_array_index (lines, 0);

          g_assert_cmpuint (lines->len, ==, 1);
          g_assert_null (rate->label);
          g_assert_cmpfloat (g_array_index (rate->values, gdouble, 0), ==, 7682.293);
        }
    }
  g_assert_cmpuint (stress, ==, 2);
  g_assert_cmpuint (bandwidth, ==, 2);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int ret;

  /* Before anything asks GLib for the user's data folder: keys go to a temporary one, which
   * the subprocess of a trap reuses (it inherits the variable). */
  gboolean own_tmpdir = FALSE;

  if (g_getenv ("QF_REPORT_TEST_TMPDIR") != NULL)
    tmpdir = g_strdup (g_getenv ("QF_REPORT_TEST_TMPDIR"));
  else
    {
      tmpdir = g_dir_make_tmp ("qf-report-test-XXXXXX", &error);
      g_assert_no_error (error);
      g_setenv ("QF_REPORT_TEST_TMPDIR", tmpdir, TRUE);
      own_tmpdir = TRUE;
    }
  {
    g_autofree char *data = g_build_filename (tmpdir, "data", NULL);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/plot/format-value", test_plot_format);
  g_test_add_func ("/core/report/figures-one-format", test_figures_one_format);
  g_test_add_func ("/core/plot/time-series-keeps-spikes", test_plot_time_series_keeps_spikes);
  g_test_add_func ("/core/plot/time-series-window", test_plot_time_series_window);
  g_test_add_func ("/core/plot/histogram-from-result", test_plot_histogram_from_result);
  g_test_add_func ("/core/plot/series-scale", test_plot_series_scale);
  g_test_add_func ("/core/plot/series-edge-marker", test_plot_series_edge_marker);
  g_test_add_func ("/core/report/rejects-non-session", test_report_rejects_non_session);
  g_test_add_func ("/core/report/pdf-text", test_pdf_text);
  g_test_add_func ("/core/report/pdf-renders-fonts-embedded", test_pdf_renders_and_embeds_fonts);
  g_test_add_func ("/core/report/pdf-session-attachment", test_pdf_has_session_attachment);
  g_test_add_func ("/core/report/pdf-signed-and-tampered", test_pdf_signed_and_tampered);
  g_test_add_func ("/core/report/pdf-update-after-xref-stream", test_pdf_update_after_xref_stream);
  g_test_add_func ("/core/report/pdf-object-stream-loop", test_pdf_object_stream_loop);
  g_test_add_func ("/core/report/pdf-bad-xref-index", test_pdf_bad_xref_index);
  g_test_add_func ("/core/report/pdfsig-trusts-imported-root", test_pdfsig_trusts_imported_root);
  g_test_add_func ("/core/report/pdf-visible-signature", test_pdf_visible_signature);
  g_test_add_func ("/core/report/pdf-visible-signature-checked", test_pdf_visible_signature_checked);
  g_test_add_func ("/core/report/html-signed-and-tampered", test_html_signed_and_tampered);
  g_test_add_func ("/core/verify/html-signature-only-where-written", test_html_signature_only_where_written);
  g_test_add_func ("/core/report/refuses-edited-verdicts", test_report_refuses_edited_verdicts);
  g_test_add_func ("/core/verify/judges-embedded-session", test_verify_judges_embedded_session);
  g_test_add_func ("/core/report/chinese", test_chinese_report);
  g_test_add_func ("/core/report/figures-readable", test_figures_readable);
  g_test_add_func ("/core/report/user-names-isolated-and-wrapped", test_user_names_isolated_and_wrapped);
  g_test_add_func ("/core/report/read-only-folder", test_read_only_folder);
  g_test_add_func ("/core/report/network-readiness-table", test_network_readiness_table);
  g_test_add_func ("/core/report/network-readiness-absent", test_network_readiness_absent);
  g_test_add_func ("/core/report/virtual-machine-note", test_virtual_machine_note);
  g_test_add_func ("/core/report/figure-units", test_figure_units);
  g_test_add_func ("/core/report/step-charts", test_step_charts);
  g_test_add_func ("/core/verify/trust", test_verify_trust);
  g_test_add_func ("/core/verify/not-a-report", test_verify_not_a_report);
  g_test_add_func ("/core/cert/store-modes", test_cert_store_modes);
  g_test_add_func ("/core/cert/pkcs12-and-mismatch", test_cert_pkcs12_and_mismatch);

  ret = g_test_run ();
  if (own_tmpdir)
    {
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
      g_chmod (tmpdir, 0700);
      if (system (cmd) != 0)
        g_printerr ("could not remove %s\n", tmpdir);
    }
  return ret;
}
