#!/usr/bin/env python3
"""tests/python/test_grade_feedback.py — `attn grade --feedback mistakes` never shows an
expected value, in any format a student reads (text, JSON, JUnit, Gradescope's
results.json); `score` shows the points only; Gradescope can release the full feedback
after the due date (assignment `release_expected`).

The expected values are computed here, independently of the grader: NumPy computes
every numeric answer from the student's own numbers (`attn exercise show ID --format
json`), and the expected shapes and choices are read from the lesson files (tomllib).
Wrong answers (every entry off, a catalogued mistake, a transposed shape, a wrong
choice) are graded; no printed form of an expected value (4 and 3 decimals) may occur.
The same run at `--feedback full` must show some of them, so the check can see them.
Run by CTest with /usr/bin/python3 (Debian's, which has numpy).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ENV = dict(os.environ, ATTN_COURSE_SECRET="feedback-test-secret")
STUDENT = "mallory"
failures = []


def attn(*args, ok=(0, 1)):
    p = subprocess.run([ATTN, *args], capture_output=True, text=True, env=ENV)
    if p.returncode not in ok:
        raise AssertionError(f"attn {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def softmax_rows(s):
    out = np.zeros_like(s)
    for i, row in enumerate(s):
        if np.all(np.isneginf(row)):
            continue  # a query that sees no key: weights 0
        e = np.exp(row - row.max())
        out[i] = e / e.sum()
    return out


def stages(inp, scale=None):
    """Every stage of the exercise's computation, in NumPy (scale=1: the no-scaling mistake)."""
    q, k, v = (np.array(inp[r], float) for r in ("q", "k", "v"))
    if scale is None:
        scale = inp["scale"] if inp["scale"] is not None else np.sqrt(q.shape[1])
    raw = q @ k.T
    scaled = raw / scale
    masked = scaled.copy()
    if inp.get("bias") is not None:
        masked = masked + np.array(inp["bias"], float)
    if inp["mask_attend"] is not None:
        masked[~np.array(inp["mask_attend"], bool)] = -np.inf
    w = softmax_rows(masked) if inp["softmax"] else np.where(np.isfinite(masked), masked, 0.0)
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": w @ v, "scale": np.array([[scale]])}


def part_value(st, part):
    m = st[part["stage"]]
    rows = part["rows"] or list(range(m.shape[0]))
    cols = part["cols"] or list(range(m.shape[1]))
    return m[np.ix_(rows, cols)]


def as_answer(m):
    return [["-inf" if np.isneginf(e) else float(e) for e in row] for row in m]


def forms(x):
    """How a grader could print x: 4 and 3 decimals (3 only where no tolerance or point count looks alike)."""
    if not np.isfinite(x):
        return []
    out = [f"{x:.4f}"]
    if abs(x) >= 0.01:
        out.append(f"{x:.3f}")
    return [s.replace("-0.0000", "0.0000") for s in out]


# ── the expected values, computed here ──
NUMERIC = ["01-scale", "01-self-cat", "01-self-weights", "03-causal-cat", "03-causal-weights", "03-blind",
           "04-cross-the", "04-cross-weights", "05-fr-first", "05-fr-weights", "06-padded-the", "06-padded",
           "02-small-unscaled", "08-bias-so", "09-xxtx"]
answers, expected_numbers = {}, set()
for ex in NUMERIC:
    info = json.loads(attn("exercise", "show", ex, "--student", STUDENT, "--format", "json", ok=(0,)))
    right = stages(info["inputs"])
    wrong = stages(info["inputs"], scale=1.0) if ex == "04-cross-the" else None  # the "no scaling" mistake
    answers[ex] = {}
    for p in info["parts"]:
        if p["stage"] not in right:
            continue
        e = part_value(right, p)
        for x in e.flat:
            expected_numbers.update(forms(x))
        if wrong is not None:
            answers[ex][p["id"]] = as_answer(part_value(wrong, p))
        else:  # every entry off (a blocked −inf stays −inf: right by construction)
            answers[ex][p["id"]] = as_answer(np.where(np.isneginf(e), e, e * 1.37 + 0.411))

