/* qf-run-page.c — step 5 of the wizard (src/ui): the core's runner drives the steps on its own
 * thread; this page only shows what it reports — the step list with each state, the current
 * test's progress and the remaining time of the whole run, the live figures against the
 * profile's limits (formatted by the core), and two live plots fed with the runner's samples
 * and drawn by qf-plot. Skip and Cancel go straight to the runner. Template: ui/qf-run-page.ui. */
#include "config.h"

#include <math.h>

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-plot-view.h"
#include "qf-row-text.h"
#include "qf-run-page.h"
#include "qf-step.h"
#include "qf-verdict.h"

struct _QfRunPage
{
  AdwBin          parent_instance;

  /* template widgets */
  GtkListBox     *steps_list;
  GtkLabel       *title_label;
  GtkProgressBar *step_progress;
  GtkLabel       *eta_label;
  GtkLabel       *figures_label;
  GtkBox         *plots_box;
  GtkSwitch      *fixed_switch;
  GtkButton      *skip_button;
  GtkButton      *cancel_button;

  /* owned */
  QfRunner       *runner;
  GSettings      *settings;
  GPtrArray      *step_rows;     /* AdwActionRow per step (borrowed from the list) */
  GtkWidget      *histogram;     /* QfPlotView (borrowed) */
  GtkWidget      *series;        /* QfPlotView (borrowed) */
  gboolean        running;
  gboolean        live;          /* the current step's samples are plotted */
  guint           channels;      /* sample channels plotted (those below), G_MAXUINT: all */
  gboolean        one_channel;   /* the engine's channel is not a series (ping: icmp_seq) */
};

G_DEFINE_FINAL_TYPE (QfRunPage, qf_run_page, ADW_TYPE_BIN)

