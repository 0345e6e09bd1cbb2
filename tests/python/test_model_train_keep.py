"""tests/python/test_model_train_keep.py — `attn model train --keep-steps` and the loss
history: the weights kept at steps 0, 5 and 12 are the model PyTorch evaluates to the
loss attn recorded for the next step (sequential --data, so the batches are known here);
the loss history in __metadata__ matches --losses; a kept step's file is byte for byte
the checkpoint of a run that stops there; every file is the same with 1 and 2 threads;
`attn model heads` reads a kept file; bad lists are refused before training."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402

tmp = ref.scratch()
rng = random.Random(7)
B, steps, T = 4, 12, 11
lines = []
for _ in range(B * steps):
    digits = [rng.randrange(5) for _ in range(6)]
    lines.append((digits + sorted(digits), 6))
data = os.path.join(tmp, "data.txt")
ref.write_data(data, lines)
common = ["model", "train", "--data", data, "--sequential", "--batch", str(B), "--dtype", "float64",
          "--layers", "2", "--heads", "2", "--d-model", "16", "--lr", "1e-2", "--seed", "3"]


def kept(out, step):
    return out[:-len(".safetensors")] + f".step{step}.safetensors"


def read(path):
    with open(path, "rb") as f:
        return f.read()


runs = {}
for threads in (1, 2):
    out = os.path.join(tmp, f"run{threads}.safetensors")
    csv = os.path.join(tmp, f"losses{threads}.csv")
    ref.attn(*common, "--iters", str(steps), "--keep-steps", "12,0,5,5", "--threads", str(threads),
             "--losses", csv, "--out", out)
    runs[threads] = (out, csv)
out, csv = runs[1]
for step in (0, 5, 12):
    assert read(kept(out, step)) == read(kept(runs[2][0], step)), f"step {step} differs with 2 threads"
assert read(out) == read(runs[2][0])

# The loss history in the final checkpoint: every step, as --losses wrote it.
_, meta = ref.read_safetensors(out)
assert meta["attn.kept_steps"] == "0,5,12", meta["attn.kept_steps"]
assert meta["attn.losses_every"] == "1"
history = [float(v) for v in meta["attn.losses"].split(" ")]
with open(csv) as f:
    from_csv = [float(r.split(",")[1]) for r in f.read().split("\n")[1:] if r]
assert len(history) == steps == len(from_csv), (len(history), len(from_csv))
assert all(abs(a - b) <= 1e-8 * abs(b) for a, b in zip(history, from_csv)), (history, from_csv)

# Each kept step's weights, read by PyTorch, give the loss attn recorded for the next
# step's batch (the loss is taken before the update).
for step in (0, 5):
    model, m = ref.load_model(kept(out, step), torch.float64)
    assert m["attn.steps"] == str(step), m
    own = [float(v) for v in m["attn.losses"].split(" ")] if m["attn.losses"] else []
    assert own == history[:step], (step, own)
    x, y = ref.batch_tensors(lines[step * B:(step + 1) * B], T)
    with torch.no_grad():
        _, loss = model(x, y)
    assert abs(loss.item() - from_csv[step]) < 1e-9, (step, loss.item(), from_csv[step])
last, last_meta = ref.read_safetensors(kept(out, 12))
final, _ = ref.read_safetensors(out)
assert last_meta["attn.steps"] == "12" and "attn.kept_steps" not in last_meta, last_meta
assert sorted(last) == sorted(final) and all(torch.equal(last[n], final[n]) for n in final)

# A kept step is the checkpoint of a run that stops there (no schedule depends on the end).
short = os.path.join(tmp, "short.safetensors")
ref.attn(*common, "--iters", "5", "--out", short)
assert read(short) == read(kept(out, 5)), "step 5 kept differs from a 5-step run"

# attn's own reader takes a kept file like any checkpoint.
r = ref.attn("model", "heads", kept(out, 5))
assert "layer" in r.stdout.lower(), r.stdout

# Bad lists: exit 2, a clear message, nothing written.
bad_out = os.path.join(tmp, "bad.safetensors")
for arg, message in (("13", "step 13 is beyond the last step, 12"), ("0,,5", "found ''"),
                     ("a", "expected steps separated by commas like 0,100,500,2000, found 'a'")):
    r = ref.attn(*common, "--iters", str(steps), "--keep-steps", arg, "--out", bad_out, check=False)
    assert r.returncode == 2 and message in r.stderr, (arg, r.returncode, r.stderr)
    assert not os.path.exists(bad_out) and not os.path.exists(kept(bad_out, 0)), arg
print("ok")
