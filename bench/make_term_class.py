#!/usr/bin/python3
"""bench/make_term_class.py — a term-sized class for timing `attn grade --class` on the two
assignments of issue 36: `bench/term-14.toml` (14 exercises of lessons 01–19, 13 with numbers
per student) and `bench/term-models.toml` (lessons 20–22's six trained-head exercises and two
choices).

usage: ATTN_COURSE_SECRET=... bench/make_term_class.py ATTN_BIN ASSIGNMENT.toml DIR N [FIRST [LAST]]

FIRST and LAST (default 0 and N) write only students FIRST … LAST-1 of the N, so two
processes (one a core) share one class: `… DIR 100000 0 50000` and `… DIR 100000 50000`.
A slice of 2,000 whose files all exist is skipped, so an interrupted run resumes where it
stopped (a file appears whole: written to .NAME.json.part, then renamed).

Writes DIR/s000000.json … for N students, each answering on their own numbers (asked of
`attn exercise show ID --students FILE`, in slices of 2,000), computed here in NumPy —
never by attn: about 60% fully right, 25% with one catalogued mistake on the plain attention
exercises (no scaling, softmax over the wrong axis, transposed scores, mask left out; noise on
the others), 10% wrong numbers, 4% with exercises left out, 1% unreadable files.
Deterministic: student i's choices come from random.Random(i); the numbers from the secret.
Not part of the product or the tests.
"""
import json
import os
import random
import subprocess
import sys
import tomllib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from attention_reference import softmax_rows  # noqa: E402
import core_tiled_reference as tiled  # noqa: E402

SLICE = 2000  # students per `exercise show --students` call: about 350 MB here for lessons 20-22 (20,000 took 7 GB)
PLAIN_MISTAKES = ["no_scaling", "wrong_axis", "transposed", "mask_missing"]
CHOICES = {"04-qkv-from": {"Q": "target", "K": "source", "V": "source"},
           "20-greedy": {"answer": "the likeliest token is appended and the model runs again"},
           "21-ablation": {"answer": "it goes back up: the induction head's keys no longer say which token came before"}}


def show_slice(attn, ex, students, tmp):
    path = os.path.join(tmp, f".students-{os.getpid()}.txt")  # one a process: two may share DIR
    with open(path, "w") as f:
        f.write("\n".join(students) + "\n")
    out = subprocess.run([attn, "exercise", "show", ex, "--format", "json", "--students", path],
                         capture_output=True, text=True, check=True).stdout
    os.unlink(path)
    rows = list(map(json.loads, out.splitlines()))
    return {d["student"]: d for d in rows}


def plain_stages(inp, mistake=None):
    """raw, scaled, masked, weights, output (and argmax) of one attention run: every stage."""
    q, k, v = (np.array(inp[x], float) for x in ("q", "k", "v"))
    scale = inp["scale"] if inp["scale"] is not None else np.sqrt(q.shape[1])
    if mistake == "no_scaling":
        scale = 1.0
    raw = k @ q.T if mistake == "transposed" and q.shape[0] == k.shape[0] else q @ k.T
    scaled = raw / scale
    masked = scaled.copy()
    if inp.get("mask_attend") is not None and mistake != "mask_missing":
        masked[~np.array(inp["mask_attend"], bool)] = -np.inf
    if not inp.get("softmax", True):
        w = np.where(np.isfinite(masked), masked, 0.0)
    else:
        w = softmax_rows(masked.T).T if mistake == "wrong_axis" and q.shape[0] == k.shape[0] else softmax_rows(masked)
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": w @ v,
            "argmax": np.argmax(w, axis=1)[:, None]}


