/* test-widgets.c — the wizard's own entry rows, message dialog and About window (tests/ui), which
 * stand for libadwaita 1.2's on every release from libadwaita 1.1 on: what the pages rely on.
 *
 * An entry row is a GtkEditable whose text is its field's, a text field for screen readers, takes
 * suffix children from a template, moves its title out of the field while it holds text, and
 * activates the window's default widget only when asked to. A password row hides its text until
 * its eye button is pressed. A message dialog answers each button with its response and closes,
 * answers a close with the close response, greys out a disabled response and makes the default
 * response Enter's. The About window shows this build's version and the licence. */
#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "qf-about-window.h"
#include "qf-entry-row.h"
#include "qf-message-dialog.h"
#include "qf-password-entry-row.h"

#include "../qf-test-time.h"

static GtkWidget *
template_child (gpointer    widget,
                GType       type,
                const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (widget), type, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

/* Runs the main context until nothing is pending (bounded). */
static void
settle (void)
{
  for (int i = 0; i < 1000 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

static void
count_changed (GtkEditable *editable,
               int         *count)
{
  (*count)++;
}

static void
test_entry_row_editable (void)
{
  GtkWidget *row = g_object_ref_sink (qf_entry_row_new ());
  GtkWidget *text = template_child (row, QF_TYPE_ENTRY_ROW, "text");
  int changed = 0;
  g_autofree char *property = NULL;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "Operator");
  g_signal_connect (row, "changed", G_CALLBACK (count_changed), &changed);
  gtk_editable_set_text (GTK_EDITABLE (row), "Li Wei");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (text)), ==, "Li Wei");
  gtk_editable_set_text (GTK_EDITABLE (text), "Zhang San");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (row)), ==, "Zhang San");
  g_object_get (row, "text", &property, NULL);
  g_assert_cmpstr (property, ==, "Zhang San");
  g_assert_cmpint (changed, >=, 2);
  g_assert_true (gtk_editable_get_delegate (GTK_EDITABLE (row)) == GTK_EDITABLE (text));
  /* screen readers (and the AT-SPI tests) find it as a text field */
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (row)), ==, GTK_ACCESSIBLE_ROLE_TEXT_BOX);
  g_object_unref (row);
}

static void
test_entry_row_title_moves (void)
{
  GtkWidget *row = g_object_ref_sink (qf_entry_row_new ());
  GtkWidget *empty_title = template_child (row, QF_TYPE_ENTRY_ROW, "empty_title");
  GtkWidget *title = template_child (row, QF_TYPE_ENTRY_ROW, "title");
  GtkWidget *text = template_child (row, QF_TYPE_ENTRY_ROW, "text");

  /* not mapped: the animation ends at once */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "Site");
  g_assert_cmpfloat (gtk_widget_get_opacity (empty_title), ==, 1.0);
  g_assert_cmpfloat (gtk_widget_get_opacity (title), ==, 0.0);
  g_assert_cmpfloat (gtk_widget_get_opacity (text), ==, 0.0);
  gtk_editable_set_text (GTK_EDITABLE (row), "Plant 3");
  g_assert_cmpfloat (gtk_widget_get_opacity (empty_title), ==, 0.0);
  g_assert_cmpfloat (gtk_widget_get_opacity (title), ==, 1.0);
  g_assert_cmpfloat (gtk_widget_get_opacity (text), ==, 1.0);
  gtk_editable_set_text (GTK_EDITABLE (row), "");
  g_assert_cmpfloat (gtk_widget_get_opacity (empty_title), ==, 1.0);
  g_assert_cmpfloat (gtk_widget_get_opacity (title), ==, 0.0);
  g_object_unref (row);
}

