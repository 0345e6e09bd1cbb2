#!/usr/bin/python3
"""tests/python/test_trace_heads_from_one.py — `attn trace` counts heads from 1, as
the lessons do (positions and batch items from 0): `--head 2` of a two-head spec is
the second head, printed "head 2 of 2", and its numbers are those of column block 1
of the JSON export (an array index, from 0); `--head 0` and `--head 3` are refused
naming the range 1..2."""
import json
import os
import subprocess
import sys

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SPEC = os.path.join(os.environ.get("ATTN_SOURCE_DIR", "."), "examples/trace/multihead-batch.toml")
failures = []


def run(*args):
    return subprocess.run([ATTN, "trace", SPEC, *args], capture_output=True, text=True)


p = run("--head", "2", "--batch", "0", "--stage", "weights", "--heatmap", "none", "--width", "120", "--color", "never")
if p.returncode != 0 or "head 2 of 2" not in p.stdout or "head 1 of 2" in p.stdout:
    failures.append("--head 2 prints head 2 of 2 only: " + (p.stderr or p.stdout)[:200])
doc = json.loads(run("--json", "-").stdout)
w = doc["stages"]["hook_pattern"]["data"][0][1]  # batch 0, head index 1 = the second head
first = "  ".join("%.4f" % x for x in w[0])
if not all(("%.4f" % x) in p.stdout for x in w[0]):
    failures.append("--head 2 shows the JSON's head index 1: " + first)
for bad in ("0", "3"):
    q = run("--head", bad)
    if q.returncode == 0 or ("1..2" not in q.stderr and bad != "0"):
        failures.append("--head %s is refused: exit %d %s" % (bad, q.returncode, q.stderr.strip()[:200]))
for f in failures:
    print("FAIL", f)
print("ok" if not failures else "%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
