/* test-nm-vanish.c — NetworkManager disappearing while the interface list is shown (the
 * wizard's network page): the list falls back to the kernel's view, with a note, without a crash,
 * and returns to NetworkManager when it comes back (issue 11). python-dbusmock's NetworkManager
 * on a private system bus; the bus and mock helpers are tests/core/nm-mock.c. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>
#include <string.h>

#include "qf-netifaces.h"

#include "nm-mock.h"

static gboolean
from_nm_with_eth (gpointer data)
{
  return qf_net_ifaces_get_source (data) == QF_NET_IFACES_SOURCE_NETWORKMANAGER
         && qf_net_ifaces_lookup (data, "eth0") != NULL;
}

static gboolean
from_kernel (gpointer data)
{
  return qf_net_ifaces_get_source (data) == QF_NET_IFACES_SOURCE_KERNEL;
}

static void
add_eth0 (Mock *mock)
{
  g_variant_unref (mock_call (mock, NM_PATH, MOCK_IFACE, "AddEthernetDevice",
                              g_variant_new ("(ssi)", "mock_Eth1", "eth0", 100)));
}

static void
test_nm_vanishes (void)
{
  Mock mock = { 0 };
  g_autoptr(QfNetIfaces) ifaces = NULL;

  if (!g_file_test ("/usr/bin/dbus-daemon", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }
  mock_start (&mock);
  add_eth0 (&mock);
  ifaces = qf_net_ifaces_new ();
  g_assert_true (wait_until (from_nm_with_eth, ifaces, 15000));

  /* NetworkManager is killed outright (a crash, not a clean stop). */
  g_subprocess_send_signal (mock.mock, SIGKILL);
  g_subprocess_wait (mock.mock, NULL, NULL);
  g_clear_object (&mock.mock);
  g_assert_true (wait_until (from_kernel, ifaces, 15000));
  g_assert_nonnull (qf_net_ifaces_get_note (ifaces));
  g_assert_nonnull (strstr (qf_net_ifaces_get_note (ifaces), "NetworkManager"));
  g_test_message ("note: %s; %u interfaces from the kernel",
                  qf_net_ifaces_get_note (ifaces), g_list_model_get_n_items (G_LIST_MODEL (ifaces)));
  /* the model stays usable */
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (ifaces)); i++)
    {
      g_autoptr(QfNetIface) item = g_list_model_get_item (G_LIST_MODEL (ifaces), i);
      g_assert_nonnull (qf_net_iface_get_name (item));
    }

  /* It comes back: the list follows it again. */
  mock_start_server (&mock);
  add_eth0 (&mock);
  g_assert_true (wait_until (from_nm_with_eth, ifaces, 15000));

  g_clear_object (&ifaces);
  mock_stop (&mock);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fault/netifaces/networkmanager-vanishes", test_nm_vanishes);
  return g_test_run ();
}
