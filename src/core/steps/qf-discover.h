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

/* TRUE when another helper in helpers, heard on the same interface, announces the same name
 * (DNS-SD instance or machine name, whatever the case): two hosts on one link claim to be the
 * same machine, and one may be posing as the other. */
gboolean   qf_discover_name_in_conflict (GPtrArray          *helpers,
                                         const QfHelperInfo *helper);
/* One sentence per name that several helpers announce on one interface, naming them with their
 * addresses and what to do; NULL when there is no such name. For the CLI and the network page. */
char      *qf_discover_describe_conflicts (GPtrArray        *helpers);

G_END_DECLS
