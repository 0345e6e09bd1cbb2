"""bench/peers/numpy_peer.py — the NumPy peer: scores, softmax, output, written the
way a careful NumPy user would (scale folded into Q, softmax in place, BLAS matmul).
Threads: OpenBLAS reads OPENBLAS_NUM_THREADS, which attn_bench sets for every peer.
"""
import numpy as np

import peer_common


def prepare(q, k, v, scale):
    return q, k, v, scale


def forward(q, k, v, scale):
    s = np.matmul(q * scale, np.swapaxes(k, -1, -2))  # [.., n_q, n_k] scaled scores
    s -= s.max(axis=-1, keepdims=True)                 # row max first: no overflow
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)                 # weights
    return np.matmul(s, v)                             # [.., n_q, d] output


if __name__ == "__main__":
    peer_common.run("numpy", "NumPy " + np.__version__, prepare, forward, lambda out: out)
