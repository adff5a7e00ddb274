#!/usr/bin/python3
# test-doc-commands.py — every command the documentation tells a customer to run, run (tests/cli).
#
# The blocks are marked where they stand: fenced blocks with the info string `sh customer` in
# docs/*.md, `<screen style="customer">` in help/C/*.page. Each runs under bash (-e -o pipefail)
# in a fresh folder holding report.pdf and report.html, written and signed just now by the built
# qualify-cli with a certificate made in a temporary XDG_DATA_HOME, and installer.pem, the root
# that `cert show --export` gives customers. It must exit 0 and print every `# prints "…"` text
# of its lines. Run again on copies of the reports with one signed byte changed, a block that
# reads a report must fail (exit non-zero or miss a printed text). A block naming a tool that is
# not installed is skipped, with the tool named. Speaks TAP.

import glob
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import done  # noqa: E402
from netns import tap as tap_line  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
SRC = os.environ.get("G_TEST_SRCDIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TOP = os.path.normpath(os.path.join(SRC, ".."))
TOOLS = ("qualify-cli", "pdfsig", "certutil", "certtool", "openssl", "python3")
tap = partial(tap_line, keep=25)



def customer_blocks():
    """(where, text) of every marked block."""
    for path in sorted(glob.glob(os.path.join(TOP, "docs", "*.md"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"^```sh customer\n(.*?)^```$", text, re.S | re.M):
            line = text.count("\n", 0, m.start()) + 1
            yield f"{os.path.relpath(path, TOP)}:{line}", m.group(1)
    for path in sorted(glob.glob(os.path.join(TOP, "help", "C", "*.page"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r'<screen style="customer">(.*?)</screen>', text, re.S):
            line = text.count("\n", 0, m.start()) + 1
            yield f"{os.path.relpath(path, TOP)}:{line}", html.unescape(m.group(1)) + "\n"


def cli(env, *args):
    p = subprocess.run([CLI, *args], env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"qualify-cli {' '.join(args)}: exit {p.returncode}\n{p.stderr}")


def make_reports(work, env):
    """report.pdf, report.html (signed) and installer.pem in work/good; changed copies in work/bad."""
    good, bad = os.path.join(work, "good"), os.path.join(work, "bad")
    os.makedirs(good)
    os.makedirs(bad)
    session = os.path.join(SRC, "core", "fixtures", "sessions", "fail.json")
    cli(env, "cert", "create", "--name", "Doc Tester", "--org", "Qualify Tests")
    cli(env, "report", session, "--pdf", os.path.join(good, "report.pdf"),
        "--html", os.path.join(good, "report.html"))
    cli(env, "cert", "show", "--export", os.path.join(good, "installer.pem"))
    shutil.copy(os.path.join(good, "installer.pem"), bad)
    # One signed byte each: the PDF producer's name, a heading of the HTML.
    for name, old, new in (("report.pdf", b"cairo", b"cairn"), ("report.html", b"<h1>", b"<h2>")):
        with open(os.path.join(good, name), "rb") as f:
            data = f.read()
        assert old in data, (name, old)
        with open(os.path.join(bad, name), "wb") as f:
            f.write(data.replace(old, new, 1))
    return good, bad


def run_block(text, inputs, env):
    """(exit status, output, expected texts missing) of the block run on a copy of inputs."""
    folder = tempfile.mkdtemp(dir=os.path.dirname(inputs))
    for name in os.listdir(inputs):
        shutil.copy(os.path.join(inputs, name), folder)
    p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=folder, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    expected = re.findall(r'# prints "([^"]*)"', text)
    missing = [e for e in expected if e not in p.stdout]
    return p.returncode, p.stdout, missing


def main():
    work = tempfile.mkdtemp(prefix="qf-doc-commands-")
    env = dict(os.environ)
    env.update(HOME=work, XDG_DATA_HOME=os.path.join(work, "data"),
               XDG_CONFIG_HOME=os.path.join(work, "config"), LC_ALL="C.UTF-8", LANGUAGE="")
    env["PATH"] = os.path.dirname(os.path.abspath(CLI)) + os.pathsep + env.get("PATH", "")
    try:
        good, bad = make_reports(work, env)
        blocks = list(customer_blocks())
        tap(len(blocks) >= 4, f"found {len(blocks)} customer command blocks")
        for where, text in blocks:
            missing_tools = [t for t in TOOLS if re.search(rf"(^|\s){re.escape(t)}\s", text, re.M)
                             and shutil.which(t, path=env["PATH"]) is None]
            if missing_tools:
                tap(True, f"{where} runs", skip=f"{', '.join(missing_tools)} not installed")
                continue
            status, out, missing = run_block(text, good, env)
            tap(status == 0 and not missing, f"{where} runs on a signed report",
                f"exit {status}, not printed: {missing}\n{out}")
            if "report.pdf" in text or "report.html" in text:
                status, out, missing = run_block(text, bad, env)
                tap(status != 0 or missing, f"{where} fails on a changed report",
                    f"exit {status}, all expected texts printed\n{out}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
