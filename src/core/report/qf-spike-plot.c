/* qf-spike-plot.c — the timeline of the worst spike (src/core/report); see qf-spike-plot.h.
 *
 * Lanes in the order things first took the CPU; each lane's label at the left (as qf-plot puts
 * tick labels), its pieces as bars in the colour of their kind; the landmarks as dashed
 * vertical lines labelled above the plot area, where qf-plot labels its limits.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-plot-private.h"
#include "qf-spike-plot.h"

#define MAX_LANES 8

static const char *translate (QfStepTranslate tr, gpointer tr_data, const char *msgid) G_GNUC_FORMAT (3);

static const char *
translate (QfStepTranslate tr,
           gpointer        tr_data,
           const char     *msgid)
{
  return tr != NULL ? tr (msgid, tr_data) : _(msgid);
}

#define T(msgid) translate (tr, tr_data, msgid)

JsonObject *
qf_spike_plot_timeline (JsonObject *result)
{
  JsonNode *trace = result != NULL ? json_object_get_member (result, "trace") : NULL;
  JsonNode *timeline;

  if (trace == NULL || !JSON_NODE_HOLDS_OBJECT (trace))
    return NULL;
  timeline = json_object_get_member (json_node_get_object (trace), "timeline");
  return timeline != NULL && JSON_NODE_HOLDS_OBJECT (timeline) ? json_node_get_object (timeline)
                                                               : NULL;
}

/* The palette index of a kind (qf_plot_series_color), grey for time with no event. */
static gint
kind_colour (const char *kind)
{
  if (g_strcmp0 (kind, "task") == 0)
    return 0;
  if (g_strcmp0 (kind, "irq") == 0)
    return 1;
  if (g_strcmp0 (kind, "sched-delay") == 0)
    return 2;
  if (g_strcmp0 (kind, "softirq") == 0)
    return 4;
  return -1;
}

static void
kind_rgb (const char *kind,
          gboolean    dark,
          gdouble     rgb[3])
{
  gint c = kind_colour (kind);

  if (c < 0)
    rgb[0] = rgb[1] = rgb[2] = dark ? 0.6 : 0.55;
  else
    qf_plot_series_color ((guint) c, dark, &rgb[0], &rgb[1], &rgb[2]);
}

/* The lanes: the distinct labels of the segments in order of first appearance, each with its
 * total time; each segment's lane in lane_of. The lanes past MAX_LANES share the last. */
static GPtrArray *
make_lanes (JsonArray      *segments,
            guint          *lane_of,
            GPtrArray      *lane_kinds,
            QfStepTranslate tr,
            gpointer        tr_data)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  gdouble totals[MAX_LANES] = { 0 };

  for (guint i = 0; i < json_array_get_length (segments); i++)
    {
      JsonObject *seg = json_array_get_object_element (segments, i);
      g_autofree char *label = qf_step_trace_item_label (seg, tr, tr_data);
      guint lane = names->len;

      for (guint j = 0; j < names->len; j++)
        if (g_str_equal (g_ptr_array_index (names, j), label))
          lane = j;
      if (lane == names->len && names->len < MAX_LANES)
        {
          g_ptr_array_add (names, g_steal_pointer (&label));
          g_ptr_array_add (lane_kinds, (gpointer) json_object_get_string_member_with_default (seg, "kind", ""));
        }
      else if (lane == names->len)
        {
          lane = MAX_LANES - 1;
          g_free (names->pdata[lane]);
          names->pdata[lane] = g_strdup (T (N_("others")));
        }
      lane_of[i] = lane;
      totals[lane] += json_object_get_double_member_with_default (seg, "duration_us", 0);
    }
  /* each lane says how long it held the CPU in all: the breakdown, in the picture */
  for (guint j = 0; j < names->len; j++)
    {
      g_autofree char *total = qf_step_trace_format_us (totals[j]);
      g_ptr_array_add (labels, g_strdup_printf ("%s  %s", (char *) g_ptr_array_index (names, j), total));
    }
  return labels;
}

