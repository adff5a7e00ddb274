#!/usr/bin/env bash
# tests/packages/test-packages.sh [--release bookworm|noble] — the Debian packages on a clean
# Debian 12 (bookworm, the default) or Ubuntu 24.04 (noble), with no network (run by
# `./run-tests --packages[=RELEASES]`; not part of the default run; docs/packaging.md).
#
#  1. builds qualify and qualify-cli with dpkg-buildpackage from a copy of the tree (for noble in
#     a noble build root), and the offline bundle for the release from them
#     (tools/offline-bundle);
#  2. checks the packages: lintian reports no error; qualify-cli neither depends on nor links
#     GTK or libadwaita;
#  3. creates a clean root of the release with mmdebstrap (variant apt: Essential packages and apt),
#     adds an ordinary user, lists its files;
#  4. installs the bundle with its install.sh inside a new network namespace (loopback only, so
#     nothing can be fetched), run from a read-only mount at a path with a space and Chinese (a
#     USB stick's), and checks what the package changed: no file capabilities, the group
#     qualify, the disabled helper unit, its token;
#  5. as the ordinary user: `qualify-cli profiles` lists arcs-wired, and
#     `qualify-cli run --profile arcs-wired --quick --peer builtin` completes, with the rt step
#     at real-time priority or a reason saying why not, and writes its reports; a certificate
#     made with `qualify-cli cert create` signs them and `qualify-cli verify` finds the PDF's
#     signature valid (the release's own cairo wrote the PDF); then the services under the
#     release's own systemd (tests/packages/check-services.sh: the root booted with
#     systemd-nspawn, qualify-serve.service answering, qualifyd granting a member and refusing
#     the ordinary user);
#  6. purges the packages: nothing named after Qualify is left (the empty group qualify
#     included), and an install and purge of the
#     two packages over the same dependencies leaves the file list exactly as it was (apart from
#     apt's and dpkg's own records); then autoremove takes the dependencies away and what they
#     leave is listed.
#
# TAP on stdout, progress on stderr. Needs root (mmdebstrap, chroot, unshare), mmdebstrap,
# debhelper, lintian, dpkg-dev, and the network for the builds' and the root's packages.
# QF_PACKAGES_KEEP=1 keeps the work directory; QF_PACKAGES_DEBS=DIR uses packages built already.
set -uo pipefail
tree=$(cd "$(dirname "$0")/../.." && pwd)
release=bookworm
[ "${1:-}" = --release ] && release=${2:?}
case $release in
  bookworm) mirror=http://deb.debian.org/debian components=main ;;
  noble) mirror=http://archive.ubuntu.com/ubuntu components=main,universe ;;
  *) echo "Bail out! release must be bookworm or noble, not $release"; exit 1 ;;
esac
n=0 failed=0
ok() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
note() { echo "# $*"; }
bail() { echo "Bail out! $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (mmdebstrap, chroot, unshare)"; exit 0; }
for tool in mmdebstrap dpkg-buildpackage lintian unshare chroot objdump; do
  command -v $tool >/dev/null || bail "$tool is missing (./run-tests --packages installs it)"
done

