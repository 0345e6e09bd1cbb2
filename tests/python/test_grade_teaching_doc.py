#!/usr/bin/env python3
"""tests/python/test_grade_teaching_doc.py — docs/teaching.md walks a term, and every command
in its ```sh blocks runs (issue 36, Build 5): in an empty folder, in the doc's order, with the
built attn first on PATH. Each must exit 0, and what the doc says each makes must exist: the
secret, the hand-out, the gradebook, the review sheet, the item analysis, the Canvas and
Moodle files (with the student ana in them), the late policy's columns.
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

attn = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


doc = open(os.path.join(src, "docs", "teaching.md"), encoding="utf-8").read()
blocks = re.findall(r"```sh\n(.*?)```", doc, re.S)
commands = []
for b in blocks:  # a line ending in a backslash continues on the next
    for cmd in re.sub(r"\\\n\s*", " ", b).strip().split("\n"):
        commands.append(cmd)
check(len(commands) >= 7 and sum(c.startswith("attn ") for c in commands) >= 6, f"the doc's commands: {commands}")

with tempfile.TemporaryDirectory() as d:
    bindir = os.path.join(d, "bin")
    os.mkdir(bindir)
    os.symlink(attn, os.path.join(bindir, "attn"))
    env = {k: v for k, v in os.environ.items() if k not in ("ATTN_ALLOW_GUESSABLE_SECRET", "ATTN_COURSE_SECRET")}
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    work = os.path.join(d, "term")
    os.mkdir(work)
    for cmd in commands:
        p = subprocess.run(["sh", "-c", cmd], cwd=work, env=env, capture_output=True, text=True)
        check(p.returncode == 0, f"`{cmd}` exits {p.returncode}: {p.stderr[:300]}")
        if "--regrade" in cmd:  # nothing changed since week3.json
            check("Regrade against week3.json: 0 of 1 students changed" in p.stdout, f"the regrade says: {p.stdout[-300:]}")
    for f in ("course.secret", "assignment.toml", "ana.toml", "gradebook.csv", "reviews.csv", "items.csv", "canvas.csv",
              "moodle.csv", "week3.json", "handouts/ana.toml", "handouts/bo.toml"):
        check(os.path.exists(os.path.join(work, f)), f"the doc's commands make {f}")
    if os.path.exists(os.path.join(work, "gradebook.csv")):  # the late policy of section 5: 9.5 hours, one day
        rows = list(csv.DictReader(open(os.path.join(work, "gradebook.csv"), encoding="utf-8")))
        check(len(rows) == 1 and rows[0].get("hours_late") == "9.50" and
              abs(float(rows[0]["before_late"]) - float(rows[0]["late_deduction"]) - float(rows[0]["total"])) < 0.006,
              f"gradebook.csv after the late policy: {rows}")
    if os.path.exists(os.path.join(work, "moodle.csv")):
        rows = list(csv.reader(open(os.path.join(work, "moodle.csv"), encoding="utf-8")))
        check(rows[0] == ["student", "Week 3"] and rows[1][0] == "ana", f"moodle.csv: {rows}")
    if os.path.exists(os.path.join(work, "items.csv")):
        rows = list(csv.DictReader(open(os.path.join(work, "items.csv"), encoding="utf-8")))
        check({r["exercise"] for r in rows} == {"03-causal-cat", "04-qkv-from", "09-data-dependent"}, f"items.csv: {rows}")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
