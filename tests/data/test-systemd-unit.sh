#!/bin/sh
# test-systemd-unit.sh — data/qualify-serve.service passes `systemd-analyze verify` without a
# single warning (an unknown or misspelt key only warns there), and the command it runs is one
# qualify-cli accepts. The unit is checked with its ExecStart pointed at the built qualify-cli,
# since verify also checks that the program exists. TAP; skips without systemd-analyze.
set -u
unit=$1
cli=$2
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
echo "1..$n"
exit $failed
