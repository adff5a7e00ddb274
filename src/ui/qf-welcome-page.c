/* qf-welcome-page.c — step 1 of the wizard (src/ui): the role of this PC (qualify it, or be the
 * helper machine: win.helper-mode shows the helper page), the operator, customer and site (kept in
 * GSettings), the profile (shipped and user profiles from the core, their limits one click
 * away), quick or full run, training mode (replay a recording, or measure live against the
 * built-in peer answering as one of the core's emulated links), and "Resume" when an unfinished
 * session exists (found by a worker thread reading the sessions folder). Template: ui/qf-welcome-page.ui. */
#include "config.h"


#include "qf-entry-row.h"
#include "qf-i18n.h"
#include "qf-message-dialog.h"
#include "qf-session-check.h"
#include "qf-session.h"
#include "qf-verdict.h"
#include "qf-welcome-page.h"

struct _QfWelcomePage
{
  AdwBin               parent_instance;

  /* template widgets */
  GtkToggleButton     *qualify_toggle;
  AdwPreferencesGroup *resume_group;
  AdwActionRow        *resume_row;
  QfEntryRow          *operator_row;
  QfEntryRow          *customer_row;
  QfEntryRow          *site_row;
  AdwComboRow         *profile_row;
  GtkSwitch           *quick_switch;
  GtkSwitch           *training_switch;
  AdwActionRow        *training_row;
  GtkBox              *training_box;
  GtkToggleButton     *replay_toggle;

  /* owned */
  GPtrArray           *link_toggles;  /* GtkToggleButton per link preset (borrowed) */
  GSettings           *settings;
  GPtrArray           *profiles;     /* QfProfile, full profiles only */
  char                *resume_dir;
  GCancellable        *cancellable;
};

G_DEFINE_FINAL_TYPE (QfWelcomePage, qf_welcome_page, ADW_TYPE_BIN)

QfProfile *
qf_welcome_page_get_profile (QfWelcomePage *self)
{
  guint selected;

  g_return_val_if_fail (QF_IS_WELCOME_PAGE (self), NULL);
  selected = adw_combo_row_get_selected (self->profile_row);
  if (selected == GTK_INVALID_LIST_POSITION || selected >= self->profiles->len)
    return NULL;
  return g_ptr_array_index (self->profiles, selected);
}

gboolean
qf_welcome_page_get_quick (QfWelcomePage *self)
{
  g_return_val_if_fail (QF_IS_WELCOME_PAGE (self), FALSE);
  return gtk_switch_get_active (self->quick_switch);
}

gboolean
qf_welcome_page_get_training (QfWelcomePage *self)
{
  g_return_val_if_fail (QF_IS_WELCOME_PAGE (self), FALSE);
  return gtk_switch_get_active (self->training_switch);
}

const QfLinkPreset *
qf_welcome_page_get_training_link (QfWelcomePage *self)
{
  const QfLinkPreset *presets = qf_builtin_peer_get_presets ();

  g_return_val_if_fail (QF_IS_WELCOME_PAGE (self), NULL);
  if (self->link_toggles == NULL || !gtk_switch_get_active (self->training_switch))
    return NULL;
  for (guint i = 0; i < self->link_toggles->len; i++)
    if (gtk_toggle_button_get_active (g_ptr_array_index (self->link_toggles, i)))
      return &presets[i];
  return NULL;
}

/* The row's subtitle says what the chosen kind of training does. */
static void
training_choice_changed (QfWelcomePage *self)
{
  const QfLinkPreset *link = qf_welcome_page_get_training_link (self);
  g_autofree char *text = NULL;

  if (self->training_row == NULL)
    return;  /* still building the template */

  if (link == NULL)
    text = g_strdup (_("Plays a session file back with its live plots; nothing is measured."));
  else if (link->emulate.bloat_ms > 0)
    {
      g_autofree char *bloat = g_strdup_printf ("%.3g", link->emulate.bloat_ms);

      text = g_strdup_printf (_("Measures live against the built-in peer, whose queue adds up to %s ms to each reply while the bandwidth test loads the link (latency under load shows it)."),
                              bloat);
    }
  else if (link->emulate.delay_ms > 0 || link->emulate.jitter_ms > 0 || link->emulate.loss_pct > 0)
    {
      g_autofree char *delay = g_strdup_printf ("%.3g", link->emulate.delay_ms);
      g_autofree char *jitter = g_strdup_printf ("%.3g", link->emulate.jitter_ms);
      g_autofree char *loss = g_strdup_printf ("%.3g", link->emulate.loss_pct);

      text = g_strdup_printf (_("Measures live against the built-in peer, which holds each reply %s ms ± %s ms and loses %s %% of UDP replies."),
                              delay, jitter, loss);
    }
  else
    text = g_strdup (_("Measures live against the built-in peer with nothing added: this PC's loopback."));
  adw_action_row_set_subtitle (self->training_row, text);
}

