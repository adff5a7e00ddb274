/* qf-window.c — the wizard's main window (src/ui): a header bar saying which step this is, a
 * stack of the seven pages (one class each, src/ui/qf-<page>-page.c) and the bottom bar with
 * "Back" on the left and the suggested action on the right. The window moves between pages and
 * creates the session and the runner from what the pages hold; everything measured or judged
 * comes from the core. Closing the window during a test asks first and then stops the run
 * cleanly (the session is saved with the step cancelled). "Be the helper machine" shows the
 * helper page (src/ui/qf-helper-page.c) instead of the steps; leaving it (Back returns to the
 * step it was entered from) stops the helper. Template:
 * ui/qf-window.ui. */
#include "config.h"


#include "qf-cert-window.h"
#include "qf-code-dialog.h"
#include "qf-helper-page.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-message-dialog.h"
#include "qf-network-page.h"
#include "qf-plan-page.h"
#include "qf-report-page.h"
#include "qf-results-page.h"
#include "qf-run-page.h"
#include "qf-runner.h"
#include "qf-session-setup.h"
#include "qf-session.h"
#include "qf-system-page.h"
#include "qf-verify-window.h"
#include "qf-welcome-page.h"
#include "qf-window.h"

typedef enum
{
  PAGE_WELCOME,
  PAGE_SYSTEM,
  PAGE_NETWORK,
  PAGE_PLAN,
  PAGE_RUN,
  PAGE_RESULTS,
  PAGE_REPORT,
  N_PAGES
} Page;

/* stack child names = Mallard page ids of the help */
static const char *page_ids[N_PAGES] = { "welcome", "system", "network", "plan", "run", "results", "report" };

struct _QfWindow
{
  AdwApplicationWindow parent_instance;

  /* template widgets */
  AdwToastOverlay *toasts;
  AdwWindowTitle  *title_widget;
  GtkStack        *pages;
  QfWelcomePage   *welcome_page;
  QfSystemPage    *system_page;
  QfNetworkPage   *network_page;
  QfPlanPage      *plan_page;
  QfRunPage       *run_page;
  QfResultsPage   *results_page;
  QfReportPage    *report_page;
  QfHelperPage    *helper_page;
  GtkButton       *back_button;
  GtkButton       *next_button;

  /* owned */
  GSettings       *settings;
  QfProfile       *run_profile;    /* the variant that will run */
  QfSession       *session;
  Page             page;
  gboolean         close_when_stopped;
  gboolean         run_done;       /* the run page's run has ended: its results can be shown */
  gboolean         helper_mode;    /* the helper page is shown instead of the wizard's steps */
};

G_DEFINE_FINAL_TYPE (QfWindow, qf_window, ADW_TYPE_APPLICATION_WINDOW)

QfWindow *
qf_window_new (QfApplication *app)
{
  return g_object_new (QF_TYPE_WINDOW, "application", app, NULL);
}

const char *
qf_window_get_help_page (QfWindow *self)
{
  g_return_val_if_fail (QF_IS_WINDOW (self), "index");
  return self->helper_mode ? "helper-machine" : page_ids[self->page];
}

void
qf_window_toast (QfWindow   *self,
                 const char *message)
{
  AdwToast *toast;

  g_return_if_fail (QF_IS_WINDOW (self));
  toast = adw_toast_new (message);
  adw_toast_set_timeout (toast, 8);
  adw_toast_overlay_add_toast (self->toasts, toast);
}

/* Next waits for the end of the run on the run page, and on the network page for the end of
 * its network audit (the session keeps the audit that was on screen) and for a peer. */
static gboolean
next_allowed (QfWindow *self)
{
  if (self->helper_mode)
    return FALSE;
  if (self->page == PAGE_RUN)
    return self->run_done;
  /* and for a peer: never the built-in one unless chosen */
  if (self->page == PAGE_NETWORK)
    return !qf_network_page_get_audit_running (self->network_page)
           && qf_network_page_get_peer_chosen (self->network_page);
  return TRUE;
}

static void
next_allowed_changed (QfWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.next", next_allowed (self));
}

