#!/usr/bin/python3
"""tests/python/test_lesson_circuits.py — lessons 24–26 (why the induction head attends
where it does, what it writes, finding the circuit by patching) against PyTorch.

Every number the three lessons print at 80 columns is recomputed here from the built-in
checkpoint lessons/models/induction.safetensors by an independent float64 PyTorch
reference with hooks (test_model_explain.Reference: the residual stream split into
embed, pos_embed, each head's output and the biases, each layer norm's scale taken from
its forward; test_model_explain_circuits: the composition scores as Elhage et al. and
TransformerLens define them): every term of each score table and its totals, the sum and
the model's score, the three largest terms named in words with their shares; each key's
weight and the tokens its write raises and lowers most with their direct logit
attribution; each component's DLA and the logit; the Q/K/V composition scores; the
clean, corrupted, patched, zero- and mean-ablated losses. Then each exercise's answer is
checked against the reference (and its catalogued mistakes shown to be what the mistake
computes), and two students are graded: one right (full score), one with an honest
mistake per exercise (the feedback names it)."""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import model_train_reference as files  # noqa: E402  (safetensors reading only)
import test_model_explain as explain_ref  # noqa: E402  (the hooked PyTorch reference)
import test_model_explain_circuits as circuits_ref  # noqa: E402  (composition scores)

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", ".")
SECRET = os.path.join(SOURCE, "tests", "fixtures", "grade", "course.secret")
SEQ = [0, 7, 23, 41, 12, 58, 3, 36, 19, 50, 28, 7, 23, 41, 12, 58, 3, 36, 19, 50, 28]
CORRUPT = [0, 44, 9, 61, 30, 2, 17, 55, 38, 26, 13, 7, 23, 41, 12, 58, 3, 36, 19, 50, 28]
FROM = 11  # the lessons' loss: the clean text's tokens 11 … 20
SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def induction_reference():
    """The checkpoint (minGPT names, nn.Linear [out, in]) in the reference's layout."""
    t, meta = files.read_safetensors(os.path.join(SOURCE, "lessons", "models", "induction.safetensors"))
    t = {k: v.to(torch.float64) for k, v in t.items()}
    cfg = {k: int(meta[k]) for k in ("n_layer", "n_head", "n_embd", "vocab_size", "n_positions")}
    p = {"wte": t["transformer.wte.weight"], "wpe": t["transformer.wpe.weight"], "lnf_w": t["transformer.ln_f.weight"],
         "lnf_b": t["transformer.ln_f.bias"], "lm_head": t["lm_head.weight"], "blocks": []}
    for L in range(cfg["n_layer"]):
        h = f"transformer.h.{L}."
        p["blocks"].append({"ln1_w": t[h + "ln_1.weight"], "ln1_b": t[h + "ln_1.bias"],
                            "w_qkv": t[h + "attn.c_attn.weight"].T, "b_qkv": t[h + "attn.c_attn.bias"],
                            "w_out": t[h + "attn.c_proj.weight"].T, "b_out": t[h + "attn.c_proj.bias"]})
    return cfg, p, explain_ref.Reference(cfg, p)


def lesson(n):
    r = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", "80"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, f"attn lesson {n}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def near(got, want, decimals, what):
    check(abs(float(got) - want) <= 0.6 * 10 ** -decimals + 1e-12, f"{what}: printed {got}, PyTorch {want:.8f}")


def rows_after(text, start, header_word):
    """The rows of the table whose header line (after `start`) begins with header_word."""
    lines = text[start:].splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(header_word))
    out = []
    for line in lines[at + 1:]:
        if not line.startswith("  ") or not line.strip() or line.startswith("  sum") or line.startswith("  The"):
            break
        out.append(line.split())
    return out


LABEL = {"embed": "embed", "pos_embed": "pos", "blocks.0.attn.head.0": "L1H1", "blocks.1.attn.head.0": "L2H1", "bias": "bias"}
WORDS = {"embed": "the token embedding", "pos_embed": "the position embedding", "bias": "the biases",
         "blocks.0.attn.head.0": "layer 1, head 1's output"}


