/* qf-daemon-error.c — QF_DAEMON_ERROR and its D-Bus names (src/daemon); see qf-daemon-error.h. */
#include "config.h"

#include <gio/gio.h>

#include "qf-daemon-error.h"
#include "qf-qualifyd-protocol.h"

static const GDBusErrorEntry entries[] = {
  { QF_DAEMON_ERROR_NOT_AUTHORIZED, QF_QUALIFYD_DBUS_ERROR_NOT_AUTHORIZED },
  { QF_DAEMON_ERROR_NOT_YOUR_THREAD, QF_QUALIFYD_DBUS_ERROR_NOT_YOUR_THREAD },
  { QF_DAEMON_ERROR_RTTIME_NOT_SET, QF_QUALIFYD_DBUS_ERROR_RTTIME_NOT_SET },
  { QF_DAEMON_ERROR_INVALID_PRIORITY, QF_QUALIFYD_DBUS_ERROR_INVALID_PRIORITY },
  { QF_DAEMON_ERROR_TOO_MANY_THREADS, QF_QUALIFYD_DBUS_ERROR_TOO_MANY_THREADS },
  { QF_DAEMON_ERROR_UNSUPPORTED, QF_QUALIFYD_DBUS_ERROR_UNSUPPORTED },
  { QF_DAEMON_ERROR_TOO_MANY_TRACES, QF_QUALIFYD_DBUS_ERROR_TOO_MANY_TRACES },
  { QF_DAEMON_ERROR_FAILED, QF_QUALIFYD_DBUS_ERROR_FAILED },
};

GQuark
qf_daemon_error_quark (void)
{
  static gsize quark;

  g_dbus_error_register_error_domain ("qf-daemon-error-quark", &quark, entries,
                                      G_N_ELEMENTS (entries));
  return (GQuark) quark;
}
