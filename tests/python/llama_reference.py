"""tests/python/llama_reference.py — an independent PyTorch forward of a Llama-family model
(Llama, Mistral, SmolLM, TinyLlama, Qwen2), written from the papers and Hugging Face's
modeling_llama, not from attn's code. It returns every stage under TransformerLens's
names, for tests that check attn's forward and its GGUF / Hugging Face readers.

Weights come as a dict in Hugging Face Llama names (nn.Linear weights [out, in]):
    model.embed_tokens.weight                      [vocab, d_model]
    model.layers.N.input_layernorm.weight          [d_model]
    model.layers.N.self_attn.q_proj.weight         [n_heads·d_head, d_model]  (+ .bias [n_heads·d_head])
    model.layers.N.self_attn.k_proj.weight         [n_kv_heads·d_head, d_model] (+ .bias)
    model.layers.N.self_attn.v_proj.weight         [n_kv_heads·d_head, d_model] (+ .bias)
    model.layers.N.self_attn.o_proj.weight         [d_model, n_heads·d_head]
    model.layers.N.post_attention_layernorm.weight [d_model]
    model.layers.N.mlp.gate_proj.weight            [d_mlp, d_model]
    model.layers.N.mlp.up_proj.weight              [d_mlp, d_model]
    model.layers.N.mlp.down_proj.weight            [d_model, d_mlp]
    model.norm.weight                              [d_model]
    lm_head.weight                                 [vocab, d_model]  (absent: tied to embed_tokens)
Biases are used when present (Qwen2 has q/k/v biases).

Rotary pairing: "half_split" turns (x_i, x_{i+dims/2}) — Hugging Face's rotate_half, whose
q_proj / k_proj rows are permuted for it (permute_for_half_split below is that
permutation), GGUF qwen2 / gpt-neox; "adjacent" turns (x_2i, x_2i+1) — Meta's original
code, GGUF llama, llama2.c, attn's core/rope. Pair i at position p turns by
p · theta^(−2i/dims); only the first `rotary_dims` columns of a head turn.

Stages, per block L (prefix blocks.L.): hook_resid_pre, ln1.hook_scale [batch, pos, 1]
(√(mean(x²) + eps)), ln1.hook_normalized (x / scale, before the weight), attn.hook_q
[batch, pos, head, d_head], attn.hook_k / hook_v [batch, pos, kv_head, d_head],
attn.hook_rot_q, attn.hook_rot_k, attn.hook_attn_scores [batch, head, query_pos, key_pos]
(scaled, −inf after the query), attn.hook_pattern, attn.hook_z [batch, pos, head, d_head],
hook_attn_out, hook_resid_mid, ln2.hook_scale, ln2.hook_normalized, mlp.hook_pre (gate),
mlp.hook_pre_linear (up), mlp.hook_post (silu(gate)·up), hook_mlp_out, hook_resid_post;
then hook_embed, ln_final.hook_scale, ln_final.hook_normalized, logits.

Also: greedy decoding (full forward per token), random_weights for tiny models, and a
small GGUF reader (F32 tensors, read_gguf_f32) with the GGUF `llama` → Hugging Face name
map (gguf_llama_to_hf; GGUF `llama` q/k rows are in adjacent-pair order: use
pairing="adjacent" with them)."""
import dataclasses
import math
import struct

import numpy as np
import torch


@dataclasses.dataclass
class LlamaConfig:
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_head: int
    d_mlp: int
    vocab: int
    eps: float = 1e-5
    theta: float = 10000.0
    rotary_dims: int = 0          # 0: all of d_head
    pairing: str = "half_split"   # or "adjacent"

    @property
    def dims(self):
        return self.rotary_dims or self.d_head


# ---- the pieces -------------------------------------------------------------------

def rms_norm(x, w, eps):
    """Returns (x / scale · w, scale [.., 1], x / scale)."""
    scale = (x.pow(2).mean(-1, keepdim=True) + eps).sqrt()
    normalized = x / scale
    return normalized * w, scale, normalized