def check_term_table(text, start, names, terms, score, what):
    """One score_terms block: every cell, the totals, the sum, the three largest terms."""
    rows = rows_after(text, start, "query \\ key")
    n = len(names)
    check([r[0] for r in rows] == [LABEL[x] for x in names] + ["total"], f"{what}: row labels {[r[0] for r in rows]}")
    for i in range(n):
        for j in range(n):
            near(rows[i][1 + j], float(terms[i, j]), 4, f"{what}: term {names[i]} × {names[j]}")
        near(rows[i][1 + n], float(terms[i].sum()), 4, f"{what}: row total {names[i]}")
    for j in range(n):
        near(rows[n][1 + j], float(terms[:, j].sum()), 4, f"{what}: column total {names[j]}")
    near(rows[n][1 + n], score, 4, f"{what}: the corner")
    m = re.search(r"sum of the terms\s+(-?[\d.]+)\s+·\s+the model's (?:score|difference)\s+(-?[\d.]+)", text[start:])
    near(m.group(1), float(terms.sum()), 6, f"{what}: sum of the terms")
    near(m.group(2), score, 6, f"{what}: the model's score")
    block = " ".join(text[start + m.end():].split("\n\n")[0].split())
    order = sorted(((float(terms[i, j]), i, j) for i in range(n) for j in range(n)), key=lambda c: -abs(c[0]))[:3]
    found = re.findall(r"(\d)\. (.+?) at the key × (.+?) at the query: ([+-][\d.]+), (-?\d+)%", block)
    check(len(found) == 3, f"{what}: three largest terms in words, found {found}")
    for (v, i, j), (_, key, query, value, share) in zip(order, found):
        check(key == WORDS[names[j]] and query == WORDS[names[i]], f"{what}: largest term {key} × {query}, PyTorch {names[j]} × {names[i]}")
        near(value, v, 4, f"{what}: largest term value")
        check(int(share) == round(100 * v / float(terms.sum())), f"{what}: share {share}%, PyTorch {100 * v / float(terms.sum()):.2f}%")
    return order


def check_lesson_24(ref, cache):
    text = lesson(24)
    cases = [("query 58₁₅ on key 3₆", 15, 6, None), ("why key 3₆ rather than key 50₉", 15, 6, 9), ("query 58₅ on key 0₀", 5, 0, None)]
    largest = {}
    for title, q, k, other in cases:
        at = text.find(title)
        check(at >= 0, f"lesson 24: no table '{title}'")
        names, terms = ref.score_terms(cache, SEQ, 1, 0, q, k)
        score = float(cache["blocks.1.attn.hook_attn_scores"][0, q, k])
        if other is not None:
            _, o = ref.score_terms(cache, SEQ, 1, 0, q, other)
            terms, score = terms - o, score - float(cache["blocks.1.attn.hook_attn_scores"][0, q, other])
        else:
            m = re.search(r"\(weight ([\d.]+)\)", text[at:])
            near(m.group(1), float(cache["blocks.1.attn.hook_pattern"][0, q, k]), 4, f"lesson 24 {title}: weight")
        largest[title] = (names, terms, check_term_table(text, at, names, terms, score, f"lesson 24 {title}"))
    # The exercises' facts: the difference's largest term is layer 1's output at the key × the token at the
    # query; the catalogued wrong-position answer is the transposed cell, and it is small; the positions'
    # term is large in the score but not in the difference.
    names, terms, order = largest["why key 3₆ rather than key 50₉"]
    e, h = names.index("embed"), names.index("blocks.0.attn.head.0")
    check((order[0][1], order[0][2]) == (e, h), "24-deciding-term: the answer is not the largest term")
    check(abs(float(terms[h, e])) < 0.1 * abs(float(terms[e, h])), "24-deciding-term: the wrong-position cell is not small")
    _, score_terms_, _ = largest["query 58₁₅ on key 3₆"]
    pp = names.index("pos_embed")
    check(abs(float(score_terms_[pp, pp])) > 4 * abs(float(terms[pp, pp])), "24-deciding-term: pos × pos does not mostly cancel")
    # 24-norm-scale: with the norm's scale left out (rstd = 1) the terms no longer add up to the score.
    unscaled = {k: v for k, v in cache.items()}
    unscaled["blocks.1.ln1.rstd"] = torch.ones_like(cache["blocks.1.ln1.rstd"])
    _, wrong = ref.score_terms(unscaled, SEQ, 1, 0, 15, 6)
    score = float(cache["blocks.1.attn.hook_attn_scores"][0, 15, 6])
    check(abs(float(wrong.sum()) - score) > 1.0, "24-norm-scale: forgetting the scale should break the sum")
    print(f"ok: lesson 24: 3 term tables (every cell, totals, sums, largest terms) are PyTorch's; "
          f"without the norm's scale the terms sum to {float(wrong.sum()):.3f}, not {score:.3f}")


