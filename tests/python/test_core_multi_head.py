"""tests/python/test_core_multi_head.py — the NumPy reference numbers that
tests/core_multi_head_test.cpp reads must equal a fresh run of the NumPy script, and
the script's per-head results must sum to its output (a check on the reference itself)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core_multi_head_reference as ref  # noqa: E402
from reference_lines import first_difference  # noqa: E402

root = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
with open(os.path.join(root, "tests", "data", "core_multi_head_reference.txt"), encoding="utf-8") as f:
    committed = f.read().splitlines()
difference = first_difference(committed, ref.lines())
if difference:
    sys.exit(f"tests/data/core_multi_head_reference.txt is stale ({difference}); regenerate it with core_multi_head_reference.py")

rng = np.random.default_rng(1)
x = rng.normal(size=(4, 6))
w = [rng.normal(size=(6, 6)) for _ in range(4)]
r = ref.mha(x, x, *w, 3)
assert np.allclose(r["head_results"].sum(axis=0), r["output"])
# One head equals plain single-head attention.
one = ref.mha(x, x, *w, 1)
s = (x @ w[0]) @ (x @ w[1]).T / np.sqrt(6)
a = np.exp(s - s.max(axis=1, keepdims=True))
a /= a.sum(axis=1, keepdims=True)
assert np.allclose(one["output"], a @ (x @ w[2]) @ w[3])
print("ok")
