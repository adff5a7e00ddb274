/* nm-mock.h — python-dbusmock's NetworkManager on a private system bus, for tests that need
 * libnm to see devices (tests/core/test-netifaces.c, tests/fault/test-nm-vanish.c).
 * mock_start() starts a dbus-daemon and the mock server (children that die with the test) and
 * points DBUS_SYSTEM_BUS_ADDRESS at them; mock_stop() ends both by pid and removes the folder. */
#pragma once

#include <gio/gio.h>

#define NM_PATH "/org/freedesktop/NetworkManager"
#define MOCK_IFACE "org.freedesktop.DBus.Mock"

typedef struct
{
  char            *dir;
  GSubprocess     *daemon;
  GSubprocess     *mock;
  GDBusConnection *bus;
} Mock;

/* Iterates the default main context until cond (data) holds; FALSE after timeout_ms. */
gboolean   wait_until   (gboolean  (*cond) (gpointer),
                         gpointer    data,
                         guint       timeout_ms);
gboolean   mock_owns_nm (gpointer    data);
void       mock_start   (Mock       *mock);
/* (Re)starts only the mock NetworkManager server on the running bus (after mock_start). */
void       mock_start_server (Mock  *mock);
void       mock_stop    (Mock       *mock);
GVariant  *mock_call    (Mock       *mock,
                         const char *path,
                         const char *iface,
                         const char *method,
                         GVariant   *args);
