#!/usr/bin/python3
"""tests/python/test_lesson_numbers.py — one format for numbers in every lesson
(lessons/README.md, "How numbers print"): an exact zero prints like every number of its
table (a row of 4-decimal cells never holds a bare `0`), no negative zero (`-0.0000`),
and a lesson's on-screen text counts heads from 1 (no "head 0", no "layer 0, head"),
and names no hook (`blocks.0.attn.hook_pattern` is a name for exports, not a label)."""
import os
import re
import subprocess
import sys

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []
NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")


def lesson_numbers():
    out = subprocess.run([ATTN, "lessons", "--width", "120"], capture_output=True, text=True).stdout
    return sorted({int(m) for m in re.findall(r"^\s*(\d+)\s", out, re.M)})


numbers = lesson_numbers()
if len(numbers) < 20:
    failures.append("`attn lessons` lists %d lessons" % len(numbers))
for n in numbers:
    p = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--width", "120", "--color", "never"],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        failures.append("lesson %d: exit %d: %s" % (n, p.returncode, p.stderr[:200]))
        continue
    bare, negative_zero, head0, hooks = [], [], [], []
    for line in p.stdout.splitlines():
        # A table row of numbers after its label, whose only whole numbers are zeros:
        # those zeros are cells of a decimal table printed bare.
        cells = line.split()[1:]
        if len(cells) >= 3 and all(NUMBER.match(c) for c in cells) and any("." in c for c in cells) and \
                all("." in c or c in ("0", "-0", "+0") for c in cells) and any("." not in c for c in cells):
            bare.append(line)
        if re.search(r"(^|[^\d.])-0\.0+(?!\d*[1-9])\b", line):
            negative_zero.append(line)
        if re.search(r"\b[Hh]ead 0\b|\b[Ll]ayer 0\b", line):
            head0.append(line)
        if re.search(r"\bhook_[a-z_]+|blocks\.\d+\.", line):
            hooks.append(line)
    for what, lines in (("a bare 0 among decimals", bare), ("a negative zero", negative_zero),
                        ("a head or layer counted from 0", head0), ("a hook name as a label", hooks)):
        if lines:
            failures.append("lesson %d: %s: %r" % (n, what, lines[0][:120]))
    print("ok   lesson %d" % n if not any((bare, negative_zero, head0, hooks)) else "FAIL lesson %d" % n)

# --full shows a lesson's long inputs whole: lesson 20's vectors of 16 values and wide
# tables are elided around "…" at 60 columns, and with --full nothing is (its prose has no "…").
def ellipses(*extra):
    return subprocess.run([ATTN, "lesson", "20", "--no-pause", "--width", "60", "--color", "never", *extra],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout.count("…")


plain, full = ellipses(), ellipses("--full")
if not (plain > 0 and full == 0):
    failures.append("lesson 20 at 60 columns: %d elisions, with --full %d (want some, then none)" % (plain, full))

# `attn exercise show --full` shows a hand-out's long inputs whole: lesson 21's q, k, v have
# 64 columns, elided around "…" at 80 columns, every one of them with --full.
def show(*extra):
    return subprocess.run([ATTN, "exercise", "show", "21-stripe-row", "--width", "80", *extra],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout


plain, full = show(), show("--full")
columns = set(re.findall(r"\bd(\d+)\b", full))
if not (plain.count("…") > 0 and full.count("…") == 0 and len(columns) == 64):
    failures.append("exercise show 21-stripe-row: %d elisions, with --full %d and %d columns d0..d63 (want some, 0, 64)"
                    % (plain.count("…"), full.count("…"), len(columns)))

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
