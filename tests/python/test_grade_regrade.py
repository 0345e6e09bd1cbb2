#!/usr/bin/env python3
"""tests/python/test_grade_regrade.py — `attn grade --class DIR --regrade OLD.json` (issue 36,
Build 6): a class graded once (class JSON), then again after a teacher changed the key of a
choice (in a copy of the lessons), the tolerance of a numeric exercise, the late policy's
deduction, reviewed an open answer, one student resubmitted, one left and one joined.
Which parts moved, from what to what, and why, and every total, are computed here from the
points the test set — never read back from attn's first run. The list is the same bytes on
a second run; a file that is not a class JSON is refused with exit 2, nothing written.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

attn = os.environ.get("ATTN_BIN", "build/attn")
src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
lessons = os.environ.get("ATTN_LESSONS_DIR", os.path.join(src, "lessons"))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


SPREAD, SCALE, OPEN = 4, 2, 2  # the assignment's points
MAX = SPREAD + SCALE + OPEN
DUE = "2026-03-01T23:59:00Z"


def assignment(deduction):
    return (f'[late]\ndue = "{DUE}"\nper = "day"\ndeduction = {deduction}\n'
            f'[[exercise]]\nid = "02-spread"\npoints = {SPREAD}\n[[exercise]]\nid = "01-scale"\npoints = {SCALE}\n'
            f'[[exercise]]\nid = "09-data-dependent"\npoints = {OPEN}\n')


# student: (spread choice, scale answer, submitted at) — the scale's right answer is √d_k = 2.
OLD = {"ana": ("√d", 2.05, "2026-03-01T20:00:00Z"), "ben": ("d", 2.0, "2026-03-03T05:59:00Z"),
       "cara": ("√d", 2.0, "2026-03-01T20:00:00Z"), "dan": ("1", 3.0, "2026-03-01T20:00:00Z"),
       "eve": ("√d", 2.0, "2026-03-01T20:00:00Z")}
NEW = dict(OLD)
NEW["cara"] = ("1", 2.0, OLD["cara"][2])   # resubmitted
del NEW["eve"]                             # left the class
NEW["fay"] = ("d", 2.0, "2026-03-01T20:00:00Z")  # joined


def score(answers, key, atol, deduction, reviewed):
    """(parts, total) by hand: the choice against the key, |a − 2| ≤ atol, the review, days late."""
    out = {}
    for s, (spread, scale, t) in answers.items():
        parts = {"02-spread": SPREAD if spread == key else 0, "01-scale": SCALE if abs(scale - 2.0) <= atol + 1e-12 else 0,
                 "09-data-dependent": reviewed.get(s, 0)}
        raw = sum(parts.values())
        hours = (int(t[8:10]) - 1) * 24 + int(t[11:13]) + int(t[14:16]) / 60 - (23 + 59 / 60)  # all in March 2026, Z
        days = 0 if hours <= 0 else int(-(-hours // 24))
        late = min(raw, days * deduction / 100 * MAX)
        out[s] = (parts, raw - late, late)
    return out


def run(*args, cwd, env):
    return subprocess.run([attn, *args], capture_output=True, text=True, cwd=cwd, env=env)


def hand_in(d, answers):
    cls = os.path.join(d, "class")
    shutil.rmtree(cls, ignore_errors=True)
    os.mkdir(cls)
    for s, (spread, scale, _) in answers.items():
        write(os.path.join(cls, s + ".json"), json.dumps({"02-spread": spread, "01-scale": scale,
                                                          "09-data-dependent": f"{s}'s worksheet answer"}))
    write(os.path.join(d, "times.csv"), "student,submitted_at\n" + "".join(f"{s},{t}\n" for s, (_, _, t) in answers.items()))


with tempfile.TemporaryDirectory() as d:
    env = dict(os.environ)
    env["ATTN_LESSONS_DIR"] = os.path.join(d, "lessons")
    shutil.copytree(lessons, env["ATTN_LESSONS_DIR"])
    hand_in(d, OLD)
    write(os.path.join(d, "a.toml"), assignment(10))
    p = run("grade", "--class", "class", "--assignment", "a.toml", "--submitted-at", "times.csv", "--gradebook", "old.csv",
            "--review-sheet", "sheet.csv", "--format", "json", cwd=d, env=env)
    check(p.returncode == 0, f"the first grading exits {p.returncode}: {p.stderr[:300]}")
    write(os.path.join(d, "old.json"), p.stdout)
    old = score(OLD, "√d", 0.001, 10, {})

    # The teacher's changes: the key of 02-spread, the tolerance of 01-scale, the deduction,
    # a review of ana's open answer, and the class itself (cara resubmits, eve leaves, fay joins).
    l02 = os.path.join(env["ATTN_LESSONS_DIR"], "02-why-scale.toml")
    text = open(l02, encoding="utf-8").read()
    text = text.replace('choices = ["1", "√d", "d", "d²"]\nanswer = "√d"', 'choices = ["1", "√d", "d", "d²"]\nanswer = "d"')
    text = text.replace('id = "variance-for-spread"\nanswer = "d"', 'id = "variance-for-spread"\nanswer = "d²"')
    write(l02, text)
    l01 = os.path.join(env["ATTN_LESSONS_DIR"], "01-self-attention.toml")
    text = open(l01, encoding="utf-8").read()
    head, tail = text.split('id = "01-scale"', 1)
    check("rtol = 0.0\natol = 0.001" in tail.split("[[exercise]]")[0], "01-scale's tolerance is where the test edits it")
    write(l01, head + 'id = "01-scale"' + tail.replace("rtol = 0.0\natol = 0.001", "rtol = 0.0\natol = 0.1", 1))
    write(os.path.join(d, "a.toml"), assignment(20))
    rows = list(csv.DictReader(open(os.path.join(d, "sheet.csv"), encoding="utf-8")))
    with open(os.path.join(d, "reviews.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            if r["student"] == "ana":
                r["points"], r["comment"] = "1", "half of it"
            if r["student"] in NEW:
                w.writerow(r)
    hand_in(d, NEW)
    new = score(NEW, "d", 0.1, 20, {"ana": 1})

    args = ["grade", "--class", "class", "--assignment", "a.toml", "--submitted-at", "times.csv", "--gradebook", "new.csv",
            "--reviews", "reviews.csv", "--regrade", "old.json"]
    p = run(*args, "--format", "json", cwd=d, env=env)
    check(p.returncode == 0, f"the regrade exits {p.returncode}: {p.stderr[:300]}")
    rg = json.loads(p.stdout)["regrade"] if p.returncode == 0 else {"students": [], "no_longer_in_class": []}
    got = {e["student"]: e for e in rg["students"]}

    expected = {}
    for s in NEW:
        if s not in OLD:
            expected[s] = {("", "", "new")}
            continue
        changes = set()
        for ex in ("02-spread", "01-scale", "09-data-dependent"):
            if old[s][0][ex] != new[s][0][ex]:
                why = ("answer" if OLD[s][:2] != NEW[s][:2] and ex == "02-spread" else
                       {"02-spread": "key", "01-scale": "tolerance", "09-data-dependent": "review"}[ex])
                changes.add((ex, "answer", why))
        if abs(old[s][2] - new[s][2]) > 1e-9:
            changes.add(("", "", "late policy"))
        if changes:
            expected[s] = changes
    check(set(got) == set(expected), f"students listed {sorted(got)}, expected {sorted(expected)}")
    for s, want in expected.items():
        e = got.get(s)
        if not e:
            continue
        have = {(c["exercise"], c["part"], c["why"]) for c in e["changes"]}
        check(have == want, f"{s}: changes {sorted(have)}, expected {sorted(want)}")
        check(abs(e["after"] - new[s][1]) < 1e-6, f"{s}: after {e['after']}, expected {new[s][1]}")
        if s in OLD:
            check(abs(e["before"] - old[s][1]) < 1e-6, f"{s}: before {e['before']}, expected {old[s][1]}")
        for c in e["changes"]:
            if c["why"] == "late policy":
                check(abs(c["before"] - old[s][2]) < 1e-6 and abs(c["after"] - new[s][2]) < 1e-6,
                      f"{s}: deducted {c['before']} → {c['after']}, expected {old[s][2]} → {new[s][2]}")
            elif c["exercise"]:
                check(abs(c["before"] - old[s][0][c["exercise"]]) < 1e-6 and abs(c["after"] - new[s][0][c["exercise"]]) < 1e-6,
                      f"{s} {c['exercise']}: {c['before']} → {c['after']}")
            if c["why"] == "tolerance":
                check(c["detail"] == "rtol 0, atol 0.001 → rtol 0, atol 0.1", f"{s}: tolerance detail {c['detail']!r}")
    check(rg["no_longer_in_class"] == ["eve"], f"no longer in the class: {rg['no_longer_in_class']}")

    # Text, twice: the same bytes; what it says for ana.
    t1 = run(*args, cwd=d, env=env)
    t2 = run(*args, cwd=d, env=env)
    check(t1.returncode == 0 and t1.stdout == t2.stdout, "the regrade text is the same on a second run")
    check("Regrade against old.json: 4 of 5 students changed" in t1.stdout, f"the regrade's head: {t1.stdout[-900:]}")
    check("02-spread answer: 4 → 0 (key:" in t1.stdout and "eve  no longer in the class" in t1.stdout,
          f"the regrade's lines: {t1.stdout[-900:]}")

    # Not a class JSON: exit 2, the file named, no gradebook.
    write(os.path.join(d, "broken.json"), '{"students": [')
    write(os.path.join(d, "other.json"), '{"score": 3}')
    for bad in ("broken.json", "other.json", "missing.json"):
        p = run("grade", "--class", "class", "--assignment", "a.toml", "--submitted-at", "times.csv", "--gradebook", "bad.csv",
                "--regrade", bad, cwd=d, env=env)
        check(p.returncode == 2 and bad in p.stderr, f"--regrade {bad}: exit {p.returncode}: {p.stderr[:200]}")
        check(not os.path.exists(os.path.join(d, "bad.csv")), f"--regrade {bad}: a gradebook was written")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