work=$(mktemp -d /var/tmp/qf-packages.XXXXXX)
chmod 755 "$work"
root=$work/root
cleanup() {
  if [ "${QF_PACKAGES_KEEP:-0}" = 1 ]; then note "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
start=$(date +%s)

# 1. Packages and bundle.
bundle=$work/bundle
debs_arg=()
[ -n "${QF_PACKAGES_DEBS:-}" ] && debs_arg=(--debs "$QF_PACKAGES_DEBS")
"$tree/tools/offline-bundle" --release "$release" --out "$bundle" "${debs_arg[@]}" --archive \
  >"$work/bundle.log" 2>&1
ok $? "tools/offline-bundle --release $release builds the packages and the bundle"
sed 's/^/# /' "$work/bundle.log" | grep 'offline-bundle: /' || true
cli_deb=$(ls "$bundle"/qualify-cli_*.deb 2>/dev/null | head -n1)
gui_deb=$(ls "$bundle"/qualify_*.deb 2>/dev/null | head -n1)
[ -n "$cli_deb" ] && [ -n "$gui_deb" ] && [ -x "$bundle/install.sh" ] && [ -f "$bundle.tar.gz" ]
ok $? "the bundle holds both packages, install.sh and its archive"
[ -n "$cli_deb" ] || { echo "1..$n"; exit 1; }

# 2. The packages themselves.
lintian --tag-display-limit 0 "$cli_deb" "$gui_deb" >"$work/lintian.log" 2>&1
grep -q '^E: ' "$work/lintian.log"; [ $? -ne 0 ]
ok $? "lintian reports no error"
sed 's/^/# lintian: /' "$work/lintian.log"
cli_depends=$(dpkg-deb -f "$cli_deb" Depends)
note "qualify-cli Depends: $cli_depends"
echo "$cli_depends" | grep -Eq 'libgtk|libadwaita'; [ $? -ne 0 ]
ok $? "qualify-cli does not depend on GTK or libadwaita"
mkdir -p "$work/cli-deb"
dpkg-deb -x "$cli_deb" "$work/cli-deb"
needed=$(objdump -p "$work/cli-deb/usr/bin/qualify-cli" | awk '/NEEDED/ {print $2}' | tr '\n' ' ')
note "qualify-cli NEEDED: $needed"
echo "$needed" | grep -Eq 'libgtk|libadwaita|libgdk'; [ $? -ne 0 ]
ok $? "qualify-cli's binary links neither GTK nor libadwaita"
dpkg-deb -f "$gui_deb" Depends | grep -q "qualify-cli (= "
ok $? "qualify depends on the same version of qualify-cli"

# 3. A clean root of the release, its downloads checked against the release's archive key.
"$tree/tools/archive-key" --release "$release" --out "$work/archive-key.gpg" 2>>"$work/mmdebstrap.log" &&
  mmdebstrap --variant=apt --components="$components" --keyring="$work/archive-key.gpg" --quiet \
    "$release" "$work/root.tar" "$mirror" >>"$work/mmdebstrap.log" 2>&1
ok $? "mmdebstrap creates a clean $release root"
mkdir -p "$root"
tar --xattrs --xattrs-include='*' -C "$root" -xf "$work/root.tar" || bail "cannot unpack the root"
# this machine's useradd, writing into the root: a minimal noble has none of its own (passwd is
# not Essential there)
useradd --root "$root" --create-home --shell /bin/sh installer
ok $? "an ordinary user 'installer' exists in the root"

# Where the bundle is inside the root: a USB stick's folder, read-only, with a space and Chinese
# in its path (issue 30: install.sh once wrote it unescaped into its apt source).
media='/media/installer/USB STICK/安装 Qualify'
# Runs a command in the root inside new mount and network namespaces: only a loopback
# interface, /proc, /sys and /dev as the programs expect, the bundle at $media (read-only, on a
# tmpfs over /media, so the root's own files do not change).
in_root() {
  unshare --net --mount --fork sh -c '
    set -e
    root=$1 bundle=$2 media=$3; shift 3
    ip link set lo up
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root/media"
    mount -t tmpfs tmpfs "$root/media"
    mkdir -p "$root$media"
    mount --bind -o ro "$bundle" "$root$media"
    exec chroot "$root" "$@"' in_root "$root" "$bundle" "$media" "$@"
}
# Every file of the root but the mount points and the user's own data.
list_files() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./mnt \
     -o -path ./tmp -o -path ./home \) -prune -o -print | LC_ALL=C sort)
}
# apt's and dpkg's own records, which installing and removing anything changes.
bookkeeping='^\./(var/lib/dpkg/|var/lib/apt/|var/log/|var/cache/apt/|var/cache/debconf/|var/cache/ldconfig/|etc/ld\.so\.cache$)'
list_files >"$work/before"
in_root dpkg-query -W -f '${Package}\n' >"$work/minimal-pkgs"

# 4. Install with no network.
in_root sh -c 'ls /sys/class/net | grep -vx lo | grep -q . && exit 3; exit 0'
ok $? "the install namespace has no interface but loopback"
in_root sh -c 'cd "$1" && ! touch x 2>/dev/null && [ -x install.sh ]' sh "$media"
ok $? "the bundle is read-only at “$media”"
in_root "$media/install.sh" >"$work/install.log" 2>&1
rc=$?
ok $rc "install.sh installs the bundle with no network"
[ $rc -eq 0 ] || sed 's/^/# install: /' "$work/install.log" | tail -n 30
in_root dpkg-query -W -f '${Package} ${Version} ${Status}\n' qualify qualify-cli \
  | sed 's/^/# /'

