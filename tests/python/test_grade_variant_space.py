#!/usr/bin/env python3
"""tests/python/test_grade_variant_space.py — variants that don't collide (issue 36, Build 1):
in a class of 10,000, at most 1% of the students may share their numbers with a classmate
(a copy from such a classmate scores 100% and cannot be flagged). For every per-student
exercise of lessons 01–19 and 24–26 (lessons 20–23: computed by test_grade_variant_space_models.py,
counted by tools/variant-space-models, by hand: minutes), the
teacher's batch `attn exercise show ID --students ROSTER` draws the 10,000 variants under a
random secret, and the share of students whose inputs equal someone else's is counted here.

KNOWN_COLLIDING lists the exercises issue 36 measured over the limit and not yet widened:
each must still be over it (when one is fixed, the test says so and it leaves the list),
every other exercise must be within it.
"""
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shards  # noqa: E402

attn = os.environ.get("ATTN_BIN", "build/attn")
failures = []
STUDENTS = 10000
LIMIT = 0.01
MODELS = len(sys.argv) > 1 and sys.argv[1] == "models"
# Lessons 20 and 22 read the sort model of eight digits from {0, …, 5} (1,679,616 inputs) since
# issue 36; 23-rotary-row draws five story tokens of 21 (4,084,101). CTest computes the models' rates
# (test_grade_variant_space_models.py); "models" counts them over 10,000 students, by hand.
KNOWN_COLLIDING = set()


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def shared_share(path):
    keys = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            keys.append(json.dumps(json.loads(line)["inputs"], sort_keys=True))
    count = collections.Counter(keys)
    return sum(1 for k in keys if count[k] > 1) / len(keys), len(keys)


listing = subprocess.run([attn, "exercise", "list", "--width", "300"], capture_output=True, text=True, check=True).stdout
per_student = [m.group(1) for m in re.finditer(r"^  ((\d\d)-\S+)\s+\w+\s+\d+\s.*\(numbers per student\)", listing, re.M)
               if (20 <= int(m.group(2)) <= 23) == MODELS]
check(len(per_student) >= (6 if MODELS else 12), f"per-student exercises found: {per_student}")

with tempfile.TemporaryDirectory() as d:
    roster = os.path.join(d, "roster.txt")
    with open(roster, "w") as f:
        f.write("".join("student%05d@uni.edu\n" % i for i in range(STUDENTS)))
    env = dict(os.environ, ATTN_COURSE_SECRET=os.urandom(32).hex())

    def draw(ex):
        out = os.path.join(d, ex + ".jsonl")
        with open(out, "w") as f:
            p = subprocess.run([attn, "exercise", "show", ex, "--students", roster], stdout=f, stderr=subprocess.PIPE,
                               text=True, env=env)
        return ex, p.returncode, p.stderr, out

    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # CTest runs shards of the exercises (shards.py)
        for ex, code, err, out in pool.map(draw, shards.mine(per_student)):
            check(code == 0, f"{ex}: exercise show --students exits {code}: {err[:200]}")
            if code:
                continue
            share, n = shared_share(out)
            check(n == STUDENTS, f"{ex}: {n} variants drawn for {STUDENTS} students")
            print(f"{ex}: {100 * share:.2f}% of {n} students share their numbers")
            if ex in KNOWN_COLLIDING:
                check(share > LIMIT, f"{ex}: now {100 * share:.2f}% share, within the limit: take it out of KNOWN_COLLIDING")
            else:
                check(share <= LIMIT, f"{ex}: {100 * share:.2f}% of {STUDENTS} students share their numbers (limit 1%)")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
