#!/usr/bin/python3
"""test-man-pages.py — the manual pages document every command and option the programs print
in --help, and render without a warning (tests/data). TAP.

Usage: test-man-pages.py QUALIFY_CLI QUALIFY PAGEDIR...
Each PAGEDIR holds qualify.1 and qualify-cli.1 (help/man, and the translated pages the build
writes into build/help/man/LANG/man1). For qualify-cli, every command of `qualify-cli --help`
has a section (.SS) of its own in qualify-cli.1, and every long option of `qualify-cli COMMAND
--help` (and of `qualify-cli cert create|import|show --help`) appears in that command's
section; for qualify, every long option of `qualify --help-all` appears in qualify.1. Then
`groff -k -man -Tutf8 -ww -z` (all warnings, UTF-8 input) prints nothing for each page."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui"))
from qftest import Tap  # noqa: E402

cli, gui = sys.argv[1:3]
pagedirs = sys.argv[3:]
tap = Tap()

# English --help, whatever the caller's language.
env = {k: v for k, v in os.environ.items()
       if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
env["LANG"] = "C.UTF-8"


def run(args):
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout + r.stderr


def long_options(help_text):
    """The long options of a GOption --help, without --help itself."""
    found = re.findall(r"^\s+(?:-\w, )?(--[a-z0-9][a-z0-9-]*)", help_text, re.M)
    return [o for o in dict.fromkeys(found) if o != "--help"]


def plain(roff):
    """The text of roff source as far as option names go: \\- is -, font changes vanish."""
    text = re.sub(r"\\f(?:\[[^\]]*\]|\(..|.)", "", roff)
    return text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")


def sections(page):
    """{heading: body} for every .SS of a page, the heading without quotes and fonts."""
    result = {}
    heading = None
    for line in page.splitlines():
        if line.startswith((".SS", ".SH")):
            heading = plain(line[3:].strip().strip('"')).strip() if line.startswith(".SS") else None
            if heading is not None:
                result[heading] = ""
        elif heading is not None:
            result[heading] += plain(line) + "\n"
    return result


def mentions(text, option):
    return re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", text) is not None


def section_of(secs, command):
    """The body of the section whose heading starts with COMMAND (e.g. "cert create")."""
    for heading, body in secs.items():
        if heading == command or heading.startswith(command + " "):
            return body
    return None


# What the programs say they take: [(command, [options])], subcommands of cert included.
rc, top = run([cli, "--help"])
block = re.search(r"^Commands:\n(.*?)\n\n", top, re.S | re.M)
commands = re.findall(r"^  ([a-z]+) ", block.group(1), re.M) if block else []
tap.ok(rc == 0 and len(commands) > 10, "qualify-cli --help lists the commands", top)
cli_options = []
for command in commands:
    rc, text = run([cli, command, "--help"])
    subs = re.search(r"qualify-cli " + command + r" ([a-z]+(?:\|[a-z]+)+)", text)
    if subs:
        for sub in subs.group(1).split("|"):
            rc, subtext = run([cli, command, sub, "--help"])
            tap.ok(rc == 0, f"qualify-cli {command} {sub} --help works", subtext)
            cli_options.append((f"{command} {sub}", long_options(subtext)))
    else:
        tap.ok(rc == 0, f"qualify-cli {command} --help works", text)
        cli_options.append((command, long_options(text)))
rc, text = run([gui, "--help-all"])
gui_options = long_options(text)
tap.ok(rc == 0 and "--helper" in gui_options, "qualify --help-all lists its options", text)

groff = shutil.which("groff")
for pagedir in pagedirs:
    # "en" for help/man, LANG for the translated pages in LANG/man1
    parent = os.path.dirname(os.path.normpath(pagedir))
    where = os.path.basename(parent) if os.path.basename(pagedir) == "man1" else "en"
    with open(os.path.join(pagedir, "qualify-cli.1"), encoding="utf-8") as f:
        cli_page = f.read()
    with open(os.path.join(pagedir, "qualify.1"), encoding="utf-8") as f:
        gui_page = f.read()

    secs = sections(cli_page)
    for command, options in cli_options:
        body = section_of(secs, command)
        if not tap.ok(body is not None, f"{where}/qualify-cli.1 has a section for {command}",
                      f"sections: {list(secs)}"):
            continue
        missing = [o for o in options if not mentions(body, o)]
        tap.ok(not missing, f"{where}/qualify-cli.1 documents every option of {command}",
               f"not in its section: {' '.join(missing)}")
    for option in ("--help", "--version"):
        tap.ok(mentions(plain(cli_page), option), f"{where}/qualify-cli.1 documents {option}")

    missing = [o for o in gui_options if not mentions(plain(gui_page), o)]
    tap.ok(not missing, f"{where}/qualify.1 documents every option of qualify",
           f"missing: {' '.join(missing)}")

    for name in ("qualify.1", "qualify-cli.1"):
        if groff is None:
            print(f"ok {tap.n + 1} - {where}/{name} renders without warnings # SKIP no groff "
                  "(groff-base)")
            tap.n += 1
            continue
        # -k: UTF-8 input through preconv, as man does; -ww: every warning.
        r = subprocess.run([groff, "-k", "-man", "-Tutf8", "-ww", "-z",
                            os.path.join(pagedir, name)],
                           env=env, capture_output=True, text=True, timeout=60)
        tap.ok(r.returncode == 0 and r.stderr.strip() == "",
               f"{where}/{name} renders without warnings", r.stderr)

sys.exit(tap.done())
