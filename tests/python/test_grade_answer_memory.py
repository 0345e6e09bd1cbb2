#!/usr/bin/python3
"""tests/python/test_grade_answer_memory.py — a large JSON answer file read in bounded
memory and linear time (issue 37: "a 50 MB JSON answer takes 2.7 GB"). With --max-bytes
raised, `attn grade` reads a 20 MB answer of Python floats (a 5-column matrix, as
json.dump writes it; 50 MB measured by hand: 411 MiB, main 832 MiB) and a 10 MB flat
array of "0," (the fewest bytes a number can take; 50 MB: 867 MiB, main 4.8 GB in 112 s)
within a small multiple of the file's size (peak RSS from wait4), grades them as
wrong-shaped (exit 0, no crash), and a file of 4-byte rows "[0]," (a node each) is refused
as too many values at its place (exit 2) instead of growing. Half the file takes about
half the time (linear, not quadratic). io/value_tree packs arrays of numbers (8 bytes a
number, not a ~150-byte node)."""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
SANITIZED = os.environ.get("ATTN_SLOW_BUILD") == "1"  # ASan's quarantine and shadow memory: no RSS bound
MIB = 1024 * 1024
BASE = 64 * MIB  # attn grade on a one-line answer: the binary and the exercise set (25-40 MiB)
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def grade(path, timeout=50):
    """(exit code, stdout + stderr, peak RSS in bytes, seconds) of attn grade on one file."""
    start = time.monotonic()
    p = subprocess.Popen([ATTN, "grade", "--max-bytes", str(100 * MIB), path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    out = p.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    return os.waitstatus_to_exitcode(status), out, usage.ru_maxrss * 1024, time.monotonic() - start


def answer(rows_text):
    return '{"student": "x", "04-cross-weights": {"answer": [' + rows_text + ']}}'


def main():
    d = tempfile.mkdtemp(prefix="attn-answer-memory-")
    try:
        rng = random.Random(1)
        row = "[" + ", ".join(repr(rng.random()) for _ in range(5)) + "]"
        floats = os.path.join(d, "floats.json")
        with open(floats, "w") as f:
            f.write(answer(",".join([row] * (20 * 10 ** 6 // (len(row) + 1)))))
        half = os.path.join(d, "half.json")
        with open(half, "w") as f:
            f.write(answer(",".join([row] * (10 * 10 ** 6 // (len(row) + 1)))))
        zeros = os.path.join(d, "zeros.json")
        with open(zeros, "w") as f:
            f.write(answer(",".join(["0"] * (5 * 10 ** 6))))
        rows = os.path.join(d, "rows.json")
        with open(rows, "w") as f:
            f.write(answer(",".join(["[0]"] * (5 * 10 ** 6 // 4))))

        size = os.path.getsize(floats)
        code, out, rss, secs = grade(floats)
        check(f"20 MB of floats: graded (exit 0), {secs:.1f} s", code == 0 and "04-cross-weights" in out, out[-400:])
        if not SANITIZED:
            check(f"20 MB of floats: peak RSS {rss / MIB:.0f} MiB under 10 × the file + 64 MiB ({(10 * size + BASE) / MIB:.0f} MiB; "
                  "main's attn: 832 MiB here, 2.7 GB in the issue)", rss < 10 * size + BASE, f"{rss / MIB:.0f} MiB")
        code_h, _, _, secs_h = grade(half)
        check(f"half the file, about half the time: {secs_h:.1f} s vs {secs:.1f} s (linear)",
              code_h == 0 and secs < 3.5 * secs_h + 1, f"{secs_h:.1f} vs {secs:.1f}")

        size = os.path.getsize(zeros)
        code, out, rss, secs = grade(zeros)
        check(f"5 million zeros (10 MB): graded (exit 0), {secs:.1f} s", code == 0 and "04-cross-weights" in out, out[-400:])
        if not SANITIZED:
            check(f"5 million zeros: peak RSS {rss / MIB:.0f} MiB under 25 × the file + 64 MiB ({(25 * size + BASE) / MIB:.0f} MiB: "
                  "8 bytes a number read, 8 each of the grader's two matrices)", rss < 25 * size + BASE, f"{rss / MIB:.0f} MiB")

        size = os.path.getsize(rows)
        code, out, rss, secs = grade(rows)
        check("1.25 million one-number rows: refused as too many values, at its place (exit 2)",
              code == 2 and "too-large" in out and "rows.json:1:" in out and "values" in out, out[-400:])
        if not SANITIZED:
            check(f"… at peak RSS {rss / MIB:.0f} MiB under 20 × the file + 64 MiB ({(20 * size + BASE) / MIB:.0f} MiB)", rss < 20 * size + BASE,
                  f"{rss / MIB:.0f} MiB")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
