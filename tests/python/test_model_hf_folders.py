#!/usr/bin/python3
"""tests/python/test_model_hf_folders.py — `attn model run`, `heads`, `info` and `generate`
on Hugging Face folders this test writes itself, one of each family the issue names:

  * a Llama folder (LlamaForCausalLM: untied head, 4 query heads over 2 key/value heads,
    Hugging Face's half-split rotary pairs) and
  * a Qwen2 folder (Qwen2ForCausalLM: q/k/v biases, tied head, 4 over 2 heads),

each as config.json, model.safetensors (written here with NumPy: a JSON header and
little-endian float32 bytes, small random weights from llama_reference.random_weights)
and tokenizer.json (a byte-level BPE written here: GPT-2's byte alphabet, a few merges,
an end-of-text token; GPT-2's pattern for the Llama folder, Qwen2's for the Qwen2 one).

Checks, per folder, at 80 columns (COLUMNS=80, no line over 80 anywhere):
  * `run --tokens … --dtype float64 --json` gives every stage llama_reference's PyTorch
    forward names (hook_embed … logits), equal to 1e-10 relative to the stage's largest value;
  * `run --text` tokenizes as this file's own BPE encoder does (merges by rank on the
    pre-tokenized pieces) and shows a head with its per-token walk-through;
  * `info` names the family, its heads and key/value heads; `heads` scores every head;
  * `generate --tokens … --dtype float64 --json -` writes the reference's greedy ids
    (a full PyTorch forward per token), and `generate --prompt` prints text."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attn(*args):
    env = dict(os.environ, COLUMNS="80")
    r = subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=60, env=env)
    shown = r.stderr + ("" if "-" in args else r.stdout)  # `--json -` writes data, not a screen
    wide = [l for l in shown.split("\n") if len(l) > 80]
    check(not wide, "attn %s: a line over 80 columns: %r" % (" ".join(args[:3]), wide[:1]))
    return r


# ---- the tokenizer: GPT-2's byte alphabet, a few merges ----------------------------------

def byte_alphabet():
    """GPT-2's bytes_to_unicode: byte → the printable character standing for it."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars, n = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + n)
            n += 1
    return chars


BYTES = byte_alphabet()
MERGES = [("h", "e"), ("l", "l"), ("he", "ll"), ("hell", "o"), ("Ġ", "w"), ("o", "r"), ("Ġw", "or"), ("Ġwor", "l"),
          ("Ġworl", "d"), ("Ġ", "t"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a")]
VOCAB = {BYTES[b]: i for i, b in enumerate(range(256))}
for a, b in MERGES:
    VOCAB[a + b] = len(VOCAB)
EOT = len(VOCAB)  # <|endoftext|>, an added special token
N_VOCAB = EOT + 1
PATTERNS = {  # as the published tokenizer.json files spell them; ASCII versions below for the encoder
    "gpt2": r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}
ASCII = {
    "gpt2": r"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}


def encode(text, pattern):
    """Byte-level BPE of ASCII text: pre-tokenize, map bytes, merge the lowest rank first."""
    rank = {m: i for i, m in enumerate(MERGES)}
    ids = []
    for piece in re.findall(ASCII[pattern], text):
        parts = [BYTES[b] for b in piece.encode("utf-8")]
        while len(parts) > 1:
            pairs = [(rank.get((parts[i], parts[i + 1]), 1 << 30), i) for i in range(len(parts) - 1)]
            best, i = min(pairs)
            if best == 1 << 30:
                break
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        ids += [VOCAB[p] for p in parts]
    return ids


def tokenizer_json(pattern):
    if pattern == "gpt2":
        pre = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    else:
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": PATTERNS[pattern]}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": EOT, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": True}],
            "normalizer": None, "pre_tokenizer": pre,
            "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": VOCAB, "merges": [a + " " + b for a, b in MERGES]}}


# ---- the folder ----------------------------------------------------------------------------

def write_safetensors(path, tensors):
    """Hugging Face's format: u64 header length, the JSON header, then the raw bytes."""
    header, blobs, at = {}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name].detach().numpy().astype("<f4"))
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [at, at + a.nbytes]}
        blobs.append(a.tobytes())
        at += a.nbytes
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


FAMILIES = {
    "llama": dict(arch="LlamaForCausalLM", pattern="gpt2", bias=False, tied=False, theta=10000.0, seed=3),
    "qwen2": dict(arch="Qwen2ForCausalLM", pattern="qwen2", bias=True, tied=True, theta=1000000.0, seed=4),
}


def make_folder(root, family):
    f = FAMILIES[family]
    cfg = ref.LlamaConfig(d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_head=8, d_mlp=64, vocab=N_VOCAB, eps=1e-6,
                          theta=f["theta"], pairing="half_split")
    w = ref.random_weights(cfg, f["seed"], qkv_bias=f["bias"], tied=f["tied"])
    w = {k: v.to(torch.float32).to(torch.float64) for k, v in w.items()}  # the values the file holds
    folder = os.path.join(root, family)
    os.makedirs(folder)
    write_safetensors(os.path.join(folder, "model.safetensors"), w)
    config = {"architectures": [f["arch"]], "model_type": family, "hidden_size": cfg.d_model,
              "intermediate_size": cfg.d_mlp, "num_attention_heads": cfg.n_heads, "num_hidden_layers": cfg.n_layers,
              "num_key_value_heads": cfg.n_kv_heads, "rms_norm_eps": cfg.eps, "rope_theta": cfg.theta,
              "vocab_size": N_VOCAB, "max_position_embeddings": 64, "tie_word_embeddings": f["tied"],
              "torch_dtype": "float32", "bos_token_id": EOT, "eos_token_id": EOT, "hidden_act": "silu"}
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as out:
        json.dump(config, out, indent=2)
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as out:
        json.dump(tokenizer_json(f["pattern"]), out, ensure_ascii=False)
    return folder, cfg, w


