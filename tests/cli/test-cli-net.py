#!/usr/bin/python3
# test-cli-net.py — qualify-cli ping, latency, cycle and serve between two network namespaces
# that this test creates (veth pair) and removes; sockperf interop in both directions when
# sockperf is installed (tests/cli). Speaks TAP. Needs root for the namespaces: skips otherwise.

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import (add_namespaces, cable, del_namespaces, done, end_children, in_ns, run,  # noqa: E402
                   sh, start, stop, tap, wait_port)

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
PID = os.getpid()
NS_A, NS_B, NS_C = (f"qf-net-{PID}-{x}" for x in "abc")
VETH_A, VETH_B = f"qfa{PID % 10000000}", f"qfb{PID % 10000000}"
SUBNET = f"10.77.{PID % 250}"
ADDR_A, ADDR_B = f"{SUBNET}.1", f"{SUBNET}.2"

copies = []   # folders holding a copy of the CLI for nobody, removed at the end


def as_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def setup():
    add_namespaces(NS_A, NS_B, NS_C)
    cable(NS_A, VETH_A, NS_B, VETH_B)
    sh("ip", "-n", NS_A, "addr", "add", f"{ADDR_A}/24", "dev", VETH_A)
    sh("ip", "-n", NS_B, "addr", "add", f"{ADDR_B}/24", "dev", VETH_B)
    # Unprivileged ping sockets in A only (the sysctl is per namespace); C keeps "1 0".
    sh(*in_ns(NS_A, "sysctl", "-q", "-w", "net.ipv4.ping_group_range=0 2147483647"))
    sh(*in_ns(NS_C, "sysctl", "-q", "-w", "net.ipv4.ping_group_range=1 0"))


def teardown():
    end_children()
    del_namespaces(NS_A, NS_B, NS_C)
    for folder in copies:
        shutil.rmtree(folder, ignore_errors=True)


def cli_for_nobody():
    """A qualify-cli that nobody can run: the build's, or when that sits in a folder nobody
    cannot enter (a clone in /root, mode 0700) a copy in a folder of its own (the build links no
    library of its own). None when neither runs."""
    if run(NS_A, CLI, "--version", user="nobody")[0] == 0:
        return CLI
    folder = tempfile.mkdtemp(prefix="qf-cli-net-")
    copies.append(folder)
    os.chmod(folder, 0o755)
    copy = os.path.join(folder, "qualify-cli")
    shutil.copy(CLI, copy)
    os.chmod(copy, 0o755)
    return copy if run(NS_A, copy, "--version", user="nobody")[0] == 0 else None


def test_ping():
    # As an unprivileged user on a datagram ICMP socket (ping_group_range enabled in A).
    nobody_cli = cli_for_nobody()
    if nobody_cli:
        rc, out, err, _ = run(NS_A, nobody_cli, "ping", ADDR_B, "-c", "20", "-i", "0.005", "--json",
                              user="nobody")
        r = as_json(out)
        ok = (rc == 0 and r is not None and r["socket"] == "datagram"
              and r["transmitted"] == 20 and r["received"] == 20 and r["loss_pct"] == 0
              and r["min_ms"] <= r["avg_ms"] <= r["max_ms"] and r["mdev_ms"] >= 0
              and sum(r["histogram"]["count"]) + r["histogram"]["overflow"] == r["received"])
        tap(ok, "ping as an unprivileged user uses a datagram ICMP socket", out + err)

        # Where ping_group_range is "1 0" the same user gets exit 2 naming the sysctl.
        rc, out, err, _ = run(NS_C, nobody_cli, "ping", "127.0.0.1", "-c", "1", "-i", "0.005",
                              user="nobody")
        tap(rc == 2 and "ping_group_range" in err and out.count("\n") <= 1,
            "ping without permission exits 2 naming net.ipv4.ping_group_range", out + err)
    else:
        why = "# SKIP nobody can run neither the build's qualify-cli nor a copy in the temp dir"
        tap(True, why)
        tap(True, why)

    # As root, with the procedure's parameters, text output ending like iputils.
    rc, out, err, _ = run(NS_A, CLI, "ping", ADDR_B, "-i", "0.001", "-s", "1024", "-c", "100")
    lines = out.strip().splitlines()
    ok = (rc == 0 and len(lines) >= 3
          and any(l.startswith("100 packets transmitted, 100 received, 0% packet loss, time ")
                  for l in lines)
          and any(l.startswith("rtt min/avg/max/mdev = ") and l.endswith(" ms") for l in lines)
          and sum(1 for l in lines if "bytes from" in l) == 100)
    tap(ok, "ping -i 0.001 -s 1024 -c 100 prints 100 replies and iputils' summary", out + err)


