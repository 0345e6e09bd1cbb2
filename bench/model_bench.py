#!/usr/bin/python3
"""bench/model_bench.py — issues 21 and 32's size check: a GPT-2-small-shaped checkpoint
(12 layers, 12 heads, d_model 768, vocab 50257, 1,024 positions; random float32 weights
this script writes once, Hugging Face layout, 498 MB) and a Llama-shaped one of the same
size (12 layers, 12 query heads sharing 4 key/value heads, d_model 768, SwiGLU of 2048,
RMSNorm, rotary, untied, vocab 32000), each run on 1,024 tokens: `attn model run CKPT
--tokens … --top 1` (which keeps the stages its predictions need: logits and probs) against
a PyTorch script doing the same forward and keeping the same stages
(bench/peers/model_torch_script.py; --keep all: every stage on both sides, attn through
--npy), as whole processes on the same threads, interleaved. Both read the weights from
the same file; both name the same greedy next token (checked). Reports median wall
seconds (min–max), the ratio PyTorch / attn per round, and peak RSS (wait4's ru_maxrss)
of each process, the PyTorch forward's own seconds.

    bench/model_bench.py --attn build-bench/attn [--shape gpt2|llama|both] [--keep outputs|all]
                         [--rounds 3] [--threads N] [--out FILE]
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "peers", "model_torch_script.py")
L, H, D, V, P = 12, 12, 768, 50257, 1024
KV, F, V_LLAMA = 4, 2048, 32000  # the Llama shape: GQA 12/4, SwiGLU width, vocabulary


def write_checkpoint(path):
    """GPT-2-small shapes, N(0, 0.02) weights (GPT-2's init), F32, Hugging Face names."""
    shapes = {"wte.weight": (V, D), "wpe.weight": (P, D), "ln_f.weight": (D,), "ln_f.bias": (D,)}
    for i in range(L):
        h = f"h.{i}."
        shapes.update({h + "ln_1.weight": (D,), h + "ln_1.bias": (D,), h + "attn.c_attn.weight": (D, 3 * D),
                       h + "attn.c_attn.bias": (3 * D,), h + "attn.c_proj.weight": (D, D), h + "attn.c_proj.bias": (D,),
                       h + "ln_2.weight": (D,), h + "ln_2.bias": (D,), h + "mlp.c_fc.weight": (D, 4 * D),
                       h + "mlp.c_fc.bias": (4 * D,), h + "mlp.c_proj.weight": (4 * D, D), h + "mlp.c_proj.bias": (D,)})
    meta = {"n_layer": str(L), "n_head": str(H), "n_embd": str(D), "vocab_size": str(V), "n_positions": str(P)}
    write_safetensors(path, shapes, meta, {n for n in shapes if n.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight"))})


def write_safetensors(path, shapes, metadata, ones):
    """F32 tensors in name order, N(0, 0.02) (the names in `ones`: 1)."""
    rng = np.random.default_rng(2026)
    header, offset = {"__metadata__": metadata}, 0
    for name in sorted(shapes):
        n = int(np.prod(shapes[name])) * 4
        header[name] = {"dtype": "F32", "shape": list(shapes[name]), "data_offsets": [offset, offset + n]}
        offset += n
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for name in sorted(shapes):
            a = np.ones(shapes[name], dtype="<f4") if name in ones else \
                (0.02 * rng.standard_normal(shapes[name])).astype("<f4")
            f.write(a.tobytes())
    os.replace(tmp, path)


def write_llama_checkpoint(path):
    """The Llama shape in Hugging Face Llama's names (nn.Linear's [out, in])."""
    dh = D // H
    shapes = {"model.embed_tokens.weight": (V_LLAMA, D), "model.norm.weight": (D,), "lm_head.weight": (V_LLAMA, D)}
    for i in range(L):
        h = f"model.layers.{i}."
        shapes.update({h + "input_layernorm.weight": (D,), h + "post_attention_layernorm.weight": (D,),
                       h + "self_attn.q_proj.weight": (H * dh, D), h + "self_attn.k_proj.weight": (KV * dh, D),
                       h + "self_attn.v_proj.weight": (KV * dh, D), h + "self_attn.o_proj.weight": (D, H * dh),
                       h + "mlp.gate_proj.weight": (F, D), h + "mlp.up_proj.weight": (F, D),
                       h + "mlp.down_proj.weight": (D, F)})
    meta = {"model_type": "llama", "num_hidden_layers": str(L), "num_attention_heads": str(H),
            "num_key_value_heads": str(KV), "hidden_size": str(D), "intermediate_size": str(F),
            "vocab_size": str(V_LLAMA), "max_position_embeddings": str(P), "rms_norm_eps": "1e-05",
            "rope_theta": "10000.0", "tie_word_embeddings": "false"}
    write_safetensors(path, shapes, meta, {n for n in shapes if n.endswith("norm.weight")})


def run(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read().decode()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"model_bench: {' '.join(cmd[:3])} … failed: {err}")
    return wall, usage.ru_maxrss * 1024, out


def attn_greedy(text):
    """The id in the first row of the 'Top 1 next tokens' table of `attn model run`."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Top ")), len(lines))
    for line in lines[start:]:
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "1" and parts[1].startswith("#"):
            return int(parts[2])
    return None


def bench_shape(a, shape, env):
    """Interleaved rounds of attn and PyTorch on one shape; returns the report's lines."""
    work = os.path.join(a.work, shape)
    os.makedirs(work, exist_ok=True)
    ckpt = os.path.join(work, "model.safetensors")
    if not os.path.exists(ckpt):
        print(f"writing the {shape}-shaped checkpoint (once) …", file=sys.stderr)
        (write_llama_checkpoint if shape == "llama" else write_checkpoint)(ckpt)
    vocab = V_LLAMA if shape == "llama" else V
    ids = ",".join(str(x) for x in np.random.default_rng(7).integers(0, vocab, P))
    npy = os.path.join(work, "stages")
    attn_cmd = [a.attn, "model", "run", ckpt, "--tokens", ids, "--top", "1", "--dtype", "float32", "--width", "200",
                "--color", "never", "--max-elements", "4000000000",  # past the default budget of 2^28 numbers
                "--threads", str(a.threads)]  # the same threads as PyTorch's
    if a.keep == "all":
        attn_cmd += ["--npy", npy]
    res, rss, torch_forward, ratios = {"attn": [], "torch": []}, {"attn": 0, "torch": 0}, [], []
    load_start = os.getloadavg()
    for rnd in range(a.rounds):
        sides = [("attn", attn_cmd), ("torch", [a.python, PEER, ckpt, str(a.threads), ids, str(H), shape, a.keep])]
        if rnd % 2:
            sides.reverse()
        greedy = {}
        for side, cmd in sides:
            if side == "attn" and a.keep == "all" and os.path.exists(npy):
                shutil.rmtree(npy)
            wall, peak, out = run(cmd, env)
            res[side].append(wall)
            rss[side] = max(rss[side], peak)
            if side == "torch":
                g, secs = out.split()
                greedy[side] = int(g)
                torch_forward.append(float(secs))
            else:
                greedy[side] = attn_greedy(out) if a.keep != "all" else None
            print(f"{shape} round {rnd + 1}: {side:5} {wall:.2f} s, {peak / 2**20:.0f} MiB", file=sys.stderr)
        ratios.append(res["torch"][-1] / res["attn"][-1])
        if greedy["attn"] is not None and greedy["attn"] != greedy["torch"]:
            sys.exit(f"model_bench: attn's greedy token {greedy['attn']} != PyTorch's {greedy['torch']}")
    load_end = os.getloadavg()
    weights = os.path.getsize(ckpt) / 2**20

    def fmt(xs):
        return f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"

    what = ("GPT-2-small-shaped (12 layers, 12 heads, d 768, vocab 50257)" if shape == "gpt2" else
            "Llama-shaped (12 layers, GQA 12/4, d 768, SwiGLU 2048, RMSNorm, rotary, untied, vocab 32000)")
    kept = "logits and probs kept (the predictions)" if a.keep != "all" else "every stage kept (attn: --npy)"
    return [
        f"{what} forward, 1,024 tokens, {kept}, float32, {a.threads} threads (whole processes, weights "
        f"{weights:.0f} MiB in one safetensors file; {a.rounds} interleaved rounds; load average "
        f"{load_start[0]:.2f} at start, {load_end[0]:.2f} at end):",
        "",
        "| side | wall s, median (min–max) | peak RSS MiB |",
        "|---|---:|---:|",
        f"| `attn model run --top 1{' --npy' if a.keep == 'all' else ''}` | {fmt(res['attn'])} | {rss['attn'] / 2**20:.0f} |",
        f"| PyTorch script | {fmt(res['torch'])} | {rss['torch'] / 2**20:.0f} |",
        "",
        f"PyTorch / attn wall, per round: {fmt(ratios)}×. PyTorch's forward alone: {fmt(torch_forward)} s."
        + (" Same greedy next token on both sides." if a.keep != "all" else ""),
        "",
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--shape", choices=["gpt2", "llama", "both"], default="both")
    ap.add_argument("--keep", choices=["outputs", "all"], default="outputs")
    ap.add_argument("--work", default=os.path.join(HERE, "..", "build-bench", "model-bench"))
    ap.add_argument("--out")
    a = ap.parse_args()
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OPENBLAS_NUM_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads))
    lines = []
    for shape in (["gpt2", "llama"] if a.shape == "both" else [a.shape]):
        lines += bench_shape(a, shape, env)
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
