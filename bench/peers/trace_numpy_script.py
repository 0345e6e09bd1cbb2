#!/usr/bin/python3
"""bench/peers/trace_numpy_script.py — the NumPy peer of `attn trace SPEC --npy DIR`
and `--json FILE` for the product-path benchmark (bench/trace_bench.py): the same
work as a user would write it in NumPy, as one whole process.

    trace_numpy_script.py npy  Q.npy K.npy V.npy OUT_DIR
    trace_numpy_script.py json Q.npy K.npy V.npy OUT_FILE

Self-attention, one head, no mask: loads Q, K, V (float64 [n, d]), computes every
stage attn exports (hook_q/k/v in [batch, pos, head, d], the raw, scaled and masked
scores, the softmax pattern, z) and saves each: one np.save per stage, or one JSON
document with the same keys as attn's (nested lists; -inf as null). The careful form:
max-subtracted softmax, BLAS matmuls, no copies beyond what the stages are.
"""
import json
import os
import sys

import numpy as np


def stages(q, k, v):
    n, d = q.shape
    raw = q @ k.T                                    # [n, n]
    scaled = raw / np.sqrt(d)
    attend = np.ones((n, n), dtype=bool)
    masked = np.where(attend, scaled, -np.inf)       # scaled + bias, −inf where blocked
    e = np.exp(masked - masked.max(axis=1, keepdims=True))
    pattern = e / e.sum(axis=1, keepdims=True)
    del e
    z = pattern @ v                                  # [n, d_v]
    per_pos = lambda m: m.reshape(1, m.shape[0], 1, m.shape[1])  # [batch, pos, head, d]
    per_head = lambda m: m.reshape(1, 1, n, n)                    # [batch, head, query_pos, key_pos]
    return {"hook_q": per_pos(q), "hook_k": per_pos(k), "hook_v": per_pos(v),
            "hook_attn_scores_raw": per_head(raw), "hook_attn_scores_scaled": per_head(scaled),
            "hook_attn_scores": per_head(masked), "hook_pattern": per_head(pattern), "hook_z": per_pos(z)}


def main():
    mode, qp, kp, vp, out = sys.argv[1:6]
    q, k, v = np.load(qp), np.load(kp), np.load(vp)
    st = stages(q, k, v)
    if mode == "npy":
        os.makedirs(out, exist_ok=True)
        for name, a in st.items():
            np.save(os.path.join(out, name + ".npy"), a)
        return
    with open(out, "w") as f:
        f.write('{\n "format": "attn-trace",\n "stages": {\n')
        for i, (name, a) in enumerate(st.items()):
            data = np.where(np.isfinite(a), a, None).tolist() if not np.isfinite(a).all() else a.tolist()
            f.write(("" if i == 0 else ",\n") + "  " + json.dumps(name) + ": ")
            json.dump({"axes": [], "shape": list(a.shape), "data": data}, f, separators=(",", ":"))
            del data
        f.write("\n }\n}\n")


if __name__ == "__main__":
    main()
