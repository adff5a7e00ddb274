/* test-net-audit.c — the network readiness audit against a fixture PC whose wired card is in a
 * bad state (100 Mbit/s half duplex, EEE on, adaptive coalescing, GRO on, an IRQ and RPS on the
 * isolated CPUs, a DHCP connection that does not connect by itself) and whose Wi-Fi saves
 * power on a narrow 2.4 GHz channel; NetworkManager's facts from its key files (tests/core).
 * Further fixture cards: eth1 without link and with all-zero coalescing, wlan1 on a PC without
 * iw whose NetworkManager.conf turns power saving on. Conditions a veth can really have are
 * tested against the real daemon in test-nm-real.py. */
#include "config.h"

#include <string.h>

#include "qf-net-audit.h"

static const char *wired_ids[] = {
  "link-speed", "duplex", "eee", "coalescing", "gro", "irq-affinity", "mtu", "ip-method",
};

static char *
fixture_root (void)
{
  return g_test_build_filename (G_TEST_DIST, "core", "fixtures", "net-audit", NULL);
}

static GPtrArray *
audit (const char *iface,
       gboolean    with_nm,
       QfNmFacts **nm_out)
{
  g_autofree char *root = fixture_root ();
  g_autoptr(GError) error = NULL;
  QfNmFacts *nm = with_nm ? qf_nm_facts_from_keyfiles (root, iface) : NULL;
  QfNetAuditConfig config = { .root = root, .iface = iface, .nm = nm, .peer = "192.0.2.9" };
  GPtrArray *checks = qf_net_audit_run (&config, &error);

  g_assert_no_error (error);
  g_assert_nonnull (checks);
  *nm_out = nm;
  return checks;
}

static QfNetAuditCheck *
expect (GPtrArray     *checks,
        const char    *id,
        QfAuditStatus  status,
        const char    *found_contains,
        const char    *fix_contains,
        const char    *fix_nm_contains)
{
  QfNetAuditCheck *check = qf_net_audit_find (checks, id);

  g_assert_nonnull (check);
  if (check->status != status)
    g_error ("%s: status %s (found “%s”), expected %s", id, qf_audit_status_to_string (check->status),
             check->found, qf_audit_status_to_string (status));
  if (found_contains != NULL && strstr (check->found, found_contains) == NULL)
    g_error ("%s: found “%s” lacks “%s”", id, check->found, found_contains);
  if (fix_contains != NULL && strstr (check->fix, fix_contains) == NULL)
    g_error ("%s: fix “%s” lacks “%s”", id, check->fix, fix_contains);
  if (fix_nm_contains != NULL && (check->fix_nm == NULL || strstr (check->fix_nm, fix_nm_contains) == NULL))
    g_error ("%s: fix_nm “%s” lacks “%s”", id, check->fix_nm ? check->fix_nm : "(null)", fix_nm_contains);
  g_assert_cmpuint (strlen (check->advice), >, 10);
  g_assert_nonnull (check->recommended);
  return check;
}

static void
test_wired (void)
{
  QfNmFacts *nm = NULL;
  g_autoptr(GPtrArray) checks = audit ("eth0", TRUE, &nm);
  QfNetAuditCheck *check;

  g_assert_cmpuint (checks->len, ==, G_N_ELEMENTS (wired_ids));
  for (guint i = 0; i < checks->len; i++)
    g_assert_cmpstr (((QfNetAuditCheck *) g_ptr_array_index (checks, i))->id, ==, wired_ids[i]);
  expect (checks, "link-speed", QF_AUDIT_WARN, "100 Mbit/s", "ethtool eth0", NULL);
  expect (checks, "duplex", QF_AUDIT_FAIL, "half duplex", "ethtool -s eth0 autoneg on",
          "nmcli connection modify 'Wired 1' 802-3-ethernet.auto-negotiate yes");
  check = expect (checks, "eee", QF_AUDIT_WARN, "active", "ethtool --set-eee eth0 eee off", NULL);
  g_assert_null (check->fix_nm);   /* NetworkManager 1.42 has no EEE setting */
  expect (checks, "coalescing", QF_AUDIT_WARN, "rx 50 µs", "ethtool -C eth0 adaptive-rx off rx-usecs 0",
          "ethtool.coalesce-adaptive-rx 0 ethtool.coalesce-rx-usecs 0");
  check = expect (checks, "gro", QF_AUDIT_WARN, "hardware GRO on (fixed by the driver)",
                  "ethtool -K eth0 gro off", "ethtool.feature-gro off");
  g_assert_null (strstr (check->fix, "rx-gro-hw"));   /* fixed: nothing can turn it off */
  check = expect (checks, "irq-affinity", QF_AUDIT_WARN, "IRQ 124 on CPUs 0-3", NULL, NULL);
  g_assert_nonnull (strstr (check->found, "IRQ 125 on CPUs 0-1"));
  g_assert_nonnull (strstr (check->found, "RPS rx-0: 2-3"));
  g_assert_nonnull (strstr (check->found, "XPS tx-0: 0"));
  g_assert_nonnull (strstr (check->fix, "echo 0-1 > /proc/irq/124/smp_affinity_list"));
  g_assert_null (strstr (check->fix, "/proc/irq/125/"));   /* already off the isolated CPUs */
  g_assert_nonnull (strstr (check->fix, "echo 3 > /sys/class/net/eth0/queues/rx-0/rps_cpus"));
  g_assert_null (check->fix_nm);
  /* a fixture is never pinged: the path is not checked */
  expect (checks, "mtu", QF_AUDIT_OK, "not checked", NULL, NULL);
  check = expect (checks, "ip-method", QF_AUDIT_WARN, "connects by itself: no", NULL,
                  "nmcli connection modify 'Wired 1' connection.autoconnect yes");
  /* what the Apply button sets is what the row says, read back from that command */
  g_assert_cmpstrv (check->nm_settings, ((const char *[]) { "connection.autoconnect", "yes", NULL }));
  check = qf_net_audit_find (checks, "gro");
  g_assert_cmpstrv (check->nm_settings, ((const char *[]) { "ethtool.feature-gro", "off", NULL }));
  g_assert_null (qf_net_audit_find (checks, "eee")->nm_settings);
  qf_nm_facts_free (nm);
}

