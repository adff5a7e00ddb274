/* qf-row-text.h — plain text in a list row's title or subtitle (src/ui): a name, an address, a
 * path or a message shown exactly as it is, '&' and '<' included, on every libadwaita. Rows read
 * their title and subtitle as Pango markup; libadwaita 1.2 can turn that off (use-markup), 1.1
 * (Ubuntu 22.04) cannot, so the text is escaped instead, the same way on every release. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

void qf_row_set_title_text    (AdwPreferencesRow *row,
                               const char        *text);
/* row is an AdwActionRow (or a subclass, such as AdwComboRow) or an AdwExpanderRow. */
void qf_row_set_subtitle_text (GtkWidget         *row,
                               const char        *text);

G_END_DECLS
