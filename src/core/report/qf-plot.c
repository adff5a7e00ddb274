/* qf-plot.c — latency histograms and time series on any cairo_t (src/core).
 *
 * Shared by the wizard's live charts and the report's figures (see qf-plot.h). Data are decimated
 * to the device's pixel columns before anything is stroked, so drawing cost depends on the size
 * of the plot, not on the number of samples or buckets.
 */
#include "config.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-plot.h"
#include "qf-plot-private.h"
#include "qf-step.h"

#define DEFAULT_FONT "Noto Sans CJK SC, DejaVu Sans, Sans"
#define DEFAULT_FONT_SIZE 8.0
#define MAX_COLUMNS 4096


void
qf_plot_options_init (QfPlotOptions *options)
{
  g_return_if_fail (options != NULL);
  memset (options, 0, sizeof *options);
  options->paint_background = TRUE;
}

/* Okabe–Ito colours: distinguishable for colour-blind readers, and of different lightness so
 * neighbouring series still differ on a black-and-white print. */
static const guint32 palette_light[] = {
  0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9, 0x000000, 0x999933,
};
static const guint32 palette_dark[] = {
  0x56B4E9, 0xE69F00, 0x3DD9A8, 0xF09ACB, 0xF0E442, 0x9FD3F5, 0xFFFFFF, 0xCCCC66,
};

void
qf_plot_series_color (guint     index,
                      gboolean  dark,
                      gdouble  *r,
                      gdouble  *g,
                      gdouble  *b)
{
  guint32 c = (dark ? palette_dark : palette_light)[index % G_N_ELEMENTS (palette_light)];

  *r = ((c >> 16) & 0xff) / 255.0;
  *g = ((c >> 8) & 0xff) / 255.0;
  *b = (c & 0xff) / 255.0;
}

char *
qf_plot_format_value (gdouble value)
{
  gdouble mag;
  int decimals;
  char *s;

  if (!isfinite (value))
    return g_strdup ("–");
  if (value == 0)
    return g_strdup ("0");
  mag = floor (log10 (fabs (value)));
  if (mag >= 2)
    {
      gdouble scale = pow (10, mag - 2);
      return g_strdup_printf ("%.0f", round (value / scale) * scale);
    }
  decimals = (int) (2 - mag);
  if (decimals > 9)
    decimals = 9;
  s = g_strdup_printf ("%.*f", decimals, value);
  /* Trailing zeros add digits that were never measured to this precision. */
  if (strchr (s, '.') != NULL)
    {
      char *end = s + strlen (s) - 1;
      while (*end == '0')
        *end-- = '\0';
      if (*end == '.')
        *end = '\0';
    }
  return s;
}

/* Text */

