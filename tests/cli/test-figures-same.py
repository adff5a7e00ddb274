#!/usr/bin/python3
"""test-figures-same.py — the stored sessions give the same output before and after a change
that should only redraw two figures (issue #33: each step answers its own figures).

For each stored session (tests/core/fixtures/sessions, data/demo) this runs `qualify-cli run --replay
--json` and `qualify-cli report --no-sign --json` in English and Chinese, and compares with what
a build of main wrote before the change (figures-same/before/, recorded by this script:
  tests/cli/test-figures-same.py --record /path/to/a/build/of/main
):
  - the --json objects, byte for byte;
  - the HTML report, byte for byte outside its inline SVG figures and its embedded session (by
    digest); each figure by its digest, named by its title (the PDF's, in the same order);
  - the PDF's text (pdftotext -bbox), word for word outside its figures and the page's header
    and footer (a figure more moves the page breaks); the words of each figure by digest.
Only the figures of the stress test and of a bandwidth test with both directions (titled as
CHANGED says) may differ or come twice; every other figure must be the same."""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
BEFORE = os.path.join(HERE, "figures-same", "before")
# the stored sessions: the report tests' fixtures and the demo sessions the wizard ships
SESSIONS = {
    "pass": os.path.join(SRC, "tests", "core", "fixtures", "sessions", "pass.json"),
    "fail": os.path.join(SRC, "tests", "core", "fixtures", "sessions", "fail.json"),
    "quick-run": os.path.join(SRC, "tests", "core", "fixtures", "sessions", "quick-run.json"),
    "demo-pass": os.path.join(SRC, "data", "demo", "demo-pass.session.json"),
    "demo-fail": os.path.join(SRC, "data", "demo", "demo-fail.session.json"),
}
LANGS = ["en", "zh_CN"]
# The figure titles allowed to change, per session: quick-run and the demo sessions hold a stress
# test and a bandwidth test in both directions (their second bandwidth test, "Receive rate", and
# the one-way bandwidth tests of pass and fail stay the same).
TWO = {"Stress with monitoring", "Network bandwidth", "压力测试与监控", "网络带宽"}
CHANGED = {"quick-run": TWO, "demo-pass": TWO, "demo-fail": TWO}
FIGURE_H = 200.0   # src/core/report/qf-report-pdf.c
WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">(.*?)</word>')
# cairo numbers its SVG surfaces over the process, and the HTML writer prefixes each figure's
# ids with its place in the document ("f3-glyph0-1"): both left out of a figure's digest
FIGURE_ID = re.compile(r'(id="|href="#|url\(#)f[0-9]+-')
SURFACE_ID = re.compile(r'surface[0-9]+')
PAGE_H = re.compile(r'<page width="[\d.]+" height="([\d.]+)">')


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def table_headers(html):
    """The header rows of the HTML report's tables, as the PDF's text lines show them."""
    rows = re.findall(r"<tr>((?:\s*<th[^>]*>.*?</th>)+)\s*</tr>", html, flags=re.S)
    return {" ".join(re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<th[^>]*>(.*?)</th>", r, flags=re.S))
            for r in rows}


def pdf_lines(bbox_html, host, headers):
    """The PDF's text as lines (words of one height on a page, left to right), each figure folded
    into one line "[figure TITLE digest]" (the digest of its words sorted: pdftotext's order in a
    figure follows its place on the page), without the page's header and footer or a table's
    header row repeated at the top of a page. Returns (lines, figure titles in order)."""
    out, titles, seen = [], [], set()
    for page in bbox_html.split("<page ")[1:]:
        height = float(PAGE_H.search("<page " + page).group(1))
        lines = {}
        for x, y, _y2, w in WORD.findall(page):
            if 45 <= float(y) <= height - 40:
                lines.setdefault(round(float(y), 1), []).append((float(x), w))
        # a figure's title: a centred line ending in "— HOST"
        figures = [y for y, line in lines.items() if len(line) >= 3 and line[0][0] > 150
                   and [w for _, w in sorted(line)][-2:] == ["—", host]]
        folded = {}
        first = True
        for y in sorted(lines):
            text = " ".join(w for _, w in sorted(lines[y]))
            inside = [f for f in figures if f - 2 <= y <= f + FIGURE_H - 4]
            if inside:
                folded.setdefault(inside[0], []).extend(w for _, w in lines[y])
                if inside[0] == y:
                    out.append(inside[0])
                continue
            if first and text in seen and text in headers:
                continue    # a table's header repeated on a new page
            first = False
            seen.add(text)
            out.append(text)
        for i, e in enumerate(out):
            if isinstance(e, float):
                title = " ".join(w for _, w in sorted(lines[e])[:-2])
                titles.append(title)
                out[i] = "[figure %s %s]" % (title, digest(" ".join(sorted(folded[e]))))
    return out, titles


def html_folded(html, titles):
    """The HTML with each <figure> element folded into "[figure TITLE digest]", and the embedded
    session (the same bytes or not: its digest is enough) into "[session digest]"."""
    html = re.sub(r'(<script type="application/json" id="qf-session">)(.*?)(</script>)',
                  lambda m: "%s[session %s]%s" % (m.group(1), digest(m.group(2)), m.group(3)),
                  html, flags=re.S)
    parts = re.split(r"(<figure>.*?</figure>\n?)", html, flags=re.S)
    figures = [p for p in parts if p.startswith("<figure>")]
    if len(figures) != len(titles):
        raise AssertionError("HTML has %d figures, the PDF %d" % (len(figures), len(titles)))
    it = iter(titles)
    return "".join("[figure %s %s]\n" % (next(it), digest(SURFACE_ID.sub("surface", FIGURE_ID.sub(r"\1f-", p))))
                   if p.startswith("<figure>") else p for p in parts)


def outputs(cli, build_po, session, tmp):
    """{name: text} of everything compared for one session."""
    env = dict(os.environ, QUALIFY_DATADIR=os.path.join(SRC, "data"), QUALIFY_LOCALEDIR=build_po)
    path = SESSIONS[session]
    host = json.load(open(path))["pc"]["hostname"]
    res = {}
    r = subprocess.run([cli, "run", "--replay", path, "--speed", "10000", "--json"],
                       env=env, capture_output=True, text=True, timeout=120)
    res["%s.replay.json" % session] = r.stdout
    for lang in LANGS:
        html, pdf = os.path.join(tmp, "r.html"), os.path.join(tmp, "r.pdf")
        r = subprocess.run([cli, "report", path, "--no-sign", "--lang", lang, "--html", html,
                            "--pdf", pdf, "--json"], env=env, capture_output=True, text=True,
                           timeout=120, cwd=tmp)
        if r.returncode != 0:
            raise AssertionError("report %s %s failed: %s" % (session, lang, r.stderr))
        res["%s.%s.report.json" % (session, lang)] = r.stdout.replace(tmp + "/", "")
        bbox = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                              check=True).stdout
        page = open(html, encoding="utf-8").read()
        words, titles = pdf_lines(bbox, host, table_headers(page))
        res["%s.%s.pdf.txt" % (session, lang)] = "\n".join(words) + "\n"
        res["%s.%s.html" % (session, lang)] = html_folded(page, titles)
    return res