/* A landmark: a dashed line at x µs with its label above the plot area. */
static void
draw_landmark (QfPlotFrame      *f,
               const QfPlotAxis *ax,
               gdouble           at_us,
               const char       *label,
               gdouble          *label_right)
{
  gdouble x = _qf_plot_map_x (f, ax, at_us), tw, th;
  double dash[] = { 3, 2 };

  if (at_us < 0 || at_us > ax->max)
    return;
  _qf_plot_set_rgb (f->cr, f->fg, 0.9);
  cairo_save (f->cr);
  cairo_set_line_width (f->cr, 0.8);
  cairo_set_dash (f->cr, dash, 2, 0);
  cairo_move_to (f->cr, x, f->y0);
  cairo_line_to (f->cr, x, f->y0 + f->h);
  cairo_stroke (f->cr);
  cairo_restore (f->cr);
  /* labels that would overlap the previous one go on the right of the line */
  _qf_plot_text_size (f, label, 0.9, &tw, &th);
  if (x - tw / 2 < *label_right + 2)
    x = *label_right + 2 + tw / 2;
  _qf_plot_draw_text (f, label, x, f->y0 - 1, 0.5, 1, 0.9, FALSE);
  *label_right = x + tw / 2;
}

static gdouble
num (JsonObject *o,
     const char *key)
{
  return json_object_get_double_member_with_default (o, key, -1);
}

/* The bars of the segments, each in its lane. */
static void
draw_bars (QfPlotFrame      *f,
           const QfPlotAxis *ax,
           JsonArray        *segments,
           const guint      *lane_of,
           guint             n_lanes)
{
  gdouble lane_h = f->h / MAX (n_lanes, 1);

  for (guint i = 0; i < json_array_get_length (segments); i++)
    {
      JsonObject *seg = json_array_get_object_element (segments, i);
      gdouble start = num (seg, "start_us"), dur = num (seg, "duration_us");
      gdouble x0 = _qf_plot_map_x (f, ax, start), x1 = _qf_plot_map_x (f, ax, start + dur);
      gdouble rgb[3];

      kind_rgb (json_object_get_string_member_with_default (seg, "kind", ""), f->opt->dark, rgb);
      _qf_plot_set_rgb (f->cr, rgb, 1);
      /* at least a hairline, so a 1 µs interrupt in a 3 ms spike is still seen */
      cairo_rectangle (f->cr, x0, f->y0 + lane_of[i] * lane_h + lane_h * 0.2,
                       MAX (x1 - x0, 1.0), lane_h * 0.6);
      cairo_fill (f->cr);
    }
}

/* The lane labels at the left, each with its kind's colour. */
static void
draw_lane_labels (QfPlotFrame *f,
                  GPtrArray   *labels,
                  GPtrArray   *kinds)
{
  gdouble lane_h = f->h / MAX (labels->len, 1);

  for (guint i = 0; i < labels->len; i++)
    {
      gdouble rgb[3], y = f->y0 + (i + 0.5) * lane_h;

      kind_rgb (g_ptr_array_index (kinds, i), f->opt->dark, rgb);
      _qf_plot_set_rgb (f->cr, rgb, 1);
      cairo_rectangle (f->cr, f->x0 - 9, y - 3, 6, 6);
      cairo_fill (f->cr);
      _qf_plot_set_rgb (f->cr, f->fg, 1);
      _qf_plot_draw_text (f, g_ptr_array_index (labels, i), f->x0 - 12, y, 1, 0.5, 1.0, FALSE);
    }
}

