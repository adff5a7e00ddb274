/* qf-paths.c — data and locale directories for installed and uninstalled runs (src/core).
 *
 * Lookup order for data (profiles, demo sessions): $QUALIFY_DATADIR; the tree the running binary
 * was installed into (found from /proc/self/exe, so `meson install --destdir` or a moved prefix
 * works without environment variables); the configured PKGDATADIR; the source tree's data/
 * (./run and the tests). Translations follow the same order. In secure mode (qf-env.h) the
 * first two are skipped: the caller chooses the environment, and where the binary seems to be
 * (a hard link of it in the caller's folder), while the configured folders are the builder's. */
#include "config.h"

#include <locale.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-env.h"
#include "qf-paths.h"

/* "bin" for the usual bindir; an absolute bindir under the prefix becomes relative. */
static const char *
relative_bindir (void)
{
  const char *bindir = QF_BINDIR;
  gsize prefix_len = strlen (QF_PREFIX);

  if (g_path_is_absolute (bindir))
    {
      if (strncmp (bindir, QF_PREFIX, prefix_len) != 0)
        return NULL;
      bindir += prefix_len;
      while (*bindir == '/')
        bindir++;
    }
  return bindir;
}

/* The prefix the running binary lives under: /proc/self/exe is PREFIX/BINDIR/qualify(-cli).
 * NULL for an uninstalled binary in the build tree (its directory is not BINDIR). */
static const char *
qf_paths_get_running_prefix (void)
{
  static char *running_prefix;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      const char *bindir = relative_bindir ();
      char *found = NULL;

      if (exe != NULL && bindir != NULL && *bindir != '\0')
        {
          g_autofree char *dir = g_path_get_dirname (exe);
          g_autofree char *suffix = g_strconcat ("/", bindir, NULL);

          if (g_str_has_suffix (dir, suffix))
            found = g_strndup (dir, strlen (dir) - strlen (suffix));
        }
      running_prefix = found;
      g_once_init_leave (&initialized, 1);
    }
  return running_prefix;
}

/* PATH (configured under QF_PREFIX) moved under the running binary's prefix, or NULL. */
static char *
relocate (const char *path)
{
  const char *running = qf_paths_get_running_prefix ();
  gsize prefix_len = strlen (QF_PREFIX);

  if (running == NULL || strncmp (path, QF_PREFIX, prefix_len) != 0 || qf_env_is_secure ())
    return NULL;
  if (path[prefix_len] != '/' && path[prefix_len] != '\0')
    return NULL;
  return g_strconcat (running, path + prefix_len, NULL);
}

const char *
qf_paths_get_datadir (void)
{
  static char *datadir;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      const char *env = qf_env_get ("QUALIFY_DATADIR");
      g_autofree char *relocated = relocate (PKGDATADIR);
      char *dir;

      if (env != NULL && *env != '\0')
        dir = g_strdup (env);
      else if (relocated != NULL && g_file_test (relocated, G_FILE_TEST_IS_DIR))
        dir = g_steal_pointer (&relocated);
      else if (g_file_test (PKGDATADIR "/profiles", G_FILE_TEST_IS_DIR))
        dir = g_strdup (PKGDATADIR);
      else
        dir = g_strdup (QF_SOURCE_DATADIR);
      datadir = dir;
      g_once_init_leave (&initialized, 1);
    }
  return datadir;
}

static gboolean
has_catalogue (const char *localedir)
{
  g_autofree char *mo = g_build_filename (localedir, "zh_CN", "LC_MESSAGES",
                                          GETTEXT_PACKAGE ".mo", NULL);

  return g_file_test (mo, G_FILE_TEST_EXISTS);
}

/* The installed catalogue when there is one, else the build tree's (meson writes
 * po/<lang>/LC_MESSAGES/qualify.mo there), so an uninstalled build speaks Chinese too. */
const char *
qf_paths_get_localedir (void)
{
  static char *localedir;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      const char *env = qf_env_get ("QUALIFY_LOCALEDIR");
      g_autofree char *relocated = relocate (LOCALEDIR);
      char *dir;

      if (env != NULL && *env != '\0')
        dir = g_strdup (env);
      else if (relocated != NULL && has_catalogue (relocated))
        dir = g_steal_pointer (&relocated);
      else if (has_catalogue (LOCALEDIR))
        dir = g_strdup (LOCALEDIR);
      else
        dir = g_strdup (QF_BUILD_LOCALEDIR);
      localedir = dir;
      g_once_init_leave (&initialized, 1);
    }
  return localedir;
}

void
qf_i18n_init (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, qf_paths_get_localedir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}
