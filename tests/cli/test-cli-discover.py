#!/usr/bin/python3
# test-cli-discover.py — discovery and a direct cable between two network namespaces joined by a
# veth pair that have ONLY IPv6 link-local addresses (no IPv4, no DHCP, no daemon), created and
# removed by this test (tests/cli). `serve` in A, `discover --iface` in B finds it; with
# --no-announce it is not found; `run --peer auto --quick` in B runs ping, latency and bandwidth
# against A over fe80::…%iface (without --iface it refuses the veth: not a physical adapter); a
# serve on ports of its own asking for a pairing code is run against on its announced ports with
# the code read from stdin, and without the code the run stops before it starts; a serve
# requiring a token refuses a client without one; a flood of queries and bogus packets gets no
# more answers than the rate limit allows, and leaves another sender its share; queries that
# crossed a router (hop limit below 255) and questions it has no record for get nothing; a
# helper whose IPv6 comes up late is still joined and announced; an impostor on the link
# answering for the helper's instance shows up as a second helper, never as addresses of the
# first, and answers that are not to our query, or crossed a router, are ignored; control
# characters from the network never reach the terminal. Speaks TAP. Needs root for the
# namespaces: skips otherwise.

import json
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import (SCALE, del_namespaces, direct_cable, done, end_children, in_ns, link_local,  # noqa: E402
                   listening, sh, start, stop, tap, wait_until)
from netns import run as run_in_ns  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
run = partial(run_in_ns, timeout=120)   # `run --peer auto` measures: more time than the default
PID = os.getpid()
NS_A, NS_B = (f"qf-disc-{PID}-{x}" for x in "ab")
VETH_A, VETH_B = f"qda{PID % 10000000}", f"qdb{PID % 10000000}"
# The announcer's limits (src/engine/qf-discovery.h).
SOURCE_RATE, SOURCE_BURST = 1, 3
IFACE_RATE, IFACE_BURST = 4, 8
CODE_RE = re.compile(r"^[2-9A-HJKMNP-Z]{4}(-[2-9A-HJKMNP-Z]{4}){3}$")
# An impostor's and a second querier's extra link-local addresses.
FAKE_SRC, FAKE_FAR_SRC, BUSY_SRC, SECOND_SRC = "fe80::bad", "fe80::bee", "fe80::b1", "fe80::b2"


def setup():
    # A direct cable: no IPv4 address at all, only what the kernel gives each end.
    return direct_cable(NS_A, VETH_A, NS_B, VETH_B)


def teardown():
    end_children()
    del_namespaces(NS_A, NS_B)


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


def dns_name(text):
    return b"".join(bytes([len(l)]) + l for l in text.encode().split(b".")) + b"\0"


def query(qid, name="_qualify._tcp.local", qtype=12):
    return struct.pack(">HHHHHH", qid, 0, 1, 0, 0, 0) + dns_name(name) + struct.pack(">HH", qtype, 1)


def mdns_socket(ifindex, hops=255, bind=None):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, ifindex)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, hops)
    if bind:
        s.bind((bind, 0, 0, ifindex))
    s.setblocking(False)
    return s


def drain(s):
    n = 0
    try:
        while True:
            s.recv(9000)
            n += 1
    except BlockingIOError:
        pass
    return n


def host_label():
    """The SRV target the announcer makes from the host name (qf-announcer.c, host_label)."""
    raw = socket.gethostname().encode().split(b".")[0][:40]
    label = "".join(chr(c) if chr(c).isascii() and chr(c).isalnum() else "-" for c in raw)
    return (label or "helper") + "-qualify.local"


def flood_client():
    """Runs inside B (re-executed with --flood): sends bogus packets and valid queries as fast
    as it can for 2 s and prints how many answers came back and how long it took."""
    ifindex = socket.if_nametoindex(sys.argv[2])
    s = mdns_socket(ifindex)
    dest = ("ff02::fb", 5353, 0, ifindex)
    answers, sent, t0 = 0, 0, time.monotonic()
    while time.monotonic() - t0 < 2.0:
        for packet in bogus_packets():
            s.sendto(packet, dest)
        s.sendto(query(random.randrange(1, 65535)), dest)
        sent += 1
        answers += drain(s)
        time.sleep(0.002)
    time.sleep(0.3)
    answers += drain(s)
    print(json.dumps({"answers": answers, "queries": sent, "seconds": time.monotonic() - t0}))


