#!/usr/bin/python3
"""tests/python/test_model_finite.py — the model floor's small refusals of issue 37:
a forward is finite or refused (a float32 overflow on finite weights names its stage and
layer, exit 2, never "nan", no "undefined" probabilities, no JSON `null`, nothing written;
the same checkpoint runs in float64), `--dtype auto` reads an F64 checkpoint holding 1e300
as float64 (once, not refused as too large for float32), `--seed -1` is refused by name on
every verb that takes a seed, and `model heads` on one-token sequences is refused instead
of naming a "highest" head of 0.000."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_model_budget import write_checkpoint  # noqa: E402  (the minGPT-named writer)

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def run(*args):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=60)


def test_float32_overflow(d):
    # q and k of ~1e21 each: their products (~1e42) pass float32's 3.4e38, not float64's.
    ckpt = os.path.join(d, "big.safetensors")
    write_checkpoint(ckpt, 2, 2, 16, 20, 16, values={"transformer.h.1.attn.c_attn.weight": lambda a: a * 1e21})
    p = run("model", "run", ckpt, "--tokens", "1,2,3,4")
    out = p.stdout + p.stderr
    check("float32 overflow: refused, exit 2", p.returncode == 2, f"exit {p.returncode}: {out[-500:]}")
    check("float32 overflow: names the stage and the layer, suggests float64",
          "blocks.1.attn.hook_attn_scores" in p.stderr and "(layer 1)" in p.stderr and "--dtype float64" in p.stderr,
          p.stderr)
    check("float32 overflow: no nan, no 'undefined' probabilities printed",
          "nan" not in out.lower().replace("nanogpt", "") and "undefined" not in out, out[-500:])
    js = os.path.join(d, "run.json")
    p = run("model", "run", ckpt, "--tokens", "1,2,3,4", "--json", js)
    check("float32 overflow with --json: refused, no file (no null for a number)",
          p.returncode == 2 and not os.path.exists(js), f"exit {p.returncode}: {p.stderr}")
    p = run("model", "heads", ckpt, "--length", "4")
    check("float32 overflow in model heads: refused, naming the stage", p.returncode == 2 and "hook_attn_scores" in p.stderr,
          p.stderr)
    p = run("model", "explain", ckpt, "--tokens", "1,2,3,4", "--layer", "1", "--head", "0", "--query", "3")
    check("float32 overflow in model explain: refused, naming the stage",
          p.returncode == 2 and "hook_attn_scores" in p.stderr and "nan" not in p.stdout.lower().replace("nanogpt", ""),
          p.stderr)
    p = run("model", "run", ckpt, "--tokens", "1,2,3,4", "--dtype", "float64")
    check("the same checkpoint in float64: runs (exit 0)",
          p.returncode == 0 and "nan" not in p.stdout.lower().replace("nanogpt", ""), p.stderr)


def test_auto_f64(d):
    # An F64 checkpoint whose unembedding row of token 7 is 1e300: float64's, not float32's.
    ckpt = os.path.join(d, "f64.safetensors")

    def huge_row(a):
        a[7, :] = 1e300 / 16
        return a
    write_checkpoint(ckpt, 1, 2, 16, 20, 16, dtype="F64", values={"transformer.wte.weight": huge_row})
    p = run("model", "run", ckpt, "--tokens", "1,2,3")
    check("--dtype auto on an F64 checkpoint holding 1e300: read as float64, runs (exit 0)",
          p.returncode == 0 and "float64" in p.stdout and "too large" not in p.stderr, f"exit {p.returncode}: {p.stderr}")
    p = run("model", "run", ckpt, "--tokens", "1,2,3", "--dtype", "float32")
    check("--dtype float32 on it: refused as too large for float32 (exit 2)",
          p.returncode == 2 and "float32" in p.stderr, f"exit {p.returncode}: {p.stderr}")


def test_seed(d):
    ckpt = os.path.join(d, "s.safetensors")
    write_checkpoint(ckpt, 1, 2, 16, 20, 16)
    for verb in (["model", "train", "sort", "--out", os.path.join(d, "t.safetensors"), "--iters", "1"],
                 ["model", "heads", ckpt], ["model", "generate", ckpt, "--tokens", "1,2", "--temperature", "1"]):
        for seed in ("-1", "18446744073709551616", "1e3"):
            p = run(*verb, "--seed", seed)
            check(f"{verb[1]} --seed {seed}: refused by name (exit 2)",
                  p.returncode == 2 and "--seed" in p.stderr and "18446744073709551615" in p.stderr, p.stderr)
    p = run("model", "heads", ckpt, "--seed", "18446744073709551615")
    check("model heads --seed 2^64 − 1: accepted", p.returncode == 0, p.stderr)
    check("model train refused by --seed: nothing written", not os.path.exists(os.path.join(d, "t.safetensors")))


def test_heads_one_token(d):
    ckpt = os.path.join(d, "h.safetensors")
    write_checkpoint(ckpt, 1, 2, 16, 20, 16)
    p = run("model", "heads", ckpt, "--tokens", "1")
    check("model heads --tokens 1: refused (exit 2), no head named highest",
          p.returncode == 2 and "--tokens" in p.stderr and "at least 2 tokens" in p.stderr and "highest" not in p.stdout,
          f"exit {p.returncode}: {p.stdout[-300:]} {p.stderr}")
    p = run("model", "heads", ckpt, "--tokens", "1,2")
    check("model heads --tokens 1,2: scored (exit 0)", p.returncode == 0, p.stderr)


def test_decode_overflow(d):
    # Both residual writes of layer 0 add 3e38: each is finite in float32, their sum (6e38)
    # is not. generate's cached decode (model/decode) must refuse it by layer and stage,
    # before a greedy pick of nan logits prints a token (main's attn printed #10 five times).
    ckpt = os.path.join(d, "resid.safetensors")
    full = lambda a: np.full(a.shape, 3e38)
    write_checkpoint(ckpt, 2, 2, 16, 20, 16, values={"transformer.h.0.attn.c_proj.bias": full,
                                                     "transformer.h.0.mlp.c_proj.bias": full})
    p = run("model", "generate", ckpt, "--tokens", "1,2,3", "--new", "5")
    out = p.stdout + p.stderr
    check("float32 decode overflow: refused, exit 2", p.returncode == 2, f"exit {p.returncode}: {out[-500:]}")
    check("float32 decode overflow: names the layer, the stage, the position and --dtype float64",
          "the float32 decode overflows at blocks.0." in p.stderr and "(layer 0)" in p.stderr and "position 0" in p.stderr
          and "--dtype float64" in p.stderr, p.stderr)
    generated = p.stdout.split("values.")[-1] if "values." in p.stdout else p.stdout
    check("float32 decode overflow: no nan, no generated token printed (only the prompt's)",
          "nan" not in out.lower().replace("nanogpt", "") and "#10" not in generated and "Stopped after" not in p.stdout,
          out[-500:])
    js = os.path.join(d, "gen.json")
    p = run("model", "generate", ckpt, "--tokens", "1,2,3", "--new", "5", "--json", js, "--logits")
    check("float32 decode overflow with --json --logits: refused, no file", p.returncode == 2 and not os.path.exists(js),
          f"exit {p.returncode}: {p.stderr}")
    p = run("model", "generate", ckpt, "--tokens", "1,2,3", "--new", "5", "--temperature", "1")
    check("float32 decode overflow when sampling: refused, exit 2", p.returncode == 2 and "decode overflows" in p.stderr,
          f"exit {p.returncode}: {p.stderr}")
    p = run("model", "generate", ckpt, "--tokens", "1,2,3", "--new", "5", "--dtype", "float64", "--json", js)
    ok = p.returncode == 0 and os.path.exists(js)
    ids = json.load(open(js))["ids"] if ok else []
    check("the same checkpoint in float64: generates 5 tokens (exit 0)", ok and len(ids) == 5, f"exit {p.returncode}: {p.stderr}")


def main():
    d = tempfile.mkdtemp(prefix="attn-finite-")
    try:
        for t in (test_float32_overflow, test_decode_overflow, test_auto_f64, test_seed, test_heads_one_token):
            sub = os.path.join(d, t.__name__)
            os.makedirs(sub)
            t(sub)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