enum { FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *
status_icon (QfStepStatus status)
{
  switch (status)
    {
    case QF_STEP_STATUS_RUNNING:
      return "media-playback-start-symbolic";
    case QF_STEP_STATUS_DONE:
      return "emblem-ok-symbolic";
    case QF_STEP_STATUS_FAILED:
      return "dialog-error-symbolic";
    case QF_STEP_STATUS_CANCELLED:
      return "process-stop-symbolic";
    case QF_STEP_STATUS_SKIPPED:
    case QF_STEP_STATUS_NOT_RUN:
      return "go-next-symbolic";
    case QF_STEP_STATUS_PENDING:
    default:
      return "content-loading-symbolic";
    }
}

static void
update_step_row (QfRunPage *self,
                 guint      index)
{
  QfSession *session = qf_runner_get_session (self->runner);
  AdwActionRow *row;
  GtkImage *icon;
  QfStepStatus status;
  g_autofree char *accessible = NULL;

  if (index >= self->step_rows->len)
    return;
  row = g_ptr_array_index (self->step_rows, index);
  icon = g_object_get_data (G_OBJECT (row), "qf-icon");
  status = qf_session_get_step_status (session, index);
  adw_action_row_set_subtitle (row, qf_step_status_to_label (status));
  gtk_image_set_from_icon_name (icon, status_icon (status));
  accessible = g_strdup_printf ("%s: %s", qf_session_get_step_title (session, index),
                                qf_step_status_to_label (status));
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
}

/* The criteria of the step's test whose unit fits the plot, as labelled limit lines. */
static GArray *
plot_limits (QfRunPage          *self,
             guint               index,
             const char         *unit,
             const char *const  *metrics)
{
  QfSession *session = qf_runner_get_session (self->runner);
  const QfProfileTest *test = qf_profile_find_test (qf_session_get_profile (session),
                                                    qf_session_get_step_key (session, index));
  GArray *limits = g_array_new (FALSE, FALSE, sizeof (QfPlotLimit));

  for (guint i = 0; test != NULL && i < test->criteria->len; i++)
    {
      const QfCriterion *c = g_ptr_array_index (test->criteria, i);
      g_autofree char *value = NULL;
      QfPlotLimit limit;

      if (g_strcmp0 (c->unit, unit) != 0)
        continue;
      if (metrics != NULL && !g_strv_contains (metrics, c->metric))
        continue;
      value = qf_verdict_format_value (c->limit, c->unit);
      limit.label = g_strdup_printf ("%s %s", _(c->label), value);
      limit.value = c->limit;
      g_array_append_val (limits, limit);
    }
  return limits;
}

static void
free_limits (GArray *limits)
{
  for (guint i = 0; i < limits->len; i++)
    g_free ((char *) g_array_index (limits, QfPlotLimit, i).label);
  g_array_unref (limits);
}

/* The channel names of a step's plot, translated, NULL-terminated (at most four). */
static void
translate_channels (const QfStepPlot *plot,
                    const char       *names[5])
{
  guint i;

  for (i = 0; i < 4 && plot->channels[i] != NULL; i++)
    names[i] = _(plot->channels[i]);
  names[i] = NULL;
}

/* What the runner's samples mean for each step, and how they are drawn, is the step's own
 * description (QfStepInfo.plot, src/core/qf-step-*.c): rt pushes each cycle's latency per
 * measurement thread, ping each reply's RTT, latency and cycle each reply, bandwidth each
 * interval's bit/s, stress and monitor each monitor sample. Every value drawn is the engine's;
 * the finished result then replaces the live picture, drawn like the report. */
static void
step_started (QfRunPage *self,
              guint      index)
{
  QfSession *session = qf_runner_get_session (self->runner);
  const QfStepInfo *info = qf_step_lookup (qf_session_get_step_test (session, index));
  const QfStepPlot *plot = info != NULL && info->plot.unit != NULL ? &info->plot : NULL;
  const char *names[5] = { NULL };
  const char *unit = plot != NULL ? plot->unit : "µs";
  const char *axis = plot != NULL ? _(plot->axis) : _("Latency (µs)");
  gdouble unit_ns = plot != NULL ? plot->unit_ns : 1000;
  GArray *limits;

  self->live = plot != NULL;
  self->channels = plot != NULL && plot->n_channels > 0 ? plot->n_channels : G_MAXUINT;
  self->one_channel = plot != NULL && plot->one_channel;
  if (plot != NULL)
    {
      translate_channels (plot, names);
      qf_plot_view_set_channel_names (QF_PLOT_VIEW (self->histogram), names);
      qf_plot_view_set_channel_names (QF_PLOT_VIEW (self->series), names);
    }

  gtk_label_set_text (self->title_label, qf_session_get_step_title (session, index));
  gtk_progress_bar_set_fraction (self->step_progress, 0);
  gtk_label_set_text (self->figures_label, "");
  update_step_row (self, index);

  limits = plot_limits (self, index, unit, plot != NULL ? plot->limit_metrics : NULL);
  qf_plot_view_reset (QF_PLOT_VIEW (self->histogram), unit_ns, axis, FALSE,
                      (QfPlotLimit *) limits->data, limits->len);
  qf_plot_view_set_bucket (QF_PLOT_VIEW (self->histogram), 1000);
  qf_plot_view_reset (QF_PLOT_VIEW (self->series), unit_ns, axis, plot != NULL && plot->area,
                      (QfPlotLimit *) limits->data, limits->len);
  free_limits (limits);
  gtk_widget_set_visible (self->histogram, plot != NULL && plot->histogram);
  gtk_widget_set_visible (self->series, plot != NULL);
  qf_plot_view_set_summary (QF_PLOT_VIEW (self->histogram), _("No samples yet"));
  qf_plot_view_set_summary (QF_PLOT_VIEW (self->series), _("No samples yet"));
}

static char *
format_duration (gdouble seconds)
{
  if (seconds < 60)
    return g_strdup_printf (_("about %.0f s left"), ceil (seconds));
  return g_strdup_printf (_("about %.0f min left"), ceil (seconds / 60));
}

static void
progress (QfRunPage  *self,
          guint       index,
          gdouble     fraction,
          gdouble     eta_s,
          JsonObject *live)
{
  QfSession *session = qf_runner_get_session (self->runner);
  const QfProfileTest *test;
  g_autofree char *eta = NULL;
  g_autoptr(GString) figures = g_string_new ("");
  gdouble max_us;

  gtk_progress_bar_set_fraction (self->step_progress, CLAMP (fraction, 0, 1));
  eta = format_duration (MAX (eta_s, 0));
  gtk_label_set_text (self->eta_label, eta);
  if (live == NULL)
    return;

  /* the engine's live figures beside the profile's limits, formatted by the core */
  test = qf_profile_find_test (qf_session_get_profile (session), qf_session_get_step_key (session, index));
  for (guint i = 0; test != NULL && i < test->criteria->len; i++)
    {
      const QfCriterion *c = g_ptr_array_index (test->criteria, i);
      g_autofree char *value = NULL;
      g_autofree char *limit = NULL;
      gdouble measured;

      if (!qf_json_get_path_double (live, c->metric, &measured))
        continue;
      value = qf_verdict_format_value (measured, c->unit);
      limit = qf_verdict_format_value (c->limit, c->unit);
      g_string_append_printf (figures, "%s%s: %s (%s %s %s)", figures->len ? "\n" : "", _(c->label), value,
                              _("limit"), c->comparison == QF_COMPARISON_AT_MOST ? "≤" : "≥", limit);
    }
  gtk_label_set_text (self->figures_label, figures->str);
  qf_plot_view_set_summary (QF_PLOT_VIEW (self->histogram), figures->str);
  qf_plot_view_set_summary (QF_PLOT_VIEW (self->series), figures->str);
  if (qf_json_get_path_double (live, "max_us", &max_us))
    qf_plot_view_set_max (QF_PLOT_VIEW (self->histogram), max_us);
}

static void
samples (QfRunPage      *self,
         guint           index,
         const QfSample *data,
         guint           n)
{
  QfSample kept[512];
  guint n_kept = 0;

  if (!self->live)
    return;
  if (self->channels == G_MAXUINT && !self->one_channel)
    {
      qf_plot_view_add_samples (QF_PLOT_VIEW (self->histogram), data, n);
      qf_plot_view_add_samples (QF_PLOT_VIEW (self->series), data, n);
      return;
    }
  /* only the plotted channels, values untouched */
  for (guint i = 0; i <= n; i++)
    {
      if (n_kept == G_N_ELEMENTS (kept) || (i == n && n_kept > 0))
        {
          qf_plot_view_add_samples (QF_PLOT_VIEW (self->histogram), kept, n_kept);
          qf_plot_view_add_samples (QF_PLOT_VIEW (self->series), kept, n_kept);
          n_kept = 0;
        }
      if (i == n || data[i].channel >= self->channels)
        continue;
      kept[n_kept] = data[i];
      if (self->one_channel)
        kept[n_kept].channel = 0;
      n_kept++;
    }
}

static void
step_finished (QfRunPage *self,
               guint      index)
{
  QfSession *session = qf_runner_get_session (self->runner);
  JsonObject *step = qf_session_get_step (session, index);
  JsonObject *result = qf_json_get_object (step, "result");
  const QfStepInfo *info = qf_step_lookup (qf_session_get_step_test (session, index));

  update_step_row (self, index);
  /* keep the finished test's picture: drawn from its stored result like the report, as the
   * step's first chart when it answers its figures itself */
  if (result != NULL)
    {
      qf_plot_view_set_result (QF_PLOT_VIEW (self->histogram), result, NULL);
      qf_plot_view_set_result (QF_PLOT_VIEW (self->series), result,
                               info != NULL && info->charts != NULL && info->charts[0].axis != NULL
                               ? &info->charts[0] : NULL);
    }
}

static void
finished (QfRunPage *self,
          gboolean   cancelled)
{
  QfSession *session = qf_runner_get_session (self->runner);

  self->running = FALSE;
  for (guint i = 0; i < self->step_rows->len; i++)
    update_step_row (self, i);
  gtk_widget_set_sensitive (GTK_WIDGET (self->skip_button), FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->cancel_button), FALSE);
  gtk_progress_bar_set_fraction (self->step_progress, cancelled ? 0 : 1);
  gtk_label_set_text (self->title_label, cancelled ? _("Stopped: the finished tests are saved") : _("All tests done"));
  gtk_label_set_text (self->eta_label, qf_session_get_dir (session) ? qf_session_get_dir (session) : "");
  g_signal_emit (self, signals[FINISHED], 0, cancelled);
}

