"""tests/python/test_llama_reference.py — the Llama-family reference (llama_reference.py)
checked against itself written other ways, float64: its attention as one einsum vs a loop
over every (batch, head, query); its rotary as pair indices vs Hugging Face's rotate_half
vs Meta's complex multiplication; adjacent pairs with Meta's weights vs half-split pairs
with Hugging Face's permuted q/k rows; grouped-query attention vs multi-head attention
with the key/value rows repeated; tied vs an lm_head equal to the embedding; causality,
RMSNorm and relative positions by hand."""
import math
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


def cfg(H=4, KV=2, pairing="half_split", rotary_dims=0, layers=2):
    return ref.LlamaConfig(d_model=16, n_layers=layers, n_heads=H, n_kv_heads=KV, d_head=6, d_mlp=20, vocab=11,
                           eps=1e-5, theta=1000.0, rotary_dims=rotary_dims, pairing=pairing)


TOKENS = [[3, 1, 4, 1, 5, 9, 2], [6, 5, 3, 5, 8, 9, 7]]


def worst(a, b, names=None):
    """Largest difference over the stages both have (−inf where both are −inf is equal)."""
    out = 0.0
    for name in names or a:
        x, y = a[name], b[name]
        assert x.shape == y.shape, (name, x.shape, y.shape)
        assert torch.equal(torch.isinf(x), torch.isinf(y)), name
        fin = ~torch.isinf(x)
        out = max(out, (x[fin] - y[fin]).abs().max().item())
    return out


# ---- attention: one einsum vs a loop ----------------------------------------------------
for H, KV in [(8, 4), (4, 1), (4, 4)]:
    for pairing in ["half_split", "adjacent"]:
        c = cfg(H, KV, pairing, rotary_dims=4)
        w = ref.random_weights(c, 1, qkv_bias=True)
        a = ref.forward(w, c, TOKENS, path="einsum")
        b = ref.forward(w, c, TOKENS, path="loop")
        assert sorted(a) == sorted(b)
        d = worst(a, b)
        assert d < 1e-12, (H, KV, pairing, d)
        assert len(a) == 4 + 2 * 20, sorted(a)  # 20 stages per block
print("einsum and loop attention agree on every stage, GQA 8/4, 4/1 and 4/4, both pairings")

# ---- rotary written three ways ------------------------------------------------------------
for dims in [0, 4]:
    c = cfg(pairing="half_split", rotary_dims=dims)
    w = ref.random_weights(c, 2)
    d = worst(ref.forward(w, c, TOKENS), ref.forward(w, c, TOKENS, rotary_form="rotate_half"))
    assert d < 1e-13, d
    c = cfg(pairing="adjacent", rotary_dims=dims)
    d = worst(ref.forward(w, c, TOKENS), ref.forward(w, c, TOKENS, rotary_form="complex"))
    assert d < 1e-13, d
print("rotary: pair indices = rotate_half (half-split) = complex multiplication (adjacent), full and partial")

# ---- Meta's weights with adjacent pairs = Hugging Face's permuted weights with half-split --
c_adj, c_half = cfg(pairing="adjacent"), cfg(pairing="half_split")
meta = ref.random_weights(c_adj, 3, qkv_bias=True)
hf = dict(meta)
for L in range(c_adj.n_layers):
    for proj, heads in [("q_proj", c_adj.n_heads), ("k_proj", c_adj.n_kv_heads)]:
        name = f"model.layers.{L}.self_attn.{proj}"
        hf[name + ".weight"] = ref.permute_for_half_split(meta[name + ".weight"], heads)
        hf[name + ".bias"] = ref.permute_for_half_split(meta[name + ".bias"][:, None], heads)[:, 0]
a, b = ref.forward(meta, c_adj, TOKENS), ref.forward(hf, c_half, TOKENS)
same = [n for n in a if not n.endswith(("attn.hook_q", "attn.hook_k", "attn.hook_rot_q", "attn.hook_rot_k"))]
d = worst(a, b, same)
assert d < 1e-12, d
assert worst(a, b, ["blocks.0.attn.hook_q"]) > 0.1  # the rows really moved
# The rotated queries are the same numbers, columns reordered (2i, 2i+1) → (i, i + d/2).
order = [2 * i for i in range(3)] + [2 * i + 1 for i in range(3)]
assert (a["blocks.1.attn.hook_rot_q"][..., order] - b["blocks.1.attn.hook_rot_q"]).abs().max() < 1e-12
print(f"adjacent pairs with Meta's rows = half-split with Hugging Face's permuted rows ({len(same)} stages)")

