/* qf-profile.c — loading and strict validation of threshold profiles (src/core).
 * See qf-profile.h for the format. Every rule below gives a message with the file name and the
 * key path, because profiles are written by hand and a silent mistake would mis-judge a PC. */
#include "config.h"

#include <string.h>

#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-paths.h"
#include "qf-profile.h"

G_DEFINE_QUARK (qf-profile-error-quark, qf_profile_error)

struct _QfProfile
{
  GObject     parent_instance;

  JsonObject *json;
  char       *id;
  gint64      version;
  char       *name;
  char       *description;
  char       *note;
  char       *network_kind;
  char       *quick_variant;
  char       *source;
  gboolean    user;
  GPtrArray  *tests;   /* element-type QfProfileTest */
};

G_DEFINE_FINAL_TYPE (QfProfile, qf_profile, G_TYPE_OBJECT)

/* The names and labels of the shipped profiles, so xgettext finds them; a profile's strings are
 * passed through gettext when shown, which leaves a user's own wording unchanged. */
static const char *const shipped_strings[] G_GNUC_UNUSED = {
  N_("ARCS controller, wired network"),
  N_("ARCS controller, wireless network"),
  N_("ARCS controller, wired network (quick)"),
  N_("ARCS controller, wireless network (quick)"),
  N_("The customer's procedure for PCs that run the ARCS robot control software, with the helper machine on a direct cable: real-time latency, stress with monitoring, ping, bandwidth in both directions, receive rate and socket latency. The five stress rules are reported as warnings: the procedure gives them no numbers, and a full load breaks some of them on any PC. Two tests the procedure does not have are reported as warnings only: latency under load (10 s on the idle link, then 10 s after 2 s of load while the bandwidth test fills the link both ways), judged against the socket-latency limit, and the real-time test while the bandwidth test runs (10000 cycles after 2 s of load), judged against the real-time limits."),
  N_("The customer's procedure for PCs that run the ARCS robot control software, with the helper machine on the wireless LAN: real-time latency, stress with monitoring, ping, bandwidth in both directions, receive rate and socket latency. The five stress rules are reported as warnings: the procedure gives them no numbers, and a full load breaks some of them on any PC. Two tests the procedure does not have are reported as warnings only: latency under load (10 s on the idle link, then 10 s after 2 s of load while the bandwidth test fills the link both ways), judged against the socket-latency limit, and the real-time test while the bandwidth test runs (10000 cycles after 2 s of load), judged against the real-time limits."),
  N_("Same limits as the full procedure with short durations, for demonstrations and continuous integration. Not an acceptance test. Two tests the procedure does not have are reported as warnings only: latency under load (2 s on the idle link, then 2 s after 1 s of load while the bandwidth test fills the link both ways), judged against the socket-latency limit, and the real-time test while the bandwidth test runs (1000 cycles after 1 s of load), judged against the real-time limits."),
  N_("Average latency"),
  N_("Minimum latency"),
  N_("Maximum latency"),
  N_("I/O wait (top wa)"),
  N_("Load average per CPU"),
  N_("Disk utilisation (iostat %util)"),
  N_("CPU idle under load (iostat %idle)"),
  N_("Disk wait growth (iostat await)"),
  N_("Average round trip"),
  N_("Minimum round trip"),
  N_("Maximum round trip"),
  N_("Bandwidth, PC to helper"),
  N_("Bandwidth, helper to PC"),
  N_("Receive rate (sar rxkB/s)"),
  N_("Average socket latency"),
  N_("Average socket latency under load (the idle limit; the procedure sets none)"),
  N_("Average latency under network load"),
  N_("Maximum latency under network load"),
  N_("Stress with monitoring"),
  N_("Bandwidth, both directions"),
  N_("Receive rate"),
  N_("Control cycle"),
  N_("Latency under load (10 s idle, 10 s loaded)"),
  N_("Real-time performance under network load"),
  N_("Latency under load (2 s idle, 2 s loaded)"),
};

static void
qf_profile_test_free (gpointer data)
{
  QfProfileTest *test = data;

  g_free (test->key);
  g_free (test->step);
  g_free (test->title);
  g_clear_pointer (&test->params, json_object_unref);
  g_clear_pointer (&test->criteria, g_ptr_array_unref);
  g_free (test);
}