static void
go_to (QfWindow *self,
       Page      page)
{
  static const char *next_labels[N_PAGES] = {
    N_("_Start"), N_("_Next"), N_("_Next"), N_("Start _tests"), N_("See _results"), N_("_Report"), N_("_Done"),
  };
  g_autofree char *subtitle = NULL;
  GtkStackPage *stack_page;

  /* leaving helper mode, however it happens, stops the helper */
  if (self->helper_mode)
    qf_helper_page_stop (self->helper_page);
  self->page = page;
  self->helper_mode = FALSE;
  gtk_stack_set_visible_child_name (self->pages, page_ids[page]);
  stack_page = gtk_stack_get_page (self->pages, gtk_stack_get_visible_child (self->pages));
  subtitle = g_strdup_printf (_("Step %u of %u: %s"), page + 1, N_PAGES, gtk_stack_page_get_title (stack_page));
  adw_window_title_set_subtitle (self->title_widget, subtitle);

  gtk_button_set_label (self->next_button, _(next_labels[page]));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->next_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_button_get_label (self->next_button), -1);
  gtk_widget_set_visible (GTK_WIDGET (self->back_button), page != PAGE_WELCOME && page != PAGE_RUN);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.next", next_allowed (self));
  gtk_widget_set_visible (GTK_WIDGET (self->next_button), page != PAGE_REPORT);

  /* Keyboard: Return (from the suggested action or an entry) takes the next step; focus starts
   * on the suggested action, Tab walks the page from there, and leaves a page that is gone. */
  gtk_window_set_default_widget (GTK_WINDOW (self), GTK_WIDGET (self->next_button));
  if (!gtk_widget_get_visible (GTK_WIDGET (self->next_button))
      || !gtk_widget_is_sensitive (GTK_WIDGET (self->next_button))
      || !gtk_widget_grab_focus (GTK_WIDGET (self->next_button)))
    gtk_widget_child_focus (gtk_stack_get_visible_child (self->pages), GTK_DIR_TAB_FORWARD);
}

gboolean
qf_window_show_helper (QfWindow *self)
{
  g_return_val_if_fail (QF_IS_WINDOW (self), FALSE);
  /* a run needs this PC's network and CPU to itself; the page left stays as it is for Back */
  if (qf_run_page_is_running (self->run_page))
    {
      qf_window_toast (self, _("A test is running on this PC: let it finish, or stop it, before this PC becomes the helper machine."));
      return FALSE;
    }
  if (self->helper_mode)
    return TRUE;
  self->helper_mode = TRUE;
  gtk_stack_set_visible_child_name (self->pages, "helper-machine");
  adw_window_title_set_subtitle (self->title_widget, _("Helper machine"));
  gtk_widget_set_visible (GTK_WIDGET (self->back_button), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->next_button), FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.next", FALSE);
  qf_helper_page_start (self->helper_page);
  gtk_widget_child_focus (GTK_WIDGET (self->helper_page), GTK_DIR_TAB_FORWARD);
  return TRUE;
}

static void
helper_mode_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  qf_window_show_helper (QF_WINDOW (widget));
}