def rotary_angles(positions, dims, theta, dtype=torch.float64):
    """[len(positions), dims/2]: p · theta^(−2i/dims)."""
    i = torch.arange(dims // 2, dtype=torch.float64)
    freq = theta ** (-2.0 * i / dims)
    return (torch.as_tensor(positions, dtype=torch.float64)[:, None] * freq[None, :]).to(dtype)


def rotary_pairs(x, positions, dims, theta, pairing):
    """x [B, T, heads, d_head] turned pair by pair (the loop-free index form)."""
    ang = rotary_angles(positions, dims, theta, x.dtype)[None, :, None, :]  # [1, T, 1, dims/2]
    cos, sin = ang.cos(), ang.sin()
    if pairing == "adjacent":
        a, b = x[..., 0:dims:2], x[..., 1:dims:2]
    else:
        a, b = x[..., :dims // 2], x[..., dims // 2:dims]
    ra, rb = a * cos - b * sin, a * sin + b * cos
    if pairing == "adjacent":
        turned = torch.stack([ra, rb], dim=-1).flatten(-2)
    else:
        turned = torch.cat([ra, rb], dim=-1)
    return torch.cat([turned, x[..., dims:]], dim=-1)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def rotary_rotate_half(x, positions, dims, theta):
    """Hugging Face's form: x·cos + rotate_half(x)·sin on the first dims columns."""
    ang = rotary_angles(positions, dims, theta, x.dtype)
    emb = torch.cat([ang, ang], dim=-1)[None, :, None, :]  # [1, T, 1, dims]
    r = x[..., :dims]
    return torch.cat([r * emb.cos() + rotate_half(r) * emb.sin(), x[..., dims:]], dim=-1)


def rotary_complex(x, positions, dims, theta):
    """Meta's form for adjacent pairs: (x_2i + i·x_2i+1) · e^{iθ}, float64 only."""
    ang = rotary_angles(positions, dims, theta, torch.float64)
    r = torch.view_as_complex(x[..., :dims].to(torch.float64).reshape(*x.shape[:-1], dims // 2, 2).contiguous())
    turned = torch.view_as_real(r * torch.polar(torch.ones_like(ang), ang)[None, :, None, :]).flatten(-2)
    return torch.cat([turned.to(x.dtype), x[..., dims:]], dim=-1)


def causal_attention(q, k, v, path="einsum"):
    """q [B, T, H, dh], k, v [B, T, KV, dh] → (scores, pattern [B, H, T, T], z [B, T, H, dh]).
    path "einsum": key/value heads repeated, one einsum; "loop": every (batch, head,
    query) on its own, the key/value head found as h // (H / KV)."""
    B, T, H, dh = q.shape
    KV = k.shape[2]
    group = H // KV
    scale = 1.0 / math.sqrt(dh)
    if path == "einsum":
        kr = k.repeat_interleave(group, dim=2)
        vr = v.repeat_interleave(group, dim=2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, kr) * scale
        future = torch.ones(T, T, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        pattern = scores.softmax(-1)
        z = torch.einsum("bhqk,bkhd->bqhd", pattern, vr)
        return scores, pattern, z
    scores = torch.full((B, H, T, T), float("-inf"), dtype=q.dtype)
    pattern = torch.zeros(B, H, T, T, dtype=q.dtype)
    z = torch.zeros_like(q)
    for b in range(B):
        for h in range(H):
            g = h // group
            for t in range(T):
                s = torch.stack([(q[b, t, h] * k[b, u, g]).sum() * scale for u in range(t + 1)])
                e = (s - s.max()).exp()
                p = e / e.sum()
                scores[b, h, t, :t + 1] = s
                pattern[b, h, t, :t + 1] = p
                z[b, t, h] = (p[:, None] * v[b, :t + 1, g]).sum(0)
    return scores, pattern, z


def permute_for_half_split(w, n_heads):
    """Hugging Face's convert_llama_weights_to_hf permutation of q_proj / k_proj rows: a
    model with adjacent pairs and weights w equals one with half-split pairs and these."""
    out_dim, in_dim = w.shape
    return w.view(n_heads, out_dim // n_heads // 2, 2, in_dim).transpose(1, 2).reshape(out_dim, in_dim)


# ---- the model --------------------------------------------------------------------

def linear(x, weights, name):
    y = x @ weights[name + ".weight"].T
    bias = weights.get(name + ".bias")
    return y if bias is None else y + bias


def block(x, weights, cfg, layer, stages, path, rotary):
    p = f"model.layers.{layer}."
    s = f"blocks.{layer}."
    B, T, _ = x.shape
    stages[s + "hook_resid_pre"] = x
    a, scale, normalized = rms_norm(x, weights[p + "input_layernorm.weight"], cfg.eps)
    stages[s + "ln1.hook_scale"] = scale
    stages[s + "ln1.hook_normalized"] = normalized
    q = linear(a, weights, p + "self_attn.q_proj").view(B, T, cfg.n_heads, cfg.d_head)
    k = linear(a, weights, p + "self_attn.k_proj").view(B, T, cfg.n_kv_heads, cfg.d_head)
    v = linear(a, weights, p + "self_attn.v_proj").view(B, T, cfg.n_kv_heads, cfg.d_head)
    rq, rk = rotary(q), rotary(k)
    scores, pattern, z = causal_attention(rq, rk, v, path)
    attn_out = linear(z.reshape(B, T, cfg.n_heads * cfg.d_head), weights, p + "self_attn.o_proj")
    for name, value in [("q", q), ("k", k), ("v", v), ("rot_q", rq), ("rot_k", rk), ("attn_scores", scores),
                        ("pattern", pattern), ("z", z)]:
        stages[s + "attn.hook_" + name] = value
    stages[s + "hook_attn_out"] = attn_out
    x = x + attn_out
    stages[s + "hook_resid_mid"] = x
    m, scale, normalized = rms_norm(x, weights[p + "post_attention_layernorm.weight"], cfg.eps)
    stages[s + "ln2.hook_scale"] = scale
    stages[s + "ln2.hook_normalized"] = normalized
    gate = linear(m, weights, p + "mlp.gate_proj")
    up = linear(m, weights, p + "mlp.up_proj")
    post = gate * torch.sigmoid(gate) * up
    mlp_out = linear(post, weights, p + "mlp.down_proj")
    stages[s + "mlp.hook_pre"] = gate
    stages[s + "mlp.hook_pre_linear"] = up
    stages[s + "mlp.hook_post"] = post
    stages[s + "hook_mlp_out"] = mlp_out
    x = x + mlp_out
    stages[s + "hook_resid_post"] = x
    return x


def forward(weights, cfg, tokens, path="einsum", rotary_form="pairs"):
    """tokens [B, T] (integers) → {stage name: tensor}. rotary_form "pairs" (either
    pairing), "rotate_half" (half_split only) or "complex" (adjacent only): the same
    rotation written three ways, for the reference's own tests."""
    tokens = torch.as_tensor(tokens, dtype=torch.long)
    T = tokens.shape[1]
    positions = list(range(T))

    def rotary(x):
        if rotary_form == "rotate_half":
            assert cfg.pairing == "half_split"
            return rotary_rotate_half(x, positions, cfg.dims, cfg.theta)
        if rotary_form == "complex":
            assert cfg.pairing == "adjacent"
            return rotary_complex(x, positions, cfg.dims, cfg.theta)
        return rotary_pairs(x, positions, cfg.dims, cfg.theta, cfg.pairing)

    stages = {}
    x = weights["model.embed_tokens.weight"][tokens]
    stages["hook_embed"] = x
    for layer in range(cfg.n_layers):
        x = block(x, weights, cfg, layer, stages, path, rotary)
    f, scale, normalized = rms_norm(x, weights["model.norm.weight"], cfg.eps)
    stages["ln_final.hook_scale"] = scale
    stages["ln_final.hook_normalized"] = normalized
    unembed = weights.get("lm_head.weight", weights["model.embed_tokens.weight"])
    stages["logits"] = f @ unembed.T
    return stages


def random_weights(cfg, seed, qkv_bias=False, tied=False, dtype=torch.float64):
    """A random model in Hugging Face names (norm weights away from 1, biases when asked)."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape, scale=None):
        s = scale if scale is not None else 1.0 / math.sqrt(shape[-1])
        return (torch.randn(*shape, generator=g, dtype=torch.float64) * s).to(dtype)

    C, H, KV, dh, F = cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_mlp
    w = {"model.embed_tokens.weight": r(cfg.vocab, C, scale=1.0)}
    for L in range(cfg.n_layers):
        p = f"model.layers.{L}."
        w[p + "input_layernorm.weight"] = 1 + r(C, scale=0.2)
        w[p + "self_attn.q_proj.weight"] = r(H * dh, C)
        w[p + "self_attn.k_proj.weight"] = r(KV * dh, C)
        w[p + "self_attn.v_proj.weight"] = r(KV * dh, C)
        if qkv_bias:
            w[p + "self_attn.q_proj.bias"] = r(H * dh, scale=0.3)
            w[p + "self_attn.k_proj.bias"] = r(KV * dh, scale=0.3)
            w[p + "self_attn.v_proj.bias"] = r(KV * dh, scale=0.3)
        w[p + "self_attn.o_proj.weight"] = r(C, H * dh)
        w[p + "post_attention_layernorm.weight"] = 1 + r(C, scale=0.2)
        w[p + "mlp.gate_proj.weight"] = r(F, C)
        w[p + "mlp.up_proj.weight"] = r(F, C)
        w[p + "mlp.down_proj.weight"] = r(C, F)
    w["model.norm.weight"] = 1 + r(C, scale=0.2)
    if not tied:
        w["lm_head.weight"] = r(cfg.vocab, C)
    return w


def greedy(weights, cfg, prompt, steps):
    """Token ids: prompt then `steps` greedy tokens, the full forward at every step."""
    ids = list(prompt)
    for _ in range(steps):
        ids.append(int(forward(weights, cfg, [ids])["logits"][0, -1].argmax()))
    return ids


# ---- GGUF (F32 tensors only), for tests on a real model -------------------------------

def read_gguf_f32(path):
    """(metadata, {name: float64 tensor}) of a GGUF v3 file with F32 tensors."""
    data = open(path, "rb").read()
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return v[0]

    def string():
        nonlocal pos
        n = take("Q")
        s = data[pos:pos + n].decode("utf-8")
        pos += n
        return s

    scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def value(kind):
        if kind == 8:
            return string()
        if kind == 9:
            item, n = take("I"), take("Q")
            return [value(item) for _ in range(n)]
        return take(scalar[kind])

    assert data[:4] == b"GGUF"
    pos = 4
    assert take("I") == 3
    n_tensors, n_kv = take("Q"), take("Q")
    meta = {}
    for _ in range(n_kv):
        key = string()
        meta[key] = value(take("I"))
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = [take("Q") for _ in range(take("I"))]
        kind, offset = take("I"), take("Q")
        assert kind == 0, (name, kind)  # F32
        infos.append((name, dims, offset))
    align = meta.get("general.alignment", 32)
    start = (pos + align - 1) // align * align
    tensors = {}
    for name, dims, offset in infos:
        count = int(np.prod(dims))
        a = np.frombuffer(data, dtype="<f4", count=count, offset=start + offset)
        tensors[name] = torch.from_numpy(a.reshape(list(reversed(dims))).astype(np.float64))  # innermost dim last
    return meta, tensors


def gguf_llama_to_hf(t, n_layers):
    """GGUF `llama` names → Hugging Face names (weights stay [out, in])."""
    w = {"model.embed_tokens.weight": t["token_embd.weight"], "model.norm.weight": t["output_norm.weight"]}
    if "output.weight" in t:
        w["lm_head.weight"] = t["output.weight"]
    parts = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
             "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
             "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj"}
    for L in range(n_layers):
        for g, h in parts.items():
            w[f"model.layers.{L}.{h}.weight"] = t[f"blk.{L}.{g}.weight"]
    return w


def read_gguf_llama(path):
    """(cfg, weights) of an F32 GGUF `llama` file: the config from its metadata (llama.cpp
    stores q/k rows for adjacent pairs), the weights under Hugging Face's names, float64."""
    meta, tensors = read_gguf_f32(path)
    d, heads = meta["llama.embedding_length"], meta["llama.attention.head_count"]
    cfg = LlamaConfig(d_model=d, n_layers=meta["llama.block_count"], n_heads=heads,
                      n_kv_heads=meta["llama.attention.head_count_kv"], d_head=d // heads,
                      d_mlp=meta["llama.feed_forward_length"], vocab=len(meta["tokenizer.ggml.tokens"]),
                      eps=meta["llama.attention.layer_norm_rms_epsilon"],
                      theta=meta.get("llama.rope.freq_base", 10000.0), pairing="adjacent")
    return cfg, gguf_llama_to_hf(tensors, cfg.n_layers)

