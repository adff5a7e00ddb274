"""nmreal.py — the real NetworkManager (Debian's 1.42) in a network namespace with a private
system bus, for the tests that check Qualify against the daemon itself (tests/core/test-nm-real.py,
tests/ui/test-net-audit.py).

    nm = RealNM("nm")              # names with the test's PID; nothing created yet
    nm.create()                    # the namespace, lo up
    ...move devices in...
    nm.start()                     # private system bus, udevd, NetworkManager (keyfile plugin)
    nm.manage(dev); nm.nmcli("connection", "add", ...)
    nm.keyfile("name"), nm.show("name")
    nm.teardown()                  # every process stopped by its PID, the namespace deleted

NetworkManager runs in a mount namespace of its own (private /run/udev, /run/NetworkManager,
/var/lib/NetworkManager) and keeps its connections as key files in a temporary folder. Root
only: missing() says what is lacking."""
import os
import shutil
import signal
import subprocess
import tempfile

from netns import wait_until


def wait_for(predicate, seconds=20):
    """predicate's first true value within seconds (scaled by QF_TEST_TIME_SCALE), else its last."""
    return wait_until(predicate, seconds, step=0.2)


def missing():
    """What this machine lacks for the real daemon: [] when a test can run it."""
    needed = ["NetworkManager", "nmcli", "dbus-daemon", "udevadm", "ethtool", "unshare"]
    lack = [n for n in needed if shutil.which(n) is None]
    if not os.path.exists("/lib/systemd/systemd-udevd"):
        lack.append("systemd-udevd")
    if os.geteuid() != 0:
        lack.insert(0, "root")
    return lack


class RealNM:
    def __init__(self, tag, tmp=None, name=None):
        self.name = name or f"qf-{tag}-{os.getpid()}"
        self.tmp = tmp or tempfile.mkdtemp(prefix=f"qf-{tag}-")
        self.bus = f"unix:path={self.tmp}/system_bus_socket"
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus)
        self.pids = {}
        self.children = []

    # ------------------------------------------------------------ commands in the namespace

    def ns(self, *args, check=True, input=None, timeout=60):
        return subprocess.run(["ip", "netns", "exec", self.name, *args], env=self.env, check=check,
                              input=input, capture_output=True, text=True, timeout=timeout)

    def nmcli(self, *args, check=True):
        return self.ns("nmcli", *args, check=check)

    def keyfile(self, connection):
        with open(f"{self.tmp}/conns/{connection}.nmconnection", "rb") as f:
            return f.read()

    def show(self, connection):
        return self.nmcli("-t", "connection", "show", connection).stdout

    def log(self):
        path = f"{self.tmp}/nm.log"
        return open(path).read() if os.path.exists(path) else ""

    # ------------------------------------------------------------ setup

    def create(self):
        subprocess.run(["ip", "netns", "add", self.name], check=True)
        self.ns("ip", "link", "set", "lo", "up")

    def _start_bus(self):
        conf = f"{self.tmp}/bus.conf"
        with open(conf, "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>{self.bus}</listen>
<includedir>/usr/share/dbus-1/system.d</includedir>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/>
<allow send_destination="*" eavesdrop="true"/><allow receive_sender="*"/></policy>
<policy context="mandatory"><allow send_destination="*"/></policy></busconfig>""")
        out = subprocess.run(["dbus-daemon", f"--config-file={conf}", "--fork", "--print-pid"],
                             capture_output=True, text=True, check=True).stdout
        self.pids["dbus"] = int(out.split()[0])

    def _start_nm(self):
        tmp = self.tmp
        conf = f"{tmp}/nm.conf"
        os.makedirs(f"{tmp}/conns")
        with open(conf, "w") as f:
            f.write(f"[main]\nplugins=keyfile\nno-auto-default=*\n[keyfile]\npath={tmp}/conns\n"
                    "[logging]\nlevel=WARN\n")
        script = f"""set -e
mkdir -p /run/udev
mount -t tmpfs tmpfs /run/udev
mkdir -p /run/NetworkManager /var/lib/NetworkManager
mount -t tmpfs tmpfs /run/NetworkManager
mount -t tmpfs tmpfs /var/lib/NetworkManager
/lib/systemd/systemd-udevd & echo $! > {tmp}/udevd.pid
for i in $(seq 100); do [ -S /run/udev/control ] && break; sleep 0.1; done
udevadm trigger --action=add --subsystem-match=net
udevadm settle -t 20
exec NetworkManager --no-daemon --config={conf} --state-file={tmp}/nm.state --pid-file={tmp}/nm.pid
"""
        p = subprocess.Popen(["ip", "netns", "exec", self.name, "unshare", "-m", "--propagation", "private",
                              "sh", "-c", script], env=self.env, stdout=subprocess.DEVNULL,
                             stderr=open(f"{tmp}/nm.log", "w"))
        self.children.append(p)
        self.pids["nm"] = p.pid
        return wait_for(lambda: self.nmcli("-t", "general", "status", check=False).returncode == 0, 30)

    def start(self):
        """The private system bus, then udevd and NetworkManager; raises when NM does not answer."""
        self._start_bus()
        if not self._start_nm():
            raise RuntimeError("NetworkManager did not start: " + self.log())

    def manage(self, dev):
        """Waits until NetworkManager lists dev, then has it manage it (Debian's udev rule leaves
        veth unmanaged)."""
        wait_for(lambda: dev in self.nmcli("-t", "-f", "DEVICE", "device", check=False).stdout)
        self.nmcli("device", "set", dev, "managed", "yes")

    def teardown(self):
        for name in ("nm", "udevd", "dbus"):
            pid = self.pids.get(name)
            for key, file in (("udevd", "udevd.pid"), ("nm", "nm.pid")):
                if name == key and os.path.exists(f"{self.tmp}/{file}"):
                    pid = int(open(f"{self.tmp}/{file}").read())
            if pid:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in self.children:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        subprocess.run(["ip", "netns", "del", self.name], check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)
