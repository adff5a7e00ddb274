#!/usr/bin/python3
"""test-cli-secure.py — qualify-cli with file capabilities, run by an ordinary user who chooses
its environment (issue 30, items 1 and 2; docs/security.md "The environment of a privileged
process").

A copy of qualify-cli in a temporary bin/ gets the capabilities of `meson -Dcapabilities=true`
(setcap, as tests/data/test-setcap.sh does) and runs as nobody (setpriv), so it runs in secure
mode. Against it and, as the control, against a copy without capabilities (where the same
environment is honoured):
  - a hostile qualify.mo (msgfmt without -c; translations that are %p %p…, %s ×11 and %n) named
    by QUALIFY_LOCALEDIR, and the same catalogue where the binary's own prefix would find it
    (bin/../share/locale: a hard link of the binary in a folder of the caller's);
  - a hostile profile folder named by QUALIFY_DATADIR, and in bin/../share/qualify;
  - PATH (a `ping` of the caller's, which the network audit would run), and, through
    tests/cli/env-helper.c, what qf_env_init leaves of an environment full of variables that load
    code or data (GIO, GTK, Mesa, fontconfig, XDG_DATA_DIRS, TZ as a file…).
The privileged copy ignores all of them; the unprivileged copy uses the catalogue's plain words
but prints every format's English original: it never crashes and never prints an address.
Needs root, setcap and setpriv; skipped otherwise."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import NOBODY, SCALE, tap, done  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "build/src/cli/qualify-cli")
CAPS = "cap_sys_nice,cap_ipc_lock,cap_net_raw+ep"

# Messages qualify-cli gives to printf, with translations that read other arguments.
HOSTILE_PO = r'''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

msgid "Commands:"
msgstr "HOSTILE-WORDS"

msgid "Run “qualify-cli %s --help” to see the options.\n"
msgstr "HOSTILE %p %p %p %p %p %p %p %p %p %p\n"

msgid "qualify-cli: unknown command “%s”. Run “qualify-cli --help” to see the commands.\n"
msgstr "HOSTILE %s%s%s%s%s%s%s%s%s%s%s\n"

msgid "Give exactly one peer: qualify-cli bandwidth HOST (or -c HOST)."
msgstr "HOSTILE %n%n%n%n"
'''

# (arguments, English that must be printed, exit status)
FORMAT_RUNS = [
    (["profiles", "--no-such-option"], "to see the options", 2),
    (["no-such-command"], "unknown command", 2),
    (["bandwidth"], "Give exactly one peer", 2),
]
ADDRESS = re.compile(r"0x[0-9a-f]{6,}|\(nil\)")


def write_catalogue(localedir):
    """The hostile catalogue compiled without -c into localedir/zh_CN/LC_MESSAGES."""
    messages = os.path.join(localedir, "zh_CN", "LC_MESSAGES")
    os.makedirs(messages)
    po = os.path.join(localedir, "hostile.po")
    with open(po, "w") as f:
        f.write(HOSTILE_PO)
    subprocess.run(["msgfmt", "-o", os.path.join(messages, "qualify.mo"), po], check=True)


def write_profiles(datadir):
    """A profile folder whose one profile is called hostile-profile."""
    source = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "data", "profiles", "arcs-wired-quick.json")
    os.makedirs(os.path.join(datadir, "profiles"))
    with open(source) as f:
        text = f.read().replace('"arcs-wired-quick"', '"hostile-profile"')
    with open(os.path.join(datadir, "profiles", "hostile-profile.json"), "w") as f:
        f.write(text)


def prefix_with(top, name):
    """top/name/bin/qualify-cli, a copy of the build's, with the hostile catalogue and profiles
    where its own prefix would find them (share/locale, share/qualify)."""
    prefix = os.path.join(top, name)
    os.makedirs(os.path.join(prefix, "bin"))
    binary = os.path.join(prefix, "bin", "qualify-cli")
    shutil.copy2(CLI, binary)
    write_catalogue(os.path.join(prefix, "share", "locale"))
    write_profiles(os.path.join(prefix, "share", "qualify"))
    return binary


def as_nobody(binary, args, env):
    """binary run as nobody with exactly env: (exit status, stdout, stderr)."""
    pairs = [f"{k}={v}" for k, v in env.items()]
    p = subprocess.run([*NOBODY, "env", "-i", *pairs, binary, *args], capture_output=True,
                       text=True, timeout=60 * SCALE, errors="replace")
    return p.returncode, p.stdout, p.stderr


def check_formats(label, binary, env, hostile_words_expected):
    rc, out, err = as_nobody(binary, ["--help"], env)
    words = "HOSTILE-WORDS" in out
    tap(rc == 0 and words == hostile_words_expected,
        f"{label}: the hostile catalogue's plain words are {'used' if hostile_words_expected else 'ignored'}",
        f"rc {rc}\n{out}\n{err}")
    for args, english, status in FORMAT_RUNS:
        rc, out, err = as_nobody(binary, args, env)
        text = out + err
        # With the catalogue ignored the build's own Chinese may show; with it used, the English.
        tap(rc == status and (english in text or not hostile_words_expected) and "HOSTILE" not in text
            and not ADDRESS.search(text),
            f"{label}: `qualify-cli {' '.join(args)}` prints no hostile format, exit {status}, no address"
            + (", the English original" if hostile_words_expected else ""),
            f"rc {rc}\n{text}")
        if hostile_words_expected:
            tap(text.count("does not use the same % conversions") == 1,
                f"{label}: `qualify-cli {' '.join(args)}` says once why the translation was not used",
                text)


def check_profiles(label, binary, env, hostile_expected):
    rc, out, err = as_nobody(binary, ["profiles"], env)
    listed = "hostile-profile" in out
    tap(rc == 0 and listed == hostile_expected and (hostile_expected or "arcs-wired" in out),
        f"{label}: the hostile profile is {'listed' if hostile_expected else 'not listed, the shipped ones are'}",
        f"rc {rc}\n{out}\n{err}")


def check_path(label, binary, env, top, honoured):
    """A `ping` of the caller's, first in PATH, which the network audit would run."""
    stubs = os.path.join(top, "stubs-" + label)
    os.makedirs(stubs)
    os.chmod(stubs, 0o777)
    marker = os.path.join(stubs, "ran")
    with open(os.path.join(stubs, "ping"), "w") as f:
        f.write(f"#!/bin/sh\necho \"$*\" >> {marker}\nexit 0\n")
    os.chmod(os.path.join(stubs, "ping"), 0o755)
    env = dict(env, PATH=stubs + ":/usr/sbin:/usr/bin:/sbin:/bin")
    rc, out, err = as_nobody(binary, ["sysinfo", "--iface", "lo", "--peer", "127.0.0.1"], env)
    tap(os.path.exists(marker) == honoured,
        f"{label}: a `ping` in the caller's PATH is {'run' if honoured else 'not run'} by the network audit",
        f"rc {rc}\n{out}\n{err}")


