/* qf-plot-view.c — a live plot (src/ui). Samples queue up as the runner delivers them; a frame
 * clock tick callback folds the queue into the display data (a histogram of 1-unit buckets per
 * channel, or per-channel time series) and redraws at most once per frame. Painting is the
 * core's qf_plot_histogram / qf_plot_time_series, so the screen shows what the report shows;
 * the time series are decimated per pixel column there, so 10 million samples cost no more than
 * a few thousand. Nothing here computes a figure: the marked maximum and the text summary are
 * the engine's, handed in by the run page. */
#include "config.h"

#include <adwaita.h>
#include <math.h>

#include "qf-i18n.h"
#include "qf-plot-view.h"

#define MAX_CHANNELS   8
#define MAX_BUCKETS    100000   /* display buckets; beyond them samples count as overflow */
#define KEEP_SECONDS   62.0     /* time series kept for the scrolling 60 s view */

typedef struct
{
  GArray  *counts;   /* guint64 */
  guint64  overflow;
  GArray  *t_s;      /* gdouble */
  GArray  *values;   /* gdouble */
  char    *label;
} Channel;

struct _QfPlotView
{
  GtkWidget       parent_instance;

  QfPlotViewKind  kind;
  gdouble         unit_ns;
  gdouble         bucket_ns;     /* histogram bucket width (default: one unit) */
  char           *axis_label;
  gboolean        area;
  QfPlotLimit    *limits;
  guint           n_limits;
  gboolean        fixed;
  gdouble         max_value;

  Channel         channels[MAX_CHANNELS];
  guint           n_channels;
  gint64          t0_ns;
  GArray         *pending;       /* QfSample queued since the last frame */
  guint           tick_id;
  JsonObject     *result;
  const QfStepChart *chart;   /* the step's chart drawing result, or NULL */
  char           *summary;
  guint64         n_plotted;     /* samples folded in since the last reset */
  guint64         n_described;   /* n_plotted as last told to assistive technologies */
  gint64          described_us;
  GStrv           channel_names;
};

G_DEFINE_FINAL_TYPE (QfPlotView, qf_plot_view, GTK_TYPE_WIDGET)

static void
channels_clear (QfPlotView *self)
{
  for (guint i = 0; i < self->n_channels; i++)
    {
      g_clear_pointer (&self->channels[i].counts, g_array_unref);
      g_clear_pointer (&self->channels[i].t_s, g_array_unref);
      g_clear_pointer (&self->channels[i].values, g_array_unref);
      g_clear_pointer (&self->channels[i].label, g_free);
      self->channels[i].overflow = 0;
    }
  self->n_channels = 0;
  self->t0_ns = 0;
}

static void
limits_clear (QfPlotView *self)
{
  for (guint i = 0; i < self->n_limits; i++)
    g_free ((char *) self->limits[i].label);
  g_clear_pointer (&self->limits, g_free);
  self->n_limits = 0;
}

static Channel *
channel (QfPlotView *self,
         guint32     index)
{
  index = MIN (index, MAX_CHANNELS - 1);
  while (self->n_channels <= index)
    {
      Channel *c = &self->channels[self->n_channels];

      c->counts = g_array_new (FALSE, TRUE, sizeof (guint64));
      c->t_s = g_array_new (FALSE, FALSE, sizeof (gdouble));
      c->values = g_array_new (FALSE, FALSE, sizeof (gdouble));
      if (self->channel_names != NULL && self->n_channels < g_strv_length (self->channel_names))
        c->label = g_strdup (self->channel_names[self->n_channels]);
      else
        c->label = g_strdup_printf (_("Channel %u"), self->n_channels);
      self->n_channels++;
    }
  return &self->channels[index];
}

