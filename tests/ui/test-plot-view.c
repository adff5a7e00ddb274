/* test-plot-view.c — the live plot widget with 10 million samples (tests/ui).
 *
 * A synthetic latency run (10 M samples, two channels, a long tail) goes through the widget's
 * queue into its histogram and time series and is drawn through qf-plot on an image surface.
 * The test asserts only that it drew without error and that ink reached the surface; with
 * --bench it prints the frame times instead (bench/gui reads them), because speed depends on
 * the machine. A finished stress test's result is drawn as the step's chart (issue #33). */
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "qf-json.h"
#include "qf-plot-view.h"
#include "qf-steps.h"

#define N_SAMPLES 10000000

static gboolean bench;

static void
feed (QfPlotView *view)
{
  g_autofree QfSample *batch = g_new (QfSample, 100000);
  guint32 seed = 12345;

  /* the runner hands over samples in batches; so do we */
  for (guint done = 0; done < N_SAMPLES; done += 100000)
    {
      for (guint i = 0; i < 100000; i++)
        {
          guint64 n = done + i;
          gint64 latency_ns;

          seed = seed * 1664525u + 1013904223u;
          latency_ns = 20000 + (seed >> 16) % 40000;       /* 20–60 µs */
          if (seed % 100000 == 0)
            latency_ns = 2000000 + (seed >> 8) % 6000000;  /* rare spikes of 2–8 ms */
          batch[i] = (QfSample) { .t_ns = 1000000000 + (gint64) n * 1000000, .value_ns = latency_ns,
                                  .channel = n % 2, .flags = 0 };
        }
      qf_plot_view_add_samples (view, batch, 100000);
    }
}

static gdouble
draw_ms (QfPlotView *view,
         cairo_t    *cr)
{
  gint64 start = g_get_monotonic_time ();

  cairo_save (cr);
  qf_plot_view_draw (view, cr, 960, 240);
  cairo_restore (cr);
  return (g_get_monotonic_time () - start) / 1000.0;
}

static void
check_plot (QfPlotViewKind kind)
{
  g_autoptr(GtkWidget) view = g_object_ref_sink (qf_plot_view_new (kind, "plot"));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 960, 240);
  cairo_t *cr = cairo_create (surface);
  const QfPlotLimit limits[] = { { "Avg limit 32 µs", 32 }, { "Max limit 2335 µs", 2335 } };
  gint64 start;
  gdouble fold_ms, first_ms, best_ms = G_MAXDOUBLE, sum_ms = 0;
  const guint8 *data;
  gboolean ink = FALSE;

  qf_plot_view_reset (QF_PLOT_VIEW (view), 1000, "Latency (µs)", FALSE, limits, G_N_ELEMENTS (limits));
  qf_plot_view_set_max (QF_PLOT_VIEW (view), 7999.0);
  feed (QF_PLOT_VIEW (view));
  start = g_get_monotonic_time ();
  qf_plot_view_flush (QF_PLOT_VIEW (view));
  fold_ms = (g_get_monotonic_time () - start) / 1000.0;

  first_ms = draw_ms (QF_PLOT_VIEW (view), cr);
  for (guint i = 0; i < 20; i++)
    {
      gdouble ms = draw_ms (QF_PLOT_VIEW (view), cr);

      best_ms = MIN (best_ms, ms);
      sum_ms += ms;
    }
  /* the presenters' fixed scale draws too */
  qf_plot_view_set_fixed_scale (QF_PLOT_VIEW (view), TRUE);
  draw_ms (QF_PLOT_VIEW (view), cr);
  qf_plot_view_set_fixed_scale (QF_PLOT_VIEW (view), FALSE);
  cairo_surface_flush (surface);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  data = cairo_image_surface_get_data (surface);
  for (gsize i = 0; i < 960 * 240 * 4 && !ink; i += 4)
    ink = data[i] != data[0] || data[i + 1] != data[1] || data[i + 2] != data[2];
  g_assert_true (ink);
  if (bench)
    g_print ("%s: 10000000 samples, fold %.1f ms, first frame %.2f ms, frame best %.2f ms, mean %.2f ms\n",
             kind == QF_PLOT_VIEW_HISTOGRAM ? "histogram" : "time-series", fold_ms, first_ms, best_ms,
             sum_ms / 20);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
test_histogram (void)
{
  check_plot (QF_PLOT_VIEW_HISTOGRAM);
}

static void
test_time_series (void)
{
  check_plot (QF_PLOT_VIEW_TIME_SERIES);
}

/* The stress step's result of a real quick run, drawn by a time-series view with and without
 * the step's chart; returns the surface (the caller destroys it). */
static cairo_surface_t *
draw_result (JsonObject        *result,
             const QfStepChart *chart)
{
  g_autoptr(GtkWidget) view = g_object_ref_sink (qf_plot_view_new (QF_PLOT_VIEW_TIME_SERIES, "plot"));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 480, 200);
  cairo_t *cr = cairo_create (surface);

  qf_plot_view_reset (QF_PLOT_VIEW (view), 1000, "Load (%)", FALSE, NULL, 0);
  qf_plot_view_set_result (QF_PLOT_VIEW (view), result, chart);
  qf_plot_view_draw (QF_PLOT_VIEW (view), cr, 480, 200);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* The run page keeps a finished stress test's picture as the step's first chart: the monitor's
 * percentages, not the live plot's empty frame (its result has no series qf-plot would guess). */
static void
test_step_chart (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "core", "fixtures", "sessions", "quick-run.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *steps;
  JsonObject *result = NULL;
  cairo_surface_t *guessed, *charted;

  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  steps = qf_json_get_array (json_node_get_object (json_parser_get_root (parser)), "steps");
  for (guint i = 0; i < json_array_get_length (steps) && result == NULL; i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      if (g_str_equal (qf_json_get_string (step, "test", ""), "stress"))
        result = qf_json_get_object (step, "result");
    }
  g_assert_nonnull (result);
  g_assert_nonnull (qf_step_stress.charts);
  guessed = draw_result (result, NULL);
  charted = draw_result (result, &qf_step_stress.charts[0]);
  g_assert_true (memcmp (cairo_image_surface_get_data (guessed), cairo_image_surface_get_data (charted),
                         (gsize) cairo_image_surface_get_stride (charted) * 200) != 0);
  cairo_surface_destroy (guessed);
  cairo_surface_destroy (charted);
}

int
main (int   argc,
      char *argv[])
{
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--bench") == 0)
      bench = TRUE, argv[i] = (char *) "";
  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check ())
    {
      g_print ("1..0 # SKIP no display: run under xvfb-run -a dbus-run-session --\n");
      return 0;
    }
  adw_init ();
  g_test_add_func ("/ui/plot-view/histogram-10M", test_histogram);
  g_test_add_func ("/ui/plot-view/time-series-10M", test_time_series);
  g_test_add_func ("/ui/plot-view/step-chart", test_step_chart);
  return g_test_run ();
}