expected_words = {}  # (exercise, part) → its expected shape or choice, from the lesson files
for path in sorted(glob.glob(os.path.join(SRC, "lessons", "*.toml"))):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    for x in doc.get("exercise", []):
        if x.get("kind") not in ("shape", "choice"):
            continue
        parts = x.get("part") or [{"id": "answer", "answer": x.get("answer")}]
        choices = x.get("choices", [])
        answers[x["id"]] = {}
        for p in parts:
            want = p.get("answer")
            if not want:
                continue
            expected_words[(x["id"], p["id"])] = want
            if x["kind"] == "shape":
                answers[x["id"]][p["id"]] = "B × 7 × 9" if "B" not in want else "7 × 9"
            else:
                others = [c for c in choices if c != want]
                answers[x["id"]][p["id"]] = others[0]
check(len(expected_numbers) > 100, f"the test computed expected values ({len(expected_numbers)} printed forms)")
check(len(expected_words) > 10, f"the lessons have shape and choice answers ({len(expected_words)})")


def leaks(text):
    """Expected numbers anywhere in a text (the lessons' titles hold none)."""
    return [s for s in expected_numbers if s in text]


def says(text, phrase):
    return re.search(r"(?<![\w×])" + re.escape(phrase) + r"(?![\w×])", text) is not None


def word_leaks(report_json):
    """A shape or choice part whose feedback names its expected answer. (Per part: with two
    choices, one part's wrong answer is another part's right one, and the student's own
    answer is always named.)"""
    out = []
    for x in report_json["exercises"]:
        for p in x["parts"]:
            want = expected_words.get((x["id"], p["id"]))
            if want and says(p["feedback"], want):
                out.append(f"{x['id']}.{p['id']}: {p['feedback']}")
    return out


def feedback_texts(report_json):
    """What a student reads in attn's JSON report: feedback, mistakes, notes."""
    out = []
    for x in report_json["exercises"]:
        for p in x["parts"]:
            out.append(p["feedback"])
            if "mistake" in p:
                out.append(p["mistake"]["name"])
    return "\n".join(out + report_json["notes"] + report_json["flags"])


