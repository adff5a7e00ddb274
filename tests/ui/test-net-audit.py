#!/usr/bin/python3
"""test-net-audit.py — the network page's interface list and "Network readiness" against the
real NetworkManager 1.42 (tests/ui).

The test makes a network namespace with a veth pair, a private system bus, udevd and
NetworkManager in it (tests/nmreal.py), then runs its second half — Xvfb, a session bus, the
real `qualify` and this script's AT-SPI driver — inside that namespace, so the wizard sees the
namespace's devices and sysfs. There: the interface list follows a device added, removed, and
a connection taken down and up; the veth with GRO turned on by `ethtool -K` shows the finding;
"Apply…" opens a dialog with the exact change and changes nothing until "Apply the change", which
turns ethtool.feature-gro off as `nmcli connection show` reads; "Undo" restores the connection's
key file byte for byte. Last, python-dbusmock's NetworkManager (no radio exists here) lists a
Wi-Fi device, a veth of the same name in the namespace, whose connection has power
saving on: the wifi-power-save finding shows. Root only: skips cleanly otherwise."""
import json
import os
import shutil
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from nmreal import RealNM, missing  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
PID = os.getpid()
GRO = "Receive batching (GRO, LRO)"
STATE = "QF_NET_AUDIT_STATE"


# ---------------------------------------------------------------- outside: the namespace

def outside():
    lack = missing() + [t for t in ("xvfb-run", "dbus-run-session") if shutil.which(t) is None]
    if lack:
        print(f"1..0 # SKIP needs {', '.join(lack)}")
        return 0
    nm = RealNM("ui-audit")
    va, vb = f"qua{PID % 100000}", f"qub{PID % 100000}"
    try:
        nm.create()
        subprocess.run(["ip", "link", "add", va, "netns", nm.name, "type", "veth", "peer", "name", vb,
                        "netns", nm.name], check=True)
        nm.ns("ip", "link", "set", vb, "up")
        nm.start()
        nm.manage(va)
        nm.nmcli("connection", "add", "type", "ethernet", "ifname", va, "con-name", "qf-ui",
                 "ipv4.method", "manual", "ipv4.addresses", f"10.79.{PID % 250}.1/24", "ipv6.method", "disabled")
        nm.nmcli("connection", "up", "qf-ui")
        state = json.dumps({"ns": nm.name, "tmp": nm.tmp, "va": va})
        run = subprocess.run(["ip", "netns", "exec", nm.name, "xvfb-run", "-a", "-s",
                              "-screen 0 1280x800x24 -nolisten tcp", "dbus-run-session", "--",
                              "/usr/bin/python3", os.path.abspath(__file__), "--inside"],
                             env=dict(nm.env, **{STATE: state}), timeout=900)
        return run.returncode
    except Exception as e:  # noqa: BLE001 - report, then clean up
        print(f"not ok 1 - the namespace with NetworkManager could not be set up: {e!r}")
        for line in nm.log().splitlines()[-20:]:
            print(f"# {line}")
        print("1..1")
        return 1
    finally:
        nm.teardown()


# ---------------------------------------------------------------- inside: the wizard

