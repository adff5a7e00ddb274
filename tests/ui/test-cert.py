#!/usr/bin/python3
"""test-cert.py — the signing certificate from the wizard (tests/ui).

A quick run of the socket-latency test alone against the built-in peer, then on the report page:
with no certificate the page says the export will not be signed; Export report opens the
certificate dialog with the holder's name from the Operator field and the company row, labelled
as the installer's own, empty — never the Customer field's "ACME Automotive" (issue #29 item 1);
typed in, Create makes the certificate and the export goes on signed; the page then says "Signed by Li Wei, Example
Robotics — fingerprint …" with the fingerprint `qualify-cli cert show` prints. The primary
menu's Signing Certificate shows the same fingerprint; Export certificate… writes a PEM that
`certtool -i` reads and that holds no key; Replace… imports a PKCS#12 file made here with
certtool: a wrong password is refused with the cause, the right one replaces the holder. Between
the two, Replace… offers the remembered company again; the customer's side: the exported report opens in the verify view (`qualify --verify`
handed to the running window) as valid with the signer's name and fingerprint, Trust This Signer
makes it trusted, a copy with one byte changed shows as changed, and `qualify-cli report` refuses
the session with one stored verdict edited. HOME,
XDG_DATA_HOME and XDG_CONFIG_HOME are temporary: the real key store is never touched."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qftest import (SCALE, App, Tap, click, need_display,  # noqa: E402
                    private_dirs, run_main, run_only, sessions, to_plan, verify_in_running,
                    wait_for)

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
Atspi.set_timeout(20000, 30000)

KEEP = "Socket latency (sockperf ping-pong)"
CUSTOMER = "ACME Automotive"
COMPANY_ROW = "Your company (the installer's)"
SIGNED = re.compile(r"^Signed by Li Wei, Example Robotics — fingerprint ((?:[0-9A-F]{4} ){15}[0-9A-F]{4})$")


def set_text(app, role, name, value):
    entry = app.find(role, name, timeout=10)
    if entry is None:
        raise RuntimeError(f"no {role} “{name}”")
    entry.get_editable_text_iface().set_text_contents(value)
    time.sleep(0.3)
    return entry


def report_field(app, name):
    """The report page's field of that name: the welcome page has Operator, Customer and Site
    too, earlier in the tree; the report page's is the last one."""
    found = []

    def walk(node, depth=0):
        try:
            if node.get_role_name() == "text" and node.get_name() == name:
                found.append(node)
            for i in range(node.get_child_count()):
                walk(node.get_child_at_index(i), depth + 1)
        except Exception:
            return
    walk(app.app)
    return found[-1] if found else None


def set_field(app, name, value):
    field = report_field(app, name)
    if field is None:
        raise RuntimeError(f"no report field “{name}”")
    field.get_editable_text_iface().set_text_contents(value)
    time.sleep(0.3)


def text_in(node):
    text = node.get_text_iface()
    return text.get_text(0, text.get_character_count()) if text is not None else None


def button(app, name, timeout=10):
    """A push button by its accessible name; GTK 4.8 appends the visible label ("Replace… Replace…"),
    and a dialog's response button is named by its label with the mnemonic ("_Fill In")."""
    return app.find("push button", lambda n: n.replace("_", "") == name or n.replace("_", "").startswith(name + " ")
                    or n.replace("_", "").endswith(" " + name), timeout=timeout)


def menu_button(node, name="Main Menu"):
    """The GtkMenuButton's inner button: of the two accessibles named "Main Menu", the one with an action."""
    try:
        action = node.get_action_iface()
        if node.get_name() == name and action is not None and action.get_n_actions() > 0:
            return node
        for i in range(node.get_child_count()):
            hit = menu_button(node.get_child_at_index(i), name)
            if hit is not None:
                return hit
    except Exception:
        return None
    return None


def label(app, pred, timeout=10):
    node = app.find("label", pred, timeout=timeout)
    return node.get_name() if node is not None else None


