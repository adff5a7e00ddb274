#!/usr/bin/python3
"""test-helper.py — the wizard as the helper machine, between two network namespaces joined by a
veth pair with link-local addresses only, as on a direct cable with no DHCP (tests/ui).

The whole GUI side (Xvfb, the session bus, this script driving AT-SPI, qualify) runs inside
namespace A: this script creates the namespaces and runs itself again there under
`ip netns exec A xvfb-run -a dbus-run-session --`, since the session bus and X11 listen on
abstract sockets, which belong to one network namespace. Inside, it checks:
  - the welcome page offers both roles as focusable toggle buttons with accessible names;
  - "Be the helper machine" while another program holds port 11111: the page says so with the
    fix and offers Retry; once the port is free, Retry starts the helper;
  - the helper page shows the machine's name, its ports, the interface list, the direct-cable
    sentence, the running state; with "Require a pairing code" on, a code of the right shape;
  - the end-to-end run: `qualify-cli run --peer auto --quick --only ping,latency,bandwidth
    --iface VETH_B` in namespace B finishes those steps, and the helper page's client list showed
    a row for B's link-local address while it ran;
  - Stop frees the ports, Start helper binds them again, closing the window ends the program
    and leaves the ports free.
Needs root (namespaces); skips otherwise. Speaks TAP.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import SCALE, del_namespaces, direct_cable, link_local, listening, sh  # noqa: E402

PID = os.getpid()
LATENCY_PORT, BANDWIDTH_PORT = 11111, 5201
CODE_RE = re.compile(r"^[2-9A-HJKMNP-Z]{4}(-[2-9A-HJKMNP-Z]{4}){3}$")
bound = partial(listening, None)   # something in this namespace listens on TCP port


# ---- outside: the namespaces, and this script again inside A ---------------------------------

def outer():
    if os.geteuid() != 0:
        print("1..0 # SKIP needs root to create network namespaces")
        return 0
    for tool in ("ip", "xvfb-run", "dbus-run-session"):
        if shutil.which(tool) is None:
            print(f"1..0 # SKIP {tool} is not installed")
            return 0
    ns_a, ns_b = f"qf-helper-{PID}-a", f"qf-helper-{PID}-b"
    veth_a, veth_b = f"qha{PID % 10000000}", f"qhb{PID % 10000000}"
    try:
        # no IPv4 address at all; the link-local IPv6 address is usable at once
        direct_cable(ns_a, veth_a, ns_b, veth_b)
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
        env.update(QF_HELPER_NS_B=ns_b, QF_HELPER_VETH_A=veth_a, QF_HELPER_VETH_B=veth_b)
        inner = subprocess.Popen(["ip", "netns", "exec", ns_a, "xvfb-run", "-a", "-s",
                                  "-screen 0 1280x800x24 -nolisten tcp", "dbus-run-session", "--",
                                  "/usr/bin/python3", os.path.abspath(__file__), "--inside"],
                                 env=env, start_new_session=True, stdout=subprocess.PIPE, text=True)
        timer = threading.Timer(420 * SCALE, os.killpg, (inner.pid, signal.SIGKILL))
        timer.start()  # kills the process group this test started if it hangs
        try:
            for line in inner.stdout:
                # the session bus's services write to stdout too: only TAP goes through as is
                tap_line = re.match(r"(ok |not ok |1\.\.|#)", line)
                sys.stdout.write(line if tap_line else "# " + line)
                sys.stdout.flush()
            return inner.wait()
        finally:
            timer.cancel()
    finally:
        del_namespaces(ns_a, ns_b)


# ---- inside namespace A ----------------------------------------------------------------------

def labels(node, depth=0, out=None):
    """Every label's text below node."""
    out = [] if out is None else out
    if node is None or depth > 40:
        return out
    try:
        if node.get_role_name() == "label":
            out.append(node.get_name())
        for i in range(node.get_child_count()):
            labels(node.get_child_at_index(i), depth + 1, out)
    except Exception:  # a row can vanish while we walk
        pass
    return out


def machine_name():
    try:
        for line in open("/etc/machine-info", encoding="utf-8"):
            if line.startswith("PRETTY_HOSTNAME="):
                value = line.split("=", 1)[1].strip().strip('"').strip("'")
                if value:
                    return value
    except OSError:
        pass
    return socket.gethostname()


def occupy(port):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    s.listen(1)
    return s


