#!/usr/bin/env python3
"""tests/python/test_grade_variant_space_refusal.py — the variant check at load refuses an
exercise whose space is too small for the class (issue 36, Build 1): `attn grade --class`
and `attn exercise template --roster` stop before any work, exit 2, naming each exercise,
how many inputs it draws from, the class size and the share of the class that would share
its variant with a classmate, when that share is over 1%; `--small-variant-space-ok` grades
or hands out anyway; `--no-variants` (everyone the lesson's numbers) is the teacher's own
choice and never refused.

Every number is computed here, not read from attn: the inputs a variant allows from the
lesson file (tomllib) and the shapes of the hand-out (`attn exercise show --format json`):
halves or integers in the range per entry, a row of zeros drawn again, tied roles drawn
once; a model exercise's drawn tokens (distinct in a block that repeats). A student shares
with one of C − 1 classmates with probability 1 − (1 − 1/N)^(C − 1), the computation of
test_grade_variant_space_models.py.

  * a copy of the lessons where 09-xxtx draws integers in [-1, 1] (512 inputs) and
    23-rotary-row one token of 21: a class of 40 is refused for both (7.3% and 85%), nothing
    written; insisted, 40 gradebook rows; a class of 2 with 09-xxtx (0.2%) is graded;
  * the real lessons: a roster of 100,000 is refused for exactly the exercises whose share
    is over 1% at that size (09-xxtx, 20-*, 22-*, 23-rotary-row), each with its N; at 10,000
    every per-student exercise is within the limit, and 09-xxtx's hand-outs are written.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shards  # noqa: E402

attn = os.environ.get("ATTN_BIN", "build/attn")
ROOT = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LESSONS = os.path.join(ROOT, "lessons")
failures = []
LINE = re.compile(r"^  (\S+): its numbers are drawn from ([\d,]+|about 10\^\d+) inputs; in a class of ([\d,]+) about "
                  r"([\d.]+)% of the students would share theirs with a classmate$", re.M)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, env=None):
    return subprocess.run([attn, *args], capture_output=True, text=True, env=env, timeout=120)


def share(n, students):
    return 1.0 - (1.0 - 1.0 / n) ** (students - 1) if n > 1 else 1.0


def inputs_of(x, shapes):
    """How many inputs exercise x's variant allows (x: its [[exercise]] table; shapes: role → (rows, cols))."""
    v = x["variant"]
    if "model" in x:
        keep, k = v.get("keep", 0), math.floor(v["range"][1]) - math.ceil(v["range"][0]) + 1
        drawn = v.get("drawn", 0) or len(x["tokens"].split()) - keep
        return math.perm(k, drawn) if v.get("then") == "repeat" else k ** drawn
    lo, hi = v["range"]
    c = (math.floor(hi) - math.ceil(lo) + 1) if v.get("values") == "integers" else (math.floor(2 * hi) - math.ceil(2 * lo) + 1)
    n, tied = 1, False
    for role in v["vary"]:
        if v.get("tie") and role != "encoder_q":
            if tied:
                continue
            tied = True
        rows, cols = shapes[role]
        n *= (c ** cols - 1) ** rows
    return n


def per_student(lessons_dir):
    """{id: inputs} of every per-student exercise of the lessons in lessons_dir."""
    env = dict(os.environ, ATTN_LESSONS_DIR=lessons_dir)
    out = {}
    for name in sorted(os.listdir(lessons_dir)):
        if not name.endswith(".toml"):
            continue
        with open(os.path.join(lessons_dir, name), "rb") as f:
            for x in tomllib.load(f).get("exercise", []):
                if "variant" not in x:
                    continue
                shapes = {}
                if "model" not in x:
                    shown = json.loads(run("exercise", "show", x["id"], "--format", "json", env=env).stdout)["inputs"]
                    key = {"q": "q", "k": "k", "v": "v", "encoder_q": "encoder_q"}
                    shapes = {r: (len(shown[key[r]]), len(shown[key[r]][0])) for r in x["variant"]["vary"] if shown.get(key[r])}
                out[x["id"]] = inputs_of(x, shapes)
    return out


def refused(text):
    """{id: (inputs text, class size, percent)} from a refusal's lines."""
    return {m.group(1): (m.group(2), int(m.group(3).replace(",", "")), float(m.group(4))) for m in LINE.finditer(text)}


def percent_ok(said, want):
    """The product prints two or three significant digits: equal within its rounding."""
    p = 100 * want
    return abs(said - p) <= (0.5 if p >= 10 else 0.05 if p >= 1 else 0.005) + 1e-9


def roster(path, n):
    with open(path, "w") as f:
        f.write("".join("student%06d\n" % i for i in range(n)))


def narrow_lessons(d):
    """A copy of the lessons with 09-xxtx on integers in [-1, 1] and 23-rotary-row on one drawn token."""
    copy = os.path.join(d, "lessons")
    shutil.copytree(LESSONS, copy)
    for name, old, new in (("09-more-than-linear.toml", 'values = "integers"\nrange = [-5, 5]', 'values = "integers"\nrange = [-1, 1]'),
                           ("23-a-real-small-llama.toml", "keep = 1\ndrawn = 5\n", "keep = 1\ndrawn = 1\n")):
        path = os.path.join(copy, name)
        text = open(path, encoding="utf-8").read()
        check(text.count(old) == 1, f"{name}: the variant to narrow is there once")
        open(path, "w", encoding="utf-8").write(text.replace(old, new))
    return copy


