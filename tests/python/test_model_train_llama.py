"""tests/python/test_model_train_llama.py — model/train_step (the one forward and its
backward) on the Llama family against an independent PyTorch forward
(tests/python/llama_reference.py) and PyTorch autograd: random tiny models with GQA 8/4,
4/1 and plain multi-head 4/4, both rotary pairings, partial rotary dimensions, with and
without q/k/v biases (Qwen2), tied and untied. Every stage attn lists to 1e-10 in float64
and 1e-5 (relative to the largest value) in float32; every parameter's gradient and every
gradient stage PyTorch has a tensor for to 1e-9 in float64; the same bytes on 1 and 2
threads. attn's numbers come from the test-only executable tests/tools/train_forward_run
(.npy in, .npy out), in ATTN_TEST_TOOLS."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
TOOL = os.path.join(os.environ.get("ATTN_TEST_TOOLS", "build/tests/tools"), "train_forward_run")
tmp = tempfile.mkdtemp(prefix="attn-train-llama-")
atexit.register(shutil.rmtree, tmp, True)
runs = [0]


def to_attn(w, cfg, qkv_bias, tied):
    """Hugging Face names and [out, in] → attn's parameter names and [in, out] (written here, not
    read from attn: the fused q | k | v columns, heads in order inside each)."""
    p = {"embed.W_E": w["model.embed_tokens.weight"]}
    for L in range(cfg.n_layers):
        h, b = f"model.layers.{L}.", f"blocks.{L}."
        p[b + "ln1.w"] = w[h + "input_layernorm.weight"]
        p[b + "attn.W_qkv"] = torch.cat([w[h + f"self_attn.{x}_proj.weight"].T for x in "qkv"], 1)
        if qkv_bias:
            p[b + "attn.b_qkv"] = torch.cat([w[h + f"self_attn.{x}_proj.bias"] for x in "qkv"])
        p[b + "attn.W_O"] = w[h + "self_attn.o_proj.weight"].T
        p[b + "ln2.w"] = w[h + "post_attention_layernorm.weight"]
        p[b + "mlp.W_gate"] = w[h + "mlp.gate_proj.weight"].T
        p[b + "mlp.W_in"] = w[h + "mlp.up_proj.weight"].T
        p[b + "mlp.W_out"] = w[h + "mlp.down_proj.weight"].T
    p["ln_final.w"] = w["model.norm.weight"]
    if not tied:
        p["unembed.W_U"] = w["lm_head.weight"]
    return p


def run_attn(params, tokens, targets, dtype, args, threads=1):
    runs[0] += 1
    folder = os.path.join(tmp, f"run-{runs[0]}")
    os.mkdir(folder)
    for name, t in params.items():
        np.save(os.path.join(folder, f"p.{name}.npy"), np.ascontiguousarray(t.detach().numpy().astype(dtype)))
    np.save(os.path.join(folder, "tokens.npy"), np.asarray(tokens, dtype=np.float64))
    np.save(os.path.join(folder, "targets.npy"), np.asarray(targets, dtype=np.float64))
    r = subprocess.run([TOOL, folder, *[f"{k}={v}" for k, v in args.items()], f"threads={threads}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = {}
    for f in sorted(os.listdir(folder)):
        if f[:2] in ("s.", "g.", "d.") or f == "loss.npy":
            a = np.load(os.path.join(folder, f))
            assert a.dtype == dtype, (f, a.dtype)
            out[f[:-4]] = a
    return out


def close(what, got, expected, dtype, tol64):
    expected = expected.detach().to(torch.float64)
    got = torch.from_numpy(got.astype(np.float64))
    assert tuple(got.shape) == tuple(expected.shape), (what, got.shape, expected.shape)
    assert torch.equal(torch.isinf(got), torch.isinf(expected)), what
    fin = ~torch.isinf(expected)
    diff = (got[fin] - expected[fin]).abs().max().item()
    tol = tol64 if dtype == np.float64 else 1e-5 * max(1.0, expected[fin].abs().max().item())
    assert diff <= tol, f"{what} ({np.dtype(dtype).name}): differs by {diff:.3e} > {tol:.1e}"
    return diff


def expected_stages(stages, w, cfg):
    """The reference's stages under the names attn lists (norm outputs after the weight added)."""
    e = dict(stages)
    e["blocks.0.hook_resid_pre"] = stages["hook_embed"]
    for L in range(cfg.n_layers):
        b, h = f"blocks.{L}.", f"model.layers.{L}."
        e[b + "ln1.out"] = stages[b + "ln1.hook_normalized"] * w[h + "input_layernorm.weight"]
        e[b + "ln2.out"] = stages[b + "ln2.hook_normalized"] * w[h + "post_attention_layernorm.weight"]
    e["ln_final.out"] = stages["ln_final.hook_normalized"] * w["model.norm.weight"]
    e["probs"] = stages["logits"].softmax(-1)
    return e


