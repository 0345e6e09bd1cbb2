#!/usr/bin/python3
"""bench/make_class.py — a class of generated submissions for timing `attn grade --class`.

usage: ATTN_COURSE_SECRET=... bench/make_class.py ATTN_BIN DIR [N]   (N = 1000)

Writes DIR/<student>.json for N students, answering 7 exercises of lessons 01, 04 and
06 with the student's own numbers (from `attn exercise show --student`), computed here in
NumPy: about 60% fully correct, 25% with one catalogued mistake (no scaling, softmax
over the wrong axis, transposed scores, mask missing), 10% wrong numbers, 4% with
exercises left out, 1% unreadable files. Timing the grading of that folder is what
bench/README.md reports; this script is not part of the product or the tests.
"""
import concurrent.futures
import json
import os
import random
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from attention_reference import softmax_rows  # noqa: E402

ATTN, OUT = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
PER_STUDENT = ["01-self-cat", "04-cross-the", "06-padded"]
SHARED = ["01-scale", "01-self-weights", "04-cross-weights"]
PERSONAL = {}


def show(ex, student=None):
    args = [ATTN, "exercise", "show", ex, "--format", "json"] + (["--student", student] if student else [])
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def show_class(ex, students):
    """Every student's numbers at once (`attn exercise show ID --students FILE`, needs the secret)."""
    path = os.path.join(OUT, ".students.txt")
    with open(path, "w") as f:
        f.write("\n".join(students) + "\n")
    out = subprocess.run([ATTN, "exercise", "show", ex, "--format", "json", "--students", path],
                         capture_output=True, text=True, check=True).stdout
    os.unlink(path)
    return {d["student"]: d for d in map(json.loads, out.splitlines())}


def stages(inp, mistake=None):
    q, k, v = (np.array(inp[x], float) for x in ("q", "k", "v"))
    scale = inp["scale"] if inp["scale"] is not None else np.sqrt(q.shape[1])
    if mistake == "no_scaling":
        scale = 1.0
    raw = k @ q.T if mistake == "transposed" else q @ k.T
    scaled = raw / scale
    masked = scaled.copy()
    if inp.get("mask_attend") is not None and mistake != "mask_missing":
        masked[~np.array(inp["mask_attend"], bool)] = -np.inf
    w = softmax_rows(masked.T).T if mistake == "wrong_axis" else softmax_rows(masked)
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": w @ v,
            "scale": np.array([[scale]])}


def part_value(st, part):
    if part["stage"] == "scale":
        return float(st["scale"][0, 0])
    m = st[part["stage"]]
    rows = part["rows"] or list(range(m.shape[0]))
    cols = part["cols"] or list(range(m.shape[1]))
    return [[float(x) for x in row] for row in m[np.ix_(rows, cols)]]


def answers_for(info, mistake, rng):
    st = stages(info["inputs"], mistake)
    ans = {p["id"]: part_value(st, p) for p in info["parts"]}
    if mistake == "noise":
        ans = {k: (v + rng.uniform(-1, 1) if isinstance(v, float) else
                   [[x + rng.uniform(-1, 1) for x in row] for row in v]) for k, v in ans.items()}
    return ans


def student_file(i, shared):
    rng = random.Random(i)
    student = f"s{i:04d}"
    r = rng.random()
    path = os.path.join(OUT, student + ".json")
    if r < 0.01:
        with open(path, "w") as f:
            f.write('{"student": "%s", "01-scale": {"answer": 2.0,,}' % student)  # broken JSON
        return
    mistake = None if r < 0.61 else rng.choice(["no_scaling", "wrong_axis", "transposed", "mask_missing"]) \
        if r < 0.86 else "noise" if r < 0.96 else "skip"
    doc = {"student": student, "04-qkv-from": {"Q": "target", "K": "source", "V": "source"}}
    for ex in SHARED + PER_STUDENT:
        if mistake == "skip" and rng.random() < 0.5:
            continue
        info = shared[ex] if ex in shared else PERSONAL[ex][student]
        doc[ex] = answers_for(info, mistake if mistake != "skip" else None, rng)
    with open(path, "w") as f:
        json.dump(doc, f)


def main():
    os.makedirs(OUT, exist_ok=True)
    shared = {ex: show(ex) for ex in SHARED}
    names = [f"s{i:04d}" for i in range(N)]
    PERSONAL.update({ex: show_class(ex, names) for ex in PER_STUDENT})
    for i in range(N):
        student_file(i, shared)
    print(f"{N} submissions in {OUT}")


if __name__ == "__main__":
    main()
