#!/usr/bin/env python3
"""tests/python/test_grade_secret_insist.py — one way to insist on a weak course secret on
every verb that reads one (issue 36, Build 4): `attn grade FILE`, `grade --class`,
`grade --gradescope`, `exercise show`, `exercise template` (one student and --roster) each
refuse a guessable secret (exit 2, the word "guessable" and the flag named) and accept it with
`--guessable-secret-ok`; the secret is never echoed. (test_grade_secret.py checks the
secrets themselves; ATTN_ALLOW_GUESSABLE_SECRET is removed from the environment here.)"""
import json
import os
import subprocess
import sys
import tempfile

attn = os.environ.get("ATTN_BIN", "build/attn")
src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
env = {k: v for k, v in os.environ.items() if k not in ("ATTN_ALLOW_GUESSABLE_SECRET", "ATTN_COURSE_SECRET")}
WEAK = "Transformer-2026"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args):
    return subprocess.run([attn, *args], capture_output=True, text=True, env=env, timeout=60)


with tempfile.TemporaryDirectory() as d:
    secret = os.path.join(d, "course.secret")
    open(secret, "w").write(WEAK + "\n")
    good = open(os.path.join(src, "tests", "fixtures", "grade", "correct.toml"), encoding="utf-8").read()
    answers = os.path.join(d, "ana.toml")
    open(answers, "w", encoding="utf-8").write(good)
    cls = os.path.join(d, "class")
    os.mkdir(cls)
    open(os.path.join(cls, "ana.toml"), "w", encoding="utf-8").write(good)
    sub = os.path.join(d, "submission")
    os.mkdir(sub)
    open(os.path.join(sub, "answers.toml"), "w", encoding="utf-8").write(good)
    meta = os.path.join(d, "meta.json")
    json.dump({"users": [{"email": "ana@uni.edu"}], "previous_submissions": []}, open(meta, "w"))
    roster = os.path.join(d, "roster.txt")
    open(roster, "w").write("ana\nbo\n")
    verbs = {
        "grade FILE": ["grade", answers, "--student", "ana"],
        "grade --class": ["grade", "--class", cls, "--gradebook", os.path.join(d, "book.csv")],
        "grade --gradescope": ["grade", "--gradescope", "--submission", sub, "--metadata", meta, "--results",
                               os.path.join(d, "results.json")],
        "exercise show": ["exercise", "show", "04-cross-the", "--student", "ana"],
        "exercise template": ["exercise", "template", "04", "--student", "ana"],
        "exercise template --roster": ["exercise", "template", "04", "--roster", roster, "--out", os.path.join(d, "out")],
    }
    for verb, args in verbs.items():
        p = run(args + ["--secret-file", secret])
        said = p.stdout + p.stderr
        if verb == "grade --gradescope":  # the student's results.json says the setup is broken; exit 2
            said += open(os.path.join(d, "results.json"), encoding="utf-8").read()
        check(p.returncode == 2 and "guessable" in said and "--guessable-secret-ok" in said and WEAK not in said,
              f"{verb}: a guessable secret refused, naming the flag, never echoed: {p.returncode} {said[:300]}")
        p = run(args + ["--secret-file", secret, "--guessable-secret-ok"])
        check(p.returncode in (0, 1) and "guessable" not in p.stderr,
              f"{verb}: insisted with --guessable-secret-ok: {p.returncode} {p.stderr[:300]}")
    check(len(os.listdir(os.path.join(d, "out"))) == 2, "the insisted roster hand-outs are written")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
