"""tests/python/model_head_reference.py — one head of a built-in trained checkpoint
(lessons/models/NAME.safetensors) on a token sequence, computed in PyTorch float64
from the file itself (model_train_reference.load_model: minGPT's GPT written out),
never from attn's code: the scaled scores and the weights of one query row, the
position it weights most, and greedy decoding. The reference for the per-student
variants of lessons 20–22 (test_model_variants.py, the fixtures of the mistakes
head_counted_from_0 and other_checkpoint)."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402

ROOT = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
_models = {}


def model(name):
    if name not in _models:
        _models[name] = ref.load_model(os.path.join(ROOT, "lessons", "models", name + ".safetensors"))[0]
    return _models[name]


def head_row(name, tokens, layer, head, row):
    """(scaled scores [row + 1], weights [len(tokens)], argmax) of one query row of one head (from 0)."""
    m = model(name)
    idx = torch.tensor([tokens])
    with torch.no_grad():
        x = m.residual(idx, layer)
        b = m.transformer.h[layer]
        C = x.shape[2]
        q, k, _ = b.attn.c_attn(b.ln_1(x)).split(C, dim=2)
        hs = C // b.heads
        q = q[0, :, head * hs:(head + 1) * hs]  # [T, hs]
        k = k[0, :, head * hs:(head + 1) * hs]
        scaled = (q[row] @ k.T) / math.sqrt(hs)  # [T]
        pattern = m.pattern(idx, layer)[0, head, row]  # [T], 0 above the diagonal
    return scaled[:row + 1].tolist(), pattern.tolist(), int(torch.argmax(pattern))


def greedy(name, tokens, length):
    m = model(name)
    ids = list(tokens)
    with torch.no_grad():
        while len(ids) < length:
            logits, _ = m(torch.tensor([ids]))
            ids.append(int(torch.argmax(logits[0, -1])))
    return ids
