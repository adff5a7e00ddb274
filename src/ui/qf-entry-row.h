/* qf-entry-row.h — a list row with a text field in it (src/ui): the wizard's own entry row, the
 * look and behaviour of libadwaita 1.2's AdwEntryRow on every release from libadwaita 1.1 on
 * (Ubuntu 22.04 has no AdwEntryRow). The title stands in the empty field and moves above the
 * text while the field has the focus or holds text; the row is a GtkEditable (gtk_editable_get_text
 * and the "changed" signal work on it) and, for screen readers, a text field named after its title.
 * In a template, <child type="prefix"> and <child type="suffix"> (or no type) add widgets. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_ENTRY_ROW (qf_entry_row_get_type ())
G_DECLARE_DERIVABLE_TYPE (QfEntryRow, qf_entry_row, QF, ENTRY_ROW, AdwPreferencesRow)

struct _QfEntryRowClass
{
  AdwPreferencesRowClass parent_class;
};

GtkWidget *qf_entry_row_new                   (void);
void       qf_entry_row_add_prefix            (QfEntryRow *self,
                                               GtkWidget  *widget);
void       qf_entry_row_add_suffix            (QfEntryRow *self,
                                               GtkWidget  *widget);
/* Whether Enter in the field activates the window's default widget (property activates-default). */
gboolean   qf_entry_row_get_activates_default (QfEntryRow *self);
void       qf_entry_row_set_activates_default (QfEntryRow *self,
                                               gboolean    activates);

G_END_DECLS
