#!/usr/bin/python3
"""tests/python/test_grade_model_fair_costs.py — fair costs on the trained-model exercises
(issue 36, Build 2), for two students each, every answer computed here by PyTorch from the
checkpoint (model_head_reference.py, never attn's code):

  * a catalogued mistake made honestly all the way through — the head counted from 0
    (layer 2, head 2 read for layer 1, head 1), the head at another training step, the
    scores not divided by √d_head — with the weights and the argmax that follow from the
    student's own numbers: exactly 50% of the exercise (before, the argmax of the student's
    own weights was not carried and the mistake cost 100% on some inputs), the mistake
    named, the argmax part never 0, and no "not an attempt at your numbers";
  * a classmate's right answers handed in: at most 20% of the exercise (the documented
    limit for foreign answers), on every model exercise of lessons 20–22;
  * placeholders — zeros, uniform weights over the visible keys with the lesson's argmax, or
    the lesson's own answers (its printed example) — earn nothing: on a trained head an entry
    equal to the lesson's own answer earns nothing by itself, and the argmax counts only
    beside an attempt at the stages above.

The model's other heads are catalogued too: another layer's head of the same number
(wrong_layer), another head of the layer (wrong_head), the scores divided by √d_model
instead of √d_head (scaled_by_d_model), each computed here by PyTorch, cost exactly 50% with
the argmax carried; a one-hot guess at the weights after right scores only resembles "no
scaling" and is not named; on 03-causal-cat (NumPy) the mask applied after the softmax is
the named mistake mask_after_softmax (1.5 of 3: the right masked scores keep their point,
the cost lands on the other two parts), and neither it nor the wrong query row reads
"not an attempt at your numbers".

KNOWN_FOREIGN and KNOWN_PLACEHOLDER list what issue 36 measured and is not fixed yet
(each must still behave so: when one is fixed, the test says so and it leaves the list).
Run as shards (tests/CMakeLists.txt, ATTN_PY_SHARDS; tests/python/shards.py): each shard
takes every n-th case and checks the KNOWN entries of its own cases (a placeholder's, per
exercise)."""
import atexit
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_head_reference as mh  # noqa: E402
import shards  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
SECRET = os.path.join(mh.ROOT, "tests", "fixtures", "grade", "course.secret")
STUDENTS = ("alice", "carol")
tmp = tempfile.mkdtemp(prefix="attn-model-fair-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
failures = []
# Lesson 21's heads put nearly all their weight on the same position for every input (the
# token after the previous occurrence; the previous token), and 22-step-2000-row's argmax is
# often the same. On a trained head an entry equal to the lesson's own answer earns nothing by
# itself (nor one within twice the tolerance of it: one answer fits both) and the argmax counts
# only beside an attempt at the stages above (lessons/README.md, "Fair credit"): a classmate's
# answers earn 0-19% on every exercise. 21-stripe-row earned up to 0.43 of 2 (atol 0.001: the
# induction head's few entries that differ from the lesson's matched a classmate's) until its
# atol became 0.0001; foreign_pool() checks it on more pairs.
KNOWN_FOREIGN = set()
# Placeholders: zeros for the scores, uniform weights over the visible keys and the lesson's own
# argmax; or the lesson's own answers (the example it prints). None earns anything now (before,
# lesson 21's earned 50-90% and the lesson's example 0.125 of 3 on 20-first-digit-row).
KNOWN_PLACEHOLDER = set()


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


_tokens = {}


def tokens(ex, student):
    if (ex, student) not in _tokens:
        p = subprocess.run([ATTN, "exercise", "show", ex, "--format", "json", "--student", student, "--secret-file", SECRET],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "%s: exercise show: %s" % (ex, p.stderr[:200]))
        _tokens[(ex, student)] = json.loads(p.stdout)["inputs"]["model"]["tokens"]
    return _tokens[(ex, student)]


def grade(ex, student, parts):
    path = os.path.join(tmp, "%s-%s-%d.json" % (ex, student, len(os.listdir(tmp))))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({ex: parts}, f)
    p = subprocess.run([ATTN, "grade", path, "--student", student, "--format", "json", "--secret-file", SECRET],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "%s: grade exit %d: %s" % (ex, p.returncode, p.stderr[:200]))
    return json.loads(p.stdout)


# exercise → (checkpoint, layer, head, query row, its parts, weights over the keys 0 … row only)
EXERCISES = {
    "20-first-digit-row": ("sort8", 0, 0, 7, ("scaled", "weights", "most"), False),
    "20-fourth-digit-row": ("sort8", 0, 0, 10, ("weights", "most"), True),
    "22-step-100-row": ("sort8-100", 0, 0, 7, ("scaled", "weights"), False),
    "22-step-2000-row": ("sort8", 0, 0, 7, ("weights", "most"), False),
    "21-stripe-row": ("induction", 1, 0, 15, ("weights", "most"), True),
    "21-previous-row": ("induction", 0, 0, 15, ("scaled", "most"), False),
}


def row_answers(ex, scaled, weights, row):
    """The exercise's parts from one query row's scores [row + 1] and weights (keys 0 … row visible)."""
    parts = EXERCISES[ex][4]
    w = list(weights[:row + 1]) + [0.0] * (len(weights) - row - 1)
    if EXERCISES[ex][5]:
        w = w[:row + 1]
    most = max(range(row + 1), key=lambda j: weights[j])
    return {k: v for k, v in (("scaled", list(scaled)), ("weights", w), ("most", most)) if k in parts}


def head(model, toks, layer, h, row, divide_by=None):
    """(scaled [row + 1], weights [T]) of one head; divide_by replaces √d_head."""
    scaled, weights, _ = mh.head_row(model, toks, layer, h, row)
    if divide_by is not None:
        d_head = mh.model(model).transformer.h[layer].attn.c_attn.weight.shape[-1] // mh.model(model).transformer.h[layer].heads
        scaled = [s * math.sqrt(d_head) / divide_by for s in scaled]
        e = torch.softmax(torch.tensor(scaled, dtype=torch.float64), 0).tolist()
        weights = e + [0.0] * (len(toks) - len(e))
    return scaled, weights


def texts(r):
    return json.dumps(r, ensure_ascii=False)


def honest_mistake(ex, student, toks, how, mistake):
    model, layer, h, row, parts, _ = EXERCISES[ex]
    scaled, weights = how(model, toks, layer, h, row)
    r = grade(ex, student, row_answers(ex, scaled, weights, row))
    x = r["exercises"][0]
    named = [p.get("mistake", {}).get("id") for p in x["parts"]]
    most = [p for p in x["parts"] if p["id"] == "most"]
    check(abs(r["score"] - r["max_score"] / 2) < 1e-9 and mistake in named,
          "%s/%s: %s costs exactly 50%%: %s of %s, named %s" % (ex, student, mistake, r["score"], r["max_score"], named))
    check(not most or most[0]["score"] > 0, "%s/%s: %s: the argmax of the student's own weights carries: %s" % (ex, student, mistake, most))
    check("not an attempt" not in texts(r), "%s/%s: %s named, yet 'not an attempt': %s" % (ex, student, mistake, texts(x)[:300]))
    for p in x["parts"]:  # a carried part (the argmax of the student's own weights) says the share it earns
        for pct in re.findall(r"(\d+)% of this part's points", p.get("feedback", "")):
            check(int(pct) == round(100 * p["score"] / p["max_score"]),
                  "%s/%s: %s: part %s says %s%% but earns %s of %s" % (ex, student, mistake, p["id"], pct, p["score"], p["max_score"]))


def lesson_03_honest():
    """03-causal-cat's honest slips m06 (mask after the softmax) and m20 (the next query row), NumPy."""
    p = subprocess.run([ATTN, "exercise", "show", "03-causal-cat", "--format", "json", "--student", "alice", "--secret-file", SECRET],
                       capture_output=True, text=True, timeout=60)
    j = json.loads(p.stdout)
    inp = j["inputs"]
    q, k, v = (np.array(inp[n], dtype=float) for n in ("q", "k", "v"))
    attend = np.array(inp["mask_attend"], dtype=bool)
    scaled = q @ k.T / np.sqrt(q.shape[1])
    masked = np.where(attend, scaled, -np.inf)

    def softmax(x):
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    def answer(w, shift):
        st = {"masked": masked, "weights": w, "output": w @ v}
        out = {}
        for part in j["parts"]:
            rows = [(r + shift) % q.shape[0] for r in (part["rows"] or range(q.shape[0]))]
            m = st[part["stage"]][rows]
            out[part["id"]] = [[("-inf" if np.isneginf(x) else float(x)) for x in row] for row in m]
        return out

    r = grade("03-causal-cat", "alice", answer(softmax(scaled) * attend, 0))
    named = [p.get("mistake", {}).get("id") for p in r["exercises"][0]["parts"]]
    scores = {p["id"]: p["score"] for p in r["exercises"][0]["parts"]}
    check(abs(r["score"] - 1.5) < 1e-9 and "mask_after_softmax" in named and abs(scores["masked"] - 1.0) < 1e-9,
          "03-causal-cat: the mask after the softmax is named and costs 1.5 of 3, not the right masked scores: %s %s" % (r["score"], scores))
    check("not an attempt" not in texts(r), "03-causal-cat: mask after softmax named, yet 'not an attempt'")
    r = grade("03-causal-cat", "alice", answer(softmax(masked), 1))
    check("not an attempt" not in texts(r) and "another row of your numbers" in texts(r),
          "03-causal-cat: the wrong query row is said to be another row of the student's numbers: %s" % texts(r)[:400])


_lesson = {}


def lesson_tokens(ex):
    if not _lesson:
        for name in os.listdir(os.path.join(mh.ROOT, "lessons")):
            if name[:2] in ("20", "21", "22") and name.endswith(".toml"):
                with open(os.path.join(mh.ROOT, "lessons", name), "rb") as f:
                    for x in tomllib.load(f).get("exercise", []):
                        _lesson[x["id"]] = [int(t) for t in x.get("tokens", "").split()]
    return _lesson[ex]


def placeholders(ex):
    """Zeros, uniform weights and the lesson's argmax; the lesson's own answers: nothing, but KNOWN_PLACEHOLDER."""
    model, layer, h, row, parts, _ = EXERCISES[ex]
    scaled, weights = head(model, lesson_tokens(ex), layer, h, row)
    example = row_answers(ex, scaled, weights, row)
    over = set()
    for s in STUDENTS:
        n = len(tokens(ex, s))
        uniform = row_answers(ex, [0.0] * (row + 1), [1.0 / (row + 1)] * (row + 1) + [0.0] * (n - row - 1), row)
        if "most" in uniform:
            uniform["most"] = example["most"]
        for how, answer in (("uniform", uniform), ("lesson's example", example)):
            r = grade(ex, s, answer)
            print("%s/%s: placeholder (%s): %s of %s" % (ex, s, how, r["score"], r["max_score"]))
            if (ex, how) in KNOWN_PLACEHOLDER:
                if r["score"] > 0:
                    over.add((ex, how))
            else:
                check(r["score"] == 0, "%s/%s: a placeholder (%s) earns %s of %s" % (ex, s, how, r["score"], r["max_score"]))
    for key in {k for k in KNOWN_PLACEHOLDER if k[0] == ex} - over:
        check(False, "%s: the %s placeholder now earns nothing: take it out of KNOWN_PLACEHOLDER" % key)


def foreign(ex):
    """A classmate's right answers: at most 20%, but KNOWN_FOREIGN."""
    model, layer, h, row, parts, _ = EXERCISES[ex]
    over = []
    for giver, taker in (("alice", "carol"), ("carol", "alice")):
        scaled, weights = head(model, tokens(ex, giver), layer, h, row)
        r = grade(ex, taker, row_answers(ex, scaled, weights, row))
        print("%s: %s's right answers handed in by %s: %s of %s" % (ex, giver, taker, r["score"], r["max_score"]))
        if r["score"] > 0.2 * r["max_score"] + 1e-9:
            over.append("%s -> %s: %s of %s" % (giver, taker, r["score"], r["max_score"]))
    if ex in KNOWN_FOREIGN:
        check(over, "%s: a classmate's answers now earn at most 20%%: take it out of KNOWN_FOREIGN" % ex)
    else:
        check(not over, "%s: a classmate's right answers earn over 20%%: %s" % (ex, over))


# 21-stripe-row on more pairs than STUDENTS: every input puts ~0.95 on the stripe key and ~0.04 on
# BOS, so a classmate's row differs from one's own only in weights of 0.0001-0.01. On this pool,
# before, a classmate's answers earned up to 83% (atol 0.001: s2's handed in by carol) or 75%
# (atol 0.0001 but entries within 1-2 tolerances of the lesson's answer still earning: s4's by s2).
# Measured by hand over 42 students (1722 pairs): at most 18.8% now.
POOL = ("alice", "carol", "s0", "s2", "s4")


def foreign_pool(taker):
    ex = "21-stripe-row"
    model, layer, h, row, _, _ = EXERCISES[ex]
    for giver in POOL:
        if giver != taker:
            r = grade(ex, taker, row_answers(ex, *head(model, tokens(ex, giver), layer, h, row), row))
            check(r["score"] <= 0.2 * r["max_score"] + 1e-9,
                  "%s: %s's right answers handed in by %s earn %s of %s (limit 20%%)" % (ex, giver, taker, r["score"], r["max_score"]))


def one_hot():
    """One-hot weights at the right argmax after right scores: only resembles "no scaling", not named."""
    ex, toks = "20-first-digit-row", tokens("20-first-digit-row", "alice")
    scaled, weights = head("sort8", toks, 0, 0, 7)
    most = max(range(8), key=lambda j: weights[j])
    hot = [1.0 if j == most else 0.0 for j in range(8)]
    r = grade(ex, "alice", {"scaled": scaled, "weights": hot, "most": most})
    named = [p.get("mistake", {}).get("id") for p in r["exercises"][0]["parts"] if p.get("mistake")]
    check(not named, "20-first-digit-row: a one-hot guess after right scores is named %s" % named)


def d_model(model):
    """The residual width (c_attn maps it to q, k and v: its weight is [3 d_model, d_model])."""
    return mh.model(model).transformer.h[0].attn.c_attn.weight.shape[-1]


# Honest mistakes: (exercise, the mistake named, the student's head: (model, tokens, layer, head, row) -> (scaled, weights)).
HONEST = (
    ("20-first-digit-row", "head_counted_from_0", lambda m, t, l, h, r: head(m, t, 1, 1, r)),
    ("20-first-digit-row", "no_scaling", lambda m, t, l, h, r: head(m, t, l, h, r, divide_by=1.0)),
    ("20-first-digit-row", "other_checkpoint", lambda m, t, l, h, r: head("sort8-100", t, l, h, r)),
    ("20-first-digit-row", "wrong_layer", lambda m, t, l, h, r: head(m, t, 1, 0, r)),
    ("20-first-digit-row", "wrong_layer", lambda m, t, l, h, r: head(m, t, 2, 0, r)),
    ("20-first-digit-row", "wrong_head", lambda m, t, l, h, r: head(m, t, 0, 1, r)),
    ("20-first-digit-row", "scaled_by_d_model", lambda m, t, l, h, r: head(m, t, l, h, r, divide_by=math.sqrt(d_model(m)))),
    ("20-fourth-digit-row", "head_counted_from_0", lambda m, t, l, h, r: head(m, t, 1, 1, r)),
    ("20-fourth-digit-row", "wrong_head", lambda m, t, l, h, r: head(m, t, 0, 2, r)),
    ("22-step-2000-row", "other_checkpoint", lambda m, t, l, h, r: head("sort8-100", t, l, h, r)),
    ("22-step-100-row", "other_checkpoint", lambda m, t, l, h, r: head("sort8", t, l, h, r)),
    ("22-step-100-row", "scaled_by_d_model", lambda m, t, l, h, r: head(m, t, l, h, r, divide_by=math.sqrt(d_model(m)))),
    ("21-previous-row", "no_scaling", lambda m, t, l, h, r: head(m, t, l, h, r, divide_by=1.0)),
    ("21-previous-row", "wrong_layer", lambda m, t, l, h, r: head(m, t, 1, 0, r)),
    ("21-stripe-row", "wrong_layer", lambda m, t, l, h, r: head(m, t, 0, 0, r)),
)


def main():
    cases = [(lambda s=s, ex=ex, mistake=mistake, how=how: honest_mistake(ex, s, tokens(ex, s), how, mistake))
             for s in STUDENTS for ex, mistake, how in HONEST]
    cases += [(lambda ex=ex: foreign(ex)) for ex in EXERCISES] + [(lambda ex=ex: placeholders(ex)) for ex in EXERCISES]
    cases += [one_hot, lesson_03_honest] + [(lambda s=s: foreign_pool(s)) for s in POOL]
    for case in shards.mine(cases):
        case()
    if failures:
        sys.exit("%d failure(s)" % len(failures))
    print("ok%s: named mistakes on lessons 20-22 cost 50%% with the argmax carried; foreign answers <= 20%%%s"
          % (shards.label(), " but on %s" % sorted(KNOWN_FOREIGN) if KNOWN_FOREIGN else ""))


if __name__ == "__main__":
    main()
