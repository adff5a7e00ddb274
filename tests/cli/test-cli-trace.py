#!/usr/bin/python3
# test-cli-trace.py — the truth tests of `qualify-cli rt --trace`: culprits of known cost
# injected on the measured CPU and the attribution checked against them (tests/cli, issue 34).
#   (a) a SCHED_FIFO 99 task pinned to the measured CPU, spinning 3 ms every 250 ms: named with
#       its pid, policy and priority; its largest share within ±20 % of 3 ms; on every spike it
#       is named in, it is the largest item (it held the CPU from the expiry to its switch-out);
#   (b) a SCHED_OTHER hog on the measured CPU: never named (the FIFO thread preempts it);
#   (c) a UDP flood between two namespaces of the test's own, its receive processing steered to
#       the measured CPU (RPS): the NET_RX softirq named;
#   (d) nothing injected: no real-time task invented.
# Every run: the items of each spike sum to its latency, the JSON keys are exactly the issue's,
# and the trace instance is gone afterwards. Also: without root, one line says why nothing was
# traced and the test still measures. Speaks TAP; needs root and two CPUs, skips otherwise.
# The processes it starts end by their PID; the namespaces carry its PID and are deleted.
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import (SCALE, add_namespaces, cable, del_namespaces, done, end_children, in_ns,  # noqa: E402
                   run, sh, start, stop, tap)

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
PID = os.getpid()
CPU = 1
NS_A, NS_B = (f"qf-trace-{PID}-{x}" for x in "ab")
VETH_A, VETH_B = f"qta{PID % 10000000}", f"qtb{PID % 10000000}"
SUBNET = f"10.79.{PID % 250}"
SECONDS = 4
CAUSE_KEYS = {"cpu", "at", "latency_us", "sentence", "breakdown"}
KINDS = {"irq", "softirq", "task", "sched-delay", "unexplained"}

# A task of known cost: pinned to CPU, policy fifo (SCHED_FIFO 99) or other; spins SPIN ms every
# EVERY ms (EVERY 0: always). Prints its pid once it runs as asked.
CULPRIT = r"""
import os, sys, time
cpu, policy, spin_ms, every_ms = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
os.sched_setaffinity(0, {cpu})
if policy == "fifo":
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(99))
print(os.getpid(), flush=True)
while True:
    end = time.monotonic_ns() + int(spin_ms * 1e6)
    while time.monotonic_ns() < end:
        pass
    if every_ms > spin_ms:
        time.sleep((every_ms - spin_ms) / 1000)
"""


def culprit(policy, spin_ms, every_ms):
    p = start(None, sys.executable, "-c", CULPRIT, str(CPU), policy, str(spin_ms), str(every_ms))
    p.stdout.readline()        # it runs pinned (and real-time) from here
    return p


def measure(*extra):
    """qualify-cli rt --trace on CPU: (result or None, stderr)."""
    rc, out, err, _ = run(None, CLI, "rt", "--cpus", str(CPU), "--duration", str(SECONDS),
                          "--trace", "--trace-spikes", "16", "--json", *extra,
                          timeout=60 + 10 * SECONDS)
    try:
        return (json.loads(out) if rc == 0 else None), err
    except ValueError:
        return None, err


def shape_errors(result):
    """What is wrong with a traced result's shape and sums (empty: nothing)."""
    errors = []
    if not result["trace"].get("recorded"):
        return [f"nothing recorded: {result['trace'].get('reason')}"]
    for c in result["latency_causes"]:
        # "virtual_machine" only where the PC reads as one
        if set(c) - {"virtual_machine"} != CAUSE_KEYS or c.get("virtual_machine", True) is not True:
            errors.append(f"cause keys {sorted(c)}")
        total = sum(i["duration_us"] for i in c["breakdown"])
        # each item is rounded to 0.01 µs: the sum may differ by that much per item
        if abs(total - c["latency_us"]) > 0.01 * (len(c["breakdown"]) + 1):
            errors.append(f"items sum to {total} µs, the spike is {c['latency_us']} µs")
        for i in c["breakdown"]:
            keys = {"kind", "name", "duration_us"} | ({"pid", "policy", "priority"} if i["kind"] == "task" else set())
            if set(i) != keys or i["kind"] not in KINDS:
                errors.append(f"item {i}")
    instance = result["trace"]["instance"]
    if os.path.exists(f"/sys/kernel/tracing/instances/{instance}"):
        errors.append(f"instance {instance} left behind")
    return errors