gboolean
qf_run_page_start (QfRunPage  *self,
                   QfRunner   *runner,
                   GError    **error)
{
  QfSession *session;
  GtkWidget *child;

  g_return_val_if_fail (QF_IS_RUN_PAGE (self), FALSE);
  g_return_val_if_fail (QF_IS_RUNNER (runner), FALSE);
  g_return_val_if_fail (!self->running, FALSE);

  if (self->runner != NULL)
    g_signal_handlers_disconnect_by_data (self->runner, self);
  g_set_object (&self->runner, runner);
  session = qf_runner_get_session (runner);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->steps_list))) != NULL)
    gtk_list_box_remove (self->steps_list, child);
  g_ptr_array_set_size (self->step_rows, 0);
  for (guint i = 0; i < qf_session_get_n_steps (session); i++)
    {
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *icon = gtk_image_new ();

      qf_row_set_title_text (ADW_PREFERENCES_ROW (row), qf_session_get_step_title (session, i));
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      g_object_set_data (G_OBJECT (row), "qf-icon", icon);
      gtk_list_box_append (self->steps_list, row);
      g_ptr_array_add (self->step_rows, row);
      update_step_row (self, i);
    }

  g_signal_connect_object (runner, "step-started", G_CALLBACK (step_started), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runner, "progress", G_CALLBACK (progress), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runner, "samples", G_CALLBACK (samples), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runner, "step-finished", G_CALLBACK (step_finished), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runner, "finished", G_CALLBACK (finished), self, G_CONNECT_SWAPPED);

  gtk_widget_set_sensitive (GTK_WIDGET (self->skip_button), TRUE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->cancel_button), TRUE);
  gtk_label_set_text (self->title_label, _("Preparing…"));
  gtk_label_set_text (self->eta_label, "");
  if (!qf_runner_start (runner, error))
    return FALSE;
  self->running = TRUE;
  return TRUE;
}