def compare_stages(family, folder, cfg, w):
    batch = [[5, 260, 261, 77, 3, 268, 100, 9], [EOT, 0, 255, 266, 266, 1, 42, 200]]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stages.json")
        args = ["model", "run", folder, "--dtype", "float64", "--json", out]
        for row in batch:
            args += ["--tokens", ",".join(map(str, row))]
        r = attn(*args)
        check(r.returncode == 0, "%s: run --json exits %d: %s" % (family, r.returncode, r.stderr[-300:]))
        if r.returncode:
            return
        stages = json.load(open(out, encoding="utf-8"))["stages"]
    with torch.no_grad():
        want_all = ref.forward(w, cfg, batch)
    worst, where = 0.0, ""
    for key, value in want_all.items():
        want = value.numpy()
        check(key in stages, "%s: attn has no stage %s" % (family, key))
        if key not in stages:
            continue
        got = np.array(stages[key]["data"], dtype=float).reshape(stages[key]["shape"])
        if got.size != want.size:
            check(False, "%s: %s has shape %s, the reference %s" % (family, key, list(got.shape), list(want.shape)))
            continue
        want = want.reshape(got.shape)
        finite = np.isfinite(want)
        check(np.array_equal(finite, np.isfinite(got)), "%s: %s's masked cells differ" % (family, key))
        err = np.abs(got[finite] - want[finite]).max() / max(1.0, np.abs(want[finite]).max())
        if err > worst:
            worst, where = err, key
    check(worst <= 1e-10, "%s: %s differs by %.3g (relative)" % (family, where, worst))
    print("%s: %d stages, worst %.3g (%s)" % (family, len(want_all), worst, where))


def text_run(family, folder):
    text = "hello world, the tin in a hello"
    r = attn("model", "run", folder, "--text", text, "--layer", "1", "--head", "3", "--query", "2", "--color", "never")
    check(r.returncode == 0, "%s: run --text exits %d: %s" % (family, r.returncode, r.stderr[-300:]))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.json")
        r = attn("model", "run", folder, "--text", text, "--json", out)
        check(r.returncode == 0, "%s: run --text --json: %s" % (family, r.stderr[-300:]))
        if r.returncode == 0:
            ids = json.load(open(out, encoding="utf-8"))["tokens"]["ids"]
            want = encode(text, FAMILIES[family]["pattern"])
            check(ids == [want], "%s: %r tokenizes to %s, the BPE here to %s" % (family, text, ids, want))


def info_heads(family, folder, cfg):
    r = attn("model", "info", folder, "--color", "never")
    name = {"llama": "Llama", "qwen2": "Qwen2"}[family]
    check(r.returncode == 0 and name in r.stdout, "%s: info names %s: %s %s" % (family, name, r.stdout[:400], r.stderr[-200:]))
    flat = " ".join(r.stdout.split())
    check("Heads: 4 per layer" in flat and "2 key/value heads" in flat,
          "%s: info says 4 heads over 2 key/value heads: %s" % (family, flat[:600]))
    r = attn("model", "heads", folder, "--length", "8", "--color", "never")
    check(r.returncode == 0 and r.stdout.count("\n") >= cfg.n_layers * cfg.n_heads,
          "%s: heads scores every head: %s %s" % (family, r.stdout[-400:], r.stderr[-200:]))


def generation(family, folder, cfg, w):
    prompt = [5, 260, 261, 77]
    r = attn("model", "generate", folder, "--tokens", ",".join(map(str, prompt)), "--new", "10", "--dtype", "float64",
             "--json", "-")
    check(r.returncode == 0, "%s: generate exits %d: %s" % (family, r.returncode, r.stderr[-300:]))
    if r.returncode == 0:
        got = json.loads(r.stdout)["ids"]
        want = []
        with torch.no_grad():
            ids = list(prompt)
            while len(want) < 10:
                nxt = int(ref.forward(w, cfg, [ids])["logits"][0, -1].argmax())
                want.append(nxt)
                ids.append(nxt)
                if nxt == EOT:
                    break
        check(got == want or (got == want[:len(got)] and got and got[-1] == EOT),
              "%s: generate's greedy ids %s, the reference's %s" % (family, got, want))
    r = attn("model", "generate", folder, "--prompt", "hello world", "--new", "6")
    check(r.returncode == 0 and "hello world" in r.stdout, "%s: generate --prompt: %s %s" % (family, r.stdout[-300:], r.stderr[-300:]))


def main():
    root = tempfile.mkdtemp(prefix="attn-hf-folders-")
    try:
        for family in FAMILIES:
            folder, cfg, w = make_folder(root, family)
            compare_stages(family, folder, cfg, w)
            text_run(family, folder)
            info_heads(family, folder, cfg)
            generation(family, folder, cfg, w)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("ok: Hugging Face Llama and Qwen2 folders run, trace, score and generate at 80 columns, as PyTorch computes")


if __name__ == "__main__":
    main()