/* The profile itself, or its quick variant for a quick run. */
static QfProfile *
run_profile_variant (QfProfile  *profile,
                     gboolean    quick,
                     GError    **error)
{
  g_autoptr(GError) local_error = NULL;
  QfProfile *run_profile = qf_session_setup_run_profile (profile, quick, &local_error);

  if (g_error_matches (local_error, QF_SESSION_SETUP_ERROR, QF_SESSION_SETUP_ERROR_NO_QUICK_VARIANT))
    g_set_error (error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_NOT_FOUND,
                 _("Profile “%s” has no quick variant: switch “Quick run” off."), qf_profile_get_name (profile));
  else if (local_error != NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return run_profile;
}

/* The profile that runs: the welcome page's choice in the variant for the chosen interface's
 * kind (a profile of the same family — same id before the first '-' — made for that kind), then
 * its quick variant when asked for. */
static QfProfile *
choose_run_profile (QfWindow  *self,
                    GError   **error)
{
  QfProfile *base = qf_welcome_page_get_profile (self->welcome_page);
  QfNetIface *iface = qf_network_page_get_iface (self->network_page);
  g_autoptr(QfProfile) profile = NULL;

  if (base == NULL)
    {
      g_set_error_literal (error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_NOT_FOUND,
                           _("No profile is available: reinstall Qualify or check the profiles folder."));
      return NULL;
    }
  profile = g_object_ref (base);
  if (iface != NULL && g_strcmp0 (qf_network_page_get_peer_kind (self->network_page), "builtin") != 0)
    {
      const char *want = qf_net_iface_get_kind (iface) == QF_NET_IFACE_WIRELESS ? "wireless" : "wired";
      const char *have = qf_profile_get_network_kind (profile);

      if (g_strcmp0 (have, "any") != 0 && g_strcmp0 (have, want) != 0)
        {
          g_autoptr(GPtrArray) all = qf_profile_list (NULL);
          g_auto(GStrv) family = g_strsplit (qf_profile_get_id (profile), "-", 2);

          for (guint i = 0; i < all->len; i++)
            {
              QfProfile *candidate = g_ptr_array_index (all, i);
              g_auto(GStrv) other = g_strsplit (qf_profile_get_id (candidate), "-", 2);

              if (g_str_equal (family[0], other[0]) && g_strcmp0 (qf_profile_get_network_kind (candidate), want) == 0
                  && !g_str_has_suffix (qf_profile_get_id (candidate), "-quick"))
                {
                  g_set_object (&profile, candidate);
                  break;
                }
            }
        }
    }
  return run_profile_variant (profile, qf_welcome_page_get_quick (self->welcome_page), error);
}

static gboolean
start_runner (QfWindow *self,
              QfRunner *runner)
{
  g_autoptr(GError) error = NULL;

  g_set_object (&self->session, qf_runner_get_session (runner));
  self->run_done = FALSE;
  go_to (self, PAGE_RUN);
  if (!qf_run_page_start (self->run_page, runner, &error))
    {
      qf_window_toast (self, error->message);
      go_to (self, PAGE_PLAN);
      return FALSE;
    }
  return TRUE;
}

/* The emulated link of a training run: a re-run repeats the session it comes from, training or
 * not; a new run takes the welcome page's choice. FALSE for a real run. */
static gboolean
training_link (QfWindow             *self,
               gboolean              rerun,
               QfResponderEmulation *emulate)
{
  const QfLinkPreset *link = qf_welcome_page_get_training_link (self->welcome_page);
  JsonObject *training = self->session != NULL ? qf_session_get_training (self->session) : NULL;

  if (rerun && training != NULL)
    {
      emulate->delay_ms = qf_json_get_double (training, "delay_ms", 0);
      emulate->jitter_ms = qf_json_get_double (training, "jitter_ms", 0);
      emulate->loss_pct = qf_json_get_double (training, "loss_pct", 0);
      return TRUE;
    }
  if (!rerun && link != NULL)
    {
      *emulate = link->emulate;
      return TRUE;
    }
  return FALSE;
}

/* A new session of the run profile; only the tests in keys run (NULL: the plan's choice). */
static gboolean
start_tests (QfWindow          *self,
             const char *const *only)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfRunner) runner = NULL;
  g_auto(GStrv) keys = only ? g_strdupv ((GStrv) only) : qf_plan_page_get_enabled_keys (self->plan_page);
  g_autofree char *operator_name = g_settings_get_string (self->settings, "operator");
  g_autofree char *customer = g_settings_get_string (self->settings, "customer");
  g_autofree char *site = g_settings_get_string (self->settings, "site");
  const char *peer_kind = qf_network_page_get_peer_kind (self->network_page);
  gboolean remote = g_str_equal (peer_kind, "remote");
  QfResponderEmulation emulate = { 0 };
  QfSessionChoices choices = {
    .profile = self->run_profile,
    .quick = qf_welcome_page_get_quick (self->welcome_page),
    .operator_name = operator_name,
    .customer = customer,
    .site = site,
    .root = "/",
    .peer_kind = peer_kind,
    .peer_address = remote ? qf_network_page_get_peer_address (self->network_page) : NULL,
    /* with the built-in peer the session is on loopback, whatever interface was picked */
    .iface = g_str_equal (peer_kind, "builtin") ? NULL : qf_network_page_get_iface (self->network_page),
    .token_file = remote ? qf_network_page_get_token_file (self->network_page) : NULL,
    .pairing_code = remote ? qf_network_page_get_pairing_code (self->network_page) : NULL,
    .rerun = only != NULL,
    .only = (const char *const *) keys,
    .emulation = training_link (self, only != NULL, &emulate) ? &emulate : NULL,
    .trace = qf_plan_page_get_trace (self->plan_page),
  };

  /* a helper found by discovery may answer on ports of its own */
  if (remote)
    qf_network_page_get_peer_ports (self->network_page, &choices.peer_latency_port,
                                    &choices.peer_bandwidth_port);
  /* the audit the person saw, with NetworkManager's facts; else setup reads the kernel's */
  if (choices.iface != NULL)
    choices.network_audit = qf_network_page_get_network_audit (self->network_page);

  session = qf_session_setup (&choices, &error);
  if (session == NULL)
    {
      qf_window_toast (self, error->message);
      return FALSE;
    }
  runner = qf_session_setup_runner (session, &choices);
  return start_runner (self, runner);
}