gboolean
qf_run_page_is_running (QfRunPage *self)
{
  g_return_val_if_fail (QF_IS_RUN_PAGE (self), FALSE);
  return self->running;
}

QfRunner *
qf_run_page_get_runner (QfRunPage *self)
{
  g_return_val_if_fail (QF_IS_RUN_PAGE (self), NULL);
  return self->runner;
}

void
qf_run_page_cancel (QfRunPage *self)
{
  g_return_if_fail (QF_IS_RUN_PAGE (self));
  if (!self->running)
    return;
  gtk_label_set_text (self->title_label, _("Stopping…"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->cancel_button), FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->skip_button), FALSE);
  qf_runner_cancel (self->runner);
}

static void
skip_clicked (QfRunPage *self)
{
  gint current;

  if (!self->running)
    return;
  current = qf_runner_get_current (self->runner);
  if (current >= 0)
    qf_runner_skip (self->runner, current);
}

static void
fixed_changed (QfRunPage *self)
{
  gboolean fixed = gtk_switch_get_active (self->fixed_switch);

  qf_plot_view_set_fixed_scale (QF_PLOT_VIEW (self->histogram), fixed);
  qf_plot_view_set_fixed_scale (QF_PLOT_VIEW (self->series), fixed);
}

static void
qf_run_page_dispose (GObject *object)
{
  QfRunPage *self = QF_RUN_PAGE (object);

  if (self->runner != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->runner, self);
      if (self->running)
        qf_runner_cancel (self->runner);
    }
  g_clear_object (&self->runner);
  g_clear_pointer (&self->step_rows, g_ptr_array_unref);
  adw_bin_set_child (ADW_BIN (self), NULL);
  G_OBJECT_CLASS (qf_run_page_parent_class)->dispose (object);
}

static void
qf_run_page_finalize (GObject *object)
{
  g_clear_object (&QF_RUN_PAGE (object)->settings);
  G_OBJECT_CLASS (qf_run_page_parent_class)->finalize (object);
}

static void
qf_run_page_class_init (QfRunPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_run_page_dispose;
  object_class->finalize = qf_run_page_finalize;

  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-run-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, steps_list);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, title_label);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, step_progress);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, eta_label);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, figures_label);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, plots_box);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, fixed_switch);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, skip_button);
  gtk_widget_class_bind_template_child (widget_class, QfRunPage, cancel_button);
  gtk_widget_class_bind_template_callback (widget_class, skip_clicked);
  gtk_widget_class_bind_template_callback (widget_class, qf_run_page_cancel);
}

static void
qf_run_page_init (QfRunPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->step_rows = g_ptr_array_new ();
  self->settings = g_settings_new (APP_ID);
  self->histogram = qf_plot_view_new (QF_PLOT_VIEW_HISTOGRAM, _("Latency histogram"));
  self->series = qf_plot_view_new (QF_PLOT_VIEW_TIME_SERIES, _("Time series"));
  gtk_box_append (self->plots_box, self->histogram);
  gtk_box_append (self->plots_box, self->series);
  g_settings_bind (self->settings, "plot-fixed-scale", self->fixed_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (self->fixed_switch, "notify::active", G_CALLBACK (fixed_changed), self,
                           G_CONNECT_SWAPPED);
  fixed_changed (self);
}
