#!/usr/bin/python3
"""tests/python/test_hardening_refusals.py — small refusals of issue 37 outside the model
floor: `attn shapes` values out of range are refused naming the range in digits a person
reads (not CLI11's 309-digit bound; a value past 2^63 − 1 is no longer clamped to it), and
an answer file that answers no exercise attn knows is an input error (exit 2, naming the
file and what it held) instead of "Total 0 / 0"."""
import os
import shutil
import subprocess
import sys
import tempfile

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def run(*args, **kw):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=60, **kw)


def test_shapes():
    rest = ["--n_tgt", "3", "--n_src", "5", "--d", "8", "--d_q", "4", "--d_v", "4"]
    for value in ("99999999999999999999999", "9223372036854775808", "0", "-3", "2.5", "1e308", "x"):
        p = run("shapes", "cross", "--B", value, *rest)
        check(f"shapes --B {value}: refused (exit 2), the range named in readable digits",
              p.returncode == 2 and "--B" in p.stderr and "from 1 to 9223372036854775807" in p.stderr
              and len(max(p.stderr.split(), key=len)) < 40 and "Total" not in p.stdout, f"exit {p.returncode}: {p.stderr}")
    p = run("shapes", "cross", "--B", "9223372036854775807", *rest)
    check("shapes --B 2^63 − 1: shown as given", p.returncode == 0 and "9223372036854775807 × 3 × 8" in p.stdout, p.stderr)


def test_answers_nothing(d):
    path = os.path.join(d, "none.toml")
    with open(path, "w") as f:
        f.write('[zz-not-an-exercise]\nanswer = 1\n')
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(d, "state"))
    p = run("exercise", "check", path, env=env)
    check("an answer file answering no known exercise: exit 2, naming the file, the id and `attn exercise list`",
          p.returncode == 2 and path + ":" in p.stderr and "zz-not-an-exercise" in p.stderr and "exercise list" in p.stderr
          and "Total 0 / 0" not in p.stdout, f"exit {p.returncode}: {p.stdout} {p.stderr}")
    check("… and no progress recorded", not os.path.exists(os.path.join(d, "state", "attn", "progress.toml")))


def main():
    d = tempfile.mkdtemp(prefix="attn-refusals-")
    try:
        test_shapes()
        test_answers_nothing(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
