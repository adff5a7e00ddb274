/* qf-system-page.c — step 2 of the wizard (src/ui): the core's readiness audit and privilege
 * checks as rows (icon + word + colour, the value, the advice one click away), a plain notice on
 * top when the PC is a virtual machine, gathered on a worker thread because the privilege check
 * may wait on rtkit. Template: ui/qf-system-page.ui. */
#include "config.h"


#include "qf-audit.h"
#include "qf-check-row.h"
#include "qf-i18n.h"
#include "qf-privileges.h"
#include "qf-system-page.h"

struct _QfSystemPage
{
  AdwBin               parent_instance;

  /* template widgets */
  AdwPreferencesGroup *summary_group;
  AdwPreferencesGroup *privileges_group;
  AdwPreferencesGroup *audit_group;
  GtkSpinner          *spinner;
  GtkButton           *recheck_button;

  /* owned */
  GPtrArray           *rows;          /* rows we added, to remove them on refresh */
  GCancellable        *cancellable;
};

G_DEFINE_FINAL_TYPE (QfSystemPage, qf_system_page, ADW_TYPE_BIN)

typedef struct
{
  GPtrArray *audit;        /* QfAuditCheck */
  GPtrArray *privileges;   /* QfAuditCheck */
  char      *error;
} Checks;

static void
checks_free (Checks *checks)
{
  g_clear_pointer (&checks->audit, g_ptr_array_unref);
  g_clear_pointer (&checks->privileges, g_ptr_array_unref);
  g_free (checks->error);
  g_free (checks);
}

static void
add_check_row (QfSystemPage        *self,
               AdwPreferencesGroup *group,
               QfAuditCheck        *check)
{
  GtkWidget *row = qf_check_row_new (check->title, check->status, check->value, check->advice);

  adw_preferences_group_add (group, row);
  g_ptr_array_add (self->rows, g_object_ref (row));
  g_object_set_data (G_OBJECT (row), "qf-group", group);
}

/* Under the page's title, in plain words, when the audit found a virtual machine: every latency
 * figure then includes the host's scheduling, which matters more than any single row. */
static void
add_vm_notice (QfSystemPage *self,
               GPtrArray    *audit)
{
  for (guint i = 0; audit != NULL && i < audit->len; i++)
    {
      QfAuditCheck *check = g_ptr_array_index (audit, i);
      GtkWidget *label;

      if (g_strcmp0 (check->id, "virtualization") != 0 || check->status != QF_AUDIT_WARN)
        continue;
      label = gtk_label_new (check->advice);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "verdict-warn");
      gtk_widget_set_name (label, "qf-virtual-machine");
      gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      check->advice, -1);
      adw_preferences_group_add (self->summary_group, label);
      g_ptr_array_add (self->rows, g_object_ref (label));
      g_object_set_data (G_OBJECT (label), "qf-group", self->summary_group);
      return;
    }
}

static void
clear_rows (QfSystemPage *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->rows, i);

      adw_preferences_group_remove (g_object_get_data (G_OBJECT (row), "qf-group"), row);
    }
  g_ptr_array_set_size (self->rows, 0);
}

static void
gather_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Checks *checks = g_new0 (Checks, 1);
  g_autoptr(GError) error = NULL;

  checks->audit = qf_audit_run ("/", &error);
  if (checks->audit == NULL)
    checks->error = g_strdup (error->message);
  checks->privileges = qf_privileges_check ();
  g_task_return_pointer (task, checks, (GDestroyNotify) checks_free);
}

static void
gather_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  QfSystemPage *self;
  Checks *checks = g_task_propagate_pointer (G_TASK (result), NULL);
  QfAuditStatus worst = QF_AUDIT_OK;

  if (checks == NULL)
    return;  /* cancelled */
  self = QF_SYSTEM_PAGE (object);
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->recheck_button), TRUE);
  clear_rows (self);
  for (guint i = 0; checks->privileges != NULL && i < checks->privileges->len; i++)
    add_check_row (self, self->privileges_group, g_ptr_array_index (checks->privileges, i));
  add_vm_notice (self, checks->audit);
  for (guint i = 0; checks->audit != NULL && i < checks->audit->len; i++)
    add_check_row (self, self->audit_group, g_ptr_array_index (checks->audit, i));
  if (checks->audit != NULL)
    worst = qf_audit_worst (checks->audit);
  if (checks->error != NULL)
    adw_preferences_group_set_description (self->audit_group, checks->error);
  else
    adw_preferences_group_set_description (self->audit_group,
                                           worst == QF_AUDIT_OK ? _("Everything looks ready.")
                                           : worst == QF_AUDIT_FAIL ? _("Some settings will make the real-time test fail: open a row for the fix.")
                                           : _("Some settings may hurt real-time performance: open a row for the advice."));
  checks_free (checks);
}

void
qf_system_page_refresh (QfSystemPage *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (QF_IS_SYSTEM_PAGE (self));
  gtk_spinner_start (self->spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->recheck_button), FALSE);
  task = g_task_new (self, self->cancellable, gather_done, NULL);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, gather_thread);
}

static void
qf_system_page_dispose (GObject *object)
{
  QfSystemPage *self = QF_SYSTEM_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  adw_bin_set_child (ADW_BIN (self), NULL);
  G_OBJECT_CLASS (qf_system_page_parent_class)->dispose (object);
}

static void
qf_system_page_finalize (GObject *object)
{
  g_clear_object (&QF_SYSTEM_PAGE (object)->cancellable);
  G_OBJECT_CLASS (qf_system_page_parent_class)->finalize (object);
}

static void
qf_system_page_class_init (QfSystemPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = qf_system_page_dispose;
  object_class->finalize = qf_system_page_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-system-page.ui");
  gtk_widget_class_bind_template_child (widget_class, QfSystemPage, summary_group);
  gtk_widget_class_bind_template_child (widget_class, QfSystemPage, privileges_group);
  gtk_widget_class_bind_template_child (widget_class, QfSystemPage, audit_group);
  gtk_widget_class_bind_template_child (widget_class, QfSystemPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, QfSystemPage, recheck_button);
  gtk_widget_class_bind_template_callback (widget_class, qf_system_page_refresh);
}

static void
qf_system_page_init (QfSystemPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
  self->cancellable = g_cancellable_new ();
}
