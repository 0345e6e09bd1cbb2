#!/usr/bin/python3
"""tests/python/test_trace_new_stages.py — `attn trace --json` with the spec keys of
lessons 15–19 (backward, tile, rope, kv_heads, window) against independent
references: PyTorch autograd for every gradient, NumPy for the online softmax, the
rotary embedding (complex numbers), grouped-query attention (np.repeat of the K/V
heads) and the window mask. Random inputs (fixed seed) as .npy files, batch 2 and
2 heads where the key allows, every stage to 1e-12; the .npy export of each new
stage equals the JSON; bad values of each key exit 2 naming file:line:col."""
import atexit
import json
import os
import subprocess
import sys
import shutil
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core_backward_reference as back  # noqa: E402
import core_tiled_reference as ref  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
TOL = 1e-12
rng = np.random.default_rng(20261513)
failures = []
tmp = tempfile.mkdtemp(prefix="attn-new-stages-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # leave nothing behind


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b, what):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = a.shape == b.shape and np.allclose(a, b, rtol=0, atol=TOL)
    check(ok, "%s: shapes %s vs %s, max |diff| %s" % (what, a.shape, b.shape,
                                                     np.abs(a - b).max() if a.shape == b.shape else "-"))


def trace(name, lines, arrays, extra=()):
    for key, a in arrays.items():
        np.save(os.path.join(tmp, "%s.%s.npy" % (name, key)), a)
    spec = os.path.join(tmp, name + ".toml")
    with open(spec, "w", encoding="utf-8") as f:
        f.write("\n".join(lines + ['%s = "%s.%s.npy"' % (k, name, k) for k in arrays]) + "\n")
    p = subprocess.run([ATTN, "trace", spec, "--json", "-", *extra], capture_output=True, text=True)
    if p.returncode != 0:
        check(False, "%s: exit %d: %s" % (name, p.returncode, p.stderr))
        return None
    npy = os.path.join(tmp, name + "-npy")
    subprocess.run([ATTN, "trace", spec, "--npy", npy], capture_output=True, check=True)
    doc = json.loads(p.stdout)
    st = {k: np.array([[x if x is not None else -np.inf for x in r] for r in np.array(v["data"], dtype=object).reshape(-1, v["shape"][-1])], dtype=float).reshape(v["shape"])
          for k, v in doc["stages"].items()}
    for k, v in st.items():
        f = os.path.join(npy, k + ".npy")
        check(os.path.exists(f) and np.array_equal(np.load(f), v), "%s: %s.npy equals the JSON" % (name, k))
    return st


def heads_of(m, h, d):
    return m[:, h * d:(h + 1) * d]


# 1. backward: batch 2, 2 heads, causal, every gradient against autograd.
B, n, H, d = 2, 5, 2, 3
Q, K, V, dO = (rng.normal(size=(B, n, H * d)) for _ in range(4))
st = trace("backward", ['kind = "causal"', "heads = 2"], {"Q": Q, "K": K, "V": V, "backward": dO})
if st:
    causal = np.tril(np.ones((n, n), dtype=bool))
    for b in range(B):
        for h in range(H):
            r = back.autograd_attention(heads_of(Q[b], h, d), heads_of(K[b], h, d), heads_of(V[b], h, d),
                                        heads_of(dO[b], h, d), mask=causal)
            w = "backward b%d h%d " % (b, h)
            close(st["grad_z"][b, :, h], heads_of(dO[b], h, d), w + "grad_z")
            close(st["grad_v"][b, :, h], r["grad_v"], w + "grad_v")
            close(st["grad_pattern"][b, h], r["grad_weights"], w + "grad_pattern")
            close(st["grad_attn_scores"][b, h], r["grad_scores"], w + "grad_attn_scores")
            close(st["grad_attn_scores_raw"][b, h], r["grad_raw"], w + "grad_attn_scores_raw")
            close(st["grad_q"][b, :, h], r["grad_q"], w + "grad_q")
            close(st["grad_k"][b, :, h], r["grad_k"], w + "grad_k")