/* The widest lane label, for the frame's left margin (capped at 40 % of the width). */
static char *
widest_label (QfPlotFrame *probe,
              GPtrArray   *labels,
              gdouble      width)
{
  const char *widest = "";
  gdouble widest_w = 0;

  for (guint i = 0; i < labels->len; i++)
    {
      gdouble tw, th;

      _qf_plot_text_size (probe, g_ptr_array_index (labels, i), 1.0, &tw, &th);
      if (tw > widest_w && tw < width * 0.4)
        {
          widest_w = tw;
          widest = g_ptr_array_index (labels, i);
        }
    }
  /* room for the colour mark */
  return g_strdup_printf ("%s  ", widest);
}

gboolean
qf_spike_plot_draw (cairo_t             *cr,
                    gdouble              width,
                    gdouble              height,
                    const QfPlotOptions *options,
                    JsonObject          *timeline,
                    QfStepTranslate      tr,
                    gpointer             tr_data)
{
  JsonArray *segments = timeline != NULL && json_object_has_member (timeline, "segments")
                          ? json_object_get_array_member (timeline, "segments") : NULL;
  guint n = segments != NULL ? json_array_get_length (segments) : 0;
  g_autofree guint *lane_of = g_new0 (guint, MAX (n, 1));
  g_autoptr(GPtrArray) kinds = g_ptr_array_new ();
  g_autoptr(GPtrArray) labels = NULL;
  QfPlotOptions opt;
  QfPlotFrame f = { .cr = cr };
  QfPlotAxis ax = { 0, 1, FALSE };
  g_autofree char *widest = NULL;
  gdouble label_right = -G_MAXDOUBLE;
  gboolean reply;
  g_autoptr(JsonObject) empty = NULL;

  g_return_val_if_fail (cr != NULL, FALSE);
  if (timeline == NULL)
    timeline = empty = json_object_new ();
  if (options != NULL)
    opt = *options;
  else
    qf_plot_options_init (&opt);
  reply = g_strcmp0 (json_object_get_string_member_with_default (timeline, "wait", ""), "reply") == 0;
  if (opt.x_label == NULL)
    opt.x_label = reply ? T (N_("Time from sending the request (µs)"))
                        : T (N_("Time from the deadline (µs)"));
  f.opt = &opt;
  labels = n > 0 ? make_lanes (segments, lane_of, kinds, tr, tr_data)
                 : g_ptr_array_new_with_free_func (g_free);
  widest = widest_label (&f, labels, width);
  cairo_save (cr);
  _qf_plot_frame_init (&f, cr, width, height, &opt, widest);
  ax.max = MAX (num (timeline, "latency_us"), 1);
  _qf_plot_nice_linear (&ax, TRUE);
  {
    /* the last tick's label is centred on the right edge: keep it inside */
    g_autofree char *last = qf_plot_format_value (ax.max);
    gdouble tw, th;

    _qf_plot_text_size (&f, last, 1.0, &tw, &th);
    f.w = MAX (f.w - tw / 2, 10);
  }
  _qf_plot_draw_x_ticks (&f, &ax);
  if (n == 0)
    {
      _qf_plot_draw_note (&f, T (N_("No spike was traced")));
      _qf_plot_draw_box (&f);
      cairo_restore (cr);
      return FALSE;
    }
  draw_bars (&f, &ax, segments, lane_of, labels->len);
  draw_lane_labels (&f, labels, kinds);
  draw_landmark (&f, &ax, 0, reply ? T (N_("sent")) : T (N_("deadline")), &label_right);
  if (!reply)
    draw_landmark (&f, &ax, num (timeline, "expiry_us"), T (N_("timer expiry")), &label_right);
  draw_landmark (&f, &ax, num (timeline, "wakeup_us"),
                 reply ? T (N_("reply arrives")) : T (N_("wake-up")), &label_right);
  draw_landmark (&f, &ax, num (timeline, "switch_in_us"), T (N_("switched in")), &label_right);
  draw_landmark (&f, &ax, num (timeline, "latency_us"), T (N_("measured")), &label_right);
  _qf_plot_draw_box (&f);
  cairo_restore (cr);
  return TRUE;
}
