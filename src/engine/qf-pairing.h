/* qf-pairing.h — the helper machine's pairing code (src/engine).
 *
 * A short code a person reads on the helper machine and types on the PC under test, instead of
 * copying a token file: 16 characters from QF_PAIRING_ALPHABET (digits and capital letters with
 * no 0, O, 1, I or L, which read alike), shown in four groups of four ("7KQM-2XHR-9PTA-4WNE").
 * 31^16 ≈ 2^79 codes, drawn uniformly with getrandom.
 *
 * The code IS the responder's access token (qf-auth.h): the 16 normalised characters, so a token
 * file holding them works with `qualify-cli serve --token-file` and the same HMAC challenge
 * proves it; it never crosses the wire and is never written anywhere by Qualify.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define QF_PAIRING_ALPHABET   "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#define QF_PAIRING_CODE_CHARS 16   /* the token's length (QF_AUTH_TOKEN_MIN) */
#define QF_PAIRING_GROUP      4

/* A new code, grouped for reading: "7KQM-2XHR-9PTA-4WNE". NULL with error when the system has no
 * random numbers to give. */
char   *qf_pairing_code_new        (GError     **error);
/* The access token of a typed code: spaces and dashes dropped, lower case accepted. NULL with
 * QF_NET_ERROR_INVALID and a message for the person who typed it (which characters are allowed,
 * how many are missing) when it is not a code; the typed text is never put into the message. */
GBytes *qf_pairing_code_to_token   (const char  *typed,
                                    GError     **error);
/* The normalised characters of a typed code ("7KQM2XHR9PTA4WNE"), or NULL with error as above. */
char   *qf_pairing_code_normalise  (const char  *typed,
                                    GError     **error);
/* The code grouped for reading ("7KQM-2XHR-9PTA-4WNE") from its normalised characters, with
 * separator between the groups. */
char   *qf_pairing_code_group      (const char  *normalised,
                                    const char  *separator);

G_END_DECLS
