#!/usr/bin/python3
"""test-cli-paste.py — what Qualify shows to paste is safe to paste (issue 30, item 4).

Linux lets an interface be called `a$(id>P1)`, `c;id>P3`, `x`id>P2``, or hold ESC, DEL, a C1
control or bytes that are not UTF-8 (anything but '/', ':' and white space). This test:
  1. creates such interfaces in a network namespace of its own (veth pairs, GRO turned on and
     the MTU set to 1000, so the network audit has fixes to show), runs `qualify-cli sysinfo
     --iface NAME` there, as text and as --json, and `qualify-cli discover --iface NAME` on the
     interface while it is down (its error tells how to bring it up);
  2. runs the same audit on a fixture PC (--root, tests/core/fixtures/net-audit) with cards of
     such names, NetworkManager connections whose names hold shell characters and a Wi-Fi card
     without iw, so every kind of fix appears: ethtool, ip, iw, apt, nmcli add and modify, and
     the `echo … > /sys/class/net/NAME/…` of the RPS/XPS fix;
  3. pastes every command shown (the `$ ` lines of the text, `fix` and `fix_nm` of the JSON, the
     command in the discover error) into bash, in a private mount namespace whose /sys and
     /proc/irq are empty tmpfs, with PATH holding only stubs that record their arguments (and
     `echo` a stub too): no file P1…P8 appears (nothing else ran), each stub received exactly
     the interface's (or connection's) name as one argument, and the `echo` redirect wrote the
     file under a folder of exactly the interface's name.
It also checks that the text output carries no raw control character. Root only; skipped
otherwise."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import SCALE, tap, done, add_namespaces, del_namespaces  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "build/src/cli/qualify-cli")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(TOP, "tests", "core", "fixtures", "net-audit")
NS = f"qfpaste{os.getpid()}"
ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/nonexistent"}
MARKERS = [f"P{i}" for i in range(1, 9)]

# Interface names (each at most 15 bytes) and NetworkManager connection names.
# (--iface is read as UTF-8, as GOption reads every string option: a name that is not UTF-8 is
# refused before any command is built; qf_text_shell_word's own test covers such bytes.)
NAMES = [b"a$(id>P1)", b"c;id>P3", b"x`id>P2`", b"q'$(id>P4)'", b"e\x1b[31mX", b"u\xc2\x9b" b"1",
         b'b\\$HOME"', b"t\x07\x7f"]
WIFI_NAMES = [b"w$(id>P7)", b"v;id>P8"]
CONNECTIONS = {b"a$(id>P1)": b"w$(id>P5) 1", b"c;id>P3": b"k;id>P6", b"x`id>P2`": b"e\x1b]0;x\x07",
               b"w$(id>P7)": b"it's $(id>P5)"}
STUBS = ["ethtool", "ip", "iw", "nmcli", "apt", "echo", "sudo", "id"]


def run(args, ns=None, timeout=60):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + ["env", "-i"] + \
          [f"{k}={v}" for k, v in ENV.items()] + [CLI] + list(args)
    p = subprocess.run(cmd, capture_output=True, timeout=timeout * SCALE)
    return p.returncode, p.stdout, p.stderr


def text_commands(out):
    """The commands of sysinfo's text: what follows "$ " on a line."""
    found = []
    for line in out.split(b"\n"):
        at = line.find(b"$ ")
        if at >= 0 and line[:at].strip() in (b"", b"NetworkManager:"):
            found.append(line[at + 2:])
    return found


def json_commands(out):
    try:
        data = json.loads(out)
    except ValueError:
        return []
    found = []
    for check in data.get("network_audit", []):
        for key in ("fix", "fix_nm"):
            if check.get(key):
                found.append(check[key].encode())
    return found


def raw_controls(data):
    """Control characters (besides newline) in text a terminal would show."""
    text = data.decode("utf-8", errors="replace")
    return [hex(ord(c)) for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]


