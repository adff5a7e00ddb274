/* cli-util.c — see cli-util.h. */
#include "config.h"

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
