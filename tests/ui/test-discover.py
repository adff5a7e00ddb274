#!/usr/bin/python3
"""test-discover.py — the network page finds the helper machine by itself over a direct cable
(tests/ui).

Two network namespaces joined by a veth pair with link-local IPv6 addresses only (no IPv4, no
DHCP), as two PCs on a direct cable. In B, `qualify-cli serve` announces itself and asks for a pairing code (a token file holding
the code).
The whole wizard test runs inside A — Xvfb, the session bus, AT-SPI and python-dbusmock's
NetworkManager, which lists A's end of the cable as a wired device still waiting for DHCP — and
checks: the page does not call that a direct cable at once (an ordinary DHCP exchange also
waits a moment), but after 10 s still waiting says a direct cable needs no DHCP; the helper is listed with its link-local
address and scope and, the only one heard, chosen; the pairing code field appears because it
asks for one; Check peer says refused with a wrong code and answers with the right one.
Needs root (namespaces), xvfb-run, dbus-run-session and python3-dbusmock: skips otherwise.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import del_namespaces, direct_cable, in_ns  # noqa: E402
from qftest import (App, stop_process, Tap, checked, click, find_in, need_display, run_main,  # noqa: E402
                    scaled, to_network_page, wait_for)

PID = os.getpid()
NS_A, NS_B = f"qf-disc-{PID}-a", f"qf-disc-{PID}-b"
VETH_A, VETH_B = f"qda{PID % 10000000}", f"qdb{PID % 10000000}"
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"   # the pairing code's (src/engine/qf-pairing.h)


def start_helper(folder):
    """`qualify-cli serve` in B requiring a pairing code: the process and the code. The code is
    the access token, so a token file holding its 16 characters asks for the same code."""
    code = "".join(random.SystemRandom().choice(ALPHABET) for _ in range(16))
    path = os.path.join(folder, "code.token")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(code + "\n")
    proc = subprocess.Popen(in_ns(NS_B, os.environ["QUALIFY_CLI"], "serve", "--token-file", path),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, "-".join(code[i:i + 4] for i in range(0, 16, 4))


def outer(tap):
    """Builds the cable and the helper, then runs this script's --inner part inside A."""
    if os.geteuid() != 0:
        tap.skip_all("needs root for the network namespaces")
    for tool in ("ip", "xvfb-run", "dbus-run-session"):
        if shutil.which(tool) is None:
            tap.skip_all(f"{tool} is not installed")
    try:
        import dbusmock  # noqa: F401
    except ImportError:
        tap.skip_all("python3-dbusmock is not installed")
    helper = None
    folder = tempfile.mkdtemp(prefix="qf-ui-discover-")
    try:
        if not direct_cable(NS_A, VETH_A, NS_B, VETH_B):
            tap.skip_all("the veth pair got no usable IPv6 link-local address")
        helper, code = start_helper(folder)
        env = {k: v for k, v in os.environ.items()
               if k not in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS",
                            "DBUS_SYSTEM_BUS_ADDRESS")}
        inner = subprocess.run(["ip", "netns", "exec", NS_A, "xvfb-run", "-a", "-s",
                                "-screen 0 1280x800x24 -nolisten tcp", "dbus-run-session", "--",
                                "/usr/bin/python3", os.path.abspath(__file__), "--inner", VETH_A, code],
                               env=env, timeout=scaled(160), stdout=subprocess.PIPE, text=True)
        # the session's AT-SPI registry says hello on stdout: keep TAP clean
        for line in inner.stdout.splitlines():
            print(line if re.match(r"(ok|not ok|1\.\.|#)", line) else f"# {line}")
        return inner.returncode
    finally:
        stop_process(helper)
        del_namespaces(NS_A, NS_B)
        shutil.rmtree(folder, ignore_errors=True)


def mock_networkmanager(iface):
    """NetworkManager with A's end of the cable as a wired device in IP configuration (DHCP
    pending, as on a direct cable)."""
    import dbus
    import dbusmock

    dbusmock.DBusTestCase.start_system_bus()
    proc, obj = dbusmock.DBusTestCase.spawn_server_template(
        "networkmanager", {"Version": "1.42.4"}, stdout=subprocess.DEVNULL)
    mock = dbus.Interface(obj, dbusmock.MOCK_IFACE)
    mock.AddEthernetDevice("mock_Cable", iface, 70)
    return proc


