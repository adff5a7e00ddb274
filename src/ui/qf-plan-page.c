/* qf-plan-page.c — step 4 of the wizard (src/ui): one row per test of the profile with its
 * estimated duration (the step's own estimate), its parameters, its limits and the classic
 * command it replaces (the step's own text); a switch leaves a test out, and the page says
 * plainly when that makes the verdict INCOMPLETE. "Find the cause of spikes" (off by default,
 * shown when a test of the plan can tell its spikes) asks the tests for the kernel's trace; the
 * step gets it itself, or through qualifyd, which may make the desktop ask for an
 * administrator's password when the test starts (docs/privileges.md). Template:
 * ui/qf-plan-page.ui. */
#include "config.h"


#include "qf-i18n.h"
#include "qf-plan-page.h"
#include "qf-row-text.h"
#include "qf-step.h"
#include "qf-verdict.h"

struct _QfPlanPage
{
  AdwBin               parent_instance;

  /* template widgets */
  AdwPreferencesGroup *tests_group;
  GtkLabel            *incomplete_label;
  AdwPreferencesGroup *trace_group;
  GtkSwitch           *trace_switch;

  /* owned */
  QfProfile           *profile;
  GPtrArray           *rows;       /* AdwExpanderRow, one per test */
};

G_DEFINE_FINAL_TYPE (QfPlanPage, qf_plan_page, ADW_TYPE_BIN)

static gboolean
test_decides (const QfProfileTest *test)
{
  for (guint i = 0; i < test->criteria->len; i++)
    if (((QfCriterion *) g_ptr_array_index (test->criteria, i))->role == QF_ROLE_DECIDES)
      return TRUE;
  return FALSE;
}

static void
update_summary (QfPlanPage *self)
{
  gdouble total_s = 0;
  guint enabled = 0;
  gboolean incomplete = FALSE;
  g_autofree char *description = NULL;

  for (guint i = 0; i < self->rows->len; i++)
    {
      AdwExpanderRow *row = g_ptr_array_index (self->rows, i);
      const QfProfileTest *test = qf_profile_get_test (self->profile, i);
      const QfStepInfo *info = qf_step_lookup (test->step);

      if (adw_expander_row_get_enable_expansion (row))
        {
          enabled++;
          if (info != NULL && info->estimate_duration != NULL)
            total_s += info->estimate_duration (test->params);
        }
      else if (test_decides (test))
        incomplete = TRUE;
    }
  if (total_s < 90)
    description = g_strdup_printf (qf_ngettext ("%u test, about %.0f seconds in all.",
                                                "%u tests, about %.0f seconds in all.", enabled),
                                   enabled, total_s);
  else
    description = g_strdup_printf (qf_ngettext ("%u test, about %.0f minutes in all.",
                                                "%u tests, about %.0f minutes in all.", enabled),
                                   enabled, total_s / 60.0 + 0.5);
  adw_preferences_group_set_description (self->tests_group, description);
  gtk_widget_set_visible (GTK_WIDGET (self->incomplete_label), incomplete);
}

/* AdwExpanderRow's enable switch has no name of its own: give it one ("Run Ping"), for screen
 * readers and keyboard users. Returns TRUE once found. */
static gboolean
name_enable_switch (GtkWidget  *widget,
                    const char *title)
{
  if (GTK_IS_SWITCH (widget))
    {
      g_autofree char *name = g_strdup_printf (_("Run “%s”"), title);

      gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
      return TRUE;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (name_enable_switch (child, title))
      return TRUE;
  return FALSE;
}

static GtkWidget *
detail_row (const char *title,
            const char *text)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new (text);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (label, "monospace");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  title, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  return row;
}

/* Whether a test of the profile can tell its spikes from the kernel's trace. */
static gboolean
profile_has_spikes (QfProfile *profile)
{
  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    {
      const QfStepInfo *info = qf_step_lookup (qf_profile_get_test (profile, i)->step);

      if (info != NULL && info->spikes != QF_STEP_SPIKES_NONE)
        return TRUE;
    }
  return FALSE;
}

