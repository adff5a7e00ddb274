#!/usr/bin/python3
"""test-wizard.py — the whole wizard as a user drives it, through AT-SPI (tests/ui).

Fill the welcome fields, switch on "Quick run", go through every page, keep "This PC only",
run the quick profile, reach Results and check the verdict label and the criteria rows against
the session the core saved; export the report. Then a second run cancelled mid-test: the
session on disk is "cancelled" with the running step marked cancelled. Sessions go to a
private XDG_DATA_HOME."""
import os
import shutil
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (App, Tap, checked, click, control, find_in, load, need_display,  # noqa: E402
                    private_dirs, run_main, sensitive, sessions, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
# the stress test saturates the CPUs: give the app time to answer
Atspi.set_timeout(20000, 30000)

VERDICT_WORDS = {"pass": "✓ PASS", "fail": "✗ FAIL", "invalid": "? INVALID", "incomplete": "— INCOMPLETE"}


def find_window(app, title):
    """A top-level window of the app by its title."""
    for i in range(app.app.get_child_count()):
        window = app.app.get_child_at_index(i)
        if window is not None and window.get_name() == title:
            return window
    return None


def next_button(app, label):
    return app.find_button(label, timeout=15)


def walk_to_run(tap, app, first):
    """Welcome → System → Network → Plan → Start tests."""
    if first:
        for field, value in (("Operator", "Li Wei"), ("Customer", "ACME Robotics"), ("Site", "Hall 3")):
            entry = app.find("text", field)
            tap.ok(entry is not None, f"welcome page has a {field} field")
            if entry is not None:
                entry.get_editable_text_iface().set_text_contents(value)
                time.sleep(0.3)
    quick = control(app, "Quick run")
    if not tap.ok(quick is not None, "welcome page has the Quick run switch"):
        raise RuntimeError("no Quick run switch: not starting a full run")
    if quick is not None and not checked(quick):
        click(quick)
        wait_for(lambda: checked(quick), 5)
    start = next_button(app, "Start")
    tap.ok(start is not None, "welcome page has Start")
    click(start)

    tap.ok(app.find("label", "Readiness", timeout=15) is not None, "System check page shows the readiness audit")
    rows = wait_for(lambda: find_in(app.app, None, lambda n: n.startswith("Preemption model: ")), 20)
    tap.ok(rows is not None, "System check lists the preemption model with its status in words")
    tap.ok(find_in(app.app, None, lambda n: n.startswith("Real-time priority") or "priority" in n.lower()) is not None,
           "System check lists the real-time privilege")
    click(next_button(app, "Next"))

    builtin = control(app, "This PC only (built-in peer)")
    tap.ok(builtin is not None, "Network page offers This PC only")
    if builtin is not None and not checked(builtin):
        click(builtin)
        wait_for(lambda: checked(builtin), 5)
    tap.ok(builtin is not None and checked(builtin), "This PC only is chosen")
    tap.ok(app.find("list", "Network interfaces", timeout=5) is not None, "Network page lists the interfaces")
    click(next_button(app, "Next"))

    tap.ok(app.find("label", lambda n: n.startswith("Test plan: ARCS controller, wired network"), timeout=15)
           is not None, "Plan page shows the test plan of the wired profile")
    tap.ok(find_in(app.app, None, lambda n: n == "Real-time performance") is not None,
           "Plan lists the real-time test")
    start_tests = next_button(app, "Start tests")
    tap.ok(start_tests is not None, "Plan page has Start tests")
    # Look the run page's controls up now: while the stress test saturates both CPUs a walk of
    # the accessible tree can take longer than the test itself.
    controls = {
        "histogram": app.find(None, "Latency histogram", timeout=5),
        "series": app.find(None, "Time series", timeout=5),
        "cancel": app.find_button("Cancel", timeout=5),
        # the suggested-action button is one widget whose label follows the page
        "next": start_tests,
    }
    click(start_tests)
    return controls


def main():
    tap = Tap()
    need_display(tap)
    tmp, data_home, env = private_dirs("wizard")
    first_run = []
    try:
        # ---- a whole quick run, built-in peer
        app = App(extra_env=env)
        try:
            app.wait_app()
            controls = walk_to_run(tap, app, first=True)
            tap.ok(controls["histogram"] is not None, "Run page has the latency histogram")
            tap.ok(controls["series"] is not None, "Run page has the time series")
            see = controls["next"]
            # GTK 4.8 names a mnemonic button "See _results See results"
            tap.ok(wait_for(lambda: see.get_name().endswith("See results"), 20)
                   and not sensitive(see), "See results waits for the end of the run")
            t0 = time.monotonic()
            done = wait_for(lambda: see is not None and sensitive(see), 150)
            print(f"# the quick run took {time.monotonic() - t0:.0f} s")
            tap.ok(done, "the quick run finishes and See results becomes available")
            paths = sessions(data_home)
            first_run = list(paths)
            tap.ok(len(paths) == 1, "one session saved", paths)
            session = load(paths[0]) if paths else {}
            tap.ok(session.get("operator") == "Li Wei" and session.get("customer") == "ACME Robotics"
                   and session.get("site") == "Hall 3", "the welcome fields are in the session")
            tap.ok(session.get("profile", {}).get("id") == "arcs-wired-quick", "the quick wired profile ran",
                   session.get("profile", {}).get("id"))
            click(see)
            overall = session.get("verdict", {}).get("overall", "?")
            want = VERDICT_WORDS.get(overall, "?")
            verdict = app.find("label", want, timeout=15)
            tap.ok(verdict is not None, f"Results shows the session's verdict “{want}”")
            titles = {s.get("key"): s.get("title", "") for s in session.get("steps", [])}
            verdicts = [v for s in session.get("steps", []) for v in s.get("verdicts", [])]
            rows = [find_in(app.app, None, lambda n, v=v: n.startswith(f"{titles[v['key']]}: {v['label']}: "))
                    for v in verdicts]
            tap.ok(verdicts and all(r is not None for r in rows),
                   f"Results lists every criterion ({len(verdicts)})")
            rt_row = find_in(app.app, None, lambda n: n.startswith("Real-time performance: Average latency: "))
            rt_v = next((v for v in verdicts if v["key"] == "rt" and v["metric"] == "avg_us"), None)
            tap.ok(rt_row is not None and rt_v is not None
                   and VERDICT_WORDS.get(rt_v["verdict"], rt_v["verdict"].upper()).split()[-1] in rt_row.get_name(),
                   "the real-time row carries its verdict word", rt_row.get_name() if rt_row else None)
            # the built-in peer on a wired profile: the network rows say so, never a pass
            net_v = next((v for v in verdicts if v["key"] in ("ping", "latency") and v.get("measured") is not None), None)
            net_row = find_in(app.app, None, lambda n: net_v is not None
                              and n.startswith(f"{titles[net_v['key']]}: {net_v['label']}: ")) if net_v else None
            tap.ok(net_v is not None and net_v["verdict"] == "not-over-link" and overall != "pass"
                   and net_row is not None and "NOT OVER THE LINK" in net_row.get_name()
                   and "not over the link" in net_row.get_name(),
                   "a network row measured on loopback reads “not over the link”, and the PC does not pass",
                   net_row.get_name() if net_row else net_v)
            click(next_button(app, "Report"))
            export = app.find_button("Export report", timeout=15)
            tap.ok(export is not None, "Report page has Export report")
            if export is not None:
                click(export)
            # no certificate yet: the export offers one; Cancel exports unsigned and says so
            dialog = wait_for(lambda: find_window(app, "Signing certificate"), 15)
            cancel = find_in(dialog, "push button", lambda n: n == "Cancel" or n.startswith("Cancel ")) if dialog else None
            tap.ok(cancel is not None, "the first export offers a signing certificate")
            if cancel is not None:
                click(cancel)
            tap.ok(app.find("label", lambda n: n.startswith("Written without a signature, because no certificate was created"),
                            timeout=60) is not None, "Cancel exports without a signature and says so")
            folder = os.path.dirname(paths[0]) if paths else tmp
            tap.ok(wait_for(lambda: os.path.exists(os.path.join(folder, "report.pdf"))
                            and os.path.exists(os.path.join(folder, "report.html")), 60),
                   "the report is exported beside the session")

            # back to the results: "Re-run this test" on an advice runs that test alone again
            click(app.find_button("Back", timeout=10))
            rerun = app.find_button("Re-run this test", timeout=10)
            advice = session.get("advice", [])
            tap.ok((rerun is not None) == bool(advice), "each advice offers Re-run this test",
                   f"{len(advice)} advice")
            if rerun is not None:
                key = advice[0]["key"]
                click(rerun)
                tap.ok(wait_for(lambda: see.get_name().endswith("See results") and sensitive(see), 120),
                       "the re-run finishes")
                new = [p for p in sessions(data_home) if p not in first_run]
                again = load(new[0]) if len(new) == 1 else {}
                ran = [s["key"] for s in again.get("steps", []) if s.get("status") != "not-run"]
                tap.ok(ran == [key], f"a new session ran only “{key}”", ran)
                tap.ok(any(n.get("id") == "rerun" for n in again.get("notes", [])),
                       "the new session says it is a re-run of one test")
                first_run.extend(new)
        finally:
            app.quit()

        # ---- cancelled mid-test
        app = App(extra_env=env)
        try:
            app.wait_app()
            controls = walk_to_run(tap, app, first=False)
            # the runner saves each state change: cancel while the stress test is running
            def stress_running():
                for path in sessions(data_home):
                    if path in first_run:
                        continue
                    try:
                        steps = load(path).get("steps", [])
                    except ValueError:  # caught between write and rename is impossible; be safe
                        continue
                    if any(s.get("key") == "stress" and s.get("status") == "running" for s in steps):
                        return True
                return False
            running = wait_for(stress_running, 90)
            tap.ok(running, "the run reaches the stress test")
            t0 = time.monotonic()
            click(controls["cancel"])
            see = controls["next"]
            tap.ok(wait_for(lambda: see is not None and sensitive(see), 30), "the run stops after Cancel")
            print(f"# stopped {time.monotonic() - t0:.1f} s after Cancel")
            paths = [p for p in sessions(data_home) if p not in first_run]
            newest = paths[0] if len(paths) == 1 else None
            session = load(newest) if newest else {}
            statuses = {s.get("key"): s.get("status") for s in session.get("steps", [])}
            tap.ok(session.get("state") == "cancelled", "the session is saved as cancelled", session.get("state"))
            # On a loaded machine the stress step can end between the poll that saw it running and
            # the click: then the step running at the click is a later one. What must hold is the
            # shape: exactly one step cancelled, at stress or after, every one before it finished,
            # every one after it never started.
            order = [s.get("key") for s in session.get("steps", [])]
            cancelled = [k for k in order if statuses.get(k) == "cancelled"]
            at = order.index(cancelled[0]) if len(cancelled) == 1 else -1
            tap.ok(at >= 0 and "stress" in order and at >= order.index("stress"),
                   "the running step is marked cancelled", statuses)
            tap.ok(at >= 0 and statuses.get("rt") == "done"
                   and all(statuses.get(k) in ("done", "failed", "not-run") for k in order[:at])
                   and all(statuses.get(k) in ("pending", "not-run") for k in order[at + 1:]),
                   "the finished steps are kept and the later ones never started", statuses)
        finally:
            app.quit()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the wizard")
