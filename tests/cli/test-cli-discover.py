#!/usr/bin/python3
# test-cli-discover.py — discovery and a direct cable between two network namespaces joined by a
# veth pair that have ONLY IPv6 link-local addresses (no IPv4, no DHCP, no daemon), created and
# removed by this test (tests/cli). `serve` in A, `discover --iface` in B finds it; with
# --no-announce it is not found; `run --peer auto --quick` in B runs ping, latency and bandwidth
# against A over fe80::…%iface (without --iface it refuses the veth: not a physical adapter); a
# serve on ports of its own asking for a pairing code is run against on its announced ports with
# the code read from stdin, and without the code the run stops before it starts; a serve
# requiring a token refuses a client without one; a flood of queries and bogus packets gets no
# more answers than the rate limit allows. Speaks TAP. Needs root for the namespaces: skips
# otherwise.

import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
PID = os.getpid()
NS_A, NS_B = (f"qf-disc-{PID}-{x}" for x in "ab")
VETH_A, VETH_B = f"qda{PID % 10000000}", f"qdb{PID % 10000000}"
try:
    SCALE = max(1.0, float(os.environ.get("QF_TEST_TIME_SCALE", "1")))
except ValueError:
    SCALE = 1.0
# The announcer's limits (src/engine/qf-discovery.h).
IFACE_RATE, IFACE_BURST = 4, 8
CODE_RE = re.compile(r"^[2-9A-HJKMNP-Z]{4}(-[2-9A-HJKMNP-Z]{4}){3}$")

results = []
children = []