# What the caller sets: each kept (True) or dropped (False) in secure mode.
CALLER_ENV = {
    "QUALIFY_DATADIR": ("/tmp/x", False), "QUALIFY_LOCALEDIR": ("/tmp/x", False),
    "QUALIFY_P12_PASSWORD": ("secret", True),
    "GIO_EXTRA_MODULES": ("/tmp/x", False), "GIO_MODULE_DIR": ("/tmp/x", False),
    "GTK_PATH": ("/tmp/x", False), "GDK_PIXBUF_MODULE_FILE": ("/tmp/x", False),
    "LIBGL_DRIVERS_PATH": ("/tmp/x", False), "FONTCONFIG_FILE": ("/tmp/x", False),
    "XDG_DATA_DIRS": ("/tmp/x", False), "GSETTINGS_SCHEMA_DIR": ("/tmp/x", False),
    "G_MESSAGES_DEBUG": ("all", False), "LIBNM_USE_SESSION_BUS": ("1", False),
    "TZ": ("/tmp/x/zone", False), "LD_PRELOAD": ("/tmp/x.so", False),
    "HOME": ("/tmp/home", True), "XDG_DATA_HOME": ("/tmp/home/.local/share", True),
    "LANG": ("C.UTF-8", True), "LANGUAGE": ("zh_CN", True), "LC_MESSAGES": ("C.UTF-8", True),
    "DISPLAY": (":0", True), "XDG_RUNTIME_DIR": ("/run/user/65534", True), "TERM": ("xterm", True),
}


