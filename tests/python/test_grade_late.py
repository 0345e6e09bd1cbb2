#!/usr/bin/env python3
"""tests/python/test_grade_late.py — an assignment's late policy (issue 36, Build 6): [late]
with a due date, a deduction per started day or hour (a percent of the points possible),
a floor, and per-student extensions from a CSV; submission times from a CSV
(--submitted-at) or Gradescope's metadata (created_at). Every score before and after,
every hour late, is recomputed here with Python's datetime from the hand-made class's
answers (choice and shape parts whose points the test knows) — never read back from attn.
Checked in the gradebook, the class JSON, the Canvas and Moodle files, the text report
and Gradescope's results.json; and bad dates and CSVs refused at file:line:col, exit 2,
with nothing written.
"""
import csv
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

attn = os.environ.get("ATTN_BIN", "build/attn")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, cwd=None):
    return subprocess.run([attn, *args], capture_output=True, text=True, cwd=cwd)


def when(text):
    return datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace(" ", "T", 1))


# The assignment: 02-spread (4 points), 04-qkv-from (3 parts, 1 point each), 05-fr-shape (3).
RIGHT = {"spread": "√d", "Q": "target", "K": "source", "V": "source", "shape": "3 × 5"}
WRONG = {"spread": "d", "Q": "source", "K": "target", "V": "target", "shape": "5 × 3"}
POINTS = {"spread": 4, "Q": 1, "K": 1, "V": 1, "shape": 3}
MAX = 10
DUE = "2026-03-01T23:59:00Z"
EXTENSIONS = {"eve": "2026-03-04T12:00:00+01:00"}


def answers(right):
    a = {k: (RIGHT[k] if k in right else WRONG[k]) for k in POINTS}
    return {"02-spread": a["spread"], "04-qkv-from": {"Q": a["Q"], "K": a["K"], "V": a["V"]}, "05-fr-shape": a["shape"]}


def expected(student, right, submitted, per_hour, deduction, floor):
    """(before, after, hours late, deduction) by the policy, from scratch."""
    before = sum(POINTS[k] for k in right)
    if submitted is None:
        return before, before, None, 0
    due = when(EXTENSIONS.get(student, DUE))
    late = when(submitted) - due
    if late <= timedelta(0):
        return before, before, 0.0, 0
    period = timedelta(hours=1) if per_hour else timedelta(days=1)
    periods = math.ceil(late / period)
    after = max(before - periods * deduction / 100 * MAX, min(before, floor / 100 * MAX))
    return before, after, late.total_seconds() / 3600, before - after


# name: (parts right, submitted at or None)
ALL = set(POINTS)
CLASS = {
    "ana": (ALL, "2026-03-01T22:00:00Z"),                    # on time
    "ben": (ALL, "2026-03-02T00:59:00+01:00"),               # exactly at the due date: on time
    "cara": (ALL, "2026-03-02T00:00:00.5Z"),                 # a minute and a half-second late: a whole day
    "dan": ({"spread", "Q"}, "2026-03-03T23:59:00Z"),        # 48 hours: 2 days; 5 − 2 = 3, floor 4
    "eli": (set(), "2026-03-11T23:59:00Z"),                  # 0 stays 0 (the floor never raises)
    "eve": (ALL, "2026-03-04 11:30:00+00:00"),               # extension to 11:00Z: half an hour late
    "fay": ({"Q", "K", "V"}, "2026-03-20T00:00:00Z"),        # 3 is below the floor: stays 3
    "gus": ({"spread"}, None),                               # no time: not counted late, noted
    "hal": ({"spread", "Q", "K", "V"}, "2026-03-02T10:00:00-05:00"),  # 15 h late: 1 day, 7 → 6
}
rng = random.Random(36)
base = when(DUE)
for n in range(25):  # and a random class around the due date, in several zones
    right = {k for k in POINTS if rng.random() < 0.6}
    t = base + timedelta(seconds=rng.randrange(-3 * 86400, 6 * 86400))
    zone = timezone(timedelta(minutes=rng.choice([-300, 0, 60, 330])))
    CLASS["r%02d" % n] = (right, t.astimezone(zone).isoformat())


