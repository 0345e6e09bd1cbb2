"""bench/peers/peer_common.py — the loop every peer shares.

attn_bench writes DIR/cases.tsv (slug, dtype, d per line) and the inputs
DIR/<slug>_<dtype>_{q,k,v}.npy as [heads, n, d] arrays. A peer loads them, warms
up, times forward() until the per-case budget is spent (at least min_reps calls),
saves its last output (so attn_bench can check that the peer did the same work)
and writes DIR/<peer>.tsv: a '# <library version>' line, then per case the slug,
the dtype and the milliseconds of every call, tab-separated.

usage: <peer>.py DIR BUDGET_SECONDS MIN_REPS THREADS
"""
import os
import sys
import time

import numpy as np


def run(peer, version, prepare, forward, to_numpy):
    dirpath, budget, min_reps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    lines = []
    with open(os.path.join(dirpath, "cases.tsv")) as f:
        cases = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for slug, dtype, d in cases:
        prefix = os.path.join(dirpath, f"{slug}_{dtype}_")
        q, k, v = (np.load(prefix + name + ".npy") for name in ("q", "k", "v"))
        if q.shape[0] == 1:  # one head: plain 2-D products, no batch loop
            q, k, v = q[0], k[0], v[0]
        scale = q.dtype.type(1.0 / np.sqrt(int(d)))
        args = prepare(q, k, v, scale)
        forward(*args)
        out = forward(*args)
        ms = []
        start = time.perf_counter()
        while len(ms) < min_reps or time.perf_counter() - start < budget:
            t0 = time.perf_counter_ns()
            out = forward(*args)
            ms.append((time.perf_counter_ns() - t0) * 1e-6)
        np.save(os.path.join(dirpath, f"{peer}_{slug}_{dtype}_out.npy"), to_numpy(out).reshape(-1, int(d)))
        lines.append(f"{slug}\t{dtype}\t" + ",".join(f"{x:.6f}" for x in ms))
    lines.insert(0, f"# {version}")
    tmp = os.path.join(dirpath, f"{peer}.tsv.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, os.path.join(dirpath, f"{peer}.tsv"))
