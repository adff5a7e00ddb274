#!/usr/bin/python3
# test-cli-token.py — `qualify-cli serve --token-file` and the clients' --token-file end to end on
# loopback (tests/cli): right token measures, wrong or missing token refused with a clear message
# (exit 2), token files readable by others refused, the token in no output, log or session file;
# clients beyond --max-clients told the responder is busy; idle connections that never prove
# themselves hold no slot and are closed within the 2 s deadline; a flood of connections writes
# a bounded log. Speaks TAP.

import json
import os
import struct
import shutil
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import SCALE, end_children, free_port, start  # noqa: E402
from netns import done as tap_plan, stop as end_process, tap as tap_line  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
TOKEN = "qf-token-" + os.urandom(12).hex()
DEADLINE_S = 2.0          # an unproven connection is closed after this (qf-admission.h)
PER_SOURCE = 16           # unproven connections one address may keep waiting

tap = partial(tap_line, keep=20)
outputs = []     # every stdout/stderr seen, to look for the token at the end


def cli(*args, timeout=60):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout)
    outputs.extend([p.stdout, p.stderr])
    return p.returncode, p.stdout, p.stderr


def serve(*args):
    lat, bw = free_port(), free_port()
    serve.bandwidth_port = bw
    p = start(None, CLI, "serve", "--bind", "127.0.0.1", "--latency-port", str(lat),
              "--bandwidth-port", str(bw), *args)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and p.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", lat), timeout=0.2):
                pass
            # that probe is a connection too: let the responder close it before the tests count
            time.sleep(0.1)
            return p, lat
        except OSError:
            time.sleep(0.05)
    return p, lat


def stop(p):
    """Ends a serve this test started, keeping its output for the token check at the end."""
    rc, out, err = end_process(p)
    outputs.extend([out, err])
    return p.returncode, out, err


def one_line(err):
    return len(err.strip().splitlines()) == 1


def ping_message(seq=1, length=14):
    """A sockperf ping-pong request (client and pong-request flags)."""
    return struct.pack(">QHI", seq, 0x0001 | 0x0002, length).ljust(14, b"\0")


def closed_by(sock, deadline):
    """Whether the server closes sock (EOF or reset, after whatever it sent) by deadline; looks
    once even past the deadline, so one late socket does not fail the ones after it."""
    sock.setblocking(False)
    while True:
        r, _, _ = select.select([sock], [], [], 0.05)
        try:
            if r and sock.recv(256) == b"":
                return True
        except BlockingIOError:
            pass
        except ConnectionResetError:
            return True
        if time.monotonic() >= deadline:
            return False


def hammer(port, stop_flag, opened):
    """Opens idle connections from another loopback address (127.0.0.2) until told to stop, as
    an attacker re-opening them would, keeping the newest 40 open; bounded."""
    held = []
    while not stop_flag.is_set() and opened[0] < 5000:
        try:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=1,
                                                 source_address=("127.0.0.2", 0)))
            opened[0] += 1
        except OSError:
            time.sleep(0.01)
        while len(held) > 40:
            held.pop(0).close()
    for h in held:
        h.close()


def idle_hold_nothing(label, port, client_args):
    """More idle connections than --max-clients and than one source may keep waiting, and more
    opened all the time from another address: the client (client_args) succeeds promptly, and
    every idle connection is closed within the deadline."""
    t0 = time.monotonic()
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(PER_SOURCE + 8)]
    stop_flag, opened = threading.Event(), [0]
    thread = threading.Thread(target=hammer, args=(port, stop_flag, opened))
    try:
        time.sleep(0.2)
        thread.start()
        t1 = time.monotonic()
        rc, out, err = cli(*client_args, timeout=60)
        took = time.monotonic() - t1
        stop_flag.set()
        thread.join()
        tap(rc == 0 and took < 5 * SCALE and opened[0] > 0,
            f"{label}: served in {took:.1f} s with {len(idle)} idle connections open and "
            f"{opened[0]} more opened meanwhile", err)
        closed = sum(closed_by(s, t0 + DEADLINE_S + 2 * SCALE) for s in idle)
        tap(closed == len(idle),
            f"{label}: the server closed {closed} of {len(idle)} idle connections within "
            f"{DEADLINE_S:.0f} s", f"{closed} closed")
    finally:
        stop_flag.set()
        if thread.is_alive():
            thread.join()
        for s in idle:
            s.close()


def flood(port, payload, n=200):
    """n connections, each sending payload and its end, waited for until the server closes it."""
    for _ in range(n):
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
            closed_by(s, time.monotonic() + 3 * SCALE)


