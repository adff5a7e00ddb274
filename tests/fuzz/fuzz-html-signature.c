/* fuzz-html-signature.c — the HTML report's signature element finder
 * (qf_verify_html_signature_block, src/core/report/qf-verify.c) on arbitrary bytes. It must
 * accept the element only in the form and place the writer gives it, and then say exactly where
 * it is: whatever it accepts, the element and the bytes around it put back together are the
 * input, the element is canonical base64 of the signature it returns, and nothing like it
 * appears anywhere else. */
#include <stdint.h>
#include <string.h>

#include "qf-verify.h"

#define OPEN "<script type=\"application/pkcs7-signature\" id=\"qf-signature\">"
#define AFTER "</script></body>\n</html>\n"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  g_autoptr(GBytes) cms = NULL;
  g_autofree char *b64 = NULL;
  gsize start = 0, end = 0, cms_len;
  QfHtmlSignatureBlock found = qf_verify_html_signature_block (text, size, &start, &end, &cms);

  if (found != QF_HTML_SIGNATURE_FOUND)
    {
      g_assert (cms == NULL);
      /* Not signed means no opening tag at all. */
      g_assert (found != QF_HTML_SIGNATURE_NONE || size < strlen (OPEN) ||
                memmem (data, size, OPEN, strlen (OPEN)) == NULL);
      return 0;
    }
  g_assert (cms != NULL);
  g_assert (start < end && end <= size);
  g_assert (end + strlen (AFTER) - strlen ("</script>") == size);
  g_assert (memcmp (text + start, OPEN, strlen (OPEN)) == 0);
  g_assert (memcmp (text + end - strlen ("</script>"), AFTER, strlen (AFTER)) == 0);
  g_assert (memmem (text, start, OPEN, strlen (OPEN)) == NULL);
  g_assert (memmem (text + start + 1, size - start - 1, OPEN, strlen (OPEN)) == NULL);
  b64 = g_base64_encode (g_bytes_get_data (cms, &cms_len), g_bytes_get_size (cms));
  g_assert (cms_len > 0);
  g_assert (strlen (OPEN) + strlen (b64) + strlen ("</script>") == end - start);
  g_assert (memcmp (text + start + strlen (OPEN), b64, strlen (b64)) == 0);
  return 0;
}
