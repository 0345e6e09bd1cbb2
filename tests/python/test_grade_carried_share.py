#!/usr/bin/python3
"""tests/python/test_grade_carried_share.py — a part carried from the student's own earlier
numbers says the share of its points it actually earns (lessons/README.md, "Fair credit").

Carried credit is 50% of a part's points, but beside a named mistake the exercise's cost is
shared among the parts that are not right, so a carried part can earn another fraction: on
03-causal-cat with the mask applied after the softmax the right masked scores keep their point
and the weights and output share 0.5 of their 2, so the output (carried from the student's own
weights) earns 25%. Before, its feedback said "50% of this part's points". Every answer is
computed here by NumPy from the inputs `attn exercise show` prints; every part whose feedback
states a percentage of its points must state round(100 · score / points)."""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SECRET = os.path.join(ROOT, "tests", "fixtures", "grade", "course.secret")
EX, STUDENT = "03-causal-cat", "alice"
SAID = re.compile(r"(\d+)% of this part's points")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def show():
    p = subprocess.run([ATTN, "exercise", "show", EX, "--format", "json", "--student", STUDENT, "--secret-file", SECRET],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        sys.exit("exercise show: " + p.stderr[:300])
    return json.loads(p.stdout)


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def grade(answer, tmp):
    path = os.path.join(tmp, "answer-%d.json" % len(os.listdir(tmp)))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({EX: answer}, f)
    p = subprocess.run([ATTN, "grade", path, "--student", STUDENT, "--format", "json", "--secret-file", SECRET],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "grade exit %d: %s" % (p.returncode, p.stderr[:300]))
    return json.loads(p.stdout)["exercises"][0]["parts"]


def main():
    j = show()
    inp = j["inputs"]
    q, k, v = (np.array(inp[n], dtype=float) for n in ("q", "k", "v"))
    attend = np.array(inp["mask_attend"], dtype=bool)
    parts = j["parts"]

    def answer(masked, weights):
        st = {"masked": masked, "weights": weights, "output": weights @ v}
        return {p["id"]: [[("-inf" if np.isneginf(x) else float(x)) for x in row] for row in st[p["stage"]][p["rows"]]]
                for p in parts}

    scaled = q @ k.T / np.sqrt(q.shape[1])
    right = np.where(attend, scaled, -np.inf)
    unscaled = np.where(attend, q @ k.T, -np.inf)
    row = parts[0]["rows"][0]
    slip = right.copy()  # one visible score of the asked row off by 0.5: a genuine attempt, no mistake named
    slip[row, int(np.flatnonzero(attend[row])[0])] += 0.5
    cases = (  # (what, masked, weights, {part: the share it earns})
        ("mask after the softmax", right, softmax(scaled) * attend, {"masked": 1.0, "weights": 0.25, "output": 0.25}),
        ("no scaling all through", unscaled, softmax(unscaled), {"masked": 0.5, "weights": 0.5, "output": 0.5}),
        ("one score slipped", slip, softmax(slip), {"weights": 0.5, "output": 0.5}),
    )
    with tempfile.TemporaryDirectory(prefix="attn-carried-") as tmp:
        for what, masked, weights, shares in cases:
            graded = {p["id"]: p for p in grade(answer(masked, weights), tmp)}
            carried = 0
            for pid, p in graded.items():
                said = SAID.findall(p.get("feedback", ""))
                if pid in shares:
                    check(abs(p["score"] - shares[pid] * p["max_score"]) < 1e-9,
                          "%s: %s earns %s of %s, expected %s of it" % (what, pid, p["score"], p["max_score"], shares[pid]))
                if p.get("status") == "carried":
                    carried += 1
                    check(said, "%s: the carried part %s does not say its share: %s" % (what, pid, p.get("feedback")))
                for pct in said:
                    check(int(pct) == round(100 * p["score"] / p["max_score"]),
                          "%s: %s says %s%% of its points but earns %s of %s: %s"
                          % (what, pid, pct, p["score"], p["max_score"], p.get("feedback")))
            check(carried > 0, "%s: no part carried: %s" % (what, json.dumps(graded)[:400]))
            print("%s: %s" % (what, {pid: (p["score"], SAID.findall(p.get("feedback", ""))) for pid, p in graded.items()}))
    if failures:
        sys.exit("%d failure(s)" % len(failures))
    print("ok: every carried part says the share of its points it earns")


if __name__ == "__main__":
    main()
