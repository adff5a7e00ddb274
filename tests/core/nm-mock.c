/* nm-mock.c — see nm-mock.h. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>
#include <string.h>

#include "nm-mock.h"

gboolean
wait_until (gboolean (*cond) (gpointer),
            gpointer  data,
            guint     timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * 1000;

  while (!cond (data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
  return TRUE;
}

gboolean
mock_owns_nm (gpointer data)
{
  Mock *mock = data;
  g_autoptr(GVariant) reply =
    g_dbus_connection_call_sync (mock->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "NameHasOwner",
                                 g_variant_new ("(s)", "org.freedesktop.NetworkManager"),
                                 G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE, 1000, NULL, NULL);
  gboolean owned = FALSE;

  if (reply != NULL)
    g_variant_get (reply, "(b)", &owned);
  return owned;
}

static gboolean
socket_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

void
mock_start (Mock *mock)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *socket = NULL;
  g_autofree char *config = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *address = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;

  mock->dir = g_dir_make_tmp ("qf-nm-mock-XXXXXX", &error);
  g_assert_no_error (error);
  socket = g_build_filename (mock->dir, "system_bus_socket", NULL);
  config_path = g_build_filename (mock->dir, "system.conf", NULL);
  config = g_strdup_printf ("<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                            " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                            "<busconfig><type>system</type><listen>unix:path=%s</listen>"
                            "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>"
                            "<allow eavesdrop=\"true\"/><allow own=\"*\"/><allow user=\"*\"/></policy>"
                            "</busconfig>\n", socket);
  g_file_set_contents (config_path, config, -1, &error);
  g_assert_no_error (error);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  /* a failed assertion aborts us: the children must not outlive the test */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  mock->daemon = g_subprocess_launcher_spawn (launcher, &error, "dbus-daemon", "--config-file",
                                              config_path, "--nofork", "--nopidfile", NULL);
  g_assert_no_error (error);
  g_assert_true (wait_until (socket_exists, socket, 10000));

  address = g_strdup_printf ("unix:path=%s", socket);
  g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);
  /* the socket file appears a moment before the daemon accepts on it */
  for (guint attempt = 0; mock->bus == NULL && attempt < 100; attempt++)
    {
      g_clear_error (&error);
      mock->bus = g_dbus_connection_new_for_address_sync (address,
                                                          G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                          G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                          NULL, NULL, &error);
      if (mock->bus == NULL)
        g_usleep (50000);
    }
  g_assert_no_error (error);

  mock_start_server (mock);
}

void
mock_start_server (Mock *mock)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);

  /* DBUS_SYSTEM_BUS_ADDRESS is already in our environment (mock_start) */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  mock->mock = g_subprocess_launcher_spawn (launcher, &error, "/usr/bin/python3", "-m", "dbusmock",
                                            "--system", "--template", "networkmanager",
                                            "-p", "{\"Version\": \"1.42.4\"}", NULL);
  g_assert_no_error (error);
  g_assert_true (wait_until (mock_owns_nm, mock, 20000));
}

void
mock_stop (Mock *mock)
{
  if (mock->mock != NULL)
    {
      g_subprocess_send_signal (mock->mock, SIGTERM);
      g_subprocess_wait (mock->mock, NULL, NULL);
    }
  g_clear_object (&mock->bus);
  if (mock->daemon != NULL)
    {
      g_subprocess_send_signal (mock->daemon, SIGTERM);
      g_subprocess_wait (mock->daemon, NULL, NULL);
    }
  g_clear_object (&mock->mock);
  g_clear_object (&mock->daemon);
  if (mock->dir != NULL)
    {
      g_autofree char *socket = g_build_filename (mock->dir, "system_bus_socket", NULL);
      g_autofree char *config = g_build_filename (mock->dir, "system.conf", NULL);

      g_unlink (socket);
      g_unlink (config);
      g_rmdir (mock->dir);
    }
  g_clear_pointer (&mock->dir, g_free);
}

GVariant *
mock_call (Mock       *mock,
           const char *path,
           const char *iface,
           const char *method,
           GVariant   *args)
{
  g_autoptr(GError) error = NULL;
  GVariant *reply = g_dbus_connection_call_sync (mock->bus, "org.freedesktop.NetworkManager", path,
                                                 iface, method, args, NULL,
                                                 G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);

  g_assert_no_error (error);
  return reply;
}

