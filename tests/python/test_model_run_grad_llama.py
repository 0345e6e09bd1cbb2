#!/usr/bin/python3
"""tests/python/test_model_run_grad_llama.py — `attn model run CKPT --layer L --head H
--grad` on the Llama family: grouped-query attention (4 query heads on 2 key/value heads,
half-split rotary pairs), multi-query attention (4 on 1, adjacent pairs) and Qwen2's
q/k/v biases with a tied unembedding. The printed gradient stages
grad.blocks.L.attn.hook_pattern and grad.blocks.L.attn.hook_attn_scores of one head (and
the loss, the mean next-token cross-entropy of the sequences) are checked against
PyTorch autograd through tests/python/llama_reference.py's independent float64 forward,
to the 6 printed decimals (masked cells print 0), for query heads that share a key/value head and ones that do
not, in both sequences of a batch."""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "attn")
VOCAB = 11
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        failures.append(what)


def write_checkpoint(folder, cfg, w, family, pairing):
    """model.safetensors (F64, Hugging Face names) and its config.json."""
    header, blobs, at = {}, [], 0
    for name in sorted(w):
        a = np.ascontiguousarray(w[name].detach().numpy().astype("<f8"))
        header[name] = {"dtype": "F64", "shape": list(a.shape), "data_offsets": [at, at + a.nbytes]}
        blobs.append(a.tobytes())
        at += a.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    config = {"model_type": family, "hidden_size": cfg.d_model, "intermediate_size": cfg.d_mlp,
              "num_attention_heads": cfg.n_heads, "num_hidden_layers": cfg.n_layers,
              "num_key_value_heads": cfg.n_kv_heads, "rms_norm_eps": cfg.eps, "rope_theta": cfg.theta,
              "vocab_size": VOCAB, "max_position_embeddings": 16, "tie_word_embeddings": "lm_head.weight" not in w,
              "rope_pairing": pairing}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)


def reference(w, cfg, rows, layer):
    """The loss and dLoss/dpattern, dLoss/dscores [B, heads, P, P] of `layer` by autograd."""
    w = {k: v.clone().requires_grad_(True) for k, v in w.items()}
    stages = ref.forward(w, cfg, rows)
    pattern = stages[f"blocks.{layer}.attn.hook_pattern"]
    scores = stages[f"blocks.{layer}.attn.hook_attn_scores"]
    pattern.retain_grad()
    scores.retain_grad()
    logits = stages["logits"]
    tokens = torch.tensor(rows)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
    loss.backward()
    return float(loss), pattern.grad, scores.grad


def tables(text):
    """{stage: [P, P] tensor} of the printed tables."""
    out = {}
    for m in re.finditer(r"^(grad\.blocks\.\d\.attn\.\w+) · head \d", text, re.M):
        rows = []
        for line in text[m.end():].splitlines()[2:]:
            cells = line.split()
            if not cells or not re.match(r"^-?\d+\.\d+$", cells[-1]):
                break
            rows.append([float(c) for c in cells[1:]])
        out[m.group(1).rsplit(".", 1)[1]] = torch.tensor(rows, dtype=torch.float64)
    return out


MODELS = [  # (name, family, kv heads, pairing, q/k/v biases, tied)
    ("GQA 4/2, half-split", "llama", 2, "half_split", False, False),
    ("MQA 4/1, adjacent", "llama", 1, "adjacent", False, False),
    ("Qwen2 GQA 4/2, q/k/v biases, tied", "qwen2", 2, "half_split", True, True),
]


def main():
    tmp = tempfile.mkdtemp(prefix="attn-grad-llama-")
    rows = [[1, 4, 2, 6, 4, 0, 9], [3, 3, 5, 1, 2, 5, 10]]
    for i, (name, family, kv, pairing, bias, tied) in enumerate(MODELS):
        cfg = ref.LlamaConfig(d_model=16, n_layers=2, n_heads=4, n_kv_heads=kv, d_head=4, d_mlp=24, vocab=VOCAB,
                              eps=1e-5, theta=10000.0, pairing=pairing)
        w = ref.random_weights(cfg, 20 + i, qkv_bias=bias, tied=tied)
        folder = os.path.join(tmp, f"m{i}")
        os.makedirs(folder)
        write_checkpoint(folder, cfg, w, family, pairing)
        worst = 0.0
        for layer, head, b in ((1, 0, 0), (1, 1, 1), (1, 3, 0), (0, 2, 1)):
            loss, g_pat, g_sc = reference(w, cfg, rows, layer)
            args = [ATTN, "model", "run", os.path.join(folder, "model.safetensors"), "--layer", str(layer), "--head",
                    str(head), "--batch", str(b), "--grad", "--width", "200", "--dtype", "float64"]
            for r in rows:
                args += ["--tokens", ",".join(map(str, r))]
            p = subprocess.run(args, capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                check(False, f"{name}: {' '.join(args[2:])} exit {p.returncode}: {p.stderr[-300:]}")
                continue
            got = re.search(r"over 12 positions = (-?[0-9.]+)", p.stdout)
            check(got is not None and abs(float(got.group(1)) - loss) <= 6e-7,
                  f"{name}: layer {layer} loss {got.group(1) if got else '?'} vs autograd {loss:.6f}")
            t = tables(p.stdout)
            causal = torch.tril(torch.ones(7, 7, dtype=torch.bool))
            for stage, ref_grad in (("hook_pattern", g_pat), ("hook_attn_scores", g_sc)):
                # Above the diagonal a weight is 0 by the mask: autograd still gives
                # dLoss/dpattern there, attn prints 0 (as test_model_run_grad.py says).
                want = ref_grad[b, head].masked_fill(~causal, 0)
                have = t.get(stage)
                if have is None or have.shape != want.shape:
                    check(False, f"{name}: layer {layer} head {head}: no [7 × 7] table of {stage}")
                    continue
                check(bool((have[~causal] == 0).all()), f"{name}: layer {layer} head {head}: {stage} is 0 where masked")
                diff = (have - want).abs().max().item()
                worst = max(worst, diff)
                check(diff <= 6e-7, f"{name}: layer {layer} head {head} sequence {b}: grad {stage} within {diff:.1e}")
            check(g_sc[b, head].abs().max().item() > 1e-4, f"{name}: layer {layer} head {head}: gradients not all 0")
        print(f"{name}: largest difference {worst:.1e}")
    print("model run --grad on the Llama family:", "ok" if not failures else f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
