#!/usr/bin/env python3
"""tests/python/test_grade_structure.py — the grader's structure rules (issue 20, Build 1).

- Exercise kinds are one registry (src/grade/kinds/): `exercise_kind::` appears nowhere
  else in src/, and every row the registry lists has its own file there.
- No stage name literal in src/grade: stages are named through the tracer's vocabulary.
- `attn exercise list` names only kinds the registry holds, and each registered
  kind is used by at least one lesson exercise.
"""
import os
import re
import subprocess
import sys

attn = os.environ.get("ATTN_BIN", "build/attn")
src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def sources(folder):
    for root, _, files in os.walk(os.path.join(src, folder)):
        for f in files:
            if f.endswith((".cpp", ".hpp")):
                yield os.path.join(root, f)


kinds_dir = os.path.join(src, "src", "grade", "kinds")
for path in sources("src"):
    if os.path.commonpath([path, kinds_dir]) == kinds_dir:
        continue
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            check("exercise_kind::" not in line, f"{os.path.relpath(path, src)}:{n}: switches on a kind outside src/grade/kinds")

with open(os.path.join(kinds_dir, "registry.cpp"), encoding="utf-8") as f:
    registry = f.read()
rows = re.findall(r"&(\w+)_kind\b", registry.split("exercise_kinds()", 1)[1].split("}", 1)[0])
check(rows == ["numeric", "shape", "choice", "multi", "open"], f"the registry lists {rows}")
for r in rows:
    path = os.path.join(kinds_dir, r + ".cpp")
    check(os.path.exists(path), f"kind '{r}' has no file {os.path.relpath(path, src)}")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            check(f"const exercise_kind {r}_kind" in f.read(), f"{r}.cpp does not define the row {r}_kind")

out = subprocess.run([attn, "exercise", "list", "--width", "200"], capture_output=True, text=True)
check(out.returncode == 0, f"attn exercise list exits {out.returncode}: {out.stderr}")
used = set(re.findall(r"^  \d\d-\S+\s+(\w+)\s+\d", out.stdout, re.M))
check(used <= set(rows), f"exercise list names kinds {sorted(used - set(rows))} the registry lacks")
check(used == set(rows), f"kinds no lesson uses: {sorted(set(rows) - used)}")

# No stage name literal in src/grade: the grader names stages through the tracer's
# vocabulary (grade/stage_words.hpp reads trace/stages.cpp's table and trace/stage_quantities.cpp). The words are read
# from that table here: every hook name and alias, and the quantities (scale, argmax).
table = ""
for name in ("stages.cpp", "stage_quantities.cpp"):
    with open(os.path.join(src, "src", "trace", name), encoding="utf-8") as f:
        table += f.read()
vocabulary = set()
for hook, alias in re.findall(r'\{stage::\w+, "(\w+)", "(\w+)"', table):
    vocabulary.update((hook, alias))
vocabulary.update(re.findall(r'case stage_quantity::\w+: return "(\w+)";', table))
check({"raw", "weights", "output", "grad_pattern", "scale", "argmax"} <= vocabulary,
      f"the stage vocabulary read from trace/ is incomplete: {sorted(vocabulary)}")
literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
for path in sources(os.path.join("src", "grade")):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            code = line.split("//", 1)[0]  # comments may name stages
            if "not a stage" in line:  # a field of another format that happens to share a word
                continue
            for word in literal.findall(code):
                check(word not in vocabulary,
                      f"{os.path.relpath(path, src)}:{n}: the stage name \"{word}\" spelled in src/grade")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
