#!/usr/bin/python3
"""test-icons.py — every icon the wizard names (icon-name properties in ui/*.ui, "…-symbolic"
strings in src/ui/*.c) exists in the Adwaita theme the app runs with, among the icons GTK itself
carries (its resources: caps-lock-symbolic, which the password row shows, is only there), or in
data/icons, so no page shows a missing-image placeholder (tests/data). TAP.

Usage: test-icons.py SRCDIR"""
import glob
import os
import re
import subprocess
import sys

srcdir = sys.argv[1]
themes = ["/usr/share/icons/Adwaita", "/usr/share/icons/hicolor",
          os.path.join(srcdir, "data", "icons", "hicolor")]
names = set()
for path in glob.glob(os.path.join(srcdir, "ui", "*.ui")):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    names.update(re.findall(r'name="icon[-_]name"[^>]*>([^<]+)<', text))
for path in glob.glob(os.path.join(srcdir, "src", "ui", "*.c")):
    with open(path, encoding="utf-8") as f:
        names.update(re.findall(r'"([a-z0-9.-]+-symbolic)"', f.read()))

available = set()
for theme in themes:
    for _root, _dirs, files in os.walk(theme):
        for f in files:
            available.add(os.path.splitext(f)[0])

# GTK's own icons, in the resources of the library the app links
try:
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "gtk4"], capture_output=True,
                            text=True, check=True).stdout.strip()
    listed = subprocess.run(["gresource", "list", os.path.join(libdir, "libgtk-4.so.1")],
                            capture_output=True, text=True, check=True).stdout
    for line in listed.splitlines():
        if line.startswith("/org/gtk/libgtk/icons/"):
            available.add(os.path.basename(line).split(".")[0])
except (OSError, subprocess.CalledProcessError):
    pass

n = 0
failed = 0
if not os.path.isdir(themes[0]):
    print("1..0 # SKIP the Adwaita icon theme is not installed")
    sys.exit(0)
for name in sorted(names):
    n += 1
    if name in available:
        print(f"ok {n} - icon {name} exists")
    else:
        failed += 1
        print(f"not ok {n} - icon {name} exists")
        print("# neither Adwaita nor data/icons has it: use an Adwaita name or add it to "
              "data/icons/hicolor/symbolic/apps")
n += 1
print(f"{'ok' if names else 'not ok'} {n} - the wizard names its icons")
failed += 0 if names else 1
print(f"1..{n}")
sys.exit(1 if failed else 0)
