/* test-netifaces.c — the interface list against python-dbusmock's NetworkManager on a private
 * system bus, and the kernel fallback with no bus at all (tests/core).
 *
 * The fallback runs first: GDBus caches the system bus connection once one succeeds. Each test
 * starts its own dbus-daemon and mock server and kills them (by their pid) at the end. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>
#include <net/if.h>
#include <string.h>

#include "qf-netifaces.h"

#include "nm-mock.h"

static gboolean
source_known (gpointer data)
{
  return qf_net_ifaces_get_source (data) != QF_NET_IFACES_SOURCE_NONE;
}

static gboolean
has_items (gpointer data)
{
  return g_list_model_get_n_items (data) > 0;
}

/* One wired device at 1000 Mbit/s, one Wi-Fi device on "LabNet" at 82 % with 192.168.50.7/24. */
static void
mock_add_devices (Mock *mock)
{
  const char *wifi = NM_PATH "/Devices/mock_Wifi1";
  const char *ip4 = NM_PATH "/IP4Config/1";
  const char *ap = NM_PATH "/AccessPoint/Mock_AP1";
  GVariantBuilder address;
  GVariantBuilder empty_aa;

  g_variant_unref (mock_call (mock, NM_PATH, MOCK_IFACE, "AddEthernetDevice",
                              g_variant_new ("(ssi)", "mock_Eth1", "eth0", 100)));
  g_variant_unref (mock_call (mock, NM_PATH "/Devices/mock_Eth1", "org.freedesktop.DBus.Properties",
                              "Set", g_variant_new ("(ssv)", "org.freedesktop.NetworkManager.Device.Wired",
                                                    "Speed", g_variant_new_uint32 (1000))));
  g_variant_unref (mock_call (mock, NM_PATH, MOCK_IFACE, "AddWiFiDevice",
                              g_variant_new ("(ssi)", "mock_Wifi1", "wlan0", 100)));
  g_variant_unref (mock_call (mock, NM_PATH, MOCK_IFACE, "AddAccessPoint",
                              g_variant_new ("(ssssuuuyu)", wifi, "Mock_AP1", "LabNet",
                                             "00:23:F8:7E:12:BA", 2, 2412, 54000, 82, 1)));
  g_variant_unref (mock_call (mock, wifi, MOCK_IFACE, "AddProperty",
                              g_variant_new ("(ssv)", "org.freedesktop.NetworkManager.Device.Wireless",
                                             "ActiveAccessPoint", g_variant_new_object_path (ap))));

  g_variant_builder_init (&address, G_VARIANT_TYPE ("aa{sv}"));
  g_variant_builder_open (&address, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&address, "{sv}", "address", g_variant_new_string ("192.168.50.7"));
  g_variant_builder_add (&address, "{sv}", "prefix", g_variant_new_uint32 (24));
  g_variant_builder_close (&address);
  g_variant_builder_init (&empty_aa, G_VARIANT_TYPE ("aa{sv}"));
  {
    GVariantBuilder props;

    g_variant_builder_init (&props, G_VARIANT_TYPE ("a{sv}"));
    g_variant_builder_add (&props, "{sv}", "AddressData", g_variant_builder_end (&address));
    g_variant_builder_add (&props, "{sv}", "Gateway", g_variant_new_string ("192.168.50.1"));
    g_variant_builder_add (&props, "{sv}", "Addresses", g_variant_new ("aau", NULL));
    g_variant_builder_add (&props, "{sv}", "NameserverData", g_variant_new ("aa{sv}", NULL));
    g_variant_builder_add (&props, "{sv}", "Domains", g_variant_new_strv (NULL, 0));
    g_variant_builder_add (&props, "{sv}", "Searches", g_variant_new_strv (NULL, 0));
    g_variant_builder_add (&props, "{sv}", "RouteData", g_variant_builder_end (&empty_aa));
    g_variant_builder_add (&props, "{sv}", "Routes", g_variant_new ("aau", NULL));
    g_variant_unref (mock_call (mock, NM_PATH, MOCK_IFACE, "AddObject",
                                g_variant_new ("(ssa{sv}a(ssss))", ip4,
                                               "org.freedesktop.NetworkManager.IP4Config",
                                               &props, NULL)));
  }
  g_variant_unref (mock_call (mock, wifi, MOCK_IFACE, "AddProperty",
                              g_variant_new ("(ssv)", "org.freedesktop.NetworkManager.Device",
                                             "Ip4Config", g_variant_new_object_path (ip4))));
}

static gboolean
three_items (gpointer data)
{
  return g_list_model_get_n_items (data) == 3;
}

static gboolean
eth0_disconnected (gpointer data)
{
  QfNetIface *eth0 = qf_net_ifaces_lookup (data, "eth0");

  return eth0 != NULL && qf_net_iface_get_state (eth0) == QF_NET_IFACE_STATE_DISCONNECTED;
}

