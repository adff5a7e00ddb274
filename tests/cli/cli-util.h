/* cli-util.h — running the built qualify-cli from a test (tests/cli). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Runs `qualify-cli ARGS…` (NULL-terminated), waits, and returns its exit status (0..255).
 * stdout and stderr are returned when the pointers are not NULL. */
int         qf_test_run_cli    (char       **out,
                                char       **err,
                                const char  *first_arg,
                                ...) G_GNUC_NULL_TERMINATED;

/* Parses text as exactly one JSON object; fails the test otherwise. */
JsonObject *qf_test_parse_json (const char  *text);

G_END_DECLS