def policy(per, deduction, floor, extensions="ext.csv", due='"' + DUE + '"'):
    return (
        'title = "Week 3"\n[late]\ndue = ' + due + '\nper = "' + per + '"\ndeduction = ' + str(deduction) + "\nfloor = " +
        str(floor) + ("\nextensions = \"" + extensions + '"' if extensions else "") +
        '\n[[exercise]]\nid = "02-spread"\npoints = 4\n[[exercise]]\nid = "04-qkv-from"\npoints = 3\n'
        '[[exercise]]\nid = "05-fr-shape"\npoints = 3\n')


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def check_class(d, per, deduction, floor):
    write(os.path.join(d, "a.toml"), policy(per, deduction, floor))
    tag = f"per {per} {deduction}% floor {floor}%"
    p = run("grade", "--class", "class", "--assignment", "a.toml", "--submitted-at", "times.csv", "--gradebook", "book.csv",
            "--canvas", "canvas.csv", "--moodle", "moodle.csv", "--lms-column", "Week 3", "--format", "json", cwd=d)
    check(p.returncode == 0, f"{tag}: grade --class exits {p.returncode}: {p.stderr[:300]}")
    if p.returncode:
        return
    book = {r["student"]: r for r in csv.DictReader(open(os.path.join(d, "book.csv"), encoding="utf-8"))}
    js = {s["student"]: s for s in json.loads(p.stdout)["students"]}
    canvas = {r[3]: r[5] for r in csv.reader(open(os.path.join(d, "canvas.csv"), encoding="utf-8"))}
    moodle = {r[0]: r[1] for r in csv.reader(open(os.path.join(d, "moodle.csv"), encoding="utf-8"))}
    for s, (right, t) in CLASS.items():
        before, after, hours, ded = expected(s, right, t, per == "hour", deduction, floor)
        row, j = book.get(s), js.get(s)
        check(row is not None and j is not None, f"{tag}: {s} is in the gradebook and the JSON")
        if row is None or j is None:
            continue
        check(abs(float(row["total"]) - after) < 0.006, f"{tag}: {s} total {row['total']}, expected {after}")
        check(abs(float(canvas[s]) - after) < 0.006 and abs(float(moodle[s]) - after) < 0.006,
              f"{tag}: {s} in Canvas {canvas[s]} / Moodle {moodle[s]}, expected {after}")
        check(abs(j["score"] - after) < 1e-6, f"{tag}: {s} JSON score {j['score']}, expected {after}")
        if hours is None:
            check(row["before_late"] == "" and "late" not in j and "no submission time" in row["notes"],
                  f"{tag}: {s} has no time: {row}")
            continue
        check(abs(float(row["before_late"]) - before) < 0.006, f"{tag}: {s} before_late {row['before_late']}, expected {before}")
        check(abs(float(row["hours_late"]) - hours) < 0.006, f"{tag}: {s} hours_late {row['hours_late']}, expected {hours:.4f}")
        check(abs(float(row["late_deduction"]) - ded) < 0.006, f"{tag}: {s} deduction {row['late_deduction']}, expected {ded}")
        late = j.get("late", {})
        check(abs(late.get("score_before", -1) - before) < 1e-6 and abs(late.get("score_after", -1) - after) < 1e-6 and
              abs(late.get("hours_late", -1) - hours) < 1e-5 and abs(late.get("deduction", -1) - ded) < 1e-6,
              f"{tag}: {s} JSON late {late}, expected {before} → {after}, {hours} h")
        check(late.get("extended") == (s in EXTENSIONS), f"{tag}: {s} extended {late.get('extended')}")
    late = [expected(s, right, t, per == "hour", deduction, floor) for s, (right, t) in CLASS.items()]
    late = [e for e in late if e[2] is not None and e[2] > 0]
    p = run("grade", "--class", "class", "--assignment", "a.toml", "--submitted-at", "times.csv", "--gradebook", "book2.csv", cwd=d)
    said = re.search(r"^Late: (\d+) submissions?, ([\d.]+) points deducted in all", p.stdout, re.M)
    check(said and int(said.group(1)) == len(late) and abs(float(said.group(2)) - sum(e[3] for e in late)) < 0.006,
          f"{tag}: the summary's late line {said and said.group(0)}, expected {len(late)} and {sum(e[3] for e in late):.2f}")
    possible = [r for r in csv.reader(open(os.path.join(d, "canvas.csv"), encoding="utf-8")) if r[0].strip() == "Points Possible"]
    check(len(possible) == 1 and possible[0][5] == str(MAX), f"{tag}: canvas.csv's Points Possible row: {possible}")