def test_ping_loss():
    # The peer stops answering part-way: the loss is counted, the run still succeeds.
    sh(*in_ns(NS_B, "sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=0"))
    p = start(NS_A, CLI, "ping", ADDR_B, "-c", "400", "-i", "0.005", "-W", "1")
    first = ""
    while "bytes from" not in first:
        line = p.stdout.readline()
        if not line:
            break
        first += line
    sh(*in_ns(NS_B, "sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=1"))
    out, err = p.communicate(timeout=30)
    rc = p.returncode
    sh(*in_ns(NS_B, "sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=0"))
    summary = [l for l in out.splitlines() if "packets transmitted" in l]
    ok = rc == 0 and "bytes from" in first and len(summary) == 1
    if ok:
        parts = summary[0].split(",")
        transmitted = int(parts[0].split()[0])
        received = int(parts[1].split()[0])
        ok = transmitted == 400 and 0 < received < 400 and "packet loss" in summary[0]
    tap(ok, "ping counts the loss when the peer stops answering", first + out + err)


# An echo responder for namespace B that holds every reply HOLD_MS (netem is not available):
# the kernel's own answers are switched off there with icmp_echo_ignore_all.
SLOW_ECHO = r"""
import heapq, select, socket, struct, sys, time
hold = float(sys.argv[1]) / 1000.0
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
def csum(b):
    if len(b) % 2: b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
held, end = [], time.monotonic() + 20
print("ready", flush=True)
while time.monotonic() < end:
    wait = max(0.0, held[0][0] - time.monotonic()) if held else 0.5
    if select.select([s], [], [], wait)[0]:
        pkt, (addr, _) = s.recvfrom(70000)
        icmp = pkt[(pkt[0] & 15) * 4:]
        if icmp[0] == 8:
            body = b"\0\0\0\0" + icmp[4:]
            reply = body[:2] + struct.pack("!H", csum(body)) + body[4:]
            heapq.heappush(held, (time.monotonic() + hold, len(held), addr, reply))
    while held and held[0][0] <= time.monotonic():
        _, _, addr, reply = heapq.heappop(held)
        s.sendto(reply, (addr, 0))
"""


def test_ping_schedule():
    # Replies 20 ms late at a 1 ms interval: the requests still leave every 1 ms (about 50 ms
    # for 50 of them plus the last reply's 20, far from the 1 s of a ping that waits for each),
    # and the measured round trip is the held 20 ms.
    sh(*in_ns(NS_B, "sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=1"))
    echo = start(NS_B, sys.executable, "-c", SLOW_ECHO, "20")
    echo.stdout.readline()
    rc, out, err, _ = run(NS_A, CLI, "ping", ADDR_B, "-c", "50", "-i", "0.001", "-s", "64",
                          "--json")
    stop(echo)
    sh(*in_ns(NS_B, "sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=0"))
    r = as_json(out)
    ok = (rc == 0 and r is not None and r["received"] == 50 and r["min_ms"] >= 20
          and r["time_ms"] < 500)
    tap(ok, "ping keeps a 1 ms interval when every reply takes 20 ms", out + err)


def test_ping_unreachable():
    rc, out, err, elapsed = run(NS_A, CLI, "ping", f"{SUBNET}.99", "-c", "3", "-W", "1", "--json")
    r = as_json(out)
    tap(rc == 2 and elapsed < 8 and "No reply" in err and r is not None and r["received"] == 0,
        "ping to an unreachable address exits 2 within the timeout", f"{rc} {elapsed}\n{out}{err}")


