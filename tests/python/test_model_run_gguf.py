#!/usr/bin/python3
"""tests/python/test_model_run_gguf.py — `attn model run` on a Llama-family file another
program wrote: lessons/models/stories260K.gguf (llama2.c's model, converted by llama.cpp's
tools; provenance in lessons/models/README.md), every stage against an independent
PyTorch forward (llama_reference.py: its own GGUF reader, RMSNorm, rotary positions,
grouped-query attention with 8 query heads over 4 key/value heads, SwiGLU).

attn computes in float64 (`--dtype float64`) and writes every stage with `--json`; each
stage the reference names (hook_embed … logits, 104 of them) must be there, of the same
shape, equal to 1e-10 relative to the stage's largest value. Two sequences in one batch
check that rows do not mix. Then the same in float32 to 1e-5, and the greedy next tokens
attn prints are the reference's."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", ".")
STORIES = os.path.join(SOURCE, "lessons", "models", "stories260K.gguf")
BATCH = [[1, 403, 407, 409, 300, 12, 29, 511], [1, 7, 7, 7, 250, 3, 0, 64]]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run_json(dtype):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stages.json")
        args = [ATTN, "model", "run", STORIES, "--dtype", dtype, "--json", out]
        for row in BATCH:
            args += ["--tokens", ",".join(map(str, row))]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, f"attn model run exits {r.returncode}: {r.stderr[-300:]}")
        with open(out, encoding="utf-8") as f:
            return json.load(f)["stages"], r.stdout


def compare(stages, reference, tol, label):
    worst, name = 0.0, ""
    for key, value in reference.items():
        want = value.detach().numpy()
        check(key in stages, f"{label}: attn has no stage {key}")
        if key not in stages:
            continue
        got = np.array(stages[key]["data"], dtype=float)
        check(list(got.shape) == list(stages[key]["shape"]) or got.size == np.prod(stages[key]["shape"]),
              f"{label}: {key}'s data and shape disagree")
        got = got.reshape(stages[key]["shape"])
        if got.size != want.size:
            check(False, f"{label}: {key} has shape {list(got.shape)}, the reference {list(want.shape)}")
            continue
        want = want.reshape(got.shape)
        finite = np.isfinite(want)
        check(np.array_equal(finite, np.isfinite(got)), f"{label}: {key}'s masked cells differ")
        err = np.abs(got[finite] - want[finite]).max() / max(1.0, np.abs(want[finite]).max())
        if err > worst:
            worst, name = err, key
    check(worst <= tol, f"{label}: {name} differs by {worst:.3g} (relative), over {tol}")
    print(f"{label}: {len(reference)} stages, worst {worst:.3g} ({name})")


def main():
    cfg, weights = ref.read_gguf_llama(STORIES)
    check((cfg.n_heads, cfg.n_kv_heads) == (8, 4), f"stories260K is grouped-query 8/4: {cfg.n_heads}/{cfg.n_kv_heads}")
    reference = ref.forward(weights, cfg, BATCH)
    stages, _ = run_json("float64")
    compare(stages, reference, 1e-10, "float64")
    w32 = {k: v.to(torch.float32) for k, v in weights.items()}
    stages32, stdout = run_json("float32")
    compare(stages32, ref.forward(w32, cfg, BATCH), 1e-5, "float32")
    greedy = reference["logits"].argmax(-1)  # [batch, pos]
    got = np.array(stages["logits"]["data"], dtype=float).reshape(stages["logits"]["shape"]).argmax(-1)
    check(np.array_equal(got, greedy.numpy()), "the greedy next tokens of attn's logits are the reference's")
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
