"""bench/peers/peer_common.py — the serving loop every peer shares.

attn_bench starts a peer once and talks to it over stdin/stdout, so that every case
is timed for ours, NumPy and PyTorch back to back (a burst of load on the shared
machine then hits every side). It writes the inputs DIR/<slug>_<dtype>_{q,k,v}.npy
([heads, n, d]) first. Protocol, one line each way:

  peer → "# <library version>"                                  (once, at start)
  bench → "<slug> <dtype> <d> <budget seconds> <min calls>"
  peer → "<slug>\t<dtype>\t<ms>,<ms>,..."  after warm-up, timing forward() until the
         budget is spent (at least min calls), saving its last output to
         DIR/<peer>_<slug>_<dtype>_out.npy (attn_bench checks it is the same work)
  bench → "quit"

usage: <peer>.py DIR THREADS
"""
import os
import sys
import time

import numpy as np


def run(peer, version, prepare, forward, to_numpy):
    dirpath = sys.argv[1]
    print(f"# {version}", flush=True)
    prepared = {}
    for line in sys.stdin:
        fields = line.split()
        if not fields or fields[0] == "quit":
            break
        slug, dtype, d, budget, min_reps = fields[0], fields[1], int(fields[2]), float(fields[3]), int(fields[4])
        key = (slug, dtype)
        if key not in prepared:
            prefix = os.path.join(dirpath, f"{slug}_{dtype}_")
            q, k, v = (np.load(prefix + name + ".npy") for name in ("q", "k", "v"))
            if q.shape[0] == 1:  # one head: plain 2-D products, no batch loop
                q, k, v = q[0], k[0], v[0]
            prepared[key] = prepare(q, k, v, q.dtype.type(1.0 / np.sqrt(d)))
        args = prepared[key]
        forward(*args)  # warm-up: first-touch allocations, thread start
        out = forward(*args)
        ms = []
        start = time.perf_counter()
        while len(ms) < min_reps or time.perf_counter() - start < budget:
            t0 = time.perf_counter_ns()
            out = forward(*args)
            ms.append((time.perf_counter_ns() - t0) * 1e-6)
        np.save(os.path.join(dirpath, f"{peer}_{slug}_{dtype}_out.npy"), to_numpy(out).reshape(-1, d))
        print(f"{slug}\t{dtype}\t" + ",".join(f"{x:.6f}" for x in ms), flush=True)