def test_ping_broadcast():
    """The subnet's broadcast address, which B answers (icmp_echo_ignore_broadcasts=0): refused
    with the reason, as root (raw socket) and as nobody (ping socket), and no time is negative."""
    sh(*in_ns(NS_B, "sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_broadcasts=0"))
    for user in (None, "nobody"):
        who = "nobody" if user else "root"
        for args in ((), ("--json",)):
            rc, out, err, elapsed = run(NS_A, CLI, "ping", f"{SUBNET}.255", "-c", "3", "-i", "0.2", *args,
                                        user=user)
            r = as_json(out)
            tap(rc == 2 and "broadcast address" in err and "time -" not in out
                and (r is None or r.get("time_ms", 0) >= 0) and elapsed < 8,
                f"ping to the broadcast address ({who}{', JSON' if args else ''}) is refused with "
                "the reason, no negative time", f"{rc} {elapsed}\n{out}{err}")
    # A host address the kernel routes as broadcast (a route of that type in A's local table):
    # the kernel refuses the first request (EACCES); the run ends with its time from its start,
    # never negative (it printed "time -1650993ms", the start's clock reading, before).
    sh("ip", "-n", NS_A, "route", "add", "broadcast", f"{SUBNET}.77", "dev", VETH_A, "table", "local")
    for args in ((), ("--json",)):
        rc, out, err, elapsed = run(NS_A, CLI, "ping", f"{SUBNET}.77", "-c", "3", "-i", "0.2", *args)
        r = as_json(out)
        tap(rc == 2 and "time -" not in out and (not args or (r is not None and r["time_ms"] >= 0
                                                           and r["transmitted"] == 1)),
            f"ping refused by the kernel on its first request ends with no negative time{' (JSON)' if args else ''}",
            f"{rc} {elapsed}\n{out}{err}")
    sh("ip", "-n", NS_A, "route", "del", "broadcast", f"{SUBNET}.77", "dev", VETH_A, "table", "local")
    sh(*in_ns(NS_B, "sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_broadcasts=1"))


def test_latency_and_cycle(serve):
    for proto in ("--tcp", "--udp"):
        rc, out, err, _ = run(NS_A, CLI, "latency", ADDR_B, proto, "--time", "0.5", "--json")
        r = as_json(out)
        ok = (rc == 0 and r is not None and r["test"] == "latency" and r["mode"] == "blocking"
              and r["protocol"] == proto[2:] and r["one_way"] is True and r["msg_size"] == 14
              and r["samples"] > 0 and r["dropped"] == 0
              and r["min_us"] <= r["p50_us"] <= r["p99_us"] <= r["max_us"])
        tap(ok, f"latency {proto} against our responder", out + err)

    rc, out, err, _ = run(NS_A, CLI, "latency", ADDR_B, "--spin", "--time", "1", "--json")
    r = as_json(out)
    tap(rc == 0 and r is not None and r["mode"] == "spin" and r["samples"] > 0,
        "latency --spin says it measured in spin mode", out + err)

    rc, out, err, _ = run(NS_A, CLI, "cycle", ADDR_B, "--rate-hz", "500", "--time", "0.5", "--json")
    r = as_json(out)
    ok = (rc == 0 and r is not None and r["cycles"] == 250 and r["rate_hz"] == 500
          and r["misses"] == r["late"] + r["lost"] and r["longest_miss_burst"] <= r["misses"]
          and r["lost"] < 250 and r["avg_rtt_us"] > 0 and r["p99_rtt_us"] <= r["max_rtt_us"])
    tap(ok, "cycle at 500 Hz against our responder", out + err)

    rc, out, err, _ = run(NS_A, CLI, "latency", ADDR_B, "--port", "11119", "--time", "0.2")
    tap(rc == 2 and "refused" in err and out == "",
        "latency to a port nobody serves exits 2 saying so", out + err)


def test_cycle_delayed():
    p = start(NS_B, CLI, "serve", "--latency-port", "11112", "--bandwidth-port", "5202",
              "--emulate", "delay=3")
    if not wait_port(NS_B, 11112, "udp"):
        tap(False, "serve --emulate starts", stop(p)[2])
        return
    rc, out, err, _ = run(NS_A, CLI, "cycle", ADDR_B, "--port", "11112", "--rate-hz", "1000",
                          "--time", "0.3", "--json")
    r = as_json(out)
    ok = (rc == 0 and r is not None and r["cycles"] == 300 and r["misses"] == 300
          and r["longest_miss_burst"] == 300 and r["min_rtt_us"] >= 3000)
    tap(ok, "cycle counts every cycle as missed when the responder holds replies 3 ms", out + err)
    stop(p)