static void
test_networkmanager (void)
{
  Mock mock = { 0 };
  g_autoptr(QfNetIfaces) ifaces = NULL;
  QfNetIface *eth0, *wlan0;

  if (!g_file_test ("/usr/bin/dbus-daemon", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }
  mock_start (&mock);
  mock_add_devices (&mock);

  ifaces = qf_net_ifaces_new ();
  g_assert_true (wait_until (has_items, ifaces, 10000));
  g_assert_cmpint (qf_net_ifaces_get_source (ifaces), ==, QF_NET_IFACES_SOURCE_NETWORKMANAGER);
  g_assert_null (qf_net_ifaces_get_note (ifaces));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (ifaces)), ==, 2);

  eth0 = qf_net_ifaces_lookup (ifaces, "eth0");
  g_assert_nonnull (eth0);
  g_assert_cmpint (qf_net_iface_get_kind (eth0), ==, QF_NET_IFACE_WIRED);
  g_assert_cmpint (qf_net_iface_get_state (eth0), ==, QF_NET_IFACE_STATE_CONNECTED);
  g_assert_cmpuint (qf_net_iface_get_speed_mbps (eth0), ==, 1000);
  g_assert_null (qf_net_iface_get_ssid (eth0));
  g_assert_cmpint (qf_net_iface_get_signal (eth0), ==, -1);
  g_assert_cmpstr (qf_net_iface_get_hw_address (eth0), ==, "78:DD:08:D2:3D:43");

  wlan0 = qf_net_ifaces_lookup (ifaces, "wlan0");
  g_assert_nonnull (wlan0);
  g_assert_cmpint (qf_net_iface_get_kind (wlan0), ==, QF_NET_IFACE_WIRELESS);
  g_assert_cmpstr (qf_net_iface_get_ssid (wlan0), ==, "LabNet");
  g_assert_cmpint (qf_net_iface_get_signal (wlan0), ==, 82);
  g_assert_cmpuint (qf_net_iface_get_speed_mbps (wlan0), ==, 5);  /* Bitrate 5400 kbit/s */
  g_assert_cmpuint (g_strv_length ((GStrv) qf_net_iface_get_ipv4 (wlan0)), ==, 1);
  g_assert_cmpstr (qf_net_iface_get_ipv4 (wlan0)[0], ==, "192.168.50.7/24");
  g_assert_false (qf_net_iface_get_is_usb (wlan0));

  /* wired first: the recommended link for a controller */
  {
    g_autoptr(QfNetIface) first = g_list_model_get_item (G_LIST_MODEL (ifaces), 0);

    g_assert_cmpstr (qf_net_iface_get_name (first), ==, "eth0");
  }

  /* a device plugged in while the list is shown appears */
  g_variant_unref (mock_call (&mock, NM_PATH, MOCK_IFACE, "AddEthernetDevice",
                              g_variant_new ("(ssi)", "mock_Eth2", "enx001122", 30)));
  g_assert_true (wait_until (three_items, ifaces, 10000));
  g_assert_cmpint (qf_net_iface_get_state (qf_net_ifaces_lookup (ifaces, "enx001122")), ==,
                   QF_NET_IFACE_STATE_DISCONNECTED);

  /* and a state change shows */
  g_variant_unref (mock_call (&mock, NM_PATH, MOCK_IFACE, "SetDeviceDisconnected",
                              g_variant_new ("(s)", NM_PATH "/Devices/mock_Eth1")));
  g_assert_true (wait_until (eth0_disconnected, ifaces, 10000));

  g_clear_object (&ifaces);
  mock_stop (&mock);
}

static void
test_kernel_fallback (void)
{
  g_autofree char *nowhere = g_build_filename (g_get_tmp_dir (), "qf-ui-no-such-bus", NULL);
  g_autofree char *address = g_strdup_printf ("unix:path=%s", nowhere);
  g_autoptr(QfNetIfaces) ifaces = NULL;
  g_autoptr(GString) expected = g_string_new ("");
  g_autoptr(GString) listed = g_string_new ("");
  struct if_nameindex *names;

  g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);
  ifaces = qf_net_ifaces_new ();
  g_assert_true (wait_until (source_known, ifaces, 10000));
  g_assert_cmpint (qf_net_ifaces_get_source (ifaces), ==, QF_NET_IFACES_SOURCE_KERNEL);
  g_assert_nonnull (qf_net_ifaces_get_note (ifaces));
  g_assert_nonnull (strstr (qf_net_ifaces_get_note (ifaces), "NetworkManager"));

  /* the list is exactly the kernel's ethernet-type interfaces on real hardware */
  names = if_nameindex ();
  for (struct if_nameindex *n = names; n != NULL && n->if_name != NULL; n++)
    {
      g_autofree char *type_path = g_build_filename ("/sys/class/net", n->if_name, "type", NULL);
      g_autofree char *device = g_build_filename ("/sys/class/net", n->if_name, "device", NULL);
      g_autofree char *type = NULL;

      if (g_file_get_contents (type_path, &type, NULL, NULL) && g_strcmp0 (g_strstrip (type), "1") == 0
          && g_file_test (device, G_FILE_TEST_EXISTS))
        g_string_append_printf (expected, "%s,", n->if_name);
    }
  if_freenameindex (names);
  if (expected->len > 0)
    g_assert_true (wait_until (has_items, ifaces, 10000));

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (ifaces)); i++)
    {
      g_autoptr(QfNetIface) iface = g_list_model_get_item (G_LIST_MODEL (ifaces), i);

      g_assert_cmpstr (qf_net_iface_get_name (iface), !=, "lo");
      g_assert_nonnull (qf_net_iface_get_ipv4 (iface));
      g_assert_nonnull (qf_net_iface_get_ipv6 (iface));
      g_assert_null (qf_net_iface_get_ssid (iface));
      g_string_append_printf (listed, "%s,", qf_net_iface_get_name (iface));
    }
  /* both in kernel order would need sorting; compare as sets via length and membership */
  g_assert_cmpuint (listed->len, ==, expected->len);
  {
    g_auto(GStrv) names_listed = g_strsplit (listed->str, ",", -1);

    for (guint i = 0; names_listed[i] != NULL && names_listed[i][0] != '\0'; i++)
      {
        g_autofree char *needle = g_strdup_printf ("%s,", names_listed[i]);

        g_assert_nonnull (strstr (expected->str, needle));
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* the fallback first: GDBus keeps the system bus once it has connected */
  g_test_add_func ("/core/netifaces/kernel-fallback", test_kernel_fallback);
  g_test_add_func ("/core/netifaces/networkmanager", test_networkmanager);
  return g_test_run ();
}
