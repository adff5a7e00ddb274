#!/usr/bin/python3
# test-cli-trust.py — `qualify-cli verify` reports the same five outcomes as the wizard's verify
# view (valid-trusted, valid-untrusted, changed, not-signed, not-report) with its usual exit codes,
# `verify --trust-signer` remembers an intact report's signer, and `qualify-cli trust
# list|add|remove` shows and prunes the remembered signers; a store others could change trusts no
# one, and a certificate that repeats a trusted signer's name is named as such (tests/cli). TAP.
import json
import os
import shutil
import subprocess
import sys
import tempfile
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import done  # noqa: E402
from netns import tap as tap_line  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "fixtures", "sessions",
                       "pass.json")
tap = partial(tap_line, keep=None)   # a failure shows its whole output


def cli(env, *args):
    return subprocess.run([CLI, *args], env=env, capture_output=True, text=True, timeout=120)


def outcome(env, path, *extra):
    run = cli(env, "verify", path, "--json", *extra)
    try:
        return run.returncode, json.loads(run.stdout).get("outcome")
    except json.JSONDecodeError:
        return run.returncode, None


def make_files(tmp, env):
    cli(env, "cert", "create", "--name", "Li Wei", "--org", "Acme Integrators")
    cli(env, "report", FIXTURE, "--pdf", os.path.join(tmp, "r.pdf"), "--html", os.path.join(tmp, "r.html"))
    cli(env, "report", FIXTURE, "--pdf", os.path.join(tmp, "u.pdf"), "--no-sign")
    data = bytearray(open(os.path.join(tmp, "r.html"), "rb").read())
    data[data.index(b'id="qf-criteria"') + 40] ^= 0x01
    open(os.path.join(tmp, "changed.html"), "wb").write(data)
    open(os.path.join(tmp, "other.html"), "w").write("<!DOCTYPE html><html><body>Invoice</body></html>\n")
    return all(os.path.exists(os.path.join(tmp, f)) for f in ("r.pdf", "r.html", "u.pdf"))


def check_outcomes(tmp, env):
    tap(outcome(env, os.path.join(tmp, "r.pdf")) == (0, "valid-untrusted"), "a signed report: valid, not yet trusted")
    text = cli(env, "verify", os.path.join(tmp, "r.pdf")).stdout
    tap("Valid, but the signer is not yet trusted" in text and "cell-07-ipc" in text,
        "the text names the outcome and the PC", text)
    tap(outcome(env, os.path.join(tmp, "changed.html")) == (1, "changed"), "one byte changed: changed (exit 1)")
    tap(outcome(env, os.path.join(tmp, "u.pdf")) == (1, "not-signed"), "unsigned: not signed (exit 1)")
    run = cli(env, "verify", os.path.join(tmp, "other.html"))
    tap(run.returncode == 2, "someone else's HTML: not a report (exit 2)", run.stderr)


def check_trust(tmp, env):
    run = cli(env, "verify", os.path.join(tmp, "changed.html"), "--trust-signer")
    tap(run.returncode == 2 and "only the signer of an unchanged" in run.stderr,
        "--trust-signer refuses a changed report", run.stderr)
    run = cli(env, "verify", os.path.join(tmp, "r.pdf"), "--trust-signer", "--json")
    tap(run.returncode == 0 and json.loads(run.stdout)["outcome"] == "valid-trusted",
        "--trust-signer: the same report is now from a trusted signer", run.stdout + run.stderr)
    tap(outcome(env, os.path.join(tmp, "r.html")) == (0, "valid-trusted"), "so is the next report by that signer")
    listed = json.loads(cli(env, "trust", "list", "--json").stdout)["signers"]
    tap(len(listed) == 1 and listed[0]["name"] == "Li Wei" and listed[0]["organization"] == "Acme Integrators",
        "trust list shows the signer", listed)
    gone = cli(env, "trust", "remove", listed[0]["sha256_fingerprint"]) if listed else None
    tap(gone is not None and gone.returncode == 0
        and outcome(env, os.path.join(tmp, "r.pdf")) == (0, "valid-untrusted"), "trust remove forgets it")
    run = cli(env, "trust", "remove", "00:11")
    tap(run.returncode == 2, "removing an unknown fingerprint is an error", run.stderr)
    run = cli(env, "trust", "add", os.path.join(tmp, "other.html"))
    tap(run.returncode == 2, "trust add refuses what is not a certificate", run.stderr)


