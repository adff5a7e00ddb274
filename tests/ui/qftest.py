"""qftest.py — driving the real qualify window through AT-SPI (tests/ui).

Start the app, find widgets by role and accessible name, click, read. Runs under
`xvfb-run -a dbus-run-session --` (./run-tests); see docs/testing.md for why in that order.
Speaks TAP so meson counts each check. SCALE, scaled() and the process ending under
stop_process() come from tests/netns.py, shared with the other Python tests.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

import gi

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import SCALE, scaled, stop  # noqa: E402,F401 - SCALE and scaled are for the tests

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {name}")
        else:
            self.failed += 1
            print(f"not ok {self.n} - {name}")
            if detail:
                for line in str(detail).splitlines():
                    print(f"# {line}")
        sys.stdout.flush()
        return cond

    def skip_all(self, why):
        print(f"1..0 # SKIP {why}")
        sys.exit(0)

    def done(self):
        print(f"1..{self.n}")
        return 1 if self.failed else 0


def need_display(tap):
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        tap.skip_all("no display: run under xvfb-run -a dbus-run-session -- (./run-tests does)")
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        tap.skip_all("no session bus: run under dbus-run-session (./run-tests does)")


class App:
    """The qualify process and its accessible tree."""

    def __init__(self, extra_env=None, args=()):
        env = dict(os.environ)
        env.setdefault("GSETTINGS_BACKEND", "memory")
        env["GTK_A11Y"] = "atspi"
        env["NO_AT_BRIDGE"] = "0"
        if extra_env:
            env.update(extra_env)
        self.argv = [os.environ["QUALIFY_GUI"], *args]
        self.env = env
        self.proc = subprocess.Popen(self.argv, env=env)
        self.started = time.monotonic()
        self.respawns = 0
        self.app = None

    def wait_app(self, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                # On a loaded machine a fresh Xvfb sometimes refuses the very first client
                # ("cannot open display"): GTK exits 1 at once. Try again, a few times only.
                if self.proc.returncode == 1 and time.monotonic() - self.started < 5 and self.respawns < 3:
                    self.respawns += 1
                    time.sleep(1)
                    self.proc = subprocess.Popen(self.argv, env=self.env)
                    self.started = time.monotonic()
                    continue
                raise RuntimeError(f"qualify exited with status {self.proc.returncode}")
            desktop = Atspi.get_desktop(0)
            for i in range(desktop.get_child_count()):
                child = desktop.get_child_at_index(i)
                if child is None:
                    continue
                try:
                    if child.get_process_id() == self.proc.pid:
                        self.app = child
                        return child
                except gi.repository.GLib.Error:
                    continue
            time.sleep(0.2)
        raise TimeoutError("qualify did not appear on the accessibility bus")

    def find(self, role=None, name=None, timeout=10.0, root=None):
        deadline = time.monotonic() + timeout
        while True:
            hit = find_in(root or self.app, role, name)
            if hit is not None or time.monotonic() > deadline:
                return hit
            time.sleep(0.2)

    def find_button(self, label, timeout=10.0):
        """A push button by its visible label. GTK 4.8 names a mnemonic button oddly
        ("_Start Start"), so match its label child or the end of its name."""
        deadline = time.monotonic() + timeout
        while True:
            hit = find_in(self.app, "push button",
                          lambda n: n == label or n.endswith(" " + label)
                          or n.replace("_", "") == label)
            if hit is not None or time.monotonic() > deadline:
                return hit
            time.sleep(0.2)

    def quit(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def find_in(node, role=None, name=None, depth=0):
    if node is None or depth > 60:
        return None
    try:
        r = node.get_role_name()
        n = node.get_name()
    except Exception:  # a widget can vanish while we walk
        return None
    name_ok = name is None or (name(n) if callable(name) else n == name)
    if (role is None or r == role) and name_ok:
        return node
    try:
        count = node.get_child_count()
    except Exception:
        return None
    for i in range(count):
        try:
            hit = find_in(node.get_child_at_index(i), role, name, depth + 1)
        except Exception:
            hit = None
        if hit is not None:
            return hit
    return None


def click(node):
    action = node.get_action_iface()
    for i in range(action.get_n_actions()):
        if action.get_action_name(i) in ("click", "press", "activate"):
            return action.do_action(i)
    return action.do_action(0)


def text_of(node):
    """A label's text is its accessible name in GTK 4.8."""
    return node.get_name()


def sensitive(node):
    try:
        return node.get_state_set().contains(Atspi.StateType.SENSITIVE)
    except Exception:
        return False


