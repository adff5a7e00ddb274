#!/usr/bin/python3
"""test-close.py — closing the window during a test asks first; "Keep testing" goes on, "Stop
and close" stops the run cleanly: the process exits, the session on disk is "cancelled" with the
running step marked cancelled and the finished ones kept; the next start offers Resume, which runs that step again (tests/ui)."""
import glob
import json
import os
import shutil
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (App, Tap, choose_builtin_peer, click, find_in, need_display, private_dirs,  # noqa: E402
                    run_main, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)


def question(app):
    """The "Stop the test?" dialog: a top-level of its own, searched directly (a walk of the
    main window's whole tree is slow while the stress test loads both CPUs)."""
    for i in range(app.app.get_child_count()):
        child = app.app.get_child_at_index(i)
        if child is not None and child.get_role_name() == "dialog" and child.get_name() == "Stop the test?":
            return child
    return None


def dialog_button(dialog, label):
    if dialog is None:
        return None
    return find_in(dialog, "push button", lambda n: n.replace("_", "") == label
                   or n.replace("_", "").endswith(" " + label))


def session(data_home):
    paths = glob.glob(os.path.join(data_home, "qualify", "sessions", "*", "session.json"))
    try:
        return json.load(open(paths[0], encoding="utf-8")) if len(paths) == 1 else None
    except ValueError:
        return None


def main():
    tap = Tap()
    need_display(tap)
    tmp, data_home, env = private_dirs("close")
    app = App(extra_env=env)
    try:
        app.wait_app()
        for label in ("Start", "Next"):
            click(app.find_button(label, timeout=15))
            time.sleep(0.5)
        choose_builtin_peer(app)
        click(app.find_button("Next", timeout=15))
        time.sleep(0.5)
        start = app.find_button("Start tests", timeout=15)
        close = app.find("push button", "Close", timeout=5)
        tap.ok(close is not None, "the header bar has the window's Close button")
        click(start)
        running = wait_for(lambda: any(s.get("key") == "stress" and s.get("status") == "running"
                                       for s in (session(data_home) or {}).get("steps", [])), 90)
        tap.ok(running, "the stress test is running (the real-time test is done)")

        click(close)
        dialog = wait_for(lambda: question(app), 15)
        keep = dialog_button(dialog, "Keep testing")
        tap.ok(dialog is not None and keep is not None, "closing during a test asks first")
        click(keep)
        time.sleep(1)
        tap.ok(app.proc.poll() is None and (session(data_home) or {}).get("state") == "running",
               "Keep testing goes on with the run")

        click(close)
        stop = dialog_button(wait_for(lambda: question(app), 15), "Stop and close")
        tap.ok(stop is not None, "the question comes again")
        click(stop)
        t0 = time.monotonic()
        exited = wait_for(lambda: app.proc.poll() is not None, 20)
        tap.ok(exited and app.proc.returncode == 0, "Stop and close ends the program",
               f"status {app.proc.poll()}")
        print(f"# exited {time.monotonic() - t0:.1f} s after Stop and close")
        saved = session(data_home) or {}
        statuses = {s.get("key"): s.get("status") for s in saved.get("steps", [])}
        tap.ok(saved.get("state") == "cancelled", "the session is saved as cancelled", saved.get("state"))
        # The step running at the click is marked cancelled; on a loaded machine the click can
        # also fall between two steps (one saved done, the next not started), and then none is.
        # Either way: the steps before the stop are finished, the ones after it never started.
        order = [s.get("key") for s in saved.get("steps", [])]
        cancelled = [k for k in order if statuses.get(k) == "cancelled"]
        stop_key = cancelled[0] if len(cancelled) == 1 else \
            next((k for k in order if statuses.get(k) == "pending"), None) if not cancelled else None
        at = order.index(stop_key) if stop_key is not None else -1
        tap.ok(at > 0 and all(statuses.get(k) in ("done", "failed", "not-run") for k in order[:at])
               and all(statuses.get(k) in ("pending", "not-run") for k in order[at + 1:]),
               "the running step is marked cancelled, none after it started", statuses)
        tap.ok(statuses.get("rt") == "done", "the finished steps are kept", statuses)
        cancelled_key = stop_key

        # the next start offers to resume it, and resuming runs the cancelled step again
        app.quit()
        app = App(extra_env=env)
        app.wait_app()
        resume = app.find_button("Resume", timeout=20)
        tap.ok(resume is not None, "the welcome page offers Resume for the unfinished session")
        if resume is not None:
            click(resume)
        again = wait_for(lambda: any(s.get("key") == cancelled_key and s.get("status") in ("running", "done")
                                     for s in (session(data_home) or {}).get("steps", [])), 60)
        steps = {s.get("key"): s.get("status") for s in (session(data_home) or {}).get("steps", [])}
        tap.ok(again and steps.get("rt") == "done", "Resume runs the stopped step again and keeps the done ones",
               steps)
    finally:
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the window")
