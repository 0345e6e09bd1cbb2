#!/usr/bin/python3
"""tests/python/test_hostile_items.py — issue 18's smaller items, each through the command
line: two lesson files with one number and a lesson 00 in a --lessons folder refused with
the files named; `0x1` (and other non-decimal forms) refused as review points at the
cell; a decimals message names the value; a broken progress file named at file:line:col;
a spec on standard input named <stdin>; non-finite CSV cells and choice answers named in
words, never the letters nan; a typo'd spec key at the key with "did you mean"."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []
NAN = re.compile(r"(?i)(?<![a-z_])-?nan(?![a-z_])")


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail[:1500]))
    if not ok:
        failures.append(name)


def run(*args, env=None, stdin=None):
    e = dict(os.environ, COLUMNS="80")
    e.pop("ATTN_COURSE_SECRET", None)
    e.update(env or {})
    return subprocess.run([ATTN, *args], capture_output=True, text=True, env=e, input=stdin, timeout=60)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def lessons_folder_numbers(d):
    two = open(os.path.join(SRC, "lessons", "02-why-scale.toml"), encoding="utf-8").read()
    one = open(os.path.join(SRC, "lessons", "01-self-attention.toml"), encoding="utf-8").read()
    dup = os.path.join(d, "dup")
    write(os.path.join(dup, "01-self.toml"), one)
    write(os.path.join(dup, "02-a.toml"), two)
    write(os.path.join(dup, "02-b.toml"), two)
    for verb in (["lessons"], ["lesson", "1", "--no-pause"], ["exercise", "list"]):
        p = run("--lessons", dup, *verb)
        check(f"two lessons numbered 02 ({' '.join(verb)}): refused, both files named",
              p.returncode == 2 and "02-a.toml" in p.stderr and "02-b.toml" in p.stderr and "numbered 02" in p.stderr,
              f"exit {p.returncode}: {p.stderr}")
    zero = os.path.join(d, "zero")
    write(os.path.join(zero, "00-intro.toml"), one.replace("number = 1", "number = 0"))
    write(os.path.join(zero, "01-self.toml"), one)
    p = run("--lessons", zero, "lessons")
    check("lesson 00: refused, the file named", p.returncode == 2 and "00-intro.toml" in p.stderr and "from 01" in p.stderr,
          f"exit {p.returncode}: {p.stderr}")
    ok = os.path.join(d, "ok")
    write(os.path.join(ok, "01-self.toml"), one)
    write(os.path.join(ok, "02-a.toml"), two)
    write(os.path.join(ok, "notes.toml"), "not a lesson\n")
    p = run("--lessons", ok, "lessons")
    check("distinct numbers and other files: listed", p.returncode == 0 and "Why divide" in p.stdout, p.stderr)


def review_points(d):
    c = os.path.join(d, "C")
    write(os.path.join(c, "ana.toml"), 'student = "ana"\n[09-data-dependent]\nanswer = "A depends on X"\n')
    head = "student,exercise,part,max,points,comment,answer,rubric\n"
    for points, good in [("0x1", False), ("0X1", False), ("1p0", False), ("inf", False), ("nan", False),
                         ("1e", False), ("0.5", True), (" 1 ", True), (".5", True), ("1e0", True)]:
        sheet = os.path.join(d, "rs.csv")
        write(sheet, head + f"ana,09-data-dependent,answer,1,{points},,A depends on X,r\n")
        p = run("grade", "--no-variants", "--class", c, "--exercises", "09-data-dependent", "--gradebook",
                os.path.join(d, "gb.csv"), "--reviews", sheet)
        if good:
            check(f"review points {points!r} accepted", p.returncode == 0, p.stderr)
        else:
            check(f"review points {points!r} refused at the cell, in words",
                  p.returncode == 2 and re.search(r"rs\.csv:2:\d+: points must be a number from 0 to 1", p.stderr)
                  and not NAN.search(p.stderr), f"exit {p.returncode}: {p.stderr}")


def decimals_value(d):
    one = open(os.path.join(SRC, "lessons", "02-why-scale.toml"), encoding="utf-8").read()
    m = re.search(r"decimals = \d+", one)
    if not m:
        check("lesson 02 has a decimals key to break", False)
        return
    path = os.path.join(d, "L", "02-why.toml")
    write(path, one.replace(m.group(0), "decimals = 12", 1))
    p = run("--lessons", os.path.join(d, "L"), "lesson", "check", path)
    check("decimals = 12: the message names the value",
          p.returncode == 2 and re.search(r"02-why\.toml:\d+:\d+: .*'decimals' must be a whole number from 0 to 8, found 12",
                                          p.stdout + p.stderr), p.stdout + p.stderr)


def progress_place(d):
    state = os.path.join(d, "state")
    write(os.path.join(state, "attn", "progress.toml"), '[questions]\n"01-scale" = "maybe"\n')
    p = run("lessons", env={"XDG_STATE_HOME": state})
    q = run("exercise", "list", env={"XDG_STATE_HOME": state})
    both = p.stdout + p.stderr + q.stdout + q.stderr
    check("a bad progress file is named at file:line:col, and set aside",
          p.returncode == 0 and re.search(r"progress\.toml:2:\d+: '01-scale' must be \"right\" or \"tried\", found \"maybe\"",
                                          both) is not None, both[-800:])


def spec_places(d):
    p = run("trace", "-", stdin='kind = 1\n')
    check("a spec on standard input is named <stdin>", p.returncode == 2 and "<stdin>:1:8:" in p.stderr, p.stderr)
    spec = os.path.join(d, "s.toml")
    write(spec, 'kind = "self"\ntokens = ["a"]\nQ = [[1.0]]\nK = [[1.0]]\nV = [[1.0]]\nscael = 2\n')
    p = run("trace", spec)
    check("a typo'd spec key: at the key, with did you mean",
          p.returncode == 2 and "s.toml:6:1: unknown key 'scael' in a spec file (did you mean 'scale'?" in p.stderr, p.stderr)
    write(spec, 'kind = "self"\ntokens = ["a"]\nQ = [[1.0]]\nK = [[1.0]]\nV = [[1.0]]\nheads = "2"\n')
    p = run("trace", spec)
    check("heads as a string: expected and found", p.returncode == 2 and
          "s.toml:6:9: 'heads' must be a whole number from 1 to 1000000, found a string" in p.stderr, p.stderr)
    write(os.path.join(d, "q.csv"), "nan,1\n1,1\n")
    write(spec, 'kind = "self"\ntokens = ["a", "b"]\nQ = "q.csv"\nK = "q.csv"\nV = "q.csv"\n')
    p = run("trace", spec)
    check("a nan CSV cell: refused at the cell, in words", p.returncode == 2 and "q.csv:1:1:" in p.stderr
          and not NAN.search(p.stderr), p.stderr)


def choice_nan(d):
    path = os.path.join(d, "n.toml")
    write(path, 'student = "s1"\n[02-spread]\nanswer = nan\n')
    p = run("grade", "--no-variants", path)
    check("a nan choice answer: named in words", p.returncode in (0, 1) and "not-a-number" in p.stdout
          and not NAN.search(p.stdout + p.stderr), p.stdout + p.stderr)


d = tempfile.mkdtemp(prefix="attn-items-")
try:
    for t in (lessons_folder_numbers, review_points, decimals_value, progress_place, spec_places, choice_nan):
        t(d)
finally:
    shutil.rmtree(d, ignore_errors=True)
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("hostile items: all checks passed")
