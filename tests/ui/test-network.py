#!/usr/bin/python3
"""test-network.py — the Network page against python-dbusmock's NetworkManager on a private
system bus (one ethernet and one Wi-Fi device with SSID, signal and IPv4): both listed with
their details, a device added while the page is open appears, "Check peer" reports on loopback;
then with no NetworkManager the
kernel's interfaces are listed with a note saying so (tests/ui)."""
import os
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (App, Tap, checked, click, find_in, need_display, run_main, sensitive,  # noqa: E402
                    to_network_page, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
NM = "/org/freedesktop/NetworkManager"


def find_switch(node, name, depth=0):
    try:
        if node.get_name() in (name, f"{name} {name}") and node.get_role_name() in (
                "switch", "toggle button", "check box"):
            return node
        for i in range(node.get_child_count()):
            hit = find_switch(node.get_child_at_index(i), name, depth + 1)
            if hit is not None:
                return hit
    except Exception:
        return None
    return None


def find_switch_like(node, prefix, depth=0):
    """The radio (a check box in GTK 4.8) of an interface row, not the row."""
    try:
        if node.get_name().startswith(prefix) and node.get_role_name() in ("radio button", "check box"):
            return node
        for i in range(node.get_child_count()):
            hit = find_switch_like(node.get_child_at_index(i), prefix, depth + 1)
            if hit is not None:
                return hit
    except Exception:
        return None
    return None


def row(app, prefix):
    return find_in(app.app, None, lambda n: n.startswith(prefix))


def mock_networkmanager():
    import dbus
    import dbusmock

    dbusmock.DBusTestCase.start_system_bus()
    proc, obj = dbusmock.DBusTestCase.spawn_server_template(
        "networkmanager", {"Version": "1.42.4"}, stdout=subprocess.DEVNULL)
    mock = dbus.Interface(obj, dbusmock.MOCK_IFACE)
    bus = dbusmock.DBusTestCase.get_dbus(system_bus=True)
    mock.AddEthernetDevice("mock_Eth1", "eth0", 100)
    eth = bus.get_object("org.freedesktop.NetworkManager", NM + "/Devices/mock_Eth1")
    eth.Set("org.freedesktop.NetworkManager.Device.Wired", "Speed", dbus.UInt32(1000),
            dbus_interface=dbus.PROPERTIES_IFACE)
    wifi_path = mock.AddWiFiDevice("mock_Wifi1", "wlan0", 100)
    ap = mock.AddAccessPoint(wifi_path, "Mock_AP1", "LabNet", "00:23:F8:7E:12:BA", 2, 2412, 54000, 82, 1)
    wifi = bus.get_object("org.freedesktop.NetworkManager", wifi_path)
    wifi.AddProperty("org.freedesktop.NetworkManager.Device.Wireless", "ActiveAccessPoint",
                     dbus.ObjectPath(ap), dbus_interface=dbusmock.MOCK_IFACE)
    ip4 = NM + "/IP4Config/1"
    mock.AddObject(ip4, "org.freedesktop.NetworkManager.IP4Config", {
        "AddressData": dbus.Array([{"address": "192.168.50.7", "prefix": dbus.UInt32(24)}],
                                  signature="a{sv}"),
        "Gateway": "192.168.50.1",
        "Addresses": dbus.Array([], signature="au"),
        "NameserverData": dbus.Array([], signature="a{sv}"),
        "Domains": dbus.Array([], signature="s"),
        "Searches": dbus.Array([], signature="s"),
        "RouteData": dbus.Array([], signature="a{sv}"),
        "Routes": dbus.Array([], signature="au"),
    }, [])
    wifi.AddProperty("org.freedesktop.NetworkManager.Device", "Ip4Config", dbus.ObjectPath(ip4),
                     dbus_interface=dbusmock.MOCK_IFACE)
    return proc, mock


def main():
    tap = Tap()
    need_display(tap)
    try:
        import dbusmock  # noqa: F401
    except ImportError:
        tap.skip_all("python3-dbusmock is not installed")

    proc, mock = mock_networkmanager()
    try:
        app = App()
        try:
            app.wait_app()
            tap.ok(to_network_page(app) is not None, "Start, Next reach the Network page")
            eth = wait_for(lambda: row(app, "eth0 — Wired: "), 15)
            tap.ok(eth is not None and "Connected" in eth.get_name() and "1000 Mbit/s" in eth.get_name(),
                   "the ethernet device is listed, connected at 1000 Mbit/s", eth.get_name() if eth else None)
            wlan = wait_for(lambda: row(app, "wlan0 — Wireless: "), 15)
            name = wlan.get_name() if wlan else ""
            tap.ok("“LabNet”, signal 82 %" in name and "192.168.50.7/24" in name,
                   "the Wi-Fi device shows its network, signal and IPv4 address", name)
            tap.ok(find_in(app.app, "label", lambda n: n.startswith("NetworkManager is not running")) is None,
                   "no fallback note while NetworkManager answers")
            # the tests' settings turn discovery off: the page says so instead of looking forever
            tap.ok(find_in(app.app, "label", lambda n: n.startswith("Discovery is turned off: type the helper")) is not None
                   and find_in(app.app, "label", lambda n: n.startswith("Looking for helper machines")) is None,
                   "with discovery off the page says to type the address, not that it is looking")
            mock.AddEthernetDevice("mock_Eth2", "enx001122", 30)
            added = wait_for(lambda: row(app, "enx001122 — Wired: Disconnected"), 15)
            tap.ok(added is not None, "a device added while the page is open appears")

            # issue #29 item 3: no helper found, none typed: the built-in peer is not chosen for the
            # installer, Next waits for a peer, and the built-in peer's row says what it costs
            builtin = find_switch(app.app, "This PC only (built-in peer)")
            nxt = app.find_button("Next", timeout=10)
            tap.ok(builtin is not None and not checked(builtin), "“This PC only” is off until chosen")
            wait_for(lambda: find_in(app.app, "label", lambda n: n.startswith("Checking")) is None, 20)
            tap.ok(nxt is not None and not wait_for(lambda: sensitive(nxt), 5),
                   "Next is not possible while no peer is chosen")
            said = find_in(app.app, "label", lambda n: "do not qualify the link" in n)
            tap.ok(said is not None, "the built-in peer's row says its network tests do not qualify the link")
            if builtin is not None and nxt is not None:
                click(builtin)
                tap.ok(wait_for(lambda: checked(builtin) and sensitive(nxt), 15),
                       "choosing “This PC only” explicitly makes Next possible")
                click(builtin)
                tap.ok(wait_for(lambda: not checked(builtin) and not sensitive(nxt), 10),
                       "switching it off again makes Next wait for a peer")

            # Check peer on loopback: whatever listens there (or nothing), the page says so
            builtin = find_switch(app.app, "This PC only (built-in peer)")
            if builtin is not None and builtin.get_state_set().contains(Atspi.StateType.CHECKED):
                click(builtin)
                time.sleep(0.5)
            address = app.find("text", "Helper machine address")
            tap.ok(address is not None, "the helper machine's address can be typed")
            if address is not None:
                address.get_editable_text_iface().set_text_contents("127.0.0.1")
                time.sleep(0.3)
            check = app.find_button("Check peer")
            tap.ok(check is not None, "the page has Check peer")
            if check is not None:
                click(check)
            said = wait_for(lambda: find_in(app.app, "label", lambda n: n.startswith("127.0.0.1 answers")
                                            or n.startswith("Nothing answers on 127.0.0.1")
                                            or n.startswith("No latency responder answers on 127.0.0.1")), 30)
            tap.ok(said is not None, "Check peer says who answers on 127.0.0.1", said.get_name() if said else None)

            # an access token file others can read: the check says so with the fix
            token = app.find("text", lambda n: n.startswith("Access token file"))
            tap.ok(token is not None, "the helper machine's access token file can be given")
            if token is not None and check is not None:
                loose = os.path.join(tempfile.mkdtemp(prefix="qf-ui-token-"), "token")
                with open(loose, "w") as f:
                    f.write("a token of the helper machine, 42\n")
                os.chmod(loose, 0o644)
                token.get_editable_text_iface().set_text_contents(loose)
                time.sleep(0.3)
                click(check)
                said = wait_for(lambda: find_in(app.app, "label", lambda n: "chmod 600" in n), 30)
                tap.ok(said is not None, "a token file others can read is refused with the fix",
                       said.get_name() if said else None)
                token.get_editable_text_iface().set_text_contents("")
                os.unlink(loose)
                os.rmdir(os.path.dirname(loose))

            # a Wi-Fi link with a helper machine selects the wireless profile
            radio = find_switch_like(app.app, "wlan0 — Wireless: ")
            tap.ok(radio is not None, "the Wi-Fi device can be chosen")
            if radio is not None:
                # GTK 4.8 gives a grouped check button no accessible action: click it with the
                # pointer, as a person would. GTK reports window coordinates; on Xvfb without a
                # window manager the window sits at 0,0, so they are screen coordinates too.
                box = radio.get_component_iface().get_extents(Atspi.CoordType.SCREEN)
                Atspi.generate_mouse_event(box.x + box.width // 2, box.y + box.height // 2, "b1c")
                chosen = wait_for(lambda: radio.get_state_set().contains(Atspi.StateType.CHECKED), 10)
                tap.ok(chosen, "the Wi-Fi device is chosen")
            click(app.find_button("Next", timeout=10))
            plan = app.find("label", lambda n: n.startswith("Test plan: "), timeout=15)
            tap.ok(plan is not None and "wireless" in plan.get_name(),
                   "choosing the Wi-Fi device selects the wireless profile", plan.get_name() if plan else None)
        finally:
            app.quit()
    finally:
        proc.terminate()
        proc.wait()
        dbusmock.DBusTestCase.stop_dbus(dbusmock.DBusTestCase.system_bus_pid)

    app = App(extra_env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/qf-ui-no-bus"})
    try:
        app.wait_app()
        to_network_page(app)
        note = app.find("label", lambda n: n.startswith("NetworkManager is not running"), timeout=15)
        tap.ok(note is not None, "without NetworkManager the page says the list comes from the kernel")
        kernel = [n for n in sorted(os.listdir("/sys/class/net"))
                  if os.path.exists(f"/sys/class/net/{n}/device")
                  and open(f"/sys/class/net/{n}/type").read().strip() == "1"]
        listed = [n for n in kernel if wait_for(lambda n=n: row(app, f"{n} — "), 10)]
        tap.ok(listed == kernel, "the kernel's interfaces are listed", f"kernel {kernel}, listed {listed}")
    finally:
        app.quit()
    return tap.done()


run_main(main, "the network page")
