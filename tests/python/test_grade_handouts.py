#!/usr/bin/env python3
"""tests/python/test_grade_handouts.py — hand-outs per roster (issue 36, Build 6):
`attn exercise template --assignment A --roster R --out DIR` writes one answer file per
student of the roster, named by the id `attn grade --class` reads back, with that student's
own numbers. Checked here: the files are exactly the roster's ids (normalised as the grader
does: trimmed, ASCII lower case; comments and blank lines skipped); the numbers in each are
that student's — the test reads Q, K, V from the file's comments, computes the causal
attention of the query 'cat' with NumPy, fills the file in, and `attn grade --class` gives
full marks; an existing file is kept byte for byte and named; a roster with an id that
cannot be a file name, an id twice, UTF-16 without its mark or bytes that are not UTF-8 is
refused at file:line, exit 2, with nothing written; no secret, exit 2. And `exercise show
--students` refuses such a list the same way (not an internal error).
"""
import ast
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

attn = os.environ.get("ATTN_BIN", "build/attn")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, cwd):
    env = {k: v for k, v in os.environ.items() if k != "ATTN_COURSE_SECRET"}
    return subprocess.run([attn, *args], capture_output=True, text=True, cwd=cwd, env=env)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


ROSTER = "ana\n# week 3 group B\n\n  Bob \nCarol\nd.lee@uni.edu\n"
IDS = ["ana", "bob", "carol", "d.lee@uni.edu"]


def fill(text):
    """The hand-out answered: causal attention of row 1 ('cat') on the file's own Q, K, V."""
    m = {name: np.array(ast.literal_eval(v)) for name, v in re.findall(r"^#   ([QKV]) = (\[.*\])$", text, re.M)}
    q, k, v = m["Q"], m["K"], m["V"]
    s = q[1] @ k.T / np.sqrt(k.shape[1])
    s[2:] = -np.inf
    w = np.exp(s - s[:2].max())
    w /= w.sum()
    fmt = lambda a: "[" + ", ".join("-inf" if np.isneginf(x) else repr(float(x)) for x in a) + "]"
    text = re.sub(r'^masked = ".*"$', "masked = " + fmt(s), text, flags=re.M)
    text = re.sub(r'^weights = ".*"$', "weights = " + fmt(w), text, flags=re.M)
    text = re.sub(r'^output = ".*"$', "output = " + fmt(w @ v), text, flags=re.M)
    return re.sub(r'^answer = ".*"$', 'answer = "√d"', text, flags=re.M), (q, k, v)


