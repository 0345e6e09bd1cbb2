#!/usr/bin/python3
"""tests/python/test_lesson_color_heatmaps.py — lesson 21's heatmaps of a trained head
(21 × 21 weights) in colour fit the width: at 80, 120, 125 and 140 columns every map is
drawn whole, its header and then one line per query labelled 0₀ … 28₂₀ in order, none
folded onto a second line, and no line (colour escapes aside) is wider than the width.
A colour cell also holds its value, so a map that fits in shades (120 columns) may not
fit in colour: the lesson then draws the narrower shaded map."""
import os
import re
import subprocess
import unicodedata

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []
ESC = re.compile(r"\x1b\[[0-9;]*m")
TOKENS = "0 7 23 41 12 58 3 36 19 50 28 7 23 41 12 58 3 36 19 50 28".split()
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
LABELS = [t + str(i).translate(SUB) for i, t in enumerate(TOKENS)]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def columns(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in line)


for width in (80, 120, 125, 140):
    p = subprocess.run([ATTN, "lesson", "21", "--no-pause", "--color", "always", "--width", str(width)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
                       env={k: v for k, v in os.environ.items() if k != "NO_COLOR"})
    check(p.returncode == 0, f"lesson 21 at {width}: exit {p.returncode} {p.stderr[:200]}")
    lines = [ESC.sub("", x) for x in p.stdout.splitlines()]
    check("\x1b[" in p.stdout, f"lesson 21 at {width}: no colour drawn")
    wide = [x for x in lines if columns(x) > width]
    check(not wide, f"lesson 21 at {width}: {len(wide)} lines wider than {width}: {wide[:1]}")
    maps = [i for i, x in enumerate(lines) if re.search(r"weights +\[21 × 21\]", x)]
    check(len(maps) >= 2, f"lesson 21 at {width}: {len(maps)} heatmaps of 21 × 21 weights")
    for i in maps:
        rows = lines[i + 1:i + 30]
        start = next((k for k, x in enumerate(rows) if x.startswith("  " + LABELS[0] + " ")), None)  # not the header
        got = [x.split()[0] if x.split() else "" for x in rows[start:start + 21]] if start is not None else []
        check(got == LABELS, f"lesson 21 at {width}: map at line {i}: rows {got[:4]}… not the 21 queries in order")
        after = rows[start + 21] if start is not None and start + 21 < len(rows) else ""
        check(not after.startswith("    "), f"lesson 21 at {width}: map at line {i}: a folded row {after!r}")
    print(f"ok   lesson 21 at {width} columns: {len(maps)} maps")

raise SystemExit(f"{len(failures)} failures" if failures else 0)
