#!/usr/bin/python3
"""tests/python/test_model_budget.py — the model floor's memory budget (issue 37, build 4):
every case the issue lists that took gigabytes is refused before anything is allocated
(exit 2, naming the input, the size, the budget and --max-elements), its peak RSS
measured by the kernel (wait4's ru_maxrss) staying far under the budget; `model info`
reads a 10 GB sparse checkpoint's header only; a run the budget admits stays under it.
`model run` is charged the parameters and what its forward keeps (issue 32: the stages
asked for, not every stage of every layer): run_charge below counts it here, buffer by
buffer from the forward's description, and a budget of exactly that count admits the run
while one number less refuses it.

The checkpoints are written here (minGPT naming, config in __metadata__), the sparse one
with a hole in place of its 10 GB of weights."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
BUDGET = 2 ** 28          # io::default_max_elements
MIB = 1024 * 1024
# Under AddressSanitizer (ATTN_SLOW_BUILD=1) freed memory waits in its quarantine (256 MiB)
# beside shadow memory, so an admitted run's peak RSS is not attn's: those bounds are checked
# in the release build only; every exit code and refusal is checked in both.
SANITIZED = os.environ.get("ATTN_SLOW_BUILD") == "1"
REFUSAL_RSS = (400 if SANITIZED else 200) * MIB  # a refusal holds the binary, a header, a command line
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def run(*args, timeout=60):
    """(exit code, stderr, peak RSS in bytes, seconds) of `attn args`; the RSS is this
    child's own (wait4), not the maximum over every child so far."""
    start = time.monotonic()
    p = subprocess.Popen([ATTN, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    err = p.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, usage.ru_maxrss * 1024, time.monotonic() - start


def gpt_tensors(n_layer, n_embd, vocab, n_pos):
    """minGPT's names and shapes (nn.Linear [out, in]), tied embedding."""
    C = n_embd
    t = {"transformer.wte.weight": (vocab, C), "transformer.wpe.weight": (n_pos, C),
         "transformer.ln_f.weight": (C,), "transformer.ln_f.bias": (C,)}
    for l in range(n_layer):
        h = f"transformer.h.{l}."
        t.update({h + "ln_1.weight": (C,), h + "ln_1.bias": (C,), h + "attn.c_attn.weight": (3 * C, C),
                  h + "attn.c_attn.bias": (3 * C,), h + "attn.c_proj.weight": (C, C), h + "attn.c_proj.bias": (C,),
                  h + "ln_2.weight": (C,), h + "ln_2.bias": (C,), h + "mlp.c_fc.weight": (4 * C, C),
                  h + "mlp.c_fc.bias": (4 * C,), h + "mlp.c_proj.weight": (C, 4 * C), h + "mlp.c_proj.bias": (C,)})
    return t


def write_checkpoint(path, n_layer, n_head, n_embd, vocab, n_pos, sparse=False, dtype="F32", values=None):
    """Random small weights (or, sparse, a hole the size of the weights: nothing on disk);
    values: {tensor name: a function of the random array giving the array written}."""
    shapes = gpt_tensors(n_layer, n_embd, vocab, n_pos)
    size = {"F32": 4, "F64": 8}[dtype]
    header, offset = {"__metadata__": {"n_layer": str(n_layer), "n_head": str(n_head), "n_embd": str(n_embd),
                                       "vocab_size": str(vocab), "n_positions": str(n_pos)}}, 0
    for name in sorted(shapes):
        n = int(np.prod(shapes[name]))
        header[name] = {"dtype": dtype, "shape": list(shapes[name]), "data_offsets": [offset, offset + n * size]}
        offset += n * size
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    rng = np.random.default_rng(7)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        if sparse:
            f.truncate(8 + len(h) + offset)
            return offset
        for name in sorted(shapes):
            a = rng.normal(0, 0.02, shapes[name])
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name.endswith("ln_f.weight"):
                a = np.ones(shapes[name])
            if values and name in values:
                a = values[name](a)
            f.write(a.astype("<f4" if dtype == "F32" else "<f8").tobytes())
    return offset


def run_charge(n_layer, n_head, n_embd, vocab, n_pos, B, P, kept_layers=0):
    """The numbers `attn model run` holds for the GPT-2-family checkpoint write_checkpoint
    makes (LayerNorm with biases, learned positions, GELU MLP of 4·d, tied): its parameters,
    the traced forward's one block of working buffers reused layer after layer, the final
    norm, the stages it keeps whatever is asked (hook_embed, hook_pos_embed, ln_final,
    logits, probs) and every stage of `kept_layers` layers (--layer: one). The working block
    holds the [B, heads, P, P] score grids only when a layer is kept: the others' attention
    runs a few query rows at a time."""
    params = sum(int(np.prod(s)) for s in gpt_tensors(n_layer, n_embd, vocab, n_pos).values())
    N, C, F, grid = B * P, n_embd, 4 * n_embd, B * n_head * P * P
    ln_rows = 2 * N * C + 2 * N  # a layer norm's normalized and output rows, its means and 1/std
    working_grids = 2 * grid if kept_layers else 0
    block = (ln_rows + N * 3 * C + working_grids + N * C + N * C + N * C + N * C  # ln1, qkv, scores + pattern, z, attn_out, resid_mid, resid_post
             + ln_rows + N * C + 3 * N * F)  # ln2, mlp_out, mlp_pre + mlp_post + GELU's tanh
    working = N * C + block + ln_rows + N  # the stream, one block, ln_final's buffers, the losses
    outputs = 2 * N * C + 2 * N * vocab + ln_rows  # hook_embed, hook_pos_embed, logits, probs, ln_final
    kept = (3 * N * C + ln_rows + 3 * N * C + 2 * grid + N * C  # resid_pre, attn_out, resid_post, ln1, q k v, scores, pattern, z
            + 2 * N * C + ln_rows + 2 * N * F)  # resid_mid, mlp_out, ln2, mlp_pre, mlp_post
    return params + working + outputs + kept_layers * kept


def refused(name, args, words):
    code, err, rss, secs = run(*args)
    check(f"{name}: refused, exit 2", code == 2, f"exit {code}: {err[-400:]}")
    check(f"{name}: the message names {words}, the budget and --max-elements",
          all(w in err for w in words) and str(BUDGET) in err and "--max-elements" in err and "nan" not in err, err)
    check(f"{name}: peak RSS {rss / MIB:.0f} MiB under {REFUSAL_RSS // MIB} MiB, {secs:.2f} s",
          0 < rss < REFUSAL_RSS and secs < 10, f"{rss / MIB:.0f} MiB, {secs:.1f} s")
    return err


def ids(n, vocab, seed=1):
    return ",".join(str(x) for x in np.random.default_rng(seed).integers(0, vocab, n))


def main():
    d = tempfile.mkdtemp(prefix="attn-budget-")
    try:
        # A valid 4,096-position checkpoint (2 layers × 8 heads, d 32): its stages at 4,096
        # tokens are 2 · 8 · 4096² scores and patterns — gigabytes, refused.
        long_ckpt = os.path.join(d, "long.safetensors")
        write_checkpoint(long_ckpt, 2, 8, 32, 50, 4096)
        # Predictions only hold no score grid; showing a layer keeps its scores and patterns
        # and the working block's: 4 · 8 · 4096² = 2^29.
        check("4,096 tokens: the predictions fit the budget, a layer shown is past it",
              run_charge(2, 8, 32, 50, 4096, 1, 4096) <= BUDGET < run_charge(2, 8, 32, 50, 4096, 1, 4096, kept_layers=1))
        refused("model run --layer 0, 4,096 tokens on a 4,096-position model",
                ["model", "run", long_ckpt, "--tokens", ids(4096, 50), "--layer", "0", "--head", "0"],
                ["--tokens", "4096 tokens", "numbers"])
        refused("model heads --length 2048", ["model", "heads", long_ckpt, "--length", "2048"], ["--length", "4096 tokens"])
        # 8 rows of 1,024: the predictions fit (one block's grids are 2 · 8 · 8 · 1024² = 2^27),
        # but showing a layer keeps its stages beside them (2^27 more): refused.
        row = ids(1024, 50)
        check("8 rows of 1,024 tokens: the predictions fit the budget, one layer's stages more do not",
              run_charge(2, 8, 32, 50, 4096, 8, 1024) <= BUDGET < run_charge(2, 8, 32, 50, 4096, 8, 1024, kept_layers=1))
        refused("model run --layer 0, 8 rows of 1,024 tokens",
                ["model", "run", long_ckpt, "--layer", "0", "--head", "0"] + ["--tokens", row] * 8,
                ["8 sequences", "1024 tokens"])
        refused("model explain at 4,096 tokens",
                ["model", "explain", long_ckpt, "--tokens", ids(4096, 50), "--layer", "0", "--head", "0", "--query", "5"],
                ["--tokens", "forward"])
        refused("model patch at 4,096 tokens",
                ["model", "patch", long_ckpt, "--clean-tokens", ids(4096, 50), "--corrupt-tokens", ids(4096, 50, 2),
                 "--metric", "loss"], ["--clean-tokens", "3 forwards"])

        # Training with every flag inside its documented range.
        out = os.path.join(d, "t.safetensors")
        refused("model train --batch 65536 --d-model 2048 --layers 48 --heads 64",
                ["model", "train", "sort", "--out", out, "--batch", "65536", "--d-model", "2048", "--layers", "48",
                 "--heads", "64", "--iters", "1"], ["--batch", "65536"])
        check("model train refused: nothing written", not os.path.exists(out))
        data = os.path.join(d, "line.txt")
        with open(data, "w") as f:
            f.write(" ".join(str(i % 90) for i in range(1024)) + "\n")
        refused("model train --data, one line of 1,024 tokens", ["model", "train", "--data", data, "--out", out, "--iters", "1"],
                ["64 × 1023 tokens"])

        # A 10 GB checkpoint that is a hole: its header names 2.5 billion numbers.
        sparse = os.path.join(d, "sparse.safetensors")
        nbytes = write_checkpoint(sparse, 1, 4, 64, 40_000_000, 64, sparse=True)
        check("the sparse checkpoint is 10 GB long and takes no room",
              os.path.getsize(sparse) > 10 ** 10 and os.stat(sparse).st_blocks * 512 < 10 * MIB, str(nbytes))
        code, err, rss, secs = run("model", "info", sparse)
        check(f"model info on the 10 GB sparse file: the header only (exit 0, {secs:.2f} s, {rss / MIB:.0f} MiB)",
              code == 0 and secs < 5 and rss < REFUSAL_RSS, f"exit {code}, {rss / MIB:.0f} MiB: {err[-300:]}")
        refused("model run on the 10 GB sparse file", ["model", "run", sparse, "--tokens", "1,2,3"],
                [sparse, "embed.W_E [40000000 × 64]", "parameters"])
        refused("model generate on the 10 GB sparse file", ["model", "generate", sparse, "--tokens", "1,2,3"],
                [sparse, "parameters"])

        # A 40 MB text to `model tokenize --json`: refused before encoding (the tokenizer keeps
        # about 44 bytes a byte); a quarter of a megabyte is encoded within what it was charged.
        gguf = os.path.join(SRC, "lessons", "models", "stories260K.gguf")
        big = os.path.join(d, "big.txt")
        words = ("Once upon a time there was a little girl named Lily who liked to play " * 8).encode()
        with open(big, "wb") as f:
            f.write(words * (40 * MIB // len(words)))
        refused("model tokenize --json on a 40 MB text", ["model", "tokenize", "--tokenizer", gguf, "--file", big, "--json"],
                [big, "tokenizing its"])
        small = os.path.join(d, "small.txt")
        with open(small, "wb") as f:
            f.write(words * (MIB // 4 // len(words)))
        code, out, rss, _ = run("model", "tokenize", "--tokenizer", gguf, "--file", small, "--json")
        base = run("model", "tokenize", "--tokenizer", gguf, "x")[2]
        check(f"model tokenize --json on 256 KB: exit 0, peak RSS {rss / MIB:.0f} MiB ≤ {base / MIB:.0f} MiB + 8 numbers a byte",
              code == 0 and (SANITIZED or rss <= base + 64 * os.path.getsize(small)), f"exit {code}: {out[-300:]}")

        # A run the budget admits stays under it: 2 layers × 8 heads at 1,024 tokens; the
        # budget is exactly what run_charge counts (float32, so 4 bytes a number), and one
        # number less is refused; --layer 0 keeps that layer's stages too: refused there.
        budget = run_charge(2, 8, 32, 50, 4096, 1, 1024)
        code, err, rss, _ = run("model", "run", long_ckpt, "--tokens", ids(1024, 50), "--max-elements", str(budget))
        base = run("model", "run", long_ckpt, "--tokens", "1,2")[2]
        check(f"an admitted run at a budget of exactly its {budget} numbers: exit 0, peak RSS {rss / MIB:.0f} MiB ≤ "
              f"{base / MIB:.0f} MiB + 4 bytes × {budget}",
              code == 0 and (SANITIZED or rss <= base + 4 * budget), f"exit {code}: {err[-300:]}")
        code, err, _, _ = run("model", "run", long_ckpt, "--tokens", ids(1024, 50), "--max-elements", str(budget - 1))
        check("the same run under a budget one number smaller: refused", code == 2 and "--max-elements" in err, err[-300:])
        code, err, _, _ = run("model", "run", long_ckpt, "--tokens", ids(1024, 50), "--layer", "0", "--head", "0",
                              "--max-elements", str(budget))
        check("--layer 0 at the predictions' budget: refused (its layer's stages are kept too)",
              code == 2 and "one layer's stages" in err, err[-300:])
        # --layer 0 on 64 tokens (a table small enough to print): exactly its count admits it.
        layer = run_charge(2, 8, 32, 50, 4096, 1, 64, kept_layers=1)
        for given, want in [(layer, 0), (layer - 1, 2)]:
            code, err, _, _ = run("model", "run", long_ckpt, "--tokens", ids(64, 50), "--layer", "0", "--head", "0",
                                  "--max-elements", str(given))
            check(f"--layer 0 on 64 tokens at a budget of {given} numbers (its count: {layer}): exit {want}",
                  code == want, f"exit {code}: {err[-300:]}")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
