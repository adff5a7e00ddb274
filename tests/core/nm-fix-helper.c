/* nm-fix-helper.c — drives QfNmFix against a running NetworkManager for test-nm-real.py
 * (tests/core): `nm-fix-helper IFACE CHECK_ID` prints the description and the nmcli command,
 * applies the fix, prints "applied", waits for a line on stdin (the test reads the connection
 * meanwhile), undoes it and prints "undone". Exit 0 on success, 1 when there is no fix (the
 * error on stdout as "no-fix: MESSAGE"), 2 on any other error. */
#include "config.h"

#include <stdio.h>

#include "qf-nm-fix.h"

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
} Wait;

static void
done (GObject      *object,
      GAsyncResult *result,
      gpointer      data)
{
  Wait *wait = data;
  QfNmFix *fix = QF_NM_FIX (object);

  if (g_task_get_source_tag (G_TASK (result)) == qf_nm_fix_apply_async)
    wait->ok = qf_nm_fix_apply_finish (fix, result, &wait->error);
  else
    wait->ok = qf_nm_fix_undo_finish (fix, result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static gboolean
run (QfNmFix  *fix,
     gboolean  apply)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait wait = { loop, FALSE, NULL };

  if (apply)
    qf_nm_fix_apply_async (fix, NULL, done, &wait);
  else
    qf_nm_fix_undo_async (fix, NULL, done, &wait);
  g_main_loop_run (loop);
  if (!wait.ok)
    {
      printf ("error: %s\n", wait.error->message);
      g_error_free (wait.error);
    }
  else if (qf_nm_fix_get_note (fix) != NULL)
    printf ("note: %s\n", qf_nm_fix_get_note (fix));
  return wait.ok;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NMClient) client = NULL;
  g_autoptr(QfNmFix) fix = NULL;
  char line[64];

  if (argc != 3)
    return 2;
  client = nm_client_new (NULL, &error);
  if (client == NULL)
    {
      printf ("error: %s\n", error->message);
      return 2;
    }
  fix = qf_nm_fix_new (client, argv[1], argv[2], &error);
  if (fix == NULL)
    {
      printf ("no-fix: %s\n", error->message);
      return 1;
    }
  printf ("description: %s\ncommand: %s\n", qf_nm_fix_get_description (fix), qf_nm_fix_get_command (fix));
  if (!run (fix, TRUE))
    return 2;
  printf ("applied\n");
  fflush (stdout);
  if (fgets (line, sizeof line, stdin) == NULL)
    return 2;
  if (!run (fix, FALSE))
    return 2;
  printf ("undone\n");
  return 0;
}
