#!/usr/bin/python3
# test-nm-real.py — the network audit, `qualify-cli interfaces` and the NetworkManager fixes
# against the real NetworkManager daemon (Debian's 1.42), run in a network namespace this test
# creates with a private system bus, its own udevd and veth/dummy devices (tests/core).
# Conditions a veth or dummy can really have are set for real: offloads with ethtool -K, the MTU
# with ip link, RPS masks in /sys, an address method that waits for DHCP, a manual-address
# connection that does not come up by itself (its fix sets autoconnect only). Speaks TAP. Needs root
# and NetworkManager: skips otherwise. Every process it starts is stopped by its PID.

import difflib
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import del_namespaces, in_ns, results, sh, tap  # noqa: E402
from nmreal import RealNM, missing, wait_for  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
HELPER = os.environ.get("NM_FIX_HELPER", "nm-fix-helper")
PID = os.getpid()
nm = RealNM("nm")
NS, NS_PEER = nm.name, f"qf-nm-{PID}-peer"
# VA–VB: a direct cable to the peer namespace; VC–VD: one where nobody answers DHCP;
# VE–VF: added and removed while the list is read
VA, VB, VC, VD, VE, VF = (f"qn{x}{PID % 1000000}" for x in "abcdef")
SUBNET = f"10.78.{PID % 250}"
ADDR_A, ADDR_B = f"{SUBNET}.1", f"{SUBNET}.2"

tmp, env, children = nm.tmp, nm.env, nm.children
ns, nmcli, keyfile, show = nm.ns, nm.nmcli, nm.keyfile, nm.show


def peer(*args):
    return sh(*in_ns(NS_PEER, *args))


def setup():
    nm.create()
    subprocess.run(["ip", "netns", "add", NS_PEER], check=True)
    for a, b in ((VA, VB), (VC, VD)):
        subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b], check=True)
        subprocess.run(["ip", "link", "set", a, "netns", NS], check=True)
        subprocess.run(["ip", "link", "set", b, "netns", NS_PEER], check=True)
        peer("ip", "link", "set", b, "up")
    peer("ip", "addr", "add", f"{ADDR_B}/24", "dev", VB)
    nm.start()
    for dev in (VA, VC):
        nm.manage(dev)
    nmcli("connection", "add", "type", "ethernet", "ifname", VA, "con-name", "qf-a",
          "ipv4.method", "manual", "ipv4.addresses", f"{ADDR_A}/24", "ipv6.method", "disabled")
    nmcli("connection", "up", "qf-a")


def teardown():
    nm.teardown()
    del_namespaces(NS_PEER)


def interfaces():
    p = ns(CLI, "interfaces", "--json", check=False)
    return json.loads(p.stdout) if p.returncode == 0 else {"interfaces": [], "error": p.stderr}


def iface_state(name):
    for i in interfaces()["interfaces"]:
        if i["name"] == name:
            return i
    return None


def audit(iface, *extra):
    p = ns(CLI, "sysinfo", "--json", "--iface", iface, *extra, check=False, timeout=120)
    if p.returncode != 0:
        return {}, p.stderr
    return {c["id"]: c for c in json.loads(p.stdout)["network_audit"]}, p.stdout


def test_interfaces():
    data = interfaces()
    a = iface_state(VA)
    tap(data.get("source") == "networkmanager" and a is not None and a["state"] == "connected"
        and f"{ADDR_A}/24" in a["ipv4"] and a["speed_mbps"] == 10000,
        "interfaces: the veth as NetworkManager reports it (connected, address, speed)", data)
    subprocess.run(["ip", "link", "add", VE, "type", "veth", "peer", "name", VF], check=True)
    subprocess.run(["ip", "link", "set", VE, "netns", NS], check=True)
    subprocess.run(["ip", "link", "set", VF, "netns", NS], check=True)
    added = wait_for(lambda: iface_state(VE))
    tap(added is not None, "interfaces: a device added appears", interfaces())
    ns("ip", "link", "del", VE)
    gone = wait_for(lambda: iface_state(VE) is None)
    tap(gone, "interfaces: a device removed disappears", interfaces())
    nmcli("connection", "down", "qf-a")
    down = wait_for(lambda: (iface_state(VA) or {}).get("state") == "disconnected")
    tap(down, "interfaces: a connection taken down shows disconnected", iface_state(VA))
    nmcli("connection", "up", "qf-a")
    up = wait_for(lambda: (iface_state(VA) or {}).get("state") == "connected")
    tap(up, "interfaces: taken up again shows connected", iface_state(VA))