static void
qf_criterion_free (gpointer data)
{
  QfCriterion *criterion = data;

  g_free (criterion->metric);
  g_free (criterion->label);
  g_free (criterion->unit);
  g_free (criterion);
}

static void
qf_profile_finalize (GObject *object)
{
  QfProfile *self = QF_PROFILE (object);

  g_clear_pointer (&self->json, json_object_unref);
  g_free (self->id);
  g_free (self->name);
  g_free (self->description);
  g_free (self->note);
  g_free (self->network_kind);
  g_free (self->quick_variant);
  g_free (self->source);
  g_clear_pointer (&self->tests, g_ptr_array_unref);

  G_OBJECT_CLASS (qf_profile_parent_class)->finalize (object);
}

static void
qf_profile_class_init (QfProfileClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = qf_profile_finalize;
}

static void
qf_profile_init (QfProfile *self)
{
  self->tests = g_ptr_array_new_with_free_func (qf_profile_test_free);
}

/* ---- validation ------------------------------------------------------------------------- */

typedef struct
{
  const char *file;
  GError    **error;
} Checker;

/* "\"32us\"", "12", "an object", … — what the file holds, for "got …". */
static char *
describe_node (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      return g_strdup (_("an object"));
    case JSON_NODE_ARRAY:
      return g_strdup (_("a list"));
    case JSON_NODE_NULL:
      return g_strdup ("null");
    case JSON_NODE_VALUE:
    default:
      {
        return qf_json_node_to_text (node, FALSE);
      }
    }
}

static gboolean
fail (Checker    *c,
      const char *path,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Checker    *c,
      const char *path,
      const char *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (path != NULL && *path != '\0')
    g_set_error (c->error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_INVALID, "%s: %s: %s",
                 c->file, path, message);
  else
    g_set_error (c->error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_INVALID, "%s: %s", c->file, message);
  return FALSE;
}

static gboolean
expected (Checker    *c,
          const char *path,
          const char *what,
          JsonNode   *got)
{
  g_autofree char *got_text = describe_node (got);
  /* TRANSLATORS: "expected a number, got \"32us\"" */
  return fail (c, path, _("expected %s, got %s"), what, got_text);
}

static char *
join_path (const char *parent,
           const char *key)
{
  if (parent == NULL || *parent == '\0')
    return g_strdup (key);
  return g_strconcat (parent, ".", key, NULL);
}

/* Every member of obj must be one of allowed; the required ones must be present. */
static gboolean
check_keys (Checker            *c,
            const char         *path,
            JsonObject         *obj,
            const char *const  *allowed,
            const char *const  *required)
{
  g_autoptr(GList) members = json_object_get_members (obj);

  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (allowed, l->data))
      {
        g_autofree char *member_path = join_path (path, l->data);
        g_autofree char *list = g_strjoinv (", ", (char **) allowed);
        return fail (c, member_path, _("unknown key (allowed: %s)"), list);
      }
  for (guint i = 0; required[i] != NULL; i++)
    if (!json_object_has_member (obj, required[i]))
      return fail (c, path, _("missing key “%s”"), required[i]);
  return TRUE;
}

static gboolean
get_string (Checker     *c,
            const char  *path,
            JsonObject  *obj,
            const char  *key,
            gboolean     allow_empty,
            const char **out)
{
  JsonNode *node = json_object_get_member (obj, key);
  g_autofree char *member_path = join_path (path, key);

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return expected (c, member_path, _("a text value"), node);
  *out = json_node_get_string (node);
  if (!allow_empty && **out == '\0')
    return fail (c, member_path, _("must not be empty"));
  return TRUE;
}

static gboolean
get_number (Checker    *c,
            const char *path,
            JsonObject *obj,
            const char *key,
            gdouble    *out)
{
  JsonNode *node = json_object_get_member (obj, key);
  g_autofree char *member_path = join_path (path, key);
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return expected (c, member_path, _("a number"), node);
  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return expected (c, member_path, _("a number"), node);
  *out = json_node_get_double (node);
  return TRUE;
}