def items(result, pred):
    return [(c, i) for c in result["latency_causes"] for i in c["breakdown"] if pred(i)]


def listing(result):
    return "\n".join(f"{c['latency_us']} µs: " + "; ".join(
        f"{i['kind']} {i['name']} {i.get('pid', '')} {i.get('policy', '')} {i['duration_us']}"
        for i in c["breakdown"][:3]) for c in result["latency_causes"])


def test_fifo_culprit():
    p = culprit("fifo", 3, 250)
    result, err = measure()
    stop(p)
    if result is None:
        return tap(False, "(a) FIFO 99 culprit: rt --trace ran", err)
    tap(not shape_errors(result), "(a) shape, sums, instance removed", "\n".join(shape_errors(result)))
    named = items(result, lambda i: i["kind"] == "task" and i.get("pid") == p.pid)
    tap(bool(named) and all(i["policy"] == "SCHED_FIFO" and i["priority"] == 99 for _, i in named),
        "(a) the culprit is named with its pid, SCHED_FIFO and priority 99", listing(result))
    largest = max((i["duration_us"] for _, i in named), default=0)
    tap(2400 <= largest <= 3600, f"(a) its share of its worst spike, {largest} µs, is within ±20 % of 3 ms",
        listing(result))
    # the timer expires anywhere in the spin; the culprit then holds the CPU to its switch-out:
    # on each of its spikes it is the largest item the trace explains (time with no event at
    # all — a virtual machine's hypervisor — may be larger), and no more than its 3 ms spin
    def largest_explained(c):
        return next((b for b in c["breakdown"] if b["kind"] != "unexplained"), None)
    tap(all(largest_explained(c) is i and i["duration_us"] <= 3600 for c, i in named),
        "(a) on every spike it is named in, it took the most time and at most its spin", listing(result))
    # the worst spike's timeline, when the culprit caused it: its pieces (interrupts cut it into
    # several) add up to the time from the timer's expiry to its switch-out, but for the
    # interrupts in between
    timeline = result["trace"].get("timeline", {})
    segments = timeline.get("segments", [])
    top = segments and max(segments, key=lambda s: s["duration_us"])
    if top and top.get("pid") == p.pid:
        held = timeline["switch_in_us"] - timeline["expiry_us"]
        share = sum(s["duration_us"] for s in segments if s.get("pid") == p.pid)
        tap(abs(share - held) <= 0.05 * held + 20,
            f"(a) worst spike: its share {share:.1f} µs is the time from the expiry to its switch-out, {held:.1f} µs",
            json.dumps(timeline))
    else:
        tap(True, "(a) worst spike: its share is the time from the expiry to its switch-out",
            skip="the worst spike of this run was not the culprit's")


def test_other_hog():
    p = culprit("other", 0, 0)
    result, err = measure()
    stop(p)
    if result is None:
        return tap(False, "(b) SCHED_OTHER hog: rt --trace ran", err)
    tap(not shape_errors(result), "(b) shape, sums, instance removed", "\n".join(shape_errors(result)))
    tap(not items(result, lambda i: i.get("pid") == p.pid),
        f"(b) the SCHED_OTHER hog (pid {p.pid}) is never named", listing(result))


