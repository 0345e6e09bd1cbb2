#!/usr/bin/python3
"""tests/python/test_model_variants.py — the per-student variants of the trained-model
lessons (20–22) end to end. For two students, `attn exercise show --format json`
gives each one's input (the model's tokens); PyTorch computes the head's row from the
checkpoint itself (model_head_reference.py, never attn's code); `attn grade --format
json` must give the correct answer full marks, and a wrong one fewer, naming the
catalogued mistake (the head counted from 0, the head of another training step, the
column read for the row). Different students get different inputs, hence numbers."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_head_reference as mh  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
ROOT = mh.ROOT
SECRET = os.path.join(ROOT, "tests", "fixtures", "grade", "course.secret")
tmp = tempfile.mkdtemp(prefix="attn-model-variants-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def tokens(ex, student):
    p = subprocess.run([ATTN, "exercise", "show", ex, "--format", "json", "--student", student, "--secret-file", SECRET],
                       capture_output=True, text=True)
    check(p.returncode == 0, "%s: exercise show: %s" % (ex, p.stderr))
    j = json.loads(p.stdout)
    check(j["numbers"]["personal"], "%s: %s's numbers are personal" % (ex, student))
    return j["inputs"]["model"]["tokens"]


def grade(ex, student, parts):
    path = os.path.join(tmp, "%s-%s-%d.json" % (ex, student, len(os.listdir(tmp))))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"student": student, ex: parts}, f)
    p = subprocess.run([ATTN, "grade", path, "--format", "json", "--secret-file", SECRET], capture_output=True, text=True)
    check(p.returncode == 0, "%s: grade exit %d: %s" % (ex, p.returncode, p.stderr))
    return json.loads(p.stdout)


# The parts each exercise asks for; 20-fourth-digit-row asks for the keys 0 … 10 only.
PARTS = {"20-first-digit-row": ("scaled", "weights", "most"), "20-fourth-digit-row": ("weights", "most"),
         "22-step-100-row": ("scaled", "weights"), "22-step-2000-row": ("weights", "most"),
         "21-stripe-row": ("weights", "most"), "21-previous-row": ("scaled", "most")}


def answers(ex, model, toks, layer, head, row):
    scaled, weights, most = mh.head_row(model, toks, layer, head, row)
    if ex in ("20-fourth-digit-row", "21-stripe-row"):  # the keys 0 … row only
        weights = weights[:row + 1]
    return {k: v for k, v in (("scaled", scaled), ("weights", weights), ("most", most)) if k in PARTS[ex]}


def expect(ex, student, parts, mistake=None):
    r = grade(ex, student, parts)
    got, top = r["score"], r["max_score"]
    named = [p.get("mistake", {}).get("id") for p in r["exercises"][0]["parts"]]
    if mistake is None:
        check(got == top and top > 0, "%s/%s: the right answer scores %s of %s: %s" % (ex, student, got, top, r["exercises"][0]["parts"]))
    else:  # "": wrong, with no catalogued mistake to name
        check(got < top, "%s/%s: the %s answer scores less than full (%s of %s)" % (ex, student, mistake or "wrong", got, top))
        check(mistake in named or not mistake, "%s/%s: the mistake %s is named (found %s)" % (ex, student, mistake, named))


# (exercise, checkpoint, query row, how the sequence goes on, wrong answers: mistake → (checkpoint, layer, head))
CASES = [
    ("20-first-digit-row", "sort8", 7, None, {"head_counted_from_0": ("sort8", 1, 1), "other_checkpoint": ("sort8-100", 0, 0)}),
    ("20-fourth-digit-row", "sort8", 10, "greedy", {"head_counted_from_0": ("sort8", 1, 1)}),
    ("22-step-100-row", "sort8-100", 7, None, {"other_checkpoint": ("sort8", 0, 0)}),
    ("22-step-2000-row", "sort8", 7, None, {"other_checkpoint": ("sort8-100", 0, 0)}),
    # Lesson 21's induction model has one head a layer and one checkpoint: the wrong head
    # read is the other layer's (no catalogued mistake: fewer points, none named).
    ("21-stripe-row", "induction", 15, "repeat", {"": ("induction", 0, 0)}),
    ("21-previous-row", "induction", 15, "repeat", {"": ("induction", 1, 0)}),
]
LAYER = {"21-stripe-row": 1}  # the head each exercise asks for, when not layer 1, head 1

seen = {}
for ex, model, row, then, wrong in CASES:
    for student in ("alice", "bob"):
        toks = tokens(ex, student)
        seen[(ex, student)] = toks
        if then == "greedy":  # eight drawn digits, then what the model writes: its sorted copy
            check(len(toks) == 15 and toks[8:] == mh.greedy(model, toks[:8], 15)[8:] and toks[8:] == sorted(toks[:8])[:7],
                  "%s/%s: the input %s is eight digits and their sorted copy" % (ex, student, toks))
        elif then == "repeat":  # BOS kept, ten tokens drawn from 1 … 21, the same ten again
            check(len(toks) == 21 and toks[0] == 0 and toks[11:] == toks[1:11] and all(1 <= t <= 21 for t in toks[1:]),
                  "%s/%s: the input %s is BOS, ten tokens and the same ten" % (ex, student, toks))
        else:
            check(len(toks) == 8 and all(0 <= t <= 5 for t in toks), "%s/%s: eight digits of 0 … 5, found %s" % (ex, student, toks))
        layer = LAYER.get(ex, 0)
        expect(ex, student, answers(ex, model, toks, layer, 0, row))
        for mistake, (m2, l2, h2) in wrong.items():
            expect(ex, student, answers(ex, m2, toks, l2, h2, row), mistake)
    check(seen[(ex, "alice")] != seen[(ex, "bob")], "%s: two students get different inputs (%s)" % (ex, seen[(ex, "alice")]))
    # Alice's right answer is not Bob's: graded for Bob, it is wrong.
    r = grade(ex, "bob", answers(ex, model, seen[(ex, "alice")], LAYER.get(ex, 0), 0, row))
    check(r["score"] < r["max_score"], "%s: alice's answer handed in by bob is not full marks" % ex)

# The column of the query's key instead of its row (the weights transposed): named.
toks = seen[("20-first-digit-row", "alice")]
column = [mh.head_row("sort8", toks, 0, 0, r)[1][7] for r in range(8)]
expect("20-first-digit-row", "alice", {"weights": column}, "weights_transposed")
# sort8's scores not divided by √16 are named too.
unscaled = [4 * x for x in mh.head_row("sort8", toks, 0, 0, 7)[0]]
expect("20-first-digit-row", "alice", {"scaled": unscaled}, "no_scaling")

# Lesson 22's two steps share the student's input (same_input_as), and so do lesson 21's two heads.
for student in ("alice", "bob"):
    check(seen[("22-step-100-row", student)] == seen[("22-step-2000-row", student)],
          "22: %s's input is the same at step 100 and 2,000" % student)
    check(seen[("21-stripe-row", student)] == seen[("21-previous-row", student)],
          "21: %s's input is the same for both heads" % student)

# Lesson 21's block holds no token twice, so the copy has one earlier key to follow (the
# hint's rule names the key the grader wants).
for student in ("alice", "bob"):
    block = seen[("21-stripe-row", student)][1:11]
    check(len(set(block)) == len(block), "21: %s's block repeats a token: %s" % (student, block))

# Lesson 21: the induction head's weights transposed (its column for its row) are named;
# the previous-token head's scores not divided by √64 are too.
toks = seen[("21-stripe-row", "alice")]
column = [mh.head_row("induction", toks, 1, 0, r)[1][15] if r >= 15 else 0.0 for r in range(16)]
expect("21-stripe-row", "alice", {"weights": column}, "weights_transposed")
unscaled = [8 * s for s in mh.head_row("induction", toks, 0, 0, 15)[0]]
expect("21-previous-row", "alice", {"scaled": unscaled}, "no_scaling")

# A lesson file's mistakes in these keys are reported at their place (exit 2).
lesson20 = open(os.path.join(ROOT, "lessons", "20-learned-to-sort.toml"), encoding="utf-8").read()
EXERCISE = 'points = 3\nmodel = "sort8"\ntokens = "3 0 5 2 0 4 1 3"\nlayer = 0\nhead = 0\n'  # 20-first-digit-row's keys
BAD = [('model = "sort8"', 'model = "sortt"', "no built-in model 'sortt'"),
       ('tokens = "3 0 5 2 0 4 1 3"', 'tokens = "3 0 7 2 0 4 1 3"', "token ids from 0 to 5"),
       ('layer = 0', 'layer = 3', "'layer'"),
       ('head = 0', 'head = 3 # counted from 0', "'head'")]
at = lesson20.index(EXERCISE)
for old, new, said in BAD:
    folder = tempfile.mkdtemp(dir=tmp)
    path = os.path.join(folder, "20-learned-to-sort.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(lesson20[:at] + EXERCISE.replace(old, new) + lesson20[at + len(EXERCISE):])
    p = subprocess.run([ATTN, "lesson", "check", path], capture_output=True, text=True)
    line = lesson20[:at + EXERCISE.index(old)].count("\n") + 1
    said_all = p.stdout + p.stderr
    check(p.returncode == 2 and ("20-learned-to-sort.toml:%d:" % line) in said_all and said in said_all,
          "lesson check of %s: exit %d, line %d, %r in %r" % (new, p.returncode, line, said, said_all))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok: lessons 20, 21 and 22's variants graded against PyTorch for two students")
