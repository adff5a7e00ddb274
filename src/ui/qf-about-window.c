/* qf-about-window.c — the About window (src/ui); see qf-about-window.h. A main page and, one
 * click away in a leaflet, the Details, Credits and Legal pages; the version button copies the
 * version. The facts are in the template; the version, the licence and the translators here. */
#include "config.h"

#include "qf-about-window.h"
#include "qf-i18n.h"
#include "qf-row-text.h"

#define LICENSE_URL "https://www.gnu.org/licenses/gpl-3.0.html"

struct _QfAboutWindow
{
  AdwWindow            parent_instance;

  /* template widgets */
  AdwToastOverlay     *toast_overlay;
  AdwLeaflet          *leaflet;
  GtkStack            *subpage_stack;
  GtkLabel            *version_label;
  GtkLabel            *legal_label;
  AdwPreferencesGroup *translators_group;
};

G_DEFINE_FINAL_TYPE (QfAboutWindow, qf_about_window, ADW_TYPE_WINDOW)

static void
subpage_activated (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  QfAboutWindow *self = QF_ABOUT_WINDOW (widget);

  gtk_stack_set_visible_child_name (self->subpage_stack, g_variant_get_string (parameter, NULL));
  adw_leaflet_set_visible_child (self->leaflet, GTK_WIDGET (self->subpage_stack));
}

static void
back_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  adw_leaflet_navigate (QF_ABOUT_WINDOW (widget)->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

static void
copy_version_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  QfAboutWindow *self = QF_ABOUT_WINDOW (widget);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), PACKAGE_VERSION);
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (_("Copied to clipboard")));
}

/* One row per line of the translation's credits; none while the language has no translator. */
static void
add_translators (QfAboutWindow *self)
{
  const char *credits = _("translator-credits");
  g_auto(GStrv) names = NULL;

  if (g_str_equal (credits, "translator-credits"))
    return;
  names = g_strsplit (credits, "\n", 0);
  for (guint i = 0; names[i] != NULL; i++)
    {
      GtkWidget *row = adw_action_row_new ();

      g_strstrip (names[i]);
      if (*names[i] == '\0')
        continue;
      qf_row_set_title_text (ADW_PREFERENCES_ROW (row), names[i]);
      adw_preferences_group_add (self->translators_group, row);
      gtk_widget_set_visible (GTK_WIDGET (self->translators_group), TRUE);
    }
}

static void
qf_about_window_class_init (QfAboutWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-about-window.ui");
  gtk_widget_class_bind_template_child (widget_class, QfAboutWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, QfAboutWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, QfAboutWindow, subpage_stack);
  gtk_widget_class_bind_template_child (widget_class, QfAboutWindow, version_label);
  gtk_widget_class_bind_template_child (widget_class, QfAboutWindow, legal_label);
  gtk_widget_class_bind_template_child (widget_class, QfAboutWindow, translators_group);
  gtk_widget_class_install_action (widget_class, "about.subpage", "s", subpage_activated);
  gtk_widget_class_install_action (widget_class, "about.back", NULL, back_activated);
  gtk_widget_class_install_action (widget_class, "about.copy-version", NULL, copy_version_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
qf_about_window_init (QfAboutWindow *self)
{
  g_autofree char *escaped = g_markup_escape_text (_("GNU General Public License, version 3 or later"), -1);
  g_autofree char *legal = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_label_set_text (self->version_label, PACKAGE_VERSION);
  /* TRANSLATORS: the licence note of the About window; the %s are the licence's address and name */
  legal = g_strdup_printf (_("This application comes with absolutely no warranty. See the "
                             "<a href=\"%s\">%s</a> for details."), LICENSE_URL, escaped);
  gtk_label_set_markup (self->legal_label, legal);
  add_translators (self);
}

GtkWidget *
qf_about_window_new (GtkWindow *parent)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);

  return g_object_new (QF_TYPE_ABOUT_WINDOW, "transient-for", parent, NULL);
}