static gboolean
check_one_of (Checker           *c,
              const char        *path,
              const char        *key,
              const char        *value,
              const char *const *choices)
{
  g_autofree char *member_path = join_path (path, key);
  g_autoptr(GString) list = g_string_new (NULL);

  if (g_strv_contains (choices, value))
    return TRUE;
  for (guint i = 0; choices[i] != NULL; i++)
    g_string_append_printf (list, "%s\"%s\"",
                            i == 0 ? "" : choices[i + 1] == NULL ? _(" or ") : ", ", choices[i]);
  return fail (c, member_path, _("expected %s, got \"%s\""), list->str, value);
}

static gboolean
valid_name (const char *text,
            const char *extra)
{
  if (*text == '\0')
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p) && strchr (extra, *p) == NULL)
      return FALSE;
  return TRUE;
}

/* A key path is dot-separated member names, each optionally followed by [index]. */
static gboolean
valid_key_path (const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", -1);

  if (*path == '\0')
    return FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *p = parts[i];

      if (*p == '\0' || *p == '[')
        return FALSE;
      while (*p != '\0' && *p != '[')
        {
          if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-')
            return FALSE;
          p++;
        }
      while (*p == '[')
        {
          p++;
          if (!g_ascii_isdigit (*p))
            return FALSE;
          while (g_ascii_isdigit (*p))
            p++;
          if (*p != ']')
            return FALSE;
          p++;
        }
      if (*p != '\0')
        return FALSE;
    }
  return TRUE;
}

static QfCriterion *
parse_criterion (Checker    *c,
                 const char *path,
                 JsonNode   *node)
{
  static const char *const keys[] = { "metric", "label", "comparison", "limit", "unit", "role", NULL };
  static const char *const comparisons[] = { "<=", ">=", NULL };
  static const char *const roles[] = { "decides", "warns", NULL };
  g_autoptr(GPtrArray) holder = g_ptr_array_new_with_free_func (qf_criterion_free);
  QfCriterion *criterion;
  JsonObject *obj;
  const char *metric, *label, *comparison, *unit, *role;
  gdouble limit;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return expected (c, path, _("an object"), node), NULL;
  obj = json_node_get_object (node);
  if (!check_keys (c, path, obj, keys, keys))
    return NULL;
  if (!get_string (c, path, obj, "metric", FALSE, &metric) ||
      !get_string (c, path, obj, "label", FALSE, &label) ||
      !get_string (c, path, obj, "comparison", FALSE, &comparison) ||
      !check_one_of (c, path, "comparison", comparison, comparisons) ||
      !get_number (c, path, obj, "limit", &limit) ||
      !get_string (c, path, obj, "unit", TRUE, &unit) ||
      !get_string (c, path, obj, "role", FALSE, &role) ||
      !check_one_of (c, path, "role", role, roles))
    return NULL;
  if (!valid_key_path (metric))
    {
      g_autofree char *member_path = join_path (path, "metric");
      fail (c, member_path, _("expected a key path such as \"avg_us\" or \"threads[0].max_us\", got \"%s\""),
            metric);
      return NULL;
    }

  criterion = g_new0 (QfCriterion, 1);
  g_ptr_array_add (holder, criterion);
  criterion->metric = g_strdup (metric);
  criterion->label = g_strdup (label);
  criterion->comparison = g_str_equal (comparison, "<=") ? QF_COMPARISON_AT_MOST : QF_COMPARISON_AT_LEAST;
  criterion->limit = limit;
  criterion->unit = g_strdup (unit);
  criterion->role = g_str_equal (role, "decides") ? QF_ROLE_DECIDES : QF_ROLE_WARNS;
  return g_ptr_array_steal_index (holder, 0);
}

