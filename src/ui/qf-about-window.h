/* qf-about-window.h — the About window (src/ui): what libadwaita 1.2's AdwAboutWindow showed for
 * Qualify (icon, name, developers, version, description, credits, licence), the same on every
 * release from libadwaita 1.1 on. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_ABOUT_WINDOW (qf_about_window_get_type ())
G_DECLARE_FINAL_TYPE (QfAboutWindow, qf_about_window, QF, ABOUT_WINDOW, AdwWindow)

/* A modal About window over parent (may be NULL). */
GtkWidget *qf_about_window_new (GtkWindow *parent);

G_END_DECLS