def check_strict_modes(tmp, env):
    """As ssh's StrictModes: a trusted/ folder or file someone else could change trusts no one,
    and verify and trust list say why (issue 30)."""
    r = os.path.join(tmp, "r.pdf")
    run = cli(env, "verify", r, "--trust-signer", "--json")
    tap(run.returncode == 0 and json.loads(run.stdout)["outcome"] == "valid-trusted", "the signer is trusted again",
        run.stdout + run.stderr)
    store = os.path.join(tmp, "data", "qualify", "trusted")
    pem = [os.path.join(store, f) for f in os.listdir(store)]
    for what, path, mode in (("folder", store, 0o777), ("file", pem[0], 0o666)):
        os.chmod(path, mode)
        run = cli(env, "verify", r, "--json")
        result = json.loads(run.stdout) if run.stdout else {}
        tap(result.get("outcome") == "valid-untrusted" and "can be written by other users" in (result.get("trust_detail") or ""),
            f"a world-writable trusted {what} trusts no one, and verify says why", run.stdout + run.stderr)
        run = cli(env, "trust", "list")
        tap(run.returncode == 2 and "can be written by other users" in run.stderr and "chmod" in run.stderr,
            f"trust list refuses the world-writable {what} with the fix", run.stdout + run.stderr)
        os.chmod(path, 0o700 if what == "folder" else 0o600)
    aside = store + ".real"
    os.rename(store, aside)
    os.symlink(aside, store)
    run = cli(env, "verify", r, "--json")
    result = json.loads(run.stdout) if run.stdout else {}
    tap(result.get("outcome") == "valid-untrusted" and "symbolic link" in (result.get("trust_detail") or ""),
        "a trusted folder that is a symbolic link trusts no one, and verify says why", run.stdout + run.stderr)
    run = cli(env, "verify", r, "--trust-signer")
    tap(run.returncode == 2 and "symbolic link" in run.stderr, "--trust-signer refuses to add to it", run.stderr)
    os.unlink(store)
    os.rename(aside, store)
    tap(outcome(env, r) == (0, "valid-trusted"), "put back, the store trusts the signer again")


def check_same_name(tmp, env):
    """A report signed by another certificate with the trusted signer's holder and company says so
    loudly, in the text and the JSON."""
    other = dict(env, XDG_DATA_HOME=os.path.join(tmp, "impostor"))
    cli(other, "cert", "create", "--name", "Li Wei", "--org", "Acme Integrators")
    fake = os.path.join(tmp, "fake.html")
    cli(other, "report", FIXTURE, "--html", fake)
    trusted = json.loads(cli(env, "trust", "list", "--json").stdout)["signers"]
    run = cli(env, "verify", fake)
    tap(run.returncode == 0 and "WARNING:" in run.stdout
        and "A different certificate with the name of a signer you trust" in run.stdout
        and "NOT the one you trust under that name" in run.stdout,
        "a different certificate with a trusted signer's name: verify warns", run.stdout + run.stderr)
    run = cli(env, "verify", fake, "--json")
    result = json.loads(run.stdout) if run.stdout else {}
    tap(result.get("outcome") == "valid-untrusted" and trusted
        and result.get("same_name_as_trusted_signer") == trusted[0]["sha256_fingerprint"],
        "--json names the trusted signer it poses as", run.stdout + run.stderr)
    result = json.loads(cli(env, "verify", os.path.join(tmp, "r.pdf"), "--json").stdout)
    tap(result.get("same_name_as_trusted_signer") is None, "the trusted signer's own report carries no warning",
        result)


def main():
    tmp = tempfile.mkdtemp(prefix="qf-cli-trust-")
    env = dict(os.environ, XDG_DATA_HOME=os.path.join(tmp, "data"), HOME=tmp, LANGUAGE="en", LANG="C.UTF-8")
    try:
        if tap(make_files(tmp, env), "qualify-cli signs the reports"):
            check_outcomes(tmp, env)
            check_trust(tmp, env)
            check_strict_modes(tmp, env)
            check_same_name(tmp, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


sys.exit(main())
