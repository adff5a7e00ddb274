/* qf-cli-profiles.c — `qualify-cli profiles`: list, show and check threshold profiles
 * (src/cli). */
#include "config.h"


#include "qf-cli.h"
#include "qf-i18n.h"
#include "qf-json.h"
#include "qf-profile.h"
#include "qf-step.h"
#include "qf-verdict.h"

static JsonObject *
profile_summary (QfProfile *profile)
{
  JsonObject *obj = json_object_new ();
  JsonArray *tests = json_array_new ();

  json_object_set_string_member (obj, "id", qf_profile_get_id (profile));
  json_object_set_int_member (obj, "version", qf_profile_get_version (profile));
  json_object_set_string_member (obj, "name", qf_profile_get_name (profile));
  json_object_set_string_member (obj, "description", qf_profile_get_description (profile));
  json_object_set_string_member (obj, "network_kind", qf_profile_get_network_kind (profile));
  if (qf_profile_get_quick_variant (profile) != NULL)
    json_object_set_string_member (obj, "quick_variant", qf_profile_get_quick_variant (profile));
  else
    json_object_set_null_member (obj, "quick_variant");
  json_object_set_string_member (obj, "origin", qf_profile_is_user (profile) ? "user" : "shipped");
  if (qf_profile_get_source (profile) != NULL)
    json_object_set_string_member (obj, "source", qf_profile_get_source (profile));
  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    json_array_add_string_element (tests, qf_profile_get_test (profile, i)->key);
  json_object_set_array_member (obj, "tests", tests);
  return obj;
}

static int
list_profiles (gboolean json)
{
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) profiles = qf_profile_list (errors);

  for (guint i = 0; i < errors->len; i++)
    g_printerr (_("qualify-cli profiles: skipped a broken profile: %s\n"), (char *) g_ptr_array_index (errors, i));

  if (json)
    {
      g_autoptr(JsonObject) obj = json_object_new ();
      JsonArray *list = json_array_new ();
      JsonArray *broken = json_array_new ();

      for (guint i = 0; i < profiles->len; i++)
        json_array_add_object_element (list, profile_summary (g_ptr_array_index (profiles, i)));
      for (guint i = 0; i < errors->len; i++)
        json_array_add_string_element (broken, g_ptr_array_index (errors, i));
      json_object_set_string_member (obj, "test", "profiles");
      json_object_set_array_member (obj, "profiles", list);
      json_object_set_array_member (obj, "errors", broken);
      qf_cli_print_json (obj);
      return QF_CLI_EXIT_OK;
    }

  for (guint i = 0; i < profiles->len; i++)
    {
      QfProfile *profile = g_ptr_array_index (profiles, i);
      g_print ("%-24s %s (%s, %s %lld)%s\n", qf_profile_get_id (profile), qf_profile_get_name (profile),
               qf_profile_get_network_kind (profile), _("version"), (long long) qf_profile_get_version (profile),
               qf_profile_is_user (profile) ? _(" [user]") : "");
    }
  if (profiles->len == 0)
    g_print ("%s\n", _("No profiles found."));
  return QF_CLI_EXIT_OK;
}

static int
show_profile (QfProfile *profile,
              gboolean   json)
{
  if (json)
    {
      g_autoptr(JsonObject) obj = qf_profile_to_json (profile);
      json_object_set_string_member (obj, "origin", qf_profile_is_user (profile) ? "user" : "shipped");
      if (qf_profile_get_source (profile) != NULL)
        json_object_set_string_member (obj, "source", qf_profile_get_source (profile));
      qf_cli_print_json (obj);
      return QF_CLI_EXIT_OK;
    }

  g_print ("%s — %s\n", qf_profile_get_id (profile), qf_profile_get_name (profile));
  g_print ("%s\n", qf_profile_get_description (profile));
  g_print ("%s %s, %s %lld", _("Network:"), qf_profile_get_network_kind (profile), _("version"),
           (long long) qf_profile_get_version (profile));
  if (qf_profile_get_quick_variant (profile) != NULL)
    g_print (", %s %s", _("quick variant:"), qf_profile_get_quick_variant (profile));
  g_print ("\n");
  if (qf_profile_get_source (profile) != NULL)
    g_print ("%s %s\n", _("File:"), qf_profile_get_source (profile));

  for (guint i = 0; i < qf_profile_get_n_tests (profile); i++)
    {
      const QfProfileTest *test = qf_profile_get_test (profile, i);
      const QfStepInfo *info = qf_step_lookup (test->step);
      g_autofree char *params = qf_json_to_text (test->params, FALSE);
      const char *title = test->title != NULL ? _(test->title) : info != NULL ? _(info->title) : test->key;

      g_print ("\n%s (%s)%s\n", title, test->key, info == NULL ? _(" — not in this build yet") : "");
      g_print ("  %s %s", _("parameters:"), params);
      if (info != NULL && info->classic_command != NULL)
        {
          g_autofree char *classic = info->classic_command (test->params, "PEER");
          g_print ("  %s %s\n", _("classic command:"), classic);
        }
      for (guint k = 0; k < test->criteria->len; k++)
        {
          const QfCriterion *c = g_ptr_array_index (test->criteria, k);
          g_autofree char *limit = qf_verdict_format_value (c->limit, c->unit);
          g_print ("  %-36s %s %-14s %s\n", _(c->label), c->comparison == QF_COMPARISON_AT_MOST ? "≤" : "≥",
                   limit, c->role == QF_ROLE_DECIDES ? _("decides") : _("warns"));
        }
      if (test->criteria->len == 0)
        g_print ("  %s\n", _("informative: no limit"));
    }
  return QF_CLI_EXIT_OK;
}

int
qf_cli_profiles (int    argc,
                 char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProfile) profile = NULL;
  gboolean json = FALSE;
  int exit_code;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object on stdout"), NULL },
    { NULL }
  };

  if (!qf_cli_parse_options ("profiles", _("[show ID | check FILE]"),
                             _("List the threshold profiles, show one, or check a profile file."),
                             entries, &argc, &argv, &exit_code))
    return exit_code;

  if (argc == 1)
    return list_profiles (json);
  if (g_str_equal (argv[1], "show") && argc == 3)
    {
      profile = qf_profile_find (argv[2], &error);
      if (profile == NULL)
        return qf_cli_error ("profiles", error);
      return show_profile (profile, json);
    }
  if (g_str_equal (argv[1], "check") && argc == 3)
    {
      profile = qf_profile_load_file (argv[2], &error);
      if (profile == NULL)
        return qf_cli_error ("profiles", error);
      if (json)
        {
          g_autoptr(JsonObject) obj = profile_summary (profile);
          json_object_set_string_member (obj, "test", "profiles");
          json_object_set_boolean_member (obj, "valid", TRUE);
          qf_cli_print_json (obj);
        }
      else
        g_print (_("%s: a valid profile “%s” with %u tests.\n"), argv[2], qf_profile_get_id (profile),
                 qf_profile_get_n_tests (profile));
      return QF_CLI_EXIT_OK;
    }
  return qf_cli_errorf ("profiles", _("expected nothing, “show ID” or “check FILE”, got “%s”"), argv[1]);
}