/* Waiting for a DHCP lease that never comes: the address method's fix is link-local, and only
 * then. */
static void
test_dhcp_waits (void)
{
  g_autofree char *root = fixture_root ();
  g_autoptr(QfNmFacts) nm = qf_nm_facts_from_keyfiles (root, "eth0");
  QfNetAuditConfig config = { .root = root, .iface = "eth0", .nm = nm, .nm_asked = TRUE };
  g_autoptr(GPtrArray) checks = NULL;
  QfNetAuditCheck *check;

  nm->dhcp4_lease = 0;
  checks = qf_net_audit_run (&config, NULL);
  check = expect (checks, "ip-method", QF_AUDIT_FAIL, "no DHCP lease", NULL, "ipv4.method link-local");
  g_assert_cmpstrv (check->nm_settings, ((const char *[]) { "ipv4.method", "link-local",
                                                            "ipv6.method", "link-local", NULL }));
}

/* No link (carrier 0, operstate "unknown"), and coalescing answered with zeros only: neither
 * is read as a setting of the card. */
static void
test_no_link_zero_coalescing (void)
{
  QfNmFacts *nm = NULL;
  g_autoptr(GPtrArray) checks = audit ("eth1", FALSE, &nm);

  expect (checks, "link-speed", QF_AUDIT_WARN, "no link", "ip link set dev eth1 up", NULL);
  expect (checks, "duplex", QF_AUDIT_UNKNOWN, "no link", NULL, NULL);
  expect (checks, "coalescing", QF_AUDIT_UNKNOWN, "not reported by this card", NULL, NULL);
}

/* No iw program: said so with the way to get it; NetworkManager's "default" read from its own
 * configuration, not guessed. */
static void
test_wifi_no_iw (void)
{
  QfNmFacts *nm = NULL;
  g_autoptr(GPtrArray) checks = audit ("wlan1", TRUE, &nm);
  QfNetAuditCheck *check;

  check = expect (checks, "wifi-power-save", QF_AUDIT_WARN,
                  "NetworkManager: its default, on (wifi.powersave = 3 in "
                  "/etc/NetworkManager/conf.d/default-wifi-powersave-on.conf); driver: iw is not installed",
                  "apt install iw", "802-11-wireless.powersave 2");
  g_assert_nonnull (strstr (check->fix, "iw dev wlan1 set power_save off"));
  qf_nm_facts_free (nm);
}

static void
write_file (const char *root,
            const char *path,
            const char *text)
{
  g_autofree char *full = g_build_filename (root, path, NULL);
  g_autofree char *dir = g_path_get_dirname (full);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (full, text, -1, NULL));
}

/* Every CPU isolated: the card's IRQ is on an isolated CPU and there is none to move it to, so
 * no command is offered (never "echo none > …", nor a translated word in a command). */
static void
test_irq_no_housekeeping (void)
{
  g_autofree char *root = g_dir_make_tmp ("qf-net-audit-XXXXXX", NULL);
  QfNetAuditConfig config = { .root = root, .iface = "eth0" };
  g_autoptr(GPtrArray) checks = NULL;
  g_autofree char *rm = NULL;
  QfNetAuditCheck *check;

  g_assert_nonnull (root);
  write_file (root, "sys/class/net/eth0/mtu", "1500\n");
  write_file (root, "sys/class/net/eth0/device/msi_irqs/124", "msix\n");
  write_file (root, "sys/class/net/eth0/queues/rx-0/rps_cpus", "3\n");
  write_file (root, "sys/devices/system/cpu/online", "0-1\n");
  write_file (root, "sys/devices/system/cpu/isolated", "0-1\n");
  write_file (root, "proc/irq/124/smp_affinity_list", "0-1\n");
  checks = qf_net_audit_run (&config, NULL);
  check = expect (checks, "irq-affinity", QF_AUDIT_WARN, "IRQ 124 on CPUs 0-1", NULL, NULL);
  g_assert_cmpstr (check->fix, ==, "");
  g_assert_nonnull (strstr (check->advice, "none to move them to"));
  rm = g_strdup_printf ("rm -rf %s", root);
  g_assert_true (g_spawn_command_line_sync (rm, NULL, NULL, NULL, NULL));
}

