#!/usr/bin/python3
"""test-report-language.py — the report language follows the interface (tests/ui, issue #29 item 5).

A session recorded by `qualify-cli run` (the quick profile's real-time test alone) is replayed by
`qualify --replay` in Chinese (LANGUAGE=zh_CN) and in English, each with fresh settings; on the
report page the Language row shows the interface's language: 中文（简体） in the Chinese wizard,
English in the English one. A choice made there is kept (the setting), not overridden."""
import gettext
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import App, Tap, click, need_display, run_main, sensitive, wait_for  # noqa: E402

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)
CHINESE, ENGLISH = "中文（简体）", "English"


def catalogue(language):
    """The build's catalogue of language (po/<lang>/LC_MESSAGES/qualify.mo), or English."""
    if language == "en":
        return gettext.NullTranslations()
    localedir = os.path.join(os.path.dirname(os.environ["QUALIFY_CLI"]), "..", "..", "po")
    return gettext.translation("qualify", localedir, languages=[language])


def button(app, text, timeout=10):
    """A push button by its label with the mnemonic in either language's form ("报告(_R)")."""
    want = text.replace("_", "")
    return app.find("push button", lambda n: n.replace("_", "") == want or n.replace("_", "").endswith(" " + want),
                    timeout=timeout)


def language_shown(tap, fixture, tmp, language):
    """Replays fixture in language; the Language row's shown value on the report page."""
    tr = catalogue(language).gettext
    env = {"XDG_DATA_HOME": os.path.join(tmp, f"data-{language}"),
           "XDG_CONFIG_HOME": os.path.join(tmp, f"config-{language}"),
           "LANGUAGE": language, "LANG": "C.UTF-8"}
    app = App(extra_env=env, args=("--replay", fixture, "--speed", "5"))
    try:
        app.wait_app()
        see = button(app, tr("See _results"), timeout=30)
        if not tap.ok(see is not None and wait_for(lambda: sensitive(see), 120),
                      f"the replay ends ({language})"):
            return None
        click(see)
        report = button(app, tr("_Report"), timeout=15)
        if not tap.ok(report is not None and wait_for(lambda: sensitive(report), 15), f"Results has Report ({language})"):
            return None
        click(report)
        if app.find("label", tr("Sign-off"), timeout=15) is None:
            return None
        shown = [name for name in (CHINESE, ENGLISH) if app.find("label", name, timeout=3) is not None]
        return shown
    finally:
        app.quit()


def main():
    tap = Tap()
    need_display(tap)
    tmp = tempfile.mkdtemp(prefix="qf-ui-report-language-")
    out = os.path.join(tmp, "recorded")
    try:
        run = subprocess.run([os.environ["QUALIFY_CLI"], "run", "--profile", "arcs-wired", "--quick", "--only", "rt",
                              "--out", out, "--no-sign", "--json"],
                             env=dict(os.environ, XDG_DATA_HOME=os.path.join(tmp, "cli"), LANGUAGE="en"),
                             capture_output=True, text=True, timeout=120)
        if not tap.ok(run.returncode in (0, 1), "qualify-cli records a session to replay", run.stderr):
            return tap.done()
        fixture = os.path.join(out, "session.json")
        shown = language_shown(tap, fixture, tmp, "zh_CN")
        tap.ok(shown == [CHINESE], "in the Chinese wizard the report language is Chinese", shown)
        shown = language_shown(tap, fixture, tmp, "en")
        tap.ok(shown == [ENGLISH], "in the English wizard the report language is English", shown)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the report language")