void
qf_plot_view_flush (QfPlotView *self)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));

  for (guint i = 0; i < self->pending->len; i++)
    {
      const QfSample *s = &g_array_index (self->pending, QfSample, i);
      Channel *c = channel (self, s->channel);
      gdouble value = s->value_ns / self->unit_ns;
      gdouble t_s;

      if (self->t0_ns == 0)
        self->t0_ns = s->t_ns;
      t_s = (s->t_ns - self->t0_ns) / 1e9;
      if (self->kind == QF_PLOT_VIEW_HISTOGRAM)
        {
          gint64 bucket = s->value_ns < 0 ? 0 : (gint64) (s->value_ns / self->bucket_ns);

          if (bucket >= MAX_BUCKETS)
            c->overflow++;
          else
            {
              if ((guint) bucket >= c->counts->len)
                g_array_set_size (c->counts, bucket + 1);
              g_array_index (c->counts, guint64, bucket)++;
            }
        }
      else
        {
          g_array_append_val (c->t_s, t_s);
          g_array_append_val (c->values, value);
        }
    }
  self->n_plotted += self->pending->len;
  g_array_set_size (self->pending, 0);

  /* The screen scrolls through the last 60 s: keep only those (and at most an eighth more
   * before moving memory), so a frame stays a few milliseconds however long the run. The report
   * draws every sample from the session. */
  for (guint i = 0; self->kind == QF_PLOT_VIEW_TIME_SERIES && i < self->n_channels; i++)
    {
      Channel *c = &self->channels[i];
      gdouble newest, *t;
      guint lo = 0, hi;

      if (c->t_s->len == 0)
        continue;
      t = (gdouble *) c->t_s->data;
      newest = t[c->t_s->len - 1];
      hi = c->t_s->len;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (t[mid] < newest - KEEP_SECONDS)
            lo = mid + 1;
          else
            hi = mid;
        }
      /* move memory only when a good part is stale */
      if (lo > 1024 && lo > c->t_s->len / 8)
        {
          g_array_remove_range (c->t_s, 0, lo);
          g_array_remove_range (c->values, 0, lo);
        }
    }
}

/* The text alternative: the engine's figures handed in by the page, and how many samples the
 * picture holds (told at most twice a second). */
static void
describe (QfPlotView *self)
{
  g_autofree char *text = NULL;

  if (self->n_plotted == self->n_described && self->n_plotted > 0)
    return;
  self->n_described = self->n_plotted;
  self->described_us = g_get_monotonic_time ();
  if (self->n_plotted > 0)
    text = g_strdup_printf (qf_ngettext ("%s (%llu sample plotted)", "%s (%llu samples plotted)",
                                         self->n_plotted),
                            self->summary ? self->summary : "", (unsigned long long) self->n_plotted);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  text ? text : self->summary ? self->summary : "", -1);
}

/* Frame clock: fold the queued samples in and redraw once. */
static gboolean
tick (GtkWidget     *widget,
      GdkFrameClock *clock,
      gpointer       user_data)
{
  QfPlotView *self = QF_PLOT_VIEW (widget);

  qf_plot_view_flush (self);
  if (g_get_monotonic_time () - self->described_us > 500000)
    describe (self);
  gtk_widget_queue_draw (widget);
  /* idle plots must not keep the frame clock (and the CPU) busy: added again by new samples */
  self->tick_id = 0;
  return G_SOURCE_REMOVE;
}

static gdouble
largest_limit (QfPlotView *self,
               gdouble     fallback)
{
  gdouble largest = 0;

  for (guint i = 0; i < self->n_limits; i++)
    largest = MAX (largest, self->limits[i].value);
  return largest > 0 ? largest : fallback;
}

