/* qf-env.h — the environment, read in one place (src/core/common).
 *
 * qualify-cli and qualify may run with file capabilities (meson -Dcapabilities=true), and then
 * in secure mode (getauxval (AT_SECURE)): whoever starts them chooses their environment, so in
 * that mode nothing in it may name a file to load, code to run or a behaviour to change. As
 * glibc does for its own variables, and sudo's env_reset for a whole environment:
 *   - qf_env_init(), first thing in main(), leaves in a secure process's environment only the
 *     variables a terminal or a desktop session needs to reach the user (docs/security.md lists
 *     them and why each is harmless) and sets PATH to the system's folders; every other library
 *     (GLib, GTK, Mesa, fontconfig, libnm…) then finds nothing to load from;
 *   - qf_env_get() is the only reader of the environment in src/: Qualify's own variables, each
 *     ignored in secure mode unless it can change nothing but the user's own data. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when the process runs in secure mode (file capabilities, setuid, setgid). */
gboolean    qf_env_is_secure (void);

/* Call first in main(), before any thread starts: in secure mode, reduces the environment as
 * above; otherwise does nothing. */
void        qf_env_init      (void);

/* One of Qualify's variables (QUALIFY_DATADIR, QUALIFY_LOCALEDIR, QUALIFY_P12_PASSWORD), or
 * NULL when it is unset or ignored in secure mode. */
const char *qf_env_get       (const char *name);

G_END_DECLS