def test_audit_link():
    checks, raw = audit(VA)
    speed, duplex, method = checks.get("link-speed", {}), checks.get("duplex", {}), checks.get("ip-method", {})
    tap(speed.get("status") == "ok" and "10000" in speed.get("found", "")
        and duplex.get("status") == "ok" and "full" in duplex.get("found", ""),
        "audit: link speed and duplex as the veth driver reports them", raw)
    tap(method.get("status") == "ok" and "qf-a" in method.get("found", "")
        and "IPv4 manual" in method.get("found", "") and "connects by itself: yes" in method.get("found", ""),
        "audit: ip-method reads the connection NetworkManager holds", method)
    # EEE and coalescing: the audit agrees with the ethtool program on what veth reports
    for check, args in (("eee", ["--show-eee"]), ("coalescing", ["-c"])):
        reported = ns("ethtool", *args, VA, check=False).returncode == 0 if shutil.which("ethtool") else None
        c = checks.get(check, {})
        if reported is None:
            tap(c.get("status") in ("ok", "warn", "unknown"), f"audit: {check} present (no ethtool to compare)")
        elif reported:
            tap(c.get("status") in ("ok", "warn") and "not reported" not in c.get("found", ""),
                f"audit: {check} read where ethtool reads it", c)
        else:
            tap(c.get("status") == "unknown" and c.get("found") == "not reported by this card",
                f"audit: {check} says “not reported by this card” where ethtool cannot read it", c)


def test_audit_gro():
    ns("ethtool", "-K", VA, "gro", "on")
    on, _ = audit(VA)
    ns("ethtool", "-K", VA, "gro", "off")
    off, _ = audit(VA)
    g = on.get("gro", {})
    tap(g.get("status") == "warn" and "GRO on" in g.get("found", "")
        and f"ethtool -K {VA} gro off" in g.get("fix", "")
        and "nmcli connection modify qf-a ethtool.feature-gro off" in (g.get("fix_nm") or ""),
        "audit: GRO turned on with ethtool -K warns with both fixes", g)
    tap(off.get("gro", {}).get("status") == "ok" and "GRO off" in off["gro"]["found"],
        "audit: GRO turned off is ok", off.get("gro"))


def test_audit_mtu():
    ns("ip", "link", "set", VA, "mtu", "9000")
    peer("ip", "link", "set", VB, "mtu", "9000")
    both, _ = audit(VA, "--peer", ADDR_B)
    peer("ip", "link", "set", VB, "mtu", "1500")
    one, _ = audit(VA, "--peer", ADDR_B)
    none, _ = audit(VA)
    ns("ip", "link", "set", VA, "mtu", "1500")
    tap(both.get("mtu", {}).get("status") == "ok" and "carries them unfragmented" in both["mtu"]["found"],
        "audit: MTU 9000 at both ends: the path carries it", both.get("mtu"))
    tap(one.get("mtu", {}).get("status") == "fail" and "does not carry" in one["mtu"]["found"]
        and f"ip link set dev {VA} mtu 1500" in one["mtu"]["fix"],
        "audit: MTU 9000 here, 1500 at the peer: the path fails", one.get("mtu"))
    tap(none.get("mtu", {}).get("status") == "warn" and "not checked" in none["mtu"]["found"],
        "audit: jumbo MTU without a peer: path not checked, a warning", none.get("mtu"))


def test_audit_rps():
    path = f"/sys/class/net/{VA}/queues/rx-0/rps_cpus"
    ns("sh", "-c", f"echo 1 > {path}")
    checks, _ = audit(VA)
    ns("sh", "-c", f"echo 0 > {path}")
    c = checks.get("irq-affinity", {})
    tap("RPS rx-0: 0" in c.get("found", ""), "audit: an RPS mask written in /sys shows", c)


