/* qf-nm-fix.h — a network audit fix that NetworkManager holds, applied and undone (src/core).
 *
 * For the settings a NetworkManager connection carries — Wi-Fi power saving
 * (802-11-wireless.powersave), the ethtool coalescing and offload options (ethtool.coalesce-*,
 * ethtool.feature-*) and the address method of a direct link (ipv4.method / ipv6.method
 * link-local) — QfNmFix says the exact change first, applies it to the interface's connection
 * through libnm (Update2 to disk, then Reapply on the device so it takes effect at once, or
 * activating the connection again where Reapply is refused, as for every ethtool setting in
 * NetworkManager 1.42; NetworkManager asks polkit, so a desktop user is asked for
 * authorisation as GNOME Settings does), keeps a
 * copy of the connection's settings as they were, and undoes by writing that copy back.
 *
 *   g_autoptr(QfNmFix) fix = qf_nm_fix_new_for_check (client, "eth0", gro_check, &error);
 *   qf_nm_fix_get_description (fix);  // "Connection “Wired 1”: ethtool.feature-gro on → off"
 *   qf_nm_fix_get_command (fix);      // "nmcli connection modify 'Wired 1' ethtool.feature-gro off"
 *   qf_nm_fix_apply_async (fix, cancellable, done, data);   … qf_nm_fix_apply_finish
 *   qf_nm_fix_undo_async (fix, cancellable, done, data);    … qf_nm_fix_undo_finish
 *
 * The change is the one the audit row recommends: the property/value pairs of its nmcli command
 * (QfNetAuditCheck.nm_settings), for the properties written here — ethtool.feature-* and
 * ethtool.coalesce-*, 802-11-wireless.powersave, ipv4/ipv6.method and connection.autoconnect.
 * So the address method row's fix is connection.autoconnect when the connection does not come
 * up by itself, and link-local (which drops fixed addresses) only when it waits for DHCP in
 * vain or has no address at all. EEE and IRQ affinity have no fix here (NetworkManager 1.42
 * cannot hold them); duplex, MTU and the Wi-Fi band are left to the row's command.
 * Once Update2 has saved the change, apply and undo run to their end even when cancelled, so
 * get_applied always says what NetworkManager holds. Main thread of the NMClient. */
#pragma once

#include <gio/gio.h>
#include <NetworkManager.h>

#include "qf-net-audit.h"

G_BEGIN_DECLS

#define QF_NM_FIX_ERROR (qf_nm_fix_error_quark ())
GQuark qf_nm_fix_error_quark (void);

typedef enum
{
  QF_NM_FIX_ERROR_NOT_RUNNING,   /* NetworkManager is not running */
  QF_NM_FIX_ERROR_NO_CONNECTION, /* no device or no connection for the interface */
  QF_NM_FIX_ERROR_NOT_HELD,      /* NetworkManager cannot hold this setting */
  QF_NM_FIX_ERROR_NOTHING_TO_DO, /* the connection already has the recommended values */
  QF_NM_FIX_ERROR_STATE,         /* apply twice, or undo before apply */
} QfNmFixError;

#define QF_TYPE_NM_FIX (qf_nm_fix_get_type ())
G_DECLARE_FINAL_TYPE (QfNmFix, qf_nm_fix, QF, NM_FIX, GObject)

/* The fix of an audit row: exactly the property changes its nmcli command sets
 * (check->nm_settings), on iface's connection; NULL with error when NetworkManager cannot hold
 * them here (QF_NM_FIX_ERROR_NOT_HELD), or the row recommends nothing. Reads nothing from the
 * card, so it is cheap on the main thread. */
QfNmFix    *qf_nm_fix_new_for_check   (NMClient              *client,
                                       const char            *iface,
                                       const QfNetAuditCheck *check,
                                       GError               **error);
/* The same for check check_id after auditing iface now (NetworkManager asked, no peer): for
 * tools; it reads the card (and runs iw on Wi-Fi), so not for a UI's main thread. */
QfNmFix    *qf_nm_fix_new             (NMClient            *client,
                                       const char          *iface,
                                       const char          *check_id,
                                       GError             **error);
/* One line per property: "Connection “ID”: SETTING.PROPERTY OLD → NEW", translated. */
const char *qf_nm_fix_get_description (QfNmFix             *self);
/* The nmcli command that makes the same change. */
const char *qf_nm_fix_get_command     (QfNmFix             *self);
const char *qf_nm_fix_get_connection_id (QfNmFix           *self);
gboolean    qf_nm_fix_get_applied     (QfNmFix             *self);
/* After apply/undo: NULL, or a translated sentence saying the connection was activated again
 * (the link dropped for a moment) or that the device takes the change on its next activation. */
const char *qf_nm_fix_get_note        (QfNmFix             *self);

void        qf_nm_fix_apply_async     (QfNmFix             *self,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
gboolean    qf_nm_fix_apply_finish    (QfNmFix             *self,
                                       GAsyncResult        *result,
                                       GError             **error);
/* Writes back the connection's settings exactly as they were before apply. */
void        qf_nm_fix_undo_async      (QfNmFix             *self,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
gboolean    qf_nm_fix_undo_finish     (QfNmFix             *self,
                                       GAsyncResult        *result,
                                       GError             **error);

G_END_DECLS
