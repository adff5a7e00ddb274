#!/bin/sh
# test-systemd-unit.sh SERVE_UNIT CLI QUALIFYD_UNIT QUALIFYD BUS_SERVICE — the two systemd units
# pass `systemd-analyze verify` without a single warning (an unknown or misspelt key only warns
# there): data/qualify-serve.service, whose command qualify-cli accepts, and
# data/qualifyd/qualifyd.service, which the D-Bus activation file names. Each is checked with its
# ExecStart pointed at the built program, since verify also checks that the program exists.
# `systemd-analyze security --offline` no longer lists, for the helper's unit, the sandboxing
# issue 30 asked for (system-call filter, ProtectProc, ProcSubset, private users), nor for
# qualifyd a system-call filter or a capability beyond the three it needs. TAP; skips without
# systemd-analyze. (The units really starting is checked by the packages test with systemd.)
set -u
unit=$1
cli=$2
qualifyd_unit=$3
qualifyd=$4
bus_service=$5
n=0; failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }

exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
args=${exec_line#* }
case "$exec_line" in */qualify-cli\ serve*) r=0 ;; *) r=1 ;; esac
ok $r "the unit runs qualify-cli serve"
# shellcheck disable=SC2086
"$cli" $args --help >/dev/null 2>&1
ok $? "qualify-cli accepts the unit's arguments ($args)"

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "1..$n # SKIP systemd-analyze is not installed"
  exit $failed
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|^ExecStart=[^ ]*|ExecStart=$cli|" "$unit" > "$tmp/qualify-serve.service"
out=$(cd "$tmp" && systemd-analyze verify --man=no qualify-serve.service 2>&1); rc=$?
ok $rc "systemd-analyze verify accepts it"
[ -z "$out" ]; r=$?
ok $r "systemd-analyze verify prints no warning"
[ -n "$out" ] && echo "$out" | sed 's/^/# /'
for key in DynamicUser=yes NoNewPrivileges=yes ProtectSystem=strict CapabilityBoundingSet=; do
  grep -qx "$key" "$unit"; ok $? "hardened: $key"
done
security=$(systemd-analyze security --offline=true --man=no "$tmp/qualify-serve.service" 2>&1)
echo "$security" | grep -E '^✗ (SystemCallFilter|ProtectProc|ProcSubset|PrivateUsers|PrivateMounts)='   | sed 's/^/# /' | grep -q .; [ $? -ne 0 ]
ok $? "systemd-analyze security lists no missing system-call filter, ProtectProc, ProcSubset or private users for the helper"
echo "$security" | tail -n 1 | sed 's/^/# /'

sed "s|^ExecStart=[^ ]*|ExecStart=$qualifyd|" "$qualifyd_unit" > "$tmp/qualifyd.service"
out=$(cd "$tmp" && systemd-analyze verify --man=no qualifyd.service 2>&1); rc=$?
ok $rc "systemd-analyze verify accepts qualifyd.service"
[ -z "$out" ]; r=$?
ok $r "… without a warning"
[ -n "$out" ] && echo "$out" | sed 's/^/# /'
grep -qx 'Type=dbus' "$qualifyd_unit" && grep -qx 'BusName=io.github.qualify.Qualifyd' "$qualifyd_unit" &&
  grep -qx 'SystemdService=qualifyd.service' "$bus_service" &&
  grep -qx 'Name=io.github.qualify.Qualifyd' "$bus_service" && ! grep -q '^\[Install\]' "$qualifyd_unit"
ok $? "qualifyd is D-Bus activated (Type=dbus, the bus name, the activation file names the unit, no [Install])"
for key in NoNewPrivileges=yes ProtectSystem=strict ProcSubset=pid \
           'CapabilityBoundingSet=CAP_SYS_NICE CAP_SYS_RESOURCE CAP_NET_RAW' \
           'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' SystemCallFilter=@system-service; do
  grep -qx "$key" "$qualifyd_unit"; ok $? "qualifyd hardened: $key"
done
security=$(systemd-analyze security --offline=true --man=no "$tmp/qualifyd.service" 2>&1)
echo "$security" | grep -E '^✗ (SystemCallFilter=~@(privileged|mount|module|raw-io|reboot|swap|clock|debug)|CapabilityBoundingSet=~CAP_(SYS_ADMIN|SYS_PTRACE|DAC|FOWNER|SETUID|CHOWN|NET_ADMIN|SYS_MODULE|SYS_RAWIO|SYS_TIME|BPF))' \
  | sed 's/^/# /' | grep -q .; [ $? -ne 0 ]
ok $? "systemd-analyze security: qualifyd keeps no capability and no system-call group it does not need"
echo "$security" | tail -n 1 | sed 's/^/# /'
echo "1..$n"
exit $failed
