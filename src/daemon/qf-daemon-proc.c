/* qf-daemon-proc.c — a calling process's facts from /proc (src/daemon); see qf-daemon-proc.h. */
#include "config.h"

#include <string.h>

#include "qf-daemon-proc.h"

static char *
task_file (pid_t       pid,
           pid_t       tid,
           const char *name)
{
  if (tid == 0)
    return g_strdup_printf ("/proc/%d/%s", (int) pid, name);
  return g_strdup_printf ("/proc/%d/task/%d/%s", (int) pid, (int) tid, name);
}

/* The line of `text` that starts with `key`, without the key, or NULL. */
static char *
line_after (const char *text,
            const char *key)
{
  gsize key_len = strlen (key);

  for (const char *line = text; line != NULL && *line != '\0'; line = strchr (line, '\n'))
    {
      if (*line == '\n')
        line++;
      if (strncmp (line, key, key_len) == 0)
        {
          const char *end = strchrnul (line, '\n');
          return g_strndup (line + key_len, end - line - key_len);
        }
    }
  return NULL;
}

gboolean
qf_daemon_proc_start_time (pid_t    pid,
                           pid_t    tid,
                           guint64 *start_time)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after_comm;

  if (pid <= 0 || tid < 0)
    return FALSE;
  path = task_file (pid, tid, "stat");
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  /* The command name may hold spaces and parentheses: the fields start after the last ')'. */
  after_comm = strrchr (text, ')');
  if (after_comm == NULL)
    return FALSE;
  fields = g_strsplit_set (after_comm + 1, " \n", -1);
  /* fields[0] is the empty word before the first space; fields[1] is field 3 (state), so
   * field 22 (starttime) is fields[20]. */
  if (g_strv_length (fields) < 21)
    return FALSE;
  return g_ascii_string_to_unsigned (fields[20], 10, 0, G_MAXUINT64, start_time, NULL);
}

gboolean
qf_daemon_proc_owned_by (pid_t pid,
                         pid_t tid,
                         uid_t uid)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *ids = NULL;
  g_auto(GStrv) words = NULL;
  guint n = 0;

  if (pid <= 0 || tid < 0)
    return FALSE;
  path = task_file (pid, tid, "status");
  if (!g_file_get_contents (path, &text, NULL, NULL) || (ids = line_after (text, "Uid:")) == NULL)
    return FALSE;
  words = g_strsplit_set (ids, " \t", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      guint64 id;

      if (words[i][0] == '\0')
        continue;
      if (!g_ascii_string_to_unsigned (words[i], 10, 0, G_MAXUINT32, &id, NULL) || id != uid)
        return FALSE;
      n++;
    }
  return n == 4;
}

static gboolean
parse_limit (const char *word,
             guint64    *value)
{
  if (g_strcmp0 (word, "unlimited") == 0)
    {
      *value = QF_DAEMON_PROC_UNLIMITED;
      return TRUE;
    }
  return g_ascii_string_to_unsigned (word, 10, 0, G_MAXUINT64 - 1, value, NULL);
}

gboolean
qf_daemon_proc_limit (pid_t       pid,
                      const char *name,
                      guint64    *soft,
                      guint64    *hard)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *values = NULL;
  g_auto(GStrv) words = NULL;
  const char *found[2] = { NULL, NULL };
  guint n = 0;

  if (pid <= 0)
    return FALSE;
  path = task_file (pid, 0, "limits");
  if (!g_file_get_contents (path, &text, NULL, NULL) || (values = line_after (text, name)) == NULL)
    return FALSE;
  words = g_strsplit_set (values, " \t", -1);
  for (guint i = 0; words[i] != NULL && n < 2; i++)
    if (words[i][0] != '\0')
      found[n++] = words[i];
  return n == 2 && parse_limit (found[0], soft) && parse_limit (found[1], hard);
}