def test_audit_dhcp_waits():
    # a direct cable whose other end runs no DHCP server
    ns("ip", "link", "set", VC, "up")
    nmcli("connection", "add", "type", "ethernet", "ifname", VC, "con-name", "qf-dhcp",
          "ipv4.method", "auto", "ipv4.dhcp-timeout", "infinity", "ipv6.method", "disabled")
    nmcli("connection", "up", "qf-dhcp", "--wait", "0", check=False)
    waiting = wait_for(lambda: "connecting" in nmcli("-t", "-f", "DEVICE,STATE", "device").stdout)
    checks, _ = audit(VC)
    c = checks.get("ip-method", {})
    tap(waiting and c.get("status") == "fail" and "no DHCP lease" in c.get("found", "")
        and "ipv4.method link-local" in (c.get("fix_nm") or ""),
        "audit: a connection waiting for DHCP that never answers fails",
        f"{c}\n{nmcli('device', check=False).stdout}")


def settings_only(text):
    # the connection's settings, without the active connection's runtime state
    return "\n".join(l for l in text.splitlines()
                     if not l.startswith(("GENERAL.", "IP4.", "IP6.", "DHCP4.", "DHCP6.",
                                          "connection.timestamp")))


def without_timestamp(data):
    # the last-used time: `nmcli connection modify` writes it into the key file, while the fix
    # leaves it to NetworkManager's timestamps file (qf-nm-fix.c, write_settings)
    return b"".join(l for l in data.splitlines(keepends=True) if not l.startswith(b"timestamp="))


def apply_and_undo(check, connection, verify, iface=VA):
    before_file, before_show = without_timestamp(keyfile(connection)), show(connection)
    p = subprocess.Popen(["ip", "netns", "exec", NS, HELPER, iface, check], env=env, text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children.append(p)
    lines = []
    while True:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("applied"):
            break
    applied = lines and lines[-1] == "applied"
    during_file, during_show = (keyfile(connection), show(connection)) if applied else (b"", "")
    verified = applied and verify(during_show)
    out, err = p.communicate("undo\n", timeout=60)
    after_file, after_show = without_timestamp(keyfile(connection)), show(connection)
    tap(applied and verified and during_file != before_file,
        f"apply {check}: NetworkManager holds the change as nmcli shows it",
        during_show + "\n" + "\n".join(lines) + err)
    tap("undone" in out and after_file == before_file,
        f"undo {check}: the key file is restored byte for byte",
        out + err + "\n" + "\n".join(difflib.unified_diff(before_file.decode().splitlines(),
                                                          after_file.decode().splitlines(), "before", "after")))
    tap(settings_only(after_show) == settings_only(before_show),
        f"undo {check}: nmcli -t connection show is as before",
        "\n".join(set(after_show.splitlines()) ^ set(before_show.splitlines())))
    if after_show != before_show:
        print("# runtime lines that differ: " + ", ".join(
            sorted({l.split(":")[0] for l in set(after_show.splitlines()) ^ set(before_show.splitlines())})))


def test_apply_undo():
    ns("ethtool", "-K", VA, "gro", "on")
    apply_and_undo("gro", "qf-a",
                   lambda s: "ethtool.feature-gro:off" in s
                   and wait_for(lambda: "generic-receive-offload: off" in ns("ethtool", "-k", VA).stdout))
    # a manual-address connection that does not come up by itself: the row recommends
    # autoconnect, so Apply sets that alone and keeps the fixed address
    nmcli("connection", "modify", "qf-a", "connection.autoconnect", "no")
    apply_and_undo("ip-method", "qf-a",
                   lambda s: "connection.autoconnect:yes" in s and "ipv4.method:manual" in s
                   and f"ipv4.addresses:{ADDR_A}/24" in s)
    nmcli("connection", "modify", "qf-a", "connection.autoconnect", "yes")
    # waiting for a DHCP lease nobody gives: link-local
    apply_and_undo("ip-method", "qf-dhcp",
                   lambda s: "ipv4.method:link-local" in s and "ipv6.method:link-local" in s, iface=VC)
    p = ns(HELPER, VA, "eee", check=False, input="")
    tap(p.returncode == 1 and "cannot hold" in p.stdout, "EEE: NetworkManager 1.42 cannot hold it, said so", p.stdout)


def main():
    lack = missing()
    if lack:
        print(f"1..0 # SKIP needs {', '.join(lack)}")
        return 0
    print("1..26")
    try:
        setup()
        test_interfaces()
        test_audit_link()
        test_audit_gro()
        test_audit_mtu()
        test_audit_rps()
        test_audit_dhcp_waits()
        test_apply_undo()
    except Exception as e:  # noqa: BLE001 - report, then clean up
        tap(False, "setup or a step raised", repr(e) + "\n" + nm.log())
    finally:
        teardown()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
