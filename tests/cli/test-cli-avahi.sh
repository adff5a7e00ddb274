#!/bin/bash
# test-cli-avahi.sh — DNS-SD interop with avahi (tests/cli): two network namespaces joined by a
# veth with only IPv6 link-local addresses, created and removed here. avahi-daemon runs in B on
# a private system bus of its own; `qualify-cli serve` in A must show in B's `avahi-browse` as a
# `_qualify._tcp` service with its port and TXT record. Then an avahi-daemon runs in A as well,
# next to serve (both on UDP 5353), and `qualify-cli discover` in B must still find the helper.
# Speaks TAP. Needs root, avahi-daemon and avahi-browse: skips otherwise. Only processes this
# test started are stopped, by PID.
set -u
CLI=${QUALIFY_CLI:-qualify-cli}
SCALE=${QF_TEST_TIME_SCALE:-1}
case $SCALE in ''|*[!0-9.]*) SCALE=1 ;; esac
secs() { awk -v s="$SCALE" -v t="$1" 'BEGIN { v = t * s; if (v < t) v = t; printf "%d", v + 0.5 }'; }

if [ "$(id -u)" != 0 ] || ! command -v avahi-daemon >/dev/null || ! command -v avahi-browse >/dev/null \
   || ! command -v dbus-daemon >/dev/null || ! command -v ip >/dev/null; then
  echo "1..0 # SKIP needs root, ip, dbus-daemon, avahi-daemon and avahi-browse"
  exit 0
fi

A=qf-avahi-$$-a; B=qf-avahi-$$-b; VA=qav$$; VB=qbv$$
T=$(mktemp -d)
PIDS=""
n=0; failed=0
tap() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; printf '# %s\n' "${3:-}" | tail -20; fi; }
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  for p in $PIDS; do for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
  ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
echo "1..4"

ip netns add $A && ip netns add $B && ip link add $VA type veth peer name $VB &&
  ip link set $VA netns $A && ip link set $VB netns $B || { echo "Bail out! cannot create the namespaces"; exit 1; }
for ns in $A $B; do ip -n $ns link set lo up; done
ip netns exec $A sysctl -qw net.ipv6.conf.$VA.accept_dad=0
ip netns exec $B sysctl -qw net.ipv6.conf.$VB.accept_dad=0
ip -n $A link set $VA up; ip -n $B link set $VB up
for _ in $(seq 50); do
  ip -n $B -6 addr show dev $VB | grep -q "scope link" && ip -n $A -6 addr show dev $VA | grep -q "scope link" && break
  sleep 0.1
done

# One private system bus and avahi-daemon per namespace; avahi finds its bus at the usual path
# in a private mount namespace (a tmpfs on /run), and nothing of this machine's /run is touched.
start_avahi() {  # ns iface tag
  local ns=$1 dev=$2 tag=$3
  cat > "$T/bus-$tag.conf" <<EOC
<busconfig><type>system</type><listen>unix:path=$T/bus-$tag</listen><auth>EXTERNAL</auth>
<includedir>/usr/share/dbus-1/system.d</includedir>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
EOC
  local bus; bus=$(ip netns exec "$ns" dbus-daemon --config-file="$T/bus-$tag.conf" --fork --print-pid) || return 1
  PIDS="$PIDS $bus"
  printf '[server]\nuse-ipv4=yes\nuse-ipv6=yes\nallow-interfaces=%s\nenable-dbus=yes\n[publish]\npublish-addresses=no\npublish-workstation=no\n' "$dev" > "$T/avahi-$tag.conf"
  ip netns exec "$ns" unshare -m sh -c "mount -t tmpfs tmpfs /run && mkdir -p /run/avahi-daemon /run/dbus &&
      ln -s $T/bus-$tag /run/dbus/system_bus_socket &&
      exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f $T/avahi-$tag.conf" > "$T/avahi-$tag.log" 2>&1 &
  PIDS="$PIDS $!"
  for _ in $(seq 100); do grep -q "Server startup complete" "$T/avahi-$tag.log" && return 0; sleep 0.1; done
  return 1
}
browse() {  # ns tag
  ip netns exec "$1" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/bus-$2" timeout "$(secs 8)" avahi-browse -rpt _qualify._tcp 2>&1
}

start_avahi $B $VB b; tap $? "avahi-daemon starts in B" "$(cat "$T/avahi-b.log")"
ip netns exec $A "$CLI" serve --latency-port 11111 --bandwidth-port 5201 > "$T/serve.log" 2>&1 &
PIDS="$PIDS $!"
sleep 1
out=""
for _ in $(seq 3); do
  out=$(browse $B b)
  echo "$out" | grep -q '^=;.*;_qualify\._tcp;local;.*;11111;.*"lat=11111".*' && break
done
echo "$out" | grep -q '^=;.*;_qualify\._tcp;local;[^;]*;fe80::[^;]*;11111;.*"bw=5201".*"lat=11111"' 
tap $? "avahi-browse in B resolves serve in A: _qualify._tcp, link-local address, port 11111, TXT lat/bw" "$out"

start_avahi $A $VA a; tap $? "an avahi-daemon starts in A next to serve (both on UDP 5353)" "$(cat "$T/avahi-a.log")"
sleep 1
disc=$(ip netns exec $B "$CLI" discover --iface $VB --time 3 --json 2>&1)
echo "$disc" | python3 -c 'import json,sys; h=json.load(sys.stdin)["helpers"]; sys.exit(0 if len(h)==1 and h[0]["latency_port"]==11111 else 1)'
tap $? "qualify-cli discover in B still finds serve in A while avahi-daemon runs there" "$disc $(tail -3 "$T/serve.log")"
exit $failed
