#!/usr/bin/python3
"""test-why-slow.py — the results page tells why a traced run was slow (tests/ui, issue 34):
`qualify --replay tests/ui/traced-session.json` plays back a real `qualify-cli run --trace`
(the real-time test on CPU 1 while a SCHED_FIFO 99 program spun there 3 ms every 250 ms) and
Results shows the "Why it was slow" group: the worst spike's sentence as the step tells it,
naming the program with its pid, policy and priority, and its timeline, described for
screen readers; and an untraced replay shows no such group."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import App, Tap, click, need_display, run_main, wait_for  # noqa: E402

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "traced-session.json")


def results(tap, session, what):
    """Replays session to Results; the app, or None after a failed check."""
    tmp = tempfile.mkdtemp(prefix="qf-ui-why-slow-")
    app = App(extra_env={"XDG_DATA_HOME": os.path.join(tmp, "data"), "LANGUAGE": "en", "LANG": "C.UTF-8"},
              args=("--replay", session, "--speed", "20"))
    app.wait_app()
    see = app.find_button("See results", timeout=20)
    done = wait_for(lambda: see is not None and see.get_state_set().contains(Atspi.StateType.SENSITIVE), 120)
    if not tap.ok(done, f"{what}: the replay ends"):
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
        return None
    click(see)
    app.tmp = tmp
    return app


def main():
    tap = Tap()
    need_display(tap)
    recorded = json.load(open(FIXTURE, encoding="utf-8"))
    worst = recorded["steps"][0]["result"]["latency_causes"][0]
    culprit = worst["breakdown"][0]
    app = results(tap, FIXTURE, "traced")
    if app is not None:
        try:
            tap.ok(app.find("label", "Why it was slow", timeout=15) is not None, "Results has “Why it was slow”")
            label = f"{culprit['name']} (pid {culprit['pid']}, {culprit['policy']} {culprit['priority']})"
            sentence = app.find("label", lambda n: n.startswith("Real-time performance: The worst delay")
                                and label in n, timeout=10)
            tap.ok(sentence is not None, f"the worst spike's sentence names {label}")
            timeline = app.find(None, lambda n: n.startswith("Timeline of the worst spike.") and label in n,
                                timeout=10)
            tap.ok(timeline is not None, "its timeline is there, described for screen readers")
        finally:
            app.quit()
            shutil.rmtree(app.tmp, ignore_errors=True)
    # the same session without its trace: no such group
    tmp = tempfile.mkdtemp(prefix="qf-ui-why-slow-plain-")
    try:
        plain = json.load(open(FIXTURE, encoding="utf-8"))
        for key in ("latency_causes", "trace"):
            del plain["steps"][0]["result"][key]
        path = os.path.join(tmp, "session.json")
        json.dump(plain, open(path, "w", encoding="utf-8"))
        app = results(tap, path, "untraced")
        if app is not None:
            try:
                tap.ok(app.find("label", "✗ FAIL", timeout=15) is not None
                       and app.find("label", "Why it was slow", timeout=3) is None,
                       "an untraced run shows no “Why it was slow”")
            finally:
                app.quit()
                shutil.rmtree(app.tmp, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "why it was slow")