class Paster:
    """Pastes commands into bash with stub tools, in a mount namespace with empty /sys and
    /proc/irq, and reports what ran."""

    def __init__(self, top, names):
        self.top = top
        self.names = names
        self.stubs = os.path.join(top, "stubs")
        os.makedirs(self.stubs)
        for tool in STUBS:
            path = os.path.join(self.stubs, tool)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n"
                        "n=0; while [ -e \"$QF_PASTE_LOG/$n\" ]; do n=$((n + 1)); done\n"
                        "printf '%s\\0' \"${0##*/}\" \"$@\" > \"$QF_PASTE_LOG/$n\"\n"
                        "[ \"${0##*/}\" = echo ] && printf '%s\\n' \"$*\"\n"
                        "exit 0\n")
            os.chmod(path, 0o755)

    def paste(self, command):
        """(files left in the work folder, argv lists the stubs received, files under /sys and
        /proc/irq afterwards as {path bytes: content bytes})."""
        work = tempfile.mkdtemp(dir=self.top)
        log = os.path.join(work, ".log")
        after = os.path.join(work, ".after")
        os.makedirs(log)
        with open(os.path.join(work, ".cmd"), "wb") as f:
            f.write(b"enable -n echo\n" + command + b"\n")
        dirs = [b"/sys/class/net/" + n + b"/queues/" + q for n in self.names for q in (b"rx-0", b"tx-0")]
        setup = (b"mount -t tmpfs qfpaste /sys && mount -t tmpfs qfpaste /proc/irq && "
                 b"mkdir -p /proc/irq/124 /proc/irq/125 \"$@\" && "
                 b"(cd \"$QF_PASTE_WORK\" && env -i PATH=\"$QF_PASTE_STUBS\" QF_PASTE_LOG=\"$QF_PASTE_LOG\" "
                 b"/bin/bash --norc --noprofile < .cmd > /dev/null 2>&1); "
                 b"mkdir \"$QF_PASTE_AFTER\" && cp -a /sys /proc/irq \"$QF_PASTE_AFTER\"/")
        env = dict(ENV, QF_PASTE_WORK=work, QF_PASTE_LOG=log, QF_PASTE_STUBS=self.stubs,
                   QF_PASTE_AFTER=after)
        subprocess.run(["unshare", "-m", "--propagation", "private", "/bin/sh", "-c", setup, "sh", *dirs],
                       env=env, capture_output=True, timeout=30 * SCALE)
        left = [f for f in os.listdir(work) if not f.startswith(".")]
        calls = []
        for entry in sorted(os.listdir(log), key=int):
            with open(os.path.join(log, entry), "rb") as f:
                calls.append(f.read().split(b"\0")[:-1])
        written = {}
        for root, _, files in os.walk(after.encode()):
            for name in files:
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    written[path[len(after.encode()):]] = f.read()
        return left, calls, written


def check_command(paster, label, command, name, connection):
    """One pasted command: nothing else ran, and the name reached the tool whole."""
    left, calls, written = paster.paste(command)
    shown = command.decode("utf-8", errors="backslashreplace")
    ran = [m for m in MARKERS if m in left] + [c[0].decode() for c in calls if c[0] in (b"id", b"sudo")]
    tap(not ran, f"{label}: pasting `{shown}` runs nothing else", f"ran: {ran}\nleft: {left}")
    if command.startswith(b"echo ") and b"/sys/class/net/" in command:
        target = [p for p in written if p.startswith(b"/sys/class/net/" + name + b"/queues/")
                  and written[p].strip()]
        tap(bool(target), f"{label}: `{shown}` writes below /sys/class/net/<exactly the name>/",
            f"written: {sorted(written)}")
        return
    if command.startswith(b"echo "):
        return
    if command.startswith(b"apt install"):
        tap([b"apt", b"install", b"iw"] in calls, f"{label}: `apt install iw` runs as shown", f"calls: {calls}")
        return
    want = connection if command.startswith(b"nmcli connection modify") else name
    args = [a for call in calls for a in call[1:]]
    tap(want in args, f"{label}: `{shown}` hands the tool exactly the name {want!r}",
        f"calls: {calls}")


def real_interfaces(paster):
    add_namespaces(NS)
    for i, name in enumerate(NAMES):
        subprocess.run(["ip", "-n", NS, "link", "add", name, "type", "veth", "peer", "name", f"qp{i}"],
                       check=True, capture_output=True)
        subprocess.run(["ip", "netns", "exec", NS, "ethtool", "-K", name, "gro", "on"], capture_output=True)
        subprocess.run(["ip", "-n", NS, "link", "set", name, "mtu", "1000"], check=True, capture_output=True)
    for name in NAMES:
        label = f"veth {name!r}"
        rc, out, err = run(["sysinfo", "--iface", name], ns=NS)
        commands = text_commands(out)
        tap(rc == 0 and len(commands) >= 2, f"{label}: sysinfo --iface shows its fixes",
            (out + err).decode(errors="backslashreplace"))
        tap(not raw_controls(out + err), f"{label}: sysinfo prints no raw control character",
            str(raw_controls(out + err)))
        for command in commands:
            check_command(paster, label, command, name, None)
        rc, out, err = run(["sysinfo", "--iface", name, "--json"], ns=NS)
        tap(rc == 0 and json_commands(out) and not raw_controls(out),
            f"{label}: sysinfo --json shows the fixes and carries no raw control character",
            str(raw_controls(out)) + "\n" + (out + err).decode(errors="backslashreplace"))
        for command in json_commands(out):
            check_command(paster, label + " (json)", command, name, None)
        rc, out, err = run(["discover", "--iface", name, "--time", "1"], ns=NS)
        start, end = err.find("“ip link set ".encode()), err.find(" up”".encode())
        tap(rc != 0 and 0 <= start < end and not raw_controls(err),
            f"{label}: discover on the interface while it is down says how to bring it up, cleanly",
            err.decode(errors="backslashreplace"))
        if 0 <= start < end:
            check_command(paster, label + " (discover)", err[start + len("“".encode()):end + 3], name, None)


