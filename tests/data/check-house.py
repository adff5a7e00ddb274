#!/usr/bin/env python3
"""check-house.py SRC_DIR — the house rules of docs/architecture.md, checked on the code (TAP).

1. No two files in src/ call each other, directly or round a longer circle: an arrow A -> B
   is drawn when A.c names a function or variable that B.c defines and exports (or a macro of
   B's header that stands for one, such as an error domain); every circle is printed.
2. No function in src/core, src/ui or src/cli is longer than 120 lines; in src/engine only a
   measuring loop may be, and says so in a comment just above it (the words "measuring loop"
   or "measured path").
3. No file outside a test's own step file (src/core/steps/qf-step-<id>.c) compares a test id
   with a string literal: what a test is lives in its QfStepInfo (src/core/steps/qf-step.h).
4. Translations go through the format guard (src/engine/qf-i18n.h): no file but qf-i18n.c calls
   gettext, dgettext, ngettext or GLib's g_d*gettext, and none includes <glib/gi18n.h> itself.

Needs Universal Ctags (`ctags --output-format=json`).
"""
import collections
import json
import os
import re
import subprocess
import sys

MAX_LINES = 120
TEST_IDS = ("rt", "stress", "monitor", "ping", "latency", "cycle", "bandwidth")

src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "src")
top = os.path.dirname(src)
n = 0
failed = 0


def tap(ok, what, details=()):
    global n, failed
    n += 1
    failed += not ok
    print(("ok" if ok else "not ok") + f" {n} - {what}")
    for line in details:
        print("# " + line)


def rel(path):
    return os.path.relpath(path, top)


def tags():
    out = subprocess.run(["ctags", "-R", "--languages=C", "--kinds-C=+p-m", "--fields=+neSZf", "--sort=no",
                          "--output-format=json", "-f", "-", src],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def sources():
    for root, _, files in os.walk(src):
        for f in files:
            if f.endswith((".c", ".h")):
                yield os.path.join(root, f)


def strip_comments_and_strings(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


all_tags = tags()

# 1. circles between files
defined_in = {}            # exported name -> the .c file defining it
for t in all_tags:
    if t.get("kind") in ("function", "variable") and t["path"].endswith(".c") \
            and not t.get("file") and not re.fullmatch(r"[A-Z0-9_]+|main", t["name"]):
        defined_in.setdefault(t["name"], t["path"])
macro_to = {}              # header macro -> exported names its body uses
for path in sources():
    if not path.endswith(".h"):
        continue
    for m in re.finditer(r"^#\s*define\s+(\w+)[^\n]*?\s(\w+)\s*\(", open(path, encoding="utf-8").read(), re.M):
        macro_to.setdefault(m.group(1), set()).add(m.group(2))
arrows = collections.defaultdict(set)
for path in sources():
    if not path.endswith(".c"):
        continue
    words = set(re.findall(r"\b\w+\b", strip_comments_and_strings(open(path, encoding="utf-8").read())))
    for w in words:
        for name in {w} | macro_to.get(w, set()):
            target = defined_in.get(name)
            if target is not None and target != path:
                arrows[path].add(target)

index, low, on_stack, stack, circles = {}, {}, set(), [], []


def strongconnect(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on_stack.add(v)
    for w in arrows.get(v, ()):
        if w not in index:
            strongconnect(w)
            low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        group = []
        while True:
            w = stack.pop()
            on_stack.discard(w)
            group.append(w)
            if w == v:
                break
        if len(group) > 1:
            circles.append(sorted(group))


sys.setrecursionlimit(10000)
for v in list(arrows):
    if v not in index:
        strongconnect(v)
tap(not circles, "no files in src/ that call each other in a circle",
    ["circle: " + " <-> ".join(rel(p) for p in c) for c in circles])

# 2. function length
long_functions = []
for t in all_tags:
    if t.get("kind") != "function" or "end" not in t or re.fullmatch(r"[A-Z0-9_]+", t["name"]):
        continue
    length = t["end"] - t["line"] + 1
    if length <= MAX_LINES:
        continue
    path = rel(t["path"])
    if path.startswith("src/engine/"):
        lines = open(t["path"], encoding="utf-8").read().splitlines()
        above = "\n".join(lines[max(0, t["line"] - 13):t["line"] - 1]).lower()
        if re.search(r"measur(ing|ed)\s+(\*\s+)?(loop|path)", above):
            continue
    long_functions.append(f"{path}:{t['line']} {t['name']} is {length} lines")
tap(not long_functions,
    f"no function over {MAX_LINES} lines (in src/engine: only a measuring loop that says so)",
    long_functions)

# 3. test ids compared with string literals
compare = re.compile(r"\b(g_str_equal|g_strcmp0|strcmp|strncmp|g_str_has_prefix)\s*\(([^;{}]*?)\"(%s)\""
                     % "|".join(TEST_IDS))
hits = []
for path in sources():
    name = os.path.basename(path)
    m = re.match(r"qf-step-(\w+)\.c$", name)
    if m and m.group(1) in TEST_IDS:
        continue
    text = re.sub(r"/\*.*?\*/", lambda x: "\n" * x.group(0).count("\n"), open(path, encoding="utf-8").read(), flags=re.S)
    for i, line in enumerate(text.splitlines(), 1):
        if compare.search(line):
            hits.append(f"{rel(path)}:{i}: {line.strip()}")
tap(not hits, "no test id compared with a string literal outside its step file", hits)

# 4. translations only through the guard
direct = re.compile(r"(?<![\w])(d?c?n?gettext|g_d[cnp]?gettext\d?)\s*\(|#\s*include\s*<glib/gi18n(-lib)?\.h>")
hits = []
for path in sources():
    if os.path.basename(path) in ("qf-i18n.c", "qf-i18n.h"):
        continue
    text = strip_comments_and_strings(open(path, encoding="utf-8").read())
    for i, line in enumerate(text.splitlines(), 1):
        if direct.search(line):
            hits.append(f"{rel(path)}:{i}: {line.strip()}")
tap(not hits, "translations only through _() and qf_ngettext (qf-i18n.h), never gettext directly", hits)

print(f"1..{n}")
sys.exit(1 if failed else 0)