static void
test_wifi (void)
{
  QfNmFacts *nm = NULL;
  g_autoptr(GPtrArray) checks = audit ("wlan0", TRUE, &nm);
  QfNetAuditCheck *check;

  /* Wi-Fi cards here report no link settings: said so, never guessed */
  expect (checks, "link-speed", QF_AUDIT_UNKNOWN, "not reported by this card", NULL, NULL);
  expect (checks, "eee", QF_AUDIT_UNKNOWN, "not reported by this card", NULL, NULL);
  expect (checks, "wifi-power-save", QF_AUDIT_WARN, "NetworkManager: on; driver: on",
          "iw dev wlan0 set power_save off",
          "nmcli connection modify 'Shop floor' 802-11-wireless.powersave 2");
  /* no access point in key files: band and signal are unknown, not guessed */
  check = expect (checks, "wifi-link", QF_AUDIT_UNKNOWN, "not connected", NULL, NULL);
  g_assert_null (check->fix_nm);

  /* with the access point NetworkManager would report: 2.4 GHz, 20 MHz, weak */
  nm->frequency_mhz = 2437;
  nm->strength_pct = 40;
  nm->bitrate_kbps = 65000;
  {
    g_autofree char *root = fixture_root ();
    QfNetAuditConfig config = { .root = root, .iface = "wlan0", .nm = nm };
    g_autoptr(GPtrArray) connected = qf_net_audit_run (&config, NULL);

    expect (connected, "wifi-link", QF_AUDIT_WARN, "2.4 GHz (2437 MHz), width 20 MHz, 65 Mbit/s, signal 40 %",
            NULL, "802-11-wireless.band a");
  }
  qf_nm_facts_free (nm);
}

/* Without NetworkManager the address method is unknown, and no nmcli fix is offered; when
 * NetworkManager was never asked the audit says that, not that it is not running. */
static void
test_no_nm (void)
{
  QfNmFacts *nm = NULL;
  g_autoptr(GPtrArray) checks = audit ("eth0", FALSE, &nm);
  g_autoptr(JsonArray) json = qf_net_audit_to_json (checks);
  QfNetAuditCheck *check = expect (checks, "ip-method", QF_AUDIT_UNKNOWN, "NetworkManager was not asked", NULL, NULL);
  g_autofree char *root = fixture_root ();
  QfNetAuditConfig config = { .root = root, .iface = "eth0", .nm_asked = TRUE };
  g_autoptr(GPtrArray) asked = qf_net_audit_run (&config, NULL);

  expect (asked, "ip-method", QF_AUDIT_UNKNOWN, "NetworkManager is not running", NULL, NULL);

  g_assert_null (check->fix_nm);
  g_assert_null (expect (checks, "gro", QF_AUDIT_WARN, NULL, "gro off", NULL)->fix_nm);
  g_assert_cmpuint (json_array_get_length (json), ==, checks->len);
  for (guint i = 0; i < json_array_get_length (json); i++)
    {
      JsonObject *obj = json_array_get_object_element (json, i);
      const char *members[] = { "id", "status", "found", "recommended", "advice", "fix", "fix_nm", "title" };

      for (guint m = 0; m < G_N_ELEMENTS (members); m++)
        g_assert_true (json_object_has_member (obj, members[m]));
    }
}

static void
test_no_iface (void)
{
  g_autofree char *root = fixture_root ();
  g_autoptr(GError) error = NULL;
  QfNetAuditConfig config = { .root = root, .iface = "eth9" };

  g_assert_null (qf_net_audit_run (&config, &error));
  g_assert_error (error, QF_NET_AUDIT_ERROR, QF_NET_AUDIT_ERROR_NO_IFACE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/net-audit/wired", test_wired);
  g_test_add_func ("/core/net-audit/wifi", test_wifi);
  g_test_add_func ("/core/net-audit/no-nm", test_no_nm);
  g_test_add_func ("/core/net-audit/dhcp-waits", test_dhcp_waits);
  g_test_add_func ("/core/net-audit/no-link-zero-coalescing", test_no_link_zero_coalescing);
  g_test_add_func ("/core/net-audit/wifi-no-iw", test_wifi_no_iw);
  g_test_add_func ("/core/net-audit/irq-no-housekeeping", test_irq_no_housekeeping);
  g_test_add_func ("/core/net-audit/no-iface", test_no_iface);
  return g_test_run ();
}