def run_to_report(tap, app):
    """Welcome (names, quick run) → System → Network → Plan (socket latency only) → Results → Report."""
    set_text(app, "text", "Operator", "Li Wei")
    set_text(app, "text", "Customer", CUSTOMER)
    tap.ok(run_only(app, to_plan(app), KEEP, 150 * SCALE), "the socket-latency test runs to the end")
    click(app.find_button("Report", timeout=15))
    return app.find_button("Export report", timeout=15)


def make_p12(tmp):
    key, crt, tmpl, p12 = (os.path.join(tmp, n) for n in ("kim.key", "kim.crt", "kim.tmpl", "kim.p12"))
    with open(tmpl, "w", encoding="utf-8") as f:
        f.write('cn = "Kim Park"\norganization = "Acme Integration"\nserial = 9\nexpiration_days = 30\n'
                "signing_key\nemail_protection_key\n")
    for args in (["--generate-privkey", "--key-type=ecdsa", "--outfile", key],
                 ["--generate-self-signed", "--load-privkey", key, "--template", tmpl, "--outfile", crt],
                 ["--to-p12", "--load-privkey", key, "--load-certificate", crt, "--p12-name", "Kim Park",
                  "--password", "right-pass", "--outder", "--outfile", p12]):
        subprocess.run(["certtool", *args], capture_output=True, check=True)
    return p12


def cli_fingerprint(env):
    r = subprocess.run([os.environ["QUALIFY_CLI"], "cert", "show"], env=dict(os.environ, **env),
                       capture_output=True, text=True, timeout=30)
    m = re.search(r"^Fingerprint:\s+(.*)$", r.stdout, re.M)
    return m.group(1).strip() if m else None


def names_before_signing(tap, app):
    """Issue #29 item 6: with the Site empty, Export report asks for it before anything is signed
    or a certificate offered; Fill In goes back to the fields; Site filled in, export goes on."""
    click(app.find_button("Export report", timeout=10))
    asked = label(app, lambda n: "does not name the site yet" in n, timeout=15)
    tap.ok(asked is not None and app.find("label", "Names Missing for the Signature", timeout=5) is not None,
           "a signed export with the Site empty asks for it first", asked)
    fill = button(app, "Fill In", timeout=5)
    if fill is not None:
        click(fill)
    time.sleep(1)
    tap.ok(fill is not None and app.find("label", "Names Missing for the Signature", timeout=1) is None
           and app.find("text", "Holder's name", timeout=2) is None
           and label(app, lambda n: n.startswith("Written"), timeout=1) is None,
           "Fill In neither exports nor offers a certificate")
    set_field(app, "Site", "Hall 3")


def unsigned_draft(tap, app, folder):
    """With a certificate, an empty Site asks again; Export Unsigned Draft writes the report unsigned."""
    set_field(app, "Site", "")
    click(app.find_button("Export report", timeout=10))
    draft = button(app, "Export Unsigned Draft", timeout=15)
    tap.ok(draft is not None, "with a certificate, an empty Site asks again before signing")
    if draft is not None:
        click(draft)
    written = wait_for(lambda: label(app, lambda n: n.startswith("Written as an unsigned draft"), timeout=1),
                       60 * SCALE)
    html = open(os.path.join(folder, "report.html"), encoding="utf-8").read() if written else ""
    tap.ok(written is not None and "qf-signature" not in html, "Export Unsigned Draft writes it unsigned", written)
    set_field(app, "Site", "Hall 3")


