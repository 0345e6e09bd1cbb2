#!/usr/bin/python3
"""bench/peers/train_torch_llama_sort.py — the PyTorch peer of `attn model train sort --arch
llama`: the same Llama-shaped sort model written as Meta's / Hugging Face's Llama is (3
layers, 3 heads with key/value heads = heads, d_model 48, d_head 16, RMSNorm eps 1e-5,
rotary positions over all of d_head in the half-split pairing (rotate_half) with theta
10,000, q/k/v/o projections without biases, SwiGLU MLP of width 4·48 = 192 without biases,
final RMSNorm, untied lm_head without bias, vocabulary 3, 11 positions), initialised as attn
does (N(0, 0.02); W_O and the MLP's down projection N(0, 0.02/√(2·layers)); norms 1), and
trained as attn trains it: batch 64 of minGPT's sort task, AdamW lr 1e-3 decayed along a
cosine to 1e-4 over the ITERS steps (attn's default for the Llama family on the digit
tasks), betas (0.9, 0.95), eps 1e-8, weight decay 0.1 on the nn.Linear weights only, global
gradient-norm clip 1.0, float32, THREADS threads.

    train_torch_llama_sort.py ITERS THREADS [OUT.pt]
Prints the final loss; with OUT.pt also saves the state dict (Hugging Face Llama names)."""
import math
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

LAYERS, HEADS, KV_HEADS, D, VOCAB, POSITIONS = 3, 3, 3, 48, 3, 11
D_HEAD, D_MLP, EPS, THETA = D // HEADS, 4 * D, 1e-5, 10000.0
LR, MIN_LR, BATCH, DIGITS = 1e-3, 1e-4, 64, 6


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(D, HEADS * D_HEAD, bias=False)
        self.k_proj = nn.Linear(D, KV_HEADS * D_HEAD, bias=False)
        self.v_proj = nn.Linear(D, KV_HEADS * D_HEAD, bias=False)
        self.o_proj = nn.Linear(HEADS * D_HEAD, D, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, HEADS, D_HEAD).transpose(1, 2)      # [B, H, T, dh]
        k = self.k_proj(x).view(B, T, KV_HEADS, D_HEAD).transpose(1, 2)   # [B, KV, T, dh]
        v = self.v_proj(x).view(B, T, KV_HEADS, D_HEAD).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if KV_HEADS != HEADS:
            k = k.repeat_interleave(HEADS // KV_HEADS, dim=1)
            v = v.repeat_interleave(HEADS // KV_HEADS, dim=1)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D_HEAD))
        att = F.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
        return self.o_proj((att @ v).transpose(1, 2).reshape(B, T, HEADS * D_HEAD))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(D, D_MLP, bias=False)
        self.up_proj = nn.Linear(D, D_MLP, bias=False)
        self.down_proj = nn.Linear(D_MLP, D, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm, self.self_attn = RMSNorm(D), Attention()
        self.post_attention_layernorm, self.mlp = RMSNorm(D), MLP()

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Module()
        self.model.embed_tokens = nn.Embedding(VOCAB, D)
        self.model.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.model.norm = RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        freq = THETA ** (-torch.arange(0, D_HEAD, 2, dtype=torch.float64) / D_HEAD)
        ang = torch.arange(POSITIONS, dtype=torch.float64)[:, None] * freq[None, :]
        emb = torch.cat([ang, ang], dim=-1)  # [positions, d_head]: pair (i, i + dh/2) turns by ang[:, i]
        self.register_buffer("cos", emb.cos().float(), persistent=False)
        self.register_buffer("sin", emb.sin().float(), persistent=False)

    def forward(self, idx, targets):
        T = idx.shape[1]
        cos, sin = self.cos[:T], self.sin[:T]
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)
        x = self.model.embed_tokens(idx)
        for layer in self.model.layers:
            x = layer(x, cos, sin, mask)
        logits = self.lm_head(self.model.norm(x))
        return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1), ignore_index=-1)


def init(model):
    """attn's init_params: linear weights and the embedding N(0, 0.02), the residual
    projections (o_proj, down_proj) N(0, 0.02/√(2·layers)), RMSNorm weights 1."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("layernorm.weight") or name == "model.norm.weight":
                continue
            std = 0.02 / math.sqrt(2 * LAYERS) if name.endswith(("o_proj.weight", "down_proj.weight")) else 0.02
            p.normal_(0.0, std)


def learning_rate(step, iters):
    """attn's learning_rate (model/adamw.cpp): cosine from LR to MIN_LR, no warm-up."""
    return MIN_LR + 0.5 * (1.0 + math.cos(math.pi * min(step / iters, 1.0))) * (LR - MIN_LR)


def main():
    iters, threads = int(sys.argv[1]), int(sys.argv[2])
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = Llama()
    init(model)
    decay = [m.weight for m in model.modules() if isinstance(m, nn.Linear)]
    ids = {id(p) for p in decay}
    no_decay = [p for p in model.parameters() if id(p) not in ids]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95), eps=1e-8)
    for it in range(iters):
        for group in opt.param_groups:
            group["lr"] = learning_rate(it, iters)
        inp = torch.randint(0, VOCAB, (BATCH, DIGITS))
        cat = torch.cat([inp, inp.sort(dim=1).values], dim=1)
        x, y = cat[:, :-1], cat[:, 1:].clone()
        y[:, :DIGITS - 1] = -1
        loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    print(f"{loss.item():.4f}")
    if len(sys.argv) > 3:
        torch.save(model.state_dict(), sys.argv[3])


if __name__ == "__main__":
    main()
