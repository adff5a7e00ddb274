#!/usr/bin/python3
"""test-flatpak-manifest.py — flatpak/io.github.qualify.Qualify.json parses in flatpak-builder
without any WARNING (an unknown key only warns there), and its sandbox permissions are exactly
the ones docs/flatpak.md justifies: network, Wayland with X11 fallback (plus the IPC namespace
X11 needs), and system-bus talk to NetworkManager and rtkit — nothing broader (tests/data). TAP.
No GNOME runtime can be downloaded on the CI machines, so the real build is not run here."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

EXPECTED_FINISH_ARGS = {
    "--share=network",
    "--socket=wayland",
    "--socket=fallback-x11",
    "--share=ipc",
    "--system-talk-name=org.freedesktop.NetworkManager",
    "--system-talk-name=org.freedesktop.RealtimeKit1",
}

manifest = sys.argv[1]
n = 0
failed = 0


def ok(cond, name, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {name}")
    if not cond:
        failed += 1
        for line in str(detail).splitlines():
            print(f"# {line}")


with open(manifest, encoding="utf-8") as f:
    data = json.load(f)

ok(data.get("id") == "io.github.qualify.Qualify", "application id")
ok(data.get("runtime") == "org.gnome.Platform" and data.get("sdk") == "org.gnome.Sdk",
   "GNOME runtime and SDK")
args = data.get("finish-args", [])
ok(set(args) == EXPECTED_FINISH_ARGS and len(args) == len(EXPECTED_FINISH_ARGS),
   "finish-args are exactly network, wayland/x11, NetworkManager and rtkit",
   f"extra: {sorted(set(args) - EXPECTED_FINISH_ARGS)} missing: "
   f"{sorted(EXPECTED_FINISH_ARGS - set(args))}")
broad = [a for a in args if a in ("--socket=system-bus", "--socket=session-bus")
         or a.startswith("--filesystem") or a.startswith("--device")]
ok(not broad, "no whole-bus, file system or device access", broad)
modules = [m.get("name") for m in data.get("modules", []) if isinstance(m, dict)]
ok("libnm" in modules, "libnm is built as a module (the GNOME runtime lacks it)", modules)
ok(modules and modules[-1] == "qualify", "the app is the last module", modules)
app = data["modules"][-1] if data.get("modules") else {}
ok(app.get("buildsystem") == "meson"
   and any(s.get("type") == "dir" and s.get("path") == ".." for s in app.get("sources", [])),
   "the app is built with meson from the local tree")

builder = shutil.which("flatpak-builder")
if builder is None:
    print(f"ok {n + 1} - flatpak-builder --show-manifest # SKIP flatpak-builder is not installed")
    n += 1
else:
    # flatpak-builder leaves a .flatpak-builder state folder in its working directory.
    with tempfile.TemporaryDirectory(prefix="qf-flatpak-") as work:
        r = subprocess.run([builder, "--show-manifest", os.path.abspath(manifest)], cwd=work,
                           capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    ok(r.returncode == 0, "flatpak-builder --show-manifest accepts it", out[-2000:])
    warnings = [line for line in out.splitlines() if "WARNING" in line]
    ok(not warnings, "flatpak-builder prints no WARNING", "\n".join(warnings))
    try:
        shown = json.loads(r.stdout)
    except ValueError as e:
        shown = None
        ok(False, "the shown manifest is JSON", e)
    if shown is not None:
        ok(shown.get("finish-args") == args, "flatpak-builder reads the same finish-args")

print(f"1..{n}")
sys.exit(1 if failed else 0)
