#!/usr/bin/env python3
"""tests/python/test_grade_secret.py — course secrets that can't be guessed (issue 20, Build 4).

`attn course secret FILE` writes 256 random bits (hex) readable by its owner only and never
replaces an existing file; a guessable secret (a word and a year, one character) is
refused by every verb that reads one unless the teacher names the risk
(--guessable-secret-ok, ATTN_ALLOW_GUESSABLE_SECRET=1); a UTF-16 or byte-order-marked
secret file is a clear error, never read as other bytes.
"""
import os
import re
import stat
import subprocess
import sys
import tempfile

attn = os.environ.get("ATTN_BIN", "build/attn")
src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []
env = {k: v for k, v in os.environ.items() if k not in ("ATTN_ALLOW_GUESSABLE_SECRET", "ATTN_COURSE_SECRET")}
answers = os.path.join(src, "tests", "fixtures", "grade", "correct.toml")


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, extra=None):
    return subprocess.run([attn, *args], capture_output=True, text=True, env=dict(env, **(extra or {})))


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "course.secret")
    p = run("course", "secret", path)
    check(p.returncode == 0, f"course secret exits 0: {p.returncode} {p.stderr}")
    text = open(path).read()
    check(re.fullmatch(r"[0-9a-f]{64}\n", text) is not None, f"64 hex digits (256 bits) and a newline: {text!r}")
    check(stat.S_IMODE(os.stat(path).st_mode) == 0o600, f"readable by its owner only: {oct(os.stat(path).st_mode)}")
    check("fingerprint" in p.stdout and text.strip() not in p.stdout, f"the fingerprint is shown, never the secret: {p.stdout}")
    other = os.path.join(d, "other.secret")
    run("course", "secret", other)
    check(open(other).read() != text, "two secrets differ")
    p = run("course", "secret", path)
    check(p.returncode == 2 and "exists" in p.stderr and open(path).read() == text,
          f"an existing secret is never replaced: {p.returncode} {p.stderr}")
    p = run("grade", answers, "--student", "ana", "--secret-file", path)
    check(p.returncode in (0, 1) and "guessable" not in p.stderr, f"a generated secret is accepted: {p.returncode} {p.stderr[:200]}")

    for weak in ("Transformer-2026", "x", "correct horse battery staple", "attn-fixture-secret"):
        open(path, "w").write(weak + "\n")
        p = run("grade", answers, "--student", "ana", "--secret-file", path)
        check(p.returncode == 2 and "guessable" in p.stderr and "--guessable-secret-ok" in p.stderr,
              f"{weak!r} is refused, naming the flag: {p.returncode} {p.stderr[:300]}")
        p = run("grade", answers, "--student", "ana", "--secret-file", path, "--guessable-secret-ok")
        check(p.returncode in (0, 1), f"{weak!r} with --guessable-secret-ok is accepted: {p.returncode} {p.stderr[:200]}")
        p = run("exercise", "show", "04-cross-the", "--student", "ana", extra={"ATTN_COURSE_SECRET": weak})
        check(p.returncode == 2 and "guessable" in p.stderr, f"ATTN_COURSE_SECRET={weak!r} is refused too: {p.stderr[:200]}")
        p = run("exercise", "show", "04-cross-the", "--student", "ana",
                extra={"ATTN_COURSE_SECRET": weak, "ATTN_ALLOW_GUESSABLE_SECRET": "1"})
        check(p.returncode == 0, f"... unless ATTN_ALLOW_GUESSABLE_SECRET=1: {p.stderr[:200]}")

    for label, data, said in (("UTF-16 LE", "\ufeff" + "k" * 40, "UTF-16"), ("UTF-16 BE", None, "UTF-16"),
                              ("UTF-8 BOM", None, "byte-order mark")):
        raw = {"UTF-16 LE": ("\ufeff" + "q7Xv" * 10).encode("utf-16-le"),
               "UTF-16 BE": ("\ufeff" + "q7Xv" * 10).encode("utf-16-be"),
               "UTF-8 BOM": ("\ufeff" + "9f2c1e7a" * 6).encode("utf-8")}[label]
        open(path, "wb").write(raw)
        p = run("grade", answers, "--student", "ana", "--secret-file", path, "--guessable-secret-ok")
        check(p.returncode == 2 and said in p.stderr and path in p.stderr, f"{label}: a clear error: {p.returncode} {p.stderr[:300]}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("course secret checks passed")