static PangoLayout *
make_layout (QfPlotFrame      *f,
             const char *text,
             gdouble     scale)
{
  PangoLayout *layout = pango_cairo_create_layout (f->cr);
  PangoFontDescription *desc;
  gdouble size = f->opt->font_size > 0 ? f->opt->font_size : DEFAULT_FONT_SIZE;

  desc = pango_font_description_from_string (f->opt->font_family ? f->opt->font_family : DEFAULT_FONT);
  pango_font_description_set_absolute_size (desc, size * scale * PANGO_SCALE);
  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

void
_qf_plot_text_size (QfPlotFrame      *f,
                    const char *text,
                    gdouble     scale,
                    gdouble    *width,
                    gdouble    *height)
{
  g_autoptr(PangoLayout) layout = make_layout (f, text, scale);
  int w, h;

  pango_layout_get_size (layout, &w, &h);
  *width = (gdouble) w / PANGO_SCALE;
  *height = (gdouble) h / PANGO_SCALE;
}

/* Draws text with its anchor point at (x, y); ax/ay: 0 = left/top, 0.5 = centre, 1 = right/bottom. */
void
_qf_plot_draw_text (QfPlotFrame      *f,
                    const char *text,
                    gdouble     x,
                    gdouble     y,
                    gdouble     ax,
                    gdouble     ay,
                    gdouble     scale,
                    gboolean    rotate)
{
  g_autoptr(PangoLayout) layout = make_layout (f, text, scale);
  int w, h;

  pango_layout_get_size (layout, &w, &h);
  cairo_save (f->cr);
  cairo_translate (f->cr, x, y);
  if (rotate)
    cairo_rotate (f->cr, -G_PI / 2);
  cairo_move_to (f->cr, -ax * w / PANGO_SCALE, -ay * h / PANGO_SCALE);
  pango_cairo_show_layout (f->cr, layout);
  cairo_restore (f->cr);
}

/* Axes */


static gdouble
axis_frac (const QfPlotAxis *a,
           gdouble     v)
{
  if (a->log)
    {
      if (v <= 0)
        return -1;
      return (log10 (v) - log10 (a->min)) / (log10 (a->max) - log10 (a->min));
    }
  return (v - a->min) / (a->max - a->min);
}

gdouble
_qf_plot_map_x (QfPlotFrame *f, const QfPlotAxis *a, gdouble v)
{
  return f->x0 + axis_frac (a, v) * f->w;
}

static gdouble
map_y (QfPlotFrame *f, const QfPlotAxis *a, gdouble v)
{
  return f->y0 + f->h - axis_frac (a, v) * f->h;
}

static gdouble
nice_step (gdouble range,
           int     max_ticks)
{
  gdouble raw = range / MAX (max_ticks, 1);
  gdouble mag = pow (10, floor (log10 (raw)));
  gdouble r = raw / mag;

  if (r <= 1)
    return mag;
  if (r <= 2)
    return 2 * mag;
  if (r <= 5)
    return 5 * mag;
  return 10 * mag;
}

void
_qf_plot_nice_linear (QfPlotAxis    *a,
                      gboolean from_zero)
{
  gdouble step;

  if (!(a->max > a->min))
    a->max = a->min + 1;
  step = nice_step (a->max - a->min, 6);
  a->max = ceil (a->max / step - 1e-9) * step;
  if (!from_zero)
    a->min = floor (a->min / step + 1e-9) * step;
}

static char *
format_power (gdouble v)
{
  static const char *const sup[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  int e = (int) lround (log10 (v));
  GString *s;

  if (e >= -2 && e <= 4)
    return qf_plot_format_value (pow (10, e));
  s = g_string_new ("10");
  if (e < 0)
    g_string_append (s, "⁻");
  {
    g_autofree char *digits = g_strdup_printf ("%d", ABS (e));
    for (const char *p = digits; *p != '\0'; p++)
      g_string_append (s, sup[*p - '0']);
  }
  return g_string_free (s, FALSE);
}

void
_qf_plot_set_rgb (cairo_t *cr, const gdouble c[3], gdouble alpha)
{
  cairo_set_source_rgba (cr, c[0], c[1], c[2], alpha);
}

/* Lays out the frame: margins for the title, tick labels and axis labels. */
void
_qf_plot_frame_init (QfPlotFrame               *f,
                     cairo_t             *cr,
                     gdouble              width,
                     gdouble              height,
                     const QfPlotOptions *opt,
                     const char          *sample_y_tick)
{
  gdouble tw, th, lw, lh;

  f->cr = cr;
  f->opt = opt;
  if (opt->dark)
    {
      f->fg[0] = f->fg[1] = f->fg[2] = 0.92;
      f->grid[0] = f->grid[1] = f->grid[2] = 0.35;
    }
  else
    {
      f->fg[0] = f->fg[1] = f->fg[2] = 0.1;
      f->grid[0] = f->grid[1] = f->grid[2] = 0.85;
    }

  if (opt->paint_background)
    {
      if (opt->dark)
        cairo_set_source_rgb (cr, 0.14, 0.14, 0.15);
      else
        cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_rectangle (cr, 0, 0, width, height);
      cairo_fill (cr);
    }

  _qf_plot_text_size (f, sample_y_tick, 1.0, &tw, &th);
  _qf_plot_text_size (f, "Ag", 1.0, &lw, &lh);
  f->x0 = 4 + tw + 6 + (opt->y_label && *opt->y_label ? lh + 4 : 0);
  f->y0 = 6 + (opt->title && *opt->title ? lh * 1.25 + 6 : 0) + lh;  /* room for limit labels */
  f->w = width - f->x0 - 10;
  f->h = height - f->y0 - 4 - th - 4 - (opt->x_label && *opt->x_label ? lh + 4 : 0);
  if (f->w < 10)
    f->w = 10;
  if (f->h < 10)
    f->h = 10;

  _qf_plot_set_rgb (cr, f->fg, 1);
  if (opt->title && *opt->title)
    _qf_plot_draw_text (f, opt->title, width / 2, 4, 0.5, 0, 1.25, FALSE);
  if (opt->x_label && *opt->x_label)
    _qf_plot_draw_text (f, opt->x_label, f->x0 + f->w / 2, height - 3, 0.5, 1, 1.0, FALSE);
  if (opt->y_label && *opt->y_label)
    _qf_plot_draw_text (f, opt->y_label, 3, f->y0 + f->h / 2, 0.5, 0, 1.0, TRUE);
}

void
_qf_plot_draw_x_ticks (QfPlotFrame *f, const QfPlotAxis *a)
{
  cairo_t *cr = f->cr;
  gdouble label_w, label_h;
  int max_ticks;

  cairo_set_line_width (cr, 0.5);
  if (a->log)
    {
      for (gdouble v = pow (10, floor (log10 (a->min))); v <= a->max * 1.0001; v *= 10)
        {
          g_autofree char *label = format_power (v);
          gdouble x;

          if (v < a->min * 0.9999)
            continue;
          x = _qf_plot_map_x (f, a, v);
          _qf_plot_set_rgb (cr, f->grid, 1);
          cairo_move_to (cr, x, f->y0);
          cairo_line_to (cr, x, f->y0 + f->h);
          cairo_stroke (cr);
          _qf_plot_set_rgb (cr, f->fg, 1);
          _qf_plot_draw_text (f, label, x, f->y0 + f->h + 3, 0.5, 0, 1.0, FALSE);
        }
      return;
    }

  {
    g_autofree char *widest = qf_plot_format_value (a->max);
    _qf_plot_text_size (f, widest, 1.0, &label_w, &label_h);
  }
  max_ticks = (int) (f->w / (label_w + 14));
  max_ticks = CLAMP (max_ticks, 2, 10);
  {
    gdouble step = nice_step (a->max - a->min, max_ticks);
    for (gdouble v = ceil (a->min / step - 1e-9) * step; v <= a->max + step * 1e-6; v += step)
      {
        g_autofree char *label = qf_plot_format_value (fabs (v) < step * 1e-6 ? 0 : v);
        gdouble x = _qf_plot_map_x (f, a, v);

        _qf_plot_set_rgb (cr, f->grid, 1);
        cairo_move_to (cr, x, f->y0);
        cairo_line_to (cr, x, f->y0 + f->h);
        cairo_stroke (cr);
        _qf_plot_set_rgb (cr, f->fg, 1);
        _qf_plot_draw_text (f, label, x, f->y0 + f->h + 3, 0.5, 0, 1.0, FALSE);
      }
  }
}

static void
draw_y_ticks (QfPlotFrame *f, const QfPlotAxis *a)
{
  cairo_t *cr = f->cr;

  cairo_set_line_width (cr, 0.5);
  if (a->log)
    {
      for (gdouble v = 1; v <= a->max * 1.0001; v *= 10)
        {
          g_autofree char *label = format_power (v);
          gdouble y;

          if (v < a->min * 0.9999)
            continue;
          y = map_y (f, a, v);
          _qf_plot_set_rgb (cr, f->grid, 1);
          cairo_move_to (cr, f->x0, y);
          cairo_line_to (cr, f->x0 + f->w, y);
          cairo_stroke (cr);
          _qf_plot_set_rgb (cr, f->fg, 1);
          _qf_plot_draw_text (f, label, f->x0 - 4, y, 1, 0.5, 1.0, FALSE);
        }
      return;
    }
  {
    int max_ticks = CLAMP ((int) (f->h / 28), 2, 8);
    gdouble step = nice_step (a->max - a->min, max_ticks);
    for (gdouble v = ceil (a->min / step - 1e-9) * step; v <= a->max + step * 1e-6; v += step)
      {
        g_autofree char *label = qf_plot_format_value (fabs (v) < step * 1e-6 ? 0 : v);
        gdouble y = map_y (f, a, v);

        _qf_plot_set_rgb (cr, f->grid, 1);
        cairo_move_to (cr, f->x0, y);
        cairo_line_to (cr, f->x0 + f->w, y);
        cairo_stroke (cr);
        _qf_plot_set_rgb (cr, f->fg, 1);
        _qf_plot_draw_text (f, label, f->x0 - 4, y, 1, 0.5, 1.0, FALSE);
      }
  }
}

void
_qf_plot_draw_box (QfPlotFrame *f)
{
  _qf_plot_set_rgb (f->cr, f->fg, 1);
  cairo_set_line_width (f->cr, 0.8);
  cairo_rectangle (f->cr, f->x0, f->y0, f->w, f->h);
  cairo_stroke (f->cr);
}

void
_qf_plot_draw_note (QfPlotFrame *f, const char *note)
{
  _qf_plot_set_rgb (f->cr, f->fg, 0.7);
  _qf_plot_draw_text (f, note, f->x0 + f->w / 2, f->y0 + f->h / 2, 0.5, 0.5, 1.0, FALSE);
}

/* Number of columns to decimate into: one per device pixel, bounded. */
static guint
device_columns (QfPlotFrame *f)
{
  gdouble dx = f->w, dy = 0;

  cairo_user_to_device_distance (f->cr, &dx, &dy);
  dx = fabs (dx);
  return (guint) CLAMP (ceil (dx), 1, MAX_COLUMNS);
}

static const gdouble limit_color[3] = { 0.75, 0.1, 0.1 };
static const gdouble limit_color_dark[3] = { 1.0, 0.45, 0.4 };

/* A limit of a time series beyond the value axis: its label with an arrow ("Maximum latency ≤
 * 2335 µs ↑") inside the plot at the edge it lies past, over a short solid stroke on that edge;
 * row stacks several markers at one edge. */
static void
draw_edge_marker (QfPlotFrame             *f,
                  const QfPlotLimit *limit,
                  gboolean           above,
                  int                row)
{
  g_autofree char *text = g_strdup_printf ("%s %s", limit->label ? limit->label : "",
                                           above ? "↑" : "↓");
  gdouble tw, th, right = f->x0 + f->w - 3, y;

  _qf_plot_text_size (f, text, 0.95, &tw, &th);
  y = above ? f->y0 + 2 + row * (th + 1) : f->y0 + f->h - 2 - row * (th + 1);
  cairo_set_line_width (f->cr, 2.4);
  cairo_move_to (f->cr, right - MIN (tw, f->w / 3), above ? f->y0 + 1 : f->y0 + f->h - 1);
  cairo_line_to (f->cr, right + 3, above ? f->y0 + 1 : f->y0 + f->h - 1);
  cairo_stroke (f->cr);
  _qf_plot_draw_text (f, text, right, y, 1, above ? 0 : 1, 0.95, FALSE);
}

/* Limit lines: dashed, labelled at the top, labels staggered so neighbours do not overlap; a
 * time series' limit beyond its value axis is an edge marker instead. */
static void
draw_limits (QfPlotFrame             *f,
             const QfPlotAxis        *a,
             gboolean           vertical,
             const QfPlotLimit *limits,
             guint              n_limits)
{
  cairo_t *cr = f->cr;
  const gdouble *col = f->opt->dark ? limit_color_dark : limit_color;
  gdouble dashes[] = { 5, 3 };
  gdouble last_label_end = -G_MAXDOUBLE, last_label_y = -G_MAXDOUBLE, last_label_left = G_MAXDOUBLE;
  int row = 0, rows_above = 0, rows_below = 0;

  for (guint i = 0; i < n_limits; i++)
    {
      gdouble v = limits[i].value;
      gdouble fr = axis_frac (a, v);
      gdouble tw, th;

      if (!isfinite (v) || (vertical && (fr < 0 || fr > 1)))
        continue;
      if (fr < 0 || fr > 1)
        {
          cairo_save (cr);
          _qf_plot_set_rgb (cr, col, 1);
          draw_edge_marker (f, &limits[i], fr > 1, fr > 1 ? rows_above++ : rows_below++);
          cairo_restore (cr);
          continue;
        }
      cairo_save (cr);
      _qf_plot_set_rgb (cr, col, 1);
      cairo_set_line_width (cr, 1.2);
      cairo_set_dash (cr, dashes, 2, 0);
      if (vertical)
        {
          gdouble x = _qf_plot_map_x (f, a, v);
          cairo_move_to (cr, x, f->y0);
          cairo_line_to (cr, x, f->y0 + f->h);
          cairo_stroke (cr);
          if (limits[i].label != NULL)
            {
              _qf_plot_text_size (f, limits[i].label, 0.95, &tw, &th);
              if (x - tw / 2 < last_label_end + 2)
                row++;
              else
                row = 0;
              /* Keep the label inside the plot's width. */
              gdouble lx = CLAMP (x, f->x0 + tw / 2, f->x0 + f->w - tw / 2);
              _qf_plot_draw_text (f, limits[i].label, lx, f->y0 - 1 + row * (th + 1), 0.5, 1, 0.95, FALSE);
              last_label_end = lx + tw / 2;
            }
        }
      else
        {
          gdouble y = map_y (f, a, v);
          cairo_move_to (cr, f->x0, y);
          cairo_line_to (cr, f->x0 + f->w, y);
          cairo_stroke (cr);
          if (limits[i].label != NULL)
            {
              /* Labels at the right end; a label too close in height to the previous one moves
               * left of it instead of covering it. */
              gdouble right = f->x0 + f->w - 3;
              _qf_plot_text_size (f, limits[i].label, 0.95, &tw, &th);
              if (fabs (y - last_label_y) < th + 1 && last_label_left > f->x0 + tw)
                right = last_label_left - 10;
              _qf_plot_draw_text (f, limits[i].label, right, y - 1, 1, 1, 0.95, FALSE);
              last_label_y = y;
              last_label_left = right - tw;
            }
        }
      cairo_restore (cr);
    }
}

/* The legend: stacked at the top right inside the plot (histograms, whose limit labels sit
 * above the plot), or in one row above the plot's right end (time series, whose limit labels
 * sit at the right end inside it). */
static void
draw_legend (QfPlotFrame       *f,
             const char **labels,
             guint        n,
             gboolean     above)
{
  gdouble y = f->y0 + 4, right = f->x0 + f->w - 4;

  if (!f->opt->legend)
    return;
  for (guint k = n; k > 0; k--)
    {
      guint i = above ? k - 1 : n - k;
      gdouble r, g, b, tw, th;

      if (labels[i] == NULL)
        continue;
      _qf_plot_text_size (f, labels[i], 0.95, &tw, &th);
      if (above)
        y = f->y0 - th - 1;
      qf_plot_series_color (i, f->opt->dark, &r, &g, &b);
      cairo_set_source_rgb (f->cr, r, g, b);
      cairo_rectangle (f->cr, right - tw - 14, y + th / 2 - 3, 10, 6);
      cairo_fill (f->cr);
      _qf_plot_set_rgb (f->cr, f->fg, 1);
      _qf_plot_draw_text (f, labels[i], right, y, 1, 0, 0.95, FALSE);
      if (above)
        right -= tw + 14 + 12;
      else
        y += th + 1;
    }
}

/* Shared by both kinds of plot */

/* The caller's options, or the defaults (filled into *defaults) when it gave none. */
static const QfPlotOptions *
options_or_defaults (const QfPlotOptions *options,
                     QfPlotOptions       *defaults)
{
  if (options != NULL)
    return options;
  qf_plot_options_init (defaults);
  return defaults;
}

/* Background, title and axis labels, then the grid and tick labels of both axes. */
static void
draw_frame (QfPlotFrame               *f,
            cairo_t             *cr,
            gdouble              width,
            gdouble              height,
            const QfPlotOptions *opt,
            const char          *widest_y_tick,
            const QfPlotAxis          *ax,
            const QfPlotAxis          *ay)
{
  _qf_plot_frame_init (f, cr, width, height, opt, widest_y_tick);
  draw_y_ticks (f, ay);
  _qf_plot_draw_x_ticks (f, ax);
}

/* Keeps the data inside the plot area until the matching cairo_restore(). */
static void
clip_to_plot (QfPlotFrame *f)
{
  cairo_save (f->cr);
  cairo_rectangle (f->cr, f->x0, f->y0, f->w, f->h);
  cairo_clip (f->cr);
}

static void
series_rgb (QfPlotFrame   *f,
            guint    index,
            gdouble  rgb[3])
{
  qf_plot_series_color (index, f->opt->dark, &rgb[0], &rgb[1], &rgb[2]);
}

/* What is drawn over the data: the "No samples yet" note when there is nothing to show, the
 * legend and the box around the plot area. */
static void
draw_overlay (QfPlotFrame       *f,
              gboolean     empty,
              const char **labels,
              guint        n_labels,
              gboolean     legend_above)
{
  if (empty)
    _qf_plot_draw_note (f, f->opt->empty_text ? f->opt->empty_text : _("No samples yet"));
  draw_legend (f, labels, n_labels, legend_above);
  _qf_plot_draw_box (f);
}

/* Histogram */

/* A histogram with a bucket width and counts to read; the others are left out. */
static gboolean
histogram_usable (const QfPlotHistogram *h)
{
  return !(h->bucket_width <= 0 || (h->counts == NULL && h->n_buckets > 0));
}

/* What the histograms hold, for the scales and the marks. */
typedef struct
{
  guint64 max_count;  /* the tallest bucket or overflow */
  guint64 total;      /* samples of all histograms */
  gdouble data_max;   /* right end of the data, limits included */
  gdouble sample_max; /* the largest max_value; NAN when none is known */
  gdouble min_start;  /* left end of the lowest used bucket (log axis); G_MAXDOUBLE if none */
} HistogramExtent;

static void
histogram_extent (const QfPlotHistogram *histograms,
                  guint                  n_histograms,
                  const QfPlotLimit     *limits,
                  guint                  n_limits,
                  HistogramExtent       *e)
{
  e->max_count = e->total = 0;
  e->data_max = 0;
  e->sample_max = NAN;
  e->min_start = G_MAXDOUBLE;
  for (guint s = 0; s < n_histograms; s++)
    {
      const QfPlotHistogram *h = &histograms[s];
      if (!histogram_usable (h))
        continue;
      for (guint i = 0; i < h->n_buckets; i++)
        if (h->counts[i] > 0)
          {
            e->max_count = MAX (e->max_count, h->counts[i]);
            e->total += h->counts[i];
            e->data_max = MAX (e->data_max, (i + 1) * h->bucket_width);
            e->min_start = MIN (e->min_start, MAX (i, 0.5) * h->bucket_width);
          }
      if (h->overflow > 0)
        {
          e->max_count = MAX (e->max_count, h->overflow);
          e->total += h->overflow;
          e->data_max = MAX (e->data_max, h->n_buckets * h->bucket_width);
        }
      if (isfinite (h->max_value))
        {
          e->data_max = MAX (e->data_max, h->max_value);
          e->sample_max = isfinite (e->sample_max) ? MAX (e->sample_max, h->max_value) : h->max_value;
        }
    }
  for (guint i = 0; i < n_limits; i++)
    if (isfinite (limits[i].value))
      e->data_max = MAX (e->data_max, limits[i].value);
}

/* The largest 99th percentile of the histograms (a bucket's upper edge); 0 when none. */
static gdouble
histogram_p99 (const QfPlotHistogram *histograms,
               guint                  n_histograms)
{
  gdouble p99 = 0;

  for (guint s = 0; s < n_histograms; s++)
    {
      const QfPlotHistogram *h = &histograms[s];
      guint64 seen = 0, series_total = h->overflow;
      if (h->bucket_width <= 0 || h->counts == NULL)
        continue;
      for (guint i = 0; i < h->n_buckets; i++)
        series_total += h->counts[i];
      for (guint i = 0; i < h->n_buckets && series_total > 0; i++)
        {
          seen += h->counts[i];
          if (seen >= 0.99 * series_total)
            {
              p99 = MAX (p99, (i + 1) * h->bucket_width);
              break;
            }
        }
    }
  return p99;
}

/* Long tail: a linear axis would squeeze the body of the distribution into a few pixels, so
 * switch to a log axis when the largest sample is beyond 20 times the 99th percentile. */
static gboolean
histogram_wants_log_x (const QfPlotOptions   *options,
                       const QfPlotHistogram *histograms,
                       guint                  n_histograms,
                       const HistogramExtent *e)
{
  gdouble p99;

  if (options->log_x)
    return TRUE;
  if (options->fixed_scale || e->total == 0)
    return FALSE;
  p99 = histogram_p99 (histograms, n_histograms);
  return p99 > 0 && e->data_max > 20 * p99;
}

/* The latency axis: the fixed scale, or 0 to a little past the data (linear), or whole
 * decades around it (log). */
static void
histogram_x_axis (const QfPlotOptions   *options,
                  const QfPlotHistogram *histograms,
                  guint                  n_histograms,
                  const HistogramExtent *e,
                  QfPlotAxis                  *ax)
{
  ax->log = histogram_wants_log_x (options, histograms, n_histograms, e);
  if (options->fixed_scale)
    {
      ax->min = options->x_min;
      ax->max = options->x_max;
      if (ax->log && ax->min <= 0)
        ax->min = histograms && n_histograms ? histograms[0].bucket_width : 1;
    }
  else if (ax->log)
    {
      ax->min = pow (10, floor (log10 (e->min_start < G_MAXDOUBLE ? e->min_start : 1)));
      ax->max = pow (10, ceil (log10 (MAX (e->data_max * 1.05, ax->min * 10))));
    }
  else
    {
      ax->min = 0;
      ax->max = e->data_max > 0 ? e->data_max * 1.05 : 100;
      _qf_plot_nice_linear (ax, TRUE);
    }
}

/* The count axis: logarithmic, from below 1 to the decade above the tallest bucket. */
static void
histogram_y_axis (const QfPlotOptions   *options,
                  const HistogramExtent *e,
                  QfPlotAxis                  *ay)
{
  ay->log = TRUE;
  if (options->fixed_scale)
    {
      ay->min = MAX (options->y_min, 0.5);
      ay->max = MAX (options->y_max, ay->min * 10);
    }
  else
    {
      ay->min = 0.5;
      ay->max = pow (10, ceil (log10 (MAX ((gdouble) e->max_count, 9) * 1.5)));
    }
}

/* Thins one histogram to the plot's pixel columns. Each bucket raises every column it spans to
 * its count: the tallest bucket in a column wins, so one rare spike keeps its own pixel.
 * Returns FALSE when no bucket with samples lies on the axis. */
static gboolean
histogram_to_columns (const QfPlotHistogram *h,
                      const QfPlotAxis            *ax,
                      gdouble               *colmax,
                      guint                  ncol)
{
  gboolean any = FALSE;

  for (guint c = 0; c < ncol; c++)
    colmax[c] = 0;
  for (guint i = 0; i < h->n_buckets; i++)
    {
      gdouble f0, f1;
      gint64 c0, c1;

      if (h->counts[i] == 0)
        continue;
      f0 = axis_frac (ax, ax->log ? MAX (i, 0.5) * h->bucket_width : i * h->bucket_width);
      f1 = axis_frac (ax, (i + 1) * h->bucket_width);
      if (f1 < 0 || f0 > 1)
        continue;
      c0 = (gint64) floor (MAX (f0, 0) * ncol);
      c1 = (gint64) ceil (MIN (f1, 1) * ncol) - 1;
      c1 = MAX (c1, c0);
      for (gint64 c = c0; c <= c1 && c < ncol; c++)
        colmax[c] = MAX (colmax[c], (gdouble) h->counts[i]);
      any = TRUE;
    }
  return any;
}

/* The thinned histogram as one outlined step shape standing on the x axis, filled with
 * fill_alpha of its colour. */
static void
draw_histogram_steps (QfPlotFrame         *f,
                      const QfPlotAxis    *ay,
                      const gdouble *colmax,
                      guint          ncol,
                      const gdouble  rgb[3],
                      gdouble        fill_alpha)
{
  cairo_t *cr = f->cr;
  gdouble colw = f->w / ncol, base = f->y0 + f->h;
  gboolean open = FALSE;

  cairo_new_path (cr);
  for (guint c = 0; c < ncol; c++)
    {
      if (colmax[c] > 0)
        {
          gdouble y = map_y (f, ay, colmax[c]);
          if (!open)
            {
              cairo_move_to (cr, f->x0 + c * colw, base);
              open = TRUE;
            }
          cairo_line_to (cr, f->x0 + c * colw, y);
          cairo_line_to (cr, f->x0 + (c + 1) * colw, y);
        }
      else if (open)
        {
          cairo_line_to (cr, f->x0 + c * colw, base);
          open = FALSE;
        }
    }
  if (open)
    cairo_line_to (cr, f->x0 + f->w, base);
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], fill_alpha);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
}

