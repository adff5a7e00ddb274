/* qf-window.c — the wizard's main window (src/ui): a header bar and a stack of pages, one
 * decision per page. Today: the welcome page, and the PC's identity from the core's sysinfo
 * reader behind "Start". Template: ui/qf-window.ui. */
#include "config.h"

#include <glib/gi18n.h>

#include "qf-sysinfo.h"
#include "qf-window.h"

struct _QfWindow
{
  AdwApplicationWindow parent_instance;

  /* template widgets */
  GtkStack            *pages;
  AdwPreferencesGroup *system_group;
  AdwActionRow        *host_row;
  AdwActionRow        *cpu_row;
  AdwActionRow        *memory_row;
  AdwActionRow        *kernel_row;
  AdwActionRow        *preempt_row;
};

G_DEFINE_FINAL_TYPE (QfWindow, qf_window, ADW_TYPE_APPLICATION_WINDOW)

QfWindow *
qf_window_new (QfApplication *app)
{
  return g_object_new (QF_TYPE_WINDOW, "application", app, NULL);
}

static void
show_system (QfWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfSysinfo) info = qf_sysinfo_read ("/", &error);
  g_autofree char *cpu = NULL;
  g_autofree char *memory = NULL;

  if (info == NULL)
    {
      adw_preferences_group_set_description (self->system_group, error->message);
      return;
    }
  cpu = g_strdup_printf (ngettext ("%s, %u CPU", "%s, %u CPUs", info->cpu_count),
                         info->cpu_model, info->cpu_count);
  memory = g_strdup_printf (_("%.1f GiB"), info->mem_total_kb / (1024.0 * 1024.0));
  adw_action_row_set_subtitle (self->host_row, info->hostname);
  adw_action_row_set_subtitle (self->cpu_row, cpu);
  adw_action_row_set_subtitle (self->memory_row, memory);
  adw_action_row_set_subtitle (self->kernel_row, info->kernel_release);
  adw_action_row_set_subtitle (self->preempt_row,
                               info->preempt_rt ? _("PREEMPT_RT: real-time kernel")
                                                : info->preempt_model);
}

static void
start_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  QfWindow *self = QF_WINDOW (widget);

  show_system (self);
  gtk_stack_set_visible_child_name (self->pages, "system");
}

static void
back_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  gtk_stack_set_visible_child_name (QF_WINDOW (widget)->pages, "welcome");
}

static void
qf_window_class_init (QfWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-window.ui");
  gtk_widget_class_bind_template_child (widget_class, QfWindow, pages);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, system_group);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, host_row);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, cpu_row);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, memory_row);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, kernel_row);
  gtk_widget_class_bind_template_child (widget_class, QfWindow, preempt_row);

  gtk_widget_class_install_action (widget_class, "win.start", NULL, start_activated);
  gtk_widget_class_install_action (widget_class, "win.back", NULL, back_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.back", NULL);
}

static void
qf_window_init (QfWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
