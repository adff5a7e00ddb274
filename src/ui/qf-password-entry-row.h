/* qf-password-entry-row.h — an entry row for a secret (src/ui): libadwaita 1.2's
 * AdwPasswordEntryRow on every release from libadwaita 1.1 on. The text is hidden behind dots
 * until its eye button shows it; a Caps Lock warning appears while typing with Caps Lock on. */
#pragma once

#include "qf-entry-row.h"

G_BEGIN_DECLS

#define QF_TYPE_PASSWORD_ENTRY_ROW (qf_password_entry_row_get_type ())
G_DECLARE_FINAL_TYPE (QfPasswordEntryRow, qf_password_entry_row, QF, PASSWORD_ENTRY_ROW, QfEntryRow)

GtkWidget *qf_password_entry_row_new (void);

G_END_DECLS
