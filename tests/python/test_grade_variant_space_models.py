#!/usr/bin/env python3
"""tests/python/test_grade_variant_space_models.py — variants that don't collide, for the
trained-model exercises of lessons 20–23 (issue 36, Build 1): in a class of 10,000 at most
1% of the students may share their input with a classmate (a copy from such a classmate
scores 100% and cannot be flagged).

Drawing 10,000 students runs a trained head for each (minutes: tools/variant-space-models
counts them by hand), so this test computes the rate instead of counting it. A model
exercise draws `drawn` tokens uniformly from its `range` (distinct ones when the block
repeats), after the lesson's first `keep`; a draw a catalogued mistake would answer right
is drawn again from the same stream, so the inputs are uniform over the accepted ones,
a share `a` of the N the range allows. Then a student shares with one of 9,999 others
with probability exactly 1 − (1 − 1/(a·N))^9,999. Here N comes from the lesson file
(read with tomllib, not attn), `a` from the redraws of a class of 300 drawn by the
teacher's batch (`attn exercise show ID --students ROSTER`: numbers.redraws), taken at
its lower 3σ bound, and the class itself is checked to be such a draw: every input of the
right length, kept tokens kept, drawn ones in the range (distinct when they repeat), each
value drawn about equally often, and no more shared inputs than the space allows.

KNOWN_COLLIDING lists the model exercises measured over the limit and not yet widened:
each must still be over it (when one is fixed, the test says so and it leaves the list)."""
import collections
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import tomllib

attn = os.environ.get("ATTN_BIN", "build/attn")
ROOT = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CLASS = 10000
SAMPLE = 300
LIMIT = 0.01
# 23-rotary-row drew one story token of 21 after BOS (21 inputs); now five (4,084,101).
KNOWN_COLLIDING = set()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def model_exercises():
    """{id: its [[exercise]] table} for every varied exercise on a trained model, lessons 20–23."""
    out = {}
    for name in sorted(os.listdir(os.path.join(ROOT, "lessons"))):
        if re.match(r"2[0-3]-.*\.toml$", name):
            with open(os.path.join(ROOT, "lessons", name), "rb") as f:
                for x in tomllib.load(f).get("exercise", []):
                    if "model" in x and "variant" in x:
                        out[x["id"]] = x
    return out


def space(x):
    """(keep, drawn, lo, hi, distinct, N): the draw a model exercise's variant makes, and how many inputs it allows."""
    v = x["variant"]
    tokens = x["tokens"].split()
    keep = v.get("keep", 0)
    drawn = v.get("drawn", 0) or len(tokens) - keep
    lo, hi = int(math.ceil(v["range"][0])), int(math.floor(v["range"][1]))
    k = hi - lo + 1
    distinct = v.get("then") == "repeat"
    n = math.perm(k, drawn) if distinct else k ** drawn
    return keep, drawn, lo, hi, distinct, n


def share_in_class(n_inputs, accepted):
    """The share of a class of CLASS students drawn uniformly from accepted·n_inputs inputs who share theirs."""
    m = accepted * n_inputs
    return 1.0 - math.exp((CLASS - 1) * math.log1p(-1.0 / m)) if m > 1 else 1.0


def check_class(ex, x, lines):
    keep, drawn, lo, hi, distinct, n = space(x)
    lesson = [int(t) for t in x["tokens"].split()]
    inputs, redraws = [], 0
    for d in lines:
        toks = d["inputs"]["model"]["tokens"]
        redraws += d["numbers"]["redraws"]
        block = toks[keep:keep + drawn]
        ok = (len(toks) == len(lesson) and toks[:keep] == lesson[:keep] and len(block) == drawn
              and all(lo <= t <= hi for t in block) and (not distinct or len(set(block)) == drawn))
        check(ok, f"{ex}: {d['student']}'s input {toks} is not the lesson's first {keep} tokens, then {drawn} "
                  f"{'distinct ' if distinct else ''}tokens from {lo} … {hi}, {len(lesson)} in all")
        inputs.append(tuple(block))
    check(len(inputs) == SAMPLE, f"{ex}: {len(inputs)} variants drawn for {SAMPLE} students")
    # Uniform over the range: every value about as often as the others (5σ of a binomial count).
    counts = collections.Counter(t for b in inputs for t in b)
    total, k = sum(counts.values()), hi - lo + 1
    mean, sd = total / k, math.sqrt(total * (1 / k) * (1 - 1 / k))
    worst = max(abs(counts.get(t, 0) - mean) for t in range(lo, hi + 1))
    check(worst <= 5 * sd + 1, f"{ex}: the drawn values are not uniform over {lo} … {hi}: {sorted(counts.items())}")
    # The accepted share of the space, at its lower 3σ bound (draws made: students + redraws).
    made = len(inputs) + redraws
    p = len(inputs) / made
    accepted = max(1e-9, p - 3 * math.sqrt(p * (1 - p) / made))
    rate = share_in_class(n, accepted)
    # The sample itself: no more students sharing than such a space gives a class of SAMPLE.
    seen = collections.Counter(inputs)
    shared = sum(1 for b in inputs if seen[b] > 1)
    expected = len(inputs) * (1.0 - math.exp((len(inputs) - 1) * math.log1p(-1.0 / max(2.0, accepted * n))))
    check(shared <= 3 + 3 * expected, f"{ex}: {shared} of {len(inputs)} students share their input, "
                                      f"a space of {accepted * n:.0f} inputs gives about {expected:.1f}")
    print(f"{ex}: {n:,} inputs, {redraws} redraws in {made} draws (accepted ≥ {accepted:.3f}): "
          f"{100 * rate:.3f}% of {CLASS:,} students would share theirs ({shared} of {len(inputs)} here)")
    if ex in KNOWN_COLLIDING:
        check(rate > LIMIT, f"{ex}: now {100 * rate:.3f}% share, within the limit: take it out of KNOWN_COLLIDING")
    else:
        check(rate <= LIMIT, f"{ex}: {100 * rate:.3f}% of {CLASS:,} students would share their input (limit 1%)")


def main():
    exercises = model_exercises()
    listing = subprocess.run([attn, "exercise", "list", "--width", "300"], capture_output=True, text=True, check=True).stdout
    per_student = [m.group(1) for m in re.finditer(r"^  ((\d\d)-\S+)\s+\w+\s+\d+\s.*\(numbers per student\)", listing, re.M)
                   if 20 <= int(m.group(2)) <= 23]
    check(len(per_student) >= 6 and set(per_student) == set(exercises),
          f"per-student model exercises: attn lists {per_student}, the lesson files {sorted(exercises)}")
    with tempfile.TemporaryDirectory() as d:
        roster = os.path.join(d, "roster.txt")
        with open(roster, "w") as f:
            f.write("".join("student%05d@uni.edu\n" % i for i in range(SAMPLE)))
        env = dict(os.environ, ATTN_COURSE_SECRET=os.urandom(32).hex())
        for ex in per_student:
            if ex not in exercises:
                continue
            p = subprocess.run([attn, "exercise", "show", ex, "--students", roster], capture_output=True, text=True, env=env)
            check(p.returncode == 0, f"{ex}: exercise show --students exits {p.returncode}: {p.stderr[:200]}")
            if p.returncode == 0:
                check_class(ex, exercises[ex], [json.loads(line) for line in p.stdout.splitlines()])
    if failures:
        sys.exit(f"{len(failures)} failure(s)")
    print("ok")


if __name__ == "__main__":
    main()