def export_on_first_use(tap, app, env, folder):
    tap.ok(label(app, lambda n: n.startswith("This export will not be signed")) is not None,
           "with no certificate the report page says the export will not be signed")
    names_before_signing(tap, app)
    click(app.find_button("Export report", timeout=10))
    holder = app.find("text", "Holder's name", timeout=15)
    company = app.find("text", COMPANY_ROW, timeout=5)
    tap.ok(holder is not None and text_in(holder) == "Li Wei" and company is not None
           and text_in(company) == "",
           "the first export offers a certificate: the holder from Operator, the installer's company "
           "row empty, never the customer's",
           (text_in(holder) if holder else None, text_in(company) if company else None))
    tap.ok(label(app, lambda n: "the installer's company, not the customer's" in n, timeout=5) is not None,
           "the dialog says the company is the installer's own")
    if company is not None:
        company.get_editable_text_iface().set_text_contents("Example Robotics")
        time.sleep(0.3)
    click(button(app, "Create certificate", timeout=5))
    line = wait_for(lambda: label(app, lambda n: bool(SIGNED.match(n)), timeout=1), 60 * SCALE)
    tap.ok(line is not None, "the report page says who signs", line)
    written = wait_for(lambda: label(app, lambda n: n.startswith("Written and signed"), timeout=1), 60 * SCALE)
    tap.ok(written is not None and os.path.exists(os.path.join(folder, "report.pdf")),
           "the export goes on, signed", written)
    fingerprint = SIGNED.match(line).group(1) if line else None
    tap.ok(fingerprint is not None and fingerprint == cli_fingerprint(env),
           "the fingerprint is the one qualify-cli cert show prints", (fingerprint, cli_fingerprint(env)))
    if shutil.which("pdfsig"):
        sig = subprocess.run(["pdfsig", os.path.join(folder, "report.pdf")], capture_output=True, text=True)
        tap.ok("Li Wei" in sig.stdout, "the exported PDF carries Li Wei's signature", sig.stdout[-400:])
    return fingerprint


def verify_the_export(tap, app, env, folder, fingerprint):
    """The customer's side of the same report: the exported PDF opens in the verify view as
    valid with the signer's name and the fingerprint the report page gave; Trust This Signer makes
    it trusted; a copy with one byte changed shows as changed; and a session whose stored verdict
    was edited is refused by `report`."""
    pdf, html = os.path.join(folder, "report.pdf"), os.path.join(folder, "report.html")
    tap.ok(verify_in_running(env, pdf)
           and app.find("label", "Valid, but the signer is not yet trusted", timeout=30) is not None
           and app.find("label", "Li Wei, Example Robotics", timeout=5) is not None
           and (fingerprint is None or app.find("label", fingerprint, timeout=5) is not None),
           "the exported report opens in the verify view: valid, “Li Wei, Example Robotics” (the label "
           "the report page and qualify-cli verify use), the same fingerprint")
    trust = app.find_button("Trust This Signer", timeout=10)
    if trust is not None:
        click(trust)
    tap.ok(app.find("label", "Valid, from a trusted signer", timeout=30) is not None,
           "Trust This Signer makes it a report from a trusted signer")
    data = bytearray(open(html, "rb").read())
    data[data.index(b'id="qf-criteria"') + 40] ^= 0x01
    changed = os.path.join(folder, "changed.html")
    open(changed, "wb").write(data)
    tap.ok(verify_in_running(env, changed)
           and app.find("label", "Changed after signing", timeout=30) is not None,
           "a copy with one byte changed shows as changed after signing")
    session = json.load(open(os.path.join(folder, "session.json"), encoding="utf-8"))
    row = session["verdict"]["criteria"][0]
    row["verdict"] = "fail" if row.get("verdict") == "pass" else "pass"
    edited = os.path.join(folder, "edited.json")
    json.dump(session, open(edited, "w", encoding="utf-8"))
    run = subprocess.run([os.environ["QUALIFY_CLI"], "report", edited, "--html",
                          os.path.join(folder, "edited.html"), "--no-sign"],
                         env=dict(os.environ, **env), capture_output=True, text=True, timeout=120)
    tap.ok(run.returncode == 2 and row["metric"] in run.stderr and row["key"] in run.stderr,
           "report refuses a session whose stored verdict was edited, naming the test and metric",
           run.stderr[-300:])


