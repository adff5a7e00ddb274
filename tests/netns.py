"""netns.py — the helpers the Python tests share for TAP output, commands and processes in
network namespaces (or on loopback), a veth cable between two namespaces, link-local addresses,
ports and bounded waits (tests/cli, tests/core, tests/ui; next to tests/nmreal.py).

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from netns import tap, done, in_ns, run, start, stop   # noqa: E402

The rules they keep, and a test using them keeps too:
  - traffic only on loopback or in the namespaces the test creates (names carrying its PID) and
    deletes at the end (del_namespaces), never on the machine's own interfaces;
  - a process is ended only by its PID and only when the test started it: start() keeps each in
    `children`, stop() ends one, end_children() the ones still running; never by name;
  - every loop and wait is bounded, and every wall-time bound is scaled by QF_TEST_TIME_SCALE
    (SCALE; docs/testing.md) so that a loaded machine does not fail the test.

TAP: tap(ok, name, diag, keep=30, skip=None) prints "ok N name" or "not ok N name" (and the
last `keep` lines of diag as comments when it failed; keep=None prints them all) and appends ok
to `results`; done() prints the plan "1..N" and returns the exit status (0: all passed).
Commands: sh() runs one here, in_ns(ns, ...) is that command inside namespace ns (ns None: here),
run() runs one in a namespace (as nobody with user="nobody", stdin_text as its input) and
returns (rc, stdout, stderr, seconds); start() starts one with pipes, stop() ends it with a
signal (SIGTERM unless told), killing it when it outlives the timeout.
Namespaces: add_namespaces() with lo up, cable() a veth pair between two, direct_cable() two
namespaces joined with IPv6 link-local addresses only (a direct cable with no DHCP), link_local()
a device's usable fe80:: address, del_namespaces().
Ports: listening() (ss in a namespace), wait_port(), free_port() for a responder on loopback,
port_free()."""
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time

try:
    SCALE = max(1.0, float(os.environ.get("QF_TEST_TIME_SCALE", "1") or 1))
except ValueError:
    SCALE = 1.0
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

results = []    # one bool per TAP line printed
children = []   # every process start() started, ended by PID in end_children()


def scaled(seconds):
    """A wall-time bound stretched by QF_TEST_TIME_SCALE for a loaded machine."""
    return seconds * SCALE


def tap(ok, name, diag="", keep=30, skip=None):
    """One TAP line for ok (a skip passes and says why); a failure's diag follows as comments,
    its last `keep` lines (None: all). A name of several lines (a command shown with its line
    breaks) is kept on the TAP line with its breaks written as ⏎. Returns ok."""
    name = " ⏎ ".join(str(name).splitlines())
    results.append(True if skip else ok)
    if skip:
        print(f"ok {len(results)} {name} # SKIP {skip}")
    else:
        print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    if not ok and diag:
        lines = str(diag).splitlines()
        for line in lines if keep is None else lines[-keep:]:
            print(f"# {line}")
    sys.stdout.flush()
    return ok


def done():
    """Prints the plan for the lines tap() printed; the exit status: 0 when all passed."""
    print(f"1..{len(results)}")
    return 0 if all(results) else 1


def wait_until(check, seconds, step=0.05):
    """check's first true value within seconds (scaled), polled every step; else its last."""
    end = time.monotonic() + seconds * SCALE
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(step)
    return check()


# ---- commands and processes -------------------------------------------------------------------

def sh(*args, check=True):
    """Runs a command here and returns its CompletedProcess (text output captured)."""
    return subprocess.run(args, check=check, capture_output=True, text=True)


def in_ns(ns, *args):
    """The command line that runs args inside namespace ns (ns None: in this one)."""
    return ["ip", "netns", "exec", ns, *args] if ns else list(args)