/* The samples beyond the last bucket: one narrow bar at the histogram's end. */
static void
draw_overflow_bar (QfPlotFrame                 *f,
                   const QfPlotAxis            *ax,
                   const QfPlotAxis            *ay,
                   const QfPlotHistogram *h,
                   const gdouble          rgb[3])
{
  gdouble xe = _qf_plot_map_x (f, ax, h->n_buckets * h->bucket_width);
  gdouble y = map_y (f, ay, (gdouble) h->overflow), base = f->y0 + f->h;

  cairo_rectangle (f->cr, MIN (xe, f->x0 + f->w - 4), y, 4, base - y);
  cairo_set_source_rgb (f->cr, rgb[0], rgb[1], rgb[2]);
  cairo_fill (f->cr);
}

static void
draw_histograms (QfPlotFrame                 *f,
                 const QfPlotAxis            *ax,
                 const QfPlotAxis            *ay,
                 const QfPlotHistogram *histograms,
                 guint                  n_histograms)
{
  guint ncol = device_columns (f);
  g_autofree gdouble *colmax = g_new (gdouble, ncol);

  clip_to_plot (f);
  for (guint s = 0; s < n_histograms; s++)
    {
      const QfPlotHistogram *h = &histograms[s];
      gdouble rgb[3];

      if (!histogram_usable (h))
        continue;
      if (!histogram_to_columns (h, ax, colmax, ncol) && h->overflow == 0)
        continue;
      series_rgb (f, s, rgb);
      draw_histogram_steps (f, ay, colmax, ncol, rgb, n_histograms > 1 ? 0.15 : 0.3);
      if (h->overflow > 0)
        draw_overflow_bar (f, ax, ay, h, rgb);
    }
  cairo_restore (f->cr);
}

