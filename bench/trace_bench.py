#!/usr/bin/python3
"""bench/trace_bench.py — the product path end to end: `attn trace SPEC --npy DIR` and
`attn trace SPEC --json FILE` as whole processes against a NumPy script doing the same
work (bench/peers/trace_numpy_script.py: load, every stage, save), at n = 1024, 2048,
4096 (self-attention, d = 64, float64 .npy inputs).

Each round runs every (case, side) once, the sides back to back per case, so a burst
of load hits both; the table shows the median wall time with min–max over the rounds
and the peak RSS of each process (wait4's ru_maxrss), the bytes each wrote, and the
load average at start and end. Outputs go to a temporary directory and are removed
between runs (not timed).

    bench/trace_bench.py --attn build-bench/attn [--rounds 5] [--sizes 1024,2048,4096]
                         [--json-sizes 1024,2048] [--out FILE]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "peers", "trace_numpy_script.py")


def run(cmd, env):
    """Wall seconds and peak RSS (bytes) of one whole process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"trace_bench: {' '.join(cmd)} failed ({p.returncode}): {err}")
    return wall, usage.ru_maxrss * 1024


def size_of(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    return os.path.getsize(path)


def remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def fmt_s(xs):
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}–{max(xs):.3f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sizes", default="1024,2048,4096")
    ap.add_argument("--json-sizes", default="1024,2048,4096")
    ap.add_argument("--out")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",") if x]
    json_sizes = [int(x) for x in a.json_sizes.split(",") if x]
    env = dict(os.environ)
    load_start = os.getloadavg()
    work = tempfile.mkdtemp(prefix="attn-trace-bench-")
    try:
        cases = []  # (mode, n, spec, q, k, v)
        for n in sizes:
            rng = np.random.default_rng(n)
            paths = []
            for name in "QKV":
                p = os.path.join(work, f"{name}{n}.npy")
                np.save(p, rng.standard_normal((n, 64)))
                paths.append(p)
            spec = os.path.join(work, f"self{n}.toml")
            with open(spec, "w") as f:
                f.write(f'kind = "self"\nQ = "Q{n}.npy"\nK = "K{n}.npy"\nV = "V{n}.npy"\n')
            cases.append(("npy", n, spec, *paths))
            if n in json_sizes:
                cases.append(("json", n, spec, *paths))
        res = {(c[0], c[1], side): {"wall": [], "rss": [], "bytes": 0} for c in cases for side in ("attn", "numpy")}
        for rnd in range(a.rounds):
            for mode, n, spec, q, k, v in cases:
                out = os.path.join(work, f"out-{mode}-{n}" + ("" if mode == "npy" else ".json"))
                sides = [("attn", [a.attn, "trace", spec, "--" + mode, out]),
                         ("numpy", [a.python, PEER, mode, q, k, v, out])]
                if rnd % 2:
                    sides.reverse()  # neither side always goes first
                for side, cmd in sides:
                    wall, rss = run(cmd, env)
                    r = res[(mode, n, side)]
                    r["wall"].append(wall)
                    r["rss"].append(rss)
                    r["bytes"] = size_of(out)
                    remove(out)
                    print(f"round {rnd + 1}: {side:5} {mode:4} n={n}: {wall:.3f} s, {rss / 2**20:.0f} MiB", file=sys.stderr)
        load_end = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        f"Product path (`attn trace SPEC --npy DIR` / `--json FILE`, whole processes; self-attention, d = 64, float64 "
        f".npy inputs; {a.rounds} interleaved rounds; wall seconds median (min–max); load average "
        f"{load_start[0]:.2f} at start, {load_end[0]:.2f} at end):",
        "",
        "| export | n | attn s | NumPy script s | NumPy / attn | attn peak RSS MiB | NumPy peak RSS MiB | written MiB | RSS budget MiB (1.3 × written + 50) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, n, *_ in cases:
        ours, peer = res[(mode, n, "attn")], res[(mode, n, "numpy")]
        speed = statistics.median(peer["wall"]) / statistics.median(ours["wall"])
        written = ours["bytes"] / 2**20
        budget = 1.3 * written + 50
        rss = max(ours["rss"]) / 2**20
        lines.append(f"| `--{mode}` | {n} | {fmt_s(ours['wall'])} | {fmt_s(peer['wall'])} | {speed:.2f}× | "
                     f"{rss:.0f}{'' if rss <= budget else ' (over)'} | {max(peer['rss']) / 2**20:.0f} | {written:.0f} | {budget:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:  # replace an earlier product-path table, keep the library table above it
        old = open(a.out).read() if os.path.exists(a.out) else ""
        at = old.find("Product path (")
        old = (old[:at] if at >= 0 else old).rstrip("\n")
        with open(a.out, "w") as f:
            f.write((old + "\n\n" if old else "") + text)


if __name__ == "__main__":
    main()
