/* qf-password-entry-row.c — an entry row for a secret (src/ui); see qf-password-entry-row.h.
 * The field keeps its text in a GtkPasswordEntryBuffer (not swapped out, wiped when freed). */
#include "config.h"

#include "qf-entry-row-private.h"
#include "qf-i18n.h"
#include "qf-password-entry-row.h"

struct _QfPasswordEntryRow
{
  QfEntryRow  parent_instance;

  GtkWidget  *show_text_toggle; /* borrowed: a suffix of the row */
  GdkDevice  *keyboard;         /* borrowed: the seat's, while realized */
};

G_DEFINE_FINAL_TYPE (QfPasswordEntryRow, qf_password_entry_row, QF_TYPE_ENTRY_ROW)

static GtkText *
field (QfPasswordEntryRow *self)
{
  return GTK_TEXT (gtk_editable_get_delegate (GTK_EDITABLE (self)));
}

static void
update_caps_lock (QfPasswordEntryRow *self)
{
  _qf_entry_row_show_indicator (QF_ENTRY_ROW (self),
                                !gtk_text_get_visibility (field (self))
                                && gdk_device_get_caps_lock_state (self->keyboard));
}

static void
visibility_changed (QfPasswordEntryRow *self)
{
  gboolean shown = gtk_text_get_visibility (field (self));

  gtk_button_set_icon_name (GTK_BUTTON (self->show_text_toggle),
                            shown ? "view-conceal-symbolic" : "view-reveal-symbolic");
  gtk_widget_set_tooltip_text (self->show_text_toggle, shown ? _("Hide Text") : _("Show Text"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->show_text_toggle), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  shown ? _("Hide Text") : _("Show Text"), -1);
  if (self->keyboard != NULL)
    update_caps_lock (self);
}

static void
focus_changed (QfPasswordEntryRow *self)
{
  if (self->keyboard != NULL)
    update_caps_lock (self);
}

static void
show_text_clicked (QfPasswordEntryRow *self)
{
  gtk_text_set_visibility (field (self), !gtk_text_get_visibility (field (self)));
}

static void
qf_password_entry_row_realize (GtkWidget *widget)
{
  QfPasswordEntryRow *self = QF_PASSWORD_ENTRY_ROW (widget);
  GdkSeat *seat;

  GTK_WIDGET_CLASS (qf_password_entry_row_parent_class)->realize (widget);
  seat = gdk_display_get_default_seat (gtk_widget_get_display (widget));
  self->keyboard = seat != NULL ? gdk_seat_get_keyboard (seat) : NULL;
  if (self->keyboard == NULL)
    return;
  g_signal_connect_object (self->keyboard, "notify::caps-lock-state", G_CALLBACK (update_caps_lock),
                           self, G_CONNECT_SWAPPED);
  update_caps_lock (self);
}

static void
qf_password_entry_row_unrealize (GtkWidget *widget)
{
  QfPasswordEntryRow *self = QF_PASSWORD_ENTRY_ROW (widget);

  if (self->keyboard != NULL)
    g_signal_handlers_disconnect_by_func (self->keyboard, update_caps_lock, self);
  self->keyboard = NULL;
  GTK_WIDGET_CLASS (qf_password_entry_row_parent_class)->unrealize (widget);
}

static void
qf_password_entry_row_class_init (QfPasswordEntryRowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->realize = qf_password_entry_row_realize;
  widget_class->unrealize = qf_password_entry_row_unrealize;
}

static void
qf_password_entry_row_init (QfPasswordEntryRow *self)
{
  GtkText *text = field (self);
  g_autoptr(GtkEntryBuffer) buffer = gtk_password_entry_buffer_new ();
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) section = g_menu_new ();
  g_autoptr(GMenuItem) item = g_menu_item_new (_("_Show Text"), "misc.toggle-visibility");

  self->show_text_toggle = gtk_button_new ();
  gtk_widget_set_valign (self->show_text_toggle, GTK_ALIGN_CENTER);
  gtk_widget_set_focus_on_click (self->show_text_toggle, FALSE);
  gtk_widget_add_css_class (self->show_text_toggle, "flat");
  qf_entry_row_add_suffix (QF_ENTRY_ROW (self), self->show_text_toggle);

  gtk_text_set_visibility (text, FALSE);
  gtk_text_set_buffer (text, buffer);
  gtk_text_set_input_purpose (text, GTK_INPUT_PURPOSE_PASSWORD);
  g_signal_connect_object (text, "notify::has-focus", G_CALLBACK (focus_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (text, "notify::visibility", G_CALLBACK (visibility_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->show_text_toggle, "clicked", G_CALLBACK (show_text_clicked), self,
                           G_CONNECT_SWAPPED);
  _qf_entry_row_set_indicator (QF_ENTRY_ROW (self), "caps-lock-symbolic", _("Caps Lock is on"));
  gtk_widget_add_css_class (GTK_WIDGET (self), "password");
  visibility_changed (self);

  g_menu_item_set_attribute (item, "touch-icon", "s", "view-reveal-symbolic");
  g_menu_append_item (section, item);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  gtk_text_set_extra_menu (text, G_MENU_MODEL (menu));
}

GtkWidget *
qf_password_entry_row_new (void)
{
  return g_object_new (QF_TYPE_PASSWORD_ENTRY_ROW, NULL);
}
