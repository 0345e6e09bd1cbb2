"""tests/python/gpt_reference.py — a GPT-2-style decoder written in PyTorch for the
tests of `attn model` (never used by the product): random tiny models, the forward with
every intermediate under TransformerLens's hook names, and safetensors files written
by hand (8-byte little-endian header length, JSON header, raw little-endian data) in
the two layouts attn reads:

  "hf"     Hugging Face GPT-2: h.N.attn.c_attn.weight … (optionally "transformer."
           prefixed), Conv1D weights stored [in, out], lm_head absent when tied
  "mingpt" minGPT/nanoGPT: transformer.h.N.…, nn.Linear weights stored [out, in],
           lm_head.weight present

Parameters here are kept as attn keeps them (model/params.hpp): every linear
weight [in, out], fused c_attn columns q | k | v, head h at columns h·d_head….
The config goes into a config.json beside the file (Hugging Face's names)."""
import json
import math
import os
import struct

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


def random_params(cfg, seed, dtype=torch.float64):
    """cfg: dict n_layer, n_head, n_embd, vocab_size, n_positions, has_mlp, tied."""
    g = torch.Generator().manual_seed(seed)
    d, m, V = cfg["n_embd"], 4 * cfg["n_embd"], cfg["vocab_size"]

    def r(*shape, scale=0.5, base=0.0):
        return (base + scale * (2 * torch.rand(*shape, generator=g, dtype=torch.float64) - 1)).to(dtype)

    p = {"wte": r(V, d), "wpe": r(cfg["n_positions"], d), "blocks": []}
    for _ in range(cfg["n_layer"]):
        b = {"ln1_w": r(d, base=1.0), "ln1_b": r(d), "w_qkv": r(d, 3 * d), "b_qkv": r(3 * d),
             "w_out": r(d, d), "b_out": r(d)}
        if cfg.get("has_mlp", True):
            b.update({"ln2_w": r(d, base=1.0), "ln2_b": r(d), "w_fc": r(d, m), "b_fc": r(m),
                      "w_proj": r(m, d), "b_proj": r(d)})
        p["blocks"].append(b)
    p["lnf_w"], p["lnf_b"] = r(d, base=1.0), r(d)
    if not cfg.get("tied", True):
        p["lm_head"] = r(V, d)
    return p


def cast_params(p, dtype):
    """The same parameters in another dtype."""
    return {k: [{n: t.to(dtype) for n, t in b.items()} for b in v] if k == "blocks" else v.to(dtype)
            for k, v in p.items()}


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def layer_norm(x, w, b, eps):
    """TransformerLens's LayerNorm: returns (hook_normalized, output)."""
    x = x - x.mean(-1, keepdim=True)
    scale = (x.pow(2).mean(-1, keepdim=True) + eps).sqrt()
    normalized = x / scale
    return normalized, normalized * w + b


def forward(cfg, p, tokens):
    """tokens: [batch, pos] ints. Returns {hook name: tensor} as TransformerLens names them."""
    eps = cfg.get("ln_eps", 1e-5)
    H, d = cfg["n_head"], cfg["n_embd"]
    dh = d // H
    t = torch.as_tensor(tokens)
    B, P = t.shape
    c = {}
    c["hook_embed"] = p["wte"][t]
    c["hook_pos_embed"] = p["wpe"][:P].unsqueeze(0).expand(B, P, d)
    x = c["hook_embed"] + c["hook_pos_embed"]
    causal = torch.tril(torch.ones(P, P, dtype=torch.bool))
    for L, b in enumerate(p["blocks"]):
        n = f"blocks.{L}."
        c[n + "hook_resid_pre"] = x
        c[n + "ln1.hook_normalized"], a = layer_norm(x, b["ln1_w"], b["ln1_b"], eps)
        qkv = a @ b["w_qkv"] + b["b_qkv"]
        q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(B, P, H, dh) for i in range(3))
        c[n + "attn.hook_q"], c[n + "attn.hook_k"], c[n + "attn.hook_v"] = q, k, v
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(dh)
        scores = scores.masked_fill(~causal, float("-inf"))
        c[n + "attn.hook_attn_scores"] = scores
        pattern = torch.softmax(scores, dim=-1)
        c[n + "attn.hook_pattern"] = pattern
        z = torch.einsum("bhqk,bkhd->bqhd", pattern, v)
        c[n + "attn.hook_z"] = z
        attn_out = z.reshape(B, P, d) @ b["w_out"] + b["b_out"]
        c[n + "hook_attn_out"] = attn_out
        x = x + attn_out
        if "w_fc" in b:
            c[n + "hook_resid_mid"] = x
            c[n + "ln2.hook_normalized"], m = layer_norm(x, b["ln2_w"], b["ln2_b"], eps)
            pre = m @ b["w_fc"] + b["b_fc"]
            post = gelu_tanh(pre)
            out = post @ b["w_proj"] + b["b_proj"]
            c[n + "mlp.hook_pre"], c[n + "mlp.hook_post"], c[n + "hook_mlp_out"] = pre, post, out
            x = x + out
        c[n + "hook_resid_post"] = x
    c["ln_final.hook_normalized"], f = layer_norm(x, p["lnf_w"], p["lnf_b"], eps)
    unembed = p.get("lm_head", p["wte"])
    c["logits"] = f @ unembed.T
    c["probs"] = torch.softmax(c["logits"], dim=-1)
    return c


