# tests/packages/check-services.sh — sourced by test-packages.sh after the packages are installed
# in the clean root ($root) and before they are purged: the services under the release's own
# systemd (docs/packaging.md, docs/privileges.md). Uses test-packages.sh's ok, note, $root, $work,
# $tree and $release.
#
# The root boots in a container (systemd-nspawn --boot, a network namespace of its own with only
# loopback; --register=no --keep-unit because this machine runs no systemd or machined of its
# own), and commands run in it through nsenter. Then:
#   - qualify-serve.service starts under its hardening and answers a latency client holding its
#     token; a client without the token is refused;
#   - qualifyd.service is started by the system bus on the first call (D-Bus activation) and
#     grants as designed: a member of the group qualify gets SCHED_FIFO and a 1 ms ping, and in a
#     quick run (rt at SCHED_FIFO through qualifyd); the ordinary user 'installer' gets neither;
#     qualifyd exits when idle;
#   - `systemd-analyze security` of both units, as notes.
# The member is made here and removed at the end; the group goes back to empty, so purge can
# remove it.

services_in() {   # a command inside the booted container, with none of this machine's environment
  nsenter --target "$services_leader" --all \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}
services_as() {   # services_as USER command…: as USER inside, with a login-like environment
  local user=$1
  shift
  services_in runuser -u "$user" -- env HOME="/home/$user" "$@"
}
services_state() {
  services_in systemctl is-system-running 2>/dev/null
}
services_json() {   # services_json FILE EXPR: a Python expression over the JSON object `d`
  python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    d = {}
print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

services_boot() {
  services_leader=""
  systemd-nspawn --directory="$root" --boot --register=no --keep-unit --private-network \
    --quiet --console=pipe >"$work/nspawn.log" 2>&1 </dev/null &
  services_nspawn=$!
  local i state=""
  for i in $(seq 1 $((60 * ${QF_TEST_TIME_SCALE:-1}))); do
    [ -z "$services_leader" ] && services_leader=$(ps -o pid= --ppid "$services_nspawn" | head -n1 | tr -d ' ')
    if [ -n "$services_leader" ]; then
      state=$(services_state)
      case $state in running|degraded) break ;; esac
    fi
    kill -0 "$services_nspawn" 2>/dev/null || break
    sleep 1
  done
  note "systemd in the container: ${state:-not answering}"
  [ "$state" = running ] || [ "$state" = degraded ]
}

services_halt() {
  [ -n "${services_nspawn:-}" ] || return 0
  kill -TERM "$services_nspawn" 2>/dev/null   # nspawn powers the container off
  local i
  for i in $(seq 1 $((30 * ${QF_TEST_TIME_SCALE:-1}))); do
    kill -0 "$services_nspawn" 2>/dev/null || break
    sleep 1
  done
  kill -KILL "$services_nspawn" 2>/dev/null
  wait "$services_nspawn" 2>/dev/null
  services_nspawn=""
}

services_check_serve() {
  services_in systemctl start qualify-serve.service >"$work/serve.log" 2>&1
  local i
  for i in $(seq 1 $((10 * ${QF_TEST_TIME_SCALE:-1}))); do
    # port 11111 (0x2B67) listening (state 0A); a minimal root has no ss
    services_in sh -c 'cat /proc/net/tcp /proc/net/tcp6 | grep -q ":2B67 [0-9A-F:]* 0A"' && break
    sleep 1
  done
  services_in systemctl is-active --quiet qualify-serve.service
  ok $? "qualify-serve.service starts under its hardening (no file capabilities to refuse)"
  services_in systemctl status --no-pager qualify-serve.service 2>&1 | sed 's/^/# serve: /' | head -n 12
  services_in qualify-cli latency --token-file /etc/qualify/serve-token -t 1 --json 127.0.0.1 \
    >"$work/latency.json" 2>"$work/latency.err"
  [ "$(services_json "$work/latency.json" 'd.get("samples", 0) > 0')" = True ]
  ok $? "the helper service answers a latency client holding its token"
  [ -s "$work/latency.err" ] && sed 's/^/# latency: /' "$work/latency.err"
  services_in qualify-cli latency -t 1 127.0.0.1 >/dev/null 2>"$work/latency-no-token.err"
  [ $? -ne 0 ] && grep -qi 'token' "$work/latency-no-token.err"
  ok $? "… and refuses one without the token"
  sed 's/^/# without the token: /' "$work/latency-no-token.err" | head -n 3
  services_in systemd-analyze security --no-pager qualify-serve.service 2>/dev/null | tail -n 1 \
    | sed 's/^/# systemd-analyze security: /'
  services_in systemctl stop qualify-serve.service
}

