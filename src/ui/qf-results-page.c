/* qf-results-page.c — step 6 of the wizard (src/ui): the session's overall verdict (symbol,
 * word and colour), one row per criterion with the measured value and the limit, the advice the
 * core wrote for each FAIL and WARN with a "Re-run this test" button, why a traced test was slow
 * (each spike's sentence as the step tells it, and the worst spike's timeline drawn by core's
 * qf-spike-plot, as in the report), and the comparison with the previous session of this PC.
 * Every figure and word comes from the session; this page only lays them out.
 * Template: ui/qf-results-page.ui. */
#include "config.h"

#include "qf-format.h"

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-results-page.h"
#include "qf-row-text.h"
#include "qf-spike-plot.h"
#include "qf-step-trace.h"

struct _QfResultsPage
{
  AdwBin               parent_instance;

  /* template widgets */
  GtkLabel            *verdict_label;
  GtkLabel            *verdict_detail;
  AdwPreferencesGroup *criteria_group;
  AdwPreferencesGroup *advice_group;
  AdwPreferencesGroup *causes_group;
  AdwPreferencesGroup *comparison_group;

  /* owned */
  GPtrArray           *rows;
};

G_DEFINE_FINAL_TYPE (QfResultsPage, qf_results_page, ADW_TYPE_BIN)

static const char *verdict_classes[] = { "verdict-pass", "verdict-fail", "verdict-warn", "dim-label", "verdict-warn",
                                         "verdict-warn" };

static const char *
verdict_class (QfVerdict verdict)
{
  return verdict < G_N_ELEMENTS (verdict_classes) ? verdict_classes[verdict] : "dim-label";
}

static void
add_row (QfResultsPage       *self,
         AdwPreferencesGroup *group,
         GtkWidget           *row)
{
  adw_preferences_group_add (group, row);
  g_object_set_data (G_OBJECT (row), "qf-group", group);
  g_ptr_array_add (self->rows, g_object_ref (row));
}

static GtkWidget *
text_row (const char *text)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 8);
  gtk_widget_set_margin_bottom (label, 8);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  return row;
}

static void
show_criteria (QfResultsPage *self,
               QfSession     *session)
{
  JsonArray *verdicts = qf_session_get_verdicts (session);

  for (guint i = 0; verdicts != NULL && i < json_array_get_length (verdicts); i++)
    {
      JsonObject *v = json_array_get_object_element (verdicts, i);
      const char *key = qf_json_get_string (v, "key", "");
      gint step = qf_session_find_step (session, key);
      const char *unit = qf_json_get_string (v, "unit", "");
      QfVerdict verdict = QF_VERDICT_INVALID;
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *word;
      g_autofree char *title = NULL;
      g_autofree char *subtitle = NULL;
      g_autofree char *limit = qf_format_limit (qf_json_get_string (v, "comparison", "<="),
                                                qf_json_get_double (v, "limit", 0), unit);
      g_autofree char *mark = NULL;
      g_autofree char *accessible = NULL;
      gdouble measured;

      qf_verdict_from_string (qf_json_get_string (v, "verdict", "invalid"), &verdict);
      title = g_strdup_printf ("%s: %s", step >= 0 ? qf_session_get_step_title (session, step) : key,
                               _(qf_json_get_string (v, "label", "")));
      if (qf_json_get_path_double (v, "measured", &measured))
        {
          g_autofree char *value = qf_format_value (measured, unit);

          if (verdict == QF_VERDICT_NOT_OVER_LINK)
            /* Translators: "Measured 9396 µs on this PC's loopback…, limit ≤ 100 µs" */
            subtitle = g_strdup_printf (_("Measured %s on this PC's loopback with the built-in peer, not over the link; limit %s%s"),
                                        value, limit,
                                        g_strcmp0 (qf_json_get_string (v, "role", ""), "warns") == 0 ? _(" (warning only)") : "");
          else
            /* Translators: "Measured 9396 µs, limit ≤ 100 µs" */
            subtitle = g_strdup_printf (_("Measured %s, limit %s%s"), value, limit,
                                        g_strcmp0 (qf_json_get_string (v, "role", ""), "warns") == 0 ? _(" (warning only)") : "");
        }
      else
        subtitle = g_strdup_printf (_("Not measured: %s"), qf_json_get_string (v, "reason", _("no result")));
      qf_row_set_title_text (ADW_PREFERENCES_ROW (row), title);
      qf_row_set_subtitle_text (row, subtitle);
      mark = g_strdup_printf ("%s %s", qf_verdict_to_symbol (verdict), qf_verdict_to_label (verdict));
      word = gtk_label_new (mark);
      gtk_widget_add_css_class (word, verdict_class (verdict));
      gtk_widget_add_css_class (word, "heading");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), word);
      accessible = g_strdup_printf ("%s: %s. %s", title, qf_verdict_to_label (verdict), subtitle);
      gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
      add_row (self, self->criteria_group, row);
    }
}

