/* test-json.c — tests of qf-json's text writer (src/core): json-glib's layout, and doubles
 * written with the fewest digits that read back as exactly the same number. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "qf-json.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static char *
generator_text (JsonNode *node,
                gboolean  pretty)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, node);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}

/* Without doubles, the text is byte for byte what json-glib writes, pretty or compact. */
static void
test_same_layout_as_json_glib (void)
{
  g_autoptr(JsonNode) node = parse ("{\"a\":[],\"b\":{},\"c\":[1,{\"x\":null,\"y\":true,"
                                    "\"z\":false}],\"s\":\"q\\\"\\\\\\n\\r\\t\\b\\f\\u0001é/\","
                                    "\"n\":-123456789012,\"nested\":{\"k\":[[],[2,3]]}}");

  for (int pretty = 0; pretty <= 1; pretty++)
    {
      g_autofree char *ours = qf_json_node_to_text (node, pretty);
      g_autofree char *theirs = generator_text (node, pretty);
      g_assert_cmpstr (ours, ==, theirs);
    }
}

/* Every double reads back bit for bit, and the common figures print as a person writes them. */
static void
test_doubles_round_trip (void)
{
  const gdouble values[] = { 13.357, 0.1, 1.0, -0.0, 1e300, 5e-324, 2.5, 1.0 / 3.0, 65.3125,
                             123456789.123, G_MAXDOUBLE, -97.5, 4.7e-7 };
  const struct { gdouble value; const char *text; } expected[] = {
    { 13.357, "13.357" }, { 0.1, "0.1" }, { 1.0, "1.0" }, { 2.5, "2.5" }, { -97.5, "-97.5" },
    { 1e300, "1e+300" }, { 100.0, "100.0" },
  };
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) back = NULL;
  g_autofree char *text = NULL;
  JsonArray *array;

  json_builder_begin_array (builder);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    json_builder_add_double_value (builder, values[i]);
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  text = qf_json_node_to_text (root, FALSE);
  back = parse (text);
  array = json_node_get_array (back);
  g_assert_cmpuint (json_array_get_length (array), ==, G_N_ELEMENTS (values));
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      /* still a double when read back, and exactly the same one */
      g_assert_cmpint (json_node_get_value_type (element), ==, G_TYPE_DOUBLE);
      g_assert_true (memcmp (&values[i], &(gdouble) { json_node_get_double (element) },
                             sizeof (gdouble)) == 0);
    }

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
      g_autofree char *one = NULL;

      json_node_set_double (node, expected[i].value);
      one = qf_json_node_to_text (node, TRUE);
      g_assert_cmpstr (one, ==, expected[i].text);
    }
}

/* NaN and infinity are not JSON: they are written as null, so the file stays readable. */
static void
test_non_finite_is_null (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) back = NULL;

  json_object_set_double_member (object, "nan", NAN);
  json_object_set_double_member (object, "inf", INFINITY);
  text = qf_json_to_text (object, TRUE);
  g_assert_true (g_str_has_suffix (text, "}\n"));
  back = parse (text);
  g_assert_true (json_object_get_null_member (json_node_get_object (back), "nan"));
  g_assert_true (json_object_get_null_member (json_node_get_object (back), "inf"));
}

/* Names from outside (an interface may hold ESC, DEL, a C1 control or bytes that are not UTF-8)
 * reach no terminal raw through --json: controls are \u escapes that read back unchanged, and a
 * byte that is not UTF-8 becomes U+FFFD, so the text stays JSON. */
static void
test_controls_escaped (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) back = NULL;

  json_object_set_string_member (object, "a", "e\x1b[31m\x7f\xc2\x9b" "1é");
  json_object_set_string_member (object, "b", "\xff\xfe!");
  text = qf_json_to_text (object, FALSE);
  g_assert_true (g_str_has_suffix (text, "}\n"));
  for (const guchar *p = (const guchar *) text; p[1] != '\0'; p++)
    g_assert_true (*p >= 0x20 && *p != 0x7f);
  g_assert_null (strstr (text, "\xc2\x9b"));
  g_assert_true (g_utf8_validate (text, -1, NULL));
  back = parse (text);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (back), "a"), ==,
                   "e\x1b[31m\x7f\xc2\x9b" "1é");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (back), "b"), ==,
                   "\xef\xbf\xbd\xef\xbf\xbd!");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/json/same-layout-as-json-glib", test_same_layout_as_json_glib);
  g_test_add_func ("/core/json/doubles-round-trip", test_doubles_round_trip);
  g_test_add_func ("/core/json/non-finite-is-null", test_non_finite_is_null);
  g_test_add_func ("/core/json/controls-escaped", test_controls_escaped);
  return g_test_run ();
}
