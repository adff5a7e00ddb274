#!/bin/sh
# test-setcap.sh — the -Dcapabilities=true install script (tools/setcap-install.sh):
# under DESTDIR it skips and prints the command for the packager; otherwise the binaries it is
# given get cap_sys_nice,cap_ipc_lock,cap_net_raw, and an unprivileged user can then really use
# SCHED_FIFO through them (checked with a copy of chrt, which has no privileges of its own).
# TAP. Needs root and setcap; skips otherwise.
set -u
script=$1
n=0; failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }

out=$(DESTDIR=/nonexistent MESON_INSTALL_PREFIX=/usr MESON_INSTALL_DESTDIR_PREFIX=/nonexistent/usr \
      "$script" bin/qualify-cli 2>&1); rc=$?
ok $rc "under DESTDIR the script succeeds without touching files"
echo "$out" | grep -q "setcap cap_sys_nice,cap_ipc_lock,cap_net_raw+ep /usr/bin/qualify-cli"
ok $? "under DESTDIR it prints the setcap command for after installation"

if [ "$(id -u)" -ne 0 ] || ! command -v setcap >/dev/null || ! command -v getcap >/dev/null \
   || ! command -v setpriv >/dev/null || ! command -v chrt >/dev/null; then
  echo "1..$n # SKIP the rest needs root, setcap, getcap, setpriv and chrt"
  exit $failed
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/bin"
cp "$(command -v chrt)" "$tmp/bin/chrt"

env -u DESTDIR MESON_INSTALL_PREFIX="$tmp" MESON_INSTALL_DESTDIR_PREFIX="$tmp" \
  "$script" bin/chrt >/dev/null 2>&1
ok $? "without DESTDIR the script runs setcap"
if ! getcap "$tmp/bin/chrt" | grep -q 'cap_sys_nice'; then
  ok 1 "the binary carries the capabilities"
  echo "# getcap: $(getcap "$tmp/bin/chrt")"
  echo "1..$n"; exit 1
fi
caps=$(getcap "$tmp/bin/chrt")
case "$caps" in *cap_net_raw*cap_ipc_lock*cap_sys_nice*=ep*|*cap_ipc_lock*cap_net_raw*cap_sys_nice*=ep*) r=0 ;; *) r=1 ;; esac
ok $r "the binary carries exactly cap_sys_nice, cap_ipc_lock and cap_net_raw (effective, permitted)"

if setpriv --reuid=nobody --regid=nogroup --clear-groups "$(command -v chrt)" -f 50 true 2>/dev/null; then
  echo "ok $((n + 1)) - an unprivileged user cannot use SCHED_FIFO here anyway # SKIP RLIMIT_RTPRIO allows it"
  n=$((n + 1))
else
  ok 0 "an unprivileged user is refused SCHED_FIFO by the stock binary"
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$tmp/bin/chrt" -f 50 true
  ok $? "the same user gets SCHED_FIFO through the binary with the capabilities"
fi

env -u DESTDIR MESON_INSTALL_PREFIX="$tmp" MESON_INSTALL_DESTDIR_PREFIX="$tmp" \
  "$script" bin/missing >/dev/null 2>&1
[ $? -ne 0 ]; ok $? "a binary that cannot be changed makes the install fail"
echo "1..$n"
exit $failed
