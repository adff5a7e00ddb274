#!/usr/bin/python3
# test-cli-pairing.py — `qualify-cli serve --pairing-code` and the clients' --pairing-code on
# loopback (tests/cli): the code printed alone on its line, grouped; a client without it or with
# a wrong one refused (exit 2), one typed in lower case with spaces served; --pairing-code with
# --token-file or --builtin refused; `run --pairing-code` writes the code into no session file
# or report, and its --resume asks for it again; `--pairing-code -` reads the code from a pipe,
# or from a terminal with echo off. Speaks TAP.

import os
import random
import re
import select
import socket
import subprocess
import sys
import tempfile
import termios
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import done, free_port, start, stop  # noqa: E402
from netns import tap as tap_line  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
CODE_RE = re.compile(r"^[2-9A-HJKMNP-Z]{4}(-[2-9A-HJKMNP-Z]{4}){3}$")
tap = partial(tap_line, keep=20)
PORT_SPAN = (20000, 30000)   # where free_port() draws the responder's ports


def cli(*args, timeout=120, stdin_text=None):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout,
                       input=stdin_text)
    return p.returncode, p.stdout, p.stderr


def typed_on_terminal(lat, code):
    """`latency --pairing-code -` on a terminal (a pty): it turns echo off before reading, so
    the code typed never comes back on the screen. (rc, what the terminal showed, stderr)."""
    master, slave = os.openpty()
    p = subprocess.Popen([CLI, "latency", "127.0.0.1", "-p", str(lat), "-t", "0.3",
                          "--pairing-code", "-"], stdin=slave, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    os.close(slave)
    shown = b""
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and termios.tcgetattr(master)[3] & termios.ECHO:
            time.sleep(0.02)
        echo_off = not termios.tcgetattr(master)[3] & termios.ECHO
        os.write(master, (code + "\n").encode())
        out, err = p.communicate(timeout=60)
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        os.close(master)
    return (p.returncode if echo_off else -1), shown.decode(errors="replace"), err


def main():
    lat, bw = free_port(PORT_SPAN), free_port(PORT_SPAN)
    p = start(None, CLI, "serve", "--pairing-code", "--bind", "127.0.0.1", "--latency-port",
              str(lat), "--bandwidth-port", str(bw))
    try:
        head = [p.stdout.readline() for _ in range(3)]
        code = head[1].strip()
        tap(CODE_RE.match(code) is not None and "PC under test" in head[2],
            "serve --pairing-code prints a grouped code alone on its line", "".join(head))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", lat), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        time.sleep(0.1)

        rc, out, err = cli("latency", "127.0.0.1", "-p", str(lat), "-t", "0.3")
        tap(rc == 2 and "requires an access token" in err, "a client without the code is refused",
            err)
        wrong = "".join(random.choice("23456789ABCDEFGHJKMNPQRSTUVWXYZ") for _ in range(16))
        rc, out, err = cli("latency", "127.0.0.1", "-p", str(lat), "-t", "0.3", "--pairing-code",
                           wrong)
        tap(rc == 2 and "does not match" in err, "a client with a wrong code is refused", err)
        typed = " ".join(code.replace("-", "").lower()[i:i + 2] for i in range(0, 16, 2))
        rc, out, err = cli("latency", "127.0.0.1", "-p", str(lat), "-t", "0.3", "--pairing-code",
                           typed, "--json")
        tap(rc == 0 and '"samples"' in out, "the code typed in lower case with spaces is served",
            err)
        rc, out, err = cli("bandwidth", "-c", "127.0.0.1", "-p", str(bw), "-t", "0.5",
                           "--pairing-code", code, "--json")
        tap(rc == 0, "bandwidth proves the code too", err)
        # "-": the code from standard input, out of the process list (a pipe: one line)
        rc, out, err = cli("cycle", "127.0.0.1", "-p", str(lat), "-t", "0.3", "--pairing-code",
                           "-", "--json", stdin_text=code + "\nnot read\n")
        tap(rc == 0 and code not in out + err, "--pairing-code - reads the code from stdin", err)
        rc, out, err = cli("latency", "127.0.0.1", "-p", str(lat), "-t", "0.3", "--pairing-code",
                           "-", stdin_text="")
        tap(rc == 2 and "no code on standard input" in err,
            "--pairing-code - with nothing on stdin says so", err)
        rc, shown, err = typed_on_terminal(lat, code)
        tap(rc == 0 and code not in shown and "not shown" in err,
            "--pairing-code - on a terminal asks with echo off; the code typed is not shown",
            f"rc={rc} shown={shown!r}\n{err}")
        rc, out, err = cli("cycle", "127.0.0.1", "-p", str(lat), "-t", "0.3", "--pairing-code",
                           "7KQM-2XHR-9PTA-4WN0")
        tap(rc == 2 and "no 0, O, 1, I or L" in err, "a look-alike character is refused, named",
            err)
    finally:
        stop(p)

    rc, out, err = cli("serve", "--pairing-code", "--builtin")
    tap(rc == 2 and "--pairing-code" in err, "serve refuses --pairing-code with --builtin", err)
    with tempfile.TemporaryDirectory() as tmp:
        token = os.path.join(tmp, "t")
        with open(token, "w") as f:
            f.write("x" * 32)
        os.chmod(token, 0o600)
        rc, out, err = cli("serve", "--pairing-code", "--token-file", token)
        tap(rc == 2 and "not both" in err, "serve refuses --pairing-code with --token-file", err)
        rc, out, err = cli("latency", "127.0.0.1", "--pairing-code", code, "--token-file", token)
        tap(rc == 2 and "not both" in err, "a client refuses --pairing-code with --token-file",
            err)

        # A run with the code: nothing it writes holds it, in either spelling.
        sess = os.path.join(tmp, "sess")
        rc, out, err = cli("run", "--profile", "arcs-wired-quick", "--peer", "builtin", "--only",
                           "latency", "--pairing-code", code, "--out", sess, "--no-sign", "--json")
        leaks = []
        for root, _dirs, files in os.walk(sess):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
                for spelling in (code, code.replace("-", "")):
                    if spelling.encode() in data:
                        leaks.append(name)
        written = os.path.exists(os.path.join(sess, "session.json"))
        reports = [n for n in os.listdir(sess) if n.endswith((".html", ".pdf"))] if written else []
        tap(rc in (0, 1) and written and reports and not leaks
            and code not in out and code not in err,
            "run --pairing-code writes the code into no session file or report",
            f"rc={rc} reports={reports} leaks={leaks}\n{err}")
        with open(os.path.join(sess, "session.json")) as f:
            marked = '"pairing_code" : true' in f.read().replace('":true', '" : true')
        tap(marked, "the session notes that a pairing code was used")


def resume_check():
    # a session marked as reached with a code, interrupted: resume without the code is refused
    with tempfile.TemporaryDirectory() as tmp:
        sess = os.path.join(tmp, "sess")
        rc, out, err = cli("run", "--profile", "arcs-wired-quick", "--peer", "builtin", "--only",
                           "ping", "--pairing-code", "7KQM-2XHR-9PTA-4WNE", "--out", sess,
                           "--no-sign", "--json")
        path = os.path.join(sess, "session.json")
        text = open(path).read() if os.path.exists(path) else ""
        # make it resumable: the state back to running with a pending step
        text = re.sub(r'"state"\s*:\s*"complete"', '"state" : "running"', text, count=1)
        text = re.sub(r'"status"\s*:\s*"(passed|failed|warning|not-run|skipped)"',
                      '"status" : "pending"', text, count=1)
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = cli("run", "--resume", sess, "--no-sign")
        tap(rc == 2 and "--pairing-code" in err, "--resume without the code asks for it", err)
        # the code belonged to a remote helper; resumed against the built-in peer none is needed
        text = re.sub(r'"peer"\s*:\s*\{[^}]*\}',
                      '"peer" : {"address" : "192.0.2.7", "kind" : "remote", "pairing_code" : true}',
                      text, count=1)
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = cli("run", "--resume", sess, "--peer", "builtin", "--no-sign")
        tap(rc in (0, 1) and "--pairing-code" not in err,
            "--resume --peer builtin of a session reached with a code asks for none", f"rc={rc}\n{err}")


main()
resume_check()
sys.exit(done())