def acl_token_cases(tmp, port):
    """A token given as systemd 254 and later give a service its credentials (issue 30: the
    helper unit failed on Ubuntu 24.04): owned by root, mode 0440, an ACL granting the service's
    user alone. Read as that user it is private; an ACL that also lets the group or another user
    read it is not. Root and setfacl needed."""
    if os.geteuid() != 0 or not shutil.which("setfacl"):
        for _ in range(3):
            print("ok - # SKIP needs root and setfacl (package acl)")
        return
    os.chmod(tmp, 0o755)
    cred = os.path.join(tmp, "credential")
    with open(cred, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(cred, 0o400)
    subprocess.run(["setfacl", "-m", "u:65534:r", cred], check=True)
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", CLI, "latency",
                 "127.0.0.1", "-p", str(port), "-t", "0.3", "--token-file", cred]
    p = subprocess.run(as_nobody, capture_output=True, text=True, timeout=60)
    tap(p.returncode == 0 and oct(os.stat(cred).st_mode & 0o777) == "0o440",
        "a root-owned 0440 token whose ACL lets only this user read it is accepted (systemd's "
        "credentials)", p.stderr)
    subprocess.run(["setfacl", "-m", "g::r", cred], check=True)
    p = subprocess.run(as_nobody, capture_output=True, text=True, timeout=60)
    tap(p.returncode == 2 and "chmod 600" in p.stderr,
        "… but not when its ACL also lets the group read it", p.stderr)
    subprocess.run(["setfacl", "-b", cred], check=True)
    subprocess.run(["setfacl", "-m", "u:1:r", cred], check=True)
    rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), "-t", "0.3", "--token-file", cred)
    tap(rc == 2 and "chmod 600" in err, "… nor when it lets another user read it", err)


