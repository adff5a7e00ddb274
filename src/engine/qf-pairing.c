/* qf-pairing.c — the helper machine's pairing code (src/engine). See qf-pairing.h. */
#include "config.h"

#include <string.h>

#include "qf-auth.h"
#include "qf-i18n.h"
#include "qf-net.h"
#include "qf-pairing.h"

G_STATIC_ASSERT (sizeof QF_PAIRING_ALPHABET - 1 == 31);
G_STATIC_ASSERT (QF_PAIRING_CODE_CHARS >= QF_AUTH_TOKEN_MIN);

#define ALPHABET_SIZE   (sizeof QF_PAIRING_ALPHABET - 1)
/* A random byte below this maps onto the alphabet without bias (248 = 8 × 31); others are
 * drawn again. */
#define UNBIASED_LIMIT  (256 - 256 % ALPHABET_SIZE)

/* The code and the random bytes it came from are secrets: wiped from the stack (explicit_bzero,
 * which the compiler may not drop as a dead store) before returning. */
char *
qf_pairing_code_new (GError **error)
{
  char code[QF_PAIRING_CODE_CHARS + 1];
  guint8 pool[64];
  gsize used = sizeof pool;
  guint n = 0;
  char *grouped = NULL;

  while (n < QF_PAIRING_CODE_CHARS)
    {
      if (used == sizeof pool)
        {
          if (!qf_auth_random (pool, sizeof pool, error))
            break;
          used = 0;
        }
      if (pool[used] < UNBIASED_LIMIT)
        code[n++] = QF_PAIRING_ALPHABET[pool[used] % ALPHABET_SIZE];
      used++;
    }
  code[n] = '\0';
  if (n == QF_PAIRING_CODE_CHARS)
    grouped = qf_pairing_code_group (code, "-");
  explicit_bzero (pool, sizeof pool);
  explicit_bzero (code, sizeof code);
  return grouped;
}

char *
qf_pairing_code_group (const char *normalised,
                       const char *separator)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (normalised != NULL && separator != NULL, NULL);

  for (gsize i = 0; normalised[i] != '\0'; i++)
    {
      if (i > 0 && i % QF_PAIRING_GROUP == 0)
        g_string_append (out, separator);
      g_string_append_c (out, normalised[i]);
    }
  return g_string_free (out, FALSE);
}

static void
set_refusal (GError **error,
             gboolean bad_character,
             guint    count)
{
  /* TRANSLATORS: the alphabet of a pairing code follows */
  const char *allowed = _("A pairing code has the digits 2 to 9 and the capital letters except I, L and O: the code has no 0, O, 1, I or L.");

  if (bad_character)
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                 _("That is not a pairing code: it holds a character a code never has. %s Type it as the helper machine shows it (spaces, dashes and lower case are fine)."),
                 allowed);
  else
    g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                 _("A pairing code has %u characters; this one has %u. Type it as the helper machine shows it (spaces, dashes and lower case are fine)."),
                 (guint) QF_PAIRING_CODE_CHARS, count);
}

char *
qf_pairing_code_normalise (const char  *typed,
                           GError     **error)
{
  char code[QF_PAIRING_CODE_CHARS + 1];
  char *normalised;
  guint n = 0;

  g_return_val_if_fail (typed != NULL, NULL);

  for (const char *p = typed; *p != '\0'; p++)
    {
      char c = g_ascii_toupper (*p);

      if (c == ' ' || c == '-' || c == '\t')
        continue;
      if (strchr (QF_PAIRING_ALPHABET, c) == NULL)
        {
          explicit_bzero (code, sizeof code);
          set_refusal (error, TRUE, 0);
          return NULL;
        }
      if (n < QF_PAIRING_CODE_CHARS)
        code[n] = c;
      n++;
    }
  if (n != QF_PAIRING_CODE_CHARS)
    {
      explicit_bzero (code, sizeof code);
      set_refusal (error, FALSE, n);
      return NULL;
    }
  code[n] = '\0';
  normalised = g_strdup (code);
  explicit_bzero (code, sizeof code);
  return normalised;
}

/* Frees a token's characters once the last reference to them goes. */
static void
wipe_code (gpointer code)
{
  explicit_bzero (code, QF_PAIRING_CODE_CHARS);
  g_free (code);
}

GBytes *
qf_pairing_code_to_token (const char  *typed,
                          GError     **error)
{
  char *code;

  g_return_val_if_fail (typed != NULL, NULL);

  code = qf_pairing_code_normalise (typed, error);
  if (code == NULL)
    return NULL;
  return g_bytes_new_with_free_func (code, QF_PAIRING_CODE_CHARS, wipe_code, code);
}