enum { RERUN, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
rerun_clicked (QfResultsPage *self,
               GtkButton     *button)
{
  g_signal_emit (self, signals[RERUN], 0, g_object_get_data (G_OBJECT (button), "qf-key"));
}

static void
show_advice (QfResultsPage *self,
             QfSession     *session)
{
  JsonArray *advice = qf_session_get_advice (session);
  guint n = advice ? json_array_get_length (advice) : 0;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *a = json_array_get_object_element (advice, i);
      GtkWidget *row = text_row (qf_json_get_string (a, "text", ""));
      GtkWidget *label = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *rerun = gtk_button_new_with_mnemonic (_("Re-run this _test"));
      const char *key = qf_json_get_string (a, "key", NULL);

      g_object_ref (label);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_box_append (GTK_BOX (box), label);
      g_object_unref (label);
      gtk_widget_set_valign (rerun, GTK_ALIGN_CENTER);
      gtk_widget_set_margin_end (rerun, 12);
      gtk_accessible_update_property (GTK_ACCESSIBLE (rerun), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Re-run this test"), -1);
      g_object_set_data_full (G_OBJECT (rerun), "qf-key", g_strdup (key), g_free);
      g_signal_connect_swapped (rerun, "clicked", G_CALLBACK (rerun_clicked), self);
      gtk_widget_set_visible (rerun, key != NULL);
      g_object_set_data (G_OBJECT (rerun), "qf-page", self);
      gtk_box_append (GTK_BOX (box), rerun);
      add_row (self, self->advice_group, row);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->advice_group), n > 0);
}

#define MAX_CAUSE_ROWS 1   /* the worst spike; the report tells the others */

static void
draw_timeline (GtkDrawingArea *area,
               cairo_t        *cr,
               int             width,
               int             height,
               gpointer        user_data)
{
  QfPlotOptions options;

  qf_plot_options_init (&options);
  options.dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  options.font_size = 11;
  qf_spike_plot_draw (cr, width, height, &options, g_object_get_data (G_OBJECT (area), "qf-timeline"),
                      NULL, NULL);
}

/* The worst spike's timeline, as the report draws it. */
static GtkWidget *
timeline_row (JsonObject *timeline,
              const char *sentence)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *area = gtk_drawing_area_new ();
  g_autofree char *accessible = g_strdup_printf (_("Timeline of the worst spike. %s"), sentence);

  g_object_set_data_full (G_OBJECT (area), "qf-timeline", json_object_ref (timeline),
                          (GDestroyNotify) json_object_unref);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), 240);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_timeline, NULL, NULL);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), area, G_CONNECT_SWAPPED);
  gtk_widget_set_margin_start (area, 6);
  gtk_widget_set_margin_end (area, 6);
  gtk_widget_set_margin_top (area, 6);
  gtk_widget_set_margin_bottom (area, 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (area), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), area);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  return row;
}