def tap(ok, name, diag=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    if not ok and diag:
        for line in str(diag).splitlines()[-30:]:
            print(f"# {line}")
    sys.stdout.flush()


def sh(*args, check=True):
    return subprocess.run(args, check=check, capture_output=True, text=True)


def in_ns(ns, *args):
    return ["ip", "netns", "exec", ns, *args]


def run(ns, *args, timeout=120, stdin_text=None):
    t0 = time.monotonic()
    p = subprocess.run(in_ns(ns, *args), capture_output=True, text=True, timeout=timeout * SCALE,
                       input=stdin_text)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def start(ns, *args):
    p = subprocess.Popen(in_ns(ns, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    children.append(p)
    return p


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        out, err = p.communicate(timeout=10 * SCALE)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return p.returncode, out, err


def wait_until(check, seconds):
    end = time.monotonic() + seconds * SCALE
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


def link_local_ready(ns, dev):
    out = sh("ip", "-n", ns, "-6", "addr", "show", "dev", dev, check=False).stdout
    return "fe80::" in out and "tentative" not in out


def setup():
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", VETH_A, "type", "veth", "peer", "name", VETH_B)
    sh("ip", "link", "set", VETH_A, "netns", NS_A)
    sh("ip", "link", "set", VETH_B, "netns", NS_B)
    for ns, dev in ((NS_A, VETH_A), (NS_B, VETH_B)):
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh(*in_ns(ns, "sysctl", "-q", "-w", f"net.ipv6.conf.{dev}.accept_dad=0"))
        sh("ip", "-n", ns, "link", "set", dev, "up")
    # A direct cable: no IPv4 address at all, only what the kernel gives each end.
    return all(wait_until(lambda ns=ns, dev=dev: link_local_ready(ns, dev), 10)
               for ns, dev in ((NS_A, VETH_A), (NS_B, VETH_B)))


def teardown():
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()
    for ns in (NS_A, NS_B):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def discover(*extra, seconds=3):
    rc, out, err, took = run(NS_B, CLI, "discover", "--iface", VETH_B, "--time",
                             str(seconds * SCALE), "--json", *extra)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = None
    return rc, doc, err, took


def start_serve(*extra):
    p = start(NS_A, CLI, "serve", *extra)
    # The startup lines come before any answer; read until the discovery line.
    lines = []
    end = time.monotonic() + 10 * SCALE
    while time.monotonic() < end:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "discovery:" in line:
            break
    return p, "".join(lines)


def test_discover_and_auto_run():
    serve, startup = start_serve()
    tap("announced as a _qualify._tcp service" in startup,
        "serve says at startup that it announces", startup)
    t0 = time.monotonic()
    rc, doc, err, took = discover(seconds=3)
    helpers = (doc or {}).get("helpers", [])
    h = helpers[0] if len(helpers) == 1 else {}
    keys = {"name", "addresses", "iface", "latency_port", "bandwidth_port", "token_required",
            "version"}
    tap(rc == 0 and len(helpers) == 1 and keys <= set(h) and took < 3 * SCALE + 5,
        "discover --iface in B finds the serve in A within 3 s", f"{rc} {doc} {err}")
    tap(h.get("iface") == VETH_B and h.get("latency_port") == 11111
        and h.get("bandwidth_port") == 5201 and h.get("token_required") is False
        and all(a.startswith("fe80:") and a.endswith("%" + VETH_B) for a in h.get("addresses", [""])),
        "the helper is heard with only link-local addresses, each with its %scope", json.dumps(h))

    rc, out, err, _ = run(NS_B, CLI, "discover", "--iface", VETH_B, "--time", str(2 * SCALE))
    tap(rc == 0 and h.get("name", "?") in out and "fe80:" in out,
        "discover prints the helper for a person", out + err)

    # A veth is no network adapter: without --iface, --peer auto finds no wired one to use.
    rc, out, err, _ = run(NS_B, CLI, "run", "--peer", "auto", "--quick", "--profile",
                          "arcs-wired", "--no-sign")
    tap(rc == 2 and "no wired network adapter" in err,
        "run --peer auto without --iface takes no virtual interface for a wired adapter", err)

    with tempfile.TemporaryDirectory(prefix="qf-disc-") as tmp:
        session_dir = os.path.join(tmp, "session")
        rc, out, err, _ = run(NS_B, CLI, "run", "--peer", "auto", "--iface", VETH_B, "--quick",
                              "--profile", "arcs-wired", "--only", "ping,latency,bandwidth",
                              "--out", session_dir, "--no-sign", "--json", timeout=300)
        session, done = run_outcome(session_dir)
        tap(rc in (0, 1) and len(done) == 3,
            "run --peer auto --quick in B completes ping, latency and bandwidth over the link",
            f"rc={rc}\n{err}\n{json.dumps(session.get('steps', []))[-1500:]}")
        peer = session.get("peer", {})
        network = session.get("network", {})
        tap(str(peer.get("address", "")).startswith("fe80:")
            and str(peer.get("address", "")).endswith("%" + VETH_B)
            and network.get("iface") == VETH_B,
            "the session records the peer's link-local address with its scope and the interface",
            json.dumps({"peer": peer, "network": network}))
    stop(serve)


def run_outcome(session_dir):
    """The session a run wrote, and which of ping, latency and bandwidth ran to a result."""
    session = {}
    try:
        with open(os.path.join(session_dir, "session.json")) as f:
            session = json.load(f)
    except (OSError, ValueError):
        pass
    steps = {s.get("key", s.get("test")): s for s in session.get("steps", [])}
    done = [k for k in ("ping", "latency", "bandwidth")
            if steps.get(k, {}).get("status") in ("pass", "fail", "done", "complete", "warn")]
    return session, done


def test_announced_ports():
    """A helper on ports of its own that asks for its pairing code (`serve --pairing-code
    --latency-port 12000 --bandwidth-port 5301`): `run --peer auto` without the code stops before
    the run; with the code read from stdin (`--pairing-code -`) it runs against the ports the
    helper announced."""
    serve, startup = start_serve("--pairing-code", "--latency-port", "12000",
                                 "--bandwidth-port", "5301")
    code = next((l.strip() for l in startup.splitlines() if CODE_RE.match(l.strip())), "")
    only = ("--quick", "--profile", "arcs-wired", "--only", "ping,latency,bandwidth", "--no-sign")
    with tempfile.TemporaryDirectory(prefix="qf-disc-") as tmp:
        refused_dir = os.path.join(tmp, "no-code")
        rc, out, err, _ = run(NS_B, CLI, "run", "--peer", "auto", "--iface", VETH_B, *only,
                              "--out", refused_dir)
        tap(rc == 2 and "give --pairing-code CODE" in err and not os.path.exists(refused_dir),
            "run --peer auto against a helper that asks for a code, without one, stops before "
            "the run", f"rc={rc}\n{err}")
        session_dir = os.path.join(tmp, "session")
        rc, out, err, _ = run(NS_B, CLI, "run", "--peer", "auto", "--iface", VETH_B, *only,
                              "--pairing-code", "-", "--out", session_dir, "--json",
                              timeout=300, stdin_text=code + "\n")
        session, done = run_outcome(session_dir)
        tap(code != "" and rc in (0, 1) and len(done) == 3,
            "with --pairing-code - (the code on stdin) it completes ping, latency and bandwidth on "
            "the announced ports 12000 and 5301",
            f"code={code!r} rc={rc}\n{err}\n{json.dumps(session.get('steps', []))[-1500:]}")
        peer = session.get("peer", {})
        tap(peer.get("latency_port") == 12000 and peer.get("bandwidth_port") == 5301
            and "refused" not in err and code not in err + out,
            "the session keeps the announced ports; no warning of a refusal, no code printed",
            json.dumps(peer) + "\n" + err)
    stop(serve)


def test_no_announce():
    serve, startup = start_serve("--no-announce")
    rc, doc, err, _ = discover(seconds=2)
    tap("not announced" in startup and rc == 0 and doc is not None and doc["helpers"] == [],
        "serve --no-announce is not found", f"{startup}\n{doc}\n{err}")
    rc, out, err, _ = run(NS_B, CLI, "discover", "--iface", VETH_B, "--time", "1")
    tap(rc == 0 and "No helper machine answered" in out and "5353" in out,
        "discover says what to check when none answers, exit 0", out + err)
    rc, out, err, _ = run(NS_B, CLI, "run", "--peer", "auto", "--quick", "--profile",
                          "arcs-wired", "--iface", VETH_B, "--no-sign")
    tap(rc == 2 and "no helper machine answered" in err,
        "run --peer auto exits 2 saying none answered", err)
    stop(serve)


def test_token():
    with tempfile.TemporaryDirectory(prefix="qf-disc-") as tmp:
        token = os.path.join(tmp, "token")
        with open(token, "w") as f:
            f.write("qf-token-" + os.urandom(12).hex() + "\n")
        os.chmod(token, 0o600)
        serve, startup = start_serve("--token-file", token)
        rc, doc, err, _ = discover(seconds=2)
        helpers = (doc or {}).get("helpers", [])
        tap(len(helpers) == 1 and helpers[0]["token_required"] is True,
            "a serve requiring a token is announced as such (and only as such)", f"{doc} {err}")
        address = helpers[0]["addresses"][0] if helpers else "fe80::1%" + VETH_B
        rc, out, err, _ = run(NS_B, CLI, "latency", address, "--time", "1")
        tap(rc == 2 and "token" in err.lower(), "it refuses a client without the token", err)
        rc, out, err, _ = run(NS_B, CLI, "latency", address, "--time", "1", "--token-file", token)
        tap(rc == 0, "and serves one with it", err)
        stop(serve)


def bogus_packets():
    yield os.urandom(5)
    yield os.urandom(200)
    yield struct.pack(">HHHHHH", 0, 0, 1, 0, 0, 0) + b"\xc0\x0c\x00\x0c\x00\x01"   # loop
    yield struct.pack(">HHHHHH", 0, 0, 0xffff, 0, 0, 0)                             # counts
    yield struct.pack(">HHHHHH", 0, 0, 1, 0, 0, 0) + b"\x3f" + b"a" * 10             # truncated
    yield struct.pack(">HHHHHH", 0, 0x8400, 0, 1, 0, 0) + b"\x00\x00\x0c\x00\x01"    # response


def query(qid):
    name = b"".join(bytes([len(l)]) + l for l in (b"_qualify", b"_tcp", b"local")) + b"\0"
    return struct.pack(">HHHHHH", qid, 0, 1, 0, 0, 0) + name + struct.pack(">HH", 12, 1)


def flood_client():
    """Runs inside B (re-executed with --flood): sends bogus packets and valid queries as fast
    as it can for 2 s and prints how many answers came back and how long it took."""
    ifindex = socket.if_nametoindex(sys.argv[2])
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, ifindex)
    s.setblocking(False)
    dest = ("ff02::fb", 5353, 0, ifindex)
    answers, sent, t0 = 0, 0, time.monotonic()
    while time.monotonic() - t0 < 2.0:
        for packet in bogus_packets():
            s.sendto(packet, dest)
        s.sendto(query(random.randrange(1, 65535)), dest)
        sent += 1
        try:
            while True:
                s.recv(9000)
                answers += 1
        except BlockingIOError:
            pass
        time.sleep(0.002)
    time.sleep(0.3)
    try:
        while True:
            s.recv(9000)
            answers += 1
    except BlockingIOError:
        pass
    print(json.dumps({"answers": answers, "queries": sent, "seconds": time.monotonic() - t0}))


def test_flood():
    serve, startup = start_serve()
    time.sleep(0.2)
    rc, out, err, _ = run(NS_B, sys.executable, os.path.abspath(__file__), "--flood", VETH_B)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {"answers": -1, "queries": 0, "seconds": 0}
    allowed = IFACE_BURST + IFACE_RATE * doc["seconds"] + 1
    tap(0 < doc["answers"] <= allowed and doc["queries"] > 5 * allowed,
        f"a flood of bogus packets and queries gets at most the rate limit's answers "
        f"({doc['answers']} of {doc['queries']} queries, limit {allowed:.0f})", f"{doc} {err}")
    tap(serve.poll() is None, "serve is still running after the flood")
    time.sleep(1.0)
    rc, doc, err, _ = discover(seconds=2)
    tap(rc == 0 and doc is not None and len(doc["helpers"]) == 1,
        "and is found again once the flood is over", f"{doc} {err}")
    rc, out, err = stop(serve)
    tap("malformed mDNS packet" in out, "serve logs the malformed packets it ignored (limited)",
        out[-2000:])


def a_link_local():
    """A's fe80:: address as B writes it (with B's interface as its scope)."""
    out = sh("ip", "-n", NS_A, "-6", "-o", "addr", "show", "dev", VETH_A, "scope", "link", check=False).stdout
    for word in out.split():
        if word.startswith("fe80::"):
            return word.split("/")[0] + "%" + VETH_B
    return None


def test_stock_tools():
    """A direct cable with a stock helper. iperf3 -s on A answers our bandwidth client on B at A's
    IPv6 link-local address with its scope. sockperf 3.7 (Debian 12) has no IPv6 at all (`-i ::`
    is "Invalid address"), so on a direct cable it needs IPv4 link-local addresses (169.254/16,
    what NetworkManager's ipv4.method link-local or avahi-autoipd give): added for that check only."""
    address = a_link_local()
    if shutil.which("iperf3") is None:
        print("# iperf3 is not installed: the stock iperf3 check is left out")
    else:
        p = start(NS_A, "iperf3", "-s", "-1", "-p", "5301")
        listening = wait_until(lambda: ":5301" in sh(*in_ns(NS_A, "ss", "-Hltn"), check=False).stdout, 5)
        rc, out, err, _ = run(NS_B, CLI, "bandwidth", "--time", "1", "-p", "5301", address or "fe80::1%" + VETH_B)
        tap(listening and rc == 0, f"a stock iperf3 on the helper answers our client at {address}", err or out)
        stop(p)
    if shutil.which("sockperf") is None:
        print("# sockperf is not installed: the stock sockperf check is left out")
        return
    sh("ip", "-n", NS_A, "addr", "add", "169.254.77.1/16", "dev", VETH_A)
    sh("ip", "-n", NS_B, "addr", "add", "169.254.77.2/16", "dev", VETH_B)
    p = start(NS_A, "sockperf", "sr", "--tcp", "-i", "169.254.77.1", "-p", "11311")
    listening = wait_until(lambda: ":11311" in sh(*in_ns(NS_A, "ss", "-Hltn"), check=False).stdout, 5)
    rc, out, err, _ = run(NS_B, CLI, "latency", "--tcp", "--time", "1", "-p", "11311", "169.254.77.1")
    tap(listening and rc == 0, "a stock sockperf on the helper answers our client over IPv4 link-local",
        err or out)
    stop(p)
    sh("ip", "-n", NS_A, "addr", "del", "169.254.77.1/16", "dev", VETH_A, check=False)
    sh("ip", "-n", NS_B, "addr", "del", "169.254.77.2/16", "dev", VETH_B, check=False)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--flood":
        flood_client()
        return 0
    if os.geteuid() != 0:
        print("1..0 # SKIP needs root to create network namespaces")
        return 0
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        print("1..0 # SKIP ip netns is not available")
        return 0
    try:
        if not setup():
            print("1..0 # SKIP the veth's IPv6 link-local addresses did not come up")
            return 0
        test_discover_and_auto_run()
        test_announced_ports()
        test_no_announce()
        test_token()
        test_stock_tools()
        test_flood()
    finally:
        teardown()
    print(f"1..{len(results)}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
