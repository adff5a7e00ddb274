#!/usr/bin/python3
"""test-resume-code.py — resuming a run made with a pairing code asks for the code again
(tests/ui). A helper (`qualify-cli serve --pairing-code`, loopback only, no announcement) and a
CLI run of the latency test with its code make a session; the test marks that step cancelled, as
a closed window would leave it. The wizard's Resume then asks for the code in a dialog: a code
with a look-alike character keeps "Resume" off and says why; the right code (lower case, with
spaces) and Enter in the field resume the run, the latency test runs again against the helper, and the code is
written nowhere in the session folder."""
import json
import os
import shutil
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import port_free  # noqa: E402
from qftest import (App, stop_process, Tap, click, find_in, load, need_display, private_dirs, run_main,  # noqa: E402
                    scaled, sensitive, sessions, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
CLI = os.environ["QUALIFY_CLI"]
PORTS = (11111, 5201)   # the ports a session's network steps use
RETURN, TAB = 0xff0d, 0xff09   # GDK_KEY_Return, GDK_KEY_Tab


def start_helper():
    """serve with a fresh pairing code on loopback; (process, code) or (None, None)."""
    proc = subprocess.Popen([CLI, "serve", "--pairing-code", "--bind", "127.0.0.1", "--no-announce"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + scaled(15)
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        words = line.split()
        if len(words) == 1 and len(words[0]) == 19 and words[0].count("-") == 3:
            return proc, words[0]
    proc.kill()
    proc.wait()
    return None, None


def cancelled_session(data_home, code):
    """A session of the latency test made with the code, its step marked cancelled."""
    out = os.path.join(data_home, "qualify", "sessions", "with-code")
    run = subprocess.run([CLI, "run", "--profile", "arcs-wired-quick", "--peer", "127.0.0.1",
                          "--pairing-code", code, "--only", "latency", "--out", out],
                         capture_output=True, text=True, timeout=scaled(120))
    path = os.path.join(out, "session.json")
    if not os.path.exists(path):
        return None, run.stdout + run.stderr
    data = load(path)
    for step in data.get("steps", []):
        if step.get("key") == "latency":
            step["status"] = "cancelled"
    data["state"] = "cancelled"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path, run.stdout + run.stderr


def code_dialog(app):
    for i in range(app.app.get_child_count()):
        child = app.app.get_child_at_index(i)
        if child is not None and child.get_role_name() == "dialog" and child.get_name() == "Pairing Code":
            return child
    return None


def focused(node):
    """node or a part of it (a password entry's text) has the keyboard focus."""
    if node.get_state_set().contains(Atspi.StateType.FOCUSED):
        return True
    return any(focused(node.get_child_at_index(i)) for i in range(node.get_child_count())
               if node.get_child_at_index(i) is not None)


def focus_by_tab(node):
    """Tab through the dialog (a few times at most) until node has the focus."""
    for _ in range(8):
        if focused(node):
            return True
        Atspi.generate_keyboard_event(TAB, None, Atspi.KeySynthType.SYM)
        time.sleep(0.3)
    return focused(node)


def tree(node, depth=0):
    """(role, name) of node and what it holds, for a failure's detail."""
    try:
        out = [f"{'  ' * depth}{node.get_role_name()}: {node.get_name()}"]
        for i in range(node.get_child_count()):
            out += tree(node.get_child_at_index(i), depth + 1)
    except Exception:
        return []
    return out if depth < 12 else out[:1]


def written_anywhere(folder, code):
    plain = code.replace("-", "")
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                data = f.read()
            if code.encode() in data or plain.encode() in data:
                return os.path.join(root, name)
    return None


def main():
    tap = Tap()
    need_display(tap)
    if not all(port_free(p) for p in PORTS):
        tap.skip_all("ports 11111/5201 are in use on loopback")
    tmp, data_home, env = private_dirs("resume-code")
    helper, code = start_helper()
    app = None
    try:
        tap.ok(code is not None, "serve --pairing-code shows a code")
        if code is None:
            return tap.done()
        path, log = cancelled_session(data_home, code)
        tap.ok(path is not None, "a CLI run with the code made a session", log)
        if path is None:
            return tap.done()
        tap.ok(load(path).get("peer", {}).get("pairing_code") is True,
               "the session records that a code was used", load(path).get("peer"))

        app = App(extra_env=env)
        app.wait_app()
        click(app.find_button("Resume", timeout=20))
        dialog = wait_for(lambda: code_dialog(app), scaled(15))
        tap.ok(dialog is not None, "Resume asks for the helper machine's pairing code")
        if dialog is None:
            return tap.done()
        entry = find_in(dialog, None, lambda n: n == "Pairing code")
        resume = find_in(dialog, "push button", lambda n: n.replace("_", "") == "Resume"
                         or n.replace("_", "").endswith(" Resume"))
        tap.ok(entry is not None and resume is not None and not sensitive(resume),
               "the dialog has the code field, and Resume waits for a code", "\n".join(tree(dialog)))
        if entry is None or resume is None:
            return tap.done()
        entry.get_editable_text_iface().set_text_contents("0OIL-2345-6789-ABCD")
        said = wait_for(lambda: find_in(dialog, "label", lambda n: "0, O, 1, I or L" in n), scaled(5))
        tap.ok(said is not None and not sensitive(resume),
               "a code with look-alike characters is refused, saying which characters a code has")
        entry.get_editable_text_iface().set_text_contents(code.lower().replace("-", " "))
        tap.ok(wait_for(lambda: sensitive(resume), scaled(5)), "the right code (lower case, spaces) enables Resume")
        # Enter in the code field takes the dialog's default response, Resume
        focused = focus_by_tab(entry)
        Atspi.generate_keyboard_event(RETURN, None, Atspi.KeySynthType.SYM)
        tap.ok(focused and wait_for(lambda: code_dialog(app) is None, scaled(10)),
               "Enter in the code field resumes (the dialog's default response)", f"focused: {focused}")
        done = wait_for(lambda: {s.get("key"): s.get("status") for s in load(path).get("steps", [])}
                        .get("latency") in ("done", "failed"), scaled(120))
        steps = {s.get("key"): s.get("status") for s in load(path).get("steps", [])}
        tap.ok(done and steps.get("latency") == "done", "the latency test runs again against the helper", steps)
        leak = written_anywhere(os.path.dirname(path), code)
        tap.ok(leak is None, "the code is written nowhere in the session folder", leak)
    finally:
        if app is not None:
            app.quit()
        stop_process(helper)
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the window")