def text_of_entry(node):
    text = node.get_text_iface()
    return text.get_text(0, text.get_character_count())


def check_says(app, check, starts):
    click(check)
    return wait_for(lambda: find_in(app.app, "label", lambda n: n.startswith(starts)), scaled(40))


def inner(tap, iface, code):
    import dbusmock

    need_display(tap)
    nm = mock_networkmanager(iface)
    app = None
    try:
        # the app's own defaults (discovery on), not the tests' (tests/schemas)
        started = time.monotonic()
        app = App(extra_env={"LANGUAGE": "en", "LANG": "C.UTF-8",
                             "GSETTINGS_SCHEMA_DIR": os.environ["QF_TEST_APP_SCHEMA_DIR"]})
        app.wait_app()
        tap.ok(to_network_page(app) is not None, "Start, Next reach the Network page")
        cable = wait_for(lambda: find_in(app.app, None, lambda n: n.startswith(f"{iface} — Wired: ")), scaled(15))
        tap.ok(cable is not None, "the cable's interface is listed")
        # Waiting for DHCP is no direct cable yet (an ordinary exchange also waits a moment): the
        # page says so once it has seen the device waiting 10 s (DIRECT_WAIT_S in
        # qf-network-page.c), so never sooner than 10 s after Qualify started.
        direct = wait_for(lambda: find_in(app.app, "label", lambda n: "needs no DHCP and no address setting" in n),
                          scaled(30))
        after_s = time.monotonic() - started
        tap.ok(direct is not None,
               "a device still waiting for DHCP: the page says a direct cable needs no DHCP and no address setting")
        tap.ok(direct is None or after_s >= 10,
               f"… only once it has waited 10 s, not during an ordinary DHCP exchange ({after_s:.1f} s)")

        scope = f"%{iface}"
        helper = wait_for(lambda: find_in(app.app, "check box", lambda n: scope in n and "pairing code needed" in n),
                          scaled(30))
        tap.ok(helper is not None, "the helper machine is listed with its link-local address and scope",
               helper.get_name() if helper else None)
        address = app.find("text", "Helper machine address")
        filled = wait_for(lambda: text_of_entry(address).endswith(scope), scaled(15)) if address else None
        tap.ok(filled and text_of_entry(address).startswith("fe80::"),
               "the only helper heard is chosen: its link-local address is filled in",
               text_of_entry(address) if address else None)
        tap.ok(helper is not None and wait_for(lambda: checked(helper), scaled(5)), "its row is selected")
        field = wait_for(lambda: find_in(app.app, None, lambda n: n.startswith("Pairing code")), scaled(10))
        tap.ok(field is not None, "the pairing code field appears: the helper asks for a code")
        check = app.find_button("Check peer")
        if field is None or check is None:
            return tap.done()

        wrong = "2345-6789-ABCD-EFGH" if code != "2345-6789-ABCD-EFGH" else "HGFE-DCBA-9876-5432"
        field.get_editable_text_iface().set_text_contents(wrong)
        said = check_says(app, check, text_of_entry(address) + " answers with Qualify's responder, but it turned")
        tap.ok(said is not None, "Check peer with a wrong code says the helper turned this PC away",
               said.get_name() if said else None)

        field.get_editable_text_iface().set_text_contents("bad code 0")
        time.sleep(0.5)
        check = app.find_button("Check peer")
        click(check)
        error = wait_for(lambda: find_in(app.app, "label", lambda n: "code" in n.lower() and "turned" not in n
                                         and "pairing code needed" not in n), scaled(10))
        tap.ok(error is not None, "a malformed code is said under the field", error.get_name() if error else None)

        field.get_editable_text_iface().set_text_contents(code.lower().replace("-", " "))
        said = check_says(app, check, text_of_entry(address) + " answers: Qualify's responder")
        tap.ok(said is not None, "Check peer with the right code (typed in lower case, with spaces) answers",
               said.get_name() if said else None)
    finally:
        if app is not None:
            app.quit()
        nm.terminate()
        nm.wait()
        dbusmock.DBusTestCase.stop_dbus(dbusmock.DBusTestCase.system_bus_pid)
    return tap.done()


def main():
    tap = Tap()
    if len(sys.argv) == 4 and sys.argv[1] == "--inner":
        return inner(tap, sys.argv[2], sys.argv[3])
    return outer(tap)


run_main(main, "the network page's discovery")
