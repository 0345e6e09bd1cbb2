#!/usr/bin/python3
"""tests/python/test_model_run_grad.py — `attn model run CKPT --tokens … --layer L --head H
--grad` prints the gradient stages grad.blocks.L.attn.hook_pattern and
grad.blocks.L.attn.hook_attn_scores of one head (dLoss/d of that stage, the loss the
mean next-token cross-entropy of the sequences), as the forward's stages are printed.
Checked against PyTorch autograd on random float64 models (with and without MLP, two
sequences, each head of layer 1 and one of layer 0), to the 6 printed decimals (masked
cells above the diagonal print 0); and its
refusals (no head, sequences of two lengths, one token) exit 2 naming the fix."""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

tmp = ref.scratch()


def reference(model, rows, layer):
    """dLoss/dpattern and dLoss/dscores [B, heads, P, P] of `layer` by autograd."""
    kept = {}
    blk = model.transformer.h[layer]

    def pattern(x):  # Block.pattern with the scores and pattern kept for their gradients
        B, T, C = x.shape
        q, k, v = blk.attn.c_attn(blk.ln_1(x)).split(C, dim=2)
        hs = C // blk.heads
        q, k, v = (t.view(B, T, blk.heads, hs).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        scores.retain_grad()
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = F.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        att.retain_grad()
        kept["scores"], kept["pattern"] = scores, att
        return att, v

    blk.pattern = pattern
    idx = torch.tensor(rows)
    targets = torch.cat([idx[:, 1:], torch.full((idx.shape[0], 1), -1)], dim=1)
    _, loss = model(idx, targets)
    loss.backward()
    del blk.pattern
    return float(loss), kept["pattern"].grad, kept["scores"].grad


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


worst = 0.0
for mlp in (True, False):
    model = ref.GPT(2, 2, 8, 7, 8, mlp=mlp).to(torch.float64)
    ref.randomize(model, 3 if mlp else 4)
    ckpt = os.path.join(tmp, f"m{int(mlp)}.safetensors")
    ref.save_model(model, ckpt)
    rows = [[1, 4, 2, 6, 4, 0], [3, 3, 5, 1, 2, 5]]
    for layer, head, b in ((1, 0, 0), (1, 1, 1), (0, 1, 0)):
        loss, g_pat, g_sc = reference(model, rows, layer)
        model.zero_grad()
        args = ["model", "run", ckpt, "--layer", str(layer), "--head", str(head), "--batch", str(b), "--grad", "--width", "200"]
        for r in rows:
            args += ["--tokens", ",".join(map(str, r))]
        text = ref.attn(*args).stdout
        got = re.search(r"over 10 positions = ([0-9.]+)", text)
        assert got and abs(float(got.group(1)) - loss) <= 6e-7, (text, loss)
        t = tables(text)
        assert set(t) == {"hook_pattern", "hook_attn_scores"}, t.keys()
        causal = torch.tril(torch.ones(6, 6, dtype=torch.bool))
        for name, want in (("hook_pattern", g_pat), ("hook_attn_scores", g_sc)):
            # Above the diagonal a weight is 0 by the mask, not by the scores: autograd
            # still gives dLoss/dpattern there (as if the cell could move), attn prints
            # 0, the gradient no parameter receives; both give 0 for the scores.
            assert (t[name][~causal] == 0).all(), f"{name}: a masked cell is not 0\n{text}"
            diff = float((t[name] - want[b, head].masked_fill(~causal, 0)).abs().max())
            worst = max(worst, diff)
            assert diff <= 6e-7, f"mlp {mlp} layer {layer} head {head} {name}: differs by {diff}\n{text}"
print(f"ok: the printed gradients are PyTorch autograd's within {worst:.1e}")

# Refusals: exit 2 and say what to give.
for args, words in ((["--grad"], "give --layer L --head H"),
                    (["--grad", "--layer", "0", "--head", "0", "--tokens", "1,2"], "same length"),
                    (["--layer", "0", "--head", "0", "--grad"], "at least 2 tokens")):
    tokens = ["--tokens", "1"] if words == "at least 2 tokens" else ["--tokens", "1,2,3"]
    r = ref.attn("model", "run", ckpt, *tokens, *args, check=False)
    assert r.returncode == 2 and words in r.stderr, (args, r.returncode, r.stderr)
print("ok: refusals")
