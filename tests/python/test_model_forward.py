#!/usr/bin/python3
"""tests/python/test_model_forward.py — `attn model run --npy/--json` against a GPT
forward written in PyTorch (tests/python/gpt_reference.py), on random tiny models in
both checkpoint layouts (Hugging Face GPT-2 with and without the "transformer." prefix,
minGPT/nanoGPT), tied and untied, with MLP blocks and attention-only, a batch of two
sequences: every hook to 1e-10 in float64 (F64 file) and 1e-5 in float32 (F32 file).
The JSON must hold the same numbers as the .npy files, masked scores as null. Also:
the failure paths of `attn model run` (exit 2, a message naming what is wrong)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import gpt_reference as ref  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attn(*args):
    return subprocess.run([ATTN, "model", "run", *args], capture_output=True, text=True, timeout=120)


CASES = [  # (name, layout, prefix, has_mlp, tied)
    ("hf", "hf", "", True, True),
    ("hf-prefixed-untied", "hf", "transformer.", True, False),
    ("mingpt", "mingpt", "", True, False),
    ("hf-attention-only", "hf", "", False, True),
]
TOKENS = [[3, 1, 4, 1, 5, 9, 2], [6, 5, 3, 5, 8, 9, 7]]


def compare_npy(folder, cache, tol, what):
    names = set(f[:-4] for f in os.listdir(folder) if f.endswith(".npy"))
    check(names == set(cache), f"{what}: hooks {sorted(names ^ set(cache))} differ from PyTorch's")
    for name, t in cache.items():
        if name not in names:
            continue
        got = np.load(os.path.join(folder, name + ".npy"))
        want = t.detach().numpy()
        check(got.shape == want.shape, f"{what} {name}: shape {got.shape}, PyTorch {want.shape}")
        if got.shape != want.shape:
            continue
        fin = np.isfinite(want)
        check(np.array_equal(np.isfinite(got), fin), f"{what} {name}: -inf cells differ")
        err = float(np.max(np.abs(got[fin] - want[fin]))) if fin.any() else 0.0
        check(err <= tol, f"{what} {name}: max |attn - PyTorch| = {err:.3g} > {tol}")


def compare_json(doc, folder, what):
    for name, st in doc["stages"].items():
        a = np.load(os.path.join(folder, name + ".npy"))
        check(st["shape"] == list(a.shape), f"{what} json {name}: shape")
        data = np.array(st["data"], dtype=object)
        flat = data.reshape(-1)
        want = a.reshape(-1)
        nulls = np.array([x is None for x in flat])
        check(np.array_equal(nulls, ~np.isfinite(want)), f"{what} json {name}: null cells are not the -inf cells")
        # shortest text that reads back: parsed in the file's dtype, it is the .npy's value exactly
        vals = np.array([0.0 if x is None else x for x in flat], dtype=np.float64).astype(want.dtype)
        check(np.array_equal(vals[~nulls], want[~nulls]), f"{what} json {name}: values differ from .npy")


def run_case(tmp, name, layout, prefix, has_mlp, tied):
    cfg = {"n_layer": 2, "n_head": 2, "n_embd": 8, "vocab_size": 13, "n_positions": 9,
           "has_mlp": has_mlp, "tied": tied}
    p = ref.random_params(cfg, seed=len(name))
    args = []
    for row in TOKENS:
        args += ["--tokens", ",".join(map(str, row))]
    for dtype, tdt, tol in (("float64", torch.float64, 1e-10), ("float32", torch.float32, 1e-5)):
        folder = os.path.join(tmp, f"{name}-{dtype}")
        ckpt = ref.save_model(folder, cfg, p, layout, dtype=tdt, prefix=prefix)
        pt = ref.cast_params(p, tdt)
        if layout == "mingpt" and "lm_head" not in pt:
            pt["lm_head"] = pt["wte"]
        cache = ref.forward(cfg, pt, TOKENS)
        out = os.path.join(folder, "stages")
        r = attn(ckpt, *args, "--npy", out)
        check(r.returncode == 0, f"{name} {dtype}: exit {r.returncode}: {r.stderr}")
        if r.returncode != 0:
            continue
        compare_npy(out, cache, tol, f"{name} {dtype}")
        dt = np.load(os.path.join(out, "logits.npy")).dtype
        check(dt == (np.float64 if dtype == "float64" else np.float32), f"{name} {dtype}: .npy dtype {dt}")
        r = attn(ckpt, *args, "--json", "-")
        check(r.returncode == 0, f"{name} {dtype} --json: exit {r.returncode}: {r.stderr}")
        if r.returncode == 0:
            doc = json.loads(r.stdout)
            check(doc["batch"] == 2 and doc["n_pos"] == 7, f"{name}: batch/n_pos in JSON")
            check(doc["tokens"]["ids"] == TOKENS, f"{name}: token ids in JSON")
            check(list(doc["stages"]) == list(cache), f"{name}: JSON stage order is not the forward's")
            compare_json(doc, out, f"{name} {dtype}")


def failure_paths(tmp):
    cfg = {"n_layer": 1, "n_head": 2, "n_embd": 8, "vocab_size": 13, "n_positions": 9}
    ckpt = ref.save_model(os.path.join(tmp, "bad"), cfg, ref.random_params(cfg, seed=1), "hf")
    cases = [
        ((ckpt, "--tokens", "1,2,x"), "'x' is not a token id"),
        ((ckpt, "--tokens", "1,13"), "token 2 is 13, outside the vocabulary 0 … 12"),
        ((ckpt, "--tokens", "1,2", "--tokens", "3"), "sequence 2: 1 tokens, but sequence 1 has 2"),
        ((ckpt, "--tokens", ",".join(["1"] * 10)), "10 tokens, but the model has 9 positions"),
        ((ckpt,), "give the input"),
        ((ckpt, "--text", "hi"), "--text needs --tokenizer"),
        ((ckpt, "--tokens", "1", "--text", "hi"), "either --tokens or --text"),
        ((ckpt, "--tokens", "1,2", "--layer", "0"), "--layer and --head go together"),
        ((ckpt, "--tokens", "1,2", "--layer", "1", "--head", "0"), "--layer 1 does not exist: the model has 1 layers"),
        ((ckpt, "--tokens", "1,2", "--layer", "0", "--head", "2"), "--head 2 does not exist"),
        ((ckpt, "--tokens", "1,2", "--layer", "0", "--head", "0", "--query", "zz"), "--query 'zz'"),
        ((os.path.join(tmp, "missing.safetensors"), "--tokens", "1"), "missing.safetensors"),
    ]
    for args, words in cases:
        r = attn(*args)
        check(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2 ({r.stderr.strip()})")
        check(words in r.stderr, f"{args}: stderr lacks {words!r}: {r.stderr.strip()}")
    # a failed export leaves nothing behind
    out = os.path.join(tmp, "never")
    r = attn(ckpt, "--tokens", "1,99", "--npy", out)
    check(r.returncode == 2 and not os.path.exists(out), "a refused run wrote its export folder")


def width(line):
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def views(tmp):
    """The head view and walk-through fit 80 columns; a float32 row of weights sums to 1 (✓);
    `attn model info` reports the file; `attn model heads` scores every layer × head."""
    cfg = {"n_layer": 2, "n_head": 4, "n_embd": 64, "vocab_size": 50, "n_positions": 40}
    p = ref.random_params(cfg, seed=4, dtype=torch.float32)
    ckpt = ref.save_model(os.path.join(tmp, "views"), cfg, p, "mingpt", dtype=torch.float32)
    toks = ",".join(str(i % 50) for i in range(7, 37))
    for extra in ([], ["--query", "29"]):
        r = attn(ckpt, "--tokens", toks, "--layer", "1", "--head", "3", "--width", "80", "--color", "never", *extra)
        check(r.returncode == 0, f"head view {extra}: exit {r.returncode}: {r.stderr}")
        wide = [line for line in r.stdout.splitlines() if width(line) > 80]
        check(not wide, f"head view {extra}: lines wider than 80: {wide[:3]}")
        check("layer 2 of 2, head 4 of 4" in r.stdout, f"head view {extra}: no title")
        check("--layer 1 --head 3 count from 0" in r.stdout, f"head view {extra}: does not say how heads are counted")
    check("Sum of weights = 1.000000 ✓" in r.stdout, "float32 walk-through: weights do not sum to 1 ✓")
    r = subprocess.run([ATTN, "model", "info", ckpt], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "minGPT" in r.stdout and "F32" in r.stdout, f"model info: {r.stdout} {r.stderr}")
    n_params = sum(t.numel() for t in ref.named_tensors(cfg, p, "mingpt").values())  # the file's tensors
    check(f"{n_params:,}" in r.stdout, f"model info: parameter count {n_params:,} not in {r.stdout}")
    r = subprocess.run([ATTN, "model", "info", ckpt, "--hooks", "--positions", "30", "--color", "never"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"model info --hooks: exit {r.returncode}: {r.stderr}")
    cache = ref.forward(cfg, ref.cast_params(p, torch.float64), [list(range(30))])
    for name, t in cache.items():
        if name.startswith("blocks.1."):
            continue  # later blocks are summarised in one line
        shape = " × ".join(str(n) for n in t.shape)
        check(f"  {name} = {shape}\n" in r.stdout, f"model info --hooks: no '{name} = {shape}' in:\n{r.stdout}")
    r = subprocess.run([ATTN, "model", "heads", ckpt, "--width", "80", "--color", "never"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, f"model heads: exit {r.returncode}: {r.stderr}")
    for name in ("Previous-token", "Duplicate-token", "Induction"):
        check(f"{name} head scores" in r.stdout, f"model heads: no {name} table")
    check("20 random tokens (seed 0) repeated twice" in r.stdout, "model heads: input not described")
    check(all(width(line) <= 80 for line in r.stdout.splitlines()), "model heads: lines wider than 80")


def main():
    tmp = tempfile.mkdtemp(prefix="attn-model-forward-")
    try:
        for case in CASES:
            run_case(tmp, *case)
        failure_paths(tmp)
        views(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok: every hook of", len(CASES), "models in float64 (1e-10) and float32 (1e-5)")


if __name__ == "__main__":
    main()