/* One more choice per emulated link the core offers, grouped with "Recorded session". */
static void
add_link_choices (QfWelcomePage *self)
{
  const QfLinkPreset *presets = qf_builtin_peer_get_presets ();

  for (guint i = 0; presets[i].id != NULL; i++)
    {
      GtkWidget *toggle = gtk_toggle_button_new_with_label (_(presets[i].name));

      gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (toggle), self->replay_toggle);
      g_signal_connect_object (toggle, "toggled", G_CALLBACK (training_choice_changed), self,
                               G_CONNECT_SWAPPED);
      gtk_box_append (self->training_box, toggle);
      g_ptr_array_add (self->link_toggles, toggle);
    }
  training_choice_changed (self);
}

const char *
qf_welcome_page_get_resume_dir (QfWelcomePage *self)
{
  g_return_val_if_fail (QF_IS_WELCOME_PAGE (self), NULL);
  return self->resume_dir;
}

static void
load_profiles (QfWelcomePage *self)
{
  g_autoptr(GPtrArray) all = qf_profile_list (NULL);
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  g_autofree char *last = g_settings_get_string (self->settings, "last-profile");
  guint selected = 0;

  for (guint i = 0; i < all->len; i++)
    {
      QfProfile *profile = g_ptr_array_index (all, i);

      /* a quick variant is offered through the "Quick run" switch, not as a profile */
      if (g_str_has_suffix (qf_profile_get_id (profile), "-quick"))
        continue;
      if (g_strcmp0 (qf_profile_get_id (profile), last) == 0)
        selected = self->profiles->len;
      g_ptr_array_add (self->profiles, g_object_ref (profile));
      gtk_string_list_append (names, qf_profile_get_name (profile));
    }
  adw_combo_row_set_model (self->profile_row, G_LIST_MODEL (names));
  if (self->profiles->len > 0)
    adw_combo_row_set_selected (self->profile_row, selected);
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->profile_row),
                                 _("No profile could be loaded: reinstall Qualify or check the profiles folder."));
}

static void
profile_selected (QfWelcomePage *self)
{
  QfProfile *profile = qf_welcome_page_get_profile (self);

  if (profile == NULL)
    return;
  g_settings_set_string (self->settings, "last-profile", qf_profile_get_id (profile));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->profile_row), qf_profile_get_description (profile));
}

