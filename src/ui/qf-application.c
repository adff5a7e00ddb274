/* qf-application.c — application-wide actions (quit, about, help), the main window, the
 * --replay option for trainers, --helper (start as the helper machine) and the verify view for files opened with Qualify ("Open With",
 * `qualify FILE`, `qualify --verify FILE`) (src/ui). Dark style follows the system through
 * AdwStyleManager's default scheme. */
#include "config.h"


#include "qf-about-window.h"
#include "qf-application.h"
#include "qf-i18n.h"
#include "qf-verify-window.h"
#include "qf-window.h"

struct _QfApplication
{
  AdwApplication parent_instance;

  char          *replay_path;   /* --replay: a recorded session to play back at start */
  gdouble        replay_speed;
  char          *verify_path;   /* --verify: a report to open in the verify view at start */
  gboolean       helper;        /* --helper: start as the helper machine */
};

G_DEFINE_FINAL_TYPE (QfApplication, qf_application, ADW_TYPE_APPLICATION)

QfApplication *
qf_application_new (void)
{
  return g_object_new (QF_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/qualify/Qualify",
                       NULL);
}

/* The wizard's window among the application's windows (the last one used first), or NULL. */
static QfWindow *
find_wizard (GtkApplication *app)
{
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    if (QF_IS_WINDOW (l->data))
      return QF_WINDOW (l->data);
  return NULL;
}

static void
qf_application_activate (GApplication *app)
{
  QfApplication *self = QF_APPLICATION (app);
  /* the wizard, even when a verify or certificate window is the active one */
  GtkWindow *window = (GtkWindow *) find_wizard (GTK_APPLICATION (app));

  if (self->verify_path != NULL)
    {
      g_autofree char *path = g_steal_pointer (&self->verify_path);
      g_autoptr(GFile) file = g_file_new_for_path (path);

      qf_verify_window_present (GTK_APPLICATION (app), file);
      return;
    }
  if (window == NULL)
    window = GTK_WINDOW (qf_window_new (self));
  gtk_window_present (window);
  if (self->helper)
    {
      self->helper = FALSE;
      qf_window_show_helper (QF_WINDOW (window));
    }
  if (self->replay_path != NULL)
    {
      g_autofree char *path = g_steal_pointer (&self->replay_path);

      qf_window_replay (QF_WINDOW (window), path, self->replay_speed);
    }
}

/* Files handed to Qualify (a file manager's "Open With", `qualify FILE`) are reports to verify. */
static void
qf_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  for (int i = 0; i < n_files; i++)
    qf_verify_window_present (GTK_APPLICATION (app), files[i]);
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  /* close, not quit: a window with a test running asks first and stops it cleanly */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_window_present (GTK_WINDOW (qf_about_window_new (parent)));
}

static void
help_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  g_autofree char *uri = NULL;

  /* the page of the step on screen (help/C/<page-id>.page) */
  if (QF_IS_WINDOW (window))
    uri = g_strdup_printf ("help:qualify/%s", qf_window_get_help_page (QF_WINDOW (window)));
  gtk_show_uri (window, uri ? uri : "help:qualify", GDK_CURRENT_TIME);
}

/* `qualify --helper` while Qualify runs: the wizard's window (the active one may be a verify
 * or certificate window) becomes the helper machine; when it cannot, its toast says why. */
static void
helper_mode_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  QfWindow *window = find_wizard (GTK_APPLICATION (user_data));

  if (window == NULL)
    window = qf_window_new (QF_APPLICATION (user_data));
  gtk_window_present (GTK_WINDOW (window));
  qf_window_show_helper (window);
}

static const GActionEntry app_actions[] = {
  { "quit", quit_activated },
  { "helper-mode", helper_mode_activated },
  { "about", about_activated },
  { "help", help_activated },
};

static void
qf_application_startup (GApplication *app)
{
  const char *quit_accels[] = { "<Control>q", NULL };
  const char *help_accels[] = { "F1", NULL };

  G_APPLICATION_CLASS (qf_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.help", help_accels);
}

/* --verify FILE: a running Qualify opens it (the local process then ends); otherwise this process
 * becomes the application and activate opens it. */
static gint
verify_option (QfApplication *self,
               const char    *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;

  if (!g_application_register (G_APPLICATION (self), NULL, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  if (g_application_get_is_remote (G_APPLICATION (self)))
    {
      g_application_open (G_APPLICATION (self), &file, 1, "verify");
      return 0;
    }
  self->verify_path = g_file_get_path (file);
  if (self->verify_path == NULL)
    self->verify_path = g_strdup (path);
  return -1;
}

static gint
qf_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  QfApplication *self = QF_APPLICATION (app);
  const char *path = NULL;

  if (g_variant_dict_lookup (options, "replay", "^&ay", &path) && path != NULL && *path != '\0')
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);

      self->replay_path = g_file_get_path (file);
    }
  self->helper = g_variant_dict_contains (options, "helper");
  if (self->helper)
    {
      g_autoptr(GError) error = NULL;

      if (!g_application_register (app, NULL, &error))
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
      if (g_application_get_is_remote (app))
        {
          /* a Qualify runs already: it becomes the helper machine, this process ends */
          g_action_group_activate_action (G_ACTION_GROUP (app), "helper-mode", NULL);
          return 0;
        }
    }
  if (!g_variant_dict_lookup (options, "speed", "d", &self->replay_speed) || !(self->replay_speed > 0))
    self->replay_speed = 1.0;
  if (g_variant_dict_lookup (options, "verify", "^&ay", &path) && path != NULL && *path != '\0')
    return verify_option (self, path);
  return -1;  /* go on: activate */
}

static void
qf_application_finalize (GObject *object)
{
  g_free (QF_APPLICATION (object)->replay_path);
  g_free (QF_APPLICATION (object)->verify_path);
  G_OBJECT_CLASS (qf_application_parent_class)->finalize (object);
}

static void
qf_application_class_init (QfApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = qf_application_finalize;
  app_class->activate = qf_application_activate;
  app_class->open = qf_application_open;
  app_class->startup = qf_application_startup;
  app_class->handle_local_options = qf_application_handle_local_options;
}

static void
qf_application_init (QfApplication *self)
{
  const GOptionEntry entries[] = {
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Play back a recorded session with its live plots (training)"), N_("SESSION.json") },
    { "speed", 0, 0, G_OPTION_ARG_DOUBLE, NULL,
      N_("Replay speed factor (default 1 = real time)"), N_("X") },
    { "verify", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Check a signed report (PDF or HTML) in the verify view"), N_("REPORT") },
    { "helper", 0, 0, G_OPTION_ARG_NONE, NULL,
      N_("Start as the helper machine: answer the network tests of the PC under test"), NULL },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}