def check_roles(tap, app):
    """GTK 4.8 shows a toggle button as a push button with the "pressed" state."""
    from gi.repository import Atspi

    def pressed(node):
        return node.get_state_set().contains(Atspi.StateType.PRESSED)
    qualify = app.find("push button", "Qualify this PC", timeout=10)
    helper = app.find("push button", "Be the helper machine", timeout=5)
    tap.ok(qualify is not None and pressed(qualify), "the welcome page offers “Qualify this PC”, chosen")
    tap.ok(helper is not None and not pressed(helper), "… and “Be the helper machine” beside it")
    tap.ok(helper is not None and helper.get_state_set().contains(Atspi.StateType.FOCUSABLE),
           "the helper role is reachable with the keyboard")
    return helper


def check_port_error(tap, app, helper_toggle, blocker):
    from qftest import click, wait_for
    click(helper_toggle)
    error = wait_for(lambda: app.find("label", lambda n: str(LATENCY_PORT) in n and "Stop" in n,
                                      timeout=1), 20 * SCALE)
    tap.ok(error is not None, "with port 11111 taken the page says so and how to free it",
           "\n".join(labels(app.app)))
    retry = app.find_button("Retry", timeout=5)
    tap.ok(retry is not None, "… and offers Retry")
    blocker.close()
    if retry is not None:
        click(retry)
    running = app.find("label", "Running: waiting for the PC under test", timeout=20 * SCALE)
    tap.ok(running is not None, "Retry starts the helper once the port is free")
    tap.ok(bound(LATENCY_PORT) and bound(BANDWIDTH_PORT), "the latency and bandwidth ports listen")


def check_page(tap, app):
    from qftest import click, control, wait_for
    name = machine_name()
    tap.ok(app.find("label", name, timeout=5) is not None, f"the page shows this machine's name ({name})")
    tap.ok(app.find("label", lambda n: "11111" in n and "5201" in n, timeout=5) is not None,
           "the page shows the ports")
    tap.ok(app.find("label", "On a direct cable no DHCP and no address setting are needed; the other PC "
                    "finds this helper by itself.", timeout=5) is not None,
           "the page says a direct cable needs no DHCP and no address")
    # Namespace A has a veth only, which the interface list leaves out (a virtual interface,
    # as docker's or a VPN's): the page must then say that it found none, with the fix.
    ifaces = app.find("list", "Interfaces of this machine", timeout=5)
    none = app.find("label", lambda n: n.startswith("No network interface found"), timeout=5)
    tap.ok(ifaces is not None and (ifaces.get_child_count() > 0 or none is not None),
           "the page lists the interfaces (or says there is none)")
    tap.ok(app.find("label", "Step 1 of 7: Welcome", timeout=1) is None
           and app.find("label", "Helper machine", timeout=5) is not None,
           "the header says Helper machine, not a wizard step")
    switch = control(app, "Require a pairing code")
    tap.ok(switch is not None, "the page has the “Require a pairing code” switch")
    if switch is None:
        return
    click(switch)
    code = wait_for(lambda: app.find("label", lambda n: bool(CODE_RE.match(n)), timeout=1), 20 * SCALE)
    tap.ok(code is not None, "with the switch on, a code of four groups of four shows",
           "\n".join(labels(app.app)))
    tap.ok(app.find("label", "Running: waiting for the PC under test", timeout=20 * SCALE) is not None
           and bound(LATENCY_PORT), "the helper runs again with the code required")
    click(switch)
    gone = wait_for(lambda: app.find("label", lambda n: bool(CODE_RE.match(n)), timeout=0.5) is None,
                    20 * SCALE)
    tap.ok(gone and bound(LATENCY_PORT), "with the switch off the code is gone and the helper runs")


def peer_for_cli(veth_a):
    """`--peer auto` where the CLI discovers helpers; the helper's own link-local address
    otherwise (the same direct link, typed)."""
    help_text = sh(os.environ["QUALIFY_CLI"], "run", "--help", check=False).stdout
    if "auto" in help_text:
        return "auto"
    mine = link_local(None, veth_a)
    return f"{mine}%{os.environ['QF_HELPER_VETH_B']}" if mine else "auto"


def watch_clients(app, address, proc, seen):
    """Reads the client list until the run ends; adds every row's texts for address to seen."""
    clients = app.find("list", "Clients", timeout=5)
    deadline = time.monotonic() + 240 * SCALE
    while proc.poll() is None and time.monotonic() < deadline:
        texts = labels(clients)
        for i, text in enumerate(texts):
            if text.split("%")[0] == address:
                seen.append(" | ".join(texts[i:i + 2]))
        time.sleep(0.2)


