"""tests/python/test_model_train_grads.py — attn's backward and AdamW against PyTorch
autograd, float64: every parameter's gradient of one batch on random tiny models (with
and without MLP, tied and untied) to 1e-9, and 50 training steps (AdamW, clipping,
warm-up and cosine) from the same initial weights and batches give the same losses to
1e-8 and the same final weights. Python writes the weights and batches; attn trains
(`attn model train --init --data --sequential --grads --losses`)."""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402

tmp = ref.scratch()


def lines_for(rng, count, vocab, length, prompt):
    out = []
    for _ in range(count):
        n = rng.randint(3, length + 1)
        out.append(([rng.randrange(vocab) for _ in range(n)], prompt if prompt < n else 1))
    return out


def check_gradients(mlp, tied, seed):
    torch.manual_seed(seed)
    model = ref.GPT(2, 2, 8, 7, 6, mlp=mlp, tied=tied).double()
    ref.randomize(model, seed)
    init = os.path.join(tmp, f"init-{seed}.safetensors")
    ref.save_model(model, init)
    rng = random.Random(seed)
    lines = lines_for(rng, 3, 7, 6, 3)
    data = os.path.join(tmp, f"data-{seed}.txt")
    ref.write_data(data, lines)
    grads = os.path.join(tmp, f"grads-{seed}.safetensors")
    ref.attn("model", "train", "--data", data, "--sequential", "--init", init, "--iters", "1", "--batch", "3",
             "--dtype", "float64", "--grads", grads, "--out", os.path.join(tmp, f"out-{seed}.safetensors"))
    T = max(len(s) for s, _ in lines) - 1
    x, y = ref.batch_tensors(lines, T)
    _, loss = model(x, y)
    loss.backward()
    got, _ = ref.read_safetensors(grads)
    expected = {n: p.grad for n, p in model.named_parameters()}
    assert sorted(got) == sorted(expected), (sorted(got), sorted(expected))
    worst = 0.0
    for name, g in expected.items():
        diff = (got[name] - g).abs().max().item()
        worst = max(worst, diff)
        assert diff < 1e-9, f"mlp={mlp} tied={tied}: {name} differs by {diff}"
    assert max(g.abs().max().item() for g in expected.values()) > 1e-3  # not all zero
    print(f"gradients mlp={mlp} tied={tied}: {len(expected)} parameters, largest difference {worst:.2e}")


for i, (mlp, tied) in enumerate([(True, False), (True, True), (False, False), (False, True)]):
    check_gradients(mlp, tied, 11 + i)

# ---- 50 steps of AdamW with clipping, warm-up and cosine decay -----------------------
torch.manual_seed(5)
model = ref.GPT(2, 2, 16, 5, 11, mlp=True, tied=False).double()
init = os.path.join(tmp, "init-50.safetensors")
ref.save_model(model, init)
rng = random.Random(5)
B, steps, lr, warmup = 8, 50, 1e-2, 10
lines = []
for _ in range(B * steps):
    digits = [rng.randrange(5) for _ in range(6)]
    lines.append((digits + sorted(digits), 6))
data = os.path.join(tmp, "data-50.txt")
ref.write_data(data, lines)
losses_csv = os.path.join(tmp, "losses.csv")
out = os.path.join(tmp, "out-50.safetensors")
ref.attn("model", "train", "--data", data, "--sequential", "--init", init, "--iters", str(steps), "--batch", str(B),
         "--dtype", "float64", "--lr", str(lr), "--warmup", str(warmup), "--cosine", "--losses", losses_csv,
         "--out", out)
with open(losses_csv) as f:
    rows = f.read().split("\n")
assert rows[0] == "step,loss"
got = [float(r.split(",")[1]) for r in rows[1:] if r]
assert len(got) == steps

opt = ref.optimizer(model, lr)


def lr_at(step):  # the documented schedule: linear warm-up, then cosine to lr / 10
    if step < warmup:
        return lr * (step + 1) / warmup
    progress = (step - warmup) / (steps - warmup)
    return lr / 10 + 0.5 * (1 + math.cos(math.pi * progress)) * (lr - lr / 10)


expected = []
for step in range(steps):
    for g in opt.param_groups:
        g["lr"] = lr_at(step)
    x, y = ref.batch_tensors(lines[step * B:(step + 1) * B], 11)
    _, loss = model(x, y)
    expected.append(loss.item())
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
worst = max(abs(a - b) for a, b in zip(got, expected))
assert worst < 1e-8, f"losses differ by {worst}: attn {got[:5]} … PyTorch {expected[:5]} …"
assert expected[-1] < expected[0] - 0.3, expected  # it learned something
final, meta = ref.read_safetensors(out)
wdiff = max((final[n] - p.detach()).abs().max().item() for n, p in model.named_parameters())
assert wdiff < 1e-8, f"final weights differ by {wdiff}"
assert meta["attn.steps"] == str(steps)
print(f"50 steps: losses {expected[0]:.4f} → {expected[-1]:.4f}, largest difference {worst:.2e}, weights {wdiff:.2e}")
print("ok")
