#!/usr/bin/python3
"""tests/python/test_lesson_width.py — nothing `attn` prints is wider than the width
it was given. Every lesson (whole, and from each of its steps), every `--token`
a lesson or a golden case documents, every trace example and every shape table
runs at --width 60, 80 and 120; no line may be wider (display width measured
here, independently of attn: East Asian wide/fullwidth = 2 columns, combining
marks 0, colour sequences 0), no number may be cut at a line end, and no line
may end in the middle of an equation (on an "=", "×", "+" … with more below). And the
rule of lessons/README.md that keeps formulas whole at 60: every indented line of a
lesson's intro and step texts (formulas, tables, lists are never re-wrapped, only
broken at spaces) is at most 60 columns wide."""
import glob
import os
import re
import subprocess
import sys
import tomllib
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shards  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
WIDTHS = (60, 80, 120)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
failures = []
runs = 0


def display_width(line):
    w = 0
    for ch in ANSI.sub("", line):
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return w


def run(args):
    global runs
    runs += 1
    p = subprocess.run([ATTN, *args], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    if p.returncode != 0:
        failures.append(f"attn {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout


def check(args, width):
    out = run([*args, "--width", str(width)])
    lines = out.split("\n")
    for n, line in enumerate(lines, 1):
        if display_width(line) > width:
            failures.append(f"attn {' '.join(args)} --width {width}: line {n} is {display_width(line)} wide: {line[:100]}")
            break
    for n in range(len(lines) - 1):  # a number cut in two: "… = 0." then "00"
        if re.search(r"\d\.$", lines[n]) and re.match(r"\s*\d", lines[n + 1]):
            failures.append(f"attn {' '.join(args)} --width {width}: a number is split at line {n + 1}")
    for n in range(len(lines) - 1):  # an equation broken in prose: "d_q = d_v =" then "4."
        prose = re.match(r"(\S|\s*(•|\d+\.) )", lines[n])  # not a trace's laid-out sum (indented)
        if prose and re.search(r"\S (=|≈|×|·|\+|−|→|∈)$", lines[n]) and lines[n + 1].strip():
            failures.append(f"attn {' '.join(args)} --width {width}: an equation is broken at line {n + 1}: {lines[n][-40:]}")
    return out


def lesson_numbers():
    return [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s", run(["lessons"]), re.M)]


def documented_tokens():
    """(lesson, [extra args]) for every `--token` in a golden case or in the lessons' own text."""
    found = set()
    for tsv in glob.glob(os.path.join(SRC, "golden/cases/*.tsv")):
        for line in open(tsv, encoding="utf-8"):
            m = re.search(r"\blesson (\d+) (.*--token.*)$", line.strip())
            if m:
                args = [a for a in m.group(2).split() if a not in ("--color", "never")]
                found.add((int(m.group(1)), tuple(args)))
    for n in lesson_numbers():
        text = run(["lesson", str(n), "--no-pause", "--color", "never", "--width", "200"])
        for m in re.finditer(r"attn lesson (\d+) (--token \S+?)(?: (--run [\w.]+))?[`)\s]", text):
            args = m.group(2).split() + (m.group(3).split() if m.group(3) else [])
            found.add((int(m.group(1)), tuple(args)))
    return sorted(found)


def check_indented_lines():
    """Indented lines of the lessons' texts fit 60 columns, so they are never broken."""
    for path in sorted(glob.glob(os.path.join(SRC, "lessons/*.toml"))):
        with open(path, "rb") as f:
            lesson = tomllib.load(f)
        texts = [("intro", lesson.get("intro", ""))] + [(f"step {k}", s.get("text", "")) for k, s in enumerate(lesson.get("step", []), 1)]
        for where, text in texts:
            for line in text.split("\n"):
                if line.startswith(" ") and display_width(line) > 60:
                    failures.append(f"{os.path.basename(path)} {where}: an indented line is {display_width(line)} wide (keep it to 60): {line.strip()[:60]}")


def main():
    check_indented_lines()
    numbers = lesson_numbers()
    assert len(numbers) >= 14, numbers
    for n in shards.mine(numbers):  # CTest runs shards of each list below (tests/python/shards.py)
        whole = run(["lesson", str(n), "--no-pause", "--color", "never"])
        steps = int(re.search(r"Step 1/(\d+)", whole).group(1))
        for w in WIDTHS:
            check(["lesson", str(n), "--no-pause", "--color", "never"], w)
            for k in range(2, steps + 1):
                check(["lesson", str(n), "--step", str(k), "--no-pause", "--color", "never"], w)
        check(["lesson", str(n), "--no-pause", "--color", "always"], 80)
    tokens = documented_tokens()
    assert len(tokens) >= 5, tokens
    for n, args in shards.mine(tokens):
        for w in WIDTHS:
            check(["lesson", str(n), *args, "--color", "never"], w)
    for spec in shards.mine(sorted(glob.glob(os.path.join(SRC, "examples/trace/*.toml")))):
        for w in WIDTHS:
            check(["trace", spec, "--color", "never"], w)
    presets = [l.split()[0] for l in run(["shapes", "--list"]).splitlines() if l.strip()]
    for p in shards.mine(presets):
        for w in WIDTHS:
            check(["shapes", p, "--color", "never"], w)
    print(f"{runs} runs of attn; {len(numbers)} lessons, {len(tokens)} documented tokens")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


main()