/* Runs the main context until *count reaches want or seconds (scaled) have passed. */
static void
wait_for_count (const int *count,
                int        want,
                double     seconds)
{
  gint64 end = g_get_monotonic_time () + (gint64) (qf_test_s (seconds) * G_USEC_PER_SEC);

  while (*count < want && g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

static void
count_clicked (GtkButton *button,
               int       *count)
{
  (*count)++;
}

static void
check_activates_default (gboolean activates)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *row = qf_entry_row_new ();
  GtkWidget *button = gtk_button_new_with_label ("Next");
  int clicked = 0;

  g_object_set (row, "activates-default", activates, NULL);
  g_assert_true (qf_entry_row_get_activates_default (QF_ENTRY_ROW (row)) == activates);
  gtk_list_box_append (GTK_LIST_BOX (list), row);
  gtk_box_append (GTK_BOX (box), list);
  gtk_box_append (GTK_BOX (box), button);
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_set_default_widget (GTK_WINDOW (window), button);
  g_signal_connect (button, "clicked", G_CALLBACK (count_clicked), &clicked);
  gtk_window_present (GTK_WINDOW (window));
  settle ();
  g_signal_emit_by_name (gtk_editable_get_delegate (GTK_EDITABLE (row)), "activate");
  /* an activated button shows itself pressed for 250 ms, then is clicked */
  wait_for_count (&clicked, 1, 2);
  g_assert_cmpint (clicked, ==, activates ? 1 : 0);
  gtk_window_destroy (GTK_WINDOW (window));
  settle ();
}

static void
test_entry_row_activates_default (void)
{
  check_activates_default (TRUE);
  check_activates_default (FALSE);
}

/* A suffix child from a template goes into the row's header, after the field. */
static void
test_entry_row_buildable (void)
{
  static const char ui[] =
    "<interface><object class='QfEntryRow' id='row'><property name='title'>Address</property>"
    "<child type='suffix'><object class='GtkButton' id='check'/></child>"
    "<child type='prefix'><object class='GtkImage' id='icon'/></child></object></interface>";
  g_autoptr(GtkBuilder) builder = NULL;
  GtkWidget *row, *check, *icon, *suffixes, *prefixes;

  g_type_ensure (QF_TYPE_ENTRY_ROW);
  builder = gtk_builder_new_from_string (ui, -1);
  row = GTK_WIDGET (gtk_builder_get_object (builder, "row"));
  check = GTK_WIDGET (gtk_builder_get_object (builder, "check"));
  icon = GTK_WIDGET (gtk_builder_get_object (builder, "icon"));
  suffixes = template_child (row, QF_TYPE_ENTRY_ROW, "suffixes");
  prefixes = template_child (row, QF_TYPE_ENTRY_ROW, "prefixes");
  g_assert_true (gtk_widget_get_parent (check) == suffixes);
  g_assert_true (gtk_widget_get_parent (icon) == prefixes);
  g_assert_true (gtk_widget_get_visible (suffixes) && gtk_widget_get_visible (prefixes));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Address");
  g_object_ref_sink (row);
  g_object_unref (row);
}

static void
test_password_entry_row (void)
{
  GtkWidget *row = g_object_ref_sink (qf_password_entry_row_new ());
  GtkText *text = GTK_TEXT (gtk_editable_get_delegate (GTK_EDITABLE (row)));
  GtkWidget *suffixes = template_child (row, QF_TYPE_ENTRY_ROW, "suffixes");
  GtkWidget *toggle = gtk_widget_get_last_child (suffixes);

  g_assert_true (QF_IS_ENTRY_ROW (row));
  g_assert_false (gtk_text_get_visibility (text));
  g_assert_cmpint (gtk_text_get_input_purpose (text), ==, GTK_INPUT_PURPOSE_PASSWORD);
  gtk_editable_set_text (GTK_EDITABLE (row), "s3cret");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (row)), ==, "s3cret");
  g_assert_true (GTK_IS_BUTTON (toggle));
  g_signal_emit_by_name (toggle, "clicked");
  g_assert_true (gtk_text_get_visibility (text));
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (toggle)), ==, "view-conceal-symbolic");
  g_signal_emit_by_name (toggle, "clicked");
  g_assert_false (gtk_text_get_visibility (text));
  g_object_unref (row);
}

typedef struct
{
  GPtrArray *responses;  /* of char *: what "response" said, in order */
  int        apply_only; /* how often "response::apply" ran */
} Heard;

static void
heard_response (QfMessageDialog *dialog,
                const char      *response,
                Heard           *heard)
{
  g_ptr_array_add (heard->responses, g_strdup (response));
}

static void
heard_apply (QfMessageDialog *dialog,
             const char      *response,
             Heard           *heard)
{
  heard->apply_only++;
}

/* The two buttons of a response (row and column layouts), found by their label. */
static void
find_buttons (GtkWidget   *widget,
              const char  *label,
              GPtrArray   *found)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    g_ptr_array_add (found, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    find_buttons (c, label, found);
}

static QfMessageDialog *
question (GtkWindow *parent,
          Heard     *heard)
{
  QfMessageDialog *dialog = QF_MESSAGE_DIALOG (qf_message_dialog_new (parent, "Change the connection?", "Body"));

  qf_message_dialog_add_responses (dialog, "cancel", "_Cancel", "apply", "_Apply the change", NULL);
  qf_message_dialog_set_response_appearance (dialog, "apply", QF_RESPONSE_SUGGESTED);
  qf_message_dialog_set_default_response (dialog, "apply");
  qf_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (heard_response), heard);
  g_signal_connect (dialog, "response::apply", G_CALLBACK (heard_apply), heard);
  return dialog;
}