def run(ns, *args, user=None, timeout=60, stdin_text=None):
    """Runs a command in ns to its end (user="nobody": as nobody; stdin_text: its input; timeout
    scaled): (exit status, stdout, stderr, seconds taken)."""
    cmd = in_ns(ns, *(NOBODY if user == "nobody" else []), *args)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * SCALE, input=stdin_text)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def start(ns, *args):
    """Starts a command in ns with its output on pipes (text) and keeps it in children."""
    p = subprocess.Popen(in_ns(ns, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children.append(p)
    return p


def stop(p, sig=signal.SIGTERM, timeout=10):
    """Ends a process this test started: sig to its PID, SIGKILL when it still runs after timeout
    (scaled). (exit status, stdout, stderr) — the output it had left on its pipes."""
    if p.poll() is None:
        p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=timeout * SCALE)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return p.returncode, out, err


def end_children():
    """Kills, by PID, each process start() started that still runs, and reaps it."""
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()


# ---- namespaces and the cable between them ----------------------------------------------------

def add_namespaces(*names):
    """Creates each namespace with its loopback up."""
    for ns in names:
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")


def del_namespaces(*names):
    """Deletes the namespaces this test created (a missing one is no error)."""
    for ns in names:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def cable(ns_a, dev_a, ns_b, dev_b, dad=True):
    """A veth pair dev_a–dev_b with its ends in ns_a and ns_b, both up, no address added. With
    dad=False the IPv6 link-local addresses skip duplicate address detection (usable at once)."""
    sh("ip", "link", "add", dev_a, "type", "veth", "peer", "name", dev_b)
    for ns, dev in ((ns_a, dev_a), (ns_b, dev_b)):
        sh("ip", "link", "set", dev, "netns", ns)
        if not dad:
            sh(*in_ns(ns, "sysctl", "-q", "-w", f"net.ipv6.conf.{dev}.accept_dad=0"))
        sh("ip", "-n", ns, "link", "set", dev, "up")


def link_local(ns, dev):
    """dev's IPv6 link-local address in ns (None: here) once it is usable (not tentative), else
    None."""
    out = sh(*(["ip", "-n", ns] if ns else ["ip"]), "-6", "addr", "show", "dev", dev, "scope", "link",
             check=False).stdout
    if "tentative" in out:
        return None
    found = re.search(r"inet6 (fe80:[0-9a-f:]*)/", out)
    return found.group(1) if found else None


def direct_cable(ns_a, dev_a, ns_b, dev_b, seconds=10):
    """Namespaces ns_a and ns_b joined by a veth with IPv6 link-local addresses only, as two PCs
    on a direct cable (no IPv4, no DHCP). True once both addresses are usable within seconds."""
    add_namespaces(ns_a, ns_b)
    cable(ns_a, dev_a, ns_b, dev_b, dad=False)
    return bool(wait_until(lambda: link_local(ns_a, dev_a) and link_local(ns_b, dev_b), seconds))


# ---- ports -------------------------------------------------------------------------------------

def listening(ns, port, proto="tcp"):
    """Something in ns (None: here) listens on port (proto "tcp" or "udp")."""
    flag = "-ltn" if proto == "tcp" else "-lun"
    return bool(sh(*in_ns(ns, "ss", "-H", flag, f"sport = :{port}"), check=False).stdout.strip())


def wait_port(ns, port, proto="tcp", seconds=5):
    """True once something in ns listens on port within seconds (scaled)."""
    return wait_until(lambda: listening(ns, port, proto), seconds)


def free_port(span=None):
    """A port free for both TCP and UDP on 127.0.0.1 (a responder binds both), drawn at random
    from range(*span); by default below the kernel's ephemeral range, since a port the kernel
    hands out could become another test's outgoing connection before the responder binds it."""
    if span is None:
        try:
            with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
                low = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            low = 32768
        span = (low - 10000, low) if low > 11024 else None
    for _ in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
            try:
                t.bind(("127.0.0.1", random.randrange(*span) if span else 0))
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


def port_free(port):
    """Nothing holds TCP port on 127.0.0.1 (it can be bound now)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False
