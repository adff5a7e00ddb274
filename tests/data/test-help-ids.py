#!/usr/bin/python3
"""test-help-ids.py — F1 in the wizard opens help:qualify/<step>, where <step> is the name of the
current page of the window's stack (ui/qf-window.ui): every such name must be a help page in
help/C and in the Chinese help (tests/data). TAP.

Usage: test-help-ids.py SRCDIR"""
import os
import re
import sys
import xml.etree.ElementTree as ET

srcdir = sys.argv[1]
ui = os.path.join(srcdir, "ui", "qf-window.ui")
names = []
for page in ET.parse(ui).getroot().iter("object"):
    if page.get("class") != "GtkStackPage":
        continue
    for prop in page.findall("property"):
        if prop.get("name") == "name" and prop.text:
            names.append(prop.text.strip())

with open(os.path.join(srcdir, "help", "meson.build"), encoding="utf-8") as f:
    built = set(re.findall(r"'([a-z0-9-]+)\.page'", f.read()))

n = failed = 0


def ok(cond, name, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {name}")
    if not cond:
        failed += 1
        print(f"# {detail}")


ok(len(names) > 0, "the window has named steps", ui)
for name in names:
    ok(os.path.isfile(os.path.join(srcdir, "help", "C", name + ".page")),
       f"step “{name}” has the help page help/C/{name}.page",
       "add the page (and its translation) or rename the step")
    ok(name in built, f"help/C/{name}.page is built and installed", "list it in help/meson.build")
print(f"1..{n}")
sys.exit(1 if failed else 0)
