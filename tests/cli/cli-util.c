/* cli-util.c — see cli-util.h. */
#include "config.h"

#include <glib/gstdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli-util.h"

int
qf_test_run_cli (char       **out,
                 char       **err,
                 const char  *first_arg,
                 ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *cli = g_getenv ("QUALIFY_CLI");
  char *std_out = NULL, *std_err = NULL;
  int wait_status = 0;
  va_list args;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  va_start (args, first_arg);
  for (const char *a = first_arg; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &std_out, &std_err, &wait_status, &error);
  g_assert_no_error (error);

  /* A client that died by a signal leaves its stderr (an ASan report, a GLib critical) as the
   * only clue: show it before failing. */
  if (!WIFEXITED (wait_status))
    g_printerr ("%s %s ended by signal %d; its stderr:\n%s\n", cli, first_arg,
                WIFSIGNALED (wait_status) ? WTERMSIG (wait_status) : -1,
                std_err != NULL ? std_err : "");

  if (out)
    *out = std_out;
  else
    g_free (std_out);
  if (err)
    *err = std_err;
  else
    g_free (std_err);

  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

JsonObject *
qf_test_parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_nonnull (root);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_object_ref (json_node_get_object (root));
}

gboolean
qf_test_others_can_run (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  struct stat st;

  if (stat (path, &st) != 0 || !(st.st_mode & S_IXOTH))
    return FALSE;
  while (!g_str_equal (dir, "/") && !g_str_equal (dir, "."))
    {
      char *parent;

      if (stat (dir, &st) != 0 || !(st.st_mode & S_IXOTH))
        return FALSE;
      parent = g_path_get_dirname (dir);
      g_free (dir);
      dir = parent;
    }
  return TRUE;
}

char *
qf_test_cli_for_others (const char  *dir,
                        char       **why)
{
  const char *cli = g_getenv ("QUALIFY_CLI");
  g_autofree char *copy = g_build_filename (dir, "qualify-cli", NULL);
  g_autofree char *data = NULL;
  gsize len;

  g_assert_nonnull (cli);
  if (qf_test_others_can_run (cli))
    return g_strdup (cli);
  if (!g_file_get_contents (cli, &data, &len, NULL) || !g_file_set_contents (copy, data, len, NULL)
      || g_chmod (copy, 0755) != 0)
    {
      *why = g_strdup_printf ("other users cannot reach %s, and it cannot be copied to %s", cli, dir);
      return NULL;
    }
  if (!qf_test_others_can_run (copy))
    {
      *why = g_strdup_printf ("other users can reach neither %s nor its copy in %s", cli, dir);
      g_unlink (copy);
      return NULL;
    }
  return g_steal_pointer (&copy);
}
