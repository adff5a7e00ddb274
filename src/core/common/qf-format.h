/* qf-format.h — the one printed form of a measured figure and of a limit (src/core/common).
 *
 * The results page, `qualify-cli run`, the PDF and the HTML report all print a figure through
 * these, so a maximum of 9396.4 µs reads "9396 µs" everywhere and a limit "≤ 1 ms" everywhere:
 * the same digits, the same spacing (issue #29). Nothing rounds a figure elsewhere. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The digits of a figure: integers (and anything from 100 up) in full, "61.7" from 10, "2.35"
 * from 1, three significant digits below 1 ("0.104", "0.900"); "–" when it is not a finite
 * number. */
char *qf_format_number (gdouble     value);
/* The digits and the unit, a space between them ("9396 µs", "0.5 %"); the digits alone for a
 * NULL or empty unit. */
char *qf_format_value  (gdouble     value,
                        const char *unit);
/* A limit with its comparison, ">=" for "≥", anything else "≤": "≤ 1 ms", "≥ 900 Mbit/s". */
char *qf_format_limit  (const char *comparison,
                        gdouble     limit,
                        const char *unit);

G_END_DECLS