void
qf_plan_page_set_profile (QfPlanPage *self,
                          QfProfile  *profile,
                          const char *peer_host)
{
  g_return_if_fail (QF_IS_PLAN_PAGE (self));
  g_return_if_fail (QF_IS_PROFILE (profile));

  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->tests_group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
  g_set_object (&self->profile, profile);
  {
    g_autofree char *title = g_strdup_printf (_("Test plan: %s"), qf_profile_get_name (profile));

    adw_preferences_group_set_title (self->tests_group, title);
  }

  gtk_widget_set_visible (GTK_WIDGET (self->trace_group), profile_has_spikes (profile));
  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    {
      const QfProfileTest *test = qf_profile_get_test (profile, i);
      const QfStepInfo *info = qf_step_lookup (test->step);
      GtkWidget *row = adw_expander_row_new ();
      const char *title = test->title ? _(test->title) : info ? _(info->title) : test->key;
      g_autofree char *subtitle = NULL;
      g_autofree char *params = NULL;
      g_autoptr(GString) limits = g_string_new ("");

      if (info == NULL)
        subtitle = g_strdup (_("This build cannot run this test: it will be marked “not run”."));
      else
        subtitle = g_strdup_printf (_("about %.0f s"), info->estimate_duration ? info->estimate_duration (test->params) : 0);
      qf_row_set_title_text (ADW_PREFERENCES_ROW (row), title);
      qf_row_set_subtitle_text (row, subtitle);
      adw_expander_row_set_show_enable_switch (ADW_EXPANDER_ROW (row), TRUE);
      adw_expander_row_set_enable_expansion (ADW_EXPANDER_ROW (row), TRUE);
      adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), FALSE);
      gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
      name_enable_switch (GTK_WIDGET (row), title);

      if (info != NULL && info->classic_command != NULL)
        {
          g_autofree char *classic = info->classic_command (test->params, peer_host ? peer_host : "PEER");

          if (classic != NULL && *classic != '\0')
            adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (_("Replaces"), classic));
        }
      {
        JsonNode *node = json_node_init_object (json_node_alloc (), test->params);

        params = json_to_string (node, FALSE);
        json_node_unref (node);
      }
      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (_("Parameters"), params));
      for (guint j = 0; j < test->criteria->len; j++)
        {
          const QfCriterion *c = g_ptr_array_index (test->criteria, j);
          g_autofree char *limit = qf_verdict_format_value (c->limit, c->unit);

          g_string_append_printf (limits, "%s%s %s %s%s", j ? "\n" : "", _(c->label),
                                  c->comparison == QF_COMPARISON_AT_MOST ? "≤" : "≥", limit,
                                  c->role == QF_ROLE_WARNS ? _(" (warning only)") : "");
        }
      adw_expander_row_add_row (ADW_EXPANDER_ROW (row),
                                detail_row (_("Limits"), limits->len ? limits->str : _("informative, no limit")));
      g_signal_connect_object (row, "notify::enable-expansion", G_CALLBACK (update_summary), self,
                               G_CONNECT_SWAPPED);
      adw_preferences_group_add (self->tests_group, row);
      g_ptr_array_add (self->rows, row);
    }
  update_summary (self);
}

char **
qf_plan_page_get_enabled_keys (QfPlanPage *self)
{
  g_autoptr(GStrvBuilder) keys = g_strv_builder_new ();
  gboolean all = TRUE;

  g_return_val_if_fail (QF_IS_PLAN_PAGE (self), NULL);
  for (guint i = 0; i < self->rows->len; i++)
    {
      if (adw_expander_row_get_enable_expansion (g_ptr_array_index (self->rows, i)))
        g_strv_builder_add (keys, qf_profile_get_test (self->profile, i)->key);
      else
        all = FALSE;
    }
  return all ? NULL : g_strv_builder_end (keys);
}

gboolean
qf_plan_page_get_trace (QfPlanPage *self)
{
  g_return_val_if_fail (QF_IS_PLAN_PAGE (self), FALSE);
  return gtk_widget_get_visible (GTK_WIDGET (self->trace_group)) &&
         gtk_switch_get_active (self->trace_switch);
}

static void
qf_plan_page_dispose (GObject *object)
{
  QfPlanPage *self = QF_PLAN_PAGE (object);

  g_clear_pointer (&self->rows, g_ptr_array_unref);
  adw_bin_set_child (ADW_BIN (self), NULL);
  g_clear_object (&self->profile);
  G_OBJECT_CLASS (qf_plan_page_parent_class)->dispose (object);
}

static void
qf_plan_page_class_init (QfPlanPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = qf_plan_page_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-plan-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfPlanPage, tests_group);
  gtk_widget_class_bind_template_child (widget_class, QfPlanPage, incomplete_label);
  gtk_widget_class_bind_template_child (widget_class, QfPlanPage, trace_group);
  gtk_widget_class_bind_template_child (widget_class, QfPlanPage, trace_switch);
}

static void
qf_plan_page_init (QfPlanPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new ();
}
