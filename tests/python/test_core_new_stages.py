"""tests/python/test_core_new_stages.py — the reference numbers of lessons 15–19 that
tests/core_backward_test.cpp and tests/core_tiled_test.cpp read must equal a fresh run
of their scripts, and the references must hold up on their own: the autograd gradients
match finite differences, the online softmax matches the one-shot one, and rotary
scores depend only on the distance m − n."""
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core_backward_reference as back  # noqa: E402
import core_tiled_reference as tiled  # noqa: E402

root = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
for name, mod in (("core_backward_reference.txt", back), ("core_tiled_reference.txt", tiled)):
    with open(os.path.join(root, "tests", "data", name), encoding="utf-8") as f:
        if f.read().splitlines() != mod.lines():
            sys.exit("tests/data/%s is stale; regenerate it with %s" % (name, mod.__name__ + ".py"))

# Autograd against central differences of the loss L = Σ O ⊙ dO.
rng = np.random.default_rng(3)
q, k, v, do = (rng.normal(size=(3, 4)) for _ in range(4))
r = back.autograd_attention(q, k, v, do)
h = 1e-6
num = np.zeros_like(q)
for idx in np.ndindex(*q.shape):
    qp, qm = q.copy(), q.copy()
    qp[idx] += h
    qm[idx] -= h
    num[idx] = ((tiled.one_shot(qp, k, v) * do).sum() - (tiled.one_shot(qm, k, v) * do).sum()) / (2 * h)
assert np.allclose(num, r["grad_q"], atol=1e-8), (num, r["grad_q"])

# Online softmax: one block, many blocks, all agree with the one-shot form.
q, k, v = rng.normal(size=(4, 8)) * 3, rng.normal(size=(9, 8)) * 3, rng.normal(size=(9, 3))
for tile in (1, 2, 4, 9):
    assert np.allclose(tiled.online(q, k, v, tile)["output"], tiled.one_shot(q, k, v), rtol=0, atol=1e-14)
assert not np.allclose(tiled.online(q, k, v, 2, rescale=False)["output"], tiled.one_shot(q, k, v))

# RoPE: the same score at every shift of both positions.
x, y = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
scores = [(tiled.rope(x, [m + s]) @ tiled.rope(y, [n + s]).T).item() for s in range(5) for m, n in [(4, 1)]]
assert np.allclose(scores, scores[0], atol=1e-12, rtol=0)
print("ok")
