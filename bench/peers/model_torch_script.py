#!/usr/bin/python3
"""bench/peers/model_torch_script.py CKPT THREADS IDS — the PyTorch side of
bench/model_bench.py: reads a GPT-2-layout safetensors file (mapped with NumPy, no
copy), runs the GPT-2 forward in float32 under inference_mode keeping every stage
attn keeps (the TransformerLens hooks: embeddings, per block resid_pre, ln1
normalized, q, k, v, scores, pattern, z, attn_out, resid_mid, ln2 normalized,
mlp pre/post/out, resid_post; ln_final, logits, probs), and prints the greedy next
token after the last position and the forward's own seconds."""
import json
import math
import os
import struct
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402


def load(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[a:b], dtype="<f4").reshape(t["shape"]))
    return out


def ln(x, w, b, keep, name):
    x = x - x.mean(-1, keepdim=True)
    n = x / (x.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()
    keep[name] = n
    return n * w + b


def forward(p, tokens, n_head):
    keep = {}
    t = torch.tensor([tokens])
    P = t.shape[1]
    keep["hook_embed"] = p["wte.weight"][t]
    keep["hook_pos_embed"] = p["wpe.weight"][:P].unsqueeze(0)
    x = keep["hook_embed"] + keep["hook_pos_embed"]
    d = x.shape[-1]
    dh = d // n_head
    mask = torch.triu(torch.ones(P, P, dtype=torch.bool), 1)
    L = 0
    while f"h.{L}.ln_1.weight" in p:
        h = f"h.{L}."
        keep[f"blocks.{L}.hook_resid_pre"] = x
        a = ln(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"], keep, f"blocks.{L}.ln1.hook_normalized")
        qkv = a @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]
        q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(1, P, n_head, dh) for i in range(3))
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(dh)
        s = s.masked_fill(mask, float("-inf"))
        pat = torch.softmax(s, -1)
        z = torch.einsum("bhqk,bkhd->bqhd", pat, v)
        o = z.reshape(1, P, d) @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        keep.update({f"blocks.{L}.attn.hook_q": q, f"blocks.{L}.attn.hook_k": k, f"blocks.{L}.attn.hook_v": v,
                     f"blocks.{L}.attn.hook_attn_scores": s, f"blocks.{L}.attn.hook_pattern": pat,
                     f"blocks.{L}.attn.hook_z": z, f"blocks.{L}.hook_attn_out": o})
        x = x + o
        keep[f"blocks.{L}.hook_resid_mid"] = x
        m = ln(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"], keep, f"blocks.{L}.ln2.hook_normalized")
        pre = m @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"]
        post = 0.5 * pre * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (pre + 0.044715 * pre ** 3)))
        out = post @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]
        keep.update({f"blocks.{L}.mlp.hook_pre": pre, f"blocks.{L}.mlp.hook_post": post,
                     f"blocks.{L}.hook_mlp_out": out})
        x = x + out
        keep[f"blocks.{L}.hook_resid_post"] = x
        L += 1
    f = ln(x, p["ln_f.weight"], p["ln_f.bias"], keep, "ln_final.hook_normalized")
    keep["logits"] = f @ p["wte.weight"].T
    keep["probs"] = torch.softmax(keep["logits"], -1)
    return keep


def main():
    path, threads, ids = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")]
    torch.set_num_threads(threads)
    p = load(path)
    n_head = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    with torch.inference_mode():
        t0 = time.perf_counter()
        keep = forward(p, ids, n_head)
        secs = time.perf_counter() - t0
    print(int(keep["probs"][0, -1].argmax()), f"{secs:.3f}")


if __name__ == "__main__":
    main()
