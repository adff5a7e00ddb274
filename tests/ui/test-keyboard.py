#!/usr/bin/python3
"""test-keyboard.py — the wizard completed with the keyboard alone (tests/ui).

Every action here is a synthetic key press (Atspi.generate_keyboard_event, which goes through
the X server's XTest like a real keyboard); AT-SPI is used only to read what has focus and what
the pages show. Type the operator's name and press Return (the entry activates the window's
default, the suggested action); Return on each page's suggested action moves on; on the plan,
Tab walks to each test's "Run" switch and Space turns it off (only the short socket-latency test
stays, against the built-in peer); Alt+T starts the tests (the mnemonic of "Start _tests");
Return shows the results, Return the report page, Alt+E exports the report. Sessions go to a
private XDG_DATA_HOME."""
import os
import shutil
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (App, Tap, checked, control, load, need_display, private_dirs,  # noqa: E402
                    run_main, sensitive, sessions, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)

KEEP = "Socket latency (sockperf ping-pong)"
TAB, RETURN, SPACE, MOD1 = 0xff09, 0xff0d, 0x20, 1 << 3


class Focus:
    """Follows the keyboard focus through AT-SPI focus events (walking the tree is too slow)."""

    def __init__(self):
        self.node = None
        self.listener = Atspi.EventListener.new(self.changed)
        self.listener.register("object:state-changed:focused")

    def changed(self, event):
        if event.detail1 == 1:
            self.node = event.source

    def name(self):
        try:
            return self.node.get_name() if self.node is not None else None
        except Exception:
            return None


