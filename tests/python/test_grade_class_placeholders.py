#!/usr/bin/env python3
"""tests/python/test_grade_class_placeholders.py — no placeholder is ever the right answer
on a student's numbers (issue 20, Build 6, "fair credit").

For every numeric exercise of the lessons that draws numbers per student, 2,000
students' numbers (300 in the sanitizer build, ATTN_SLOW_BUILD=1) come from
`attn exercise show ID --students FILE` with a course secret. Here, in NumPy, each
part's right answer (the attention stages and the key each query attends to most; for
lessons 15–19 also the gradients, the
online softmax's running max and sum, rotary positions) and every answer a student
can write without computing are compared with NumPy's rule at the part's tolerance:
zeros, uniform weights (over every key, over the visible ones), the mean of V (same),
Q, K, V or the encoder's Q copied where the part's stage has that shape, and the
answer on the lesson's own numbers (`--no-variants`, the example the lesson prints).
Only the rows the numbers decide count (after the softmax a row that sees one key or
none is the same for every draw), and a part no draw changes is skipped. Before
variants were redrawn against them, 03-causal-cat's weights or output were matched by
such a placeholder on 8.4% of its variants; now: 0 hits. The redraw rate (students
whose first draw was rejected, for a mistake or a placeholder) is printed per exercise. CTest runs it as shards (tests/python/shards.py): every shard
sorts every exercise out, and draws the class for its share of them.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from attention_reference import softmax_rows  # noqa: E402
import shards  # noqa: E402
import core_tiled_reference as tiled  # noqa: E402

attn = os.environ.get("ATTN_BIN", "build/attn")
N = 300 if os.environ.get("ATTN_SLOW_BUILD") == "1" else 2000
SECRET = "placeholders-test-secret-5c1e9a7b3d"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def show(*args, env=None):
    out = subprocess.run([attn, "exercise", "show", *args, "--format", "json"], check=True, capture_output=True,
                         text=True, env=env).stdout
    return [json.loads(line) for line in out.splitlines()] if "--students" in args else json.loads(out)


def class_numbers(ex, students):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(students) + "\n")
    try:
        return show(ex, "--students", f.name, env=dict(os.environ, ATTN_COURSE_SECRET=SECRET))
    finally:
        os.unlink(f.name)


def stages(inp):
    """Every stage the exercises ask, computed here from the inputs."""
    q, k, v = (np.array(inp[r], float) for r in ("q", "k", "v"))
    n_q, n_k = len(q), len(k)
    attend = np.array(inp["mask_attend"], bool) if inp["mask_attend"] is not None else np.ones((n_q, n_k), bool)
    st = {}
    if inp.get("rope") is not None:
        st["rot_q"], st["rot_k"] = tiled.rope(q, np.arange(n_q), inp["rope"]), tiled.rope(k, np.arange(n_k), inp["rope"])
        q_s, k_s = st["rot_q"], st["rot_k"]
    else:
        q_s, k_s = q, k
    scale = inp["scale"] if inp["scale"] is not None else np.sqrt(q.shape[1])
    st["raw"] = q_s @ k_s.T
    st["scaled"] = st["raw"] / scale
    masked = st["scaled"] + (np.array(inp["bias"], float) if inp["bias"] is not None else 0.0)
    st["masked"] = np.where(attend, masked, -np.inf)
    w = softmax_rows(st["masked"]) if inp["softmax"] else np.where(attend, st["masked"], 0.0)
    st["weights"], st["output"] = w, w @ v
    st["argmax"] = w.argmax(axis=1)[:, None].astype(float)  # the key each query attends to most (first of a tie)
    if inp.get("grad") is not None:  # the backward pass in closed form (dO given)
        d_o = np.array(inp["grad"], float)
        st["grad_v"], st["grad_pattern"] = w.T @ d_o, d_o @ v.T
        st["grad_scores"] = w * (st["grad_pattern"] - (w * st["grad_pattern"]).sum(axis=1, keepdims=True))
        st["grad_q"], st["grad_k"] = st["grad_scores"] @ k / scale, st["grad_scores"].T @ q / scale
    if inp.get("tile") is not None:
        o = tiled.online(q, k, v, inp["tile"], attend)
        st["running_max"], st["running_sum"] = o["running_max"], o["running_sum"]
    return st, attend, {"Q": q, "K": k, "V": v, "Q_enc": np.array(inp["encoder_q"], float) if inp["encoder_q"] else None}


def guesses(stage, full, attend, inputs, lesson):
    """Every strategy's answer at the stage's full shape."""
    out = {"zeros": np.zeros_like(full), "the lesson's own numbers": lesson[stage]}
    seen = np.maximum(attend.sum(axis=1, keepdims=True), 1)
    if stage == "weights":
        out["uniform weights"] = np.full_like(full, 1.0 / attend.shape[1])
        out["uniform over the visible keys"] = attend / seen
    if stage == "output":
        out["mean of V"] = np.tile(inputs["V"].mean(axis=0), (full.shape[0], 1))
        out["mean of the visible V"] = (attend @ inputs["V"]) / seen
    for name, m in inputs.items():
        if m is not None and m.shape == full.shape:
            out[name + " copied"] = m
    return out


exercises = [l.split()[0] for l in subprocess.run([attn, "exercise", "list", "--width", "1000"], check=True, capture_output=True,
                                                   text=True).stdout.splitlines() if " numeric " in l]
names = [f"p{n:05d}" for n in range(N)]
judged, fixed, hits, parts_seen, rates = [], [], {}, 0, {}
infos = {}
for ex in exercises:
    info = show(ex)
    if not info.get("variant"):
        fixed.append(ex)  # the lesson's numbers for everyone: nothing is drawn, nothing to redraw
        continue
    if info["inputs"].get("student_inputs"):
        continue  # the student chooses the inputs
    judged.append(ex)
    infos[ex] = info
for ex in shards.mine(judged):
    info = infos[ex]
    lesson, _, _ = stages(show(ex, "--no-variants")["inputs"])
    check(all(p["stage"] in lesson for p in info["parts"]), f"{ex}: every part's stage is computed here: {info['parts']}")
    drawn = class_numbers(ex, names)
    redrawn = [d["numbers"]["redraws"] for d in drawn]
    rates[ex] = (sum(r > 0 for r in redrawn) / len(drawn), float(np.mean(redrawn)))
    for d in drawn:
        st, attend, inputs = stages(d["inputs"])
        for p in info["parts"]:
            if p["stage"] not in st:
                continue
            full = st[p["stage"]]
            need = 2 if p["stage"] in ("weights", "output", "argmax") else 0
            rows = [r for r in (p["rows"] or range(full.shape[0])) if attend[r].sum() >= need] if need else \
                (p["rows"] or list(range(full.shape[0])))
            cols = p["cols"] or list(range(full.shape[1]))
            if not rows:
                continue
            want = full[np.ix_(rows, cols)]
            if np.array_equal(want, lesson[p["stage"]][np.ix_(rows, cols)]):
                continue  # no draw changes this part
            parts_seen += 1
            for how, g in guesses(p["stage"], full, attend, inputs, lesson).items():
                if np.allclose(g[np.ix_(rows, cols)], want, rtol=p["rtol"], atol=p["atol"], equal_nan=True):
                    hits.setdefault(f"{ex} {p['id']}: {how}", []).append(d["student"])

print(f"{len(judged)} exercises with numbers per student, {len(rates)} drawn here{shards.label()} × {N} students, "
      f"{parts_seen} parts judged")
print(f"the lesson's numbers for everyone (nothing drawn): {', '.join(fixed)}")
for ex, (share, mean) in rates.items():
    print(f"  {ex:22s} first draw rejected for {100 * share:5.2f}% of students, {mean:.3f} redraws on average")
print(f"placeholder hits: { {k: len(v) for k, v in hits.items()} }")
check(len(judged) >= 16, f"every exercise with numbers per student is judged (lessons 1–19 have 16): {judged}")
check("03-causal-cat" in judged, f"03-causal-cat (8.4% of its variants were a placeholder's) is judged: {judged}")
check(not hits, "no placeholder is right on any student's numbers: " +
      "; ".join(f"{k}: {len(v)} students, e.g. {v[:3]}" for k, v in hits.items()))

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("placeholder checks passed")