/* The largest sample: a triangle on the x axis with "max 95.0" above it. */
static void
draw_max_marker (QfPlotFrame      *f,
                 const QfPlotAxis *ax,
                 gdouble     sample_max)
{
  g_autofree char *v = NULL;
  g_autofree char *label = NULL;
  gdouble x, y, tw, th;

  if (!(isfinite (sample_max) && axis_frac (ax, sample_max) >= 0 && axis_frac (ax, sample_max) <= 1))
    return;
  v = qf_plot_format_value (sample_max);
  /* The format comes from the caller's catalogue or ours, never from the data. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  label = g_strdup_printf (f->opt->max_format ? f->opt->max_format : _("max %s"), v);
#pragma GCC diagnostic pop
  x = _qf_plot_map_x (f, ax, sample_max);
  y = f->y0 + f->h;

  _qf_plot_set_rgb (f->cr, f->fg, 1);
  cairo_move_to (f->cr, x, y);
  cairo_line_to (f->cr, x - 4, y - 7);
  cairo_line_to (f->cr, x + 4, y - 7);
  cairo_close_path (f->cr);
  cairo_fill (f->cr);
  _qf_plot_text_size (f, label, 0.95, &tw, &th);
  _qf_plot_draw_text (f, label, CLAMP (x, f->x0 + tw / 2 + 2, f->x0 + f->w - tw / 2 - 2), y - 9, 0.5, 1,
             0.95, FALSE);
}

void
qf_plot_histogram (cairo_t               *cr,
                   gdouble                width,
                   gdouble                height,
                   const QfPlotOptions   *options,
                   const QfPlotHistogram *histograms,
                   guint                  n_histograms,
                   const QfPlotLimit     *limits,
                   guint                  n_limits)
{
  QfPlotOptions defaults;
  HistogramExtent extent;
  QfPlotFrame f;
  QfPlotAxis ax, ay;
  g_autofree char *max_tick = NULL;
  g_autofree const char **labels = NULL;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (n_histograms == 0 || histograms != NULL);
  options = options_or_defaults (options, &defaults);

  histogram_extent (histograms, n_histograms, limits, n_limits, &extent);
  histogram_x_axis (options, histograms, n_histograms, &extent, &ax);
  histogram_y_axis (options, &extent, &ay);
  max_tick = format_power (ay.max);
  draw_frame (&f, cr, width, height, options, max_tick, &ax, &ay);
  draw_histograms (&f, &ax, &ay, histograms, n_histograms);
  draw_limits (&f, &ax, TRUE, limits, n_limits);
  draw_max_marker (&f, &ax, extent.sample_max);

  labels = g_new0 (const char *, n_histograms + 1);
  for (guint s = 0; s < n_histograms; s++)
    labels[s] = histograms[s].label;
  draw_overlay (&f, extent.total == 0, labels, n_histograms, FALSE);
}

/* Time series */

static gdouble
sample_time (const QfPlotSeries *s,
             gsize               i)
{
  return s->t_s != NULL ? s->t_s[i] : s->t0_s + i * s->dt_s;
}

static gboolean
series_has_samples (const QfPlotSeries *s)
{
  return s->n_values > 0 && s->values != NULL;
}

static gboolean
series_any_area (const QfPlotSeries *series,
                 guint               n_series)
{
  gboolean any_area = FALSE;

  for (guint s = 0; s < n_series; s++)
    if (series_has_samples (&series[s]))
      any_area |= series[s].area;
  return any_area;
}

/* The time axis: the fixed scale, the scrolling window, or the span of the samples. */
static void
series_x_axis (const QfPlotOptions *options,
               const QfPlotSeries  *series,
               guint                n_series,
               QfPlotAxis                *ax)
{
  gdouble t_lo = G_MAXDOUBLE, t_hi = -G_MAXDOUBLE;

  for (guint s = 0; s < n_series; s++)
    if (series_has_samples (&series[s]))
      {
        /* Times increase, so the ends give the range. */
        t_lo = MIN (t_lo, sample_time (&series[s], 0));
        t_hi = MAX (t_hi, sample_time (&series[s], series[s].n_values - 1));
      }
  if (t_lo > t_hi)
    {
      t_lo = 0;
      t_hi = options->window_s > 0 ? options->window_s : 1;
    }
  ax->log = FALSE;
  if (options->fixed_scale)
    {
      ax->min = options->x_min;
      ax->max = options->x_max;
    }
  else if (options->window_s > 0)
    {
      /* Scrolling view: the axis spans the window from the first sample until it is full,
       * then follows the newest sample. */
      ax->min = t_hi - t_lo < options->window_s ? t_lo : t_hi - options->window_s;
      ax->max = ax->min + options->window_s;
    }
  else
    {
      ax->min = t_lo;
      ax->max = t_hi > t_lo ? t_hi : t_lo + 1;
    }
}

/* The range of the samples shown on the time axis, in *v_lo and *v_hi (empty, lo > hi, when
 * there is none). Returns FALSE when no sample lies on the time axis. */
static gboolean
series_value_range (const QfPlotSeries *series,
                    guint               n_series,
                    const QfPlotAxis         *ax,
                    gdouble            *v_lo,
                    gdouble            *v_hi)
{
  gboolean any = FALSE;

  *v_lo = G_MAXDOUBLE;
  *v_hi = -G_MAXDOUBLE;
  for (guint s = 0; s < n_series; s++)
    for (gsize i = 0; series[s].values != NULL && i < series[s].n_values; i++)
      {
        gdouble t = sample_time (&series[s], i), v = series[s].values[i];
        if (t < ax->min || t > ax->max || !isfinite (v))
          continue;
        *v_lo = MIN (*v_lo, v);
        *v_hi = MAX (*v_hi, v);
        any = TRUE;
      }
  return any;
}

/* Widens [*v_lo, *v_hi] (the samples' range, from base) to the limits near it: a limit is taken
 * in when the samples still fill at least half of the axis with it, so the data keeps most of
 * the height; a limit further away stays outside and is marked at the edge (draw_limits). With
 * no samples, or samples that span nothing, every limit is taken in. */
static void
series_take_in_limits (const QfPlotLimit *limits,
                       guint              n_limits,
                       gboolean           any,
                       gboolean           from_zero,
                       gdouble           *v_lo,
                       gdouble           *v_hi)
{
  gdouble lo = from_zero ? MIN (0, *v_lo) : *v_lo, hi = *v_hi;
  gdouble span = any ? hi - lo : 0;
  gdouble new_lo = lo, new_hi = hi;

  for (guint i = 0; i < n_limits; i++)
    {
      gdouble v = limits[i].value;

      if (!isfinite (v))
        continue;
      if (!any || span <= 0)
        new_lo = MIN (new_lo, v), new_hi = MAX (new_hi, v);
      else if (v > hi && v - lo <= 2 * span)
        new_hi = MAX (new_hi, v);
      else if (v < lo && hi - v <= 2 * span)
        new_lo = MIN (new_lo, v);
    }
  if (!any && n_limits == 0)
    return;
  *v_lo = any ? MIN (*v_lo, new_lo) : new_lo;
  *v_hi = new_hi;
}

void
qf_plot_series_scale (const QfPlotOptions *options,
                      const QfPlotSeries  *series,
                      guint                n_series,
                      const QfPlotLimit   *limits,
                      guint                n_limits,
                      gdouble             *y_min,
                      gdouble             *y_max)
{
  QfPlotOptions defaults;
  QfPlotAxis ax, ay;
  gdouble v_lo, v_hi;
  gboolean any, area;

  g_return_if_fail (n_series == 0 || series != NULL);
  g_return_if_fail (n_limits == 0 || limits != NULL);
  g_return_if_fail (y_min != NULL && y_max != NULL);
  options = options_or_defaults (options, &defaults);

  series_x_axis (options, series, n_series, &ax);
  any = series_value_range (series, n_series, &ax, &v_lo, &v_hi);
  area = series_any_area (series, n_series);
  ay.log = FALSE;
  if (options->fixed_scale)
    {
      ay.min = options->y_min;
      ay.max = options->y_max > options->y_min ? options->y_max : options->y_min + 1;
    }
  else
    {
      series_take_in_limits (limits, n_limits, any, !any || v_lo >= 0 || area, &v_lo, &v_hi);
      if (v_lo > v_hi)
        v_lo = 0, v_hi = 1;
      ay.min = (v_lo >= 0 || area) ? 0 : v_lo;
      ay.max = v_hi + (v_hi - ay.min) * 0.08;
      _qf_plot_nice_linear (&ay, ay.min == 0);
    }
  *y_min = ay.min;
  *y_max = ay.max;
}

/* The longer of the value axis's end labels, which sets the left margin. */
static char *
series_widest_y_tick (const QfPlotAxis *ay)
{
  char *tick = qf_plot_format_value (ay->max);
  g_autofree char *lo = qf_plot_format_value (ay->min);

  if (strlen (lo) > strlen (tick))
    {
      g_free (tick);
      tick = g_steal_pointer (&lo);
    }
  return tick;
}

/* One series thinned to the plot's pixel columns: the smallest and largest value that falls in
 * each column, and how many. */
typedef struct
{
  guint    n;
  gdouble *min;
  gdouble *max;
  guint   *count;
} Columns;

/* Fills cols from ser; returns the number of samples on the time axis. */
static gsize
series_to_columns (const QfPlotSeries *ser,
                   const QfPlotAxis         *ax,
                   Columns            *cols)
{
  gsize visible = 0;

  memset (cols->count, 0, cols->n * sizeof *cols->count);
  for (gsize i = 0; i < ser->n_values; i++)
    {
      gdouble t = sample_time (ser, i), v = ser->values[i], fr;
      gint64 c;

      if (!isfinite (v))
        continue;
      fr = axis_frac (ax, t);
      if (fr < 0 || fr > 1)
        continue;
      c = MIN ((gint64) (fr * cols->n), (gint64) cols->n - 1);
      if (cols->count[c] == 0)
        cols->min[c] = cols->max[c] = v;
      else
        {
          cols->min[c] = MIN (cols->min[c], v);
          cols->max[c] = MAX (cols->max[c], v);
        }
      cols->count[c]++;
      visible++;
    }
  return visible;
}

/* Closes the area under a run of connected samples along the base line. */
static void
close_area (cairo_t *cr,
            gdouble  first_x,
            gdouble  last_x,
            gdouble  base)
{
  cairo_line_to (cr, last_x, base);
  cairo_line_to (cr, first_x, base);
  cairo_close_path (cr);
}

/* Few samples: the path connects them in order; a NAN or a sample off the axis breaks it.
 * An area's runs are closed down to base. */
static void
path_series_line (QfPlotFrame              *f,
                  const QfPlotAxis         *ax,
                  const QfPlotAxis         *ay,
                  const QfPlotSeries *ser,
                  gdouble             base)
{
  cairo_t *cr = f->cr;
  gboolean open = FALSE;
  gdouble first_x = 0, last_x = 0;

  for (gsize i = 0; i < ser->n_values; i++)
    {
      gdouble t = sample_time (ser, i), v = ser->values[i], x, y;
      if (!isfinite (v) || axis_frac (ax, t) < -0.01 || axis_frac (ax, t) > 1.01)
        {
          if (open && ser->area)
            close_area (cr, first_x, last_x, base);
          open = FALSE;
          continue;
        }
      x = _qf_plot_map_x (f, ax, t);
      y = map_y (f, ay, v);
      if (!open)
        {
          if (ser->area)
            cairo_move_to (cr, x, base), cairo_line_to (cr, x, y);
          else
            cairo_move_to (cr, x, y);
          first_x = x;
          open = TRUE;
        }
      else
        cairo_line_to (cr, x, y);
      last_x = x;
    }
  if (open && ser->area)
    close_area (cr, first_x, last_x, base);
}

/* The height of one device pixel in user units, and at least half a unit. */
static gdouble
pixel_height (cairo_t *cr)
{
  gdouble min_h = 1.0, dummy = 0;

  cairo_device_to_user_distance (cr, &dummy, &min_h);
  return MAX (fabs (min_h), 0.5);
}

/* Many samples: one bar per column from its min to its max (down to the base for an area),
 * stretched to meet the neighbouring column so the trace stays connected, at least a line
 * wide. All bars are one rectilinear path for fill_boxes(). */
static void
path_column_bars (QfPlotFrame              *f,
                  const QfPlotAxis         *ay,
                  const QfPlotSeries *ser,
                  const Columns      *cols)
{
  gdouble colw = f->w / cols->n, min_h = pixel_height (f->cr);
  gboolean prev = FALSE;

  for (guint k = 0; k < cols->n; k++)
    {
      gdouble hi, lo, y_hi, y_lo;

      if (cols->count[k] == 0)
        {
          prev = FALSE;
          continue;
        }
      hi = cols->max[k];
      lo = ser->area ? MAX (ay->min, 0) : cols->min[k];
      if (prev && !ser->area)
        {
          hi = MAX (hi, cols->min[k - 1]);
          lo = MIN (lo, cols->max[k - 1]);
        }
      y_hi = map_y (f, ay, hi);
      y_lo = map_y (f, ay, lo);
      if (y_lo - y_hi < min_h)
        {
          gdouble mid = (y_lo + y_hi) / 2;
          y_hi = mid - min_h / 2;
          y_lo = mid + min_h / 2;
        }
      cairo_rectangle (f->cr, f->x0 + k * colw, y_hi, colw, y_lo - y_hi);
      prev = TRUE;
    }
}

/* A dense area's top edge as a line: a box one pixel high at each column's max. */
static void
path_column_tops (QfPlotFrame         *f,
                  const QfPlotAxis    *ay,
                  const Columns *cols)
{
  gdouble colw = f->w / cols->n, min_h = pixel_height (f->cr);

  for (guint k = 0; k < cols->n; k++)
    if (cols->count[k] > 0)
      cairo_rectangle (f->cr, f->x0 + k * colw, map_y (f, ay, cols->max[k]) - min_h / 2, colw, min_h);
}

/* Fills a path of boxes without antialiasing: cairo's box fast path, a fraction of a
 * millisecond even for a 4K-wide plot (a filled and stroked envelope polygon took 6 ms at 960
 * columns). */
static void
fill_boxes (cairo_t       *cr,
            const gdouble  rgb[3],
            gdouble        alpha)
{
  cairo_antialias_t antialias = cairo_get_antialias (cr);

  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], alpha);
  cairo_fill (cr);
  cairo_set_antialias (cr, antialias);
}

