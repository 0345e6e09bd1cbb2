#!/usr/bin/python3
"""tests/python/test_grade_secrecy.py — nothing a student sees lets anyone compute a
classmate's numbers without the course secret (issue 9).

A student's numbers come from a seed = the first 8 bytes (little-endian) of BLAKE2b-256
keyed with BLAKE2b-256(secret), over "attn-variant-seed-v2\\0" + exercise + "\\0" +
student (src/grade/variant.hpp). This test recomputes the seeds independently with
Python's hashlib (anchored on the value pinned in tests/grade_variant_test.cpp), collects
everything a student is shown — the hand-out (`exercise show`, text and JSON), the
answer template, and the feedback of `grade` at every --feedback level, in text, JSON,
JUnit and Gradescope results.json — and checks that no seed (decimal or hex, any case),
no secret and no key appears in it, and that `--seed` without the secret is refused."""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SECRET = "secrecy-test-secret"
STUDENTS = ["alice", "bob"]
EXERCISES = ["01-self-cat", "03-causal-cat", "04-cross-the", "06-padded"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    else:
        print("ok  ", what)


def seed(secret, student, exercise):
    key = hashlib.blake2b(secret.encode(), digest_size=32).digest()
    msg = b"attn-variant-seed-v2\0" + exercise.encode() + b"\0" + student.encode()
    return int.from_bytes(hashlib.blake2b(msg, key=key, digest_size=32).digest()[:8], "little")


def run(*args, secret=True, ok=(0, 1)):
    env = {k: v for k, v in os.environ.items() if k != "ATTN_COURSE_SECRET"}
    if secret:
        env["ATTN_COURSE_SECRET"] = SECRET
    p = subprocess.run([ATTN, *args], capture_output=True, text=True, env=env)
    if p.returncode not in ok:
        raise AssertionError(f"attn {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.returncode, p.stdout + p.stderr


# 0. The recipe here is the product's: the value pinned in tests/grade_variant_test.cpp.
check(seed("attn-fixture-secret", "alice", "04-cross-the") == 0x00C47E95FB267810,
      "the independent BLAKE2b recipe gives the pinned seed")


def forms(n):
    """Every way a 64-bit seed could be printed: decimal, 16 hex digits, hex without
    leading zeros, and the high and low 32-bit halves in hex (8 digits)."""
    h = f"{n:016x}"
    return {str(n), h, h.lstrip("0"), h[:8], h[8:]}


with tempfile.TemporaryDirectory() as d:
    seen = {s: "" for s in STUDENTS}  # everything each student is shown
    for s in STUDENTS:
        for ex in EXERCISES:
            seen[s] += run("exercise", "show", ex, "--student", s)[1]
            seen[s] += run("exercise", "show", ex, "--student", s, "--format", "json")[1]
        seen[s] += run("exercise", "template", *EXERCISES, "--student", s)[1]
        # A wrong answer for every part (0.5 everywhere, the right shape), graded as the student.
        answers = ""
        for ex in EXERCISES:
            info = json.loads(run("exercise", "show", ex, "--student", s, "--format", "json")[1])
            answers += f'["{ex}"]\n'
            for p in info["parts"]:
                rows = len(p["rows"]) if p["rows"] else 1
                cols = len(p["cols"]) if p.get("cols") else 1
                answers += f'{p["id"]} = {[[0.5] * cols for _ in range(rows)]}\n'
        path = os.path.join(d, s + ".toml")
        open(path, "w").write(answers)
        for level in ("full", "mistakes", "score"):
            seen[s] += run("grade", path, "--student", s, "--feedback", level)[1]
            seen[s] += run("grade", path, "--student", s, "--feedback", level, "--format", "json")[1]
            seen[s] += run("grade", path, "--student", s, "--feedback", level, "--junit", "-")[1]
        # Gradescope: the submission folder, its metadata, results.json.
        sub = os.path.join(d, s + "-submission")
        os.makedirs(sub)
        open(os.path.join(sub, "answers.toml"), "w").write(answers)
        meta = os.path.join(d, s + "-metadata.json")
        json.dump({"users": [{"email": s + "@example.edu", "name": s, "sid": s}]}, open(meta, "w"))
        res = os.path.join(d, s + "-results.json")
        run("grade", "--gradescope", "--submission", sub, "--metadata", meta, "--results", res, ok=(0, 1, 2))
        seen[s] += open(res).read()

    # 1. The hand-out and the feedback showed numbers (the test looked at real output).
    for s in STUDENTS:
        check(len(seen[s]) > 5000 and "Q" in seen[s], f"{s}: hand-out and feedback collected ({len(seen[s])} characters)")
        check(re.search(r"\b[A-Z2-7]{6}\b", seen[s]) is not None, f"{s}: the variant code is shown")

    # 2. No seed of anyone, in any printed form, no secret, no key.
    key_hex = hashlib.blake2b(SECRET.encode(), digest_size=32).hexdigest()
    for s in STUDENTS:
        shown = seen[s].lower()
        for who in STUDENTS:
            for ex in EXERCISES:
                leaked = [f for f in forms(seed(SECRET, who, ex)) if len(f) >= 6 and f.lower() in shown]
                check(not leaked, f"{s} sees no form of {who}'s seed for {ex} {leaked or ''}")
        check(SECRET not in seen[s], f"{s} never sees the secret")
        check(key_hex[:16] not in shown, f"{s} never sees the key derived from the secret")

    # 3. A seed alone gives nothing without the secret: --seed is refused (exit 2).
    for n in (seed(SECRET, "bob", "04-cross-the"), 12345):
        code, out = run("exercise", "show", "04-cross-the", "--seed", hex(n), secret=False, ok=(2,))
        check(code == 2 and "secret" in out, f"--seed {hex(n)} without the secret is refused, naming the secret")

    # 4. With the secret, the teacher's --seed regenerates exactly that student's numbers.
    n = seed(SECRET, "bob", "04-cross-the")
    by_seed = json.loads(run("exercise", "show", "04-cross-the", "--seed", hex(n), "--format", "json")[1])
    by_student = json.loads(run("exercise", "show", "04-cross-the", "--student", "bob", "--format", "json")[1])
    check(by_seed["inputs"] == by_student["inputs"], "with the secret, --seed of bob's seed gives bob's numbers")

sys.exit(1 if failures else 0)