gboolean
qf_window_replay (QfWindow   *self,
                  const char *path,
                  gdouble     speed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSession) recorded = NULL;
  g_autoptr(QfRunner) runner = NULL;

  g_return_val_if_fail (QF_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (qf_run_page_is_running (self->run_page))
    return FALSE;
  recorded = qf_session_load (path, &error);
  if (recorded == NULL)
    {
      qf_window_toast (self, error->message);
      return FALSE;
    }
  runner = qf_runner_new_replay (recorded, speed > 0 ? speed : 1.0);
  return start_runner (self, runner);
}

static void
replay_chosen (GtkNativeDialog *dialog,
               int              response,
               QfWindow        *self)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  g_object_unref (dialog);
  if (file == NULL)
    return;
  path = g_file_get_path (file);
  qf_window_replay (self, path, 1.0);
}

static void
choose_replay (QfWindow *self)
{
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *base = qf_session_get_default_base ();
  g_autoptr(GFile) folder = g_file_new_for_path (base);

  chooser = gtk_file_chooser_native_new (_("Choose a recorded session to replay"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Replay"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("Qualify sessions"));
  gtk_file_filter_add_pattern (filter, "session.json");
  gtk_file_filter_add_pattern (filter, "*.json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (replay_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
next_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  QfWindow *self = QF_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  switch (self->page)
    {
    case PAGE_WELCOME:
      if (qf_welcome_page_get_training (self->welcome_page)
          && qf_welcome_page_get_training_link (self->welcome_page) == NULL)
        {
          choose_replay (self);
          return;
        }
      /* live training measures against the built-in peer only */
      qf_network_page_set_builtin_only (self->network_page,
                                        qf_welcome_page_get_training_link (self->welcome_page) != NULL);
      qf_system_page_refresh (self->system_page);
      go_to (self, PAGE_SYSTEM);
      break;
    case PAGE_SYSTEM:
      go_to (self, PAGE_NETWORK);
      break;
    case PAGE_NETWORK:
      {
        g_autoptr(QfProfile) profile = NULL;
        const char *peer_kind = qf_network_page_get_peer_kind (self->network_page);

        if (!next_allowed (self))
          return;
        profile = choose_run_profile (self, &error);

        if (profile == NULL)
          {
            qf_window_toast (self, error->message);
            return;
          }
        g_set_object (&self->run_profile, profile);
        qf_plan_page_set_profile (self->plan_page, profile,
                                  g_str_equal (peer_kind, "none") ? NULL : qf_network_page_get_peer_address (self->network_page));
        go_to (self, PAGE_PLAN);
      }
      break;
    case PAGE_PLAN:
      start_tests (self, NULL);
      break;
    case PAGE_RUN:
      if (!self->run_done)
        return;
      if (self->session != NULL)
        qf_results_page_show (self->results_page, self->session);
      go_to (self, PAGE_RESULTS);
      break;
    case PAGE_RESULTS:
      if (self->session != NULL)
        qf_report_page_set_session (self->report_page, self->session);
      go_to (self, PAGE_REPORT);
      break;
    case PAGE_REPORT:
    case N_PAGES:
    default:
      break;
    }
}

static void
back_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  QfWindow *self = QF_WINDOW (widget);

  if (self->helper_mode)
    {
      /* back to the page helper mode was entered from (a report not yet exported stays on
       * screen); go_to stops the helper */
      go_to (self, self->page);
      return;
    }
  if (self->page == PAGE_WELCOME || self->page == PAGE_RUN)
    return;
  if (self->page == PAGE_RESULTS)
    {
      /* back from the results is a new start, not the finished run */
      qf_welcome_page_refresh_resume (self->welcome_page);
      go_to (self, PAGE_WELCOME);
      return;
    }
  go_to (self, self->page - 1);
}

/* A resumed run waiting for the pairing code dialog's answer. */
typedef struct
{
  GWeakRef  window;
  QfRunner *runner;
} ResumeWait;

static void
resume_with_code (GBytes   *token,
                  gpointer  data)
{
  ResumeWait *wait = data;
  g_autoptr(QfWindow) self = g_weak_ref_get (&wait->window);

  /* token NULL: the person cancelled; the session stays as it was, to resume later */
  if (token != NULL && self != NULL && !qf_run_page_is_running (self->run_page))
    {
      qf_runner_set_token (wait->runner, token);
      start_runner (self, wait->runner);
    }
  g_weak_ref_clear (&wait->window);
  g_object_unref (wait->runner);
  g_free (wait);
}

static void
resume_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  QfWindow *self = QF_WINDOW (widget);
  const char *dir = qf_welcome_page_get_resume_dir (self->welcome_page);
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSession) session = NULL;
  g_autoptr(QfRunner) runner = NULL;

  if (dir == NULL || qf_run_page_is_running (self->run_page))
    return;
  session = qf_session_load (dir, &error);
  if (session == NULL || !qf_session_set_dir (session, dir, &error))
    {
      qf_window_toast (self, error->message);
      return;
    }
  qf_session_prepare_resume (session);
  runner = qf_runner_new (session);
  if (qf_session_get_pairing_code_used (session))
    {
      /* the code is never stored: the helper machine's code of now, then the run */
      ResumeWait *wait = g_new0 (ResumeWait, 1);

      g_weak_ref_init (&wait->window, self);
      wait->runner = g_steal_pointer (&runner);
      qf_code_dialog_ask (GTK_WINDOW (self), qf_session_get_peer_address (session),
                          resume_with_code, wait);
      return;
    }
  start_runner (self, runner);
}