/* Strokes the path of path_series_line(), an area filled under it first. */
static void
stroke_series_line (cairo_t            *cr,
                    const QfPlotSeries *ser,
                    const gdouble       rgb[3])
{
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_width (cr, 1.2);
  if (ser->area)
    {
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.35);
      cairo_fill_preserve (cr);
    }
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_stroke (cr);
}

/* One series: a line through its samples when there are fewer than pixel columns, else the
 * min/max bars of its columns (an area with its top edge). */
static void
draw_one_series (QfPlotFrame              *f,
                 const QfPlotAxis         *ax,
                 const QfPlotAxis         *ay,
                 const QfPlotSeries *ser,
                 guint               index,
                 Columns            *cols)
{
  gdouble rgb[3];

  if (!series_has_samples (ser))
    return;
  series_rgb (f, index, rgb);
  cairo_new_path (f->cr);
  if (series_to_columns (ser, ax, cols) <= cols->n)
    {
      path_series_line (f, ax, ay, ser, map_y (f, ay, MAX (ay->min, 0)));
      stroke_series_line (f->cr, ser, rgb);
      return;
    }
  path_column_bars (f, ay, ser, cols);
  if (!ser->area)
    {
      fill_boxes (f->cr, rgb, 0.9);
      return;
    }
  fill_boxes (f->cr, rgb, 0.35);
  path_column_tops (f, ay, cols);
  fill_boxes (f->cr, rgb, 1.0);
}

