#!/usr/bin/python3
"""bench/peers/train_torch_sort.py — the PyTorch peer of `attn model train sort`:
minGPT's sort demo (3 layers, 3 heads, d 48, batch 64, AdamW lr 5e-4, betas (0.9, 0.95),
weight decay 0.1 on Linear weights, clip 1.0, no dropout, float32) for ITERS steps on
THREADS threads, the model from tests/python/model_train_reference.py (minGPT's GPT).

    train_torch_sort.py ITERS THREADS
Prints the final loss."""
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "python"))
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402

iters, threads = int(sys.argv[1]), int(sys.argv[2])
torch.set_num_threads(threads)
torch.manual_seed(1)
model = ref.GPT(3, 3, 48, 3, 11, mlp=True, tied=False)
with torch.no_grad():  # minGPT's initialisation
    for name, p in model.named_parameters():
        if name.endswith("bias") or ".ln_" in name:
            continue
        std = 0.02 / (2 * 3) ** 0.5 if name.endswith("c_proj.weight") else 0.02
        p.normal_(0.0, std)
opt = ref.optimizer(model, 5e-4)
for it in range(iters):
    inp = torch.randint(0, 3, (64, 6))
    cat = torch.cat([inp, inp.sort(dim=1).values], dim=1)
    x, y = cat[:, :-1], cat[:, 1:].clone()
    y[:, :5] = -1
    _, loss = model(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
print(f"{loss.item():.4f}")
