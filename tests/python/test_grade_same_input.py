#!/usr/bin/python3
"""tests/python/test_grade_same_input.py — exercises declared `same_input_as` (lessons 21
and 22: one input, two heads) draw their input once and redraw it together (issue 36,
Build 1). Before, each exercise redrew on its own when a catalogued mistake would have been
right on it, and 7.9% of a class got other digits at step 2,000 than at step 100 (158 of
2,000 students; 21-previous-row against 21-stripe-row 0.8%): a student who followed the
prompt and reused the step-100 digits scored 0 of 2.

For 600 students the teacher's batch `attn exercise show ID --students ROSTER` must give
both exercises of each pair the same tokens; for a few of them the answer computed in
PyTorch from the checkpoint (model_head_reference.py, never attn's code) on the step-100
digits must earn full marks at step 2,000, and the same for lesson 21's two heads."""
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_head_reference as mh  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SECRET = os.path.join(mh.ROOT, "tests", "fixtures", "grade", "course.secret")
STUDENTS = 600
PAIRS = [("22-step-100-row", "22-step-2000-row"), ("21-stripe-row", "21-previous-row")]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def class_tokens(ex, roster):
    p = subprocess.run([ATTN, "exercise", "show", ex, "--students", roster, "--secret-file", SECRET],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"{ex}: exercise show --students exits {p.returncode}: {p.stderr[:200]}")
    return {d["student"]: d["inputs"]["model"]["tokens"] for d in map(json.loads, p.stdout.splitlines())}


def grade(tmp, ex, student, parts):
    path = os.path.join(tmp, f"{student}-{ex}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"student": student, ex: parts}, f)
    p = subprocess.run([ATTN, "grade", path, "--format", "json", "--secret-file", SECRET], capture_output=True, text=True)
    check(p.returncode == 0, f"{ex}: grade exits {p.returncode}: {p.stderr[:200]}")
    return json.loads(p.stdout)


with tempfile.TemporaryDirectory() as tmp:
    roster = os.path.join(tmp, "roster.txt")
    with open(roster, "w") as f:
        f.write("".join(f"learner{i:04d}\n" for i in range(STUDENTS)))
    drawn = {}
    for first, second in PAIRS:
        a, b = class_tokens(first, roster), class_tokens(second, roster)
        check(len(a) == STUDENTS and a.keys() == b.keys(), f"{first}/{second}: {len(a)} and {len(b)} students drawn")
        differ = [s for s in a if a[s] != b.get(s)]
        print(f"{first} / {second}: {len(differ)} of {len(a)} students get other tokens")
        check(not differ, f"{second}: {len(differ)} students get other tokens than at {first}, e.g. {differ[:3]}")
        drawn[first] = a
    # Following the prompt pays: the step-100 digits, read at step 2,000 (the trained "sort8").
    for student in ("learner0000", "learner0001", "learner0002"):
        toks = drawn["22-step-100-row"][student]
        _, weights, most = mh.head_row("sort8", toks, 0, 0, 7)
        r = grade(tmp, "22-step-2000-row", student, {"weights": weights, "most": [most]})
        check(r["score"] == r["max_score"] == 2, f"22-step-2000-row: {student} on the step-100 digits scores {r['score']}")
        toks = drawn["21-stripe-row"][student]
        scaled, _, most = mh.head_row("induction", toks, 0, 0, 15)
        r = grade(tmp, "21-previous-row", student, {"scaled": scaled, "most": [most]})
        check(r["score"] == r["max_score"] == 2, f"21-previous-row: {student} on 21-stripe-row's tokens scores {r['score']}")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