void
qf_plot_view_draw (QfPlotView *self,
                   cairo_t    *cr,
                   gdouble     width,
                   gdouble     height)
{
  QfPlotOptions options;
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  qf_plot_options_init (&options);
  options.dark = dark;
  options.font_size = 11;
  options.legend = self->n_channels > 1;
  options.window_s = 60;

  if (self->result != NULL)
    {
      gboolean drawn;

      if (self->kind == QF_PLOT_VIEW_HISTOGRAM)
        drawn = qf_plot_result_histogram (cr, width, height, &options, self->result, self->limits, self->n_limits);
      else if (self->chart != NULL)
        drawn = qf_plot_result_chart (cr, width, height, &options, self->chart, self->result, NULL, NULL,
                                      self->limits, self->n_limits);
      else
        drawn = qf_plot_result_time_series (cr, width, height, &options, self->result, self->limits, self->n_limits);
      if (drawn)
        return;
    }

  if (self->kind == QF_PLOT_VIEW_HISTOGRAM)
    {
      QfPlotHistogram histograms[MAX_CHANNELS];

      options.x_label = self->axis_label;
      options.y_label = _("Samples");
      if (self->fixed)
        {
          /* still axes: up to a quarter past the largest limit (the profile's, so two runs
           * against the same profile share the scale) */
          options.fixed_scale = TRUE;
          options.x_min = 0, options.x_max = largest_limit (self, 200) * 1.25;
          options.y_min = 1, options.y_max = 1e7;
        }
      for (guint i = 0; i < self->n_channels; i++)
        histograms[i] = (QfPlotHistogram) {
          .label = self->channels[i].label,
          .counts = (const guint64 *) self->channels[i].counts->data,
          .n_buckets = self->channels[i].counts->len,
          .bucket_width = self->bucket_ns / self->unit_ns,
          .overflow = self->channels[i].overflow,
          .max_value = i == 0 ? self->max_value : NAN,
        };
      qf_plot_histogram (cr, width, height, &options, histograms, self->n_channels,
                         self->limits, self->n_limits);
    }
  else
    {
      QfPlotSeries series[MAX_CHANNELS];

      options.x_label = _("Time (s)");
      options.y_label = self->axis_label;
      if (self->fixed)
        {
          gdouble newest = 0;

          /* the value axis stays still; time keeps scrolling through the last 60 s */
          for (guint i = 0; i < self->n_channels; i++)
            if (self->channels[i].t_s->len > 0)
              newest = MAX (newest, g_array_index (self->channels[i].t_s, gdouble, self->channels[i].t_s->len - 1));
          options.fixed_scale = TRUE;
          options.x_max = MAX (60, newest);
          options.x_min = options.x_max - 60;
          options.y_min = 0;
          options.y_max = largest_limit (self, 500) * 2;
        }
      for (guint i = 0; i < self->n_channels; i++)
        series[i] = (QfPlotSeries) {
          .label = self->channels[i].label,
          .t_s = (const gdouble *) self->channels[i].t_s->data,
          .values = (const gdouble *) self->channels[i].values->data,
          .n_values = self->channels[i].values->len,
          .area = self->area,
        };
      qf_plot_time_series (cr, width, height, &options, series, self->n_channels,
                           self->limits, self->n_limits);
    }
}

static void
qf_plot_view_snapshot (GtkWidget   *widget,
                       GtkSnapshot *snapshot)
{
  QfPlotView *self = QF_PLOT_VIEW (widget);
  gdouble width = gtk_widget_get_width (widget);
  gdouble height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (width < 1 || height < 1)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  qf_plot_view_draw (self, cr, width, height);
  cairo_destroy (cr);
}

static void
qf_plot_view_measure (GtkWidget      *widget,
                      GtkOrientation  orientation,
                      int             for_size,
                      int            *minimum,
                      int            *natural,
                      int            *minimum_baseline,
                      int            *natural_baseline)
{
  /* small enough for 1024×600 with two plots stacked */
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 110;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 480 : 180;
}

