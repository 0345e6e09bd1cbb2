#!/usr/bin/env python3
"""tests/python/test_grade_fairness.py — credit for no work stays small (issue 9, item 4).

For every numeric exercise whose parts are attention stages, over the real `attn`:
  1. the placeholder answer (zeros for the scores, uniform weights, the mean of V)
     scores at most 20% of the numeric points;
  2. a classmate's correct answers (bob's numbers, computed here in NumPy) handed in
     under alice's name score at most 20% of the points of the exercises that give
     each student their own numbers, and are flagged;
  3. alice's own correct answers (NumPy) score 100% — so the two limits above are not
     met by a grader that gives nothing to anyone.
Run by CTest with /usr/bin/python3 (Debian's, which has numpy).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_reference import softmax_rows  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
ENV = dict(os.environ, ATTN_COURSE_SECRET="fairness-test-secret")
STAGES = {"raw", "scaled", "masked", "weights", "output"}
failures = []


def attn(*args):
    p = subprocess.run([ATTN, *args], capture_output=True, text=True, env=ENV)
    if p.returncode not in (0, 1):
        raise AssertionError(f"attn {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def stages(inp):
    q, k, v = (np.array(inp[r], float) for r in ("q", "k", "v"))
    scale = inp["scale"] if inp["scale"] is not None else np.sqrt(q.shape[1])
    raw = q @ k.T
    scaled = raw / scale
    masked = scaled + (np.array(inp["bias"], float) if inp["bias"] is not None else 0.0)
    attend = np.array(inp["mask_attend"], bool) if inp["mask_attend"] is not None else np.ones_like(raw, bool)
    masked = np.where(attend, masked, -np.inf)
    w = softmax_rows(masked) if inp["softmax"] else np.where(attend, masked, 0.0)
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": w @ v}, attend


def cut(m, p):
    rows = p["rows"] or list(range(m.shape[0]))
    cols = p["cols"] or list(range(m.shape[1]))
    return m[np.ix_(rows, cols)]


def as_json(m):
    return [["-inf" if np.isneginf(x) else float(x) for x in row] for row in m]


def placeholder(inp, p):
    q, v = np.array(inp["q"], float), np.array(inp["v"], float)
    n_q, n_k = q.shape[0], v.shape[0]
    full = {"raw": np.zeros((n_q, n_k)), "scaled": np.zeros((n_q, n_k)), "masked": np.zeros((n_q, n_k)),
            "weights": np.full((n_q, n_k), 1.0 / n_k), "output": np.tile(v.mean(axis=0), (n_q, 1))}
    return as_json(cut(full[p["stage"]], p))


exercises = [l.split()[0] for l in attn("exercise", "list").splitlines() if " numeric " in l]
infos = {}
for ex in exercises:
    a = json.loads(attn("exercise", "show", ex, "--student", "alice", "--format", "json"))
    if a["inputs"].get("student_inputs") or any(p["stage"] not in STAGES for p in a["parts"]):
        continue  # own-choice inputs, argmax, scale, gradients, tiles: not stage tables
    if any(a["inputs"].get(k) not in (None, False) for k in ("grad", "tile", "rope", "window")):
        continue  # lessons 15–19 extras: checked by test_grade_new_lessons.py
    b = json.loads(attn("exercise", "show", ex, "--student", "bob", "--format", "json"))
    infos[ex] = (a, b)

check(len(infos) >= 10, f"enough numeric exercises to judge: {sorted(infos)}")
total = sum(sum(p["points"] for p in a["parts"]) for a, _ in infos.values())


def grade(doc):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "alice.json")
        json.dump(dict(doc, student="alice"), open(path, "w"))
        return json.loads(attn("grade", path, "--student", "alice", "--format", "json", "--exercises", ",".join(infos)))


own = {ex: {p["id"]: as_json(cut(stages(a["inputs"])[0][p["stage"]], p)) for p in a["parts"]} for ex, (a, _) in infos.items()}
rep = grade(own)
for x in rep["exercises"]:
    if x["score"] < x["max_score"]:
        print("own:", x["id"], [(p["id"], p["status"], p["feedback"][:200]) for p in x["parts"] if p["score"] < p["max_score"]])
check(abs(rep["score"] - total) < 1e-6, f"alice's own answers score 100%: {rep['score']} / {total}")

rep = grade({ex: {p["id"]: placeholder(a["inputs"], p) for p in a["parts"]} for ex, (a, _) in infos.items()})
print(f"placeholder: {rep['score']} / {total} = {100 * rep['score'] / total:.1f}%")
check(rep["score"] <= 0.2 * total, f"the placeholder answer scores at most 20%: {rep['score']} / {total}")

# Copying matters where students have their own numbers: the exercises that vary.
varied = {ex: v for ex, v in infos.items() if "variant" in v[0]}
check(len(varied) >= 5, f"enough per-student exercises: {sorted(varied)}")
total = sum(sum(p["points"] for p in a["parts"]) for a, _ in varied.values())
copy = {ex: {p["id"]: as_json(cut(stages(b["inputs"])[0][p["stage"]], p)) for p in b["parts"]} for ex, (_, b) in varied.items()}
rep = grade(copy)
for x in rep["exercises"]:
    if x["score"] > 0:
        print("copy:", x["id"], x["score"], [(p["id"], p["status"], p["score"]) for p in x["parts"]])
print(f"bob's answers as alice: {rep['score']} / {total} = {100 * rep['score'] / total:.1f}%; flags: {len(rep['flags'])}")
check(rep["score"] <= 0.2 * total, f"a classmate's answers score at most 20%: {rep['score']} / {total}")
check(any("someone else's numbers" in f for f in rep["flags"]), f"a classmate's answers are flagged: {rep['flags']}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("fairness checks passed")