def check(H, KV, dh, pairing, rotary_dims, qkv_bias, tied, seed):
    cfg = ref.LlamaConfig(d_model=H * dh, n_layers=2, n_heads=H, n_kv_heads=KV, d_head=dh, d_mlp=3 * H * dh // 2,
                          vocab=13, eps=1e-5, theta=500.0, rotary_dims=rotary_dims, pairing=pairing)
    args = {"family": "qwen2" if qkv_bias else "llama", "layers": 2, "heads": H, "kv_heads": KV, "d_model": H * dh,
            "vocab": 13, "positions": 16, "d_mlp": cfg.d_mlp, "eps": 1e-5, "theta": 500.0,
            "rotary_dims": rotary_dims, "pairing": pairing, "qkv_bias": int(qkv_bias), "tied": int(tied)}
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, 13, (2, 7), generator=g).tolist()
    targets = [row[1:] + [-1] for row in tokens]
    targets[1][2] = -1  # an ignored position inside a row
    what = f"H={H} KV={KV} {pairing} dims={rotary_dims} bias={qkv_bias} tied={tied}"
    worst = {"stage": 0.0, "grad": 0.0}
    for dtype in (np.float64, np.float32):
        w64 = ref.random_weights(cfg, seed, qkv_bias=qkv_bias, tied=tied)
        # attn sees the weights rounded to its element type; PyTorch computes in float64 on those.
        w = {n: torch.from_numpy(t.numpy().astype(dtype).astype(np.float64)).requires_grad_(True)
             for n, t in w64.items()}
        got = run_attn(to_attn(w, cfg, qkv_bias, tied), tokens, targets, dtype, args)
        stages = ref.forward(w, cfg, tokens)
        for t in stages.values():
            if t.requires_grad:
                t.retain_grad()
        exp = expected_stages(stages, w, cfg)
        listed = [n[2:] for n in got if n.startswith("s.")]
        aliases = {"hook_embed"} | {f"blocks.{L}.hook_resid_pre" for L in range(1, cfg.n_layers)}  # = the last resid_post
        missing = sorted(set(stages) - set(listed) - aliases)
        assert not missing, f"{what}: attn does not list {missing}"
        for name in listed:
            worst["stage"] = max(worst["stage"], close(f"{what} {name}", got["s." + name], exp[name], dtype, 1e-10))
        if dtype == np.float32:
            continue
        loss = torch.nn.functional.cross_entropy(stages["logits"].reshape(-1, 13), torch.tensor(targets).reshape(-1),
                                                 ignore_index=-1)
        close(f"{what} loss", got["loss"], loss.reshape(1), dtype, 1e-10)
        loss.backward()
        grads = to_attn({n: t.grad for n, t in w.items()}, cfg, qkv_bias, tied)
        assert sorted(n[2:] for n in got if n.startswith("d.")) == sorted(grads), what
        for name, t in grads.items():
            worst["grad"] = max(worst["grad"], close(f"{what} d{name}", got["d." + name], t, dtype, 1e-9))
        assert max(t.abs().max().item() for t in grads.values()) > 1e-3, what  # not all zero
        compared = 0
        for name in [n[2:] for n in got if n.startswith("g.")]:
            ref_name = "hook_embed" if name == "blocks.0.hook_resid_pre" else name
            if ref_name in exp and ref_name in stages and stages[ref_name].grad is not None:
                expected = stages[ref_name].grad
                if name.endswith(("hook_pattern", "hook_attn_scores")):  # attn keeps 0 after the query
                    expected = expected.masked_fill(torch.ones(7, 7, dtype=torch.bool).triu(1), 0.0)
                worst["grad"] = max(worst["grad"], close(f"{what} grad.{name}", got["g." + name], expected, dtype,
                                                         1e-9))
                compared += 1
        assert compared >= 10 * cfg.n_layers, (what, compared)
        if seed % 3 == 0:  # the same bytes on 2 threads
            again = run_attn(to_attn(w, cfg, qkv_bias, tied), tokens, targets, dtype, args, threads=2)
            assert all(np.array_equal(got[n], again[n]) for n in got), f"{what}: 2 threads differ"
    print(f"{what}: stages {worst['stage']:.1e}, gradients {worst['grad']:.1e}")


CASES = [  # (H, KV, d_head, pairing, rotary_dims, qkv_bias, tied)
    (8, 4, 4, "half_split", 0, False, False),
    (4, 1, 6, "adjacent", 0, True, False),
    (4, 4, 4, "half_split", 0, False, True),
    (4, 2, 8, "adjacent", 4, False, True),
    (4, 2, 8, "half_split", 6, True, True),
    (2, 2, 6, "adjacent", 2, True, False),
]
for i, case in enumerate(CASES):
    check(*case, seed=100 + i)
print("ok")
