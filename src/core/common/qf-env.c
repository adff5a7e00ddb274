/* qf-env.c — the environment, read in one place (src/core/common); see qf-env.h and
 * docs/security.md ("The environment of a privileged process"). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "qf-env.h"

/* Qualify's own variables. A path to data or translations is ignored in secure mode: the
 * process would load what the caller chose with the privileges the caller lacks. The PKCS#12
 * password is honoured: it only opens a file that this user's own rights already open, it is
 * what scripts use to sign reports, and it changes nothing else. */
static const struct
{
  const char *name;
  gboolean    in_secure_mode;
} qualify_variables[] = {
  { "QUALIFY_DATADIR", FALSE },
  { "QUALIFY_LOCALEDIR", FALSE },
  { "QUALIFY_P12_PASSWORD", TRUE },
};

/* What a secure process keeps: what reaches the user's terminal or desktop session and the
 * user's own folders, none of which names code to load or moves a system folder somewhere the
 * user chose. Libraries that would load code or data from the environment (GIO and GTK modules,
 * gdk-pixbuf loaders, Mesa and Vulkan drivers, fontconfig files, GSettings schemas, XDG_DATA_DIRS)
 * find none of their variables. */
static const char *const kept_in_secure_mode[] = {
  "HOME", "USER", "LOGNAME",                             /* the user's own files */
  "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",                                     /* the session's bus and display */
  "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
  "XDG_SESSION_TYPE", "XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION",
  "GTK_IM_MODULE", "XMODIFIERS",                         /* chooses among installed modules */
  "LANG", "LANGUAGE",                                    /* glibc checks locale names itself */
  "TERM", "COLORTERM", "NO_COLOR", "COLUMNS", "LINES",
  "TZ",                                                  /* kept only as a zone name (below) */
};

#define SECURE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

gboolean
qf_env_is_secure (void)
{
  return getauxval (AT_SECURE) != 0;
}

/* Whether a secure process keeps NAME=VALUE. */
static gboolean
kept (const char *name,
      const char *value)
{
  if (g_str_has_prefix (name, "LC_"))
    return TRUE;
  if (g_str_equal (name, "TZ"))   /* "Europe/Berlin", never a file of the caller's */
    return value[value[0] == ':'] != '/' && strstr (value, "..") == NULL;
  for (guint i = 0; i < G_N_ELEMENTS (kept_in_secure_mode); i++)
    if (g_str_equal (name, kept_in_secure_mode[i]))
      return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (qualify_variables); i++)
    if (g_str_equal (name, qualify_variables[i].name))
      return qualify_variables[i].in_secure_mode;
  return FALSE;
}

void
qf_env_init (void)
{
  g_autoptr(GPtrArray) dropped = g_ptr_array_new_with_free_func (g_free);

  if (!qf_env_is_secure ())
    return;
  for (char **e = environ; e != NULL && *e != NULL; e++)
    {
      const char *eq = strchr (*e, '=');
      g_autofree char *name = eq != NULL ? g_strndup (*e, eq - *e) : g_strdup (*e);

      if (eq == NULL || !kept (name, eq + 1))
        g_ptr_array_add (dropped, g_steal_pointer (&name));
    }
  for (guint i = 0; i < dropped->len; i++)
    unsetenv (g_ptr_array_index (dropped, i));
  setenv ("PATH", SECURE_PATH, 1);
}

const char *
qf_env_get (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (qualify_variables); i++)
    if (g_str_equal (name, qualify_variables[i].name))
      {
        if (!qualify_variables[i].in_secure_mode && qf_env_is_secure ())
          return NULL;
        return g_getenv (name);
      }
  g_critical ("qf_env_get: %s is not one of Qualify's variables", name);
  return NULL;
}
