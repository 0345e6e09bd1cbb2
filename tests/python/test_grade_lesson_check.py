#!/usr/bin/env python3
"""tests/python/test_grade_lesson_check.py — `attn lesson check` checks what `attn grade`
will check (issue 18, item 5): a lesson whose exercise has points 0, nan, inf or 1e308,
rtol -1 or nan, or atol inf is refused by `lesson check` (exit 2, file:line:col and what
was expected), through the grader's own exercise reader, the same one `grade` uses.
"""
import os
import re
import subprocess
import sys
import tempfile

attn = os.environ.get("ATTN_BIN", "build/attn")
src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


lesson = open(os.path.join(src, "lessons", "03-causal-attention.toml"), encoding="utf-8").read()
anchor = 'id = "03-causal-cat"'
check(anchor in lesson, "lesson 03 has the exercise 03-causal-cat")
head, tail = lesson.split(anchor, 1)
cases = [("points", "0", "'points' must be"), ("points", "nan", "'points' must be"), ("points", "inf", "'points' must be"),
         ("points", "1e308", "'points' must be"), ("rtol", "-1.0", "'rtol' must be"), ("rtol", "nan", "'rtol' must be"),
         ("atol", "inf", "'atol' must be")]
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "03-causal-attention.toml")
    open(path, "w", encoding="utf-8").write(lesson)
    p = subprocess.run([attn, "lesson", "check", path], capture_output=True, text=True)
    check(p.returncode == 0 and ": ok" in p.stdout, f"the lesson as shipped passes: {p.returncode} {p.stderr[:300]}")
    for key, value, said in cases:
        body = re.sub(rf"^{key} = .*$", f"{key} = {value}", tail, count=1, flags=re.M)
        check(body != tail, f"{key} found in 03-causal-cat")
        open(path, "w", encoding="utf-8").write(head + anchor + body)
        p = subprocess.run([attn, "lesson", "check", path], capture_output=True, text=True)
        where = re.search(re.escape(path) + r":\d+:\d+", p.stderr)
        check(p.returncode == 2 and said in p.stderr and where,
              f"{key} = {value}: lesson check refuses it at file:line:col ({p.returncode}): {p.stderr[:300]}")
        g = subprocess.run([attn, "--lessons", d, "exercise", "list"], capture_output=True, text=True)
        check(g.returncode == 2 and said in g.stderr, f"{key} = {value}: and so does every verb that loads exercises: {g.stderr[:200]}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("lesson check checks the exercises")