static QfProfileTest *
parse_test (Checker    *c,
            const char *key,
            JsonNode   *node)
{
  static const char *const keys[] = { "step", "title", "params", "criteria", NULL };
  static const char *const required[] = { "criteria", NULL };
  g_autofree char *path = join_path ("tests", key);
  g_autoptr(GPtrArray) holder = g_ptr_array_new_with_free_func (qf_profile_test_free);
  QfProfileTest *test;
  JsonObject *obj;
  JsonArray *criteria;
  JsonNode *member;
  const char *step = key, *title = NULL;

  if (!valid_name (key, "_-"))
    return fail (c, path, _("a test key may hold only lower-case letters, digits, “_” and “-”")), NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return expected (c, path, _("an object"), node), NULL;
  obj = json_node_get_object (node);
  if (!check_keys (c, path, obj, keys, required))
    return NULL;
  if (json_object_has_member (obj, "step") && !get_string (c, path, obj, "step", FALSE, &step))
    return NULL;
  if (json_object_has_member (obj, "title") && !get_string (c, path, obj, "title", FALSE, &title))
    return NULL;

  test = g_new0 (QfProfileTest, 1);
  g_ptr_array_add (holder, test);
  test->key = g_strdup (key);
  test->step = g_strdup (step);
  test->title = g_strdup (title);
  test->criteria = g_ptr_array_new_with_free_func (qf_criterion_free);

  member = json_object_get_member (obj, "params");
  if (member != NULL)
    {
      g_autofree char *params_path = join_path (path, "params");
      if (!JSON_NODE_HOLDS_OBJECT (member))
        return expected (c, params_path, _("an object"), member), NULL;
      test->params = qf_json_object_deep_copy (json_node_get_object (member));
    }
  else
    test->params = json_object_new ();

  member = json_object_get_member (obj, "criteria");
  {
    g_autofree char *criteria_path = join_path (path, "criteria");
    if (!JSON_NODE_HOLDS_ARRAY (member))
      return expected (c, criteria_path, _("a list"), member), NULL;
    criteria = json_node_get_array (member);
    for (guint i = 0; i < json_array_get_length (criteria); i++)
      {
        g_autofree char *item_path = g_strdup_printf ("%s[%u]", criteria_path, i);
        QfCriterion *criterion = parse_criterion (c, item_path, json_array_get_element (criteria, i));
        if (criterion == NULL)
          return NULL;
        g_ptr_array_add (test->criteria, criterion);
      }
  }
  return g_ptr_array_steal_index (holder, 0);
}

static gboolean
parse_profile (QfProfile  *self,
               Checker    *c,
               JsonNode   *root)
{
  static const char *const keys[] = { "id", "version", "name", "description", "network_kind",
                                      "quick_variant", "note", "tests", NULL };
  static const char *const required[] = { "id", "version", "name", "description", "network_kind",
                                          "tests", NULL };
  static const char *const kinds[] = { "wired", "wireless", "any", NULL };
  g_autoptr(GList) members = NULL;
  JsonObject *obj, *tests;
  JsonNode *node;
  const char *id, *name, *description, *kind, *quick = NULL, *note = NULL;
  gdouble version;

  if (!JSON_NODE_HOLDS_OBJECT (root))
    return expected (c, NULL, _("an object"), root);
  obj = json_node_get_object (root);
  if (!check_keys (c, NULL, obj, keys, required))
    return FALSE;
  if (!get_string (c, NULL, obj, "id", FALSE, &id))
    return FALSE;
  if (!valid_name (id, "-"))
    return fail (c, "id", _("an id may hold only lower-case letters, digits and “-”, got \"%s\""), id);
  node = json_object_get_member (obj, "version");
  if (!get_number (c, NULL, obj, "version", &version))
    return FALSE;
  if (version != (gdouble) (gint64) version || version < 1)
    return expected (c, "version", _("a whole number of at least 1"), node);
  if (!get_string (c, NULL, obj, "name", FALSE, &name) ||
      !get_string (c, NULL, obj, "description", TRUE, &description) ||
      !get_string (c, NULL, obj, "network_kind", FALSE, &kind) ||
      !check_one_of (c, NULL, "network_kind", kind, kinds))
    return FALSE;
  if (json_object_has_member (obj, "quick_variant") &&
      !get_string (c, NULL, obj, "quick_variant", FALSE, &quick))
    return FALSE;
  if (quick != NULL && !valid_name (quick, "-"))
    return fail (c, "quick_variant", _("an id may hold only lower-case letters, digits and “-”, got \"%s\""),
                 quick);
  if (json_object_has_member (obj, "note") && !get_string (c, NULL, obj, "note", FALSE, &note))
    return FALSE;

  node = json_object_get_member (obj, "tests");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return expected (c, "tests", _("an object"), node);
  tests = json_node_get_object (node);
  members = json_object_get_members (tests);
  if (members == NULL)
    return fail (c, "tests", _("a profile needs at least one test"));
  for (GList *l = members; l != NULL; l = l->next)
    {
      QfProfileTest *test = parse_test (c, l->data, json_object_get_member (tests, l->data));
      if (test == NULL)
        return FALSE;
      g_ptr_array_add (self->tests, test);
    }

  self->json = qf_json_object_deep_copy (obj);
  self->id = g_strdup (id);
  self->version = (gint64) version;
  self->name = g_strdup (name);
  self->description = g_strdup (description);
  self->network_kind = g_strdup (kind);
  self->quick_variant = g_strdup (quick);
  self->note = g_strdup (note);
  return TRUE;
}

