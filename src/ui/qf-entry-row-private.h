/* qf-entry-row-private.h — what a subclass of QfEntryRow may use (src/ui): the indicator icon
 * shown while the field is being edited (the password row's Caps Lock warning). */
#pragma once

#include "qf-entry-row.h"

G_BEGIN_DECLS

/* The icon and its tooltip; shown only while the field has the focus and show is TRUE. */
void _qf_entry_row_set_indicator (QfEntryRow *self,
                                  const char *icon_name,
                                  const char *tooltip);
void _qf_entry_row_show_indicator (QfEntryRow *self,
                                   gboolean    show);

G_END_DECLS