def check_errors(d):
    """Bad dates and CSVs: file:line:col, exit 2, no gradebook written."""
    cases = [
        ("times", "student,submitted_at\nana,2026-03-01T10:00:00Z\nben,tomorrow\n", "times_bad.csv:3:5:", "time zone"),
        ("times", "student,submitted_at\nana,2026-03-01T10:00:00\n", "times_bad.csv:2:5:", "time zone"),
        ("times", "student,submitted_at\nana,2026-02-30T10:00:00Z\n", "times_bad.csv:2:5:", "no such date"),
        ("times", "student,submitted_at\nana,2026-03-01T10:00Z\nana,2026-03-01T11:00Z\n", "times_bad.csv:3:1:", "listed twice"),
        ("times", "name,when\nana,2026-03-01T10:00Z\n", "times_bad.csv:1:1:", "student,submitted_at"),
        ("ext", "student,due\nbob,2026-13-01T10:00Z\n", "ext_bad.csv:2:5:", "no such date"),
        ("due", '"next Friday"', "a_bad.toml:3:7:", "time zone"),
        ("due", "2026-03-01T23:59:00", "a_bad.toml:3:7:", "time zone"),
        ("due", "2026-03-01", "a_bad.toml:3:7:", "date and time"),
    ]
    for n, (what, text, where, words) in enumerate(cases):
        times, ext, due = "times.csv", "ext.csv", '"' + DUE + '"'
        if what == "times":
            write(os.path.join(d, "times_bad.csv"), text)
            times = "times_bad.csv"
        elif what == "ext":
            write(os.path.join(d, "ext_bad.csv"), text)
            ext = "ext_bad.csv"
        else:
            due = text
        write(os.path.join(d, "a_bad.toml"), policy("day", 10, 40, ext, due))
        book = os.path.join(d, "bad_book_%d.csv" % n)
        p = run("grade", "--class", "class", "--assignment", "a_bad.toml", "--submitted-at", times, "--gradebook", book, cwd=d)
        check(p.returncode == 2 and where in p.stderr and words in p.stderr,
              f"case {n} ({what} {text!r}): exit {p.returncode}, expected 2 with {where} and '{words}': {p.stderr.strip()[:300]}")
        check(not os.path.exists(book), f"case {n}: a gradebook was written")
    write(os.path.join(d, "a.toml"), policy("day", 10, 40))
    p = run("grade", "--class", "class", "--assignment", "a.toml", "--gradebook", "x.csv", cwd=d)
    check(p.returncode == 2 and "--submitted-at" in p.stderr, f"a late policy without times: {p.returncode} {p.stderr[:200]}")
    write(os.path.join(d, "plain.toml"), policy("day", 10, 40).split("[late]")[0] + policy("day", 10, 40).split("ext.csv\"\n")[1])
    p = run("grade", "--class", "class", "--assignment", "plain.toml", "--submitted-at", "times.csv", "--gradebook", "x.csv", cwd=d)
    check(p.returncode == 2 and "[late]" in p.stderr, f"--submitted-at without [late]: {p.returncode} {p.stderr[:200]}")
    for bad, words in (("deduction = 10", "deduction = 0"), ('per = "day"', 'per = "week"'), ("floor = 40", "floor = 140")):
        write(os.path.join(d, "a_bad.toml"), policy("day", 10, 40).replace(bad, words))
        p = run("grade", "--class", "class", "--assignment", "a_bad.toml", "--submitted-at", "times.csv", "--gradebook", "x.csv", cwd=d)
        check(p.returncode == 2 and "a_bad.toml:" in p.stderr, f"[late] {words}: exit {p.returncode}: {p.stderr[:200]}")
    with open(os.path.join(d, "times16.csv"), "wb") as f:
        f.write("student,submitted_at\nana,2026-03-01T10:00Z\n".encode("utf-16-le"))
    p = run("grade", "--class", "class", "--assignment", "a.toml", "--submitted-at", "times16.csv", "--gradebook", "x.csv", cwd=d)
    check(p.returncode == 2 and "times16.csv" in p.stderr and "UTF-8" in p.stderr, f"UTF-16 times: {p.returncode} {p.stderr[:200]}")
    with open(os.path.join(d, "times16bom.csv"), "wb") as f:  # with a byte-order mark: read
        f.write("student,submitted_at\r\nana,2026-03-01T10:00Z\r\n".encode("utf-16"))
    p = run("grade", "--class", "class", "--assignment", "a.toml", "--submitted-at", "times16bom.csv", "--gradebook", "y.csv", cwd=d)
    check(p.returncode == 0, f"UTF-16 times with a byte-order mark: {p.returncode} {p.stderr[:200]}")
    check(not os.path.exists(os.path.join(d, "x.csv")), "a refused run wrote x.csv")


