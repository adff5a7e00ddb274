/* qf-discover.h — the helper machines heard on an interface, for the network page (src/core).
 *
 * One short DNS-SD browse (qf_discovery_browse, src/engine/qf-discovery.h) on a worker thread
 * (GTask), so the wizard's main loop never waits for the network. Cancelling the GCancellable
 * ends the browse early (the engine polls its stop flag); the callback then gets
 * G_IO_ERROR_CANCELLED. */
#pragma once

#include <gio/gio.h>

#include "qf-discovery.h"

G_BEGIN_DECLS

/* iface: the interface to ask on (NULL: every interface that is up). */
void       qf_discover_async  (const char          *iface,
                               guint                duration_ms,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data);
/* Every helper heard (GPtrArray of QfHelperInfo, free func set; may be empty), or NULL with
 * error: cancelled, or the interface cannot be asked (the engine's message). */
GPtrArray *qf_discover_finish (GAsyncResult        *result,
                               GError             **error);

G_END_DECLS
