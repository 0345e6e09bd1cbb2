#!/usr/bin/env python3
"""tests/python/test_grade_item_analysis.py — `attn grade --class DIR --item-analysis` (issue 36,
Build 6): each part's facility, discrimination (the point-biserial with the rest of the
total), the three commonest named mistakes, the totals' histogram in tenths and Cronbach's
alpha, as text, CSV (--item-analysis-csv) and in the class JSON — every number recomputed
here with NumPy from the per-part scores the class JSON reports for each student.

The class: 60 students answering choice, multi and shape exercises with a per-student
"ability" (so parts discriminate), one file that is not an answer file (not gradable:
left out of the analysis).
"""
import csv
import io
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

attn = os.environ.get("ATTN_BIN", "build/attn")
failures = []
EXERCISES = ["02-spread", "03-sees", "04-qkv-from", "10-norm-axis", "10-pre-norm", "05-fr-shape"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    return subprocess.run([attn, *args], capture_output=True, text=True)


def choices_of(ex):
    j = json.loads(run("exercise", "show", ex, "--format", "json").stdout)
    return j, [p["id"] for p in j["parts"]]


rng = random.Random(36)
with tempfile.TemporaryDirectory() as d:
    cls = os.path.join(d, "class")
    os.mkdir(cls)
    shown = {ex: choices_of(ex) for ex in EXERCISES}
    # The right answers, learnt by grading every choice once (a student answering "a", "b", ...).
    for n in range(60):
        ability = n / 59.0
        doc = {}
        for ex, (j, parts) in shown.items():
            if j["kind"] == "shape":
                doc[ex] = {p: ("3 × 5" if rng.random() < ability else "5 × 3") for p in parts}
                continue
            k = len(j["choices"])
            doc[ex] = {p: j["choices"][rng.randrange(k)] if rng.random() > ability else "RIGHT" for p in parts}
        with open(os.path.join(cls, "s%02d.json" % n), "w") as f:
            json.dump(doc, f)
    # "RIGHT" is replaced by the right choice, found by grading each choice once.
    right = {}
    for ex, (j, parts) in shown.items():
        if j["kind"] == "shape":
            continue
        for p in parts:
            for c in j["choices"]:
                probe = os.path.join(d, "probe.json")
                json.dump({ex: {p: c} if len(parts) > 1 else c}, open(probe, "w"))
                r = json.loads(run("grade", probe, "--format", "json").stdout)
                got = [q for q in r["exercises"][0]["parts"] if q["id"] == p][0]
                if got["score"] == got["max_score"]:
                    right[(ex, p)] = c
    for name in os.listdir(cls):
        path = os.path.join(cls, name)
        doc = json.load(open(path))
        for ex, parts in doc.items():
            for p, v in parts.items():
                if v == "RIGHT":
                    parts[p] = right[(ex, p)]
            if len(parts) == 1:
                doc[ex] = next(iter(parts.values()))
        json.dump(doc, open(path, "w"))
    open(os.path.join(cls, "broken.toml"), "w").write("this is = = not toml\n")

    ia_csv = os.path.join(d, "items.csv")
    p = run("grade", "--class", cls, "--exercises", ",".join(EXERCISES), "--gradebook", os.path.join(d, "book.csv"),
            "--format", "json", "--item-analysis", "--item-analysis-csv", ia_csv)
    check(p.returncode == 0, f"grade --class exits 0: {p.returncode} {p.stderr[:300]}")
    out = json.loads(p.stdout)
    graded = [s for s in out["students"] if s["gradable"]]
    check(len(graded) == 60 and len(out["students"]) == 61, f"60 graded of 61: {len(graded)} of {len(out['students'])}")

    # The items and every student's item scores, from the class JSON.
    items, maxima = [], []
    for ex in EXERCISES:
        for part in shown[ex][1]:
            items.append((ex, part))
    scores = np.zeros((len(graded), len(items)))  # [students, items]
    named = {it: {} for it in items}
    for s_i, s in enumerate(graded):
        for x in s["exercises"]:
            for pt in x["parts"]:
                k = items.index((x["id"], pt["id"]))
                scores[s_i, k] = pt["score"]
                if "mistake" in pt:
                    named[items[k]][pt["mistake"]["id"]] = named[items[k]].get(pt["mistake"]["id"], 0) + 1
    for ex in EXERCISES:
        j = shown[ex][0]
        for part in j["parts"]:
            maxima.append(part["points"])
    maxima = np.array(maxima)
    total = scores.sum(axis=1)
    facility = scores.mean(axis=0) / maxima
    disc = []
    for k in range(len(items)):
        rest = total - scores[:, k]
        disc.append(np.corrcoef(scores[:, k], rest)[0, 1] if scores[:, k].std() > 0 and rest.std() > 0 else None)
    kk = len(items)
    alpha = kk / (kk - 1) * (1 - scores.var(axis=0).sum() / total.var())
    hist = [0] * 10
    for t in total:
        hist[min(9, int(np.floor(t / maxima.sum() * 10)))] += 1

    ia = out.get("item_analysis", {})
    check(ia.get("students") == 60, f"60 students in the analysis: {ia.get('students')}")
    check(abs(ia.get("alpha", 0) - alpha) < 1e-9, f"alpha {ia.get('alpha')} vs numpy {alpha}")
    check(ia.get("histogram_tenths") == hist, f"histogram {ia.get('histogram_tenths')} vs {hist}")
    check(abs(ia.get("max_total", 0) - maxima.sum()) < 1e-9, f"max total {ia.get('max_total')} vs {maxima.sum()}")
    rows = list(csv.DictReader(open(ia_csv)))
    check(len(rows) == len(items) == len(ia.get("items", [])), f"{len(rows)} CSV rows, {len(items)} items")
    for k, (it, row, js) in enumerate(zip(items, rows, ia.get("items", []))):
        check((row["exercise"], row["part"]) == it and (js["exercise"], js["part"]) == it, f"item {k}: {row} {js}")
        check(abs(js["facility"] - facility[k]) < 1e-9 and abs(float(row["facility"]) - facility[k]) < 5e-4,
              f"{it} facility {js['facility']} / {row['facility']} vs {facility[k]}")
        if disc[k] is None:
            check(js["discrimination"] is None and row["discrimination"] == "", f"{it}: no spread, no discrimination")
        else:
            check(abs(js["discrimination"] - disc[k]) < 1e-9 and abs(float(row["discrimination"]) - disc[k]) < 5e-4,
                  f"{it} discrimination {js['discrimination']} / {row['discrimination']} vs {disc[k]}")
        top = sorted(named[it].items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        check([(m["id"], m["parts"]) for m in js["mistakes"]] == top, f"{it} mistakes {js['mistakes']} vs {top}")
    check(any(d_ is not None and d_ > 0.3 for d_ in disc), f"the ability makes parts discriminate: {disc}")

    # The LMS uploads: every student's total (the sum of their part scores, added here), 0 when not gradable.
    canvas, moodle = os.path.join(d, "canvas.csv"), os.path.join(d, "moodle.csv")
    p = run("grade", "--class", cls, "--exercises", ",".join(EXERCISES), "--gradebook", os.path.join(d, "book2.csv"),
            "--item-analysis", "--canvas", canvas, "--moodle", moodle, "--lms-column", "Attention, week 3")
    want = {s["student"]: (round(sum(pt["score"] for x in s["exercises"] for pt in x["parts"]), 6) if s["gradable"] else 0.0)
            for s in out["students"]}
    rows = list(csv.reader(open(canvas, encoding="utf-8")))
    check(rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention, week 3"], f"Canvas header {rows[0]}")
    check(rows[1][0].strip() == "Points Possible" and float(rows[1][5]) == maxima.sum(), f"Canvas points possible {rows[1]}")
    got = {r[3]: float(r[5]) for r in rows[2:]}
    check(got == want, f"Canvas totals {sorted(got.items())[:5]} vs {sorted(want.items())[:5]}")
    rows = list(csv.reader(open(moodle, encoding="utf-8")))
    check(rows[0] == ["student", "Attention, week 3"], f"Moodle header {rows[0]}")
    got = {r[0]: float(r[1]) for r in rows[1:]}
    check(got == want, f"Moodle totals {sorted(got.items())[:5]} vs {sorted(want.items())[:5]}")
    check(p.returncode == 0 and "Item analysis (60 graded submissions" in p.stdout and "Cronbach's alpha" in p.stdout
          and f"{alpha:.3f}" in p.stdout, f"the text summary: {p.stdout[-1500:]}")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