static void
draw_series (QfPlotFrame              *f,
             const QfPlotAxis         *ax,
             const QfPlotAxis         *ay,
             const QfPlotSeries *series,
             guint               n_series)
{
  guint ncol = device_columns (f);
  g_autofree gdouble *cmin = g_new (gdouble, ncol);
  g_autofree gdouble *cmax = g_new (gdouble, ncol);
  g_autofree guint *count = g_new (guint, ncol);
  Columns cols = { ncol, cmin, cmax, count };

  clip_to_plot (f);
  for (guint s = 0; s < n_series; s++)
    draw_one_series (f, ax, ay, &series[s], s, &cols);
  cairo_restore (f->cr);
}

void
qf_plot_time_series (cairo_t             *cr,
                     gdouble              width,
                     gdouble              height,
                     const QfPlotOptions *options,
                     const QfPlotSeries  *series,
                     guint                n_series,
                     const QfPlotLimit   *limits,
                     guint                n_limits)
{
  QfPlotOptions defaults;
  QfPlotFrame f;
  QfPlotAxis ax, ay;
  gdouble v_lo, v_hi;
  gboolean any;
  g_autofree char *tick = NULL;
  g_autofree const char **labels = NULL;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (n_series == 0 || series != NULL);
  options = options_or_defaults (options, &defaults);

  series_x_axis (options, series, n_series, &ax);
  any = series_value_range (series, n_series, &ax, &v_lo, &v_hi);
  ay.log = FALSE;
  qf_plot_series_scale (options, series, n_series, limits, n_limits, &ay.min, &ay.max);
  tick = series_widest_y_tick (&ay);
  draw_frame (&f, cr, width, height, options, tick, &ax, &ay);
  draw_series (&f, &ax, &ay, series, n_series);
  draw_limits (&f, &ay, FALSE, limits, n_limits);

  labels = g_new0 (const char *, n_series + 1);
  for (guint s = 0; s < n_series; s++)
    labels[s] = series[s].label;
  draw_overlay (&f, !any, labels, n_series, TRUE);
}

