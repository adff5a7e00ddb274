#!/usr/bin/python3
# test-cli-cert.py — `qualify-cli cert create / import / show` (tests/cli), each in a private
# XDG_DATA_HOME: show prints holder, company, the SHA-256 fingerprint in groups of four (the
# one `certtool -i` gives for the stored certificate) and the validity; --export writes a PEM
# certtool reads and no key; import takes a PEM chain + key and a PKCS#12 file (made here with
# certtool), refuses a wrong password, a key of another certificate, an expired certificate and
# an unreadable file with the cause and what to do, and files that ask for a huge number of rounds
# of their password function at once; no output ever holds key material. Speaks TAP.

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from netns import SCALE, done  # noqa: E402
from netns import tap as tap_line  # noqa: E402

CLI = os.environ.get("QUALIFY_CLI", "qualify-cli")
tap = partial(tap_line, keep=20)
outputs = []


def cli(home, *args, env_extra=None):
    env = dict(os.environ, XDG_DATA_HOME=home, LANGUAGE="en", LANG="C.UTF-8")
    env.pop("QUALIFY_P12_PASSWORD", None)
    env.update(env_extra or {})
    r = subprocess.run([CLI, "cert", *args], env=env, capture_output=True, text=True, timeout=60 * SCALE)
    outputs.append(r.stdout + r.stderr)
    return r


def field(text, label):
    m = re.search(rf"^{re.escape(label)}:\s+(.*)$", text, re.M)
    return m.group(1).strip() if m else None


def grouped_fingerprint(pem_path):
    """certtool's SHA-256 fingerprint of the first certificate of a file, as "3F2A 9C01 …"."""
    info = subprocess.run(["certtool", "-i", "--infile", pem_path], capture_output=True, text=True,
                          check=True).stdout
    out = re.search(r"Fingerprint:\s*\n\s*sha1:\S+\s*\n\s*sha256:([0-9a-f]+)", info).group(1).upper()
    return " ".join(out[i:i + 4] for i in range(0, len(out), 4))


def certtool(*args, stdin=None):
    return subprocess.run(["certtool", *args], capture_output=True, text=True, input=stdin, check=True)


def make_company_cert(tmp, name):
    """A key and a self-signed signing certificate as a company's CA might hand them out."""
    key, crt, tmpl = (os.path.join(tmp, f"{name}.{ext}") for ext in ("key", "crt", "tmpl"))
    with open(tmpl, "w", encoding="utf-8") as f:
        f.write(f'cn = "{name}"\norganization = "Acme Integration"\nserial = 7\nexpiration_days = 30\n'
                "signing_key\nemail_protection_key\n")
    certtool("--generate-privkey", "--key-type=ecdsa", "--outfile", key)
    certtool("--generate-self-signed", "--load-privkey", key, "--template", tmpl, "--outfile", crt)
    return key, crt


def der_items(data):
    """The TLVs of DER bytes as (tag, content); None when they are not exactly DER."""
    items, i = [], 0
    while i < len(data):
        if i + 2 > len(data):
            return None
        tag, length, i = data[i], data[i + 1], i + 2
        if length & 0x80:
            n = length & 0x7F
            if n == 0 or n > 4 or i + n > len(data):
                return None
            length, i = int.from_bytes(data[i:i + n], "big"), i + n
        if i + length > len(data):
            return None
        items.append((tag, data[i:i + length]))
        i += length
    return items


def der_tlv(tag, content):
    n = len(content)
    head = bytes([n]) if n < 0x80 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + head + content