def check_one_and_gradescope(d):
    write(os.path.join(d, "a.toml"), policy("day", 10, 40))
    p = run("grade", os.path.join("class", "hal.json"), "--student", "hal", "--assignment", "a.toml", "--submitted-at",
            "times.csv", cwd=d)
    text = " ".join(p.stdout.split())  # the report wraps its lines
    check(p.returncode == 0 and "Late policy: 15.02 hours late" in text and "7 − 1 = 6" in text and "Total 6 / 10" in text, f"the text report shows the late deduction: {p.stdout[-400:]} {p.stderr[:200]}")
    sub = os.path.join(d, "gs", "submission")
    os.makedirs(sub)
    write(os.path.join(sub, "answers.json"), json.dumps(answers(CLASS["hal"][0])))
    meta = os.path.join(d, "gs", "submission_metadata.json")
    write(meta, json.dumps({"created_at": "2026-03-02T10:00:00.365935-05:00", "users": [{"sid": "hal", "email": "", "id": 7}],
                            "previous_submissions": []}))
    res = os.path.join(d, "gs", "results.json")
    p = run("grade", "--gradescope", "--submission", sub, "--metadata", meta, "--results", res, "--assignment", "a.toml", cwd=d)
    check(p.returncode == 0, f"gradescope run exits {p.returncode}: {p.stderr[:300]}")
    if os.path.exists(res):
        r = json.load(open(res))
        before, after, hours, _ = expected("hal", CLASS["hal"][0], "2026-03-02T10:00:00.365935-05:00", False, 10, 40)
        check(abs(r["score"] - after) < 1e-6, f"Gradescope score {r['score']}, expected {after}")
        check(abs(sum(t["score"] for t in r["tests"]) - before) < 1e-6, "Gradescope's tests keep the points earned")
        check(f"{hours:.2f} hours late" in r["output"] and "Late policy" in r["output"], f"Gradescope output: {r['output']}")


with tempfile.TemporaryDirectory() as d:
    os.mkdir(os.path.join(d, "class"))
    times = ["student,submitted_at"]
    for s, (right, t) in CLASS.items():
        write(os.path.join(d, "class", s + ".json"), json.dumps(answers(right)))
        if t is not None:
            times.append(f"{s},{t}")
    write(os.path.join(d, "times.csv"), "\n".join(times) + "\n")
    write(os.path.join(d, "ext.csv"), "student,due\n" + "".join(f"{s},{t}\n" for s, t in EXTENSIONS.items()))
    check_class(d, "day", 10, 40)
    check_class(d, "hour", 2.5, 0)
    check_class(d, "day", 100, 25)
    check_errors(d)
    check_one_and_gradescope(d)

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
