# tools/deps.sh — sourced by ./run and ./run-tests: installs the Debian 12 packages Qualify
# needs to build, run and test, only those missing, quietly when nothing is missing.

QF_BUILD_PACKAGES="build-essential meson ninja-build pkg-config gettext itstool yelp-tools po4a
  libglib2.0-dev libglib2.0-dev-bin libgtk-4-dev libadwaita-1-dev libnm-dev libjson-glib-dev
  libcairo2-dev libpango1.0-dev libgnutls28-dev desktop-file-utils appstream fonts-noto-cjk"
QF_RUN_PACKAGES="gnutls-bin iputils-ping iproute2 libcap2-bin fonts-dejavu-core poppler-utils iw"
QF_TEST_PACKAGES="xvfb xauth dbus dbus-x11 at-spi2-core gir1.2-atspi-2.0 python3 python3-gi
  python3-pyatspi python3-dbusmock poppler-utils qpdf imagemagick libnss3-tools jq
  rt-tests stress stress-ng iperf3 sockperf sysstat fio clang libclang-rt-14-dev cppcheck clang-tidy
  flatpak-builder locales util-linux universal-ctags x11-utils avahi-daemon avahi-utils
  network-manager ethtool udev groff-base polkitd acl"
# Only for ./run-tests --packages (tests/packages): building and checking the Debian packages.
QF_PACKAGE_TEST_PACKAGES="devscripts debhelper dpkg-dev fakeroot lintian mmdebstrap
  binutils libcap2-bin python3 iproute2 gnupg curl xz-utils debian-archive-keyring
  systemd-container"

qf_install_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing missing packages: ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "Need root or sudo to install: ${missing[*]}" >&2; return 1; }
    sudo="sudo"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >/dev/null || { echo "apt-get install failed for: ${missing[*]}" >&2; return 1; }
}

# Configures build/ once (with --werror under CI), then builds it.
qf_build() {
  local dir=${1:-build}
  if [ ! -f "$dir/build.ninja" ]; then
    local werror=false
    [ "${CI:-}" = "true" ] && werror=true
    meson setup "$dir" -Dwerror=$werror >"${dir}.setup.log" 2>&1 ||
      { cat "${dir}.setup.log" >&2; return 1; }
    rm -f "${dir}.setup.log"
  fi
  ninja -C "$dir" >"${dir}.ninja.log" 2>&1 || { cat "${dir}.ninja.log" >&2; return 1; }
  rm -f "${dir}.ninja.log"
}