def set_rounds(data, rounds, depth_ok, depth=0):
    """data with every iteration count of certtool's PKCS#12 (600000) at a depth depth_ok accepts
    set to rounds, lengths re-encoded: nested DER in OCTET STRINGs is followed."""
    out = b""
    for tag, content in der_items(data):
        if tag & 0x20:
            content = set_rounds(content, rounds, depth_ok, depth + 1)
        elif tag == 0x04 and content[:1] == b"\x30" and der_items(content) is not None:
            content = set_rounds(content, rounds, depth_ok, depth + 1)
        elif tag == 0x02 and int.from_bytes(content, "big") == 600000 and depth_ok(depth):
            content = rounds.to_bytes(rounds.bit_length() // 8 + 1, "big")
        out += der_tlv(tag, content)
    return out


def check_p12_rounds(tmp, key, crt):
    """PKCS#12 files that ask for a huge number of rounds of their password function: refused at
    once with a message about the file (the MAC's count ran unbounded in GnuTLS before; a key's
    count over GnuTLS's limit read as "holds no private key")."""
    good = os.path.join(tmp, "rounds.p12")
    certtool("--to-p12", "--load-privkey", key, "--load-certificate", crt, "--p12-name", "Kim Park",
             "--password", "s3cret-pass", "--outder", "--outfile", good)
    data = open(good, "rb").read()
    cases = [("mac", 2**31 - 1, lambda d: d == 2, "rounds of its password function for its integrity check"),
             ("contents", 5000000, lambda d: d > 2, "rounds of its password function for its encrypted contents"),
             ("huge", 2**31 - 1, lambda d: d > 2, "settings that cannot be used")]
    for name, rounds, where, words in cases:
        path = os.path.join(tmp, f"rounds-{name}.p12")
        changed = set_rounds(data, rounds, where)
        with open(path, "wb") as f:
            f.write(changed)
        home = os.path.join(tmp, f"data-{name}")
        started = time.monotonic()
        try:
            r = cli(home, "import", "--p12", path, "--password", "s3cret-pass")
            text, rc = r.stderr, r.returncode
        except subprocess.TimeoutExpired:
            text, rc = "still running after the timeout", None
        took = time.monotonic() - started
        tap(changed != data and rc == 2 and words in text and path in text and "no private key" not in text
            and took < 10 * SCALE, f"a PKCS#12 file asking for {rounds} rounds ({name}) is refused at once, "
            "naming the file", f"{took:.1f} s\n{text}")


def main():
    if shutil.which("certtool") is None:
        print("1..0 # SKIP certtool (gnutls-bin) is not installed")
        return 0
    tmp = tempfile.mkdtemp(prefix="qf-cli-cert-")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


def run(tmp):
    home = os.path.join(tmp, "data")
    keys = os.path.join(home, "qualify", "keys")
    r = cli(home, "show")
    tap(r.returncode != 0 and "No signing certificate" in r.stderr, "show without a certificate says there is none",
        r.stderr)

    r = cli(home, "create", "--name", "Li Wei", "--org", "Example Robotics")
    tap(r.returncode == 0, "create makes a certificate", r.stderr)
    r = cli(home, "show")
    want = grouped_fingerprint(os.path.join(keys, "signer-chain.pem"))
    tap(field(r.stdout, "Holder") == "Li Wei" and field(r.stdout, "Company") == "Example Robotics",
        "show names the holder and the company", r.stdout)
    tap(field(r.stdout, "Fingerprint") == want and re.fullmatch(r"([0-9A-F]{4} ){15}[0-9A-F]{4}", want),
        "show prints the SHA-256 fingerprint in 16 groups of four, as certtool computes it",
        f"{r.stdout}\nwant {want}")
    tap(re.match(r"\d{4}-\d\d-\d\d", field(r.stdout, "Valid from") or "") is not None
        and re.match(r"\d{4}-\d\d-\d\d", field(r.stdout, "Valid until") or "") is not None,
        "show prints the validity", r.stdout)
    r = cli(home, "create", "--name", "Someone Else")
    tap(r.returncode != 0 and "--force" in r.stderr, "create does not replace a certificate without --force", r.stderr)

    pem = os.path.join(tmp, "installer.pem")
    r = cli(home, "show", "--export", pem)
    info = subprocess.run(["certtool", "-i", "--infile", pem], capture_output=True, text=True)
    text = open(pem, encoding="utf-8").read() if os.path.exists(pem) else ""
    tap(r.returncode == 0 and info.returncode == 0 and "Li Wei (Qualify signing root)" in info.stdout
        and "PRIVATE KEY" not in text, "show --export writes the public root, which certtool reads", info.stderr)

    # a company's certificate: PEM chain + key
    key, crt = make_company_cert(tmp, "Kim Park")
    r = cli(home, "import", "--cert", crt, "--key", key, "--force")
    tap(r.returncode == 0 and field(r.stdout, "Holder") == "Kim Park"
        and field(r.stdout, "Company") == "Acme Integration"
        and field(r.stdout, "Fingerprint") == grouped_fingerprint(crt),
        "import of a PEM chain and key stores it and shows its holder", r.stdout + r.stderr)
    other_key, _ = make_company_cert(tmp, "Other Person")
    r = cli(home, "import", "--cert", crt, "--key", other_key, "--force")
    tap(r.returncode != 0 and "does not belong to the certificate" in r.stderr,
        "a key of another certificate is refused, with what to give instead", r.stderr)
    r = cli(home, "import", "--cert", os.path.join(tmp, "missing.pem"), "--key", key, "--force")
    tap(r.returncode != 0 and "missing.pem" in r.stderr and "Choose a file" in r.stderr,
        "an unreadable file is named, with what to do", r.stderr)

    # a certificate that expired is refused before it replaces anything
    old_key, old_crt, tmpl = (os.path.join(tmp, n) for n in ("old.key", "old.crt", "old.tmpl"))
    with open(tmpl, "w", encoding="utf-8") as f:
        f.write('cn = "Old Cert"\nserial = 8\nactivation_date = "2019-01-01 00:00:00"\n'
                'expiration_date = "2020-01-01 00:00:00"\nsigning_key\n')
    certtool("--generate-privkey", "--key-type=ecdsa", "--outfile", old_key)
    certtool("--generate-self-signed", "--load-privkey", old_key, "--template", tmpl, "--outfile", old_crt)
    r = cli(home, "import", "--cert", old_crt, "--key", old_key, "--force")
    shown = cli(home, "show")
    tap(r.returncode != 0 and "not today" in r.stderr and field(shown.stdout, "Holder") == "Kim Park",
        "an expired certificate is refused with what to do, and the stored one stays", r.stderr)

    # PKCS#12: wrong password refused, right password imported
    p12 = os.path.join(tmp, "kim.p12")
    certtool("--to-p12", "--load-privkey", key, "--load-certificate", crt, "--p12-name", "Kim Park",
             "--password", "s3cret-pass", "--outder", "--outfile", p12)
    home2 = os.path.join(tmp, "data2")
    r = cli(home2, "import", "--p12", p12, "--password", "wrong")
    tap(r.returncode != 0 and "password" in r.stderr.lower() and "--password" in r.stderr
        and not os.path.exists(os.path.join(home2, "qualify", "keys", "signer-key.pem")),
        "a wrong PKCS#12 password is refused and nothing is stored", r.stderr)
    r = cli(home2, "import", "--p12", p12, env_extra={"QUALIFY_P12_PASSWORD": "s3cret-pass"})
    tap(r.returncode == 0 and field(r.stdout, "Holder") == "Kim Park",
        "the right password (from QUALIFY_P12_PASSWORD) imports it", r.stdout + r.stderr)
    mode = os.stat(os.path.join(home2, "qualify", "keys", "signer-key.pem")).st_mode & 0o777
    tap(mode == 0o600, "the imported key is stored readable by its owner only", oct(mode))

    secret = open(key, encoding="utf-8").read().split("-----")[2].strip().splitlines()
    leaked = [o for o in outputs if "PRIVATE KEY" in o or any(line and line in o for line in secret)
              or "s3cret-pass" in o]
    tap(not leaked, "no output holds key material or the password", leaked[:1])
    check_p12_rounds(tmp, key, crt)


sys.exit(main())
