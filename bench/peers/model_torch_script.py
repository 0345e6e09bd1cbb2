#!/usr/bin/python3
"""bench/peers/model_torch_script.py CKPT THREADS IDS [N_HEAD [ARCH KEEP]] — the PyTorch
side of bench/model_bench.py: reads a safetensors file (mapped with NumPy, no copy) of
GPT-2's layout (ARCH gpt2, the default) or Hugging Face Llama's (ARCH llama: RMSNorm,
rotary half-split pairs, grouped-query attention with its num_key_value_heads from the
k_proj's rows, SwiGLU, untied lm_head), runs the forward in float32 under
inference_mode, and prints the greedy next token after the last position and the
forward's own seconds. KEEP says which stages stay referenced as attn keeps them: `all`
(the default: the TransformerLens hooks, embeddings, per block resid_pre, ln1
normalized, q, k, v, scores, pattern, z, attn_out, resid_mid, ln2 normalized, mlp
pre/post/out, resid_post; ln_final, logits, probs) or `outputs` (logits and probs
only, as `attn model run` keeps for its predictions)."""
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


class Keeper(dict):
    """The stages kept: every one, or only logits and probs (the rest dropped at once)."""

    def __init__(self, every):
        super().__init__()
        self.every = every

    def __setitem__(self, name, value):
        if self.every or name in ("logits", "probs"):
            super().__setitem__(name, value)

    def update(self, other):
        for k, v in other.items():
            self[k] = v


def ln(x, w, b, keep, name):
    x = x - x.mean(-1, keepdim=True)
    n = x / (x.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()
    keep[name] = n
    return n * w + b


def forward(p, tokens, n_head, keep):
    t = torch.tensor([tokens])
    P = t.shape[1]
    e, pe = p["wte.weight"][t], p["wpe.weight"][:P].unsqueeze(0)
    keep["hook_embed"], keep["hook_pos_embed"] = e, pe
    x = e + pe
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


def rms(x, w, eps, keep, name):
    scale = (x.pow(2).mean(-1, keepdim=True) + eps).sqrt()
    keep[name + ".hook_scale"] = scale
    n = x / scale
    keep[name + ".hook_normalized"] = n
    return n * w


def rotate(x, cos, sin):
    """Hugging Face Llama's rotate_half pairing: dimension i with i + dh/2."""
    h = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., h:], x[..., :h]], -1) * sin


def forward_llama(p, tokens, n_head, keep, theta=10000.0, eps=1e-5):
    t = torch.tensor([tokens])
    P = t.shape[1]
    x = p["model.embed_tokens.weight"][t]
    keep["hook_embed"] = x
    d = x.shape[-1]
    dh = d // n_head
    inv = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    ang = torch.arange(P, dtype=torch.float64)[:, None] * inv[None, :]
    cos = torch.cat([ang.cos(), ang.cos()], -1).float()[None, :, None, :]
    sin = torch.cat([ang.sin(), ang.sin()], -1).float()[None, :, None, :]
    mask = torch.triu(torch.ones(P, P, dtype=torch.bool), 1)
    L = 0
    while f"model.layers.{L}.input_layernorm.weight" in p:
        h = f"model.layers.{L}."
        b = f"blocks.{L}."
        keep[b + "hook_resid_pre"] = x
        a = rms(x, p[h + "input_layernorm.weight"], eps, keep, b + "ln1")
        q = (a @ p[h + "self_attn.q_proj.weight"].T).reshape(1, P, n_head, dh)
        k = a @ p[h + "self_attn.k_proj.weight"].T
        kv = k.shape[-1] // dh
        k = k.reshape(1, P, kv, dh)
        v = (a @ p[h + "self_attn.v_proj.weight"].T).reshape(1, P, kv, dh)
        rq, rk = rotate(q, cos, sin), rotate(k, cos, sin)
        g = n_head // kv
        s = torch.einsum("bqhd,bkhd->bhqk", rq, rk.repeat_interleave(g, 2)) / math.sqrt(dh)
        s = s.masked_fill(mask, float("-inf"))
        pat = torch.softmax(s, -1)
        z = torch.einsum("bhqk,bkhd->bqhd", pat, v.repeat_interleave(g, 2))
        o = z.reshape(1, P, d) @ p[h + "self_attn.o_proj.weight"].T
        keep.update({b + "attn.hook_q": q, b + "attn.hook_k": k, b + "attn.hook_v": v, b + "attn.hook_rot_q": rq,
                     b + "attn.hook_rot_k": rk, b + "attn.hook_attn_scores": s, b + "attn.hook_pattern": pat,
                     b + "attn.hook_z": z, b + "hook_attn_out": o})
        x = x + o
        keep[b + "hook_resid_mid"] = x
        m = rms(x, p[h + "post_attention_layernorm.weight"], eps, keep, b + "ln2")
        gate = m @ p[h + "mlp.gate_proj.weight"].T
        up = m @ p[h + "mlp.up_proj.weight"].T
        post = torch.nn.functional.silu(gate) * up
        out = post @ p[h + "mlp.down_proj.weight"].T
        keep.update({b + "mlp.hook_pre": gate, b + "mlp.hook_pre_linear": up, b + "mlp.hook_post": post,
                     b + "hook_mlp_out": out})
        x = x + out
        keep[b + "hook_resid_post"] = x
        L += 1
    f = rms(x, p["model.norm.weight"], eps, keep, "ln_final")
    keep["logits"] = f @ p["lm_head.weight"].T
    keep["probs"] = torch.softmax(keep["logits"], -1)
    return keep


def main():
    path, threads, ids = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")]
    torch.set_num_threads(threads)
    p = load(path)
    n_head = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    arch = sys.argv[5] if len(sys.argv) > 5 else "gpt2"
    keep = Keeper(sys.argv[6] != "outputs" if len(sys.argv) > 6 else True)
    with torch.inference_mode():
        t0 = time.perf_counter()
        keep = (forward_llama if arch == "llama" else forward)(p, ids, n_head, keep)
        secs = time.perf_counter() - t0
    print(int(keep["probs"][0, -1].argmax()), f"{secs:.3f}")


if __name__ == "__main__":
    main()