void
qf_plot_view_reset (QfPlotView        *self,
                    gdouble            unit_ns,
                    const char        *axis_label,
                    gboolean           area,
                    const QfPlotLimit *limits,
                    guint              n_limits)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  g_return_if_fail (unit_ns > 0);

  channels_clear (self);
  limits_clear (self);
  g_array_set_size (self->pending, 0);
  self->n_plotted = 0;
  g_clear_pointer (&self->result, json_object_unref);
  self->chart = NULL;
  self->unit_ns = unit_ns;
  self->bucket_ns = unit_ns;
  g_free (self->axis_label);
  self->axis_label = g_strdup (axis_label);
  self->area = area;
  self->max_value = NAN;
  self->limits = g_new0 (QfPlotLimit, MAX (n_limits, 1));
  for (guint i = 0; i < n_limits; i++)
    self->limits[i] = (QfPlotLimit) { g_strdup (limits[i].label), limits[i].value };
  self->n_limits = n_limits;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
qf_plot_view_set_bucket (QfPlotView *self,
                         gdouble     bucket_ns)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  g_return_if_fail (bucket_ns > 0);
  self->bucket_ns = bucket_ns;
}

void
qf_plot_view_set_channel_names (QfPlotView        *self,
                                const char *const *names)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  g_strfreev (self->channel_names);
  self->channel_names = g_strdupv ((GStrv) names);
}

void
qf_plot_view_add_samples (QfPlotView     *self,
                          const QfSample *samples,
                          guint           n)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  g_array_append_vals (self->pending, samples, n);
  if (self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), tick, NULL, NULL);
}

void
qf_plot_view_set_result (QfPlotView        *self,
                         JsonObject        *result,
                         const QfStepChart *chart)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  g_clear_pointer (&self->result, json_object_unref);
  self->chart = result != NULL ? chart : NULL;
  if (result != NULL)
    self->result = json_object_ref (result);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
qf_plot_view_set_max (QfPlotView *self,
                      gdouble     max_value)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  self->max_value = max_value;
}

void
qf_plot_view_set_summary (QfPlotView *self,
                          const char *summary)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  /* a few times a second: tell assistive technologies only about real changes */
  if (g_strcmp0 (summary, self->summary) == 0)
    return;
  g_free (self->summary);
  self->summary = g_strdup (summary);
  self->n_described = G_MAXUINT64;
  describe (self);
}

void
qf_plot_view_set_fixed_scale (QfPlotView *self,
                              gboolean    fixed)
{
  g_return_if_fail (QF_IS_PLOT_VIEW (self));
  self->fixed = fixed;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
qf_plot_view_dispose (GObject *object)
{
  QfPlotView *self = QF_PLOT_VIEW (object);

  if (self->tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
  self->tick_id = 0;
  G_OBJECT_CLASS (qf_plot_view_parent_class)->dispose (object);
}

static void
qf_plot_view_finalize (GObject *object)
{
  QfPlotView *self = QF_PLOT_VIEW (object);

  channels_clear (self);
  limits_clear (self);
  g_array_unref (self->pending);
  g_free (self->axis_label);
  g_free (self->summary);
  g_strfreev (self->channel_names);
  g_clear_pointer (&self->result, json_object_unref);
  G_OBJECT_CLASS (qf_plot_view_parent_class)->finalize (object);
}

static void
qf_plot_view_class_init (QfPlotViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_plot_view_dispose;
  object_class->finalize = qf_plot_view_finalize;
  widget_class->snapshot = qf_plot_view_snapshot;
  widget_class->measure = qf_plot_view_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
qf_plot_view_init (QfPlotView *self)
{
  self->pending = g_array_new (FALSE, FALSE, sizeof (QfSample));
  self->unit_ns = 1000;
  self->bucket_ns = 1000;
  self->max_value = NAN;
  self->limits = g_new0 (QfPlotLimit, 1);
  /* follow the system's dark style: the plot paints its own background */
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
}

GtkWidget *
qf_plot_view_new (QfPlotViewKind  kind,
                  const char     *name)
{
  QfPlotView *self = g_object_new (QF_TYPE_PLOT_VIEW, NULL);

  self->kind = kind;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  return GTK_WIDGET (self);
}