# ---- grouped-query = multi-head with the key/value rows repeated -------------------------
c_gqa, c_mha = cfg(8, 2), cfg(8, 8)
w = ref.random_weights(c_gqa, 4, qkv_bias=True)
wm = dict(w)
for L in range(c_gqa.n_layers):
    for proj in ["k_proj", "v_proj"]:
        name = f"model.layers.{L}.self_attn.{proj}"
        wm[name + ".weight"] = w[name + ".weight"].view(2, 6, 16).repeat_interleave(4, dim=0).reshape(48, 16)
        wm[name + ".bias"] = w[name + ".bias"].view(2, 6).repeat_interleave(4, dim=0).reshape(48)
a, b = ref.forward(w, c_gqa, TOKENS, path="loop"), ref.forward(wm, c_mha, TOKENS, path="einsum")
same = [n for n in a if not n.endswith(("hook_k", "hook_v", "hook_rot_k"))]
assert worst(a, b, same) < 1e-12
assert torch.equal(a["blocks.0.attn.hook_k"].repeat_interleave(4, dim=2), b["blocks.0.attn.hook_k"])
print("GQA 8/2 = multi-head attention with each key/value head repeated for its 4 query heads")

# ---- tied, causality, the pattern ----------------------------------------------------------
c = cfg()
w = ref.random_weights(c, 5, tied=True)
assert "lm_head.weight" not in w
wt = dict(w, **{"lm_head.weight": w["model.embed_tokens.weight"].clone()})
assert worst(ref.forward(w, c, TOKENS), ref.forward(wt, c, TOKENS)) == 0.0
s = ref.forward(w, c, TOKENS)
changed = [row[:] for row in TOKENS]
changed[0][4] = 10
s2 = ref.forward(w, c, changed)
assert (s["logits"][0, :4] - s2["logits"][0, :4]).abs().max() == 0  # the past never sees the future
assert (s["logits"][0, 4:] - s2["logits"][0, 4:]).abs().max() > 1e-3
p = s["blocks.1.attn.hook_pattern"]
assert (p.sum(-1) - 1).abs().max() < 1e-14
assert p.triu(1).abs().max() == 0 and torch.isinf(s["blocks.1.attn.hook_attn_scores"].triu(1)[..., 0, 1:]).all()
assert s["blocks.0.attn.hook_q"].shape == (2, 7, 4, 6) and s["blocks.0.attn.hook_k"].shape == (2, 7, 2, 6)
assert s["blocks.0.attn.hook_attn_scores"].shape == (2, 4, 7, 7) and s["logits"].shape == (2, 7, 11)
print("tied = lm_head equal to the embedding; logits before a changed token unchanged; pattern rows sum to 1")

# ---- by hand: RMSNorm, and rotary sees relative positions ----------------------------------
x = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)
out, scale, normalized = ref.rms_norm(x, torch.tensor([1.0, 1.0, 2.0, 0.5], dtype=torch.float64), 0.0)
assert abs(scale.item() - math.sqrt(7.5)) < 1e-15
assert abs(out[0, 2].item() - 6 / math.sqrt(7.5)) < 1e-15 and abs(normalized[0, 3].item() - 4 / math.sqrt(7.5)) < 1e-15
g = torch.Generator().manual_seed(6)
q = torch.randn(1, 1, 1, 8, generator=g, dtype=torch.float64)
k = torch.randn(1, 1, 1, 8, generator=g, dtype=torch.float64)
for pairing in ["adjacent", "half_split"]:
    def dot_at(m, n):
        return (ref.rotary_pairs(q, [m], 8, 10000.0, pairing) * ref.rotary_pairs(k, [n], 8, 10000.0, pairing)).sum()
    assert abs(dot_at(7, 3) - dot_at(4, 0)) < 1e-13 and abs(dot_at(7, 3) - dot_at(3, 7)) > 1e-3
# Pair 0 at position 1 turns by exactly 1 radian; the last pair of 8 by theta^(-3/4).
r = ref.rotary_pairs(torch.tensor([[[[1.0, 0, 0, 0, 0, 0, 1.0, 0]]]], dtype=torch.float64), [1], 8, 10000.0,
                     "adjacent")
assert abs(r[0, 0, 0, 0] - math.cos(1)) < 1e-15 and abs(r[0, 0, 0, 1] - math.sin(1)) < 1e-15
assert abs(r[0, 0, 0, 6] - math.cos(10000 ** -0.75)) < 1e-15
print("RMSNorm by hand; q'·k' depends on m − n only; angles by hand")
print("ok")
