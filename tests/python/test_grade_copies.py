#!/usr/bin/env python3
"""tests/python/test_grade_copies.py — copies found at class size (issue 20, Build 2).

A generated class (10,000 students in the release build, 1,000 in the sanitizer and
Debug builds, where ATTN_SLOW_BUILD=1), each on their own numbers (`attn exercise show
--students` with the secret), answers computed here in NumPy:

  honest (95%): right; one catalogued mistake; the mask applied after the softmax; the
                wrong query row; random wrong numbers
  copiers (5%): a classmate's right answers copied exactly; with noise below the
                tolerance; rounded to 2 decimals; mixed (some parts copied, the others
                their own work)

Graded in one `attn grade --class` run. A teacher wants: ≥ 95% of the copiers flagged
with the classmate they copied from, no honest student flagged (no copy note, no
"someone else's numbers"), every right student at 100%, every catalogued mistake named.
"""
import csv
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from attention_reference import softmax_rows  # noqa: E402
from gen_class import class_numbers  # noqa: E402

attn = os.environ.get("ATTN_BIN", "build/attn")
N = 1000 if os.environ.get("ATTN_SLOW_BUILD") == "1" else 10000
EXERCISES = ["01-self-cat", "03-causal-cat", "04-cross-the", "06-padded"]
MISTAKES = ["no_scaling", "scaled_by_d", "k_v_swapped"]
SECRET = "copies-test-secret-7f3a9c1e5b2d4680"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def stages(inp, how=None):
    q, k, v = (np.array(inp[r], float) for r in ("q", "k", "v"))
    if how == "k_v_swapped":
        k, v = v, k
    d = q.shape[1]
    scale = {"no_scaling": 1.0, "scaled_by_d": float(d)}.get(how, inp["scale"] if inp["scale"] is not None else np.sqrt(d))
    raw = q @ k.T
    scaled = raw / scale
    masked = scaled.copy()
    attend = np.array(inp["mask_attend"], bool) if inp["mask_attend"] is not None else None
    if attend is not None:
        masked[~attend] = -np.inf
    if how == "mask_after_softmax" and attend is not None:  # softmax of every score, then the blocked ones zeroed
        w = softmax_rows(scaled) * attend
    else:
        w = softmax_rows(masked)
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": w @ v}


def cut(m, p, row_shift=0):
    rows = p["rows"] or list(range(m.shape[0]))
    if row_shift:
        rows = [(r + row_shift) % m.shape[0] for r in rows]
    cols = p["cols"] or list(range(m.shape[1]))
    return m[np.ix_(rows, cols)]


def as_json(m):
    return [[("-inf" if np.isneginf(x) else float(x)) for x in row] for row in m]


def answers(inp, parts, how=None):
    st = stages(inp, how)
    return {p["id"]: cut(st[p["stage"]], p, 1 if how == "wrong_row" and p["rows"] else 0) for p in parts}


def spoil(m, how, rng):
    if how == "noisy":  # below the tolerance (rtol = atol = 0.001)
        return m + np.where(np.isfinite(m), rng.uniform(-4e-4, 4e-4, m.shape), 0.0)
    if how == "rounded":
        return np.where(np.isfinite(m), np.round(m, 2), m)
    return m


