#!/bin/sh
# tools/setcap-install.sh — meson install script for -Dcapabilities=true.
# Grants the installed binaries (arguments: paths relative to the prefix) the file capabilities
# the measurements need, so nobody has to run the wizard as root (docs/privileges.md):
#   cap_sys_nice  SCHED_FIFO priority for the real-time test threads
#   cap_ipc_lock  mlockall(), so page faults do not add latency
#   cap_net_raw   raw ICMP sockets where net.ipv4.ping_group_range does not allow datagram ICMP
# Under DESTDIR (a package build) the files are not yet where they will run and the package
# format may drop extended attributes: skip with a message; the packager's postinst does it.
set -eu

caps='cap_sys_nice,cap_ipc_lock,cap_net_raw+ep'
prefix=${MESON_INSTALL_DESTDIR_PREFIX:-${MESON_INSTALL_PREFIX:-}}

if [ -n "${DESTDIR:-}" ]; then
  echo "capabilities: DESTDIR is set, not running setcap; after installing the package run:"
  for f in "$@"; do
    echo "  setcap $caps ${MESON_INSTALL_PREFIX:-/usr/local}/$f"
  done
  exit 0
fi

if ! command -v setcap >/dev/null 2>&1; then
  echo "capabilities: setcap not found; install libcap2-bin (Debian) or libcap (Fedora) and re-run meson install" >&2
  exit 1
fi

status=0
for f in "$@"; do
  path="$prefix/$f"
  if setcap "$caps" "$path"; then
    echo "capabilities: $path now has $caps"
  else
    echo "capabilities: setcap failed on $path: run meson install as root, on a file system with extended attributes" >&2
    status=1
  fi
done
exit $status