/* One traced step: why nothing was traced, or its worst spikes told and the worst drawn. */
static gboolean
show_step_causes (QfResultsPage *self,
                  QfSession     *session,
                  guint          index)
{
  JsonObject *step = qf_session_get_step (session, index);
  JsonObject *result = qf_json_get_object (step, "result");
  const QfStepInfo *info = qf_step_lookup (qf_json_get_string (step, "test", ""));
  JsonArray *causes = qf_json_get_array (result, "latency_causes");
  const char *title = qf_session_get_step_title (session, index);
  const char *why = qf_step_trace_not_recorded (result);
  JsonObject *timeline = qf_spike_plot_timeline (result);
  g_autofree char *worst = NULL;

  if (info == NULL || info->spikes == QF_STEP_SPIKES_NONE || qf_json_get_object (result, "trace") == NULL)
    return FALSE;
  if (why != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("%s: not traced: %s"), title, why);
      add_row (self, self->causes_group, text_row (text));
      return TRUE;
    }
  if (causes == NULL || json_array_get_length (causes) == 0)
    {
      g_autofree char *text = g_strdup_printf (_("%s: no cycle was late enough to mark."), title);
      add_row (self, self->causes_group, text_row (text));
      return TRUE;
    }
  for (guint i = 0; i < MIN (json_array_get_length (causes), MAX_CAUSE_ROWS); i++)
    {
      g_autofree char *sentence = qf_step_trace_sentence (info, json_array_get_object_element (causes, i),
                                                          i == 0, NULL, NULL);
      g_autofree char *text = g_strdup_printf ("%s: %s", title, sentence);

      add_row (self, self->causes_group, text_row (text));
      if (i == 0)
        worst = g_steal_pointer (&sentence);
    }
  if (timeline != NULL)
    add_row (self, self->causes_group, timeline_row (timeline, worst));
  return TRUE;
}

static void
show_causes (QfResultsPage *self,
             QfSession     *session)
{
  gboolean any = FALSE;

  for (guint i = 0; i < qf_session_get_n_steps (session); i++)
    any |= show_step_causes (self, session, i);
  gtk_widget_set_visible (GTK_WIDGET (self->causes_group), any);
}

static void
show_comparison (QfResultsPage *self,
                 QfSession     *session)
{
  JsonObject *comparison = qf_json_get_object (qf_session_get_json (session), "comparison");
  JsonArray *metrics = comparison ? qf_json_get_array (comparison, "metrics") : NULL;
  JsonObject *previous = comparison ? qf_json_get_object (comparison, "previous") : NULL;
  guint n = metrics ? json_array_get_length (metrics) : 0;

  gtk_widget_set_visible (GTK_WIDGET (self->comparison_group), comparison != NULL);
  if (comparison == NULL)
    return;
  adw_preferences_group_set_description (self->comparison_group,
                                         previous ? qf_json_get_string (previous, "created_at", NULL) : NULL);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *m = json_array_get_object_element (metrics, i);
      const char *unit = qf_json_get_string (m, "unit", "");
      GtkWidget *row = adw_action_row_new ();
      g_autofree char *before = qf_verdict_format_value (qf_json_get_double (m, "before", 0), unit);
      g_autofree char *after = qf_verdict_format_value (qf_json_get_double (m, "after", 0), unit);
      g_autofree char *subtitle = g_strdup_printf (_("before %s, now %s"), before, after);

      qf_row_set_title_text (ADW_PREFERENCES_ROW (row), _(qf_json_get_string (m, "label", "")));
      qf_row_set_subtitle_text (row, subtitle);
      add_row (self, self->comparison_group, row);
    }
}