def inside():
    from qftest import App, Tap, click, find_in, need_display, scaled, to_network_page, wait_for

    state = json.loads(os.environ[STATE])
    # the namespace's NetworkManager as the test set it up; its processes are the outer's to stop
    nm = RealNM("ui-audit", tmp=state["tmp"], name=state["ns"])
    va = state["va"]
    ve, vf = f"que{PID % 100000}", f"quf{PID % 100000}"

    def named(prefix, role=None):
        return lambda: find_in(app.app, role, lambda n: n.startswith(prefix))

    def button(prefix, timeout):
        """A push button by its accessible name (GTK 4.8 appends the visible label to it)."""
        return wait_for(named(prefix, "push button"), timeout)

    def buttons():
        found = []

        def walk(node, depth=0):
            try:
                if node.get_role_name() == "push button":
                    found.append(node.get_name())
                for i in range(node.get_child_count()):
                    walk(node.get_child_at_index(i), depth + 1)
            except Exception:  # noqa: BLE001 - a widget can vanish while we walk
                pass
        walk(app.app)
        return "buttons: " + ", ".join(found)

    def gone(prefix):
        return lambda: find_in(app.app, None, lambda n: n.startswith(prefix)) is None

    def interface_list(tap):
        tap.ok(wait_for(named(f"{va} — Wired: Connected"), scaled(20)) is not None,
               "the veth NetworkManager manages is listed as connected")
        nm.ns("ip", "link", "add", ve, "type", "veth", "peer", "name", vf)
        tap.ok(wait_for(named(f"{ve} — Wired"), scaled(20)) is not None, "a device added appears in the list")
        nm.ns("ip", "link", "del", ve)
        tap.ok(wait_for(gone(f"{ve} — Wired"), scaled(20)), "a device removed leaves the list")
        nm.nmcli("connection", "down", "qf-ui")
        tap.ok(wait_for(named(f"{va} — Wired: Disconnected"), scaled(20)) is not None,
               "a connection taken down shows Disconnected")
        nm.nmcli("connection", "up", "qf-ui")
        tap.ok(wait_for(named(f"{va} — Wired: Connected"), scaled(20)) is not None,
               "taken up again it shows Connected")

    def gro_finding(tap):
        nm.ns("ethtool", "-K", va, "gro", "on")
        # ethtool changes no NetworkManager state: the page reads the card again when asked
        again = button("Check the network interface again", scaled(20))
        tap.ok(again is not None, "Network readiness can be checked again", buttons())
        if again is not None:
            click(again)
        row = wait_for(named(f"{GRO}: Warning"), scaled(30))
        tap.ok(row is not None and "GRO on" in row.get_name(),
               "Network readiness shows GRO turned on with ethtool -K as a warning",
               row.get_name() if row else None)

    def apply_and_undo(tap):
        before_file, before_show = nm.keyfile("qf-ui"), nm.show("qf-ui")
        apply = button(f"Apply the fix for “{GRO}”", scaled(20))
        tap.ok(apply is not None, "the GRO finding offers Apply")
        if apply is None:
            return
        click(apply)
        command = wait_for(named("nmcli connection modify qf-ui ethtool.feature-gro off", "label"), scaled(20))
        tap.ok(command is not None, "the dialog shows the exact change as an nmcli command",
               command.get_name() if command else None)
        time.sleep(1)
        tap.ok(nm.keyfile("qf-ui") == before_file and "ethtool.feature-gro:off" not in nm.show("qf-ui"),
               "nothing is changed before the dialog's Apply the change")
        click(app.find_button("Apply the change", timeout=scaled(10)))
        applied = wait_for(lambda: "ethtool.feature-gro:off" in nm.show("qf-ui"), scaled(30))
        tap.ok(applied, "Apply turns GRO off in the connection as nmcli connection show reads it",
               "\n".join(line for line in nm.show("qf-ui").splitlines() if line.startswith("ethtool")))
        off = wait_for(lambda: "generic-receive-offload: off" in nm.ns("ethtool", "-k", va).stdout, scaled(30))
        tap.ok(off, "the card has GRO off after Apply")
        undo = button(f"Undo the change to “{GRO}”", scaled(30))
        ok_row = wait_for(named(f"{GRO}: OK"), scaled(30))
        tap.ok(undo is not None and ok_row is not None, "the page checks again: GRO is OK, and Undo is offered",
               ok_row.get_name() if ok_row else None)
        if undo is None:
            return
        click(undo)
        restored = wait_for(lambda: nm.keyfile("qf-ui") == before_file, scaled(30))
        tap.ok(restored, "Undo restores the connection's key file byte for byte",
               nm.keyfile("qf-ui").decode(errors="replace"))
        runtime = ("GENERAL.", "IP4.", "IP6.", "DHCP4.", "DHCP6.", "connection.timestamp")
        tap.ok([line for line in nm.show("qf-ui").splitlines() if not line.startswith(runtime)]
               == [line for line in before_show.splitlines() if not line.startswith(runtime)],
               "nmcli connection show reads the settings of before")
        tap.ok(button(f"Apply the fix for “{GRO}”", scaled(30)) is not None,
               "after Undo the page offers Apply again")

    def wifi_power_save(tap):
        try:
            import dbus
            import dbusmock
        except ImportError:
            tap.ok(True, "Wi-Fi power saving # SKIP python3-dbusmock is not installed")
            return None
        wl = f"wlq{PID % 10000}"
        # a kernel device of that name for the audit's sysfs facts (no dummy module here: a veth)
        subprocess.run(["ip", "link", "add", wl, "type", "veth", "peer", "name", f"{wl}p"], check=True)
        dbusmock.DBusTestCase.start_system_bus()
        proc, obj = dbusmock.DBusTestCase.spawn_server_template(
            "networkmanager", {"Version": "1.42.4"}, stdout=subprocess.DEVNULL)
        mock = dbus.Interface(obj, dbusmock.MOCK_IFACE)
        bus = dbusmock.DBusTestCase.get_dbus(system_bus=True)
        wifi_path = mock.AddWiFiDevice("mock_Wifi1", wl, 100)
        ap = mock.AddAccessPoint(wifi_path, "Mock_AP1", "LabNet", "00:23:F8:7E:12:BA", 2, 5180, 54000, 82, 0)
        bus.get_object("org.freedesktop.NetworkManager", wifi_path).AddProperty(
            "org.freedesktop.NetworkManager.Device.Wireless", "ActiveAccessPoint", dbus.ObjectPath(ap),
            dbus_interface=dbusmock.MOCK_IFACE)
        con = mock.AddWiFiConnection(wifi_path, "Mock_Con1", "LabNet", "")
        settings = dbus.Dictionary({
            "connection": dbus.Dictionary({"id": "LabNet"}, signature="sv"),
            "802-11-wireless": dbus.Dictionary({"powersave": dbus.UInt32(3)}, signature="sv"),
        }, signature="sa{sv}")
        bus.get_object("org.freedesktop.NetworkManager", con).Update(
            settings, dbus_interface="org.freedesktop.NetworkManager.Settings.Connection")
        mock.AddActiveConnection([wifi_path], con, ap, "Mock_Active1", 2)
        return proc, wl

    tap = Tap()
    need_display(tap)
    app = App(extra_env={"DBUS_SYSTEM_BUS_ADDRESS": nm.bus, "LANGUAGE": "en", "LANG": "C.UTF-8"})
    try:
        app.wait_app()
        tap.ok(to_network_page(app) is not None, "Start, Next reach the Network page")
        interface_list(tap)
        gro_finding(tap)
        apply_and_undo(tap)
    finally:
        app.quit()

    mocked = wifi_power_save(tap)
    if mocked is not None:
        proc, wl = mocked
        app = App(extra_env={"DBUS_SYSTEM_BUS_ADDRESS": os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
                             "LANGUAGE": "en", "LANG": "C.UTF-8"})
        try:
            app.wait_app()
            to_network_page(app)
            row = wait_for(named("Wi-Fi power saving: Warning"), scaled(30))
            tap.ok(row is not None and "NetworkManager: on" in row.get_name(),
                   "a Wi-Fi connection with power saving on shows the wifi-power-save finding",
                   row.get_name() if row else find_in(app.app, None, lambda n: n.startswith("Wi-Fi")))
        finally:
            app.quit()
            proc.terminate()
            proc.wait()
            import dbusmock
            dbusmock.DBusTestCase.stop_dbus(dbusmock.DBusTestCase.system_bus_pid)
            subprocess.run(["ip", "link", "del", wl], check=False)
    return tap.done()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        from qftest import run_main
        run_main(inside, "the network readiness audit")
    sys.exit(outside())