services_check_qualifyd() {
  local member=qfmember
  useradd --root "$root" --create-home --shell /bin/sh --groups qualify "$member" ||
    { ok 1 "a member of the group qualify is made in the root"; return; }
  services_in systemctl is-active --quiet qualifyd.service; [ $? -ne 0 ]
  ok $? "qualifyd.service is not running before anyone asks"

  services_as "$member" qualify-cli rt -l 300 -t --json >"$work/member-rt.json" 2>"$work/member-rt.err"
  note "member rt: $(services_json "$work/member-rt.json" '[d.get(k) for k in ("policy", "priority", "valid", "rt_source", "memory_locked")]')"
  [ "$(services_json "$work/member-rt.json" 'd.get("policy") == "SCHED_FIFO" and d.get("rt_source") == "qualifyd" and d.get("valid") is True')" = True ]
  ok $? "the system bus starts qualifyd and it gives a member SCHED_FIFO (qualify-cli rt)"
  services_in systemctl is-active --quiet qualifyd.service
  ok $? "qualifyd.service is active after the call (D-Bus activation through systemd)"

  services_as "$member" qualify-cli ping --interval-ms 1 -c 50 --json 127.0.0.1 \
    >"$work/member-ping.json" 2>"$work/member-ping.err"
  [ "$(services_json "$work/member-ping.json" 'd.get("socket") == "raw" and d.get("received", 0) > 0')" = True ]
  ok $? "a member pings every 1 ms on a raw socket from qualifyd"
  [ -s "$work/member-ping.err" ] && sed 's/^/# member ping: /' "$work/member-ping.err"

  services_as installer qualify-cli rt -l 300 --json >"$work/user-rt.json" 2>"$work/user-rt.err"
  [ "$(services_json "$work/user-rt.json" 'd.get("policy") == "SCHED_OTHER" and d.get("valid") is False and "adduser installer qualify" in d.get("reason", "")')" = True ]
  ok $? "the ordinary user 'installer' gets no SCHED_FIFO, and the reason says how to join"
  services_as installer qualify-cli ping --interval-ms 1 -c 10 127.0.0.1 >/dev/null 2>"$work/user-ping.err"
  [ $? -eq 2 ] && grep -q 'adduser installer qualify' "$work/user-ping.err"
  ok $? "… nor a 1 ms ping, refused with the fix"
  sed 's/^/# installer ping: /' "$work/user-ping.err"

  services_as "$member" qualify-cli run --profile arcs-wired --quick --peer builtin \
    --out "/home/$member/session" >"$work/member-run.log" 2>&1
  local rc=$?
  python3 - "$root/home/$member/session/session.json" >"$work/member-run.txt" 2>&1 <<'EOF'
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
r = {s["result"]["test"]: s["result"] for s in steps if s.get("result")}
rt, ping = r.get("rt", {}), r.get("ping", {})
print(f"rt {rt.get('policy')} {rt.get('priority')} via {rt.get('rt_source')}, ping {ping.get('socket')} "
      f"every {ping.get('interval_ms')} ms, {ping.get('received')} replies")
sys.exit(0 if rt.get("policy") == "SCHED_FIFO" and rt.get("rt_source") == "qualifyd"
         and ping.get("received", 0) > 0 else 1)
EOF
  local r=$?
  note "member quick run: exit $rc, $(cat "$work/member-run.txt")"
  [ $rc -le 1 ] && [ $r -eq 0 ]
  ok $? "a member's quick run completes with rt at SCHED_FIFO (qualifyd) and a 1 ms ping"

  services_in journalctl --no-pager -q -o cat -u qualifyd.service 2>/dev/null | tail -n 8 | sed 's/^/# qualifyd: /'
  services_in systemd-analyze security --no-pager qualifyd.service 2>/dev/null | tail -n 1 \
    | sed 's/^/# systemd-analyze security: /'
  local i
  for i in $(seq 1 $((60 * ${QF_TEST_TIME_SCALE:-1}))); do
    services_in systemctl is-active --quiet qualifyd.service || break
    sleep 1
  done
  services_in systemctl is-active --quiet qualifyd.service; [ $? -ne 0 ]
  ok $? "qualifyd exits when idle"
  userdel --root "$root" --remove "$member" 2>/dev/null
}

if ! command -v systemd-nspawn >/dev/null; then
  ok 0 "the services under systemd # SKIP systemd-nspawn is missing (apt-get install systemd-container)"
elif [ ! -x "$root/lib/systemd/systemd" ] && [ ! -x "$root/usr/lib/systemd/systemd" ]; then
  ok 0 "the services under systemd # SKIP the installed root has no systemd"
else
  entry=$(grep '^qualify:' "$root/etc/group")
  [ -n "$entry" ] && [ -z "$(echo "$entry" | cut -d: -f4)" ]
  ok $? "postinst made the system group qualify, with no members ($entry)"
  services_boot
  ok $? "the $release root boots with systemd-nspawn --boot"
  if [ -n "$services_leader" ]; then
    services_check_serve
    services_check_qualifyd
  fi
  services_halt
  sed 's/^/# nspawn: /' "$work/nspawn.log" | tail -n 5
fi