def check_end_to_end(tap, app, tmp):
    ns_b, veth_b = os.environ["QF_HELPER_NS_B"], os.environ["QF_HELPER_VETH_B"]
    address_b = link_local(ns_b, veth_b)
    tap.ok(address_b is not None, f"namespace B has a link-local address ({address_b})")
    peer = peer_for_cli(os.environ["QF_HELPER_VETH_A"])
    out = os.path.join(tmp, "session-b")
    env = dict(os.environ, XDG_DATA_HOME=os.path.join(tmp, "data-b"), LANGUAGE="en")
    cmd = ["ip", "netns", "exec", ns_b, os.environ["QUALIFY_CLI"], "run", "--peer", peer, "--quick",
           "--profile", "arcs-wired", "--only", "ping,latency,bandwidth", "--iface", veth_b,
           "--out", out, "--no-sign"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        watch_clients(app, address_b, proc, seen)
        stdout, stderr = proc.communicate(timeout=60 * SCALE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    tap.ok(seen, f"the client list showed a row for B ({address_b}) during the run", stderr[-2000:])
    for row in sorted(set(seen)):
        print(f"# client row: {row}")
    tap.ok(any("latency" in r and "TCP" in r and "msg/s" in r for r in seen),
           "… naming the socket latency test, for how long, and its messages/s")
    tap.ok(any("bandwidth" in r and "Mbit/s" in r for r in seen),
           "… and the bandwidth test with its Mbit/s")
    from qftest import load
    path = os.path.join(out, "session.json")
    steps = {s.get("key"): s.get("status") for s in load(path).get("steps", [])} if os.path.exists(path) else {}
    for key in ("ping", "latency", "bandwidth"):
        tap.ok(steps.get(key) == "done", f"the run in B (--peer {peer}) finished its {key} step",
               f"steps: {steps}\n{stdout[-1500:]}\n{stderr[-1500:]}")


def check_stop_and_close(tap, app):
    from qftest import click, wait_for
    stop = app.find_button("Stop", timeout=5)
    tap.ok(stop is not None, "the helper page has Stop")
    if stop is not None:
        click(stop)
    stopped = app.find("label", lambda n: n.startswith("Stopped"), timeout=10 * SCALE)
    freed = wait_for(lambda: not bound(LATENCY_PORT) and not bound(BANDWIDTH_PORT), 10 * SCALE)
    tap.ok(stopped is not None and freed, "Stop says so and frees both ports")
    start = app.find_button("Start helper", timeout=5)
    if start is not None:
        click(start)
    tap.ok(wait_for(lambda: bound(LATENCY_PORT), 10 * SCALE), "Start helper binds them again")
    close = app.find("push button", "Close", timeout=5)
    if close is not None:
        click(close)
    try:
        app.proc.wait(timeout=20 * SCALE)
    except subprocess.TimeoutExpired:
        pass
    tap.ok(app.proc.poll() == 0, "closing the window ends the program", f"status {app.proc.poll()}")
    tap.ok(not bound(LATENCY_PORT) and not bound(BANDWIDTH_PORT), "… and nothing listens on the ports")


def inner():
    from qftest import App, Tap, need_display, private_dirs, run_main

    tap = Tap()
    need_display(tap)

    def main():
        tmp, _, env = private_dirs("helper")
        # the app's own settings defaults: the helper announces itself (the tests' turn it off)
        env["GSETTINGS_SCHEMA_DIR"] = os.environ["QF_TEST_APP_SCHEMA_DIR"]
        blocker = occupy(LATENCY_PORT)
        app = App(extra_env=env)
        try:
            app.wait_app()
            helper_toggle = check_roles(tap, app)
            if helper_toggle is None:
                return tap.done()
            check_port_error(tap, app, helper_toggle, blocker)
            check_page(tap, app)
            check_end_to_end(tap, app, tmp)
            check_stop_and_close(tap, app)
        finally:
            blocker.close()
            app.quit()
            shutil.rmtree(tmp, ignore_errors=True)
        return tap.done()

    run_main(main, "the helper page")


if __name__ == "__main__":
    if "--inside" in sys.argv:
        inner()
    else:
        sys.exit(outer())
