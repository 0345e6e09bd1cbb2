#!/usr/bin/python3
"""tests/python/test_model_trained.py — a model trained by PyTorch in this test, run by
attn. A 2-layer GPT (tests/python/gpt_reference.py's forward, every parameter trained
with AdamW) learns in a few hundred steps to say, at each position, the token one
before it (a previous-token task: attention must carry it). Saved as an F32
checkpoint in the Hugging Face layout, then:
  * `attn model run --tokens …` prints, at every position, the greedy next token that
    PyTorch's own logits give (argmax), on fresh sequences, and the model has learnt
    the task (so the predictions are the trained ones, not noise);
  * `attn model heads --tokens …` finds a previous-token head (score > 0.9) and its
    three scores equal TransformerLens's head_detector formula computed here on
    PyTorch's own patterns (1e-4)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import gpt_reference as ref  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
CFG = {"n_layer": 2, "n_head": 2, "n_embd": 32, "vocab_size": 10, "n_positions": 12, "has_mlp": True, "tied": True}
P = 12
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def batch(g, n):
    x = torch.randint(0, CFG["vocab_size"], (n, P), generator=g)
    y = torch.roll(x, 1, dims=1)  # target at position i: the token at i − 1
    return x, y


def train():
    torch.manual_seed(0)
    p = ref.random_params(CFG, seed=5, dtype=torch.float32)
    scale = 0.1
    for k in ("wte", "wpe"):
        p[k] = p[k] * scale
    for b in p["blocks"]:
        for k in b:
            if k.startswith("w_"):
                b[k] = b[k] * scale
    leaves = [p["wte"], p["wpe"], p["lnf_w"], p["lnf_b"]] + [t for b in p["blocks"] for t in b.values()]
    for t in leaves:
        t.requires_grad_(True)
    opt = torch.optim.AdamW(leaves, lr=1e-2, weight_decay=0.0)
    g = torch.Generator().manual_seed(1)
    for _ in range(200):
        x, y = batch(g, 32)
        logits = ref.forward(CFG, p, x.tolist())["logits"]
        loss = torch.nn.functional.cross_entropy(logits[:, 1:].reshape(-1, CFG["vocab_size"]), y[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"trained: last loss {loss.item():.4f}")
    return {k: [{n: t.detach() for n, t in b.items()} for b in v] if k == "blocks" else v.detach() for k, v in p.items()}


def greedy_from_attn(out):
    """The 'next' ids of the greedy table, one per position, from `attn model run`'s text."""
    ids = []
    for line in out.splitlines():
        m = re.match(r"^\s*(\d+) #\d+\s+(?:│\s*)?#(\d+)\s+(\d+)\s+[0-9.]+\s*$", line)
        if m:
            ids.append(int(m.group(3)))
    return ids


def head_scores_reference(patterns, tokens):
    """TransformerLens head_detector ("mul") on [layer][head][q, k] patterns of one sequence."""
    t = np.array(tokens)
    n = len(t)
    prev = np.zeros((n, n))
    prev[1:, :-1] = np.eye(n - 1)
    dup = (t[None, :] == t[:, None]).astype(float)
    np.fill_diagonal(dup, 0)
    dup = np.tril(dup)
    ind = np.tril(np.concatenate([np.zeros((n, 1)), np.roll(dup, 1, axis=1)[:, 1:]], axis=1))
    return {name: np.array([[float((pat * d).sum() / pat.sum()) for pat in layer] for layer in patterns])
            for name, d in (("Previous-token", np.tril(prev)), ("Duplicate-token", dup), ("Induction", ind))}


def scores_from_attn(out, name, L, H):
    """The table 'NAME head scores' of `attn model heads`: rows 'layer l', H numbers."""
    rows, inside = [], False
    for line in out.splitlines():
        if line.startswith(name + " head scores"):
            inside = True
            continue
        if inside:
            m = re.match(r"^\s*layer (\d+)\s+(?:│\s*)?((?:-?[0-9.]+\s*)+)$", line)
            if m:
                rows.append([float(v) for v in m.group(2).split()])
                if len(rows) == L:
                    break
    return np.array(rows) if len(rows) == L else None


def main():
    p = train()
    tmp = tempfile.mkdtemp(prefix="attn-model-trained-")
    try:
        ckpt = ref.save_model(tmp, CFG, p, "hf", dtype=torch.float32)
        g = torch.Generator().manual_seed(99)
        x, y = batch(g, 6)
        right = total = 0
        for row, want in zip(x.tolist(), y.tolist()):
            logits = ref.forward(CFG, p, [row])["logits"][0]
            torch_greedy = logits.argmax(-1).tolist()
            r = subprocess.run([ATTN, "model", "run", ckpt, "--tokens", ",".join(map(str, row)), "--width", "200"],
                               capture_output=True, text=True, timeout=60)
            check(r.returncode == 0, f"attn model run: exit {r.returncode}: {r.stderr}")
            got = greedy_from_attn(r.stdout)
            check(got == torch_greedy, f"{row}: attn's greedy {got} != PyTorch's {torch_greedy}\n{r.stdout}")
            right += sum(a == b for a, b in zip(torch_greedy[1:], want[1:]))
            total += P - 1
        check(right / total > 0.95, f"the model did not learn the task: {right}/{total} right")

        row = x[0].tolist()
        r = subprocess.run([ATTN, "model", "heads", ckpt, "--tokens", ",".join(map(str, row)), "--width", "200",
                            "--color", "never"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"attn model heads: exit {r.returncode}: {r.stderr}")
        cache = ref.forward(CFG, p, [row])
        pats = [[cache[f"blocks.{L}.attn.hook_pattern"][0, h].numpy().astype(np.float64)
                 for h in range(CFG["n_head"])] for L in range(CFG["n_layer"])]
        want = head_scores_reference(pats, row)
        for name, w in want.items():
            got = scores_from_attn(r.stdout, name, CFG["n_layer"], CFG["n_head"])
            check(got is not None, f"no '{name} head scores' table in:\n{r.stdout}")
            if got is not None:
                check(np.max(np.abs(got - w)) <= 1.5e-3, f"{name}: attn {got.tolist()} vs reference {w.tolist()}")
        check(want["Previous-token"].max() > 0.9, f"no previous-token head: {want['Previous-token'].tolist()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok: attn's greedy predictions are the trained model's; its previous-token head found")


if __name__ == "__main__":
    main()
