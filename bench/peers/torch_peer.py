"""bench/peers/torch_peer.py — the PyTorch CPU peer: matmul, torch.softmax, matmul
under inference_mode, with torch.set_num_threads(THREADS) (the 2nd argument).
"""
import sys

import torch

import peer_common


def prepare(q, k, v, scale):
    return torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), float(scale)


def forward(q, k, v, scale):
    with torch.inference_mode():
        s = torch.matmul(q * scale, k.transpose(-2, -1))  # [.., n_q, n_k] scaled scores
        w = torch.softmax(s, dim=-1)                      # weights
        return torch.matmul(w, v)                         # [.., n_q, d] output


if __name__ == "__main__":
    torch.set_num_threads(int(sys.argv[2]))
    peer_common.run("torch", "PyTorch " + torch.__version__, prepare, forward, lambda out: out.numpy())
