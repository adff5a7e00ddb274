#!/usr/bin/python3
"""test-welcome.py — the real window opens, titled Qualify, with the welcome page's Start
button; Start leads to the PC's identity (tests/ui)."""
import os
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
    if start is not None:
        click(start)
        host = app.find("label", "Host name", timeout=10)
        tap.ok(host is not None, "Start shows the system page with the host name")
finally:
    app.quit()
sys.exit(tap.done())
