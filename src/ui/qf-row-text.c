/* qf-row-text.c — plain text in a list row's title or subtitle (src/ui); see qf-row-text.h. */
#include "config.h"

#include "qf-row-text.h"

void
qf_row_set_title_text (AdwPreferencesRow *row,
                       const char        *text)
{
  g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);

  g_return_if_fail (ADW_IS_PREFERENCES_ROW (row));
  adw_preferences_row_set_title (row, escaped);
}

void
qf_row_set_subtitle_text (GtkWidget  *row,
                          const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);

  if (ADW_IS_ACTION_ROW (row))
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), escaped);
  else if (ADW_IS_EXPANDER_ROW (row))
    adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), escaped);
  else
    g_return_if_reached ();
}