static void
limits_clicked (QfWelcomePage *self)
{
  QfProfile *profile = qf_welcome_page_get_profile (self);
  g_autoptr(GString) body = g_string_new ("");
  GtkWidget *dialog;

  if (profile == NULL)
    return;
  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    {
      const QfProfileTest *test = qf_profile_get_test (profile, i);

      g_string_append_printf (body, "%s\n", test->title ? _(test->title) : test->key);
      if (test->criteria->len == 0)
        g_string_append_printf (body, "    %s\n", _("informative, no limit"));
      for (guint j = 0; j < test->criteria->len; j++)
        {
          const QfCriterion *c = g_ptr_array_index (test->criteria, j);
          g_autofree char *limit = qf_verdict_format_value (c->limit, c->unit);

          g_string_append_printf (body, "    %s %s %s%s\n", _(c->label),
                                  c->comparison == QF_COMPARISON_AT_MOST ? "≤" : "≥", limit,
                                  c->role == QF_ROLE_WARNS ? _(" (warning only)") : "");
        }
    }
  dialog = qf_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                  qf_profile_get_name (profile), body->str);
  qf_message_dialog_add_response (QF_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- resume: the newest unfinished session in the sessions folder (worker thread) ---- */

static void
find_unfinished_thread (GTask        *task,
                        gpointer      source,
                        gpointer      task_data,
                        GCancellable *cancellable)
{
  g_autofree char *base = qf_session_get_default_base ();
  g_autoptr(GDir) dir = g_dir_open (base, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  /* folder names start with the date: newest last */
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = names->len; i > 0 && names->len - i < 20; i--)
    {
      const char *entry = *(const char **) &g_ptr_array_index (names, i - 1);
      g_autofree char *path = g_build_filename (base, entry, NULL);
      g_autoptr(QfSession) session = qf_session_load (path, NULL);
      const char *state = session ? qf_session_get_state (session) : NULL;

      if (g_task_return_error_if_cancelled (task))
        return;
      if (g_strcmp0 (state, "running") == 0 || g_strcmp0 (state, "cancelled") == 0)
        {
          g_task_return_pointer (task, g_steal_pointer (&path), g_free);
          return;
        }
    }
  g_task_return_pointer (task, NULL, NULL);
}

static void
find_unfinished_done (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  QfWelcomePage *self;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *basename = NULL;

  if (error != NULL)
    return;  /* cancelled: the page is gone */
  self = QF_WELCOME_PAGE (object);
  g_free (self->resume_dir);
  self->resume_dir = g_steal_pointer (&dir);
  gtk_widget_set_visible (GTK_WIDGET (self->resume_group), self->resume_dir != NULL);
  if (self->resume_dir != NULL)
    {
      basename = g_path_get_basename (self->resume_dir);
      adw_action_row_set_subtitle (self->resume_row, basename);
    }
}

void
qf_welcome_page_refresh_resume (QfWelcomePage *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (QF_IS_WELCOME_PAGE (self));
  task = g_task_new (self, self->cancellable, find_unfinished_done, NULL);
  g_task_run_in_thread (task, find_unfinished_thread);
}

/* "Be the helper machine": one click leads to the helper page, which starts the helper. */
static void
helper_toggled (QfWelcomePage   *self,
                GtkToggleButton *toggle)
{
  if (gtk_toggle_button_get_active (toggle))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.helper-mode", NULL);
}

/* Shown again (back from the helper page): the role is this PC's qualification. */
static void
qf_welcome_page_map (GtkWidget *widget)
{
  QfWelcomePage *self = QF_WELCOME_PAGE (widget);

  gtk_toggle_button_set_active (self->qualify_toggle, TRUE);
  GTK_WIDGET_CLASS (qf_welcome_page_parent_class)->map (widget);
}

static void
qf_welcome_page_dispose (GObject *object)
{
  QfWelcomePage *self = QF_WELCOME_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  adw_bin_set_child (ADW_BIN (self), NULL);
  G_OBJECT_CLASS (qf_welcome_page_parent_class)->dispose (object);
}

/* A name row: at most QF_SESSION_MAX_NAME_CHARS characters can be typed; text the session
 * would refuse (a control character pasted in) marks the row and says why in its tooltip, and
 * starting the tests is refused with the same words (qf_session_setup). */
static void
name_changed (QfEntryRow *row)
{
  g_autoptr(GError) error = NULL;
  const char *title = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row));

  if (qf_session_check_name (title, gtk_editable_get_text (GTK_EDITABLE (row)), &error))
    {
      gtk_widget_remove_css_class (GTK_WIDGET (row), "error");
      gtk_widget_set_tooltip_text (GTK_WIDGET (row), NULL);
      return;
    }
  gtk_widget_add_css_class (GTK_WIDGET (row), "error");
  gtk_widget_set_tooltip_text (GTK_WIDGET (row), error->message);
}

static void
limit_name_row (QfEntryRow *row)
{
  GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (row));

  if (GTK_IS_TEXT (text))
    gtk_text_set_max_length (GTK_TEXT (text), QF_SESSION_MAX_NAME_CHARS);
  g_signal_connect (row, "changed", G_CALLBACK (name_changed), NULL);
  name_changed (row);
}

static void
qf_welcome_page_finalize (GObject *object)
{
  QfWelcomePage *self = QF_WELCOME_PAGE (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->profiles, g_ptr_array_unref);
  g_clear_pointer (&self->resume_dir, g_free);
  g_clear_pointer (&self->link_toggles, g_ptr_array_unref);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (qf_welcome_page_parent_class)->finalize (object);
}

static void
qf_welcome_page_class_init (QfWelcomePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_welcome_page_dispose;
  object_class->finalize = qf_welcome_page_finalize;
  widget_class->map = qf_welcome_page_map;

  g_type_ensure (QF_TYPE_ENTRY_ROW);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-welcome-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, qualify_toggle);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, resume_group);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, resume_row);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, operator_row);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, customer_row);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, site_row);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, profile_row);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, quick_switch);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, training_switch);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, training_row);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, training_box);
  gtk_widget_class_bind_template_child (widget_class, QfWelcomePage, replay_toggle);
  gtk_widget_class_bind_template_callback (widget_class, training_choice_changed);
  gtk_widget_class_bind_template_callback (widget_class, limits_clicked);
  gtk_widget_class_bind_template_callback (widget_class, helper_toggled);
}

static void
qf_welcome_page_init (QfWelcomePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (APP_ID);
  self->profiles = g_ptr_array_new_with_free_func (g_object_unref);
  self->link_toggles = g_ptr_array_new ();
  self->cancellable = g_cancellable_new ();
  add_link_choices (self);
  g_settings_bind (self->settings, "operator", self->operator_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "customer", self->customer_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "site", self->site_row, "text", G_SETTINGS_BIND_DEFAULT);
  limit_name_row (self->operator_row);
  limit_name_row (self->customer_row);
  limit_name_row (self->site_row);
  load_profiles (self);
  profile_selected (self);
  g_signal_connect_object (self->profile_row, "notify::selected", G_CALLBACK (profile_selected),
                           self, G_CONNECT_SWAPPED);
  qf_welcome_page_refresh_resume (self);
}