QfProfile *
qf_profile_load_data (const char  *data,
                      gssize       length,
                      const char  *display_name,
                      GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(QfProfile) self = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) empty = NULL;
  Checker checker = { display_name, error };

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (display_name != NULL, NULL);

  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      g_set_error (error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_SYNTAX,
                   _("%s: not valid JSON: %s"), display_name, local_error->message);
      return NULL;
    }
  self = g_object_new (QF_TYPE_PROFILE, NULL);
  /* An empty file parses to no root at all: check it as null (an error, not an assertion). */
  if (json_parser_get_root (parser) == NULL)
    empty = json_node_new (JSON_NODE_NULL);
  if (!parse_profile (self, &checker, empty != NULL ? empty : json_parser_get_root (parser)))
    return NULL;
  return g_steal_pointer (&self);
}

QfProfile *
qf_profile_from_session (JsonObject  *stored,
                         const char  *display_name,
                         GError     **error)
{
  static const char *const keys[] = { "id", "version", "name", "description", "network_kind",
                                      "tests", NULL };
  g_autoptr(JsonObject) profile_json = json_object_new ();
  g_autofree char *text = NULL;

  g_return_val_if_fail (stored != NULL && display_name != NULL, NULL);

  for (guint i = 0; keys[i] != NULL; i++)
    if (json_object_has_member (stored, keys[i]))
      json_object_set_member (profile_json, keys[i],
                              qf_json_node_deep_copy (json_object_get_member (stored, keys[i])));
  text = qf_json_to_text (profile_json, FALSE);
  return qf_profile_load_data (text, -1, display_name, error);
}

QfProfile *
qf_profile_load_file (const char  *path,
                      GError     **error)
{
  g_autofree char *data = NULL;
  g_autofree char *base = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length;
  QfProfile *self;

  g_return_val_if_fail (path != NULL, NULL);

  base = g_path_get_basename (path);
  if (!g_file_get_contents (path, &data, &length, &local_error))
    {
      g_set_error (error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_READ, "%s", local_error->message);
      return NULL;
    }
  self = qf_profile_load_data (data, length, base, error);
  if (self != NULL)
    self->source = g_canonicalize_filename (path, NULL);
  return self;
}

/* ---- accessors ---------------------------------------------------------------------------- */

const char *
qf_profile_get_id (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return self->id;
}

gint64
qf_profile_get_version (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), 0);
  return self->version;
}

const char *
qf_profile_get_name (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return _(self->name);
}

const char *
qf_profile_get_description (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return *self->description != '\0' ? _(self->description) : "";
}

const char *
qf_profile_get_note (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return self->note != NULL ? _(self->note) : NULL;
}

const char *
qf_profile_get_network_kind (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return self->network_kind;
}

const char *
qf_profile_get_quick_variant (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return self->quick_variant;
}

const char *
qf_profile_get_source (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return self->source;
}

gboolean
qf_profile_is_user (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), FALSE);
  return self->user;
}

guint
qf_profile_get_n_tests (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), 0);
  return self->tests->len;
}

const QfProfileTest *
qf_profile_get_test (QfProfile *self,
                     guint      index)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  g_return_val_if_fail (index < self->tests->len, NULL);
  return g_ptr_array_index (self->tests, index);
}

