/* fuzz-profile.c — the profile loader (qf_profile_load_data, src/core/session/qf-profile.c) on arbitrary
 * bytes; a loaded profile is written back with qf_profile_to_json and loaded again. */
#include <json-glib/json-glib.h>
#include <stdint.h>

#include "qf-profile.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = qf_profile_load_data ((const char *) data, size, "fuzz.json",
                                                      &error);
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autoptr(QfProfile) again = NULL;
  g_autoptr(GError) again_error = NULL;

  g_assert ((profile == NULL) == (error != NULL));
  if (profile == NULL)
    return 0;
  (void) qf_profile_get_id (profile);
  (void) qf_profile_get_name (profile);
  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    g_assert (qf_profile_get_test (profile, i) != NULL);
  json = qf_profile_to_json (profile);
  node = json_node_init_object (json_node_alloc (), json);
  text = json_to_string (node, FALSE);
  again = qf_profile_load_data (text, -1, "fuzz-again.json", &again_error);
  if (again == NULL)
    g_error ("a loaded profile, written back, does not load: %s\n%s", again_error->message, text);
  g_assert_cmpuint (qf_profile_get_n_tests (again), ==, qf_profile_get_n_tests (profile));
  return 0;
}
