/* qf-message-dialog.c — a question or a message with a row of answers (src/ui); see
 * qf-message-dialog.h. Each response has two buttons: one in a row (wide_response_box) and one in
 * a column (narrow_response_box); the squeezer shows the row when it fits, the column when not.
 * The width follows libadwaita 1.2's: at least 300 px, at most 550 px and the parent's width less
 * 30 px each side. */
#include "config.h"

#include "qf-message-dialog.h"

#define DIALOG_MARGIN    30
#define DIALOG_MAX_WIDTH 550
#define DIALOG_MIN_WIDTH 300

typedef struct
{
  QfMessageDialog     *dialog; /* borrowed */
  GQuark               id;
  QfResponseAppearance appearance;
  gboolean             enabled;
  GtkWidget           *wide_button;   /* borrowed: children of the response boxes */
  GtkWidget           *narrow_button;
} Response;

struct _QfMessageDialog
{
  GtkWindow     parent_instance;

  /* template widgets */
  GtkLabel     *heading_label;
  GtkLabel     *body_label;
  GtkBox       *message_area;
  AdwSqueezer  *squeezer;
  GtkBox       *wide_response_box;
  GtkBox       *narrow_response_box;
  GtkSizeGroup *wide_size_group;
  GtkSizeGroup *narrow_size_group;

  /* owned */
  GPtrArray    *responses;      /* of Response, in the order added */

  GtkWidget    *extra_child;    /* borrowed: a child of message_area */
  GQuark        default_response;
  GQuark        close_response;
  gboolean      answering;      /* a button closes the dialog: no close response then */
};

G_DEFINE_FINAL_TYPE (QfMessageDialog, qf_message_dialog, GTK_TYPE_WINDOW)

enum { RESPONSE, N_SIGNALS };
static guint signals[N_SIGNALS];

static Response *
find_response (QfMessageDialog *self,
               const char      *id)
{
  GQuark quark = g_quark_try_string (id);

  for (guint i = 0; quark != 0 && i < self->responses->len; i++)
    {
      Response *response = g_ptr_array_index (self->responses, i);

      if (response->id == quark)
        return response;
    }
  return NULL;
}

static void
emit_response (QfMessageDialog *self,
               GQuark           id)
{
  g_signal_emit (self, signals[RESPONSE], id, g_quark_to_string (id));
}

static void
button_clicked (Response *response)
{
  g_autoptr(QfMessageDialog) self = g_object_ref (response->dialog);
  GQuark id = response->id;

  self->answering = TRUE;
  gtk_window_close (GTK_WINDOW (self));
  emit_response (self, id);
  self->answering = FALSE;
}

static void
set_button_look (GtkWidget            *button,
                 QfResponseAppearance  appearance)
{
  if (appearance == QF_RESPONSE_SUGGESTED)
    gtk_widget_add_css_class (button, "suggested");
  else
    gtk_widget_remove_css_class (button, "suggested");
  if (appearance == QF_RESPONSE_DESTRUCTIVE)
    gtk_widget_add_css_class (button, "destructive");
  else
    gtk_widget_remove_css_class (button, "destructive");
}

static GtkWidget *
response_button_new (Response   *response,
                     const char *label)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_add_css_class (button, "flat");
  set_button_look (button, response->appearance);
  gtk_widget_set_sensitive (button, response->enabled);
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (button_clicked), response);
  return button;
}

/* Enter takes the default response: its button in the layout on screen is the default widget. */
static void
update_default_response (QfMessageDialog *self)
{
  Response *response = find_response (self, g_quark_to_string (self->default_response));
  gboolean narrow = adw_squeezer_get_visible_child (self->squeezer) == GTK_WIDGET (self->narrow_response_box);

  if (response != NULL)
    gtk_window_set_default_widget (GTK_WINDOW (self), narrow ? response->narrow_button : response->wide_button);
}

static gboolean
qf_message_dialog_close_request (GtkWindow *window)
{
  QfMessageDialog *self = QF_MESSAGE_DIALOG (window);

  if (!self->answering)
    emit_response (self, self->close_response);
  return GTK_WINDOW_CLASS (qf_message_dialog_parent_class)->close_request (window);
}

static gboolean
is_response_button (QfMessageDialog *self,
                    GtkWidget       *widget)
{
  for (guint i = 0; i < self->responses->len; i++)
    {
      Response *response = g_ptr_array_index (self->responses, i);

      if (widget == response->wide_button || widget == response->narrow_button)
        return TRUE;
    }
  return FALSE;
}