with tempfile.TemporaryDirectory() as d:
    p = run("course", "secret", "s.secret", cwd=d)
    check(p.returncode == 0, f"course secret: {p.stderr}")
    write(os.path.join(d, "a.toml"), '[[exercise]]\nid = "03-causal-cat"\npoints = 6\n[[exercise]]\nid = "02-spread"\n')
    write(os.path.join(d, "roster.txt"), ROSTER)
    os.mkdir(os.path.join(d, "out"))
    write(os.path.join(d, "out", "carol.toml"), "carol's own work\n")
    args = ["exercise", "template", "--assignment", "a.toml", "--roster", "roster.txt", "--out", "out", "--secret-file", "s.secret"]
    p = run(*args, cwd=d)
    check(p.returncode == 0, f"template --roster exits {p.returncode}: {p.stderr[:300]}")
    check("wrote 3 answer files to out" in p.stdout and "kept carol.toml" in p.stdout, f"what it says: {p.stdout}")
    check(sorted(os.listdir(os.path.join(d, "out"))) == sorted(i + ".toml" for i in IDS), f"files: {os.listdir(os.path.join(d, 'out'))}")
    check(open(os.path.join(d, "out", "carol.toml")).read() == "carol's own work\n", "carol's existing file was replaced")
    numbers = {}
    for s in ("ana", "bob", "d.lee@uni.edu"):
        text = open(os.path.join(d, "out", s + ".toml"), encoding="utf-8").read()
        one = run("exercise", "template", "--assignment", "a.toml", "--student", s, "--secret-file", "s.secret", cwd=d)
        check(text == one.stdout, f"{s}'s hand-out is the one `template --student {s}` prints")
        check(f'student = "{s}"' in text, f"{s}'s hand-out names them")
        filled, numbers[s] = fill(text)
        write(os.path.join(d, "out", s + ".toml"), filled)
    check(not np.array_equal(numbers["ana"][0], numbers["bob"][0]), "ana and bob got the same numbers")
    p = run("grade", "--class", "out", "--assignment", "a.toml", "--secret-file", "s.secret", "--gradebook", "book.csv", cwd=d)
    check(p.returncode == 0, f"grading the filled hand-outs: {p.stderr[:300]}")
    book = {r.split(",")[0]: r.split(",") for r in open(os.path.join(d, "book.csv"), encoding="utf-8").read().splitlines()[1:]}
    for s in ("ana", "bob", "d.lee@uni.edu"):
        check(s in book and book[s][3] == "7" and book[s][4] == "7", f"{s}: NumPy's answers on their hand-out score {book.get(s)}")

    # A second run writes nothing new and says which it kept.
    p = run(*args, cwd=d)
    check(p.returncode == 0 and "wrote 0 answer files" in p.stdout and p.stdout.count("kept ") == 4, f"second run: {p.stdout}")

    bad = [
        (b"ana\nx/y\n", "roster.txt:2:1:", "cannot name a hand-out file"),
        (b"ana\n-rf\n", "roster.txt:2:1:", "option"),
        (b"ana\n.hidden\n", "roster.txt:2:1:", "hidden"),
        (b"ana\nbo\x1b[2Jb\n", "roster.txt:2:1:", "control character"),
        (b"ana\nbob\nANA\n", "roster.txt:3:1:", "listed twice"),
        (b"ana\nb\xffb\n", "roster.txt:2:2:", "not UTF-8"),
        ("ana\nbob\n".encode("utf-16-le"), "roster.txt:1:2:", "not UTF-8"),
    ]
    for n, (data, where, words) in enumerate(bad):
        write(os.path.join(d, "roster.txt"), data)
        out = "bad%d" % n
        p = run("exercise", "template", "--assignment", "a.toml", "--roster", "roster.txt", "--out", out, "--secret-file",
                "s.secret", cwd=d)
        check(p.returncode == 2 and where in p.stderr and words in p.stderr, f"roster {data!r}: exit {p.returncode}: {p.stderr[:200]}")
        check(not os.path.exists(os.path.join(d, out)), f"roster {data!r}: {out} was made")
        p = run("exercise", "show", "03-causal-cat", "--students", "roster.txt", "--secret-file", "s.secret", cwd=d)
        if words in ("not UTF-8", "listed twice"):
            check(p.returncode == 2 and where in p.stderr and "internal" not in p.stderr.lower(),
                  f"show --students {data!r}: exit {p.returncode}: {p.stderr[:200]}")
    write(os.path.join(d, "roster.txt"), "ana\nbob\n".encode("utf-16"))  # with its mark: read
    p = run("exercise", "show", "03-causal-cat", "--students", "roster.txt", "--secret-file", "s.secret", cwd=d)
    check(p.returncode == 0 and len(p.stdout.splitlines()) == 2, f"a UTF-16 list with its mark: {p.returncode} {p.stderr[:200]}")
    write(os.path.join(d, "roster.txt"), ROSTER)
    p = run("exercise", "template", "--assignment", "a.toml", "--roster", "roster.txt", "--out", "nosecret", cwd=d)
    check(p.returncode == 2 and "secret" in p.stderr and not os.path.exists(os.path.join(d, "nosecret")),
          f"no secret: {p.returncode} {p.stderr[:200]}")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
