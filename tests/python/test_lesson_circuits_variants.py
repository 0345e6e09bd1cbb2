#!/usr/bin/python3
"""tests/python/test_lesson_circuits_variants.py — lessons 24–26's numeric exercises on
each student's own input (the `circuit` kind), against an independent float64 PyTorch
reference with hooks (test_model_explain.Reference, written in the tests).

For two students of the fixture course secret, `attn exercise show EX --student S
--format json` gives each one's drawn input (BOS, ten tokens, the same ten again); the
reference recomputes every asked number on it — the term layer 1's head at the key ×
the embedding at the query of layer 2's score (15, 6); the direct logit attribution of
each head at position 15 to the next token; the repeated half's loss with each head
patched from the clean run into the corrupted one — and the value each catalogued
mistake gives: the cell read at the other position, the norm's scale forgotten (rstd
set to 1 in the reference), clean and corrupted swapped, the head counted from 0. Then
ada answers every part right (full marks) and ben answers each part with a mistake
(the grader names it in words, half the part's points), one file each, graded by `attn
grade` with the secret. The two students' inputs differ, and ada's right answers handed in
under ben's name earn at most 20% of each exercise (the documented limit for a
classmate's answers)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import test_lesson_circuits as lc  # noqa: E402  (the checkpoint in the reference's layout)
import test_model_explain as explain_ref  # noqa: E402

torch.set_num_threads(1)
ATTN = lc.ATTN
SECRET = lc.SECRET
SHIFT, FROM = 21, 10  # 26-your-patch: corrupted = each drawn token + 21 (no token passes 63); loss from position 10
NAMES = {"term_wrong_position": "a term read from the wrong position", "norm_scale_forgotten": "the norm's scale forgotten",
         "clean_corrupt_swapped": "clean and corrupted swapped", "head_counted_from_0": "layer and head counted from 0"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def drawn(ex, student):
    r = subprocess.run([ATTN, "exercise", "show", ex, "--student", student, "--secret-file", SECRET, "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"exercise show {ex} --student {student}: exit {r.returncode}: {r.stderr}")
    j = json.loads(r.stdout)
    check(j["numbers"]["personal"], f"{ex} {student}: not personal numbers")
    return j["inputs"]["model"]["tokens"]


def unscaled(cache, name):
    c = dict(cache)
    c[name] = torch.ones_like(cache[name])
    return c


def term_24(ref, seq):
    """24-your-term: the right term and each mistake's value."""
    cache = ref.forward(seq)
    names, terms = ref.score_terms(cache, seq, 1, 0, 15, 6)
    e, h = names.index("embed"), names.index("blocks.0.attn.head.0")
    _, flat = ref.score_terms(unscaled(cache, "blocks.1.ln1.rstd"), seq, 1, 0, 15, 6)
    check(int(torch.argmax(cache["blocks.1.attn.hook_pattern"][0, 15])) == 6, f"24: {seq}: the head does not read key 6 most")
    return {"term": (float(terms[e, h]), {"term_wrong_position": float(terms[h, e]), "norm_scale_forgotten": float(flat[e, h])})}


def dla_25(ref, seq):
    cache = ref.forward(seq)
    target = seq[16]
    flat = unscaled(cache, "ln_final.rstd")
    dla = dict(ref.dla(cache, seq, 15, target))
    return {"copy_head": (dla["blocks.1.attn.head.0"],
                          {"norm_scale_forgotten": dict(ref.dla(flat, seq, 15, target))["blocks.1.attn.head.0"],
                           "term_wrong_position": dict(ref.dla(cache, seq, 16, target))["blocks.1.attn.head.0"]}),
            "previous_head": (dla["blocks.0.attn.head.0"],
                              {"norm_scale_forgotten": dict(ref.dla(flat, seq, 15, target))["blocks.0.attn.head.0"],
                               "term_wrong_position": dict(ref.dla(cache, seq, 16, target))["blocks.0.attn.head.0"],
                               "head_counted_from_0": dla["blocks.1.attn.head.0"]})}


def loss(cache, targets):
    lp = torch.log_softmax(cache["logits"], -1)
    return float(-sum(lp[i, targets[i + 1]] for i in range(FROM, len(targets) - 1)) / (len(targets) - 1 - FROM))