caps=$(getcap -r "$root/usr" 2>/dev/null | grep -i qualify)
[ -z "$caps" ]
ok $? "no installed binary carries file capabilities (qualifyd grants instead)"
[ -n "$caps" ] && echo "$caps" | sed 's/^/# getcap: /'
[ -x "$root/usr/libexec/qualifyd" ] &&
  [ -f "$root/usr/share/dbus-1/system.d/io.github.qualify.Qualifyd.conf" ] &&
  [ -f "$root/usr/share/dbus-1/system-services/io.github.qualify.Qualifyd.service" ] &&
  [ -f "$root/lib/systemd/system/qualifyd.service" ] &&
  grep -q 'xml:lang="zh_CN"' "$root/usr/share/polkit-1/actions/io.github.qualify.policy"
ok $? "qualify-cli installs qualifyd, its bus policy, activation file, unit and polkit action (translated)"
unit=$root/lib/systemd/system/qualify-serve.service
grep -qx 'LoadCredential=token:/etc/qualify/serve-token' "$unit" &&
  grep -q '^ExecStart=/usr/bin/qualify-cli serve --token-file %d/token' "$unit"
ok $? "the helper unit is installed and reads its token as a credential"
[ -z "$(find "$root/etc/systemd/system" -name 'qualify-serve.service' 2>/dev/null)" ]
ok $? "the helper unit is not enabled"
tok=$root/etc/qualify/serve-token
[ "$(stat -c '%a %U' "$tok" 2>/dev/null)" = "600 root" ] &&
  grep -Eqx '[2-9A-HJKMNP-Z]{16}' "$tok"
ok $? "postinst made a private 16-character token in /etc/qualify/serve-token"

# 5. Runs as the ordinary user.
as_user() { in_root runuser -u installer -- env HOME=/home/installer "$@"; }
as_user qualify-cli profiles >"$work/profiles.log" 2>&1
grep -qw 'arcs-wired' "$work/profiles.log"
ok $? "qualify-cli profiles lists arcs-wired"
run_start=$(date +%s)
as_user qualify-cli run --profile arcs-wired --quick --peer builtin \
  --out /home/installer/session >"$work/run.log" 2>&1
rc=$?
note "qualify-cli run: exit $rc after $(( $(date +%s) - run_start )) s"
sed 's/^/# run: /' "$work/run.log"
session=$root/home/installer/session/session.json
[ -f "$session" ] && [ $rc -le 1 ]
ok $? "the run completes (exit 0: pass, 1: fail verdict) and writes its session"
rt=$(python3 - "$session" <<'EOF' 2>&1
import json, sys
s = json.load(open(sys.argv[1]))
found = []
def walk(o):
    if isinstance(o, dict):
        if o.get("test") == "rt" and ("valid" in o or "priority" in o):
            found.append(o)
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(s)
if not found:
    print("none"); sys.exit(1)
r = found[-1]
keys = ("valid", "invalid_reason", "reason", "priority", "policy", "rt_source", "mlock")
print(" ".join(f"{k}={r[k]}" for k in keys if k in r))
ok = r.get("valid") is True or bool(r.get("invalid_reason") or r.get("reason"))
sys.exit(0 if ok else 1)
EOF
)
r=$?
note "rt step: $rt"
ok $r "the rt step ran at real-time priority, or its result says why not"
[ -s "$root/home/installer/session/report.pdf" ] && [ -s "$root/home/installer/session/report.html" ]
ok $? "the run wrote report.pdf and report.html beside its session"

# The user makes a signing certificate, signs the reports and checks the PDF: this release's
# cairo wrote it, Qualify's incremental update has to read and extend what it wrote.
as_user qualify-cli cert create --name "Test Installer" --org "Qualify packages test" \
  >"$work/sign.log" 2>&1 &&
  as_user qualify-cli report --sign /home/installer/session >>"$work/sign.log" 2>&1