def check_env_helper(top):
    """qf_env_init and qf_env_get, through env-helper, with and without capabilities."""
    helper = os.environ.get("QF_ENV_HELPER")
    if not helper:
        tap(True, "qf_env_init with capabilities", skip="QF_ENV_HELPER is not set")
        return
    copy = os.path.join(top, "env-helper")
    shutil.copy2(helper, copy)
    subprocess.run(["setcap", CAPS, copy], check=True)
    env = {k: v for k, (v, _) in CALLER_ENV.items()}
    env["PATH"] = "/tmp/x:/usr/bin:/bin"
    for binary, secure in ((copy, True), (helper, False)):
        label = "with capabilities" if secure else "without"
        rc, out, err = as_nobody(binary, [], env)
        lines = out.splitlines()
        left = dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("get "))
        gets = [line for line in lines if line.startswith("get ")]
        tap(rc == 0 and lines[:1] == [f"secure {int(secure)}"], f"env-helper {label}: secure mode is {secure}",
            out + err)
        wrong = [k for k, (v, kept) in CALLER_ENV.items() if (k in left) != (kept or not secure)]
        tap(not wrong, f"env-helper {label}: qf_env_init keeps {'only the allowed variables' if secure else 'everything'}",
            f"wrong: {wrong}\n{out}")
        want_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" if secure else env["PATH"]
        tap(left.get("PATH") == want_path, f"env-helper {label}: PATH is {want_path}", out)
        want_gets = ["get QUALIFY_DATADIR unset" if secure else "get QUALIFY_DATADIR=/tmp/x",
                     "get QUALIFY_LOCALEDIR unset" if secure else "get QUALIFY_LOCALEDIR=/tmp/x",
                     "get QUALIFY_P12_PASSWORD=secret"]
        tap(gets == want_gets, f"env-helper {label}: qf_env_get honours the paths {'never' if secure else 'always'}, "
            "the password always", out)


def main():
    needs = [t for t in ("setcap", "setpriv", "msgfmt") if shutil.which(t) is None]
    if os.geteuid() != 0 or needs:
        print(f"1..0 # SKIP needs root and {', '.join(needs) or 'nothing else'}")
        return 0
    top = tempfile.mkdtemp(prefix="qf-secure-")
    try:
        os.chmod(top, 0o755)
        privileged = prefix_with(top, "privileged")
        subprocess.run(["setcap", CAPS, privileged], check=True)
        plain = prefix_with(top, "plain")
        env_dir = os.path.join(top, "env")
        write_catalogue(os.path.join(env_dir, "locale"))
        write_profiles(os.path.join(env_dir, "data"))
        for root, dirs, files in os.walk(top):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        env = {"LC_ALL": "C.UTF-8", "LANGUAGE": "zh_CN", "HOME": top,
               "QUALIFY_LOCALEDIR": os.path.join(env_dir, "locale"),
               "QUALIFY_DATADIR": os.path.join(env_dir, "data")}
        rc, _, _ = as_nobody(privileged, ["--version"], {})
        tap(rc == 0, "the copy with capabilities runs as nobody")

        # The capability-carrying copy: nothing from the caller's environment or folders.
        check_formats("privileged, variables", privileged, env, False)
        no_vars = {k: v for k, v in env.items() if not k.startswith("QUALIFY_")}
        check_formats("privileged, own prefix", privileged, no_vars, False)
        check_profiles("privileged, variables", privileged, env, False)
        check_profiles("privileged, own prefix", privileged, no_vars, False)
        check_path("privileged", privileged, no_vars, top, False)

        # The same environment without privileges: honoured, and the guard keeps formats safe.
        check_formats("unprivileged, variables", plain, env, True)
        check_formats("unprivileged, own prefix", plain, no_vars, True)
        check_profiles("unprivileged, variables", plain, env, True)
        check_path("unprivileged", plain, no_vars, top, True)
        check_env_helper(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
