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
 *   g_autoptr(QfNmFix) fix = qf_nm_fix_new (client, "eth0", "gro", &error);
 *   qf_nm_fix_get_description (fix);  // "Connection “Wired 1”: ethtool.feature-gro on → off"
 *   qf_nm_fix_get_command (fix);      // "nmcli connection modify 'Wired 1' ethtool.feature-gro off"
 *   qf_nm_fix_apply_async (fix, cancellable, done, data);   … qf_nm_fix_apply_finish
 *   qf_nm_fix_undo_async (fix, cancellable, done, data);    … qf_nm_fix_undo_finish
 *
 * Check ids with a fix: wifi-power-save, coalescing, gro, ip-method. EEE, IRQ affinity, link
 * speed and MTU path have none here (NetworkManager 1.42 cannot hold the first two; the others
 * need a cable or a switch). Main thread of the NMClient. */
#pragma once

#include <gio/gio.h>
#include <NetworkManager.h>

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

/* The fix for audit check check_id on iface's connection; NULL with error when there is none. */
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