rc=$?
ok $rc "qualify-cli cert create and report --sign sign the run's reports"
[ $rc -eq 0 ] || sed 's/^/# sign: /' "$work/sign.log"
as_user qualify-cli verify --json /home/installer/session/report.pdf >"$work/verify.json" 2>>"$work/sign.log"
verified=$(python3 - "$work/verify.json" <<'EOF' 2>&1
import json, sys
v = json.load(open(sys.argv[1]))
print(" ".join(f"{k}={v.get(k)}" for k in ("signed", "signature_valid", "covers_whole_document", "session_id", "verdict")))
sys.exit(0 if v.get("signed") and v.get("signature_valid") and v.get("covers_whole_document") and v.get("session_id") else 1)
EOF
)
r=$?
note "verify: $verified"
ok $r "qualify-cli verify finds the signature valid over the whole PDF and the embedded session"

. "$tree/tests/packages/check-services.sh"

# 6. Purge. The dependencies' own maintainer scripts leave files of theirs (systemd and dbus,
# which dconf-gsettings-backend pulls in, make /etc/machine-id and /var/lib/systemd/...), so
# Qualify's share is measured with the dependencies held fixed: purge, list, install Qualify's
# two packages again from the bundle, purge again, list again: the two lists must be equal.
in_root apt-get purge -y -q qualify qualify-cli >"$work/purge.log" 2>&1
ok $? "apt-get purge qualify qualify-cli"
left=$(cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./mnt \
         -o -path ./home \) -prune -o \( -iname '*qualify*' -print \) | grep -Ev "$bookkeeping")
[ -z "$left" ] && [ -z "$(getcap -r "$root/usr" 2>/dev/null | grep -i qualify)" ]
ok $? "no path named after Qualify is left, /etc/qualify included"
[ -n "$left" ] && echo "$left" | sed 's/^/# left: /'
grep -q '^qualify:' "$root/etc/group"; [ $? -ne 0 ]
ok $? "purge removed the group qualify, which nobody was in"
list_files >"$work/after-purge"
in_root "$media/install.sh" >"$work/install2.log" 2>&1
ok $? "install.sh installs Qualify again (its dependencies still there)"
list_files >"$work/installed2"
in_root apt-get purge -y -q qualify qualify-cli >>"$work/purge.log" 2>&1
list_files >"$work/after-purge2"
diff <(grep -Ev "$bookkeeping" "$work/after-purge") <(grep -Ev "$bookkeeping" "$work/after-purge2") \
  >"$work/purge.diff"
ok $? "installing and purging Qualify's packages leaves the file list exactly as it was"
sed 's/^/# /' "$work/purge.diff"
comm -13 "$work/after-purge" "$work/installed2" >"$work/came"
grep -qx './usr/bin/qualify' "$work/came" && grep -qx './usr/bin/qualify-cli' "$work/came" &&
  grep -qx './etc/qualify/serve-token' "$work/came" && grep -qx './usr/share/qualify' "$work/came"
ok $? "(the comparison saw Qualify's files, its token included, come and go: $(wc -l <"$work/came") paths)"

# Then the dependencies: apt marked them automatic, autoremove takes them away. What their own
# scripts made and the packages apt keeps (Priority: required) are listed, not judged.
in_root apt-get autoremove --purge -y -q >>"$work/purge.log" 2>&1
ok $? "apt-get autoremove --purge removes the bundle's dependencies"
list_files >"$work/after"
comm -13 "$work/before" "$work/after" | grep -Ev "$bookkeeping" | grep -v '^\./run/' >"$work/left"
grep -Ev '^\./usr/share/(doc|man|lintian|bash-completion)/' "$work/left" | sed 's/^/# left by a dependency: /'
note "left by a dependency: $(grep -Ec '^\./usr/share/(doc|man|lintian|bash-completion)/' "$work/left") more paths below /usr/share/{doc,man,lintian,bash-completion}"
in_root dpkg-query -W -f '${Package}\n' | LC_ALL=C sort >"$work/pkgs-after"
LC_ALL=C sort "$work/minimal-pkgs" | comm -13 - "$work/pkgs-after" | sed 's/^/# still installed: /'

note "total $(( $(date +%s) - start )) s"
echo "1..$n"
exit $failed
