#!/usr/bin/python3
"""test-welcome.py — the real window opens, titled Qualify, with the welcome page's Start
button and its fields; Start leads to the system check; `qualify --helper` while it runs turns
that window into the helper machine and ends at once (tests/ui)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import App, Tap, click, need_display  # noqa: E402

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
    second = subprocess.run([os.environ["QUALIFY_GUI"], "--helper"], env=app.env,
                            capture_output=True, text=True, timeout=60)
    tap.ok(second.returncode == 0 and app.find("label", "Helper machine", timeout=15) is not None,
           "qualify --helper while Qualify runs: the running window becomes the helper machine",
           second.stderr)
finally:
    app.quit()
sys.exit(tap.done())