def fixture_pc(top):
    """tests/core/fixtures/net-audit with its eth0 and wlan1 copied under the hostile names and
    NetworkManager connections named as CONNECTIONS says."""
    root = os.path.join(top, "root")
    shutil.copytree(FIXTURE, root, symlinks=True)
    kernel = os.path.join(root, "proc", "sys", "kernel")
    os.makedirs(kernel, exist_ok=True)
    for name, text in (("osrelease", "6.1.0-test\n"), ("version", "#1 SMP PREEMPT_DYNAMIC\n")):
        with open(os.path.join(kernel, name), "w") as f:
            f.write(text)
    net = os.path.join(root, "sys", "class", "net").encode()
    connections = os.path.join(root, "etc", "NetworkManager", "system-connections").encode()
    for i, name in enumerate(NAMES + WIFI_NAMES):
        model = b"wlan1" if name in WIFI_NAMES else b"eth0"
        shutil.copytree(os.path.join(net, model), os.path.join(net, name), symlinks=True)
        shutil.copy(os.path.join(root.encode(), b"ethtool", model), os.path.join(root.encode(), b"ethtool", name))
        if name in CONNECTIONS:
            kind = b"wifi" if name in WIFI_NAMES else b"ethernet"
            with open(os.path.join(connections, b"hostile%d.nmconnection" % i), "wb") as f:
                f.write(b"[connection]\nid=" + CONNECTIONS[name] + b"\nuuid=0f3c1f0e-8a55-4d2e-9a39-3a0f6d0d8e%02x\n" % i
                        + b"type=" + kind + b"\ninterface-name=" + name + b"\n\n"
                        + (b"[wifi]\nmode=infrastructure\nssid=lab\n\n" if kind == b"wifi" else b"[ethernet]\n\n")
                        + b"[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n")
            os.chmod(os.path.join(connections, b"hostile%d.nmconnection" % i), 0o600)
    return root


def fixture_interfaces(paster, top):
    root = fixture_pc(top)
    kinds = set()
    for name in NAMES + WIFI_NAMES:
        label = f"fixture {name!r}"
        for mode in ("text", "json"):
            rc, out, err = run(["sysinfo", "--root", root, "--iface", name] + (["--json"] if mode == "json" else []))
            commands = text_commands(out) if mode == "text" else json_commands(out) if rc == 0 else []
            tap(rc == 0 and commands and not raw_controls(out + err),
                f"{label}: sysinfo --root --iface ({mode}) shows fixes and no raw control character",
                (out + err).decode(errors="backslashreplace"))
            for command in commands:
                kinds.add(b" ".join(command.split(b" ")[:2]))
                check_command(paster, f"{label} ({mode})", command, name, CONNECTIONS.get(name))
    for kind in (b"ethtool -K", b"ethtool --set-eee", b"iw dev", b"nmcli connection", b"apt install",
                 b"echo 3", b"echo 0-1"):
        tap(any(k.startswith(kind) for k in kinds), f"the fixture PC shows a `{kind.decode()}` fix",
            str(sorted(kinds)))


def main():
    needs = [t for t in ("unshare", "ethtool", "ip") if shutil.which(t) is None]
    if os.geteuid() != 0 or needs:
        print(f"1..0 # SKIP needs root and {', '.join(needs) or 'nothing else'}")
        return 0
    top = tempfile.mkdtemp(prefix="qf-paste-")
    try:
        paster = Paster(top, NAMES + WIFI_NAMES)
        real_interfaces(paster)
        fixture_interfaces(paster, top)
    finally:
        del_namespaces(NS)
        shutil.rmtree(top, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
