"""tests/python/test_model_train_tasks.py — models trained by `attn model train`, judged
by code that is not attn's: PyTorch reads each checkpoint (minGPT naming, config in
__metadata__). In the release build: the `sort` model (minGPT's demo, defaults) sorts at
least 999 of 1,000 fresh inputs by greedy decoding; the `induction` model has a layer-1
head's induction score is printed and its loss on the repeated half is below 10% of the
first half's. In the sanitizer build the runs are tiny and only the reading is checked.
Both builds: the same seed gives the same checkpoint bytes with 1 and 2 threads."""
import filecmp
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402

tmp = ref.scratch()
full = not ref.SANITIZE

# ---- same seed, same bytes, whatever the threads ------------------------------------
outs = []
for threads in ("1", "2"):
    path = os.path.join(tmp, f"sort-t{threads}.safetensors")
    ref.attn("model", "train", "sort", "--iters", "20", "--batch", "16", "--seed", "7", "--threads", threads,
             "--out", path)
    outs.append(path)
assert filecmp.cmp(outs[0], outs[1], shallow=False), "checkpoints differ between 1 and 2 threads"
other = os.path.join(tmp, "sort-seed8.safetensors")
ref.attn("model", "train", "sort", "--iters", "20", "--batch", "16", "--seed", "8", "--out", other)
assert not filecmp.cmp(outs[0], other, shallow=False), "another seed gave the same checkpoint"

# ---- sort -----------------------------------------------------------------------------
sort_ckpt = os.path.join(tmp, "sort.safetensors")
args = ["model", "train", "sort", "--threads", "2", "--out", sort_ckpt]
if not full:
    args += ["--iters", "5", "--batch", "8"]
r = ref.attn(*args)
assert "wrote" in r.stderr, r.stderr
model, meta = ref.load_model(sort_ckpt, torch.float32)
assert (meta["n_layer"], meta["n_head"], meta["n_embd"], meta["vocab_size"]) == ("3", "3", "48", "3"), meta
assert not model.tied and model.transformer.h[0].has_mlp
g = torch.Generator().manual_seed(1234)
inputs = torch.randint(0, 3, (1000, 6), generator=g)
seq = inputs.clone()
with torch.no_grad():
    for _ in range(6):  # greedy decoding, one token at a time
        logits, _ = model(seq)
        seq = torch.cat([seq, logits[:, -1, :].argmax(-1, keepdim=True)], dim=1)
correct = (seq[:, 6:] == inputs.sort(dim=1).values).all(dim=1).sum().item()
print(f"sort: {correct} of 1000 fresh inputs sorted")
if full:
    assert correct >= 999, f"the sort model sorted only {correct} of 1000"

# ---- induction --------------------------------------------------------------------------
ind_ckpt = os.path.join(tmp, "induction.safetensors")
args = ["model", "train", "induction", "--threads", "2", "--out", ind_ckpt]
if not full:
    args += ["--iters", "5", "--batch", "8"]
ref.attn(*args)
model, meta = ref.load_model(ind_ckpt, torch.float32)
assert meta["n_layer"] == "2" and not model.transformer.h[0].has_mlp, meta
block = 10
g = torch.Generator().manual_seed(99)
rand = torch.randint(1, 16, (200, block), generator=g)
seq = torch.cat([torch.zeros(200, 1, dtype=torch.long), rand, rand], dim=1)  # BOS, block, block
x, y = seq[:, :-1], seq[:, 1:]
with torch.no_grad():
    logits, _ = model(x)
    per = torch.nn.functional.cross_entropy(logits.reshape(-1, 16), y.reshape(-1), reduction="none").view(200, -1)
    first = per[:, :block].mean().item()           # predicting the first copy: random
    repeated = per[:, block + 1:].mean().item()    # predicting the second copy after its first token
    pattern = model.pattern(x, 1)                   # [200, heads, 20, 20]
    queries = torch.arange(block + 1, 2 * block)
    scores = pattern[:, :, queries, queries - (block - 1)].mean(dim=(0, 2))  # query − key = block − 1
best = scores.max().item()  # the best layer-1 head
print(f"induction: first half loss {first:.4f}, repeated half {repeated:.4f} ({repeated / first:.1%}); "
      f"layer-1 induction scores {[round(s, 3) for s in scores.tolist()]} (best {best:.3f})")
# The score above is TransformerLens's induction stripe (mean attention from each query of
# the repeated half to the token after its previous occurrence: the diagonal at
# query − key = block − 1) on a sequence like the training data (BOS, a block of 10, the
# block again up to 20 tokens). `attn model heads` scores the whole [P, P] map instead
# (head_detector's "mul": the first half's rows count in the denominator), so a head with
# stripe 0.80 shows about 0.41 there. Not asserted yet (issue 22): on the periodic blocks
# of this task the model solves the repeated half without an induction head. Measured
# (--data files of the same shape, 2,000 steps): with 31 distinct tokens per block, 4
# heads, lr 2e-3 two layer-1 heads reach 0.50, but lr 1e-3, 3e-3 or another seed give
# ≤ 0.05 while the loss ratio is < 1% (with distinct tokens "the least recently seen
# token" predicts a periodic sequence; layer 0 spreads over offsets 6 … 9); 1 head per
# layer reaches 0.80 on one seed and 0.02 on another; BOS + noise + block + block (or two
# copies at random places) gives layer-0 offset heads or none (≤ 0.05).
# Measured since (branch induction-task-wip: BOS, a random prefix, a block of 4 … 12
# tokens from 63 with repetition repeated to the end, T 32, 2 layers × 4 heads): the
# copy is learnt (repeated-half loss 9.4% of the first after 6,000 steps, seed 1) by a
# SHIFTED induction circuit on seeds 1, 2 and 3 alike: layer-0 heads attend to offsets
# 3 and 2 (0.98 / 0.80), layer 1 attends at query − key = block − 3 (0.50 … 0.71) and
# reads there the token moved by the offset-2 head; the stripe at block − 1 stays
# ≤ 0.04. Any offset pair (a, a − 1) predicts a repeat of length ≥ a equally well, so
# nothing in such data favours a = 1; blocks of 1 … 12 (where only a = 1 works) had
# formed nothing by step 2,000; 1 or 2 heads per layer shifted too (layer 0 at offsets
# 2 … 4, layer 1 at block − 4, step 1,000).
if full:
    assert repeated < 0.1 * first, f"repeated half's loss {repeated} is not below 10% of {first}"
print("ok")
