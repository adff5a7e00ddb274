#!/usr/bin/python3
"""test-verify.py — the verify view (tests/ui): a report signed by `qualify-cli cert create` +
`qualify-cli report` opens with `qualify --verify FILE` as valid with the signer's name, not yet
trusted; "Trust this signer" makes it trusted (and remembers the certificate 0600 in a 0700
folder); more files handed to the running Qualify with `qualify --verify` show as changed after
signing (one byte changed), not signed, and not a Qualify report (a PDF and an HTML file of
someone else's), and one signed by another certificate made out to the trusted signer's name and
company says so; the trusted signers list shows the signer and removes it."""
import os
import shutil
import stat
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (App, Tap, click, need_display, private_dirs, run_main,  # noqa: E402
                    verify_in_running as hand_over, wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "fixtures", "sessions",
                       "pass.json")
UNTRUSTED = "Valid, but the signer is not yet trusted"
TRUSTED = "Valid, from a trusted signer"


def cli(env, *args):
    return subprocess.run([os.environ["QUALIFY_CLI"], *args], env=env, capture_output=True, text=True,
                          timeout=120)


def make_reports(tmp, env):
    """Signed r.pdf and r.html, an unsigned u.html, a copy of r.html with one byte changed, and
    a PDF and an HTML file Qualify did not write."""
    made = cli(env, "cert", "create", "--name", "Li Wei", "--org", "Acme Integrators")
    if made.returncode != 0:
        raise RuntimeError(made.stderr)
    signed = cli(env, "report", FIXTURE, "--pdf", os.path.join(tmp, "r.pdf"), "--html", os.path.join(tmp, "r.html"))
    unsigned = cli(env, "report", FIXTURE, "--html", os.path.join(tmp, "u.html"), "--no-sign")
    if signed.returncode != 0 or unsigned.returncode != 0:
        raise RuntimeError(signed.stderr + unsigned.stderr)
    data = bytearray(open(os.path.join(tmp, "r.html"), "rb").read())
    at = data.index(b'id="qf-criteria"') + 40
    data[at] ^= 0x01  # one ASCII byte of the printed table
    open(os.path.join(tmp, "changed.html"), "wb").write(data)
    open(os.path.join(tmp, "other.pdf"), "wb").write(
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
    open(os.path.join(tmp, "other.html"), "w").write("<!DOCTYPE html><html><body>Invoice</body></html>\n")
    # another certificate made out to the same holder and company
    impostor = dict(env, XDG_DATA_HOME=os.path.join(tmp, "impostor"))
    made = cli(impostor, "cert", "create", "--name", "Li Wei", "--org", "Acme Integrators")
    fake = cli(impostor, "report", FIXTURE, "--html", os.path.join(tmp, "fake.html"))
    if made.returncode != 0 or fake.returncode != 0:
        raise RuntimeError(made.stderr + fake.stderr)


def status(app, text, timeout=30):
    return app.find("label", text, timeout=timeout) is not None


def check_trusted_store(tap, data_home):
    folder = os.path.join(data_home, "qualify", "trusted")
    files = os.listdir(folder) if os.path.isdir(folder) else []
    tap.ok(len(files) == 1 and stat.S_IMODE(os.stat(folder).st_mode) == 0o700
           and stat.S_IMODE(os.stat(os.path.join(folder, files[0])).st_mode) == 0o600,
           "the certificate is remembered in a 0700 folder, file 0600", files)
    return folder


def other_outcomes(tap, app, env, tmp):
    tap.ok(hand_over(env, os.path.join(tmp, "changed.html")) and status(app, "Changed after signing"),
           "a copy with one byte changed is reported as changed after signing")
    tap.ok(app.find("label", lambda n: "changed after signing" in n and n.startswith("•"), timeout=5)
           is not None, "and what is wrong is said in words")
    tap.ok(hand_over(env, os.path.join(tmp, "u.html")) and status(app, "Not signed"),
           "an unsigned report is reported as not signed")
    tap.ok(hand_over(env, os.path.join(tmp, "other.pdf")) and status(app, "Not a Qualify report"),
           "a PDF Qualify did not write is not a Qualify report")
    tap.ok(hand_over(env, os.path.join(tmp, "r.html")) and status(app, TRUSTED),
           "the signed HTML report by the same signer is trusted")
    tap.ok(hand_over(env, os.path.join(tmp, "other.html")) and status(app, "Not a Qualify report"),
           "an HTML file Qualify did not write is not a Qualify report")
    tap.ok(hand_over(env, os.path.join(tmp, "fake.html")) and status(app, UNTRUSTED)
           and app.find("label", lambda n: n.startswith("A different certificate with the name of a signer "
                                                        "you trust"), timeout=10) is not None,
           "a different certificate with the trusted signer's name and company is named as such")


def trusted_list(tap, app, folder):
    # GTK 4.8 shows a toggle button as a push button named twice ("Trusted Signers Trusted Signers")
    signers = app.find(None, lambda n: n.replace("_", "").startswith("Trusted Signers ")
                       and n.endswith("Trusted Signers"))
    if not tap.ok(signers is not None, "a Trusted Signers button"):
        return
    click(signers)
    tap.ok(app.find(None, "Li Wei, Acme Integrators", timeout=10) is not None,
           "the trusted signers list shows the signer")
    remove = app.find("push button", "Remove Li Wei", timeout=10)
    if tap.ok(remove is not None, "with a remove button"):
        # The list is rebuilt on every check, and AT-SPI can hand out a button of a row already
        # replaced: a click on it does nothing. Find the live one again, a bounded few times.
        for _ in range(3):
            click(remove)
            if wait_for(lambda: os.listdir(folder) == [], 3):
                break
            remove = app.find("push button", "Remove Li Wei", timeout=5)
            if remove is None:
                break
    tap.ok(app.find("label", "No trusted signers yet.", timeout=10) is not None
           and wait_for(lambda: os.listdir(folder) == [], 10) is not None, "removing forgets the signer")


def main():
    tap = Tap()
    need_display(tap)
    tmp, data_home, env = private_dirs("verify")
    env["HOME"] = tmp
    full_env = dict(os.environ, **env)
    try:
        make_reports(tmp, full_env)
    except (RuntimeError, ValueError) as e:
        tap.ok(False, "qualify-cli signs the reports to verify", e)
        return tap.done()
    app = App(extra_env=env, args=("--verify", os.path.join(tmp, "r.pdf")))
    try:
        app.wait_app()
        tap.ok(status(app, UNTRUSTED), "the signed report opens valid, signer not yet trusted")
        tap.ok(app.find("label", "Li Wei, Acme Integrators", timeout=5) is not None,
               "with the signer as “Name, Company”, as qualify-cli verify and the report page name it")
        tap.ok(app.find("label", "cell-07-ipc (Advantech IPC-610)", timeout=5) is not None,
               "and the PC from the signed data")
        trust = app.find_button("Trust This Signer")
        if tap.ok(trust is not None, "a Trust this signer button"):
            click(trust)
        tap.ok(status(app, TRUSTED), "after trusting, the report is from a trusted signer")
        folder = check_trusted_store(tap, data_home)
        other_outcomes(tap, app, full_env, tmp)
        trusted_list(tap, app, folder)
    finally:
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the verify view")