def special_stages(ex, inp):
    """The stages of lessons 15–17's exercises (the references of tests/python)."""
    q, k, v = (np.array(inp[x], float) for x in ("q", "k", "v"))
    if ex.startswith("15-"):
        g = np.array(inp["grad"], float)
        s = q @ k.T / np.sqrt(q.shape[1])
        a = softmax_rows(s)
        d_a = g @ v.T
        d_s = a * (d_a - (d_a * a).sum(axis=1, keepdims=True))
        return {"grad_v": a.T @ g, "grad_q": d_s @ k / np.sqrt(q.shape[1]), "grad_weights": d_a, "grad_scores": d_s}
    if ex.startswith("16-"):
        o = tiled.online(q, k, v, inp["tile"])
        return {"running_max": o["running_max"], "running_sum": o["running_sum"], "output": o["output"]}
    if ex.startswith("17-"):
        rq, rk = tiled.rope(q, np.arange(q.shape[0]), inp["rope"]), tiled.rope(k, np.arange(k.shape[0]), inp["rope"])
        return {"rot_q": rq, "rot_k": rk, "raw": rq @ rk.T}
    return None


def cut(st, part):
    m = np.asarray(st[part["stage"]])
    if m.ndim == 0:
        return float(m)
    rows = part["rows"] or list(range(m.shape[0]))
    cols = part["cols"] or list(range(m.shape[1]))
    out = m[np.ix_(rows, cols)]
    if part["stage"] == "argmax":
        return [int(x) for x in out.ravel()]
    return [[("-inf" if np.isneginf(x) else float(x)) for x in row] for row in out]


def answers(ex, info, mistake, rng):
    st = special_stages(ex, info["inputs"])
    if st is None:
        st = plain_stages(info["inputs"], mistake if mistake in PLAIN_MISTAKES else None)
    ans = {p["id"]: cut(st, p) for p in info["parts"]}
    if mistake == "noise" or (mistake in PLAIN_MISTAKES and special_stages(ex, info["inputs"]) is not None):
        ans = {key: (val if isinstance(val, list) and val and isinstance(val[0], int) else
                     [[(x + rng.uniform(-1, 1)) if isinstance(x, float) else x for x in row] for row in val])
               for key, val in ans.items()}
    return ans


def student_doc(i, exercises, personal):
    rng = random.Random(i)
    student = f"s{i:06d}"
    r = rng.random()
    if r < 0.01:
        return student, '{"student": "%s", "%s": {"raw": [1.0,,]}' % (student, exercises[0])  # broken JSON
    mistake = None if r < 0.61 else rng.choice(PLAIN_MISTAKES) if r < 0.86 else "noise" if r < 0.96 else "skip"
    doc = {"student": student}
    for ex in exercises:
        if mistake == "skip" and rng.random() < 0.5:
            continue
        if ex in CHOICES:
            doc[ex] = CHOICES[ex]
            continue
        doc[ex] = answers(ex, personal[ex][student], mistake if mistake != "skip" else None, rng)
    return student, json.dumps(doc)


def main():
    attn, assignment, out, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    first = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    last = min(n, int(sys.argv[6])) if len(sys.argv) > 6 else n
    with open(assignment, "rb") as f:
        exercises = [e["id"] for e in tomllib.load(f)["exercise"]]
    os.makedirs(out, exist_ok=True)
    names = [f"s{i:06d}" for i in range(n)]
    for start in range(first, last, SLICE):
        part = names[start:min(start + SLICE, last)]
        if all(os.path.exists(os.path.join(out, s + ".json")) for s in part):
            continue  # written by an earlier run (each file appears whole: written aside, then renamed)
        personal = {ex: show_slice(attn, ex, part, out) for ex in exercises if ex not in CHOICES}
        for i in range(start, start + len(part)):
            student, text = student_doc(i, exercises, personal)
            aside = os.path.join(out, "." + student + ".json.part")  # a dot file: `attn grade --class` skips it
            with open(aside, "w") as f:
                f.write(text)
            os.replace(aside, os.path.join(out, student + ".json"))
        print(f"make_term_class: {start + len(part)} of {first}..{last} (class of {n})", file=sys.stderr)
    print(f"{last - first} submissions in {out}")


if __name__ == "__main__":
    main()