def named_tensors(cfg, p, layout, prefix=""):
    """{file name: array} in the layout's names and orientations."""
    out = {}
    linear = layout == "mingpt"  # nn.Linear stores [out, in]

    def lin(w):
        return w.T.contiguous() if linear else w

    pre = "transformer." if layout == "mingpt" else prefix
    out[pre + "wte.weight"] = p["wte"]
    out[pre + "wpe.weight"] = p["wpe"]
    for L, b in enumerate(p["blocks"]):
        h = f"{pre}h.{L}."
        out[h + "ln_1.weight"], out[h + "ln_1.bias"] = b["ln1_w"], b["ln1_b"]
        out[h + "attn.c_attn.weight"], out[h + "attn.c_attn.bias"] = lin(b["w_qkv"]), b["b_qkv"]
        out[h + "attn.c_proj.weight"], out[h + "attn.c_proj.bias"] = lin(b["w_out"]), b["b_out"]
        if "w_fc" in b:
            out[h + "ln_2.weight"], out[h + "ln_2.bias"] = b["ln2_w"], b["ln2_b"]
            out[h + "mlp.c_fc.weight"], out[h + "mlp.c_fc.bias"] = lin(b["w_fc"]), b["b_fc"]
            out[h + "mlp.c_proj.weight"], out[h + "mlp.c_proj.bias"] = lin(b["w_proj"]), b["b_proj"]
    out[pre + "ln_f.weight"], out[pre + "ln_f.bias"] = p["lnf_w"], p["lnf_b"]
    if "lm_head" in p:
        out["lm_head.weight"] = p["lm_head"]
    elif layout == "mingpt":
        out["lm_head.weight"] = p["wte"]  # minGPT saves the tied matrix under both names
    return out


def write_safetensors(path, tensors, metadata=None):
    """tensors: {name: torch tensor (float32/float64)}; written in sorted name order."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        a = tensors[name].detach().cpu().numpy()
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
        raw = a.tobytes()
        dt = {np.dtype("<f4"): "F32", np.dtype("<f8"): "F64"}[a.dtype]
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for raw in blobs:
            f.write(raw)


def write_config_json(path, cfg):
    with open(path, "w") as f:
        json.dump({"model_type": "gpt2", "n_layer": cfg["n_layer"], "n_head": cfg["n_head"],
                   "n_embd": cfg["n_embd"], "vocab_size": cfg["vocab_size"],
                   "n_positions": cfg["n_positions"], "n_ctx": cfg["n_positions"],
                   "layer_norm_epsilon": cfg.get("ln_eps", 1e-5)}, f)


def save_model(folder, cfg, p, layout, dtype=torch.float64, prefix=""):
    """model.safetensors + config.json in folder; returns the checkpoint's path."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.safetensors")
    write_safetensors(path, {k: v.to(dtype) for k, v in named_tensors(cfg, p, layout, prefix).items()})
    write_config_json(os.path.join(folder, "config.json"), cfg)
    return path
