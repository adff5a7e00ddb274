/* qf-check-row.h — one audit finding as a list row (src/ui): the look the system page's
 * readiness audit and the network page's network readiness share. */
#pragma once

#include <adwaita.h>

#include "qf-audit.h"

G_BEGIN_DECLS

/* The icon name, the translated word and the CSS class that say a status (never colour alone). */
void       qf_check_status_look (QfAuditStatus  status,
                                 const char   **icon,
                                 const char   **word,
                                 const char   **css);
/* An AdwExpanderRow: status icon, title, what was found as subtitle, the status word, and the
 * advice (selectable) one click away; its accessible name says the status in words. */
GtkWidget *qf_check_row_new     (const char    *title,
                                 QfAuditStatus  status,
                                 const char    *value,
                                 const char    *advice);
/* One more paragraph (wrapped, selectable) under a row's advice. */
void       qf_check_row_add_text (GtkWidget    *row,
                                  const char   *text);

G_END_DECLS
