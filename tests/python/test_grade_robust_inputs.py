#!/usr/bin/env python3
"""tests/python/test_grade_robust_inputs.py — inputs that are one student's problem, never the
class's, and input spellings attn reads (issue 36, Build 4):

- a file named "   .toml" in a class folder is its own not-gradable row ("file name"); the
  class is graded, the secret is not blamed;
- random secrets always pass the strength check: 40 draws of the recipe
  `head -c 24 /dev/urandom | base64` (and hex) from os.urandom, with no override;
- `exercise show` insists on a weak secret with --guessable-secret-ok, like `grade`;
- a blocked cell written null (attn's JSON export), "−inf" (U+2212), "-∞" or "-inf" reads as −∞,
  checked against the masked scores recomputed here with NumPy;
- an answer file in UTF-16 or UTF-32 with a byte-order mark, or with CR-only lines, reads
  like its UTF-8 twin (same score); a UTF-16 file cut mid-character is a clear error;
- a Gradescope sid holding a newline never reaches the student's output raw;
- Gradescope's per-test scores add up exactly to the total (3 parts of 1/3 point each …);
- an open answer longer than a spreadsheet cell (32,000 bytes) is reviewed through the
  review sheet: its cell carries a content hash, and the review counts for it (and not
  for a changed answer).
"""
import base64
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

attn = os.environ.get("ATTN_BIN", "build/attn")
src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []
strict_env = {k: v for k, v in os.environ.items() if k not in ("ATTN_ALLOW_GUESSABLE_SECRET", "ATTN_COURSE_SECRET")}


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, env=None):
    return subprocess.run([attn, *args], capture_output=True, env=env or os.environ)


def text(p):
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


