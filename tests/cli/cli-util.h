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

/* Whether other users (such as nobody) can run path: the file executable by others and every
 * folder above it searchable by them (a clone under /root, mode 0700, is not). */
gboolean    qf_test_others_can_run (const char *path);

/* A qualify-cli that other users can run: $QUALIFY_CLI when they can, else a copy of it in dir
 * (mode 0755; the build links no library of its own, so the binary is all it needs). NULL when
 * neither works, with *why saying why for g_test_skip(). */
char       *qf_test_cli_for_others (const char  *dir,
                                    char       **why);

/* Parses text as exactly one JSON object; fails the test otherwise. */
JsonObject *qf_test_parse_json (const char  *text);

G_END_DECLS
