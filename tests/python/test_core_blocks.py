"""tests/python/test_core_blocks.py — the NumPy reference numbers that
tests/core_blocks_test.cpp reads must equal a fresh run of core_blocks_reference.py, and
the reference's sinusoidal table must match its textbook definition at a few cells."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core_blocks_reference as ref  # noqa: E402
from reference_lines import first_difference  # noqa: E402

root = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
with open(os.path.join(root, "tests", "data", "core_blocks_reference.txt"), encoding="utf-8") as f:
    committed = f.read().splitlines()
difference = first_difference(committed, ref.lines())
if difference:
    sys.exit(f"tests/data/core_blocks_reference.txt is stale ({difference}); regenerate it with core_blocks_reference.py")

p = ref.sinusoidal(6, 8)
assert abs(p[3, 2] - math.sin(3 / 10000 ** (2 / 8))) < 1e-15
assert abs(p[5, 7] - math.cos(5 / 10000 ** (6 / 8))) < 1e-15
print("ok")