const QfProfileTest *
qf_profile_find_test (QfProfile  *self,
                      const char *key)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  for (guint i = 0; i < self->tests->len; i++)
    {
      const QfProfileTest *test = g_ptr_array_index (self->tests, i);
      if (g_str_equal (test->key, key))
        return test;
    }
  return NULL;
}

JsonObject *
qf_profile_to_json (QfProfile *self)
{
  g_return_val_if_fail (QF_IS_PROFILE (self), NULL);
  return qf_json_object_deep_copy (self->json);
}

const char *
qf_comparison_to_string (QfComparison comparison)
{
  return comparison == QF_COMPARISON_AT_MOST ? "<=" : ">=";
}

const char *
qf_role_to_string (QfCriterionRole role)
{
  return role == QF_ROLE_DECIDES ? "decides" : "warns";
}

/* ---- finding profiles --------------------------------------------------------------------- */

char **
qf_profile_get_dirs (void)
{
  char **dirs = g_new0 (char *, 3);

  dirs[0] = g_build_filename (qf_paths_get_datadir (), "profiles", NULL);
  dirs[1] = g_build_filename (g_get_user_config_dir (), "qualify", "profiles", NULL);
  return dirs;
}

static gint
compare_by_id (gconstpointer a,
               gconstpointer b)
{
  QfProfile *pa = *(QfProfile **) a;
  QfProfile *pb = *(QfProfile **) b;

  return strcmp (pa->id, pb->id);
}

GPtrArray *
qf_profile_list (GPtrArray *errors)
{
  g_auto(GStrv) dirs = qf_profile_get_dirs ();
  g_autoptr(GHashTable) by_id = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer value;

  for (guint d = 0; dirs[d] != NULL; d++)
    {
      g_autoptr(GDir) dir = g_dir_open (dirs[d], 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      if (dir == NULL)
        continue;
      while ((name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (name, ".json") && name[0] != '.')
          g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *path = g_build_filename (dirs[d], g_ptr_array_index (names, i), NULL);
          g_autoptr(GError) error = NULL;
          QfProfile *profile = qf_profile_load_file (path, &error);

          if (profile == NULL)
            {
              if (errors != NULL)
                g_ptr_array_add (errors, g_strdup (error->message));
              continue;
            }
          profile->user = d > 0;
          g_hash_table_replace (by_id, profile->id, profile);
        }
    }

  g_hash_table_iter_init (&iter, by_id);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (list, g_object_ref (value));
  g_ptr_array_sort (list, compare_by_id);
  return list;
}

QfProfile *
qf_profile_find (const char  *id,
                 GError     **error)
{
  g_autoptr(GPtrArray) list = NULL;

  g_return_val_if_fail (id != NULL, NULL);

  if (g_str_has_suffix (id, ".json") || strchr (id, '/') != NULL)
    return qf_profile_load_file (id, error);

  /* Load only the file that can hold it first, so one broken file elsewhere does not matter;
   * a user file of that name wins. */
  {
    g_auto(GStrv) dirs = qf_profile_get_dirs ();
    g_autofree char *file = g_strconcat (id, ".json", NULL);

    for (gint d = (gint) g_strv_length (dirs) - 1; d >= 0; d--)
      {
        g_autofree char *path = g_build_filename (dirs[d], file, NULL);
        if (g_file_test (path, G_FILE_TEST_EXISTS))
          {
            QfProfile *profile = qf_profile_load_file (path, error);
            if (profile == NULL)
              return NULL;
            profile->user = d > 0;
            if (g_str_equal (profile->id, id))
              return profile;
            g_object_unref (profile);
          }
      }
  }

  list = qf_profile_list (NULL);
  for (guint i = 0; i < list->len; i++)
    {
      QfProfile *profile = g_ptr_array_index (list, i);
      if (g_str_equal (profile->id, id))
        return g_object_ref (profile);
    }
  g_set_error (error, QF_PROFILE_ERROR, QF_PROFILE_ERROR_NOT_FOUND,
               _("No profile called “%s”. Run “qualify-cli profiles” to see the profiles."), id);
  return NULL;
}
