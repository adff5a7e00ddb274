/* qf-session-check.h — reading and checking a session file before anything uses it (src/core).
 *
 * One check for every reader: the report, `qualify-cli run --resume`/`--replay` and the wizard.
 * A session file is read whole only when it is a regular file under QF_SESSION_MAX_FILE_BYTES
 * (looked at with fstat first), parsed only when it nests no deeper than QF_SESSION_MAX_DEPTH and
 * holds at most QF_SESSION_MAX_VALUES values, and used only when every member Qualify reads has
 * the type and range docs/session-format.md gives and every string is valid text of bounded
 * length without control characters. Each refusal names the key path ("steps[2].result"). The
 * same rules check the names a person types (operator, customer, site). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A full run of the shipped profile (every test, with samples) writes 1.4 MiB (docs/security.md);
 * eleven times that. */
#define QF_SESSION_MAX_FILE_BYTES (16 * 1024 * 1024)
/* JSON values (numbers, strings, objects, …) in one file: a full run has about 58 000. */
#define QF_SESSION_MAX_VALUES     1000000
#define QF_SESSION_MAX_DEPTH      32
/* Operator, customer and site, in characters. */
#define QF_SESSION_MAX_NAME_CHARS 200
/* Any other string in a session (advice paragraphs, error messages, commands), in characters. */
#define QF_SESSION_MAX_TEXT_CHARS 16384

/* The whole of file into *text (NUL-terminated, *length bytes); a directory, a device, a FIFO or
 * a file over QF_SESSION_MAX_FILE_BYTES is refused before anything is read. Errors are in
 * QF_SESSION_ERROR (qf-session.h) and name the file. */
gboolean  qf_session_read_file  (const char  *file,
                                 char       **text,
                                 gsize       *length,
                                 GError     **error);
/* Session text parsed to its root object (a new node), or NULL with an error. Integers beyond
 * 64 bits are kept as the (large) numbers they are rather than wrapped, and a NUL character
 * (\u0000, which the parser would silently cut a string at) is kept visible so that
 * qf_session_check names the member holding it. */
JsonNode *qf_session_parse_text (const char  *text,
                                 gsize        length,
                                 GError     **error);
/* Format, schema version, shape and text of a parsed session. complete: the members a whole
 * session has (id, profile, steps) must be there. The message names the key path, not the
 * file; callers prefix the file. */
gboolean  qf_session_check      (JsonObject  *root,
                                 gboolean     complete,
                                 GError     **error);
/* A name as a person typed it (operator, customer, site): valid UTF-8, at most
 * QF_SESSION_MAX_NAME_CHARS characters, no control characters. field names it in the message
 * ("--operator", "Operator"). NULL is accepted (not given). */
gboolean  qf_session_check_name (const char  *field,
                                 const char  *text,
                                 GError     **error);

/* The sign-off names a signed report needs — operator, customer and site — that root lacks
 * (absent, or only spaces), as one translated phrase ("the customer and the site"); NULL when
 * all three are there. An unsigned draft needs none of them. */
char     *qf_session_missing_sign_off (JsonObject *root);

/* Makes every string value under node one qf_session_check accepts as text: invalid UTF-8 and
 * control characters (other than tab and line break) become U+FFFD, a text over
 * QF_SESSION_MAX_TEXT_CHARS is cut with "…". Texts Qualify did not type itself reach a session
 * (an error message a peer sent, a driver's name): a session Qualify writes must always be one
 * it reads back. Names typed by a person are checked at input instead (qf_session_check_name). */
void      qf_session_scrub_text (JsonNode    *node);

G_END_DECLS
