/* qf-paths.c — data and locale directories for installed and uninstalled runs (src/core). */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "qf-paths.h"

const char *
qf_paths_get_datadir (void)
{
  static char *datadir;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      const char *env = g_getenv ("QUALIFY_DATADIR");
      char *dir;

      if (env != NULL && *env != '\0')
        dir = g_strdup (env);
      else if (g_file_test (PKGDATADIR "/profiles", G_FILE_TEST_IS_DIR))
        dir = g_strdup (PKGDATADIR);
      else
        dir = g_strdup (QF_SOURCE_DATADIR);
      datadir = dir;
      g_once_init_leave (&initialized, 1);
    }
  return datadir;
}

/* The installed catalogue when there is one, else the build tree's (meson writes
 * po/<lang>/LC_MESSAGES/qualify.mo there), so an uninstalled build speaks Chinese too. */
const char *
qf_paths_get_localedir (void)
{
  const char *env = g_getenv ("QUALIFY_LOCALEDIR");
  g_autofree char *installed = g_build_filename (LOCALEDIR, "zh_CN", "LC_MESSAGES",
                                                 GETTEXT_PACKAGE ".mo", NULL);

  if (env != NULL && *env != '\0')
    return env;
  if (g_file_test (installed, G_FILE_TEST_EXISTS))
    return LOCALEDIR;
  return QF_BUILD_LOCALEDIR;
}

void
qf_i18n_init (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, qf_paths_get_localedir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}
