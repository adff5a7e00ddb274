#!/usr/bin/python3
"""test-training.py — training mode live: the welcome page's "Training mode" with "Poor wireless
link" runs the quick profile against the built-in peer answering as an emulated poor link
(tests/ui). The network page is held on "This PC only"; the plan keeps only the tests that go
through the emulated link (socket latency, control cycle) so the run stays short; both plots
draw the engine's samples while it runs. Results show FAIL or WARN on the socket-latency
criterion and the verdict says "Training"; the saved session records the emulation; the report
page and the exported report say it is no acceptance. Sessions go to a private XDG_DATA_HOME."""
import os
import re
import shutil
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (App, Tap, checked, click, control, find_in, load, need_display,  # noqa: E402
                    plan_switches, private_dirs, run_main, sensitive, sessions, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)

LATENCY = "Socket latency (sockperf ping-pong)"
KEEP = (LATENCY, "Control cycle")


def pressed(node):
    states = node.get_state_set()
    return states.contains(Atspi.StateType.PRESSED) or states.contains(Atspi.StateType.CHECKED)


def plotted(plot):
    """How many samples a plot says it holds (its accessible description ends "(N samples plotted)")."""
    match = re.search(r"\((\d+) samples? plotted\)", plot.get_description() or "")
    return int(match.group(1)) if match else 0


def main():
    tap = Tap()
    need_display(tap)
    tmp, data_home, env = private_dirs("training")
    # a signing certificate in the private store, so the export signs without asking
    subprocess.run([os.environ["QUALIFY_CLI"], "cert", "create", "--name", "UI Tester"],
                   env=dict(os.environ, **env), capture_output=True, check=True, timeout=60)
    app = App(extra_env=env)
    try:
        app.wait_app()
        # a signed export names the operator, the customer and the site (issue #29 item 6)
        for name, value in (("Operator", "UI Tester"), ("Customer", "Training Co"), ("Site", "Lab")):
            entry = app.find("text", name, timeout=10)
            if entry is None:
                raise RuntimeError(f"no text “{name}” on the welcome page")
            entry.get_editable_text_iface().set_text_contents(value)
        for name in ("Quick run", "Training mode"):
            switch = control(app, name)
            tap.ok(switch is not None, f"welcome page has the {name} switch")
            if switch is None:
                raise RuntimeError(f"no {name} switch")
            click(switch)
            wait_for(lambda: checked(switch), 5)
        poor = app.find_button("Poor wireless link", timeout=10)
        tap.ok(poor is not None and app.find_button("Recorded session", timeout=1) is not None,
               "training offers a recorded session or a live emulated link")
        click(poor)
        tap.ok(wait_for(lambda: pressed(poor), 5), "Poor wireless link is chosen")
        tap.ok(wait_for(lambda: find_in(app.app, None, lambda n: n.startswith("Measures live against the built-in peer, which holds each reply")), 5)
               is not None, "the choice says what the emulated link does")
        click(app.find_button("Start", timeout=10))
        tap.ok(app.find("label", "Readiness", timeout=15) is not None, "System check follows")
        click(app.find_button("Next", timeout=10))

        builtin = control(app, "This PC only (built-in peer)")
        tap.ok(builtin is not None and wait_for(lambda: checked(builtin), 5) and not sensitive(builtin),
               "the network page is held on This PC only")
        click(app.find_button("Next", timeout=10))

        tap.ok(app.find("label", lambda n: n.startswith("Test plan: "), timeout=15) is not None, "Plan page shows")
        switches = wait_for(lambda: plan_switches(app) or None, 10) or {}
        tap.ok(all(k in switches for k in KEEP) and len(switches) > len(KEEP),
               "every test of the plan has a named Run switch", sorted(switches))
        for title, switch in switches.items():
            if title not in KEEP and checked(switch):
                click(switch)
                wait_for(lambda s=switch: not checked(s), 5)
        tap.ok(all(checked(s) == (t in KEEP) for t, s in switches.items()),
               "only the tests through the emulated link stay on")
        start = app.find_button("Start tests", timeout=10)
        plots = [app.find(None, "Latency histogram", timeout=5), app.find(None, "Time series", timeout=5)]
        click(start)
        t0 = time.monotonic()
        # the plots draw the engines' samples while the socket-latency test runs
        live = wait_for(lambda: all(p is not None and plotted(p) > 0 for p in plots), 60)
        tap.ok(live, "the histogram and the time series plot samples live",
               [p.get_description() if p else None for p in plots])
        done = wait_for(lambda: start.get_name().endswith("See results") and sensitive(start), 120)
        print(f"# the training run took {time.monotonic() - t0:.0f} s")
        tap.ok(done, "the training run finishes")

        paths = sessions(data_home)
        session = load(paths[0]) if len(paths) == 1 else {}
        training = session.get("training") or {}
        tap.ok(training.get("kind") == "emulated-link" and training.get("delay_ms", 0) > 0,
               "the session records the emulated link", training)
        tap.ok(any(n.get("id") == "training" for n in session.get("notes", [])), "the session notes it is training")
        latency = next((s for s in session.get("steps", []) if s.get("key") == "latency"), {})
        tap.ok(latency.get("status") == "done", "the socket-latency test ran", latency.get("status"))

        click(start)
        verdict = app.find("label", lambda n: n.startswith("Training: "), timeout=15)
        tap.ok(verdict is not None, "Results say Training before the verdict",
               verdict.get_name() if verdict else None)
        row = app.find(None, lambda n: n.startswith(f"{LATENCY}: Average socket latency: "), timeout=10)
        tap.ok(row is not None and (": Fail." in row.get_name() or ": Warn" in row.get_name()
                                    or "FAIL" in row.get_name() or "WARN" in row.get_name()),
               "the socket-latency criterion is FAIL or WARN on Results", row.get_name() if row else None)
        judged = [v for v in latency.get("verdicts", []) if v.get("metric") == "avg_us"]
        tap.ok(judged and judged[0].get("verdict") in ("fail", "warn")
               and judged[0].get("measured", 0) > judged[0].get("limit", 0),
               "the session judged the emulated latency over its limit", judged)

        # the report page and the exported report say training, never acceptance
        click(start)
        tap.ok(app.find("label", lambda n: n.startswith("Training session: the report says so"), timeout=15)
               is not None, "the report page warns that this is a training session")
        click(app.find_button("Export report", timeout=10))
        html = os.path.join(os.path.dirname(paths[0]), "report.html") if paths else ""
        tap.ok(wait_for(lambda: os.path.exists(html), 60), "the report is exported")
        text = open(html, encoding="utf-8").read() if os.path.exists(html) else ""
        tap.ok("Training session — not an acceptance report" in text
               and "Real-time PC acceptance report" not in text,
               "the exported report's title says training, not acceptance")
    finally:
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the training run")