def small_class(d, secret):
    lessons = narrow_lessons(d)
    env = dict(os.environ, ATTN_LESSONS_DIR=lessons, ATTN_COURSE_SECRET=secret)
    spaces = per_student(lessons)
    check(spaces["09-xxtx"] == 512 and spaces["23-rotary-row"] == 21, f"narrowed spaces: {spaces['09-xxtx']}, {spaces['23-rotary-row']}")
    cls = os.path.join(d, "class")
    os.mkdir(cls)
    for i in range(40):
        open(os.path.join(cls, "s%02d.toml" % i), "w").write("[09-xxtx]\n")
    book = os.path.join(d, "book.csv")
    p = run("grade", "--class", cls, "--exercises", "09-xxtx,23-rotary-row", "--gradebook", book, env=env)
    got = refused(p.stderr)
    check(p.returncode == 2 and set(got) == {"09-xxtx", "23-rotary-row"}, f"a class of 40 is refused for both: {p.returncode} {p.stderr[:600]}")
    for ex, n in (("09-xxtx", 512), ("23-rotary-row", 21)):
        if ex in got:
            said_n, size, pct = got[ex]
            check(said_n == str(n) and size == 40 and percent_ok(pct, share(n, 40)),
                  f"{ex}: {said_n} inputs, class {size}, {pct}% (want {n}, 40, {100 * share(n, 40):.3f}%)")
    check("--small-variant-space-ok" in p.stderr, "the refusal names the flag that insists")
    check(not os.path.exists(book), "nothing written when refused")
    p = run("grade", "--class", cls, "--exercises", "09-xxtx,23-rotary-row", "--gradebook", book, "--small-variant-space-ok", env=env)
    rows = open(book).read().splitlines() if os.path.exists(book) else []
    check(p.returncode == 0 and len(rows) == 41, f"insisted: graded, 40 rows: {p.returncode} {len(rows)} {p.stderr[:300]}")
    p = run("grade", "--class", cls, "--exercises", "09-xxtx,23-rotary-row", "--gradebook", book, "--no-variants", env=env)
    check(p.returncode == 0, f"--no-variants (the lesson's numbers for all) is never refused: {p.stderr[:300]}")
    two = os.path.join(d, "two")
    os.mkdir(two)
    for s in ("ana", "bo"):
        open(os.path.join(two, s + ".toml"), "w").write("[09-xxtx]\n")
    p = run("grade", "--class", two, "--exercises", "09-xxtx", "--gradebook", book, env=env)
    check(p.returncode == 0 and abs(share(512, 2) - 1 / 512) < 1e-12, f"a class of 2 (0.2%) is graded: {p.returncode} {p.stderr[:300]}")
    # The hand-outs: refused before anything is written, then written when insisted.
    r40, out = os.path.join(d, "r40.txt"), os.path.join(d, "handouts")
    roster(r40, 40)
    p = run("exercise", "template", "09-xxtx", "--roster", r40, "--out", out, env=env)
    check(p.returncode == 2 and set(refused(p.stderr)) == {"09-xxtx"} and not os.path.exists(out),
          f"template --roster of 40 refused, nothing written: {p.returncode} {p.stderr[:300]}")
    p = run("exercise", "template", "09-xxtx", "--roster", r40, "--out", out, "--small-variant-space-ok", env=env)
    check(p.returncode == 0 and len(os.listdir(out)) == 40, f"insisted: 40 hand-outs: {p.returncode} {p.stderr[:300]}")


def real_lessons(d, secret):
    env = dict(os.environ, ATTN_COURSE_SECRET=secret)
    spaces = per_student(LESSONS)
    check(len(spaces) >= 20, f"per-student exercises found: {sorted(spaces)}")
    over10k = {ex for ex, n in spaces.items() if share(n, 10000) > 0.01}
    check(not over10k, f"every per-student exercise within 1% at 10,000: over it {over10k}")
    want = {ex: n for ex, n in spaces.items() if share(n, 100000) > 0.01}
    check({"09-xxtx", "20-first-digit-row", "22-step-100-row", "23-rotary-row"} <= set(want), f"over 1% at 100,000: {sorted(want)}")
    big, out = os.path.join(d, "r100k.txt"), os.path.join(d, "big")
    roster(big, 100000)
    p = run("exercise", "template", *sorted(spaces), "--roster", big, "--out", out, env=env)
    got = refused(p.stderr)
    check(p.returncode == 2 and set(got) == set(want) and not os.path.exists(out),
          f"a roster of 100,000 is refused for exactly {sorted(want)}: {p.returncode} {sorted(got)}")
    for ex, n in want.items():
        if ex in got:
            said_n, size, pct = got[ex]
            check(said_n == f"{n:,}" and size == 100000 and percent_ok(pct, share(n, 100000)),
                  f"{ex}: {said_n} inputs, {pct}% (want {n:,}, {100 * share(n, 100000):.3f}%)")
    r10k, out = os.path.join(d, "r10k.txt"), os.path.join(d, "ten")
    roster(r10k, 10000)
    p = run("exercise", "template", "09-xxtx", "--roster", r10k, "--out", out, env=env)
    check(p.returncode == 0 and len(os.listdir(out)) == 10000 if os.path.isdir(out) else False,
          f"09-xxtx for 10,000 ({100 * share(spaces['09-xxtx'], 10000):.2f}%): handed out: {p.returncode} {p.stderr[:300]}")


# Two shards (tests/CMakeLists.txt): the sanitizer build took 52 s for both in one process.
with tempfile.TemporaryDirectory() as d:
    secret = os.urandom(32).hex()
    for part in shards.mine([small_class, real_lessons]):
        part(d, secret)

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