/* The first focus, as GtkDialog gives it: the first focusable widget that is not a label (a field
 * of the extra child); when that is a response button, the default response's instead. */
static void
focus_first (QfMessageDialog *self)
{
  GtkWidget *first = NULL, *focus, *default_widget;

  do
    {
      g_signal_emit_by_name (self, "move-focus", GTK_DIR_TAB_FORWARD);
      focus = gtk_window_get_focus (GTK_WINDOW (self));
      if (GTK_IS_LABEL (focus) && gtk_label_get_current_uri (GTK_LABEL (focus)) == NULL)
        gtk_label_select_region (GTK_LABEL (focus), 0, 0);
      if (first == NULL)
        first = focus;
      else if (first == focus)
        break;
    }
  while (GTK_IS_LABEL (focus));

  default_widget = gtk_window_get_default_widget (GTK_WINDOW (self));
  if (default_widget != NULL && focus != default_widget && (focus == NULL || is_response_button (self, focus)))
    gtk_widget_grab_focus (default_widget);
}

static void
qf_message_dialog_map (GtkWidget *widget)
{
  QfMessageDialog *self = QF_MESSAGE_DIALOG (widget);

  GTK_WIDGET_CLASS (qf_message_dialog_parent_class)->map (widget);
  update_default_response (self);
  if (gtk_window_get_focus (GTK_WINDOW (self)) == NULL)
    focus_first (self);
}

static void
qf_message_dialog_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  QfMessageDialog *self = QF_MESSAGE_DIALOG (widget);
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  int min_size = 0, base_nat = 0, max_size;

  GTK_WIDGET_CLASS (qf_message_dialog_parent_class)->measure (widget, orientation, for_size,
                                                              &min_size, &base_nat, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      int wide_min = 0, narrow_nat = 0;

      min_size = MAX (min_size, DIALOG_MIN_WIDTH);
      max_size = DIALOG_MAX_WIDTH;
      if (parent != NULL && gtk_widget_get_width (GTK_WIDGET (parent)) > 0)
        max_size = MIN (max_size, gtk_widget_get_width (GTK_WIDGET (parent)) - DIALOG_MARGIN * 2);
      gtk_widget_measure (GTK_WIDGET (self->wide_response_box), GTK_ORIENTATION_HORIZONTAL, -1,
                          &wide_min, NULL, NULL, NULL);
      gtk_widget_measure (GTK_WIDGET (self->narrow_response_box), GTK_ORIENTATION_HORIZONTAL, -1,
                          NULL, &narrow_nat, NULL, NULL);
      /* the answers do not fit side by side: as wide as they need one above the other */
      if (max_size < wide_min)
        max_size = MIN (max_size, MAX (narrow_nat, DIALOG_MIN_WIDTH));
    }
  else
    max_size = parent != NULL && gtk_widget_get_height (GTK_WIDGET (parent)) > 0
               ? gtk_widget_get_height (GTK_WIDGET (parent)) - DIALOG_MARGIN * 2 : G_MAXINT;
  max_size = MAX (min_size, max_size);
  *minimum = min_size;
  *natural = CLAMP (base_nat, min_size, max_size);
  *minimum_baseline = -1;
  *natural_baseline = -1;
}

static void
qf_message_dialog_finalize (GObject *object)
{
  QfMessageDialog *self = QF_MESSAGE_DIALOG (object);

  g_ptr_array_unref (self->responses);
  G_OBJECT_CLASS (qf_message_dialog_parent_class)->finalize (object);
}

static void
qf_message_dialog_class_init (QfMessageDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->finalize = qf_message_dialog_finalize;
  widget_class->map = qf_message_dialog_map;
  widget_class->measure = qf_message_dialog_measure;
  window_class->close_request = qf_message_dialog_close_request;

  /* QfMessageDialog::response (dialog, id): detailed by the id ("response::apply") */
  signals[RESPONSE] = g_signal_new ("response", G_TYPE_FROM_CLASS (klass),
                                    G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-message-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, heading_label);
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, body_label);
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, message_area);
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, squeezer);
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, wide_response_box);
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, narrow_response_box);
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, wide_size_group);
  gtk_widget_class_bind_template_child (widget_class, QfMessageDialog, narrow_size_group);
  gtk_widget_class_bind_template_callback (widget_class, update_default_response);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_DIALOG);
}

