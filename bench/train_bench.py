#!/usr/bin/python3
"""bench/train_bench.py — training side by side, for both families: `attn model train sort`
against the same training in PyTorch (bench/peers/train_torch_sort.py: minGPT's GPT), and
`attn model train sort --arch llama` against bench/peers/train_torch_llama_sort.py (the same
Llama-shaped model: RMSNorm, rotary, SwiGLU, untied head; same sizes, batch, AdamW and its
cosine, clipping, steps), float32, same threads, as whole processes, each side run back to
back per round so a burst of load hits both. Prints the median wall time, the
iterations per second, the median CPU time (user + sys, wait4's rusage: on a shared machine
the fairer measure, since load steals wall time from both sides unevenly), the peak RSS
(wait4's ru_maxrss) and the ratios, and checks with
PyTorch that attn's checkpoints sort 1,000 fresh inputs. With --out the table is appended
to FILE, replacing an earlier training table there (tools/bench's full run).

    bench/train_bench.py --attn build-bench/attn [--arch gpt2|llama|both] [--iters 2000] [--threads 2]
                         [--rounds 1] [--out FILE]
OPENBLAS_CORETYPE is unset for both sides; OMP_WAIT_POLICY=PASSIVE for both."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))


def run(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    out, err = p.stdout.read().decode(), p.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"train_bench: {' '.join(cmd)} failed: {err}")
    return wall, usage.ru_maxrss * 1024, out + err, usage.ru_utime + usage.ru_stime


def next_logits_gpt(path):
    import torch
    import model_train_reference as ref
    model, _ = ref.load_model(path, torch.float32)
    return lambda seq: model(seq)[0]


def next_logits_llama(path):
    """tests/python/llama_reference.py's forward of the written Hugging Face Llama checkpoint."""
    import torch
    import llama_reference as lref
    import model_train_reference as ref
    tensors, meta = ref.read_safetensors(path)
    w = {n: t.to(torch.float64) for n, t in tensors.items()}
    C, H = int(meta["hidden_size"]), int(meta["num_attention_heads"])
    cfg = lref.LlamaConfig(d_model=C, n_layers=int(meta["num_hidden_layers"]), n_heads=H,
                           n_kv_heads=int(meta["num_key_value_heads"]), d_head=C // H,
                           d_mlp=int(meta["intermediate_size"]), vocab=int(meta["vocab_size"]),
                           eps=float(meta["rms_norm_eps"]), theta=float(meta["rope_theta"]),
                           pairing=meta.get("rope_pairing", "half_split"))
    return lambda seq: lref.forward(w, cfg, seq)["logits"]


def sorted_count(path, arch):
    import torch
    forward = (next_logits_llama if arch == "llama" else next_logits_gpt)(path)
    g = torch.Generator().manual_seed(1234)
    inputs = torch.randint(0, 3, (1000, 6), generator=g)
    seq = inputs.clone()
    with torch.no_grad():
        for _ in range(6):
            logits = forward(seq)
            seq = torch.cat([seq, logits[:, -1, :].argmax(-1, keepdim=True)], dim=1)
    return (seq[:, 6:] == inputs.sort(dim=1).values).all(dim=1).sum().item()


# Per family: attn's extra flags, the PyTorch peer, the rows' names.
FAMILIES = {
    "gpt2": ([], "train_torch_sort.py", "attn model train sort", "PyTorch (minGPT loop)",
             "minGPT's sort model (3 layers, 3 heads, d 48, LayerNorm, learned positions, GELU, AdamW lr 5e-4)"),
    "llama": (["--arch", "llama"], "train_torch_llama_sort.py", "attn model train sort --arch llama",
              "PyTorch (Llama loop)",
              "the Llama-shaped sort model (3 layers, 3 heads, d 48, RMSNorm, rotary, SwiGLU 192, untied; "
              "AdamW lr 1e-3, cosine to 1e-4)"),
}


def bench_family(a, arch, env, tmp):
    """Rounds of attn and its PyTorch peer on one family; returns a function of the sorted
    count giving the family's text (counted after every timed run: importing torch here
    would raise every later child's peak RSS, which counts the parent's pages at fork)."""
    flags, peer_script, ours_name, peer_name, what = FAMILIES[arch]
    ckpt = os.path.join(tmp, f"sort-{arch}.safetensors")
    ours, peer = [], []
    load0 = os.getloadavg()[0]
    for _ in range(a.rounds):
        ours.append(run([a.attn, "model", "train", "sort", *flags, "--iters", str(a.iters), "--threads", str(a.threads),
                         "--out", ckpt], env))
        peer.append(run(["/usr/bin/python3", os.path.join(HERE, "peers", peer_script), str(a.iters),
                         str(a.threads)], env))
    load1 = os.getloadavg()[0]
    t_ours = statistics.median(r[0] for r in ours)
    t_peer = statistics.median(r[0] for r in peer)
    c_ours = statistics.median(r[3] for r in ours)
    c_peer = statistics.median(r[3] for r in peer)
    rows = [
        "| side | wall (s) | it/s | CPU user+sys (s) | peak RSS (MB) |",
        "|---|---:|---:|---:|---:|",
        f"| {ours_name} | {t_ours:.2f} | {a.iters / t_ours:.1f} | {c_ours:.2f} | {max(r[1] for r in ours) / 1e6:.1f} |",
        f"| {peer_name} | {t_peer:.2f} | {a.iters / t_peer:.1f} | {c_peer:.2f} | {max(r[1] for r in peer) / 1e6:.1f} |",
    ]
    return ckpt, lambda sorted_inputs: (
        f"{what}: {a.iters} steps, batch 64, float32, {a.threads} threads, median of {a.rounds} round(s); "
        f"load {load0:.2f} → {load1:.2f}\n\n" + "\n".join(rows) +
        f"\n\nattn is {t_peer / t_ours:.2f}× faster in wall time, {c_peer / c_ours:.2f}× in CPU time; its checkpoint, "
        f"read by PyTorch, sorts {sorted_inputs} of 1000 fresh inputs.\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--arch", choices=["gpt2", "llama", "both"], default="both")
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--out")
    a = ap.parse_args()
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS=str(a.threads),
               OPENBLAS_NUM_THREADS=str(a.threads))
    env.pop("OPENBLAS_CORETYPE", None)
    tmp = tempfile.mkdtemp(prefix="attn-train-bench-")
    families = ["gpt2", "llama"] if a.arch == "both" else [a.arch]
    timed = [(arch, *bench_family(a, arch, env, tmp)) for arch in families]
    text = "Training the sort task, each family against its PyTorch loop:\n\n" + "\n".join(
        describe(sorted_count(ckpt, arch)) for arch, ckpt, describe in timed)
    print(text)
    if a.out:  # replace an earlier training table, keep the tables above it (tools/bench appends)
        old = open(a.out).read() if os.path.exists(a.out) else ""
        at = min((i for i in (old.find("Training the sort task"), old.find("Training minGPT's sort model:")) if i >= 0),
                 default=-1)
        old = (old[:at] if at >= 0 else old).rstrip("\n")
        with open(a.out, "w") as f:
            f.write((old + "\n\n" if old else "") + text)


if __name__ == "__main__":
    main()