with tempfile.TemporaryDirectory() as d:
    sub = os.path.join(d, "submission")
    os.makedirs(sub)
    answer_file = os.path.join(sub, "answers.json")
    with open(answer_file, "w") as f:
        json.dump({"student": STUDENT, **answers}, f)
    meta = os.path.join(d, "meta.json")
    with open(meta, "w") as f:
        json.dump({"users": [{"sid": STUDENT, "email": "m@example.edu"}]}, f)
    ids = ",".join(answers)

    def run(level, fmt="text"):
        junit = os.path.join(d, f"junit-{level}.xml")
        out = attn("grade", answer_file, "--exercises", ids, "--feedback", level, "--format", fmt, "--width", "300",
                   "--junit", junit)
        with open(junit) as f:
            return out, f.read()

    # 1. mistakes: text, JSON, JUnit — no expected value anywhere.
    text, junit = run("mistakes")
    check(not leaks(text), f"--feedback mistakes, text: expected values shown: {leaks(text)[:8]}")
    check(not leaks(junit), f"--feedback mistakes, JUnit: expected values shown: {leaks(junit)[:8]}")
    check("no scaling" in text, "--feedback mistakes still names the mistake")
    check("off: " in text, "--feedback mistakes says which entries are wrong")
    js, _ = run("mistakes", "json")
    rep = json.loads(js)
    check(not leaks(feedback_texts(rep)), f"--feedback mistakes, JSON: expected values shown: {leaks(feedback_texts(rep))[:8]}")
    check(not word_leaks(rep), f"--feedback mistakes, JSON: expected shapes or choices shown: {word_leaks(rep)[:4]}")
    check(not [s for s in expected_numbers if s in js], "--feedback mistakes, JSON: no expected number anywhere in the document")
    check(rep["max_score"] > 0 and rep["score"] < rep["max_score"], "the wrong answers lose points")

    # 2. full: the same answers show expected values (the check above can see them).
    full_text, _ = run("full")
    check(len([s for s in expected_numbers if s in full_text]) >= 10,
          f"--feedback full shows expected values ({len([s for s in expected_numbers if s in full_text])} found)")
    full_rep = json.loads(run("full", "json")[0])
    check(len(word_leaks(full_rep)) >= 3, f"--feedback full shows expected shapes or choices ({len(word_leaks(full_rep))})")

    # 3. score: the points, no mistake names, no feedback.
    score_text, _ = run("score")
    check("mistake:" not in score_text and "no scaling" not in score_text, "--feedback score names no mistake")
    check("off:" not in score_text and not leaks(score_text), "--feedback score says nothing about entries")
    check(re.search(r"Total [0-9.]+ / [0-9.]+", score_text) is not None, "--feedback score still shows the total")

    # 4. Gradescope: mistakes by default; the full feedback released after the due date.
    assignment = os.path.join(d, "assignment.toml")
    with open(assignment, "w") as f:
        f.write('release_expected = "after_due_date"\n')
        for ex in answers:
            f.write(f'[[exercise]]\nid = "{ex}"\n')
    results = os.path.join(d, "results.json")
    attn("grade", "--gradescope", "--submission", sub, "--metadata", meta, "--results", results, "--assignment", assignment,
         ok=(0,))
    with open(results) as f:
        res = json.load(f)
    shown = [t for t in res["tests"] if t["visibility"] == "visible"]
    later = [t for t in res["tests"] if t["visibility"] == "after_due_date"]
    visible_text = res["output"] + "\n" + "\n".join(t["output"] for t in shown)
    check(len(shown) > len(answers), "results.json: one visible test per part")
    check(not leaks(visible_text), f"results.json visible tests: expected values shown: {leaks(visible_text)[:8]}")
    word_tests = [t["output"] for t in shown for (ex, part), want in expected_words.items()
                  if t["name"].startswith(f"{ex} · {part}") and says(t["output"].split("\nMistake:")[0], want)]
    check(not word_tests, f"results.json visible tests: expected shapes or choices shown: {word_tests[:4]}")
    check(len(later) == len(answers), f"results.json: one after_due_date test per exercise ({len(later)} of {len(answers)})")
    check(all(t["score"] == 0 and t["max_score"] == 0 for t in later), "the released tests carry no points")
    check(len([s for s in expected_numbers if s in "\n".join(t["output"] for t in later)]) >= 10,
          "the after_due_date tests carry the expected values")
    check(res["score"] == sum(t["score"] for t in shown), "results.json: the score is the visible tests' sum")

    # 5. Per exercise: the assignment's level wins over the file's default.
    with open(assignment, "w") as f:
        f.write('feedback = "mistakes"\n[[exercise]]\nid = "04-cross-the"\nfeedback = "full"\n'
                '[[exercise]]\nid = "01-self-cat"\n')
    rep = json.loads(attn("grade", answer_file, "--assignment", assignment, "--format", "json"))
    by_id = {x["id"]: x for x in rep["exercises"]}
    check("√d_k" in json.dumps(by_id["04-cross-the"], ensure_ascii=False),
          "an exercise at full shows its expected values or the mistake's numbers")
    check(by_id["01-self-cat"].get("feedback_level") == "mistakes", "the other exercise is at the file's level")
    check(not leaks(feedback_texts({"exercises": [by_id["01-self-cat"]], "notes": [], "flags": []})),
          "the exercise at mistakes shows no expected value")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("feedback levels: no expected value at mistakes or score; full and after_due_date show them")