def main():
    tmp = tempfile.mkdtemp(prefix="qf-cli-token-")
    try:
        good = os.path.join(tmp, "token")
        wrong = os.path.join(tmp, "wrong")
        public = os.path.join(tmp, "public")
        for path, text, mode in ((good, TOKEN + "\n", 0o600), (wrong, TOKEN + "-not\n", 0o600),
                                 (public, TOKEN + "\n", 0o644)):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, mode)

        # A token file the group or others can read: serve refuses to start, saying the fix.
        rc, out, err = cli("serve", "--bind", "127.0.0.1", "--latency-port", str(free_port()),
                           "--bandwidth-port", str(free_port()), "--token-file", public,
                           timeout=20)
        tap(rc == 2 and "chmod 600" in err and public in err and one_line(err),
            "serve refuses a token file others can read (exit 2, names the fix)", err)

        p, port = serve("--token-file", good)
        tap(p.poll() is None, "serve --token-file starts")

        for proto in ("--tcp", "--udp"):
            rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), proto, "-t", "0.3",
                               "--token-file", good, "--json")
            ok = rc == 0
            try:
                ok = ok and json.loads(out)["samples"] >= 0
            except (ValueError, KeyError):
                ok = False
            tap(ok, f"latency {proto} with the right token measures", err)

            rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), proto, "-t", "0.3",
                               "--token-file", wrong)
            tap(rc == 2 and "refused the access token" in err,
                f"latency {proto} with a wrong token: exit 2, refused with the reason", err)

            rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), proto, "-t", "0.3")
            tap(rc == 2 and "requires an access token" in err and "--token-file" in err,
                f"latency {proto} without a token: exit 2, says a token is needed", err)
            time.sleep(1.1)   # UDP rejections are logged once a second at most

        rc, out, err = cli("cycle", "127.0.0.1", "-p", str(port), "-t", "0.3", "--token-file", good)
        tap(rc == 0, "cycle with the right token measures", err)
        rc, out, err = cli("cycle", "127.0.0.1", "-p", str(port), "-t", "0.3", "--token-file", wrong)
        tap(rc == 2 and "refused the access token" in err, "cycle with a wrong token: exit 2", err)

        # The bandwidth port (iperf3's control protocol) asks for the token too.
        bw = str(serve.bandwidth_port)
        rc, out, err = cli("bandwidth", "127.0.0.1", "-p", bw, "-t", "0.5", "--token-file", good,
                           "--json")
        tap(rc == 0, "bandwidth with the right token measures", err)
        rc, out, err = cli("bandwidth", "127.0.0.1", "-p", bw, "-t", "0.5", "--token-file", wrong)
        tap(rc == 2 and "refused the access token" in err,
            "bandwidth with a wrong token: exit 2, refused with the reason", err)
        rc, out, err = cli("bandwidth", "127.0.0.1", "-p", bw, "-t", "0.5")
        tap(rc == 2 and "requires an access token" in err,
            "bandwidth without a token: exit 2, says a token is needed", err)
        if shutil.which("iperf3"):
            i = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p", bw, "-t", "1"],
                               capture_output=True, text=True, timeout=30)
            tap(i.returncode != 0 and "test authorization failed" in i.stdout + i.stderr,
                "stock iperf3 is refused with its own 'test authorization failed'",
                i.stdout + i.stderr)
        else:
            print("ok - # SKIP iperf3 not installed")

        rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), "-t", "0.3",
                           "--token-file", public)
        tap(rc == 2 and "chmod 600" in err and one_line(err),
            "latency refuses a client token file others can read", err)
        acl_token_cases(tmp, port)

        if shutil.which("sockperf"):
            s = subprocess.run(["sockperf", "pp", "-i", "127.0.0.1", "-p", str(port), "--tcp",
                                "-t", "1"], capture_output=True, text=True, timeout=30)
            tap("ERROR" in s.stdout + s.stderr, "stock sockperf pp is refused (it cannot prove a token)",
                s.stdout + s.stderr)
        else:
            print("ok - # SKIP sockperf not installed")

        rc, out, err = stop(p)
        tap(rc == 0 and "refused: wrong access token" in out and "refused: no access token" in out,
            "serve logs each refusal", out + err)

        # --allow-classic: clients without a token are served (stock sockperf), a wrong token is not.
        p, port = serve("--token-file", good, "--allow-classic")
        rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), "-t", "0.3")
        tap(rc == 0, "--allow-classic serves a client without a token", err)
        rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), "-t", "0.3", "--token-file", wrong)
        tap(rc == 2, "--allow-classic still refuses a wrong token", err)
        if shutil.which("iperf3"):
            i = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p", str(serve.bandwidth_port),
                                "-t", "1"], capture_output=True, text=True, timeout=30)
            tap(i.returncode == 0, "--allow-classic serves stock iperf3", i.stdout + i.stderr)
        stop(p)

        # Beyond --max-clients: a clear refusal, not a reset. The holder holds its slot from its
        # first request on (a connection that asks nothing holds none, below).
        p, port = serve("--max-clients", "1")
        holder = socket.create_connection(("127.0.0.1", port))
        holder.sendall(ping_message())
        holder.settimeout(5)
        holder.recv(14)
        t0 = time.monotonic()
        rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), "-t", "0.3")
        took = time.monotonic() - t0
        tap(rc == 2 and "busy: 1 client at most (serve --max-clients)" in err and "try again" in err
            and "reset" not in err and took < 10,
            f"a client beyond --max-clients is told the responder is busy ({took:.1f} s)", err)
        holder.close()
        time.sleep(0.3)
        rc, out, err = cli("latency", "127.0.0.1", "-p", str(port), "-t", "0.3")
        tap(rc == 0, "once the slot is free the next client is served", err)
        stop(p)

        # Idle connections hold no slot, with a token and without.
        for args in (("--token-file", good), ()):
            label = "with a token" if args else "without a token"
            p, port = serve("--max-clients", "4", *args)
            bw = str(serve.bandwidth_port)
            idle_hold_nothing(f"latency {label}", port,
                              ("latency", "127.0.0.1", "-p", str(port), "-t", "0.3", *args))
            idle_hold_nothing(f"bandwidth {label}", serve.bandwidth_port,
                              ("bandwidth", "127.0.0.1", "-p", bw, "-t", "0.5", *args))
            stop(p)

        # A flood of connections that each earn a log line writes a bounded log (20 lines at
        # once, then one a second, and a line saying how many were left out).
        p, port = serve()
        flood(port, struct.pack(">QHI", 1, 0x0003, 5))        # announces 5 bytes: dropped
        flood(serve.bandwidth_port, b"abcde")                   # breaks off inside the cookie
        rc, out, err = stop(p)
        lines = out.strip().splitlines()
        per_conn = [l for l in lines if "announces" in l or "refused or ended early" in l]
        tap(rc == 0 and len(per_conn) <= 2 * 25 and out.count("left out of the log") == 2,
            f"400 connections that each earn a log line write {len(lines)} lines", out[-3000:])

        # run --token-file: the path goes into the session, the token nowhere.
        sess = os.path.join(tmp, "session")
        rc, out, err = cli("run", "--profile", "arcs-wired-quick", "--peer", "builtin", "--only",
                           "latency,bandwidth", "--token-file", good, "--out", sess, "--no-sign",
                           "--json", timeout=120)
        try:
            with open(os.path.join(sess, "session.json")) as f:
                session = json.load(f)
            net = [s for s in session["steps"] if s["test"] in ("latency", "bandwidth")]
            done = {s["test"] for s in net if s["status"] == "done"}
            ok = (rc in (0, 1) and done == {"latency", "bandwidth"}
                  and all(s["params"].get("token_file") == good for s in net))
        except (OSError, ValueError, KeyError, IndexError) as e:
            ok, err = False, f"{err}\n{e}"
        tap(ok, "run --token-file measures and keeps only the token file's path in the session", err)

        # The token in no output, log, session or report.
        found = [i for i, text in enumerate(outputs) if TOKEN in (text or "")]
        for root, _, files in os.walk(sess):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    if TOKEN.encode() in f.read():
                        found.append(name)
        tap(not found, "the token appears in no output, log, session or report", found)
    finally:
        end_children()
        shutil.rmtree(tmp, ignore_errors=True)
    return tap_plan()


if __name__ == "__main__":
    sys.exit(main())
