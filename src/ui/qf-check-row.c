/* qf-check-row.c — one audit finding as a list row (src/ui); see qf-check-row.h. */
#include "config.h"


#include "qf-check-row.h"
#include "qf-i18n.h"
#include "qf-row-text.h"

void
qf_check_status_look (QfAuditStatus  status,
                      const char   **icon,
                      const char   **word,
                      const char   **css)
{
  switch (status)
    {
    case QF_AUDIT_OK:
      *icon = "emblem-ok-symbolic", *word = _("OK"), *css = "verdict-pass";
      break;
    case QF_AUDIT_WARN:
      *icon = "dialog-warning-symbolic", *word = _("Warning"), *css = "verdict-warn";
      break;
    case QF_AUDIT_FAIL:
      *icon = "dialog-error-symbolic", *word = _("Problem"), *css = "verdict-fail";
      break;
    case QF_AUDIT_UNKNOWN:
    default:
      *icon = "dialog-question-symbolic", *word = _("Unknown"), *css = "dim-label";
      break;
    }
}

void
qf_check_row_add_text (GtkWidget  *row,
                       const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 8);
  gtk_widget_set_margin_bottom (label, 8);
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), label);
}

GtkWidget *
qf_check_row_new (const char    *title,
                  QfAuditStatus  status,
                  const char    *value,
                  const char    *advice)
{
  const char *icon_name, *word, *css;
  GtkWidget *row = adw_expander_row_new ();
  GtkWidget *icon;
  GtkWidget *status_label;
  g_autofree char *accessible = NULL;

  qf_check_status_look (status, &icon_name, &word, &css);
  qf_row_set_title_text (ADW_PREFERENCES_ROW (row), title);
  qf_row_set_subtitle_text (row, value);

  icon = gtk_image_new_from_icon_name (icon_name);
  gtk_widget_add_css_class (icon, css);
  adw_expander_row_add_prefix (ADW_EXPANDER_ROW (row), icon);
  status_label = gtk_label_new (word);
  gtk_widget_add_css_class (status_label, css);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), status_label);

  qf_check_row_add_text (row, advice);

  /* status in words for screen readers, not only the icon's colour */
  accessible = g_strdup_printf ("%s: %s, %s", title, word, value ? value : "");
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  return row;
}