def test_sockperf_interop(serve):
    if shutil.which("sockperf") is None:
        for name in ("ours -> sockperf sr --tcp", "ours -> sockperf sr (UDP)",
                     "sockperf pp --tcp -> our responder", "sockperf pp (UDP) -> our responder"):
            tap(True, f"# SKIP sockperf is not installed: {name}")
        return
    for proto, port in (("--tcp", "11113"), ("--udp", "11114")):
        srv = start(NS_B, "sockperf", "sr", *(["--tcp"] if proto == "--tcp" else []), "-p", port)
        wait_port(NS_B, int(port), "tcp" if proto == "--tcp" else "udp")
        rc, out, err, _ = run(NS_A, CLI, "latency", ADDR_B, proto, "--port", port, "--time", "0.5",
                              "--json")
        r = as_json(out)
        tap(rc == 0 and r is not None and r["samples"] > 0 and r["dropped"] == 0,
            f"our latency client {proto} against sockperf sr", out + err)
        stop(srv, signal.SIGINT)
    for proto in ("--tcp", None):
        args = ["sockperf", "pp", "-i", ADDR_B, "-p", "11111", "-t", "1", "-m", "14"]
        if proto:
            args.append(proto)
        rc, out, err, _ = run(NS_A, *args)
        text = out + err
        ok = rc == 0 and "avg-latency=" in text and "# dropped messages = 0" in text
        tap(ok, f"sockperf pp {proto or '(UDP)'} against our responder", text)


def test_serve(serve):
    # A second responder on the same port fails at once with exit 2 and says why.
    rc, out, err, elapsed = run(NS_B, CLI, "serve", timeout=20)
    tap(rc == 2 and "in use" in err and elapsed < 10, "serve on a busy port exits 2", out + err)
    rc, out, err = stop(serve)
    ok = (rc == 0 and f"TCP ping-pong from {ADDR_A}" in out and f"UDP cycle test from {ADDR_A}" in out
          and "stopped" in out)
    tap(ok, "serve logs one line per test and stops cleanly on SIGTERM", out + err)


def test_serve_builtin():
    p = start(NS_A, CLI, "serve", "--builtin", "--json")
    text = ""
    while not text.rstrip().endswith("}"):
        line = p.stdout.readline()
        if not line:
            break
        text += line
    info = as_json(text)
    ok = info is not None and info["host"] == "127.0.0.1" and info["latency_port"] > 0
    if ok:
        rc, out, err, _ = run(NS_A, CLI, "latency", "127.0.0.1", "--port", str(info["latency_port"]),
                              "--time", "0.2", "--json")
        ok = rc == 0 and as_json(out)["samples"] > 0
        text += out + err
    rc, _, err = stop(p)
    tap(ok and rc == 0, "serve --builtin prints its loopback ports and serves them", text + err)


def main():
    if os.geteuid() != 0:
        print("1..0 # SKIP network namespaces need root")
        return 0
    if shutil.which("ip") is None:
        print("1..0 # SKIP iproute2 is not installed")
        return 0
    try:
        setup()
    except subprocess.CalledProcessError as e:
        teardown()
        print(f"1..0 # SKIP cannot create network namespaces here: {e.stderr.strip()}")
        return 0
    try:
        serve = start(NS_B, CLI, "serve")
        if not wait_port(NS_B, 11111):
            tap(False, "serve starts in the peer namespace", stop(serve)[2])
        else:
            test_ping()
            test_ping_loss()
            test_ping_unreachable()
            test_ping_broadcast()
            test_ping_schedule()
            test_latency_and_cycle(serve)
            test_cycle_delayed()
            test_sockperf_interop(serve)
            test_serve_builtin()
            time.sleep(2.2)   # a UDP test is logged once its client has been quiet for 2 s
            test_serve(serve)
    finally:
        teardown()
    return done()


if __name__ == "__main__":
    sys.exit(main())
