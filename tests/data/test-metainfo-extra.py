#!/usr/bin/python3
"""test-metainfo-extra.py — what appstreamcli cannot know: every screenshot in the metainfo is
a file in docs/screenshots with the stated size, the newest release is this project's version,
and the desktop file's icon exists in the scalable and symbolic sizes, the symbolic one made
of filled shapes as GTK's recolouring needs (tests/data). TAP.

Usage: test-metainfo-extra.py METAINFO DESKTOP SRCDIR VERSION"""
import os
import struct
import sys
import xml.etree.ElementTree as ET

metainfo, desktop, srcdir, version = sys.argv[1:5]
n = failed = 0


def ok(cond, name, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {name}")
    if not cond:
        failed += 1
        print(f"# {detail}")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


root = ET.parse(metainfo).getroot()
images = root.findall("./screenshots/screenshot/image")
ok(len(images) >= 1, "the metainfo has screenshots")
for img in images:
    name = os.path.basename(img.text.strip())
    path = os.path.join(srcdir, "docs", "screenshots", name)
    if not ok(os.path.isfile(path), f"screenshot {name} is in docs/screenshots", path):
        continue
    size = png_size(path)
    want = (int(img.get("width", 0)), int(img.get("height", 0)))
    ok(size == want, f"screenshot {name} is {want[0]}x{want[1]} as stated", f"file is {size}")

releases = root.findall("./releases/release")
ok(releases and releases[0].get("version") == version,
   f"the newest release is {version}", [r.get("version") for r in releases])
ok(root.find("content_rating") is not None, "has a content rating")
ok(root.find("./requires/display_length") is not None, "requires a display size")
ok(root.find("./supports/control") is not None, "says which input it supports")

icon = None
with open(desktop, encoding="utf-8") as f:
    for line in f:
        if line.startswith("Icon="):
            icon = line.strip().split("=", 1)[1]
ok(icon == root.findtext("id"), "the desktop file's icon is named after the app id", icon)
for kind, suffix in (("scalable", ""), ("symbolic", "-symbolic")):
    path = os.path.join(srcdir, "data", "icons", "hicolor", kind, "apps", f"{icon}{suffix}.svg")
    exists = os.path.isfile(path)
    ok(exists, f"{kind} icon exists", path)
    if exists:
        svg = ET.parse(path).getroot()
        ok(svg.tag.endswith("svg"), f"{kind} icon is an SVG document")
        if kind == "symbolic":
            w, h = svg.get("width", ""), svg.get("height", "")
            box = svg.get("viewBox", "")
            ok(w.rstrip("px") == "16" and h.rstrip("px") == "16" or box.endswith("16 16"),
               "symbolic icon is drawn on a 16x16 canvas", f"{w}x{h} {box}")
            # GTK recolours symbolic icons by forcing the fill of every shape: a stroke keeps
            # its colour (invisible in dark styles) and the inside of a stroked line fills.
            stroked = [el.tag.split("}")[-1] for el in svg.iter()
                       if el.get("stroke", "none") != "none" or "stroke:" in el.get("style", "")]
            ok(not stroked, "symbolic icon uses filled shapes only, no strokes", stroked)
print(f"1..{n}")
sys.exit(1 if failed else 0)
