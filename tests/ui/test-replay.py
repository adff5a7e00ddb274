#!/usr/bin/python3
"""test-replay.py — training mode: a session recorded by `qualify-cli run` (the quick profile's
real-time test only, against the built-in peer) is played back by `qualify --replay
SESSION.json --speed 5` on the run page (its steps, progress and live plots) and ends on Results with the
recorded verdict, without measuring and without saving anything (tests/ui)."""
import glob
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
WORDS = {"pass": "✓ PASS", "fail": "✗ FAIL", "invalid": "? INVALID", "incomplete": "— INCOMPLETE"}


def main():
    tap = Tap()
    need_display(tap)
    tmp = tempfile.mkdtemp(prefix="qf-ui-replay-")
    data_home = os.path.join(tmp, "data")
    out = os.path.join(tmp, "recorded")
    run = subprocess.run([os.environ["QUALIFY_CLI"], "run", "--profile", "arcs-wired", "--quick", "--peer",
                          "builtin", "--only", "rt", "--out", out, "--no-sign", "--json"],
                         env=dict(os.environ, XDG_DATA_HOME=data_home, LANGUAGE="en"),
                         capture_output=True, text=True, timeout=120)
    if not tap.ok(run.returncode in (0, 1), "qualify-cli records a session to replay", run.stderr):
        return tap.done()
    fixture = os.path.join(out, "session.json")
    recorded = json.load(open(fixture, encoding="utf-8"))
    shutil.rmtree(data_home, ignore_errors=True)
    app = App(extra_env={"XDG_DATA_HOME": data_home, "LANGUAGE": "en", "LANG": "C.UTF-8"},
              args=("--replay", fixture, "--speed", "5"))
    try:
        app.wait_app()
        title = app.find("label", "Step 5 of 7: Running the tests", timeout=20)
        tap.ok(title is not None, "--replay opens on the run page")
        first = recorded["steps"][0]["title"]
        tap.ok(app.find(None, lambda n: n.startswith(first + ":"), timeout=10) is not None,
               "the recorded steps are listed")
        tap.ok(app.find(None, "Latency histogram", timeout=5) is not None, "with the live plots")
        see = app.find_button("See results", timeout=10)
        done = wait_for(lambda: see is not None
                        and see.get_state_set().contains(Atspi.StateType.SENSITIVE), 120)
        tap.ok(done, "the replay ends")
        if see is not None:
            click(see)
        want = WORDS[recorded["verdict"]["overall"]]
        tap.ok(app.find("label", want, timeout=15) is not None, f"Results shows the recorded verdict “{want}”")
        saved = glob.glob(os.path.join(data_home, "qualify", "sessions", "*", "session.json"))
        tap.ok(saved == [], "a replay saves no session", saved)
    finally:
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the replay")