def check_lesson_25(cfg, p, ref, cache):
    text = lesson(25)
    L, h, q, dh = 1, 0, 15, ref.dh
    b = p["blocks"][L]
    pattern, v = cache[f"blocks.{L}.attn.hook_pattern"][h, q], cache[f"blocks.{L}.attn.hook_v"]
    rstd = cache["ln_final.rstd"][q, 0]

    def through_final(write):
        return ((write - write.mean()) * rstd * p["lnf_w"]) @ ref.unembed().T

    at = text.find("What layer 2, head 1 writes at query 58₁₅")
    check(at >= 0, "lesson 25: no head_writes table")
    rows = rows_after(text, at, "key")
    keys = sorted(range(q + 1), key=lambda k: -float(pattern[k]))[:4]
    check(len(rows) == 4, f"lesson 25: {len(rows)} key rows")
    whole = torch.zeros(cfg["n_embd"], dtype=torch.float64)
    for k in range(q + 1):
        whole += pattern[k] * v[k, h] @ b["w_out"][h * dh:(h + 1) * dh]
    for row, k in zip(rows, keys):
        logits = through_final(pattern[k] * v[k, h] @ b["w_out"][h * dh:(h + 1) * dh])
        up, down = int(torch.argmax(logits)), int(torch.argmin(logits))
        check(row[0].translate(SUB).endswith(str(k)) and row[0].translate(SUB).startswith(str(SEQ[k])), f"lesson 25: key {row[0]}, PyTorch {k}")
        near(row[1], float(pattern[k]), 4, f"lesson 25: key {k} weight")
        check(row[2] == str(up) and row[4] == str(down), f"lesson 25: key {k} raises {row[2]} lowers {row[4]}; PyTorch {up}, {down}")
        near(row[3], float(logits[up]), 3, f"lesson 25: key {k} DLA up")
        near(row[5], float(logits[down]), 3, f"lesson 25: key {k} DLA down")
    logits = through_final(whole)
    top = torch.argsort(logits, descending=True)[:3].tolist()
    found = re.findall(r"(\d+) \(([+-][\d.]+)\)", " ".join(text[at:].split("\n\n")[0].split()).split("raises most:")[1])
    check([int(t) for t, _ in found] == top, f"lesson 25: the whole output raises {found}, PyTorch {top}")
    for (t, val), want in zip(found, top):
        near(val, float(logits[want]), 3, f"lesson 25: whole output DLA of {t}")
    check(top[0] == SEQ[q + 1] == 3, "25-copied-token: the head's output does not raise 3 most")
    check(int(torch.argmax(cache["blocks.1.attn.hook_pattern"][0, q])) == 6 and SEQ[6] == 3,
          "25-which-head: blocks.1 head 0 is not the head that reads 3₆ (the induction head)")
    # logit_attribution: each component to the next token, 3
    at = text.find("Direct logit attribution at 58₁₅ to the next token, 3")
    check(at >= 0, "lesson 25: no DLA table")
    rows = rows_after(text, at, "component")
    want = ref.dla(cache, SEQ, q, 3)
    check([r[0] for r in rows] == [LABEL[n] for n, _ in want], f"lesson 25: DLA rows {rows}")
    for r, (n, val) in zip(rows, want):
        near(r[1], val, 4, f"lesson 25: DLA of {n}")
    m = re.search(r"sum ([+-][\d.]+)\s+·\s+the model's logit of 3\s+([+-][\d.]+)", text[at:])
    near(m.group(1), sum(v for _, v in want), 6, "lesson 25: DLA sum")
    near(m.group(2), float(cache["logits"][q, 3]), 6, "lesson 25: the model's logit")
    # composition
    at = text.find("Composition scores of layer 2, head 1")
    rows = [r for r in rows_after(text, at, "heads") if r[0] == "L1H1"]
    _, OVa, *_ = circuits_ref.head_matrices(cfg, p, 0, 0)
    QKb, OVb, *_ = circuits_ref.head_matrices(cfg, p, 1, 0)
    qkv = (circuits_ref.score(OVa, QKb), circuits_ref.score(OVa, QKb.T), circuits_ref.score(OVa, OVb))
    check(len(rows) == 1 and rows[0][:3] == ["L1H1", "→", "L2H1"], f"lesson 25: composition rows {rows}")
    for got, want_ in zip(rows[0][3:], qkv):
        near(got, want_, 4, "lesson 25: composition score")
    check(qkv[1] > 2 * max(qkv[0], qkv[2]), f"25-composition: K is not over twice Q and V: {qkv}")
    print(f"ok: lesson 25: writes, DLA (sum {sum(v for _, v in want):.4f}) and composition {qkv} are PyTorch's")


