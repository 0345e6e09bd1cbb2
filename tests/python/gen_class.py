#!/usr/bin/env python3
"""tests/python/gen_class.py — generate a class of answer files for tests and benchmarks.

    /usr/bin/python3 tests/python/gen_class.py OUTDIR [--students 300] [--secret S] [--seed 1]

Each student answers five numeric exercises on their own per-student numbers (asked
of `attn exercise show ID --students FILE` with the secret), computed with NumPy, then spoiled on purpose: about half the students make one
catalogued mistake, and one in twelve hands in something broken (empty, cut off,
not UTF-8, far too large, a folder without answers). Prints a JSON summary of what
it planted (student → mistake or breakage) on standard output so a test can compare.
Needs ATTN_BIN (for the base numbers of each exercise) and ATTN_LESSONS_DIR.
"""
import argparse
import json
import os
import random
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_reference import softmax_rows  # noqa: E402
import core_prng_reference as ref  # noqa: E402

EXERCISES = ["01-self-cat", "03-causal-cat", "04-cross-the", "06-padded", "07-head1"]
MISTAKES = ["no_scaling", "scaled_by_d", "no_softmax", "mask_missing", "k_v_swapped"]


def class_numbers(attn, ex, students, secret):
    """Every student's numbers for one exercise, from `attn exercise show --students`
    (the teacher's batch form; keyed BLAKE2b seeds, so only attn with the secret can)."""
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(students) + "\n")
    try:
        out = subprocess.run([attn, "exercise", "show", ex, "--format", "json", "--students", f.name], check=True,
                             capture_output=True, text=True, env=dict(os.environ, ATTN_COURSE_SECRET=secret)).stdout
    finally:
        os.unlink(f.name)
    return {d["student"]: d["inputs"] for d in map(json.loads, out.splitlines())}


def answer(inp, parts, mistake):
    q, k, v = (np.array(inp[r], float) for r in ("q", "k", "v"))
    if mistake == "k_v_swapped":
        k, v = v, k
    d = q.shape[1]
    scale = {"no_scaling": 1.0, "scaled_by_d": float(d)}.get(mistake, np.sqrt(d))
    raw = q @ k.T
    scaled = raw / scale
    masked = scaled.copy()
    if inp["mask_attend"] is not None and mistake != "mask_missing":
        masked[~np.array(inp["mask_attend"], bool)] = -np.inf
    w = np.where(np.isfinite(masked), masked, 0.0) if mistake == "no_softmax" else softmax_rows(masked)
    st = {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": w @ v}
    out = {}
    for p in parts:
        m = st[p["stage"]][np.ix_(p["rows"] or range(st[p["stage"]].shape[0]), p["cols"] or range(st[p["stage"]].shape[1]))]
        out[p["id"]] = [[("-inf" if np.isneginf(x) else float(x)) for x in row] for row in m]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--students", type=int, default=300)
    ap.add_argument("--secret", default="bench-secret")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    attn = os.environ.get("ATTN_BIN", "build/attn")
    bases = {}
    for ex in EXERCISES:
        info = json.loads(subprocess.run([attn, "exercise", "show", ex, "--format", "json"], check=True,
                                         capture_output=True, text=True).stdout)
        v = info["variant"]  # {"vary": ["q", "k", "v"], "values": "halves", "range": [-1, 1], "tie": false}
        assert v["values"] == "halves" and not v["tie"], "gen_class draws untied halves only"
        info["numbers"] = {"roles": v["vary"], "lo": v["range"][0], "hi": v["range"][1]}
        bases[ex] = info
    names = [f"s{n:04d}" for n in range(a.students)]
    numbers = {ex: class_numbers(attn, ex, names, a.secret) for ex in EXERCISES}
    rnd = random.Random(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    planted = {}
    for n in range(a.students):
        student = f"s{n:04d}"
        path = os.path.join(a.outdir, student + ".json")
        if n % 12 == 5:
            kind = ["empty", "cut", "not-utf8", "huge", "folder"][(n // 12) % 5]
            planted[student] = "broken:" + kind
            if kind == "empty":
                open(path, "w").close()
            elif kind == "cut":
                open(path, "w").write('{"01-self-cat": {"raw": [[0.5, ')
            elif kind == "not-utf8":
                open(os.path.join(a.outdir, student + ".toml"), "wb").write(b'student = "\xff"\n')
            elif kind == "huge":
                open(path, "w").write('{"01-self-cat": {"raw": [' + "0.0, " * 400000 + "0.0]}}")
            else:
                os.makedirs(os.path.join(a.outdir, student), exist_ok=True)
                open(os.path.join(a.outdir, student, "notes.txt"), "w").write("see you tomorrow\n")
            continue
        mistake = rnd.choice(MISTAKES) if rnd.random() < 0.5 else None
        planted[student] = mistake or "correct"
        doc = {"student": student}
        for ex in EXERCISES:
            inp = numbers[ex][student]
            m = mistake if (mistake != "mask_missing" or inp["mask_attend"] is not None) else None
            doc[ex] = answer(inp, bases[ex]["parts"], m)
        with open(path, "w") as f:
            json.dump(doc, f)
    json.dump(planted, sys.stdout)


if __name__ == "__main__":
    main()
