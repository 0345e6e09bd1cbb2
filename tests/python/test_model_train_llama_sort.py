"""tests/python/test_model_train_llama_sort.py — `attn model train sort --arch llama`: a
Llama-family model (RMSNorm, rotary positions, SwiGLU, untied head) trained with attn's
own backward, written as a Hugging Face Llama checkpoint (names and config in
__metadata__), judged by code that is not attn's: tests/python/llama_reference.py's
PyTorch forward of the written weights sorts at least 999 of 1,000 fresh inputs by greedy
decoding (release build; the sanitizer build trains a few steps and checks the reading).
Also: the same checkpoint bytes with 1 and 2 threads; --arch llama with --kv-heads 1
writes a grouped-query model (k_proj narrower than q_proj) whose every stage `attn model run
--json` prints equals the PyTorch forward's (1e-5 relative, float32); bad --kv-heads refused, exit 2.
The release build's sort model is trained once per CTest run by the fixture
model_train.llama_sort (tests/python/train_llama_sort.py), found in ATTN_LLAMA_SORT_MODEL."""
import filecmp
import json
import os
import subprocess
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as lref  # noqa: E402
import model_train_reference as ref  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
tmp = ref.scratch()
full = not ref.SANITIZE


def load(path):
    """(weights in float64, LlamaConfig, metadata) from the checkpoint's own names and __metadata__."""
    tensors, meta = ref.read_safetensors(path)
    w = {n: t.to(torch.float64) for n, t in tensors.items()}
    C, H = int(meta["hidden_size"]), int(meta["num_attention_heads"])
    assert meta["model_type"] == "llama", meta
    cfg = lref.LlamaConfig(d_model=C, n_layers=int(meta["num_hidden_layers"]), n_heads=H,
                           n_kv_heads=int(meta["num_key_value_heads"]), d_head=C // H,
                           d_mlp=int(meta["intermediate_size"]), vocab=int(meta["vocab_size"]),
                           eps=float(meta["rms_norm_eps"]), theta=float(meta["rope_theta"]),
                           pairing=meta.get("rope_pairing", "half_split"))
    return w, cfg, meta


# ---- same seed, same bytes, whatever the threads ------------------------------------------
outs = []
for threads in ("1", "2"):
    path = os.path.join(tmp, f"llama-t{threads}.safetensors")
    ref.attn("model", "train", "sort", "--arch", "llama", "--kv-heads", "1", "--iters", "10", "--batch", "16",
             "--threads", threads, "--out", path)
    outs.append(path)
assert filecmp.cmp(outs[0], outs[1], shallow=False), "checkpoints differ between 1 and 2 threads"
w, cfg, meta = load(outs[0])
assert cfg.n_kv_heads == 1 and w["model.layers.0.self_attn.k_proj.weight"].shape == (16, 48), meta
assert "lm_head.weight" in w and "model.layers.0.mlp.gate_proj.weight" in w and not any("wpe" in n for n in w)

# ---- attn reads its own checkpoint back: `attn model run --json` against PyTorch ---------------
tokens = [0, 2, 1, 1, 0, 2, 0, 1]
r = ref.attn("model", "run", outs[0], "--tokens", ",".join(map(str, tokens)), "--json", "-", check=False)
assert r.returncode == 0, r.stderr
got = json.loads(r.stdout)["stages"]
expected = lref.forward(w, cfg, [tokens])
expected["blocks.0.hook_resid_pre"] = expected["hook_embed"]
assert "hook_pos_embed" not in got and "blocks.0.attn.hook_rot_q" in got and "blocks.0.mlp.hook_pre_linear" in got
compared, worst = 0, 0.0
for name, e in expected.items():
    data = got[name]["data"]
    flat = torch.tensor(json.loads(json.dumps(data).replace("null", "-1e308")), dtype=torch.float64).reshape(e.shape)
    fin = ~torch.isinf(e)
    assert torch.equal(flat[~fin], torch.full_like(flat[~fin], -1e308)), name  # the masked future is null
    diff = (flat[fin] - e[fin]).abs().max().item()
    worst = max(worst, diff / max(1.0, e[fin].abs().max().item()))
    compared += 1
assert compared == len(expected) and worst < 1e-5, (compared, worst)
print(f"attn model run on the GQA checkpoint: {compared} stages within {worst:.1e} (relative) of PyTorch")