static void
test_message_dialog (void)
{
  GtkWidget *parent = gtk_window_new ();
  Heard heard = { g_ptr_array_new_with_free_func (g_free), 0 };
  g_autoptr(GPtrArray) apply = g_ptr_array_new ();
  QfMessageDialog *dialog;

  gtk_window_present (GTK_WINDOW (parent));
  dialog = question (GTK_WINDOW (parent), &heard);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (dialog)), ==, "Change the connection?");
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (dialog)), ==, GTK_ACCESSIBLE_ROLE_DIALOG);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  gtk_window_present (GTK_WINDOW (dialog));
  settle ();
  find_buttons (GTK_WIDGET (dialog), "_Apply the change", apply);
  g_assert_cmpuint (apply->len, ==, 2);
  g_assert_true (gtk_widget_has_css_class (g_ptr_array_index (apply, 0), "suggested"));
  /* Enter takes the default response: one of its buttons is the window's default */
  g_assert_true (gtk_window_get_default_widget (GTK_WINDOW (dialog)) == g_ptr_array_index (apply, 0)
                 || gtk_window_get_default_widget (GTK_WINDOW (dialog)) == g_ptr_array_index (apply, 1));
  /* a disabled response cannot be chosen */
  qf_message_dialog_set_response_enabled (dialog, "apply", FALSE);
  g_assert_false (gtk_widget_get_sensitive (g_ptr_array_index (apply, 0)));
  qf_message_dialog_set_response_enabled (dialog, "apply", TRUE);
  g_assert_true (gtk_widget_get_sensitive (g_ptr_array_index (apply, 1)));
  /* a button answers with its response, once, and closes the dialog */
  g_signal_emit_by_name (g_ptr_array_index (apply, 0), "clicked");
  settle ();
  g_assert_cmpuint (heard.responses->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (heard.responses, 0), ==, "apply");
  g_assert_cmpint (heard.apply_only, ==, 1);

  /* closed any other way: the close response */
  dialog = question (GTK_WINDOW (parent), &heard);
  gtk_window_present (GTK_WINDOW (dialog));
  settle ();
  gtk_window_close (GTK_WINDOW (dialog));
  settle ();
  g_assert_cmpuint (heard.responses->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (heard.responses, 1), ==, "cancel");
  g_assert_cmpint (heard.apply_only, ==, 1);
  gtk_window_destroy (GTK_WINDOW (parent));
  settle ();
  g_ptr_array_unref (heard.responses);
}

/* An extra child sits under the body and takes the first focus (the code dialog's field). */
static void
test_message_dialog_extra_child (void)
{
  GtkWidget *parent = gtk_window_new ();
  GtkWidget *dialog = qf_message_dialog_new (GTK_WINDOW (parent), "Pairing Code", "Type the code");
  GtkWidget *entry = gtk_entry_new ();

  gtk_window_present (GTK_WINDOW (parent));
  qf_message_dialog_set_extra_child (QF_MESSAGE_DIALOG (dialog), entry);
  qf_message_dialog_add_responses (QF_MESSAGE_DIALOG (dialog), "cancel", "_Cancel", "resume", "_Resume", NULL);
  qf_message_dialog_set_default_response (QF_MESSAGE_DIALOG (dialog), "resume");
  gtk_window_present (GTK_WINDOW (dialog));
  settle ();
  g_assert_true (gtk_widget_is_ancestor (entry, dialog));
  g_assert_true (gtk_widget_has_focus (entry) || gtk_widget_is_ancestor (gtk_window_get_focus (GTK_WINDOW (dialog)), entry));
  gtk_window_destroy (GTK_WINDOW (parent));
  settle ();
}

static void
find_label (GtkWidget  *widget,
            const char *part,
            GtkWidget **found)
{
  if (*found == NULL && GTK_IS_LABEL (widget) && strstr (gtk_label_get_label (GTK_LABEL (widget)), part) != NULL)
    *found = widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    find_label (c, part, found);
}

static void
test_about_window (void)
{
  GtkWidget *about = qf_about_window_new (NULL);
  GtkWidget *version = NULL, *legal = NULL, *name = NULL;

  find_label (about, PACKAGE_VERSION, &version);
  find_label (about, "gpl-3.0.html", &legal);
  find_label (about, "Qualify", &name);
  g_assert_nonnull (version);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (version)), ==, PACKAGE_VERSION);
  g_assert_nonnull (legal);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (legal)), "GNU General Public License"));
  g_assert_nonnull (name);
  gtk_window_destroy (GTK_WINDOW (about));
  settle ();
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check ())
    {
      g_print ("1..0 # SKIP no display: run under xvfb-run -a dbus-run-session --\n");
      return 0;
    }
  adw_init ();
  /* the title's move is checked at its end, not its frames */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  g_test_add_func ("/ui/entry-row/editable", test_entry_row_editable);
  g_test_add_func ("/ui/entry-row/title-moves", test_entry_row_title_moves);
  g_test_add_func ("/ui/entry-row/activates-default", test_entry_row_activates_default);
  g_test_add_func ("/ui/entry-row/buildable", test_entry_row_buildable);
  g_test_add_func ("/ui/password-entry-row", test_password_entry_row);
  g_test_add_func ("/ui/message-dialog/responses", test_message_dialog);
  g_test_add_func ("/ui/message-dialog/extra-child", test_message_dialog_extra_child);
  g_test_add_func ("/ui/about-window", test_about_window);
  return g_test_run ();
}
