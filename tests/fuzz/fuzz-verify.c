/* fuzz-verify.c — the report verifier (qf_verify_file, src/core/report/qf-verify.c) on an arbitrary
 * file. Built twice: QF_FUZZ_PREFIX "%PDF-" reaches the PDF parser (objects, the signature
 * dictionary, ByteRange, the embedded session), "<!DOCTYPE html>" the HTML one (the embedded
 * session and its signature). */
#include <stdint.h>
#include <string.h>

#include "fuzz-core-common.h"
#include "qf-verify.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_scratch_init ("report");
  return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfVerifyResult) result = NULL;
  const char *const no_trust[] = { NULL };

  /* The corpus holds whole reports; the prefix is added only when it is missing. */
  if (size >= strlen (QF_FUZZ_PREFIX) && memcmp (data, QF_FUZZ_PREFIX, strlen (QF_FUZZ_PREFIX)) == 0)
    fuzz_scratch_write ("", data, size);
  else
    fuzz_scratch_write (QF_FUZZ_PREFIX, data, size);
  result = qf_verify_file (fuzz_file, no_trust, &error);
  g_assert ((result == NULL) == (error != NULL));
  if (result != NULL)
    {
      g_autoptr(JsonObject) json = qf_verify_result_to_json (result);
      (void) qf_verify_result_ok (result);
      g_assert (json != NULL);
    }
  return 0;
}
