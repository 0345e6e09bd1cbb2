"""tests/python/model_train_reference.py — the PyTorch side of the training tests:
minGPT's GPT written out (pre-norm blocks, causal attention with biases, tanh-GELU MLP,
untied lm_head without bias or tied to wte, no dropout), safetensors read and written
by hand (8-byte header length, JSON header, raw little-endian data) in minGPT's
naming, and minGPT's AdamW set-up (decay on Linear weights only)."""
import json
import math
import os
import shutil
import struct
import subprocess
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(1)

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SANITIZE = os.environ.get("ATTN_SLOW_BUILD", "0") == "1"  # sanitizer or Debug build: train tiny


def scratch():
    d = tempfile.mkdtemp(prefix="attn-train-")
    import atexit
    atexit.register(shutil.rmtree, d, True)
    return d


class Block(nn.Module):
    def __init__(self, d, heads, mlp):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.attn = nn.Module()
        self.attn.c_attn = nn.Linear(d, 3 * d)
        self.attn.c_proj = nn.Linear(d, d)
        self.has_mlp = mlp
        if mlp:
            self.ln_2 = nn.LayerNorm(d)
            self.mlp = nn.Module()
            self.mlp.c_fc = nn.Linear(d, 4 * d)
            self.mlp.c_proj = nn.Linear(4 * d, d)

    def pattern(self, x):
        B, T, C = x.shape
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(C, dim=2)
        hs = C // self.heads
        q = q.view(B, T, self.heads, hs).transpose(1, 2)
        k = k.view(B, T, self.heads, hs).transpose(1, 2)
        v = v.view(B, T, self.heads, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = att.masked_fill(~mask, float("-inf"))
        return F.softmax(att, dim=-1), v

    def forward(self, x):
        B, T, C = x.shape
        att, v = self.pattern(x)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.attn.c_proj(y)
        if self.has_mlp:
            x = x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh"))
        return x


class GPT(nn.Module):
    def __init__(self, layers, heads, d, vocab, positions, mlp=True, tied=False):
        super().__init__()
        self.config = dict(n_layer=layers, n_head=heads, n_embd=d, vocab_size=vocab, n_positions=positions)
        self.tied = tied
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab, d), wpe=nn.Embedding(positions, d),
            h=nn.ModuleList([Block(d, heads, mlp) for _ in range(layers)]), ln_f=nn.LayerNorm(d)))
        if not tied:
            self.lm_head = nn.Linear(d, vocab, bias=False)

    def residual(self, idx, upto=None):
        t = self.transformer
        x = t.wte(idx) + t.wpe(torch.arange(idx.shape[1]))
        for i, b in enumerate(t.h):
            if upto is not None and i == upto:
                return x
            x = b(x)
        return x

    def forward(self, idx, targets=None):
        x = self.transformer.ln_f(self.residual(idx))
        w = self.transformer.wte.weight if self.tied else self.lm_head.weight
        logits = x @ w.t()
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-1)

    def pattern(self, idx, layer):
        """[B, heads, T, T] of one layer."""
        return self.transformer.h[layer].pattern(self.residual(idx, layer))[0]


def randomize(model, seed, scale=0.3):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in model.named_parameters():
            p.add_(torch.randn(p.shape, generator=g, dtype=p.dtype) * scale)


_DT = {"F64": (torch.float64, 8), "F32": (torch.float32, 4)}


def write_safetensors(path, tensors, metadata):
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        t = t.detach().contiguous()
        dt = "F64" if t.dtype == torch.float64 else "F32"
        raw = t.numpy().tobytes()
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_safetensors(path):
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    out = {}
    for name, e in header.items():
        dt, size = _DT[e["dtype"]]
        a, b = e["data_offsets"]
        arr = np.frombuffer(data[8 + n + a:8 + n + b], dtype="<f8" if size == 8 else "<f4").reshape(e["shape"])
        out[name] = torch.from_numpy(arr.copy())
    return out, meta


def save_model(model, path):
    meta = dict(model.config, layer_norm_epsilon="1e-05")
    write_safetensors(path, dict(model.state_dict()), meta)


def load_model(path, dtype=torch.float64):
    tensors, meta = read_safetensors(path)
    cfg = {k: int(meta[k]) for k in ("n_layer", "n_head", "n_embd", "vocab_size", "n_positions")}
    mlp = any(".mlp." in k for k in tensors)
    tied = "lm_head.weight" not in tensors
    m = GPT(cfg["n_layer"], cfg["n_head"], cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"], mlp, tied).to(dtype)
    m.load_state_dict({k: v.to(dtype) for k, v in tensors.items()}, strict=True)
    return m, meta


def optimizer(model, lr, wd=0.1, betas=(0.9, 0.95)):
    """minGPT's configure_optimizers: weight decay on nn.Linear weights only."""
    decay, no_decay = [], []
    for mn, m in model.named_modules():
        for pn, p in m.named_parameters(recurse=False):
            (decay if isinstance(m, nn.Linear) and pn == "weight" else no_decay).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}],
                             lr=lr, betas=betas)


def write_data(path, batches):
    """Each batch (tokens list of sequences, score_from) as lines 'a b c | d e'."""
    with open(path, "w") as f:
        for seq, score_from in batches:
            if score_from > 1:
                f.write(" ".join(map(str, seq[:score_from])) + " | " + " ".join(map(str, seq[score_from:])) + "\n")
            else:
                f.write(" ".join(map(str, seq)) + "\n")


def batch_tensors(lines, T):
    x, y = [], []
    for seq, score_from in lines:
        xs = [seq[t] if t < len(seq) else 0 for t in range(T)]
        ys = [seq[t + 1] if t + 1 < len(seq) and t + 1 >= score_from else -1 for t in range(T)]
        x.append(xs)
        y.append(ys)
    return torch.tensor(x), torch.tensor(y)


def attn(*args, check=True):
    r = subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=900)
    if check and r.returncode != 0:
        raise SystemExit(f"attn {' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r
