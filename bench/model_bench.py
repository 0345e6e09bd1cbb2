#!/usr/bin/python3
"""bench/model_bench.py — issue 21's size check: a GPT-2-small-shaped checkpoint (12
layers, 12 heads, d_model 768, vocab 50257, 1,024 positions; random float32 weights this
script writes once, Hugging Face layout, 498 MB) run on 1,024 tokens with every stage
kept: `attn model run CKPT --tokens … --top 1` against a PyTorch script doing the same
forward, keeping the same stages (bench/peers/model_torch_script.py), as whole processes
on the same threads. Both read the weights from the same file (mapped); both name the
same greedy next token (checked). Reports median wall seconds (min–max) and peak RSS
(wait4's ru_maxrss) of each process, the PyTorch forward's own seconds, and what the
kept stages weigh.

    bench/model_bench.py --attn build-bench/attn [--rounds 3] [--threads N] [--out FILE]
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "peers", "model_torch_script.py")
L, H, D, V, P = 12, 12, 768, 50257, 1024


def write_checkpoint(path):
    """GPT-2-small shapes, N(0, 0.02) weights (GPT-2's init), F32, Hugging Face names."""
    rng = np.random.default_rng(2026)
    shapes = {"wte.weight": (V, D), "wpe.weight": (P, D), "ln_f.weight": (D,), "ln_f.bias": (D,)}
    for i in range(L):
        h = f"h.{i}."
        shapes.update({h + "ln_1.weight": (D,), h + "ln_1.bias": (D,), h + "attn.c_attn.weight": (D, 3 * D),
                       h + "attn.c_attn.bias": (3 * D,), h + "attn.c_proj.weight": (D, D), h + "attn.c_proj.bias": (D,),
                       h + "ln_2.weight": (D,), h + "ln_2.bias": (D,), h + "mlp.c_fc.weight": (D, 4 * D),
                       h + "mlp.c_fc.bias": (4 * D,), h + "mlp.c_proj.weight": (4 * D, D), h + "mlp.c_proj.bias": (D,)})
    header, offset = {"__metadata__": {"n_layer": str(L), "n_head": str(H), "n_embd": str(D),
                                       "vocab_size": str(V), "n_positions": str(P)}}, 0
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
            shape = shapes[name]
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
                a = np.ones(shape, dtype="<f4")
            else:
                a = (0.02 * rng.standard_normal(shape)).astype("<f4")
            f.write(a.tobytes())
    os.replace(tmp, path)
    with open(os.path.join(os.path.dirname(path), "config.json"), "w") as f:
        json.dump({"n_layer": L, "n_head": H, "n_embd": D, "vocab_size": V, "n_positions": P}, f)


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--work", default=os.path.join(HERE, "..", "build-bench", "model-bench"))
    ap.add_argument("--out")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    ckpt = os.path.join(a.work, "model.safetensors")
    if not os.path.exists(ckpt):
        print("writing the GPT-2-small-shaped checkpoint (once) …", file=sys.stderr)
        write_checkpoint(ckpt)
    ids = ",".join(str(x) for x in np.random.default_rng(7).integers(0, V, P))
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OPENBLAS_NUM_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads))
    res = {"attn": [], "torch": []}
    rss = {"attn": 0, "torch": 0}
    torch_forward = []
    load_start = os.getloadavg()
    for rnd in range(a.rounds):
        sides = [("attn", [a.attn, "model", "run", ckpt, "--tokens", ids, "--top", "1", "--dtype", "float32",
                           "--width", "200", "--color", "never"]),
                 ("torch", [a.python, PEER, ckpt, str(a.threads), ids, str(H)])]
        if rnd % 2:
            sides.reverse()
        greedy = {}
        for side, cmd in sides:
            wall, peak, out = run(cmd, env)
            res[side].append(wall)
            rss[side] = max(rss[side], peak)
            if side == "torch":
                g, secs = out.split()
                greedy[side] = int(g)
                torch_forward.append(float(secs))
            else:
                greedy[side] = attn_greedy(out)
            print(f"round {rnd + 1}: {side:5} {wall:.2f} s, {peak / 2**20:.0f} MiB", file=sys.stderr)
        if greedy["attn"] != greedy["torch"]:
            sys.exit(f"model_bench: attn's greedy token {greedy['attn']} != PyTorch's {greedy['torch']}")
    load_end = os.getloadavg()
    weights = os.path.getsize(ckpt) / 2**20
    per_layer = (8 * P * D + 3 * P * D + 2 * H * P * P + 2 * P * 4 * D) * 4  # hooks + LN outs, bytes
    stages = (L * per_layer + 2 * P * V * 4 + 4 * P * D * 4) / 2**20

    def fmt(xs):
        return f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"

    text = "\n".join([
        f"GPT-2-small-shaped forward, 1,024 tokens, every stage kept, float32, {a.threads} threads "
        f"(whole processes, weights read from one {weights:.0f} MiB safetensors file; {a.rounds} interleaved rounds; "
        f"load average {load_start[0]:.2f} at start, {load_end[0]:.2f} at end):",
        "",
        "| side | wall s, median (min–max) | peak RSS MiB |",
        "|---|---:|---:|",
        f"| `attn model run --top 1` | {fmt(res['attn'])} | {rss['attn'] / 2**20:.0f} |",
        f"| PyTorch script | {fmt(res['torch'])} | {rss['torch'] / 2**20:.0f} |",
        "",
        f"PyTorch's forward alone: {fmt(torch_forward)} s. Kept stages ≈ {stages:.0f} MiB; weights {weights:.0f} MiB "
        f"(attn copies them into its parameters; PyTorch maps them). Same greedy next token on both sides.",
    ]) + "\n"
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