# ---- refusals -------------------------------------------------------------------------------
for bad, why in [(["--kv-heads", "2"], "groups"), (["--arch", "gpt2", "--kv-heads", "1"], "llama")]:
    args = ["model", "train", "sort", "--iters", "1", "--out", os.path.join(tmp, "bad.safetensors")]
    if "--arch" not in bad:
        args += ["--arch", "llama"]
    r = ref.attn(*args, *bad, check=False)
    assert r.returncode == 2 and why in r.stderr, (bad, r.returncode, r.stderr)
    assert not os.path.exists(os.path.join(tmp, "bad.safetensors"))

# ---- the reader's refusals and config.json -----------------------------------------------------
tensors, meta0 = ref.read_safetensors(outs[0])
folder = os.path.join(tmp, "hf")
os.mkdir(folder)
bare = os.path.join(folder, "model.safetensors")
ref.write_safetensors(bare, tensors, {"format": "pt"})  # no config at all
r = ref.attn("model", "info", bare, check=False)
assert r.returncode == 2 and "num_attention_heads" in r.stderr and "byte" in r.stderr, (r.returncode, r.stderr)
with open(os.path.join(folder, "config.json"), "w") as f:  # Hugging Face's own config beside it
    json.dump({"model_type": "llama", "hidden_size": 48, "num_attention_heads": 3, "num_key_value_heads": 1,
               "intermediate_size": 192, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": False,
               "max_position_embeddings": 11, "architectures": ["LlamaForCausalLM"], "torch_dtype": "float32"}, f)
r = ref.attn("model", "info", bare, check=False)
assert r.returncode == 0 and "config.json" in r.stdout and "Llama" in r.stdout, (r.returncode, r.stdout, r.stderr)
with open(os.path.join(folder, "config.json"), "w") as f:  # a stated size the shapes contradict
    json.dump({"num_attention_heads": 3, "hidden_size": 64}, f)
r = ref.attn("model", "info", bare, check=False)
assert r.returncode == 2 and "hidden_size is 64" in r.stderr, (r.returncode, r.stderr)
cut = dict(tensors)
cut["model.layers.1.mlp.up_proj.weight"] = cut["model.layers.1.mlp.up_proj.weight"][:100]
ref.write_safetensors(bare, cut, meta0)
r = ref.attn("model", "info", bare, check=False)
assert r.returncode == 2 and "up_proj" in r.stderr and "expected [192, 48]" in r.stderr, (r.returncode, r.stderr)
cut = dict(tensors)
del cut["model.layers.2.self_attn.v_proj.weight"]
ref.write_safetensors(bare, cut, meta0)
r = ref.attn("model", "info", bare, check=False)
assert r.returncode == 2 and "no tensor" in r.stderr, (r.returncode, r.stderr)

# ---- sort --------------------------------------------------------------------------------
ckpt = os.environ.get("ATTN_LLAMA_SORT_MODEL") or os.path.join(tmp, "sort.safetensors")
if not os.environ.get("ATTN_LLAMA_SORT_MODEL"):
    args = ["model", "train", "sort", "--arch", "llama", "--threads", "2", "--out", ckpt]
    args += ["--iters", ITERS] if (ITERS := os.environ.get("ATTN_LLAMA_SORT_ITERS")) else []
    if not full:
        args += ["--iters", "5", "--batch", "8"]
    r = ref.attn(*args)
    assert "wrote" in r.stderr, r.stderr
w, cfg, meta = load(ckpt)
assert (cfg.n_layers, cfg.n_heads, cfg.d_model, cfg.vocab) == (3, 3, 48, 3), meta
g = torch.Generator().manual_seed(1234)
inputs = torch.randint(0, 3, (1000, 6), generator=g)
seq = inputs.clone()
with torch.no_grad():
    for _ in range(5):  # greedy decoding of the sorted half (the last digit is never an input)
        logits = lref.forward(w, cfg, seq)["logits"]
        seq = torch.cat([seq, logits[:, -1, :].argmax(-1, keepdim=True)], dim=1)
    logits = lref.forward(w, cfg, seq)["logits"]
    seq = torch.cat([seq, logits[:, -1, :].argmax(-1, keepdim=True)], dim=1)
correct = (seq[:, 6:] == inputs.sort(dim=1).values).all(dim=1).sum().item()
print(f"sort (--arch llama): {correct} of 1000 fresh inputs sorted")
if full:
    assert correct >= 999, f"the Llama sort model sorted only {correct} of 1000"
print("ok")