def test_network_flood():
    add_namespaces(NS_A, NS_B)
    try:
        cable(NS_A, VETH_A, NS_B, VETH_B)
        sh("ip", "-n", NS_A, "addr", "add", f"{SUBNET}.1/24", "dev", VETH_A)
        sh("ip", "-n", NS_B, "addr", "add", f"{SUBNET}.2/24", "dev", VETH_B)
        # the receive processing of B's end goes to the measured CPU (RPS); sender and receiver
        # themselves run on CPU 0
        sh(*in_ns(NS_B, "sh", "-c", f"echo {1 << CPU:x} > /sys/class/net/{VETH_B}/queues/rx-0/rps_cpus"))
        server = start(NS_B, "iperf3", "-s", "-A", "0", "-p", "5299")
        run(NS_A, "sh", "-c", "sleep 0.5")
        client = start(NS_A, "iperf3", "-c", f"{SUBNET}.2", "-p", "5299", "-u", "-b", "0", "-l", "1400",
                       "-A", "0", "-t", str(SECONDS + 4))
        result, err = measure()
        stop(client)
        stop(server)
    finally:
        del_namespaces(NS_A, NS_B)
    if result is None:
        return tap(False, "(c) UDP flood: rt --trace ran", err)
    tap(not shape_errors(result), "(c) shape, sums, instance removed", "\n".join(shape_errors(result)))
    tap(bool(items(result, lambda i: i["kind"] == "softirq" and i["name"] == "NET_RX")),
        "(c) the network softirq NET_RX is named", listing(result))


def test_quiet():
    result, err = measure()
    if result is None:
        return tap(False, "(d) quiet: rt --trace ran", err)
    tap(not shape_errors(result), "(d) shape, sums, instance removed", "\n".join(shape_errors(result)))
    tap(not items(result, lambda i: i["kind"] == "task" and i["policy"].startswith(("SCHED_FIFO", "SCHED_RR"))),
        "(d) nothing injected: no real-time task named", listing(result))
    # A virtual machine (the CPU's hypervisor flag, as the audit reads it): each spike says so,
    # and one that no event explains names the hypervisor, not only the firmware.
    with open("/proc/cpuinfo") as f:
        vm = any(line.startswith("flags") and " hypervisor" in line for line in f)
    causes = result["latency_causes"]
    unexplained = [c for c in causes if c["breakdown"][0]["kind"] == "unexplained"]
    tap(all(c.get("virtual_machine", False) == vm for c in causes) and
        all(("virtual machine: the hypervisor" in c["sentence"]) == vm for c in unexplained),
        f"(d) {'a virtual machine' if vm else 'not a virtual machine'}: a spike no event explains "
        f"{'names' if vm else 'does not blame'} the hypervisor ({len(unexplained)} such)",
        "\n".join(c["sentence"] for c in unexplained))


def test_not_root():
    """As nobody: one line says why nothing was traced and how to allow it; it still measures."""
    folder = tempfile.mkdtemp(prefix="qf-cli-trace-")
    copy = os.path.join(folder, "qualify-cli")
    sh("cp", CLI, copy)
    os.chmod(folder, 0o755)
    try:
        rc, out, err, _ = run(None, copy, "rt", "--duration", "0.3", "--priority", "0", "--trace",
                              "--json", user="nobody")
        result = json.loads(out) if rc == 0 else {}
        lines = [line for line in err.splitlines() if "not traced" in line]
        tap(rc == 0 and result.get("cycles", 0) > 0 and result["trace"]["recorded"] is False
            and result["latency_causes"] == [] and len(lines) == 1 and "root" in lines[0],
            "without root: measured, and one line says why nothing was traced and how to allow it",
            err + out)
    finally:
        sh("rm", "-rf", folder)


def main():
    if os.geteuid() != 0 or os.cpu_count() < 2 or not os.path.isdir("/sys/kernel"):
        print("1..0 # SKIP needs root and two CPUs")
        return 0
    try:
        test_not_root()
        test_quiet()
        test_fifo_culprit()
        test_other_hog()
        test_network_flood()
    finally:
        end_children()
    return done()


if __name__ == "__main__":
    sys.exit(main())
