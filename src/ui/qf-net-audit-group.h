/* qf-net-audit-group.h — "Network readiness": the network audit of the chosen interface as a
 * group of rows, with Apply and Undo for the fixes NetworkManager can hold (src/ui). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_NET_AUDIT_GROUP (qf_net_audit_group_get_type ())
G_DECLARE_FINAL_TYPE (QfNetAuditGroup, qf_net_audit_group, QF, NET_AUDIT_GROUP, AdwPreferencesGroup)

/* The interface to audit (NULL: none); audits it again when it changes. */
void       qf_net_audit_group_set_iface  (QfNetAuditGroup *self,
                                          const char      *iface);
/* The helper machine's address, for the path-MTU check (NULL: not known); audits again. */
void       qf_net_audit_group_set_peer   (QfNetAuditGroup *self,
                                          const char      *peer);
/* Reads the interface's facts again (on a worker thread). */
void       qf_net_audit_group_refresh    (QfNetAuditGroup *self);
/* TRUE while an audit runs, or is about to after a burst of NetworkManager's signals (the
 * spinner turns); notified as "running". */
gboolean   qf_net_audit_group_get_running (QfNetAuditGroup *self);
/* The last audit of iface (QfNetAuditCheck), or NULL when none of that interface is shown yet.
 * Borrowed. */
GPtrArray *qf_net_audit_group_get_checks (QfNetAuditGroup *self,
                                          const char      *iface);

G_END_DECLS