def patch_26(ref, seq):
    corrupt = [t if not 1 <= i <= 10 else (t - 1 + SHIFT) % 63 + 1 for i, t in enumerate(seq)]
    clean_c, corrupt_c = ref.forward(seq), ref.forward(corrupt)

    def patched(run, source, L, targets):
        hz = f"blocks.{L}.attn.hook_z"
        return loss(ref.forward(run, {hz: explain_ref.set_head(0, ref.dh, source[hz])}), targets)

    out = {}
    for part, L in (("copy_head", 1), ("previous_head", 0)):
        m = {"clean_corrupt_swapped": patched(seq, corrupt_c, L, seq)}
        if L == 0:
            m["head_counted_from_0"] = patched(corrupt, clean_c, 1, seq)
        out[part] = (patched(corrupt, clean_c, L, seq), m)
    # the other form of the swap: attn model patch with --clean-tokens and --corrupt-tokens exchanged
    out["copy_head"][1]["clean_corrupt_swapped (flags)"] = patched(seq, corrupt_c, 1, corrupt)
    return out


def grade(tmp, student, answers):
    path = os.path.join(tmp, student + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"student": student, **answers}, f)
    r = subprocess.run([ATTN, "grade", path, "--format", "json", "--secret-file", SECRET], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 0, f"grade {student}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout) if r.returncode == 0 else {"exercises": []}


def main():
    _, _, ref = lc.induction_reference()
    reference = {"24-your-term": term_24, "25-your-attribution": dla_25, "26-your-patch": patch_26}
    tmp = tempfile.mkdtemp(prefix="attn-circuit-variants-")
    try:
        seqs, ada_right = {}, None
        for student in ("ada", "ben"):
            want = {ex: f(ref, drawn(ex, student)) for ex, f in reference.items()}
            seqs[student] = {ex: drawn(ex, student) for ex in reference}
            for ex, parts in want.items():
                for part, (right, mistakes) in parts.items():
                    for m, v in mistakes.items():
                        check(abs(v - right) > 1e-3 * max(1.0, abs(right)),
                              f"{student} {ex}.{part}: the mistake {m} gives the right answer ({v} vs {right}): the draw should be redrawn")
            # ada: every part right; ben: every part with its first mistake (the from-0 one where it applies)
            if student == "ada":
                answers = ada_right = {ex: {part: r for part, (r, _) in parts.items()} for ex, parts in want.items()}
            else:
                answers, chosen = {}, {}
                for ex, parts in want.items():
                    answers[ex] = {}
                    for part, (_, mistakes) in parts.items():
                        m = next((k for k in ("head_counted_from_0", "clean_corrupt_swapped", "term_wrong_position") if k in mistakes),
                                 next(iter(mistakes)))
                        answers[ex][part], chosen[(ex, part)] = mistakes[m], m
                # the other forms, each in a file of its own: every mistake of every part is named
                for (ex, part), _ in list(chosen.items()):
                    for m, v in want[ex][part][1].items():
                        if m == chosen[(ex, part)]:
                            continue
                        one = grade(tmp, student, {ex: {part: v}})
                        got = [p.get("mistake", {}) for x in one["exercises"] for p in x["parts"] if p["id"] == part]
                        mid = m.split(" ")[0]
                        check(got and got[0].get("id") == mid and got[0].get("name") == NAMES[mid],
                              f"{student} {ex}.{part}: answering the mistake {m} ({v:.4f}) is named {got}")
            report = grade(tmp, student, answers)
            check(len(report["exercises"]) == 3, f"{student}: {len(report['exercises'])} exercises graded")
            for x in report["exercises"]:
                if student == "ada":
                    check(x["score"] == x["max_score"] == 2, f"ada: {x['id']} scores {x['score']} of {x['max_score']}: {x['parts']}")
                    continue
                for p in x["parts"]:
                    m = chosen[(x["id"], p["id"])]
                    check(p.get("mistake", {}).get("id") == m and p["mistake"].get("name") == NAMES[m],
                          f"ben: {x['id']}.{p['id']} names {p.get('mistake')}, want {m}")
                    check(abs(p["score"] - 0.5 * p["max_score"]) < 1e-9 and p["max_score"] > 0,
                          f"ben: {x['id']}.{p['id']} scores {p['score']}, want half of {p['max_score']}")
                    check("_" not in json.dumps(p.get("feedback", "")), f"ben: {x['id']}.{p['id']}: an id in the feedback: {p.get('feedback')}")
            print(f"ok: {student}: {report.get('score')} of {report.get('max_score')}")
        for x in grade(tmp, "ben", ada_right)["exercises"]:
            check(x["score"] <= 0.2 * x["max_score"], f"ada's answers handed in by ben: {x['id']} scores {x['score']} of {x['max_score']}")
        for ex in reference:
            check(seqs["ada"][ex] != seqs["ben"][ex], f"{ex}: ada and ben drew the same input")
            check(seqs["ada"][ex][11:] == seqs["ada"][ex][1:11] and len(set(seqs["ada"][ex][1:11])) == 10,
                  f"{ex}: ada's input is not ten distinct tokens repeated: {seqs['ada'][ex]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