def changed_figure(line, session):
    return line.startswith("[figure ") and line[8:].rsplit(" ", 1)[0] in CHANGED.get(session, ())


def without_changed(text, session):
    return "\n".join(l for l in text.split("\n") if not changed_figure(l, session))


def main():
    record = len(sys.argv) == 3 and sys.argv[1] == "--record"
    build = sys.argv[2] if record else os.path.dirname(os.path.dirname(os.path.dirname(os.environ["QUALIFY_CLI"])))
    cli = os.path.join(build, "src", "cli", "qualify-cli")
    po = os.path.join(build, "po")
    if subprocess.run(["sh", "-c", "command -v pdftotext"], capture_output=True).returncode != 0:
        print("1..0 # SKIP pdftotext (poppler-utils) is not installed")
        return 0
    if not record:
        print("1..%d" % len(SESSIONS))
    for n, session in enumerate(sorted(SESSIONS), 1):
        with tempfile.TemporaryDirectory() as tmp:
            res = outputs(cli, po, session, tmp)
        if record:
            os.makedirs(BEFORE, exist_ok=True)
            for name, text in res.items():
                with open(os.path.join(BEFORE, name), "w", encoding="utf-8") as f:
                    f.write(text)
            continue
        bad = []
        changed_seen = 0
        for name, text in res.items():
            before = open(os.path.join(BEFORE, name), encoding="utf-8").read()
            changed_seen += sum(1 for l in text.split("\n") if changed_figure(l, session))
            if without_changed(text, session) != without_changed(before, session):
                with open(os.path.join(tempfile.gettempdir(), "figures-same-" + name), "w") as f:
                    f.write(text)
                bad.append(name)
        if bad:
            print("not ok %d - %s: differs from main's output outside the stress and bandwidth "
                  "figures: %s (the new output in %s/figures-same-*)"
                  % (n, session, ", ".join(bad), tempfile.gettempdir()))
        else:
            print("ok %d - %s: same as main's output but for %d figure(s) allowed to change"
                  % (n, session, changed_seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