def open_cert_window(app):
    click(wait_for(lambda: menu_button(app.app), 10))
    item = app.find(None, lambda n: n.replace("_", "") == "Signing Certificate", timeout=10)
    if item is None:
        raise RuntimeError("no Signing Certificate in the main menu")
    click(item)
    return app.find("label", "Fingerprint (SHA-256)", timeout=15)


def export_certificate(tap, app, home):
    click(button(app, "Export certificate…"))
    save = app.find_button("Save", timeout=15)
    tap.ok(save is not None, "Export certificate… asks where to save")
    click(save)
    pem = os.path.join(home, "Li-Wei-certificate.pem")
    wait_for(lambda: os.path.exists(pem), 20)
    info = subprocess.run(["certtool", "-i", "--infile", pem], capture_output=True, text=True) \
        if os.path.exists(pem) else None
    text = open(pem, encoding="utf-8").read() if os.path.exists(pem) else ""
    tap.ok(info is not None and info.returncode == 0 and "Li Wei" in info.stdout and "PRIVATE" not in text,
           "the exported certificate is a PEM certtool reads, without the key",
           info.stderr if info else f"no {pem}: {os.listdir(home)}")


def import_p12(tap, app, p12):
    click(button(app, "Replace…"))
    company = app.find("text", COMPANY_ROW, timeout=10)
    tap.ok(company is not None and text_in(company) == "Example Robotics",
           "Replace… offers the installer's company remembered from the last certificate",
           text_in(company) if company else None)
    set_text(app, "text", "PKCS#12 file", p12)
    editable = set_text(app, "text", "Password", "wrong-pass").get_editable_text_iface()
    click(button(app, "Import PKCS#12", timeout=5))
    error = wait_for(lambda: label(app, lambda n: n.startswith("The password of ") and "is wrong" in n, timeout=1), 30 * SCALE)
    tap.ok(error is not None and "right-pass" not in error, "a wrong password is refused with the cause and the fix", error)
    editable.set_text_contents("right-pass")
    time.sleep(0.3)
    click(button(app, "Import PKCS#12", timeout=5))
    holder = wait_for(lambda: label(app, "Kim Park", timeout=1), 30 * SCALE)
    tap.ok(holder is not None, "the right password imports it: the window shows the new holder")
    line = wait_for(lambda: label(app, lambda n: n.startswith("Signed by Kim Park, Acme Integration — fingerprint "),
                                  timeout=1), 15)
    tap.ok(line is not None, "the report page now names the new signer")


def main():
    tap = Tap()
    need_display(tap)
    if shutil.which("certtool") is None:
        tap.skip_all("certtool (gnutls-bin) is not installed")
    tmp, data_home, env = private_dirs("cert")
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    env["HOME"] = home
    p12 = make_p12(tmp)
    app = App(extra_env=env)
    try:
        app.wait_app()
        if not tap.ok(run_to_report(tap, app) is not None, "the report page has Export report"):
            return tap.done()
        paths = sessions(data_home)
        folder = os.path.dirname(paths[0]) if paths else tmp
        fingerprint = export_on_first_use(tap, app, env, folder)
        verify_the_export(tap, app, env, folder, fingerprint)
        unsigned_draft(tap, app, folder)
        row = open_cert_window(app)
        tap.ok(row is not None and fingerprint is not None
               and app.find("label", fingerprint, timeout=5) is not None,
               "the menu's Signing Certificate shows the same fingerprint")
        export_certificate(tap, app, home)
        import_p12(tap, app, p12)
        key = os.path.join(data_home, "qualify", "keys", "signer-key.pem")
        tap.ok(os.path.exists(key) and os.stat(key).st_mode & 0o777 == 0o600,
               "the key went to the test's own store, readable by its owner only")
    finally:
        app.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


run_main(main, "the signing certificate")