/* Step results */

static gboolean
has_value (JsonObject *o,
           const char *key)
{
  JsonNode *n = o ? json_object_get_member (o, key) : NULL;
  return n != NULL && JSON_NODE_TYPE (n) == JSON_NODE_VALUE;
}

/* Spreads the listed buckets of a sparse histogram into a dense array of counts (returned,
 * n_buckets in *n_out); a histogram has at most a few tens of thousands of buckets (10 ms in
 * 1 µs steps), so this stays small. */
static guint64 *
spread_sparse_buckets (JsonArray *positions,
                       JsonArray *counts,
                       gdouble    bucket_width,
                       guint     *n_out)
{
  guint last = 0, m = MIN (json_array_get_length (counts), json_array_get_length (positions));
  guint64 *dense;

  for (guint i = 0; i < m; i++)
    last = MAX (last, (guint) MAX (json_array_get_double_element (positions, i) / bucket_width, 0));
  last = MIN (last, 10000000u);
  dense = g_new0 (guint64, last + 1);
  for (guint i = 0; i < m; i++)
    {
      gdouble pos = json_array_get_double_element (positions, i) / bucket_width;
      if (pos >= 0 && pos <= last)
        dense[(guint) pos] += (guint64) MAX (json_array_get_int_element (counts, i), 0);
    }
  *n_out = last + 1;
  return dense;
}

/* A histogram object as the rt and ping steps write it (the sparse form, only the buckets that
 * hold samples): {"bucket_width_us": width, "bucket_us": [start of each listed bucket],
 * "count": [its samples], "overflow": n}. With want_ms, the µs buckets are drawn in ms. The
 * dense counts are returned in *counts_out for the caller to free. */
static gboolean
read_histogram (JsonObject      *h,
                const char      *label,
                gdouble          max_value,
                gboolean         want_ms,
                QfPlotHistogram *out,
                guint64        **counts_out)
{
  JsonArray *positions = qf_json_get_array (h, "bucket_us");
  JsonArray *counts = qf_json_get_array (h, "count");
  JsonNode *node;

  out->bucket_width = 0;
  if ((node = json_object_get_member (h, "bucket_width_us")) != NULL &&
      JSON_NODE_TYPE (node) == JSON_NODE_VALUE)
    out->bucket_width = json_node_get_double (node);
  if (positions == NULL || counts == NULL || !(out->bucket_width > 0))
    return FALSE;

  *counts_out = spread_sparse_buckets (positions, counts, out->bucket_width, &out->n_buckets);
  out->counts = *counts_out;
  /* Ping stores µs buckets but is shown in ms (docs ux.md): only the width changes. */
  if (want_ms)
    out->bucket_width /= 1000.0;
  out->overflow = 0;
  if ((node = json_object_get_member (h, "overflow")) != NULL && JSON_NODE_TYPE (node) == JSON_NODE_VALUE)
    out->overflow = (guint64) MAX (json_node_get_int (node), 0);
  out->label = label;
  out->max_value = max_value;
  return TRUE;
}

/* The largest sample in the plot's unit, from max_us / max_ms; NAN when unknown. */
static gdouble
get_max (JsonObject *o,
         gboolean    in_ms)
{
  JsonNode *n;

  if (o == NULL)
    return NAN;
  if ((n = json_object_get_member (o, in_ms ? "max_ms" : "max_us")) != NULL && JSON_NODE_TYPE (n) == JSON_NODE_VALUE)
    return json_node_get_double (n);
  if ((n = json_object_get_member (o, in_ms ? "max_us" : "max_ms")) != NULL && JSON_NODE_TYPE (n) == JSON_NODE_VALUE)
    return in_ms ? json_node_get_double (n) / 1000.0 : json_node_get_double (n) * 1000.0;
  return NAN;
}

/* Milliseconds when the result states its figures in ms (ping) and none in µs. */
static gboolean
result_in_ms (JsonObject *result)
{
  return (has_value (result, "max_ms") || has_value (result, "avg_ms")) &&
         !has_value (result, "max_us") && !has_value (result, "avg_us");
}

/* The histograms read from a result, and the memory they point into. */
typedef struct
{
  GArray    *hists;  /* QfPlotHistogram */
  GPtrArray *owned;  /* labels and counts */
} ResultHistograms;

static void
add_histogram (ResultHistograms *rh,
               JsonObject       *histogram,
               const char       *label,
               gdouble           max_value,
               gboolean          want_ms)
{
  QfPlotHistogram h = { 0 };
  guint64 *counts = NULL;

  if (!read_histogram (histogram, label, max_value, want_ms, &h, &counts))
    return;
  g_ptr_array_add (rh->owned, counts);
  g_array_append_val (rh->hists, h);
}

/* "CPU 2" for a thread pinned to a CPU, else "Thread 1" by its place in the list. */
static char *
thread_label (JsonObject *thread,
              guint       index)
{
  if (json_object_has_member (thread, "cpu") &&
      JSON_NODE_TYPE (json_object_get_member (thread, "cpu")) == JSON_NODE_VALUE &&
      json_object_get_int_member (thread, "cpu") >= 0)
    return g_strdup_printf (_("CPU %lld"), (long long) json_object_get_int_member (thread, "cpu"));
  return g_strdup_printf (_("Thread %u"), index);
}

/* result.threads[].histogram, one per thread. */
static void
add_thread_histograms (ResultHistograms *rh,
                       JsonObject       *result,
                       gboolean          want_ms)
{
  JsonArray *threads = qf_json_get_array (result, "threads");

  for (guint i = 0; threads != NULL && i < json_array_get_length (threads); i++)
    {
      JsonNode *node = json_array_get_element (threads, i);
      JsonObject *t, *histogram;
      char *label;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      t = json_node_get_object (node);
      if ((histogram = qf_json_get_object (t, "histogram")) == NULL)
        continue;
      label = thread_label (t, i);
      g_ptr_array_add (rh->owned, label);
      add_histogram (rh, histogram, label, get_max (t, want_ms), want_ms);
    }
}

/* A result whose step keeps one distribution per phase (QfStepPlot.phase_keys): each phase's
 * histogram, named as the step's channel. */
