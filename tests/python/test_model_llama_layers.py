"""tests/python/test_model_llama_layers.py — model/llama_layers against PyTorch autograd: RMSNorm,
rotary embeddings (adjacent and half-split pairs, partial rotary, positions starting
later), causal grouped-query attention (GQA 8/4, 4/1 and multi-head 4/4), the SwiGLU MLP
(with and without biases) and the KV-cache decoding step. Every forward to 1e-10 and every
gradient to 1e-9 in float64; 1e-5 (relative to the largest value) in float32. The layers
written here in PyTorch are this test's own; attn's numbers come from the test-only
executable tests/tools/llama_layers_run (.npy in, .npy out), in ATTN_TEST_TOOLS."""
import atexit
import math
import os
import shutil
import subprocess
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
TOOL = os.path.join(os.environ.get("ATTN_TEST_TOOLS", "build/tests/tools"), "llama_layers_run")
tmp = tempfile.mkdtemp(prefix="attn-llama-layers-")
atexit.register(shutil.rmtree, tmp, True)
runs = [0]
checked = [0]


def run(layer, inputs, dtype, **args):
    """Writes inputs (tensors) as .npy of dtype, runs the layer, returns its outputs as float64 tensors."""
    runs[0] += 1
    folder = os.path.join(tmp, f"{layer}-{runs[0]}")
    os.mkdir(folder)
    for name, t in inputs.items():
        np.save(os.path.join(folder, name + ".npy"), t.detach().numpy().astype(dtype))
    r = subprocess.run([TOOL, layer, folder, *[f"{k}={v}" for k, v in args.items()]], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = {}
    for f in os.listdir(folder):
        name = f[:-4]
        if name not in inputs:
            a = np.load(os.path.join(folder, f))
            assert a.dtype == dtype, (f, a.dtype)
            out[name] = torch.from_numpy(a.astype(np.float64))
    return out


def inputs_as(inputs, dtype):
    """The inputs as attn sees them (rounded to float32 when dtype is), in float64 for PyTorch."""
    return {n: torch.from_numpy(t.numpy().astype(dtype).astype(np.float64)) for n, t in inputs.items()}


def close(what, got, expected, dtype, grad):
    """float64: 1e-10 forward, 1e-9 gradients, absolute; float32: 1e-5 times the largest value."""
    assert got.shape == expected.shape, (what, got.shape, expected.shape)
    assert torch.equal(torch.isinf(got), torch.isinf(expected)), what
    fin = ~torch.isinf(expected)
    diff = (got[fin] - expected[fin]).abs().max().item() if fin.any() else 0.0
    if dtype == np.float64:
        tol = 1e-9 if grad else 1e-10
    else:
        tol = 1e-5 * max(1.0, expected[fin].abs().max().item())
    assert diff <= tol, f"{what} ({np.dtype(dtype).name}): differs by {diff:.3e} > {tol:.1e}"
    checked[0] += 1


def leaf(t):
    return t.clone().requires_grad_(True)


def randn(*shape, seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64) * scale


# ---- RMSNorm ----------------------------------------------------------------------------
def check_rmsnorm(dtype):
    raw = {"x": randn(2, 5, 16, seed=1, scale=2.0), "w": 1 + randn(16, seed=2, scale=0.3),
           "dout": randn(2, 5, 16, seed=3)}
    got = run("rmsnorm", raw, dtype, eps=1e-6)
    i = inputs_as(raw, dtype)
    x, w = leaf(i["x"]), leaf(i["w"])
    ms = x.pow(2).mean(-1, keepdim=True)
    rstd = torch.rsqrt(ms + 1e-6)
    normalized = x * rstd
    out = normalized * w
    (out * i["dout"]).sum().backward()
    close("rmsnorm out", got["out"], out.detach(), dtype, False)
    close("rmsnorm normalized", got["normalized"], normalized.detach(), dtype, False)
    close("rmsnorm rstd", got["rstd"], rstd.detach().reshape(10), dtype, False)
    close("rmsnorm dx", got["dx"], x.grad, dtype, True)
    close("rmsnorm dw", got["dw"], w.grad, dtype, True)


# ---- rotary -----------------------------------------------------------------------------
def torch_rotary(x, pos0, dims, theta, pairing):
    """Half-split as Hugging Face writes it (rotate_half); adjacent as Meta's (complex numbers)."""
    T = x.shape[1]
    inv = 1.0 / theta ** (torch.arange(0, dims, 2, dtype=torch.float64) / dims)
    ang = torch.arange(pos0, pos0 + T, dtype=torch.float64)[:, None] * inv[None, :]  # [T, dims/2]
    part, rest = x[..., :dims], x[..., dims:]
    if pairing == "half_split":
        emb = torch.cat([ang, ang], -1)[None, :, None, :]
        half = torch.cat([-part[..., dims // 2:], part[..., :dims // 2]], -1)
        turned = part * emb.cos() + half * emb.sin()
    else:
        c = torch.view_as_complex(part.reshape(*part.shape[:-1], dims // 2, 2))
        turned = torch.view_as_real(c * torch.polar(torch.ones_like(ang), ang)[None, :, None, :]).flatten(-2)
    return torch.cat([turned, rest], -1)


def check_rotary(dtype, pairing, dims, pos0):
    raw = {"x": randn(2, 5, 3, 8, seed=4), "dout": randn(2, 5, 3, 8, seed=5)}
    got = run("rotary", raw, dtype, theta=500.0, dims=dims, pairing=pairing, pos0=pos0)
    i = inputs_as(raw, dtype)
    x = leaf(i["x"])
    out = torch_rotary(x, pos0, dims or 8, 500.0, pairing)
    (out * i["dout"]).sum().backward()
    what = f"rotary {pairing} dims={dims} pos0={pos0}"
    close(what + " out", got["out"], out.detach(), dtype, False)
    close(what + " dx", got["dx"], x.grad, dtype, True)


# ---- grouped-query attention ------------------------------------------------------------
def torch_attention(q, k, v):
    B, T, H, dh = q.shape
    group = H // k.shape[2]
    kr, vr = k.repeat_interleave(group, 2), v.repeat_interleave(group, 2)
    scores = (q.transpose(1, 2) @ kr.permute(0, 2, 3, 1)) / math.sqrt(dh)  # [B, H, T, T]
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    pattern = torch.softmax(scores, -1)
    z = (pattern @ vr.transpose(1, 2)).transpose(1, 2)  # [B, T, H, dh]
    return scores, pattern, z


def attention_inputs(H, KV, T=6, dh=8):
    return {"q": randn(2, T, H, dh, seed=10 + H), "k": randn(2, T, KV, dh, seed=20 + KV),
            "v": randn(2, T, KV, dh, seed=30 + KV), "dz": randn(2, T, H, dh, seed=40)}


def check_attention(dtype, H, KV, T=6):
    raw = attention_inputs(H, KV, T)
    got = run("attention", raw, dtype)
    i = inputs_as(raw, dtype)
    q, k, v = leaf(i["q"]), leaf(i["k"]), leaf(i["v"])
    scores, pattern, z = torch_attention(q, k, v)
    scores.retain_grad()
    pattern.retain_grad()
    (z * i["dz"]).sum().backward()
    what = f"attention {H}/{KV} T={T}"
    close(what + " scores", got["scores"], scores.detach(), dtype, False)
    close(what + " pattern", got["pattern"], pattern.detach(), dtype, False)
    close(what + " z", got["z"], z.detach(), dtype, False)
    close(what + " dscores", got["dscores"], scores.grad, dtype, True)
    # attn writes 0 for the future's dpattern (those weights are 0 whatever they would get).
    past = torch.ones(T, T, dtype=torch.bool).tril()
    close(what + " dpattern", got["dpattern"], pattern.grad * past, dtype, True)
    close(what + " dq", got["dq"], q.grad, dtype, True)
    close(what + " dk", got["dk"], k.grad, dtype, True)
    close(what + " dv", got["dv"], v.grad, dtype, True)


def check_decode(dtype, H, KV, pairing):
    raw = attention_inputs(H, KV)
    del raw["dz"]
    got = run("decode", raw, dtype, theta=10000.0, dims=6, pairing=pairing)
    i = inputs_as(raw, dtype)
    rq = torch_rotary(i["q"], 0, 6, 10000.0, pairing)
    rk = torch_rotary(i["k"], 0, 6, 10000.0, pairing)
    _, pattern, z = torch_attention(rq, rk, i["v"])
    what = f"decode {H}/{KV} {pairing}"
    close(what + " rot_q", got["rot_q"], rq, dtype, False)
    close(what + " pattern", got["pattern"], pattern, dtype, False)
    close(what + " z", got["z"], z, dtype, False)


# ---- SwiGLU -----------------------------------------------------------------------------
def check_swiglu(dtype, biases):
    C, F = 8, 12
    raw = {"x": randn(2, 5, C, seed=50), "w_gate": randn(C, F, seed=51, scale=0.5),
           "w_up": randn(C, F, seed=52, scale=0.5), "w_down": randn(F, C, seed=53, scale=0.4),
           "dout": randn(2, 5, C, seed=54)}
    if biases:
        raw.update({"b_gate": randn(F, seed=55), "b_up": randn(F, seed=56), "b_down": randn(C, seed=57)})
    got = run("swiglu", raw, dtype)
    i = inputs_as(raw, dtype)
    p = {n: leaf(t) for n, t in i.items() if n != "dout"}
    zero = torch.zeros(1, dtype=torch.float64)
    gate = p["x"] @ p["w_gate"] + p.get("b_gate", zero)
    up = p["x"] @ p["w_up"] + p.get("b_up", zero)
    post = torch.nn.functional.silu(gate) * up
    out = post @ p["w_down"] + p.get("b_down", zero)
    (out * i["dout"]).sum().backward()
    what = f"swiglu biases={biases}"
    close(what + " out", got["out"], out.detach(), dtype, False)
    for name, t in [("gate", gate), ("up", up), ("post", post)]:
        close(what + " " + name, got[name], t.detach().reshape(10, F), dtype, False)
    for name, t in p.items():
        close(what + " d" + name, got["d" + name], t.grad, dtype, True)
    assert sorted(n for n in got if n.startswith("db_")) == (["db_down", "db_gate", "db_up"] if biases else [])


for dtype in [np.float64, np.float32]:
    check_rmsnorm(dtype)
    for pairing in ["adjacent", "half_split"]:
        for dims, pos0 in [(0, 0), (4, 0), (6, 9)]:
            check_rotary(dtype, pairing, dims, pos0)
    for H, KV in [(8, 4), (4, 1), (4, 4)]:
        check_attention(dtype, H, KV)
    check_attention(dtype, 4, 2, T=70)  # more than one block of 64 query rows
    for H, KV, pairing in [(8, 4, "half_split"), (4, 1, "adjacent")]:
        check_decode(dtype, H, KV, pairing)
    for biases in [False, True]:
        check_swiglu(dtype, biases)
print(f"{checked[0]} forwards and gradients match PyTorch (float64 1e-10 / 1e-9, float32 1e-5)")

# ---- the same bits on one thread and on two -----------------------------------------------
raw = attention_inputs(8, 2, T=100, dh=16)
one, two = run("attention", raw, np.float32, threads=1), run("attention", raw, np.float32, threads=2)
assert all(torch.equal(one[n], two[n]) for n in one), [n for n in one if not torch.equal(one[n], two[n])]
print("attention, forward and backward: the same bits on 1 and 2 threads")

# ---- a bad input is refused -----------------------------------------------------------------
bad = os.path.join(tmp, "bad")
os.mkdir(bad)
with open(os.path.join(bad, "x.npy"), "wb") as f:
    f.write(b"not an array")
r = subprocess.run([TOOL, "rmsnorm", bad], capture_output=True, text=True, timeout=60)
assert r.returncode == 2 and "not a .npy file" in r.stderr, (r.returncode, r.stderr)
print("ok")