with tempfile.TemporaryDirectory() as d:
    # Random secrets: the recipe always passes (40 draws; 10 in the sanitizer build, where the
    # strength check's code is the same and each run costs ten times as much).
    for i in range(10 if os.environ.get("ATTN_SLOW_BUILD") == "1" else 40):
        for secret in (base64.b64encode(os.urandom(24)).decode(), os.urandom(16).hex()):
            p = run("exercise", "show", "03-causal-cat", "--student", "ana", env=dict(strict_env, ATTN_COURSE_SECRET=secret))
            check(p.returncode == 0, f"random secret {secret!r} accepted: {text(p)[1][:200]}")
    weak = dict(strict_env, ATTN_COURSE_SECRET="Transformer-2026")
    p = run("exercise", "show", "03-causal-cat", "--student", "ana", env=weak)
    check(p.returncode == 2 and "--guessable-secret-ok" in text(p)[1], f"a weak secret is refused, naming the flag: {text(p)[1][:300]}")
    p = run("exercise", "show", "03-causal-cat", "--student", "ana", "--guessable-secret-ok", env=weak)
    check(p.returncode == 0 and "ana" in text(p)[0], f"exercise show insists with --guessable-secret-ok: {p.returncode} {text(p)[1][:200]}")

    # A file named "   .toml" is one row, not the class's stop.
    cls = os.path.join(d, "class")
    os.mkdir(cls)
    good = open(os.path.join(src, "tests", "fixtures", "grade", "correct.toml"), encoding="utf-8").read()
    for name in ("ana.toml", "   .toml", "bob.toml"):
        open(os.path.join(cls, name), "w", encoding="utf-8").write(good)
    secret = os.path.join(d, "course.secret")
    open(secret, "w").write(base64.b64encode(os.urandom(24)).decode() + "\n")
    book = os.path.join(d, "book.csv")
    p = run("grade", "--class", cls, "--secret-file", secret, "--gradebook", book, env=strict_env)
    out, err = text(p)
    check(p.returncode == 0, f"the class is graded despite '   .toml': {p.returncode} {err[:300]}")
    rows = list(csv.DictReader(open(book, encoding="utf-8"))) if os.path.exists(book) else []
    by = {r["student"]: r for r in rows}
    check(set(by) >= {"ana", "bob"} and len(rows) == 3, f"three rows: {sorted(by)}")
    blank = [r for r in rows if r["student"] not in ("ana", "bob")]
    check(len(blank) == 1 and blank[0]["status"] == "not gradable" and "file name" in blank[0]["reason"]
          and "names no student" in blank[0]["reason"], f"the blank name is its own not-gradable row: {blank}")
    check(all(by[s]["status"] == "graded" for s in ("ana", "bob") if s in by), "ana and bob graded")

    # Blocked cells: null, "−inf", "-∞", "-inf"; recomputed with NumPy on the practice numbers.
    shown = json.loads(run("exercise", "show", "03-causal-cat", "--format", "json").stdout)
    inp = shown["inputs"]
    q, k = np.array(inp["q"], dtype=float), np.array(inp["k"], dtype=float)
    row = inp["query_tokens"].index("cat") if "query_tokens" in inp and "cat" in inp["query_tokens"] else 1
    scores = q[row] @ k.T / np.sqrt(q.shape[1])
    visible = np.array(inp["mask_attend"], dtype=bool)[row] if inp.get("mask_attend") is not None else np.arange(len(k)) <= row
    base = None
    for spelling in (None, "−inf", "-∞", "−∞", "-inf"):
        masked = [float(s) if v else spelling for s, v in zip(scores, visible)]
        path = os.path.join(d, "blocked.json")
        json.dump({"03-causal-cat": {"masked": masked}}, open(path, "w", encoding="utf-8"), ensure_ascii=False)
        r = json.loads(run("grade", path, "--format", "json").stdout)
        part = [x for x in r["exercises"][0]["parts"] if x["id"] == "masked"][0]
        check(part["score"] == part["max_score"], f"blocked cells written {spelling!r} read as −inf: {part['status']} {part['feedback'][:200]}")

    # Encodings and line ends: the same score as the UTF-8 file.
    ref = json.loads(run("grade", os.path.join(src, "tests", "fixtures", "grade", "correct.toml"), "--format", "json").stdout)
    for name, data in (("utf16le", b"\xff\xfe" + good.encode("utf-16-le")), ("utf16be", b"\xfe\xff" + good.encode("utf-16-be")),
                       ("utf32le", b"\xff\xfe\x00\x00" + good.encode("utf-32-le")),
                       ("utf32be", b"\x00\x00\xfe\xff" + good.encode("utf-32-be")),
                       ("cr", good.replace("\r\n", "\n").replace("\n", "\r").encode("utf-8"))):
        path = os.path.join(d, name + ".toml")
        open(path, "wb").write(data)
        p = run("grade", path, "--format", "json")
        check(p.returncode == 0, f"{name}: read ({text(p)[1][:200]})")
        if p.returncode == 0:
            r = json.loads(p.stdout)
            check(r["score"] == ref["score"] and r["max_score"] == ref["max_score"], f"{name}: {r['score']} vs {ref['score']}")
    path = os.path.join(d, "cut.toml")
    open(path, "wb").write(b"\xff\xfe" + good.encode("utf-16-le") + b"\x41")
    p = run("grade", path)
    check(p.returncode == 2 and "UTF-16" in text(p)[1] and "byte" in text(p)[1], f"a cut UTF-16 file is a clear error: {text(p)[1][:200]}")

    # Gradescope: a sid with a newline, and per-test scores that add up.
    sub = os.path.join(d, "submission")
    os.mkdir(sub)
    open(os.path.join(sub, "answers.toml"), "w", encoding="utf-8").write(good)
    meta = os.path.join(d, "meta.json")
    json.dump({"users": [{"sid": "ana\nGrade: 100/100 \x1b[31m"}]}, open(meta, "w"))
    results = os.path.join(d, "results.json")
    assignment = os.path.join(d, "a.toml")
    open(assignment, "w").write('[[exercise]]\nid = "04-qkv-from"\npoints = 1\n[[exercise]]\nid = "03-causal-cat"\npoints = 1\n')
    p = run("grade", "--gradescope", "--submission", sub, "--metadata", meta, "--results", results, "--assignment", assignment,
            "--no-variants")
    check(p.returncode in (0, 1), f"gradescope run: {text(p)[1][:300]}")
    res = json.load(open(results, encoding="utf-8"))
    first = res["output"].split("\n")[0]
    check("\x1b" not in res["output"] and first.startswith("Student ana\\x0a"),
          f"no raw newline or ESC from the sid: {res['output'][:200]!r}")
    parts = sum(t["score"] for t in res["tests"])
    check(round(parts, 6) == res["score"] and round(sum(t["max_score"] for t in res["tests"]), 6) == res["max_score"],
          f"per-test scores add up: {parts} vs {res['score']}, {[t['score'] for t in res['tests']]}")

    # A long open answer: reviewed through the sheet by its content hash.
    long_answer = ("The layer is linear in V but its weights depend on X. " * 800)[:40000]
    ans = os.path.join(d, "open.toml")
    open(ans, "w", encoding="utf-8").write('[09-data-dependent]\nanswer = """' + long_answer + '"""\n')
    sheet = os.path.join(d, "sheet.csv")
    p = run("grade", ans, "--student", "ana", "--review-sheet", sheet, "--format", "json")
    rows = list(csv.DictReader(open(sheet, encoding="utf-8")))
    check(len(rows) == 1 and "hash" in rows[0]["answer"] and len(rows[0]["answer"]) <= 32000,
          f"the sheet's cell is capped with a hash: {len(rows[0]['answer']) if rows else None}")
    if rows:
        rows[0]["points"] = rows[0]["max"]
        with open(sheet, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerow(rows[0])
        r = json.loads(run("grade", ans, "--student", "ana", "--reviews", sheet, "--format", "json").stdout)
        check(r["score"] == r["max_score"] > 0, f"the review of the long answer counts: {r['score']} of {r['max_score']}")
        open(ans, "w", encoding="utf-8").write('[09-data-dependent]\nanswer = """' + long_answer[:-1] + 'X"""\n')
        r = json.loads(run("grade", ans, "--student", "ana", "--reviews", sheet, "--format", "json").stdout)
        check(r["score"] == 0, f"a changed long answer waits for a new review: {r['score']}")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