def loss(cache):
    lp = torch.log_softmax(cache["logits"], -1)
    return float(-sum(lp[i, SEQ[i + 1]] for i in range(FROM - 1, len(SEQ) - 1)) / (len(SEQ) - FROM))


def check_lesson_26(ref):
    text = lesson(26)
    clean, corrupt = ref.forward(SEQ), ref.forward(CORRUPT)
    base = {"clean": loss(clean), "corrupt": loss(corrupt)}
    patched, zeroed, mean = [], [], []
    for L in range(2):
        z, hz = clean[f"blocks.{L}.attn.hook_z"], f"blocks.{L}.attn.hook_z"
        patched.append(loss(ref.forward(CORRUPT, {hz: explain_ref.set_head(0, ref.dh, z)})))
        zeroed.append(loss(ref.forward(SEQ, {hz: explain_ref.set_head(0, ref.dh, torch.zeros_like(z[:, 0]))})))
        mean.append(loss(ref.forward(SEQ, {hz: explain_ref.set_head(0, ref.dh, z[:, 0].mean(0))})))
    for m in re.finditer(r"clean run ([\d.]+)\s+·\s+corrupted run ([\d.]+)", text):
        near(m.group(1), base["clean"], 4, "lesson 26: clean loss")
        near(m.group(2), base["corrupt"], 4, "lesson 26: corrupted loss")
    at = text.find("patched from the clean run into the corrupted run")
    rows = [r for r in rows_after(text, at, "head") if r[0] == "Layer"]
    check(len(rows) == 2, f"lesson 26: patch rows {rows}")
    for L, r in enumerate(rows):
        near(r[4], patched[L], 4, f"lesson 26: layer {L} patched")
        near(r[5], patched[L] - base["corrupt"], 4, f"lesson 26: layer {L} patch change")
    at = text.find("Each head removed from the clean run")
    rows = [r for r in rows_after(text, at, "head") if r[0] == "Layer"]
    check(len(rows) == 2, f"lesson 26: ablation rows {rows}")
    for L, r in enumerate(rows):
        for got, want in zip(r[4:], (zeroed[L], zeroed[L] - base["clean"], mean[L], mean[L] - base["clean"])):
            near(got, want, 4, f"lesson 26: layer {L} ablation")
    # 26-restored's prompt and choices: the losses it quotes, the share and the two mistakes' shares.
    gap = base["corrupt"] - base["clean"]
    for quoted, want in (("clean run 0.5760", base["clean"]), ("corrupted run 4.3603", base["corrupt"]),
                         ("clean run 0.7677", patched[1])):
        near(quoted.split()[-1], want, 4, f"26-restored quotes '{quoted}'")
    check(round(100 * (base["corrupt"] - patched[1]) / gap) == 95, "26-restored: the share restored is not 95%")
    check(round(100 * (patched[1] - base["clean"]) / gap) == 5, "26-restored: the swapped share is not 5%")
    check(round(100 * (1 - patched[1] / base["corrupt"])) == 82, "26-restored: the ratio of losses is not 82%")
    check(abs(patched[0] - base["corrupt"] - 1.77) < 0.005 and patched[0] > base["corrupt"],
          "26-worse: patching layer 1's head does not raise the loss by 1.77")
    check(zeroed[0] - base["clean"] > 0.8 * gap, "26-worse: zero-ablating layer 1's head should cost most of the gain")
    print(f"ok: lesson 26: losses clean {base['clean']:.4f}, corrupted {base['corrupt']:.4f}, patched {patched}, "
          f"zeroed {zeroed}, mean {mean} are PyTorch's")


