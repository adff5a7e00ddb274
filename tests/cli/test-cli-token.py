#!/usr/bin/python3
# test-cli-token.py — `qualify-cli serve --token-file` and the clients' --token-file end to end on
# loopback (tests/cli, issue 11): right token measures, wrong or missing token refused with a
# clear message (exit 2), token files readable by others refused, the token in no output, log or
# session file; clients beyond --max-clients told the responder is busy. Speaks TAP.

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
TOKEN = "qf-token-" + os.urandom(12).hex()

results = []
children = []
outputs = []     # every stdout/stderr seen, to look for the token at the end


def tap(ok, name, diag=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    if not ok and diag:
        for line in str(diag).splitlines()[-20:]:
            print(f"# {line}")
    sys.stdout.flush()


def cli(*args, timeout=60):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout)
    outputs.extend([p.stdout, p.stderr])
    return p.returncode, p.stdout, p.stderr


def free_port():
    """A port free for both TCP and UDP on loopback (the responder binds both), drawn at random
    below the kernel's ephemeral range: a port the kernel hands out could become another test's
    outgoing connection before the responder binds it (a rare "connection refused" under ASan)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
            try:
                t.bind(("127.0.0.1", random.randrange(low - 10000, low) if low > 11024 else 0))
            except OSError:
                continue
            port = t.getsockname()[1]
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                    u.bind(("127.0.0.1", port))
                    return port
            except OSError:
                continue
    raise RuntimeError("no free port")


def serve(*args):
    lat, bw = free_port(), free_port()
    serve.bandwidth_port = bw
    p = subprocess.Popen([CLI, "serve", "--bind", "127.0.0.1", "--latency-port", str(lat),
                          "--bandwidth-port", str(bw), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children.append(p)
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
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    outputs.extend([out, err])
    return p.returncode, out, err


def one_line(err):
    return len(err.strip().splitlines()) == 1


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

        # Beyond --max-clients: a clear refusal, not a reset.
        p, port = serve("--max-clients", "1")
        holder = socket.create_connection(("127.0.0.1", port))
        time.sleep(0.2)
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
        for c in children:
            if c.poll() is None:
                c.kill()
                c.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{len(results)}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
