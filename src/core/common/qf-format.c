/* qf-format.c — the one printed form of figures and limits (src/core/common; qf-format.h). */
#include "config.h"

#include "qf-format.h"

char *
qf_format_number (gdouble value)
{
  gdouble magnitude = value < 0 ? -value : value;

  if (value != value || magnitude > G_MAXDOUBLE)
    return g_strdup ("–");
  if (magnitude >= 100 || (magnitude < 1e15 && (gdouble) (gint64) value == value))
    return g_strdup_printf ("%.0f", value);
  if (magnitude >= 10)
    return g_strdup_printf ("%.1f", value);
  if (magnitude >= 1)
    return g_strdup_printf ("%.2f", value);
  /* below 1: three significant digits, "0.900 ms" as measured to that precision */
  return g_strdup_printf ("%#.3g", value);
}

char *
qf_format_value (gdouble     value,
                 const char *unit)
{
  g_autofree char *number = qf_format_number (value);

  if (unit == NULL || *unit == '\0')
    return g_steal_pointer (&number);
  return g_strdup_printf ("%s %s", number, unit);
}

char *
qf_format_limit (const char *comparison,
                 gdouble     limit,
                 const char *unit)
{
  g_autofree char *value = qf_format_value (limit, unit);

  return g_strdup_printf ("%s %s", g_strcmp0 (comparison, ">=") == 0 ? "≥" : "≤", value);
}