def share_client():
    """Runs inside B (--share IFACE): one host asks 50 times a second for 2 s, enough to empty
    the interface's bucket; a second host (another address) asks every 0.45 s meanwhile. Prints
    how many of the second host's queries were answered."""
    ifindex = socket.if_nametoindex(sys.argv[2])
    busy, other = mdns_socket(ifindex, bind=BUSY_SRC), mdns_socket(ifindex, bind=SECOND_SRC)
    dest = ("ff02::fb", 5353, 0, ifindex)
    t0 = time.monotonic()
    sent, answers, next_at = 0, 0, t0 + 0.3
    while time.monotonic() - t0 < 2.0:
        busy.sendto(query(random.randrange(1, 65535)), dest)
        now = time.monotonic()
        if now >= next_at and sent < 4:
            other.sendto(query(random.randrange(1, 65535)), dest)
            sent += 1
            # 0.45 s after this one was sent, not after when it was due: a late query (a loaded
            # machine) must not be followed at once by the next, which the second host's own
            # bucket (burst 3, 1 a second) would rightly refuse.
            next_at = now + 0.45
        drain(busy)
        answers += drain(other)
        time.sleep(0.02)
    time.sleep(0.3)
    answers += drain(other)
    print(json.dumps({"other_queries": sent, "other_answers": answers}))


def probe_client():
    """Runs inside B (--probe IFACE): legacy queries that must get no answer (hop limit 1 as from
    beyond a router; a question for A on a link without IPv4) and two that must (hop limit 255
    for the service; AAAA of the host). Prints the answers each got."""
    ifindex = socket.if_nametoindex(sys.argv[2])
    dest = ("ff02::fb", 5353, 0, ifindex)
    got = {}
    for key, hops, packet in (("far", 1, query(4242)),
                              ("near", 255, query(4243)),
                              ("a", 255, query(4244, host_label(), 1)),
                              ("aaaa", 255, query(4245, host_label(), 28))):
        s = mdns_socket(ifindex, hops)
        s.sendto(packet, dest)
        time.sleep(0.6 * SCALE)
        got[key] = drain(s)
        s.close()
    print(json.dumps(got))


def rr(name, rtype, data, ttl=10):
    return dns_name(name) + struct.pack(">HHIH", rtype, 1, ttl, len(data)) + data


def fake_answer(qid, question, instance, name, addresses, txt_extra=b""):
    """A complete legacy answer for instance (PTR, SRV, TXT, AAAA/A of its target)."""
    target = "impostor-qualify.local"
    txt = b"".join(bytes([len(t)]) + t for t in (b"v=9.9", b"lat=11111", b"bw=5201", b"code=0",
                                                  b"name=" + name.encode(), b"proto=1"))
    records = [rr("_qualify._tcp.local", 12, dns_name(instance)),
               rr(instance, 33, struct.pack(">HHH", 0, 0, 11111) + dns_name(target)),
               rr(instance, 16, txt + txt_extra)]
    for a in addresses:
        family = socket.AF_INET6 if ":" in a else socket.AF_INET
        records.append(rr(target, 28 if family == socket.AF_INET6 else 1,
                          socket.inet_pton(family, a)))
    return (struct.pack(">HHHHHH", qid, 0x8400, 1, len(records), 0, 0) + question
            + b"".join(records))


def fake_responder():
    """Runs inside A (--fake IFACE INSTANCE SECONDS) next to serve: answers each legacy query for
    _qualify._tcp.local from the extra addresses, as an impostor would: for the real instance
    with addresses of its own; with control characters in the names; with an id that is not the
    query's; and with hop limit 64 (as if from beyond a router)."""
    iface, instance, seconds = sys.argv[2], sys.argv[3], float(sys.argv[4])
    ifindex = socket.if_nametoindex(iface)
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind(("::", 5353))
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                 socket.inet_pton(socket.AF_INET6, "ff02::fb") + struct.pack("@I", ifindex))
    s.settimeout(0.2)
    end = time.monotonic() + seconds
    print("ready", flush=True)
    while time.monotonic() < end:
        try:
            packet, sender = s.recvfrom(9000)
        except socket.timeout:
            continue
        if len(packet) < 12 or sender[1] == 5353 or packet[2] & 0x80:
            continue
        qid = struct.unpack(">H", packet[:2])[0]
        question = packet[12:]

        def send(data, source, hops=255):
            info = socket.inet_pton(socket.AF_INET6, source) + struct.pack("@I", ifindex)
            s.sendmsg([data], [(socket.IPPROTO_IPV6, socket.IPV6_PKTINFO, info),
                               (socket.IPPROTO_IPV6, socket.IPV6_HOPLIMIT, struct.pack("@i", hops))],
                       0, sender)

        send(fake_answer(qid, question, instance, "Impostor", ["203.0.113.5", "2001:db8::5"]),
             FAKE_SRC)
        send(fake_answer(qid, question, "Ctl\x1bX._qualify._tcp.local",
                         "Evil\x1b]0;pwned\x07\x1b[2J\u009b31m", ["203.0.113.6"]), FAKE_SRC)
        send(fake_answer(qid ^ 0x5555, question, "WrongId._qualify._tcp.local", "WrongId",
                         ["203.0.113.7"]), FAKE_SRC)
        send(fake_answer(qid, question, "FarAway._qualify._tcp.local", "FarAway",
                         ["203.0.113.8"]), FAKE_FAR_SRC, hops=64)