static void
add_phase_histograms (ResultHistograms *rh,
                      JsonObject       *result,
                      gboolean          want_ms)
{
  const QfStepInfo *info = qf_step_lookup (qf_json_get_string (result, "test", ""));

  for (guint i = 0; info != NULL && info->plot.phase_keys != NULL
                    && info->plot.phase_keys[i] != NULL && i < G_N_ELEMENTS (info->plot.channels); i++)
    {
      JsonObject *phase = qf_json_get_object (result, info->plot.phase_keys[i]);
      JsonObject *histogram = qf_json_get_object (phase, "histogram");

      if (histogram != NULL && info->plot.channels[i] != NULL)
        add_histogram (rh, histogram, _(info->plot.channels[i]), get_max (phase, want_ms),
                       want_ms);
    }
}

gboolean
qf_plot_result_histogram (cairo_t             *cr,
                          gdouble              width,
                          gdouble              height,
                          const QfPlotOptions *options,
                          JsonObject          *result,
                          const QfPlotLimit   *limits,
                          guint                n_limits)
{
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) hists = g_array_new (FALSE, TRUE, sizeof (QfPlotHistogram));
  ResultHistograms rh = { hists, owned };
  QfPlotOptions opt;
  JsonObject *histogram;
  gboolean want_ms;

  g_return_val_if_fail (cr != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  want_ms = result_in_ms (result);
  add_thread_histograms (&rh, result, want_ms);
  if (hists->len == 0)
    add_phase_histograms (&rh, result, want_ms);
  if (hists->len == 0 && (histogram = qf_json_get_object (result, "histogram")) != NULL)
    add_histogram (&rh, histogram, NULL, get_max (result, want_ms), want_ms);
  if (hists->len == 0)
    return FALSE;

  if (options != NULL)
    opt = *options;
  else
    qf_plot_options_init (&opt);
  if (opt.x_label == NULL)
    opt.x_label = want_ms ? _("Latency (ms)") : _("Latency (µs)");
  if (opt.y_label == NULL)
    opt.y_label = _("Samples");
  if (hists->len > 1 && options == NULL)
    opt.legend = TRUE;
  qf_plot_histogram (cr, width, height, &opt, (QfPlotHistogram *) hists->data, hists->len,
                     limits, n_limits);
  return TRUE;
}

static gboolean
number_member (JsonObject *o,
               const char *key,
               gdouble    *out)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return FALSE;
  *out = json_node_get_double (n);
  return TRUE;
}

/* The samples of a result: result.intervals (bandwidth, drawn as an area), else result.series,
 * else result.samples; NULL when there are none of these. */
static JsonArray *
result_series_array (JsonObject *result,
                     gboolean   *area)
{
  JsonArray *arr;

  *area = FALSE;
  if ((arr = qf_json_get_array (result, "intervals")) != NULL)
    {
      *area = TRUE;
      return arr;
    }
  if ((arr = qf_json_get_array (result, "series")) != NULL)
    return arr;
  return qf_json_get_array (result, "samples");
}

/* Sample i: an object {t_s | end_s, mbps | value | rtt_ms | latency_us}, or a plain number at
 * i * result.interval_s. Missing times count samples; a missing value leaves a gap (NAN). */
static void
read_series_point (JsonObject *result,
                   JsonNode   *node,
                   guint       i,
                   gdouble    *t,
                   gdouble    *v)
{
  gdouble interval_s = 1;

  *t = i;
  *v = NAN;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      if (!number_member (o, "t_s", t) && !number_member (o, "end_s", t))
        *t = i;
      if (!number_member (o, "mbps", v) && !number_member (o, "value", v) &&
          !number_member (o, "rtt_ms", v) && !number_member (o, "latency_us", v))
        *v = NAN;
    }
  else if (JSON_NODE_TYPE (node) == JSON_NODE_VALUE)
    {
      number_member (result, "interval_s", &interval_s);
      *t = i * interval_s;
      *v = json_node_get_double (node);
    }
}

/* The value axis's label, from the kind of series and the result's units. */
static const char *
result_series_y_label (JsonObject *result,
                       gboolean    area)
{
  if (area)
    return _("Throughput (Mbit/s)");
  if (json_object_has_member (result, "avg_ms") || json_object_has_member (result, "rtt_ms"))
    return _("Round-trip time (ms)");
  if (json_object_has_member (result, "avg_us") || json_object_has_member (result, "max_us"))
    return _("Latency (µs)");
  return _("Value");
}

/* The caller's options for a result's time series (the defaults when NULL), with "Time (s)" and
 * y_label where the caller left the axis titles out. */
static void
series_options (const QfPlotOptions *options,
                QfPlotOptions       *opt,
                const char          *y_label)
{
  if (options != NULL)
    *opt = *options;
  else
    qf_plot_options_init (opt);
  if (opt->x_label == NULL)
    opt->x_label = _("Time (s)");
  if (opt->y_label == NULL)
    opt->y_label = y_label;
}

gboolean
qf_plot_result_time_series (cairo_t             *cr,
                            gdouble              width,
                            gdouble              height,
                            const QfPlotOptions *options,
                            JsonObject          *result,
                            const QfPlotLimit   *limits,
                            guint                n_limits)
{
  QfPlotOptions opt;
  QfPlotSeries series = { 0 };
  JsonArray *arr;
  g_autofree gdouble *t = NULL;
  g_autofree gdouble *v = NULL;
  guint n;

  g_return_val_if_fail (cr != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  arr = result_series_array (result, &series.area);
  if (arr == NULL || json_array_get_length (arr) == 0)
    return FALSE;

  n = json_array_get_length (arr);
  t = g_new (gdouble, n);
  v = g_new (gdouble, n);
  for (guint i = 0; i < n; i++)
    read_series_point (result, json_array_get_element (arr, i), i, &t[i], &v[i]);
  series.t_s = t;
  series.values = v;
  series.n_values = n;

  series_options (options, &opt, result_series_y_label (result, series.area));
  qf_plot_time_series (cr, width, height, &opt, &series, 1, limits, n_limits);
  return TRUE;
}

static const char *
chart_tr (const char      *msgid,
          QfStepTranslate  tr,
          gpointer         tr_data)
{
  return tr != NULL ? tr (msgid, tr_data) : _(msgid);
}

gboolean
qf_plot_result_chart (cairo_t             *cr,
                      gdouble              width,
                      gdouble              height,
                      const QfPlotOptions *options,
                      const QfStepChart   *chart,
                      JsonObject          *result,
                      QfStepTranslate      tr,
                      gpointer             tr_data,
                      const QfPlotLimit   *limits,
                      guint                n_limits)
{
  g_autoptr(GPtrArray) lines = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autofree QfPlotSeries *series = NULL;
  QfPlotOptions opt;

  g_return_val_if_fail (cr != NULL, FALSE);
  g_return_val_if_fail (chart != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  lines = qf_step_chart_read (chart, result);
  if (lines->len == 0)
    return FALSE;
  series = g_new0 (QfPlotSeries, lines->len);
  for (guint i = 0; i < lines->len; i++)
    {
      QfStepLineData *d = g_ptr_array_index (lines, i);
      char *label = NULL;

      if (d->label != NULL && d->name != NULL)
        {
          /* the element's name in place of %s: a name is never read as a format */
          GString *text = g_string_new (chart_tr (d->label, tr, tr_data));
          g_string_replace (text, "%s", d->name, 1);
          label = g_string_free (text, FALSE);
        }
      else if (d->label != NULL)
        label = g_strdup (chart_tr (d->label, tr, tr_data));
      g_ptr_array_add (labels, label);
      series[i] = (QfPlotSeries) {
        .label = label,
        .t_s = (const gdouble *) d->t_s->data,
        .values = (const gdouble *) d->values->data,
        .n_values = d->values->len,
        .area = chart->area,
      };
    }
  series_options (options, &opt, chart_tr (chart->axis, tr, tr_data));
  qf_plot_time_series (cr, width, height, &opt, series, lines->len, limits, n_limits);
  return TRUE;
}