def checked(node):
    return node.get_state_set().contains(Atspi.StateType.CHECKED)


def to_network_page(app):
    """From the welcome page to the wizard's Network page; its step label, or None."""
    click(app.find_button("Start", timeout=15))
    app.find("label", "Readiness", timeout=15)
    click(app.find_button("Next", timeout=15))
    return app.find("label", "Step 3 of 7: Network", timeout=15)


def wait_for(cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.3)
    return None


def control(app, name, timeout=10):
    """A switch or check button by accessible name (not the row that shares its title)."""
    return wait_for(lambda: find_control(app.app, name), timeout)


def find_control(node, name, depth=0):
    if node is None or depth > 60:
        return None
    try:
        # GTK 4.8 names a row's activatable widget twice ("Quick run Quick run")
        if node.get_name() in (name, f"{name} {name}") and node.get_role_name() in (
                "switch", "toggle button", "check box", "radio button"):
            return node
        count = node.get_child_count()
    except Exception:
        return None
    for i in range(count):
        try:
            hit = find_control(node.get_child_at_index(i), name, depth + 1)
        except Exception:
            hit = None
        if hit is not None:
            return hit
    return None


def sessions(data_home):
    """The session files below a private XDG_DATA_HOME, oldest folder first."""
    return sorted(glob.glob(os.path.join(data_home, "qualify", "sessions", "*", "session.json")))


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def plan_switches(app):
    """The plan's "Run “test”" switches by test title."""
    found = {}

    def walk(node, depth=0):
        if node is None or depth > 60:
            return
        try:
            name, role = node.get_name(), node.get_role_name()
            count = node.get_child_count()
        except Exception:
            return
        if role in ("switch", "check box") and name.startswith("Run “"):
            found[name[len("Run “"):].split("”")[0]] = node
        for i in range(count):
            walk(node.get_child_at_index(i), depth + 1)
    walk(app.app)
    return found


def to_plan(app):
    """Welcome (quick run) → System → Network (built-in peer) → Plan; the plan's switches."""
    quick = control(app, "Quick run")
    if quick is not None and not checked(quick):
        click(quick)
        wait_for(lambda: checked(quick), 5)
    click(app.find_button("Start", timeout=15))
    app.find("label", "Readiness", timeout=15)
    click(app.find_button("Next", timeout=10))
    choose_builtin_peer(app)
    click(app.find_button("Next", timeout=10))
    return wait_for(lambda: plan_switches(app) or None, 15) or {}


def choose_builtin_peer(app):
    """On the network page: switches "This PC only (built-in peer)" on (it is never the default;
    Next waits for a peer) and waits until it reads on."""
    builtin = control(app, "This PC only (built-in peer)")
    if builtin is not None and not checked(builtin):
        click(builtin)
        wait_for(lambda: checked(builtin), 5)


def run_only(app, switches, keep, timeout):
    """Switches off every test of the plan but `keep`, starts, waits up to timeout seconds for
    "See results" and opens Results; True when the run ended."""
    for title, switch in switches.items():
        if title != keep and checked(switch):
            click(switch)
            wait_for(lambda s=switch: not checked(s), 5)
    start = app.find_button("Start tests", timeout=10)
    click(start)
    done = wait_for(lambda: start.get_name().endswith("See results") and sensitive(start), timeout)
    click(start)
    return bool(done)


def verify_in_running(env, path):
    """`qualify --verify PATH` while Qualify runs: the running one opens it in its verify view,
    this one ends at once. True when it handed the file over."""
    run = subprocess.run([os.environ["QUALIFY_GUI"], "--verify", path], env=dict(os.environ, **env),
                         capture_output=True, text=True, timeout=60)
    return run.returncode == 0


def stop_process(proc):
    """Ends a process this test started (SIGTERM, then SIGKILL after 10 s); None is allowed."""
    if proc is not None:
        stop(proc)


def private_dirs(name):
    """A temporary folder for one test, and the environment that keeps the app's sessions and
    settings inside it, in English: (tmp, data_home, env)."""
    tmp = tempfile.mkdtemp(prefix=f"qf-ui-{name}-")
    data_home = os.path.join(tmp, "data")
    env = {"XDG_DATA_HOME": data_home, "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
           "LANGUAGE": "en", "LANG": "C.UTF-8"}
    return tmp, data_home, env


def run_main(main, what):
    """Exits with main()'s status; any failure to drive the window is one failed TAP test."""
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001
        import traceback
        print(f"not ok - {what} could not be driven: {e}")
        for line in traceback.format_exc().splitlines():
            print(f"# {line}")
        print("1..1")
        sys.exit(1)
