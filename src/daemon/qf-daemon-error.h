/* qf-daemon-error.h — the errors qualifyd answers with (src/daemon).
 *
 * One code per reason a request is refused; each travels as the D-Bus error name of
 * qf-qualifyd-protocol.h, so the client explains it in the user's language with the fix. The
 * message is the daemon's own account, for its journal and for the client to add as a detail. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define QF_DAEMON_ERROR (qf_daemon_error_quark ())
GQuark qf_daemon_error_quark (void);

typedef enum
{
  QF_DAEMON_ERROR_NOT_AUTHORIZED,
  QF_DAEMON_ERROR_NOT_YOUR_THREAD,
  QF_DAEMON_ERROR_RTTIME_NOT_SET,
  QF_DAEMON_ERROR_INVALID_PRIORITY,
  QF_DAEMON_ERROR_TOO_MANY_THREADS,
  QF_DAEMON_ERROR_UNSUPPORTED,
  QF_DAEMON_ERROR_TOO_MANY_TRACES,
  QF_DAEMON_ERROR_FAILED,
} QfDaemonError;

G_END_DECLS