# ---- two students graded -------------------------------------------------------------

RIGHT = {
    "24-deciding-term": "layer 1, head 1's output at the key × the token embedding at the query",
    "24-norm-scale": "the scale is taken from the forward and held fixed: for this input the norm is then linear in each part",
    "25-copied-token": "3",
    "25-which-head": "--layer=1 --head=0",
    "25-composition": "K: layer 2's keys read what layer 1 wrote",
    "26-restored": "95%",
    "26-worse": "layer 2 now finds the key after each earlier copy, but that key holds a corrupted token, which it copies",
}
MISTAKEN = {  # the honest mistakes the issue names, and one more per exercise
    "24-deciding-term": ("the token embedding at the key × layer 1, head 1's output at the query", "wrong-position"),
    "24-norm-scale": ("after training the scale is 1, so the norm can be left out", "norm-scale-forgotten"),
    "25-copied-token": ("58", "query-token"),
    "25-which-head": ("--layer=2 --head=1", "heads-counted-from-0"),
    "25-composition": ("Q: layer 2's queries read what layer 1 wrote", "query-side"),
    "26-restored": ("5%", "clean-corrupt-swapped"),
    "26-worse": ("the patch went into the clean run, which had a low loss to lose", "clean-corrupt-swapped"),
}


def grade(tmp, student, answers):
    path = os.path.join(tmp, student + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"student": student, **{ex: {"answer": a} for ex, a in answers.items()}}, f)
    r = subprocess.run([ATTN, "grade", path, "--format", "json", "--secret-file", SECRET], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 0, f"grade {student}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout) if r.returncode == 0 else {"exercises": []}


def check_students():
    tmp = tempfile.mkdtemp(prefix="attn-lesson-circuits-")
    try:
        right = grade(tmp, "ada", RIGHT)
        for ex in right["exercises"]:
            check(ex["score"] == ex["max_score"] > 0, f"ada (right): {ex['id']} scores {ex['score']} of {ex['max_score']}")
        check(len(right["exercises"]) == len(RIGHT), f"ada: {len(right['exercises'])} exercises graded")
        wrong = grade(tmp, "ben", {ex: a for ex, (a, _) in MISTAKEN.items()})
        for ex in wrong["exercises"]:
            named = [part.get("mistake", {}).get("id") for part in ex["parts"]]
            want = MISTAKEN[ex["id"]][1]
            check(ex["score"] == 0 and want in named, f"ben (mistaken): {ex['id']} scores {ex['score']}, names {named}, want {want}")
            feedback = json.dumps(ex["parts"])
            check("feedback" in feedback, f"ben: {ex['id']}: no feedback")
        check(len(wrong["exercises"]) == len(MISTAKEN), f"ben: {len(wrong['exercises'])} exercises graded")
        print(f"ok: two students graded: ada {right.get('score')} of {right.get('max_score')}, "
              f"ben {wrong.get('score')} with every mistake named")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    cfg, p, ref = induction_reference()
    cache = ref.forward(SEQ)
    check_lesson_24(ref, cache)
    check_lesson_25(cfg, p, ref, cache)
    check_lesson_26(ref)
    check_students()
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