void
qf_results_page_show (QfResultsPage *self,
                      QfSession     *session)
{
  static const QfVerdict overall_as_verdict[] = {
    [QF_OVERALL_PASS] = QF_VERDICT_PASS,
    [QF_OVERALL_FAIL] = QF_VERDICT_FAIL,
    [QF_OVERALL_INVALID] = QF_VERDICT_INVALID,
    [QF_OVERALL_INCOMPLETE] = QF_VERDICT_NOT_RUN,
  };
  guint warnings = 0;
  QfOverall overall;
  g_autofree char *verdict = NULL;
  g_autofree char *detail = NULL;

  g_return_if_fail (QF_IS_RESULTS_PAGE (self));
  g_return_if_fail (QF_IS_SESSION (session));

  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->rows, i);

      adw_preferences_group_remove (g_object_get_data (G_OBJECT (row), "qf-group"), row);
    }
  g_ptr_array_set_size (self->rows, 0);

  overall = qf_session_get_overall (session, &warnings);
  verdict = g_strdup_printf ("%s %s", qf_verdict_to_symbol (overall_as_verdict[overall]),
                             qf_overall_to_label (overall));
  /* a training run must never look like an acceptance */
  if (qf_session_get_training (session) != NULL)
    {
      g_autofree char *training = g_strdup_printf (_("Training: %s"), verdict);
      g_free (verdict);
      verdict = g_steal_pointer (&training);
    }
  gtk_label_set_text (self->verdict_label, verdict);
  for (guint i = 0; i < G_N_ELEMENTS (verdict_classes); i++)
    gtk_widget_remove_css_class (GTK_WIDGET (self->verdict_label), verdict_classes[i]);
  gtk_widget_add_css_class (GTK_WIDGET (self->verdict_label), verdict_class (overall_as_verdict[overall]));
  switch (overall)
    {
    case QF_OVERALL_PASS:
      detail = g_strdup (_("This PC meets every deciding limit of the profile."));
      break;
    case QF_OVERALL_FAIL:
      detail = g_strdup (_("At least one deciding limit was not met. The advice below says why and what to change."));
      break;
    case QF_OVERALL_INVALID:
      detail = g_strdup (_("A deciding test could not measure properly (for example a missing privilege), so there is no verdict."));
      break;
    case QF_OVERALL_INCOMPLETE:
    default:
      if (qf_json_get_double (qf_json_get_object (qf_json_get_object (qf_session_get_json (session), "verdict"), "counts"),
                              "not-over-link", 0) > 0)
        detail = g_strdup (_("The network tests were measured against the built-in peer on this PC's loopback, not over the link, so this PC cannot be passed yet. Run them again with the helper machine."));
      else
        detail = g_strdup (_("A deciding test did not run, so this PC cannot be passed yet."));
      break;
    }
  if (warnings > 0)
    {
      g_autofree char *with = g_strdup_printf (qf_ngettext ("%s %u warning.", "%s %u warnings.", warnings),
                                               detail, warnings);
      g_free (detail);
      detail = g_steal_pointer (&with);
    }
  if (qf_session_get_training (session) != NULL)
    {
      g_autofree char *with = g_strdup_printf ("%s %s", _("A training run against the built-in peer answering as an emulated link: it shows how Qualify judges such a link, and is not an acceptance of this PC."), detail);
      g_free (detail);
      detail = g_steal_pointer (&with);
    }
  gtk_label_set_text (self->verdict_detail, detail);
  show_criteria (self, session);
  show_advice (self, session);
  show_causes (self, session);
  show_comparison (self, session);
}

static void
qf_results_page_dispose (GObject *object)
{
  QfResultsPage *self = QF_RESULTS_PAGE (object);

  g_clear_pointer (&self->rows, g_ptr_array_unref);
  adw_bin_set_child (ADW_BIN (self), NULL);
  G_OBJECT_CLASS (qf_results_page_parent_class)->dispose (object);
}

static void
qf_results_page_class_init (QfResultsPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = qf_results_page_dispose;
  /* rerun (const char *key): the person asked to run this test again */
  signals[RERUN] = g_signal_new ("rerun", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                 NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-results-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfResultsPage, verdict_label);
  gtk_widget_class_bind_template_child (widget_class, QfResultsPage, verdict_detail);
  gtk_widget_class_bind_template_child (widget_class, QfResultsPage, criteria_group);
  gtk_widget_class_bind_template_child (widget_class, QfResultsPage, advice_group);
  gtk_widget_class_bind_template_child (widget_class, QfResultsPage, causes_group);
  gtk_widget_class_bind_template_child (widget_class, QfResultsPage, comparison_group);
}

static void
qf_results_page_init (QfResultsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
}