def pump(seconds):
    """Lets AT-SPI events arrive for a while."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        while context.iteration(False):
            pass
        time.sleep(0.02)


def until(cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        pump(0.2)
    return None


def key(sym):
    Atspi.generate_keyboard_event(sym, None, Atspi.KeySynthType.SYM)
    pump(0.3)


def alt(letter):
    """Alt+letter: the mnemonic of a button (Alt held as a locked Mod1, keymap independent)."""
    Atspi.generate_keyboard_event(MOD1, None, Atspi.KeySynthType.LOCKMODIFIERS)
    Atspi.generate_keyboard_event(ord(letter), None, Atspi.KeySynthType.SYM)
    Atspi.generate_keyboard_event(MOD1, None, Atspi.KeySynthType.UNLOCKMODIFIERS)
    pump(0.3)


def typed(text):
    Atspi.generate_keyboard_event(0, text, Atspi.KeySynthType.STRING)
    pump(0.5)


def text_in(node):
    text = node.get_text_iface()
    return text.get_text(0, text.get_character_count()) if text is not None else None


def name_of(node):
    try:
        return node.get_name() if node is not None else None
    except Exception:
        return None


def step_label(app, n, title, timeout=20):
    return app.find("label", f"Step {n} of 7: {title}", timeout=timeout)


def main():
    tap = Tap()
    need_display(tap)
    tmp, data_home, env = private_dirs("keyboard")
    # a signing certificate in the private store, so the export signs without asking
    subprocess.run([os.environ["QUALIFY_CLI"], "cert", "create", "--name", "UI Tester"],
                   env=dict(os.environ, **env), capture_output=True, check=True, timeout=60)
    app = App(extra_env=env)
    try:
        app.wait_app()
        frame = app.find("frame", "Qualify", timeout=10)
        tap.ok(frame is not None and wait_for(lambda: frame.get_state_set().contains(Atspi.StateType.ACTIVE), 10),
               "the window is active and takes key presses")
        focus = Focus()
        # focus starts on Start: one Tab wraps round to the header's menu, the next two are the
        # roles of this PC, then the Operator field (GTK 4.8 sends no focus event for an entry
        # row's text, so check by typing)
        key(TAB)
        tap.ok(until(lambda: focus.name() == "Main Menu", 5), "focus starts on Start (Tab wraps to the menu)",
               focus.name())
        for role in ("Qualify this PC", "Be the helper machine"):
            key(TAB)
            tap.ok(until(lambda r=role: focus.name() == r, 5), f"Tab reaches the role “{role}”", focus.name())
        key(TAB)
        typed("Kim")
        entry = app.find("text", "Operator", timeout=5)
        tap.ok(entry is not None and until(lambda: text_in(entry) == "Kim", 5),
               "Tab reaches the Operator field and typing fills it", text_in(entry) if entry else None)
        # a signed report names the customer and the site too (the export would ask for them)
        for field, text in (("Customer", "ACME"), ("Site", "Hall 3")):
            key(TAB)
            typed(text)
            entry = app.find("text", field, timeout=5)
            tap.ok(entry is not None and until(lambda e=entry, t=text: text_in(e) == t, 5),
                   f"Tab reaches the {field} field and typing fills it", text_in(entry) if entry else None)
        key(RETURN)
        tap.ok(step_label(app, 2, "System check") is not None, "Return in a field takes the next step")
        key(RETURN)
        tap.ok(step_label(app, 3, "Network") is not None, "Return on the system check goes on to the network")
        # the built-in peer is never the default (issue #29 item 3): Return cannot go on yet
        builtin = control(app, "This PC only (built-in peer)")
        tap.ok(builtin is not None and not checked(builtin), "This PC only is off until chosen")
        key(RETURN)
        tap.ok(step_label(app, 4, "Plan", timeout=3) is None, "Return on the network page waits for a peer")
        name = "This PC only (built-in peer)"
        for _ in range(60):
            if (focus.name() or "") in (name, f"{name} {name}"):
                break
            key(TAB)
        if (focus.name() or "") in (name, f"{name} {name}"):
            key(SPACE)
            until(lambda: builtin is not None and checked(builtin), 5)
        tap.ok(builtin is not None and checked(builtin), "Tab reaches This PC only and Space chooses the built-in peer",
               focus.name())
        alt("n")
        tap.ok(step_label(app, 4, "Plan") is not None, "Alt+N on the network page shows the plan")

        # Tab through the plan once round; Space on each Run switch to leave the test out
        turned_off, seen = [], []
        for _ in range(150):
            node, name = focus.node, focus.name() or ""
            if name.startswith("Run “"):
                if seen.count(name) == 2:
                    break
                seen.append(name)
                if KEEP not in name and checked(node):
                    key(SPACE)
                    if until(lambda n=node: not checked(n), 5):
                        turned_off.append(name)
            key(TAB)
        tap.ok(len(turned_off) >= 5 and not any(KEEP in n for n in turned_off),
               "Tab reaches every test's Run switch and Space turns it off", f"{turned_off} of {seen}")
        alt("t")
        see = app.find_button("See results", timeout=20)
        tap.ok(see is not None, "Alt+T starts the tests")
        done = wait_for(lambda: see is not None and sensitive(see), 120)
        tap.ok(done, "the run finishes")
        tap.ok(until(lambda: focus.node is not None and focus.name() == name_of(see), 10),
               "focus moves to See results when the run ends", focus.name())
        key(RETURN)
        verdict = app.find("label", lambda n: n.split(" ", 1)[0] in ("✓", "✗", "?", "—"), timeout=20)
        tap.ok(step_label(app, 6, "Results") is not None and verdict is not None,
               "Return shows the results with the verdict", name_of(verdict))
        key(RETURN)
        tap.ok(step_label(app, 7, "Report") is not None, "Return goes on to the report page")
        alt("e")
        paths = sessions(data_home)
        folder = os.path.dirname(paths[0]) if len(paths) == 1 else tmp
        tap.ok(wait_for(lambda: os.path.exists(os.path.join(folder, "report.pdf")), 60),
               "Alt+E exports the report")
        session = load(paths[0]) if len(paths) == 1 else {}
        tap.ok(session.get("operator") == "Kim", "the typed name is in the session", session.get("operator"))
        ran = [s["key"] for s in session.get("steps", []) if s.get("status") == "done"]
        tap.ok(ran == ["latency"], "only the test left on ran", ran)
    finally:
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the wizard by keyboard")
