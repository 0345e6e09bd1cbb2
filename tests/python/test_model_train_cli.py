"""tests/python/test_model_train_cli.py — `attn model train` as a user runs it: Ctrl-C
stops between steps, saves the checkpoint so far, says where (exit 130) and PyTorch
reads that checkpoint; on a terminal the progress line redraws in place (carriage
return and erase, one line), in a pipe it prints plain lines. --digits and --base widen
the digit tasks (PyTorch reads the model's vocabulary and positions, and the checkpoint
sorts what the task fed it) and are refused, naming the option, where they mean nothing."""
import os
import pty
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402

tmp = ref.scratch()

# ---- Ctrl-C saves the checkpoint so far -------------------------------------------------
out = os.path.join(tmp, "stopped.safetensors")
p = subprocess.Popen([ref.ATTN, "model", "train", "sort", "--iters", "1000000", "--batch", "4", "--every", "1",
                      "--out", out], stderr=subprocess.PIPE, text=True)
seen = ""
deadline = time.time() + 120
while "step 3/" not in seen and time.time() < deadline:
    line = p.stderr.readline()
    if not line:
        break
    seen += line
assert "step 3/1000000  loss " in seen, seen
p.send_signal(signal.SIGINT)
rest = p.stderr.read()
code = p.wait(timeout=120)
assert code == 130, (code, rest)
assert "; the checkpoint so far is in " + out in rest, rest
steps = int(rest.split("stopped at step ")[1].split(" ")[0])
assert 3 <= steps < 1000000, rest
model, meta = ref.load_model(out, torch.float32)
assert meta["attn.steps"] == str(steps), meta
logits, _ = model(torch.tensor([[0, 1, 2, 2, 1, 0]]))
assert torch.isfinite(logits).all()

# ---- on a terminal: one line, redrawn -----------------------------------------------------
master, slave = pty.openpty()
out2 = os.path.join(tmp, "tty.safetensors")
p = subprocess.Popen([ref.ATTN, "model", "train", "sort", "--iters", "30", "--batch", "4", "--every", "10",
                      "--out", out2], stdin=slave, stdout=slave, stderr=slave)
os.close(slave)
data = b""
while True:
    r, _, _ = select.select([master], [], [], 60)
    if not r:
        break
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
p.wait(timeout=60)
os.close(master)
text = data.decode()
assert p.returncode == 0, text
assert text.count("\r\x1b[K") == 3, repr(text)       # steps 10, 20, 30 drawn over each other
assert "step 30/30" in text and "wrote " + out2 in text, repr(text)
assert text.count("\n") <= 3, repr(text)               # the progress itself took one line

# ---- --digits and --base: a wider digit task ------------------------------------------------
wide = os.path.join(tmp, "wide.safetensors")
ref.attn("model", "train", "sort", "--digits", "5", "--base", "7", "--iters", "3", "--batch", "4", "--out", wide)
model, meta = ref.load_model(wide, torch.float32)
assert (meta["vocab_size"], meta["n_positions"]) == ("7", "9"), meta  # digits 0 … 6, 2·5 − 1 tokens fed
logits, _ = model(torch.tensor([[6, 0, 3, 3, 1, 0, 1, 3, 3]]))
assert logits.shape == (1, 9, 7) and torch.isfinite(logits).all()
for args, option, said in ((["induction", "--digits", "8"], "--digits", "no digits to set"),
                           (["sort", "--base", "1"], "--base", "expected a base of 2"),
                           (["sort", "--digits", "0"], "--digits", "expected 1"),
                           (["--data", os.path.join(tmp, "none.txt"), "--base", "4"], "--base", "are the file's")):
    r = ref.attn("model", "train", *args, "--out", os.path.join(tmp, "refused.safetensors"), check=False)
    assert r.returncode == 2 and option in r.stderr and said in r.stderr, (args, r.returncode, r.stderr)
    assert not os.path.exists(os.path.join(tmp, "refused.safetensors")), args
print("ok")