def test_flood():
    for address in (BUSY_SRC, SECOND_SRC):
        sh("ip", "-n", NS_B, "addr", "add", address + "/64", "dev", VETH_B, "nodad")
    serve, startup = start_serve()
    time.sleep(0.2)
    rc, out, err, _ = run(NS_B, sys.executable, os.path.abspath(__file__), "--flood", VETH_B)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {"answers": -1, "queries": 0, "seconds": 0}
    allowed = SOURCE_BURST + SOURCE_RATE * doc["seconds"] + 1
    tap(0 < doc["answers"] <= allowed and doc["queries"] > 5 * allowed,
        f"a flood of bogus packets and queries from one host gets at most its sender's rate "
        f"limit's answers ({doc['answers']} of {doc['queries']} queries, limit {allowed:.0f})",
        f"{doc} {err}")
    tap(serve.poll() is None, "serve is still running after the flood")
    time.sleep(1.0)
    rc, doc, err, _ = discover(seconds=2)
    tap(rc == 0 and doc is not None and len(doc["helpers"]) == 1,
        "and is found again once the flood is over", f"{doc} {err}")
    rc, out, err = stop(serve)
    tap("malformed mDNS packet" in out, "serve logs the malformed packets it ignored (limited)",
        out[-2000:])
    doc = run_client_quietly("--share") or {"other_queries": 0, "other_answers": -1}
    tap(doc["other_queries"] >= 3 and doc["other_answers"] == doc["other_queries"],
        f"one host asking 50 times a second leaves another its answers "
        f"({doc['other_answers']} of {doc['other_queries']})", doc)
    for address in (BUSY_SRC, SECOND_SRC):
        sh("ip", "-n", NS_B, "addr", "del", address + "/64", "dev", VETH_B, check=False)


def run_client_quietly(mode):
    """Runs this script's client mode in B against a fresh serve in A once its three
    announcements are over; the client's JSON, or None."""
    serve, startup = start_serve()
    time.sleep(3.5 * SCALE)
    rc, out, err, _ = run(NS_B, sys.executable, os.path.abspath(__file__), mode, VETH_B)
    stop(serve)
    try:
        return json.loads(out)
    except ValueError:
        print(f"# {mode}: {err}")
        return None


def test_probe():
    got = run_client_quietly("--probe") or {}
    err = ""
    tap(got.get("far") == 0 and got.get("near") == 1,
        "a query with hop limit 1 (from beyond a router) gets no answer, one with 255 does",
        f"{got} {err}")
    tap(got.get("a") == 0 and got.get("aaaa") == 1,
        "a question for A on a link without IPv4 gets no (empty) answer; AAAA gets one",
        f"{got} {err}")


def test_late_ipv6():
    """A helper whose IPv6 is off when serve starts (its group join fails) is joined and
    announced at the next rescan once IPv6 is on."""
    sysctl = f"net.ipv6.conf.{VETH_A}.disable_ipv6"
    sh(*in_ns(NS_A, "sysctl", "-q", "-w", sysctl + "=1"))
    serve, startup = start_serve()
    time.sleep(1.0)
    sh(*in_ns(NS_A, "sysctl", "-q", "-w", sysctl + "=0"))
    sh(*in_ns(NS_A, "sysctl", "-q", "-w", f"net.ipv6.conf.{VETH_A}.accept_dad=0"))
    ready = wait_until(lambda: link_local(NS_A, VETH_A) is not None, 10)
    rc, doc, err, _ = discover(seconds=6)
    tap(ready and rc == 0 and doc is not None and len(doc["helpers"]) == 1,
        "a helper whose IPv6 came up after serve started is found (join retried at the rescan)",
        f"{doc} {err}")
    stop(serve)