static void
qf_message_dialog_init (QfMessageDialog *self)
{
  self->responses = g_ptr_array_new_with_free_func (g_free);
  self->close_response = g_quark_from_static_string ("close");
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
qf_message_dialog_new (GtkWindow  *parent,
                       const char *heading,
                       const char *body)
{
  QfMessageDialog *self;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  self = g_object_new (QF_TYPE_MESSAGE_DIALOG, "transient-for", parent, NULL);
  /* the heading is also the window's title: what a screen reader names the dialog by */
  gtk_window_set_title (GTK_WINDOW (self), heading);
  gtk_label_set_text (self->heading_label, heading != NULL ? heading : "");
  gtk_widget_set_visible (GTK_WIDGET (self->heading_label), heading != NULL && *heading != '\0');
  gtk_label_set_text (self->body_label, body != NULL ? body : "");
  gtk_widget_set_visible (GTK_WIDGET (self->body_label), body != NULL && *body != '\0');
  return GTK_WIDGET (self);
}

void
qf_message_dialog_set_extra_child (QfMessageDialog *self,
                                   GtkWidget       *child)
{
  g_return_if_fail (QF_IS_MESSAGE_DIALOG (self));
  g_return_if_fail (child == NULL || GTK_IS_WIDGET (child));

  if (child == self->extra_child)
    return;
  if (self->extra_child != NULL)
    gtk_box_remove (self->message_area, self->extra_child);
  self->extra_child = child;
  if (child != NULL)
    gtk_box_append (self->message_area, child);
}

void
qf_message_dialog_add_response (QfMessageDialog *self,
                                const char      *id,
                                const char      *label)
{
  Response *response;

  g_return_if_fail (QF_IS_MESSAGE_DIALOG (self));
  g_return_if_fail (id != NULL && label != NULL);
  g_return_if_fail (find_response (self, id) == NULL);

  response = g_new0 (Response, 1);
  response->dialog = self;
  response->id = g_quark_from_string (id);
  response->appearance = QF_RESPONSE_DEFAULT;
  response->enabled = TRUE;
  if (self->responses->len > 0)
    {
      gtk_box_append (self->wide_response_box, gtk_separator_new (GTK_ORIENTATION_VERTICAL));
      gtk_box_prepend (self->narrow_response_box, gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
    }
  /* in a row left to right; in the column the last one added on top */
  response->wide_button = response_button_new (response, label);
  gtk_widget_set_hexpand (response->wide_button, TRUE);
  gtk_box_append (self->wide_response_box, response->wide_button);
  gtk_size_group_add_widget (self->wide_size_group, response->wide_button);
  response->narrow_button = response_button_new (response, label);
  gtk_box_prepend (self->narrow_response_box, response->narrow_button);
  gtk_size_group_add_widget (self->narrow_size_group, response->narrow_button);
  g_ptr_array_add (self->responses, response);
  if (self->default_response == response->id && gtk_widget_get_mapped (GTK_WIDGET (self)))
    update_default_response (self);
}

void
qf_message_dialog_add_responses (QfMessageDialog *self,
                                 const char      *first_id,
                                 ...)
{
  va_list args;
  const char *id = first_id;

  va_start (args, first_id);
  while (id != NULL)
    {
      const char *label = va_arg (args, const char *);

      qf_message_dialog_add_response (self, id, label);
      id = va_arg (args, const char *);
    }
  va_end (args);
}

void
qf_message_dialog_set_response_appearance (QfMessageDialog      *self,
                                           const char           *id,
                                           QfResponseAppearance  appearance)
{
  Response *response;

  g_return_if_fail (QF_IS_MESSAGE_DIALOG (self));
  response = find_response (self, id);
  g_return_if_fail (response != NULL);

  response->appearance = appearance;
  set_button_look (response->wide_button, appearance);
  set_button_look (response->narrow_button, appearance);
}

void
qf_message_dialog_set_response_enabled (QfMessageDialog *self,
                                        const char      *id,
                                        gboolean         enabled)
{
  Response *response;

  g_return_if_fail (QF_IS_MESSAGE_DIALOG (self));
  response = find_response (self, id);
  g_return_if_fail (response != NULL);

  response->enabled = !!enabled;
  gtk_widget_set_sensitive (response->wide_button, response->enabled);
  gtk_widget_set_sensitive (response->narrow_button, response->enabled);
}

void
qf_message_dialog_set_default_response (QfMessageDialog *self,
                                        const char      *id)
{
  g_return_if_fail (QF_IS_MESSAGE_DIALOG (self));

  self->default_response = g_quark_from_string (id);
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    update_default_response (self);
}

void
qf_message_dialog_set_close_response (QfMessageDialog *self,
                                      const char      *id)
{
  g_return_if_fail (QF_IS_MESSAGE_DIALOG (self));
  g_return_if_fail (id != NULL);

  self->close_response = g_quark_from_string (id);
}
