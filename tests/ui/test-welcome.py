#!/usr/bin/python3
"""test-welcome.py — the real window opens, titled Qualify, with the welcome page's Start
button and its fields; Start leads to the system check; `qualify --helper` while it runs (with
a verify window opened after it, so the wizard is not the active window) turns the wizard into
the helper machine and ends at once; Back returns to the system check and stops the helper
(tests/ui)."""
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import App, Tap, click, need_display, scaled, wait_for  # noqa: E402


def port_bound(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0

tap = Tap()
need_display(tap)
app = App()
try:
    app.wait_app()
    frame = app.find("frame", "Qualify")
    tap.ok(frame is not None, "window titled Qualify")
    start = app.find_button("Start")
    tap.ok(start is not None, "welcome page has a Start button")
    title = app.find("label", "Qualify this PC")
    tap.ok(title is not None, "welcome page says what it is for")
    for field in ("Operator", "Customer", "Site"):
        tap.ok(app.find("text", field) is not None, f"welcome page asks for the {field.lower()}")
    tap.ok(app.find("label", "Step 1 of 7: Welcome") is not None, "the header says which step this is")
    if start is not None:
        click(start)
        audit = app.find("label", "Readiness", timeout=10)
        tap.ok(audit is not None, "Start shows the system check")
        tap.ok(app.find("label", "Step 2 of 7: System check", timeout=5) is not None,
               "the header follows to step 2")
    # a file handed to the running Qualify opens the verify window, now the newest (active) one
    with tempfile.NamedTemporaryFile("w", suffix=".html") as report:
        report.write("<html>not a report</html>")
        report.flush()
        subprocess.run([os.environ["QUALIFY_GUI"], report.name], env=app.env,
                       capture_output=True, text=True, timeout=60)
        time.sleep(1)
        second = subprocess.run([os.environ["QUALIFY_GUI"], "--helper"], env=app.env,
                                capture_output=True, text=True, timeout=60)
    tap.ok(second.returncode == 0 and app.find("label", "Helper machine", timeout=15) is not None,
           "qualify --helper while Qualify runs (a verify window the active one): the wizard's "
           "window becomes the helper machine", second.stderr)
    tap.ok(wait_for(lambda: port_bound(11111), scaled(10)), "the helper listens on 11111")
    back = app.find_button("Back", timeout=5)
    if back is not None:
        click(back)
    tap.ok(app.find("label", "Step 2 of 7: System check", timeout=10) is not None,
           "Back from the helper page returns to the step it was entered from")
    tap.ok(wait_for(lambda: not port_bound(11111), scaled(10)), "… and the helper stops")
finally:
    app.quit()
sys.exit(tap.done())
