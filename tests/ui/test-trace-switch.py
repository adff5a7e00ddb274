#!/usr/bin/python3
"""test-trace-switch.py — the plan page's "Find the cause of spikes" (tests/ui, issue 34).

The switch is on the plan page and off by default. Switched on, with only the real-time test of
the quick profile left, the run goes through where tracing is impossible — run as root, the app
starts in a mount namespace of its own without tracefs and without CAP_SYS_ADMIN to mount it,
and its system bus leads nowhere, so qualifyd cannot be asked (as an ordinary user without
qualifyd it is impossible anyway) — and Results says in one line why nothing was traced and how
to allow it, while the test itself was measured. The session records "trace": true in the
real-time test's parameters and the reason in its result."""
import os
import shutil
import stat
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (SCALE, App, Tap, checked, click, control, load, need_display,  # noqa: E402
                    private_dirs, run_main, run_only, sessions, to_plan, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)

SWITCH = "Find the cause of spikes"
KEEP = "Real-time performance"

# As root: a mount namespace without any tracefs mount, and no CAP_SYS_ADMIN to mount one. Each
# step execs, so the app keeps the pid the test started (AT-SPI finds it by pid).
WRAPPER = """#!/bin/sh
exec unshare --mount --propagation private sh -c '
  for m in $(awk "/ - tracefs /{print \\$5}" /proc/self/mountinfo | sort -r); do umount -l "$m"; done
  exec setpriv --bounding-set=-sys_admin -- "$0" "$@"' "%s" "$@"
"""


def main():
    tap = Tap()
    need_display(tap)
    tmp, data_home, env = private_dirs("trace-switch")
    env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + os.path.join(tmp, "no-system-bus")
    gui = os.environ["QUALIFY_GUI"]
    if os.geteuid() == 0:
        wrapper = os.path.join(tmp, "qualify-without-tracefs")
        with open(wrapper, "w") as f:
            f.write(WRAPPER % gui)
        os.chmod(wrapper, stat.S_IRWXU)
        os.environ["QUALIFY_GUI"] = wrapper
    app = App(extra_env=env)
    os.environ["QUALIFY_GUI"] = gui
    try:
        app.wait_app()
        switches = to_plan(app)
        trace = control(app, SWITCH, timeout=15)
        if not tap.ok(trace is not None and KEEP in switches,
                      "the plan page has “Find the cause of spikes”", f"switches: {list(switches)}"):
            return tap.done()
        tap.ok(not checked(trace), "it is off by default")
        click(trace)
        tap.ok(wait_for(lambda: checked(trace), 5), "it can be switched on")
        tap.ok(run_only(app, switches, KEEP, 150 * SCALE),
               "the real-time test runs to the end with the switch on")
        line = app.find("label", lambda n: n.startswith(f"{KEEP}: not traced: "), timeout=20)
        text = line.get_name() if line is not None else ""
        tap.ok(line is not None and "\n" not in text and "qualifyd" in text
               and ("root" in text or "sudo adduser" in text),
               "Results says in one line why nothing was traced and how to allow it", text)
        paths = sessions(data_home)
        steps = load(paths[-1])["steps"] if paths else []
        rt = next((s for s in steps if s.get("test") == "rt"), {})
        result = rt.get("result") or {}
        tap.ok(rt.get("params", {}).get("trace") is True and
               (result.get("trace") or {}).get("recorded") is False and
               result.get("latency_causes") == [] and result.get("max_us", 0) > 0,
               "the session asked the real-time test for the trace; it measured, untraced",
               f"params {rt.get('params')} trace {result.get('trace')}")
    finally:
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the trace switch")