# 2. tile: 7 keys in blocks of 3, 2 heads; the running state and the tiled output.
n, H, d = 7, 2, 4
Q, K, V = rng.normal(size=(n, H * d)) * 2, rng.normal(size=(n, H * d)) * 2, rng.normal(size=(n, H * d))
st = trace("tile", ['kind = "self"', "heads = 2", "tile = 3"], {"Q": Q, "K": K, "V": V})
if st:
    for h in range(H):
        o = ref.online(heads_of(Q, h, d), heads_of(K, h, d), heads_of(V, h, d), 3)
        close(st["tiled_running_max"][0, h], o["running_max"], "tile h%d running max" % h)
        close(st["tiled_running_sum"][0, h], o["running_sum"], "tile h%d running sum" % h)
        close(st["tiled_correction"][0, h], o["correction"], "tile h%d correction" % h)
        close(st["tiled_z"][0, :, h], o["output"], "tile h%d tiled_z" % h)
        close(st["tiled_z"][0, :, h], st["hook_z"][0, :, h], "tile h%d tiled_z = hook_z" % h)

# 3. rope: base 500, 2 heads of d_head 4; hook_q stays unrotated, scores use the rotation.
n, H, d = 6, 2, 4
Q, K, V = rng.normal(size=(n, H * d)), rng.normal(size=(n, H * d)), rng.normal(size=(n, H * d))
st = trace("rope", ['kind = "causal"', "heads = 2", "rope = 500.0"], {"Q": Q, "K": K, "V": V})
if st:
    causal = np.tril(np.ones((n, n), dtype=bool))
    for h in range(H):
        rq, rk = ref.rope(heads_of(Q, h, d), np.arange(n), 500.0), ref.rope(heads_of(K, h, d), np.arange(n), 500.0)
        close(st["hook_q"][0, :, h], heads_of(Q, h, d), "rope h%d hook_q unrotated" % h)
        close(st["hook_rot_q"][0, :, h], rq, "rope h%d hook_rot_q" % h)
        close(st["hook_rot_k"][0, :, h], rk, "rope h%d hook_rot_k" % h)
        close(st["hook_attn_scores_raw"][0, h], rq @ rk.T, "rope h%d raw scores" % h)
        close(st["hook_z"][0, :, h], ref.one_shot(rq, rk, heads_of(V, h, d), causal), "rope h%d hook_z" % h)

# 4. kv_heads: H = 4 query heads, G = 2 and G = 1, d_head 3, d_head_v 2.
n = 5
Q = rng.normal(size=(n, 12))
for G in (2, 1):
    K, V = rng.normal(size=(n, G * 3)), rng.normal(size=(n, G * 2))
    st = trace("gqa%d" % G, ['kind = "causal"', "heads = 4", "kv_heads = %d" % G], {"Q": Q, "K": K, "V": V})
    if st:
        want = ref.grouped(Q, K, V, 4, G, np.tril(np.ones((n, n), dtype=bool)))
        close(st["hook_z"][0].reshape(n, -1), want, "kv_heads %d hook_z" % G)
        for h in range(4):
            close(st["hook_k"][0, :, h], heads_of(K, h // (4 // G), 3), "kv_heads %d head %d reads its group's K" % (G, h))

# 5. window: causal and two-sided, w = 2, n = 8.
n = 8
X = rng.normal(size=(n, 4))
for kind, causal in (("causal", True), ("self", False)):
    st = trace("window-" + kind, ['kind = "%s"' % kind, "window = 2"], {"Q": X, "K": X, "V": X})
    if st:
        m = ref.window(n, 2, causal)
        check(np.array_equal(np.isfinite(st["hook_attn_scores"][0, 0]), m), "window %s: the mask" % kind)
        close(st["hook_z"][0, :, 0], ref.one_shot(X, X, X, m), "window %s hook_z" % kind)


# 6. Bad values: exit 2, file:line:col of the key.
def refused(name, lines, needle):
    spec = os.path.join(tmp, name + ".toml")
    with open(spec, "w", encoding="utf-8") as f:
        f.write("\n".join(['kind = "self"', "Q = [[1.0, 0.0], [0.0, 1.0]]", "K = [[1.0, 0.0], [0.0, 1.0]]",
                           "V = [[1.0, 0.0], [0.0, 1.0]]"] + lines) + "\n")
    p = subprocess.run([ATTN, "trace", spec], capture_output=True, text=True)
    check(p.returncode == 2 and spec + ":5:" in p.stderr and needle in p.stderr,
          "%s: exit %d, %r" % (name, p.returncode, p.stderr))


refused("tile0", ["tile = 0"], "'tile'")
refused("ropebad", ['rope = "yes"'], "'rope' must be")
refused("kvbad", ["kv_heads = 3"], "must divide heads")
refused("windowneg", ["window = -1"], "'window'")
refused("backshape", ["backward = [[1.0, 2.0, 3.0]]"], "does not chain with hook_z")

if failures:
    sys.exit("%d failures" % len(failures))
print("ok")
