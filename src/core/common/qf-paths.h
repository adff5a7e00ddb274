/* qf-paths.h — where Qualify finds its data and translations (src/core).
 * Installed: $prefix/share/qualify, found relative to the running binary (so a DESTDIR or moved
 * install works). Uninstalled (./run, tests): the source tree's data/.
 * QUALIFY_DATADIR overrides both, except in secure mode (qf-env.h). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

const char *qf_paths_get_datadir   (void);
const char *qf_paths_get_localedir (void);
void        qf_i18n_init           (void);

G_END_DECLS