def test_impostor():
    serve, startup = start_serve()
    rc, doc, err, _ = discover(seconds=2)
    real = ((doc or {}).get("helpers") or [{}])[0]
    instance = real.get("instance", "none._qualify._tcp.local")
    for address in (FAKE_SRC, FAKE_FAR_SRC):
        sh("ip", "-n", NS_A, "addr", "add", address + "/64", "dev", VETH_A, "nodad")
    fake = start(NS_A, sys.executable, os.path.abspath(__file__), "--fake", VETH_A,
                 instance, str(40 * SCALE))
    fake.stdout.readline()
    rc, doc, err, _ = discover(seconds=3)
    helpers = (doc or {}).get("helpers", [])
    same = [h for h in helpers if h.get("instance") == real.get("instance")]
    genuine = [h for h in same if any(a.startswith("fe80:") for a in h.get("addresses", []))
               and not any(a in ("203.0.113.5", "2001:db8::5") for a in h.get("addresses", []))]
    tap(len(same) == 2 and len(genuine) == 1,
        "an impostor answering for the helper's instance is a second helper, not addresses of "
        "the first", json.dumps(helpers))
    tap(len(same) == 2 and all(h.get("name_conflict") is True for h in same)
        and not any(h.get("name_conflict") for h in helpers if h not in same),
        "the two helpers that announce the same name are marked as a conflict in --json, no other",
        json.dumps(helpers))
    rc, out, err, _ = run(NS_B, CLI, "discover", "--iface", VETH_B, "--time", str(2 * SCALE))
    tap(rc == 0 and "CONFLICT: Several machines on" in out and "announce the same name" in out
        and "203.0.113.5" in out and "fe80:" in out.split("CONFLICT:")[-1],
        "discover names the conflict and both machines' addresses", out + err)
    names = " ".join(h.get("name", "") + h.get("instance", "") for h in helpers)
    tap("WrongId" not in names and "FarAway" not in names,
        "answers with another id, or hop limit 64, are ignored", names)
    ctl = [h for h in helpers if h.get("instance", "").startswith("Ctl")]
    tap(len(ctl) == 1 and not any(ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 for c in names)
        and "\ufffd" in ctl[0].get("name", ""),
        "control characters in names from the network are replaced by U+FFFD", ascii(names))
    rc, out, err, _ = run(NS_B, CLI, "discover", "--iface", VETH_B, "--time", str(2 * SCALE))
    tap(rc == 0 and "\x1b" not in out and "(null)" not in out,
        "discover prints no escape sequence from the network", ascii(out))
    rc, out, err, _ = run(NS_B, CLI, "run", "--peer", "auto", "--quick", "--profile",
                          "arcs-wired", "--iface", VETH_B, "--no-sign")
    tap(rc == 2 and "helper machines answered" in err,
        "run --peer auto then says several answered instead of picking the impostor's address",
        err)
    stop(fake)
    stop(serve)
    for address in (FAKE_SRC, FAKE_FAR_SRC):
        sh("ip", "-n", NS_A, "addr", "del", address + "/64", "dev", VETH_A, check=False)


def test_stock_tools():
    """A direct cable with a stock helper. iperf3 -s on A answers our bandwidth client on B at A's
    IPv6 link-local address with its scope. sockperf 3.7 (Debian 12) has no IPv6 at all (`-i ::`
    is "Invalid address"), so on a direct cable it needs IPv4 link-local addresses (169.254/16,
    what NetworkManager's ipv4.method link-local or avahi-autoipd give): added for that check only."""
    # A's fe80:: address as B writes it (with B's interface as its scope).
    address = link_local(NS_A, VETH_A)
    address = f"{address}%{VETH_B}" if address else None
    if shutil.which("iperf3") is None:
        print("# iperf3 is not installed: the stock iperf3 check is left out")
    else:
        p = start(NS_A, "iperf3", "-s", "-1", "-p", "5301")
        serving = wait_until(lambda: listening(NS_A, 5301), 5)
        rc, out, err, _ = run(NS_B, CLI, "bandwidth", "--time", "1", "-p", "5301", address or "fe80::1%" + VETH_B)
        tap(serving and rc == 0, f"a stock iperf3 on the helper answers our client at {address}", err or out)
        stop(p)
    if shutil.which("sockperf") is None:
        print("# sockperf is not installed: the stock sockperf check is left out")
        return
    sh("ip", "-n", NS_A, "addr", "add", "169.254.77.1/16", "dev", VETH_A)
    sh("ip", "-n", NS_B, "addr", "add", "169.254.77.2/16", "dev", VETH_B)
    p = start(NS_A, "sockperf", "sr", "--tcp", "-i", "169.254.77.1", "-p", "11311")
    serving = wait_until(lambda: listening(NS_A, 11311), 5)
    rc, out, err, _ = run(NS_B, CLI, "latency", "--tcp", "--time", "1", "-p", "11311", "169.254.77.1")
    tap(serving and rc == 0, "a stock sockperf on the helper answers our client over IPv4 link-local",
        err or out)
    stop(p)
    sh("ip", "-n", NS_A, "addr", "del", "169.254.77.1/16", "dev", VETH_A, check=False)
    sh("ip", "-n", NS_B, "addr", "del", "169.254.77.2/16", "dev", VETH_B, check=False)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--flood":
        flood_client()
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "--share":
        share_client()
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "--probe":
        probe_client()
        return 0
    if len(sys.argv) >= 5 and sys.argv[1] == "--fake":
        fake_responder()
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
        test_probe()
        test_impostor()
        test_late_ipv6()
    finally:
        teardown()
    return done()


if __name__ == "__main__":
    sys.exit(main())
