#!/usr/bin/env python3
"""tests/python/test_grade_tries.py — the previous_submissions policy (issue 20, Build 5).

An assignment's `detailed_tries = N` gives the first N Gradescope submissions the
assignment's feedback levels; from submission N + 1 on (Gradescope's metadata lists N or
more previous_submissions) every exercise is shown at `score`: points only, no mistake
names, and a note says why. The score itself never changes. A bad value is an error with
its place.
"""
import json
import os
import shutil
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


mistake = os.path.join(src, "tests", "fixtures", "grade", "mistake-no_scaling.toml")

with tempfile.TemporaryDirectory() as d:
    sub = os.path.join(d, "submission")
    os.makedirs(sub)
    shutil.copy(mistake, os.path.join(sub, "answers.toml"))
    assignment = os.path.join(d, "assignment.toml")
    with open(assignment, "w") as f:
        f.write('feedback = "mistakes"\ndetailed_tries = 2\n\n[[exercise]]\nid = "04-cross-the"\n')

    def results(previous):
        meta = {"users": [{"email": "ana@uni.edu", "id": 1}],
                "previous_submissions": [{"score": 1.0, "submission_time": "2026-01-01T00:00:00"}] * previous}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)
        p = subprocess.run([attn, "grade", "--gradescope", "--no-variants", "--submission", sub, "--metadata",
                            os.path.join(d, "meta.json"), "--assignment", assignment, "--results", "-"],
                           capture_output=True, text=True)
        check(p.returncode == 0, f"{previous} previous: exit {p.returncode}: {p.stderr[:300]}")
        return json.loads(p.stdout) if p.returncode == 0 else {"tests": [], "output": "", "score": -1}

    def shown(res):
        return res["output"] + "\n".join(t["output"] for t in res["tests"])

    first, second, third = results(0), results(1), results(2)
    for n, r in ((1, first), (2, second)):
        check("no scaling" in shown(r), f"submission {n} of 2 detailed tries names the mistake: {shown(r)[:300]}")
        check("feedback beyond the score" not in r["output"], f"submission {n}: no tries note yet")
    check("no scaling" not in shown(third), f"submission 3 (past 2 detailed tries) names no mistake: {shown(third)[:400]}")
    check("this is submission 3; feedback beyond the score is given for the first 2 submissions only" in third["output"],
          f"submission 3 says why: {third['output'][:300]}")
    for t in third["tests"]:
        check(t["output"] in ("", "not answered"), f"submission 3: a test says no more than the score: {t['output'][:200]}")
    check(first["score"] == third["score"] and first["score"] > 0, f"the score does not change: {first['score']} / {third['score']}")

    # A bad value: exit 2, the assignment file's place, nothing written.
    with open(assignment, "w") as f:
        f.write('detailed_tries = 0\n\n[[exercise]]\nid = "04-cross-the"\n')
    p = subprocess.run([attn, "grade", "--no-variants", "--assignment", assignment, os.path.join(sub, "answers.toml")],
                       capture_output=True, text=True)
    check(p.returncode == 2, f"detailed_tries = 0 exits 2 ({p.returncode})")
    check("assignment.toml:1:18: 'detailed_tries' must be a whole number from 1 to 1000" in p.stderr,
          f"detailed_tries = 0 names its place: {p.stderr[:300]}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
