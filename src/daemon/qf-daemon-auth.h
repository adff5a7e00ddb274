/* qf-daemon-auth.h — who qualifyd serves (src/daemon; docs/privileges.md).
 *
 * For every call, from the bus's credentials of the caller: root; a member of the system group
 * `qualify` (the group database is read here, so a member added a minute ago counts without
 * logging in again, and polkit 0.105 without JavaScript rules needs no rule for it); anyone else
 * only when polkit authorises the action for the caller's bus name — interactively, through the
 * desktop's own authentication dialog, when the call carries D-Bus's
 * ALLOW_INTERACTIVE_AUTHORIZATION flag. What polkit granted is kept for the connection's life.
 *
 *   qf_daemon_authorize (bus, caller, QF_QUALIFYD_ACTION_MEASURE, interactive, on_done, data);
 *   QfAccess access = qf_daemon_authorize_finish (result, &error);   // QF_ACCESS_NONE: refused
 *
 * Main thread only. */
#pragma once

#include <gio/gio.h>

#include "qf-daemon-caller.h"

G_BEGIN_DECLS

typedef enum
{
  QF_ACCESS_NONE,             /* refused */
  QF_ACCESS_POLKIT_AUTH,      /* polkit would ask for a password (only from a non-interactive
                                 check) */
  QF_ACCESS_POLKIT,
  QF_ACCESS_GROUP,
  QF_ACCESS_ROOT,
} QfAccess;

/* The GetAccess word of qf-qualifyd-protocol.h. */
const char *qf_access_to_string        (QfAccess             access);

/* TRUE when user `uid` belongs to `group` in the group database (primary or supplementary). */
gboolean    qf_daemon_in_group         (uid_t                uid,
                                        const char          *group);

void        qf_daemon_authorize        (GDBusConnection     *bus,
                                        QfCaller            *caller,
                                        const char          *action,
                                        gboolean             interactive,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
/* The access found; QF_ACCESS_NONE (never an error) when polkit refused or is not there, with
 * *why set to polkit's answer for the journal. */
QfAccess    qf_daemon_authorize_finish (GAsyncResult        *result,
                                        char               **why);

G_END_DECLS