with tempfile.TemporaryDirectory() as d:
    names = [f"s{n:05d}" for n in range(N)]
    info = {ex: json.loads(subprocess.run([attn, "exercise", "show", ex, "--format", "json"], check=True,
                                          capture_output=True, text=True).stdout) for ex in EXERCISES}
    numbers = {ex: class_numbers(attn, ex, names, SECRET) for ex in EXERCISES}
    rng = np.random.default_rng(20)
    rnd = random.Random(20)
    plan = {}
    for s in names:
        r = rnd.random()
        if r < 0.05:
            plan[s] = ("copy", rnd.choice(["exact", "noisy", "rounded", "mixed"]))
        elif r < 0.75:
            plan[s] = ("honest", "correct")
        elif r < 0.87:
            plan[s] = ("honest", rnd.choice(MISTAKES))
        else:
            plan[s] = ("honest", rnd.choice(["mask_after_softmax", "wrong_row", "random"]))
    honest_right = [s for s in names if plan[s] == ("honest", "correct")]
    sources = {}
    cls = os.path.join(d, "class")
    os.makedirs(cls)
    for s in names:
        kind, how = plan[s]
        doc = {}
        if kind == "honest":
            for ex in EXERCISES:
                parts = info[ex]["parts"]
                if how == "random":
                    doc[ex] = {p["id"]: as_json(rng.uniform(-2, 2, np.array(cut(stages(numbers[ex][s])[p["stage"]], p)).shape))
                               for p in parts}
                else:
                    doc[ex] = {k: as_json(v) for k, v in answers(numbers[ex][s], parts, None if how == "correct" else how).items()}
        else:
            src = rnd.choice(honest_right)
            sources[s] = src
            flat = [(ex, p["id"]) for ex in EXERCISES for p in info[ex]["parts"]]
            copied = set(flat) if how != "mixed" else set(rnd.sample(flat, max(2, len(flat) // 2)))
            for ex in EXERCISES:
                mine = answers(numbers[ex][s], info[ex]["parts"])
                theirs = answers(numbers[ex][src], info[ex]["parts"])
                doc[ex] = {k: as_json(spoil(theirs[k], how, rng) if (ex, k) in copied else mine[k]) for k in mine}
        with open(os.path.join(cls, s + ".json"), "w") as f:
            json.dump(doc, f)
    secret = os.path.join(d, "secret")
    open(secret, "w").write(SECRET + "\n")
    book = os.path.join(d, "book.csv")
    p = subprocess.run([attn, "grade", "--class", cls, "--secret-file", secret, "--gradebook", book,
                        "--exercises", ",".join(EXERCISES)], capture_output=True, text=True)
    check(p.returncode == 0, f"grade --class exits 0: {p.returncode} {p.stderr[:300]}")
    rows = {r["student"]: r for r in csv.DictReader(open(book, newline=""))}
    check(len(rows) == N, f"one row per student: {len(rows)} of {N}")
    copy_words = ("matches the numbers of student", "hands in the same numbers as student", "someone else's numbers")
    copiers = [s for s in names if plan[s][0] == "copy"]
    caught = [s for s in copiers if f"matches the numbers of student {sources[s]}:" in rows.get(s, {}).get("notes", "")]
    false = [s for s in names if plan[s][0] == "honest" and any(w in rows.get(s, {}).get("notes", "") for w in copy_words)]
    by_how = {}
    for s in copiers:
        by_how.setdefault(plan[s][1], [0, 0])
        by_how[plan[s][1]][0] += s in caught
        by_how[plan[s][1]][1] += 1
    print(f"{N} students, {len(copiers)} copiers: {len(caught)} flagged with their source "
          f"({100 * len(caught) / max(1, len(copiers)):.1f}%); by kind {by_how}; honest flagged: {len(false)}")
    check(len(caught) >= 0.95 * len(copiers), f"≥ 95% of copiers flagged with their source: {len(caught)} of {len(copiers)}; "
          f"missed e.g. {[(s, sources[s], plan[s][1], rows.get(s, {}).get('notes')) for s in copiers if s not in caught][:3]}")
    check(not false, f"no honest student flagged: {[(s, plan[s], rows[s]['notes']) for s in false[:5]]}")
    right = [s for s in names if plan[s] == ("honest", "correct")]
    check(all(rows[s]["percent"] == "100.0" for s in right), "every right student at 100%: " +
          str([(s, rows[s]["percent"]) for s in right if rows[s]["percent"] != "100.0"][:3]))
    named = [s for s in names if plan[s][0] == "honest" and plan[s][1] in MISTAKES]
    check(all(plan[s][1] in rows[s]["mistakes"].split() for s in named), "every catalogued mistake named: " +
          str([(s, plan[s][1], rows[s]["mistakes"]) for s in named if plan[s][1] not in rows[s]["mistakes"].split()][:3]))
    # The teacher's summary lists the copies; a copier's own report never mentions them.
    summary = p.stdout
    listed = sum(1 for s in copiers if f"  {s}  matches the numbers of student {sources[s]}:" in summary)
    check("Copies (" in summary and listed >= min(40, len(caught) * 0.9), f"the class summary lists the copies ({listed}): {summary[-400:]}")
    one = copiers[0]
    solo = subprocess.run([attn, "grade", os.path.join(cls, one + ".json"), "--student", one, "--secret-file", secret,
                           "--feedback", "mistakes"], capture_output=True, text=True).stdout
    check(not any(w in solo for w in copy_words[:2]) and sources[one] not in solo,
          f"a copier's own report names no classmate: {solo[:300]}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("copy detection checks passed")