/* The primary menu's "Signing certificate": a change there is what the report page says next. */
static void
signing_certificate_activated (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  QfWindow *self = QF_WINDOW (widget);
  QfCertWindow *window = qf_cert_window_new (GTK_WINDOW (self));

  g_signal_connect_object (window, "changed", G_CALLBACK (qf_report_page_refresh_signer),
                           self->report_page, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (window));
}

static void
rerun_requested (QfWindow   *self,
                 const char *key)
{
  const char *only[] = { key, NULL };

  if (key == NULL || self->session == NULL || qf_run_page_is_running (self->run_page))
    return;
  g_set_object (&self->run_profile, qf_session_get_profile (self->session));
  start_tests (self, only);
}

/* A failed save stopped the run: the cause, and what to do, where the operator cannot miss it. */
static void
show_save_failure (QfWindow     *self,
                   QfRunner     *runner,
                   const GError *error)
{
  const char *dir = qf_session_get_dir (qf_runner_get_session (runner));
  g_autofree char *body = g_strdup_printf (_("%s\n\nThe run stopped here, so that no result goes unrecorded. The session in %s keeps everything saved before. Make room on that disk (or make the folder writable again), then continue the session with Resume on the first page."),
                                           error->message, dir != NULL ? dir : "");
  GtkWidget *dialog = qf_message_dialog_new (GTK_WINDOW (self), _("The session could not be saved"), body);

  qf_message_dialog_add_response (QF_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
run_finished (QfWindow *self,
              gboolean  cancelled)
{
  QfRunner *runner = qf_run_page_get_runner (self->run_page);

  self->run_done = TRUE;
  if (runner != NULL && qf_runner_get_save_error (runner) != NULL)
    show_save_failure (self, runner, qf_runner_get_save_error (runner));
  if (self->close_when_stopped)
    {
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }
  go_to (self, self->page);
}

static void
stop_response (QfMessageDialog *dialog,
               const char       *response,
               QfWindow         *self)
{
  if (g_strcmp0 (response, "stop") != 0)
    return;
  self->close_when_stopped = TRUE;
  qf_run_page_cancel (self->run_page);
}

static gboolean
qf_window_close_request (GtkWindow *window)
{
  QfWindow *self = QF_WINDOW (window);
  GtkWidget *dialog;

  if (!qf_run_page_is_running (self->run_page))
    return GTK_WINDOW_CLASS (qf_window_parent_class)->close_request (window);
  if (self->close_when_stopped)
    return TRUE;  /* already stopping */
  dialog = qf_message_dialog_new (window, _("Stop the test?"),
                                  _("A test is running. Stopping keeps the tests finished so far in the session; the current one is marked cancelled and can be run again with Resume."));
  qf_message_dialog_add_responses (QF_MESSAGE_DIALOG (dialog), "continue", _("_Keep testing"),
                                   "stop", _("_Stop and close"), NULL);
  qf_message_dialog_set_response_appearance (QF_MESSAGE_DIALOG (dialog), "stop", QF_RESPONSE_DESTRUCTIVE);
  qf_message_dialog_set_default_response (QF_MESSAGE_DIALOG (dialog), "continue");
  qf_message_dialog_set_close_response (QF_MESSAGE_DIALOG (dialog), "continue");
  g_signal_connect_object (dialog, "response", G_CALLBACK (stop_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

static void
qf_window_dispose (GObject *object)
{
  QfWindow *self = QF_WINDOW (object);

  g_clear_object (&self->session);
  g_clear_object (&self->run_profile);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (self), NULL);
  G_OBJECT_CLASS (qf_window_parent_class)->dispose (object);
}

static void
qf_window_finalize (GObject *object)
{
  g_clear_object (&QF_WINDOW (object)->settings);
  G_OBJECT_CLASS (qf_window_parent_class)->finalize (object);
}

/* "Verify a Report…": the customer's check of a signed report, in its own window. */
static void
verify_report_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  qf_verify_window_choose (GTK_WINDOW (widget));
}

static void
qf_window_class_init (QfWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = qf_window_dispose;
  object_class->finalize = qf_window_finalize;
  window_class->close_request = qf_window_close_request;

  g_type_ensure (QF_TYPE_WELCOME_PAGE);
  g_type_ensure (QF_TYPE_SYSTEM_PAGE);
  g_type_ensure (QF_TYPE_NETWORK_PAGE);
  g_type_ensure (QF_TYPE_PLAN_PAGE);
  g_type_ensure (QF_TYPE_RUN_PAGE);
  g_type_ensure (QF_TYPE_RESULTS_PAGE);
  g_type_ensure (QF_TYPE_REPORT_PAGE);
  g_type_ensure (QF_TYPE_HELPER_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-window.ui");
  gtk_widget_class_bind_template_child (widget_class, QfWindow, toasts);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, title_widget);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, pages);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, welcome_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, system_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, network_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, plan_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, run_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, results_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, report_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, helper_page);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, next_button);
  gtk_widget_class_bind_template_callback (widget_class, run_finished);
  gtk_widget_class_bind_template_callback (widget_class, rerun_requested);

  gtk_widget_class_install_action (widget_class, "win.next", NULL, next_activated);
  gtk_widget_class_install_action (widget_class, "win.back", NULL, back_activated);
  gtk_widget_class_install_action (widget_class, "win.resume", NULL, resume_activated);
  gtk_widget_class_install_action (widget_class, "win.helper-mode", NULL, helper_mode_activated);
  gtk_widget_class_install_action (widget_class, "win.verify-report", NULL, verify_report_activated);
  gtk_widget_class_install_action (widget_class, "win.signing-certificate", NULL, signing_certificate_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "win.next", NULL);
}

static void
qf_window_init (QfWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->settings = g_settings_new (APP_ID);
  /* a report dropped on the wizard opens in the verify view */
  qf_verify_window_accept_drops (GTK_WIDGET (self));
  g_signal_connect_object (self->network_page, "notify::audit-running",
                           G_CALLBACK (next_allowed_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->network_page, "notify::peer-chosen",
                           G_CALLBACK (next_allowed_changed), self, G_CONNECT_SWAPPED);
  go_to (self, PAGE_WELCOME);
}
