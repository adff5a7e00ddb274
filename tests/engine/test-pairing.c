/* test-pairing.c — the helper machine's pairing code (qf-pairing.h). */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "qf-net.h"
#include "qf-pairing.h"

#define N_CODES 20000

static void
test_code_shape (void)
{
  for (guint n = 0; n < 200; n++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *code = qf_pairing_code_new (&error);

      g_assert_no_error (error);
      /* four groups of four, dash-separated */
      g_assert_cmpuint (strlen (code), ==, 19);
      for (guint i = 0; i < 19; i++)
        {
          if (i % 5 == 4)
            g_assert_cmpint (code[i], ==, '-');
          else
            g_assert_nonnull (strchr (QF_PAIRING_ALPHABET, code[i]));
        }
      g_assert_null (strpbrk (code, "01ILO"));
    }
}

/* Every character of the alphabet turns up, none far from its share: 20000 codes × 16 = 320000
 * characters, ~10323 expected each (σ ≈ 100). A byte taken % 31 without rejection would give
 * the first 8 characters 9/256 instead of 1/31 (~11250: +9 σ); ±6 σ is allowed, loose for chance
 * and still catching that bias. No code repeats. */
static void
test_distribution (void)
{
  guint counts[256] = { 0 };
  const guint alphabet = strlen (QF_PAIRING_ALPHABET);
  gdouble expected = N_CODES * QF_PAIRING_CODE_CHARS / (gdouble) alphabet;
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint n = 0; n < N_CODES; n++)
    {
      char *code = qf_pairing_code_new (NULL);

      g_assert_nonnull (code);
      for (const char *p = code; *p != '\0'; p++)
        counts[(guchar) *p]++;
      g_assert_false (g_hash_table_contains (seen, code));
      g_hash_table_add (seen, code);
    }
  for (guint i = 0; i < alphabet; i++)
    {
      guint count = counts[(guchar) QF_PAIRING_ALPHABET[i]];
      g_assert_cmpfloat (count, >, expected - 6 * sqrt (expected));
      g_assert_cmpfloat (count, <, expected + 6 * sqrt (expected));
    }
  g_hash_table_unref (seen);
}

static void
test_normalise (void)
{
  const char *typed[] = {
    "7KQM-2XHR-9PTA-4WNE", "7kqm 2xhr 9pta 4wne", "7KQM2XHR9PTA4WNE", " 7kQm-2XhR 9pTa-4wnE ",
    "7-K-Q-M-2-X-H-R-9-P-T-A-4-W-N-E",
  };

  for (guint i = 0; i < G_N_ELEMENTS (typed); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) token = qf_pairing_code_to_token (typed[i], &error);
      gsize len = 0;
      const char *data;

      g_assert_no_error (error);
      data = g_bytes_get_data (token, &len);
      g_assert_cmpuint (len, ==, 16);
      g_assert_cmpmem (data, len, "7KQM2XHR9PTA4WNE", 16);
    }
  {
    g_autofree char *grouped = qf_pairing_code_group ("7KQM2XHR9PTA4WNE", " ");
    g_assert_cmpstr (grouped, ==, "7KQM 2XHR 9PTA 4WNE");
  }
}

static void
test_refusals (void)
{
  /* a look-alike, a character outside the alphabet, too short, too long, empty */
  const char *bad_char[] = { "7KQM-2XHR-9PTA-4WN0", "OKQM-2XHR-9PTA-4WNE", "7KQM-2XHR-9PTA-4WNI",
                             "7KQM-2XHR-9PTA-4WN1", "7KQM-2XHR-9PTA-4WNL", "7KQM_2XHR-9PTA-4WNE",
                             "7KQM-2XHR-9PTA-4WNé" };
  const char *bad_len[] = { "7KQM-2XHR-9PTA-4WN", "7KQM-2XHR-9PTA-4WNEE", "", "   " };

  for (guint i = 0; i < G_N_ELEMENTS (bad_char); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (qf_pairing_code_to_token (bad_char[i], &error));
      g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "no 0, O, 1, I or L"));
      /* what was typed is never repeated */
      g_assert_null (strstr (error->message, "2XHR"));
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad_len); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (qf_pairing_code_to_token (bad_len[i], &error));
      g_assert_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "16 characters"));
    }
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "C");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/pairing/code-shape", test_code_shape);
  g_test_add_func ("/engine/pairing/distribution", test_distribution);
  g_test_add_func ("/engine/pairing/normalise", test_normalise);
  g_test_add_func ("/engine/pairing/refusals", test_refusals);
  return g_test_run ();
}
