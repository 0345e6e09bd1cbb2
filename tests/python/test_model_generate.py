#!/usr/bin/python3
"""tests/python/test_model_generate.py — `attn model generate` (model/decode: a KV cache,
one decoding step per new token) against independent PyTorch forwards written outside
attn (llama_reference.py for the Llama family; a GPT-2 forward in this file).

Checks:
  * stories260K.gguf (the shipped real Llama): greedy from BOS, 200 tokens, exactly
    llama2.c's pinned story (test_all.py's expected_stdout), each id the argmax of
    llama_reference's full float64 forward over the ids before it, the same printed by
    the built-in name `stories260K` from an empty folder; the logits after every cached step equal the rows of one
    full PyTorch forward over the whole sequence: float32 within 1e-5 of the largest logit,
    float64 within 1e-10; the text printed is the story's words;
  * random tiny GGUF files written by this test (gguf_reference.py's writer and
    quantizer, whose block values are exact): llama (grouped-query, adjacent pairs) in
    F32 and in Q8_0 / Q4_K / Q6_K, tied in Q4_0, qwen2 (q/k/v biases, half-split pairs) in
    F16 and tied in BF16, gpt2
    (learned positions, LayerNorm, GELU, fused qkv) in F32 — attn's float64 logits at every
    step equal the reference forward on the exact dequantized weights within 1e-9 (any
    weight mapped wrong, transposed or turned in the wrong pairs moves them), and the
    greedy tokens are the reference's;
  * Q8_0 / Q4_K (and a tied Q8_0) with d 256, multiplied in their blocks: the same greedy
    tokens as the dequantized F32 file, logits within 1e-5, the same bytes on 1 and 2 threads;
  * a GPT-2-family safetensors checkpoint (a lesson's trained model): the cached logits
    equal `attn model run`'s full forward (model/traced_forward) at every position;
  * a Hugging Face folder written here (config.json, model.safetensors in GPT-2's names,
    vocab.json + merges.txt): `generate FOLDER --prompt` uses the folder's tokenizer, its
    float64 logits equal gpt_reference.py's forward within 1e-9; a folder whose shard index
    names no shard is refused;
  * --trace L.H: that head's weights over the cache at every step equal row t of the
    reference's full attention pattern; the table shows each new token's query;
  * sampling is deterministic for a seed and changes with it; --top-k 1 is greedy;
  * bad input exits 2 with a clear message: a truncated GGUF, heads that do not divide
    the embedding, key/value heads that do not divide the query heads, a max beyond the
    context, a prompt longer than the context, an id outside the vocabulary, a missing file;
    --json over the checkpoint is refused before any work, the file untouched.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reference as g  # noqa: E402
import llama_reference as ref  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STORIES = os.path.join(SOURCE, "lessons", "models", "stories260K.gguf")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attn(*args):
    return subprocess.run([ATTN, "model", *args], capture_output=True, text=True, timeout=60)


def generate_json(path, *args):
    r = attn("generate", path, "--json", "-", "--logits", *args)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: attn model generate {path} {args}: exit {r.returncode}\n{r.stderr}")
    return json.loads(r.stdout)


def fed_tokens(out):
    """The tokens attn fed through the cache: the prompt and every new token but the last."""
    return out["prompt_ids"] + out["ids"][:-1]


# ---- stories260K ------------------------------------------------------------------

# llama2.c's test_all.py (karpathy/llama2.c): run.c -t 0.0 -n 200 on stories260K.bin from
# BOS prints exactly these bytes (its last newline stripped), and sample.py's 200 greedy
# tokens decode to the same.
LLAMA2C_STORY = (
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a "
    "big, red ball. She wanted to play with it, but it was too high.\nLily's mom said, \"Lily, let's go to the park.\" "
    "Lily was sad and didn't know what to do. She said, \"I want to play with your ball, but I can't find it.\"\nLily "
    "was sad and didn't know what to do. She said, \"I'm sorry, Lily. I didn't know what to do.\"\nLily didn't want "
    "to help her mom, so she")
STORY_TOKENS = 200


def stories():
    cfg, w64 = ref.read_gguf_llama(STORIES)
    out = generate_json(STORIES, "--tokens", "1", "--new", str(STORY_TOKENS))
    check(len(out["ids"]) == STORY_TOKENS and out["stopped_at"] == "max-new-tokens",
          f"stories260K: {len(out['ids'])} new tokens, stopped at {out['stopped_at']}")
    check(out["text"] == LLAMA2C_STORY, f"stories260K's {STORY_TOKENS} tokens are not llama2.c's story: {out['text']!r}")
    # Greedy against the reference: every new id is the argmax of the reference's full float64
    # forward over the ids before it (one forward, causal: row t sees ids 0 … t), so the
    # whole sequence is the reference's greedy decode.
    ref_logits = ref.forward(w64, cfg, [fed_tokens(out)])["logits"][0].numpy()
    ref_ids = [int(i) for i in ref_logits.argmax(axis=1)]
    check(ref_ids == out["ids"], f"stories260K: attn's greedy ids differ from the reference's argmax at step "
          f"{next((t for t, (a, b) in enumerate(zip(ref_ids, out['ids'])) if a != b), None)}")
    # The story as printed: the same text, from any folder by the built-in name too.
    wide = attn("generate", STORIES, "--tokens", "1", "--new", str(STORY_TOKENS), "--width", "400")
    check(wide.returncode == 0 and LLAMA2C_STORY + "\n" in wide.stdout, f"stories260K printed: exit {wide.returncode}\n{wide.stdout}")
    with tempfile.TemporaryDirectory() as empty:
        named = subprocess.run([os.path.abspath(ATTN), "model", "generate", "stories260K", "--tokens", "1", "--new",
                                str(STORY_TOKENS), "--width", "400"], capture_output=True, text=True, timeout=60, cwd=empty)
    check(named.returncode == 0 and named.stdout == wide.stdout,
          f"attn model generate stories260K (the built-in name, from an empty folder): exit {named.returncode}\n"
          f"{named.stdout}{named.stderr}")
    # Every step's logits against one float32 PyTorch forward over the fed tokens (causal: row t is step t).
    w32 = {k: v.to(torch.float32) for k, v in w64.items()}
    full = ref.forward(w32, cfg, [fed_tokens(out)])["logits"][0].numpy().astype(np.float64)
    got = np.array(out["logits"])
    check(got.shape == full.shape, f"stories260K: logits shape {got.shape}, expected {full.shape}")
    if got.shape == full.shape:
        err = np.abs(got - full).max() / max(1.0, np.abs(full).max())  # relative to the logits' scale (about 15)
        print(f"stories260K: float32 cached logits vs PyTorch float32 full forward: max difference {err:.3g} of the largest logit")
        check(err <= 1e-5, f"stories260K: cached float32 logits differ from the full forward by {err:.3g} of the largest (> 1e-5)")
    # float64: the same steps against PyTorch's float64 forward, absolute (attn float32 and PyTorch
    # float32 are each about 1.4e-5 from it on logits up to 22: the float32 check above is relative).
    out64 = generate_json(STORIES, "--tokens", "1", "--max-new-tokens", str(STORY_TOKENS), "--dtype", "float64")
    full64 = ref.forward(w64, cfg, [fed_tokens(out64)])["logits"][0].numpy()
    err64 = np.abs(np.array(out64["logits"]) - full64).max() if len(out64["logits"]) == len(full64) else float("inf")
    check(err64 <= 1e-10, f"stories260K: cached float64 logits differ from PyTorch's float64 full forward by {err64:.3g}")
    r = attn("generate", STORIES, "--prompt", "Once upon a time", "--max-new-tokens", "12", "--width", "80")
    check(r.returncode == 0 and "Once upon a time, there was a little girl" in r.stdout and "<s> ␣Once ␣upon" in r.stdout,
          f"stories260K --prompt: exit {r.returncode}\n{r.stdout}{r.stderr}")
    check("tokens/s" in r.stderr, f"no speed on stderr: {r.stderr!r}")
    r = attn("generate", STORIES, "--prompt", "Once upon a time", "--max-new-tokens", "3", "--trace", "2.5")
    check(r.returncode == 0 and "Layer 3 of 5, head 6 of 8 (--trace 2.5)" in r.stdout and "␣time" in r.stdout,
          f"stories260K --trace: exit {r.returncode}\n{r.stdout}{r.stderr}")
    check(all(len(line) <= 80 for line in r.stdout.splitlines()), "a line wider than --width 80")


# ---- random tiny GGUF files ------------------------------------------------------------

def tokenizer_md(vocab):
    pieces = ["<unk>", "<s>", "</s>"] + ["\u2581w%d" % i for i in range(3, vocab)]
    pieces[5] = "\u2581\x1b[31mred"  # a control character inside a piece: shown escaped, never raw
    return [("tokenizer.ggml.model", "string", "llama"), ("tokenizer.ggml.tokens", ("array", "string"), pieces),
            ("tokenizer.ggml.scores", ("array", "f32"), [0.0, 0.0, 0.0] + [-float(i) for i in range(3, vocab)]),
            ("tokenizer.ggml.token_type", ("array", "i32"), [2, 3, 3] + [1] * (vocab - 3)),
            ("tokenizer.ggml.bos_token_id", "u32", 1), ("tokenizer.ggml.eos_token_id", "u32", 2)]


def tiny_file(path, arch, ty, n_layer=2, d=64, n_head=4, n_kv=2, d_mlp=256, vocab=48, context=64, seed=0, tied=False,
              dequantized=None):
    """Writes a random model; returns {GGUF name: exact float64 values, outermost dim first}."""
    rng = np.random.default_rng(seed)
    dh = d // n_head
    md = [("general.architecture", "string", arch), (arch + ".block_count", "u32", n_layer),
          (arch + ".context_length", "u32", context), (arch + ".embedding_length", "u32", d),
          (arch + ".feed_forward_length", "u32", d_mlp), (arch + ".attention.head_count", "u32", n_head)]
    if arch == "gpt2":
        md += [(arch + ".attention.layer_norm_epsilon", "f32", 1e-5)]
    else:
        md += [(arch + ".attention.head_count_kv", "u32", n_kv), (arch + ".rope.freq_base", "f32", 10000.0),
               (arch + ".rope.dimension_count", "u32", dh), (arch + ".attention.layer_norm_rms_epsilon", "f32", 1e-6)]
    md += tokenizer_md(vocab)
    tensors, values = [], {}

    def t(name, dims, typ="F32", scale=None):
        n = int(np.prod(dims))
        if typ != "F32" and dims[0] % g.BLOCK[typ][0] != 0:
            typ = "F32"
        raw, vals = g.random_tensor(rng, typ, n)
        if scale is not None:  # norms near 1: F32 values made here, exactly representable
            vals = (1 + scale * rng.standard_normal(n)).astype(np.float32)
            raw, vals = vals.tobytes(), vals.astype(np.float64)
        tensors.append((name, dims, typ, raw))
        values[name] = vals.reshape(list(reversed(dims)))

    q, kv = n_head * dh, (n_kv if arch != "gpt2" else n_head) * dh
    t("token_embd.weight", [d, vocab], ty)
    if arch == "gpt2":
        t("position_embd.weight", [d, context])
    for layer in range(n_layer):
        b = "blk.%d." % layer
        t(b + "attn_norm.weight", [d], scale=0.2)
        if arch == "gpt2":
            t(b + "attn_norm.bias", [d]), t(b + "attn_qkv.weight", [d, 3 * d], ty), t(b + "attn_qkv.bias", [3 * d])
            t(b + "attn_output.weight", [d, d], ty), t(b + "attn_output.bias", [d])
            t(b + "ffn_norm.weight", [d], scale=0.2), t(b + "ffn_norm.bias", [d])
            t(b + "ffn_up.weight", [d, d_mlp], ty), t(b + "ffn_up.bias", [d_mlp])
            t(b + "ffn_down.weight", [d_mlp, d], ty), t(b + "ffn_down.bias", [d])
            continue
        t(b + "attn_q.weight", [d, q], ty), t(b + "attn_k.weight", [d, kv], ty), t(b + "attn_v.weight", [d, kv], ty)
        if arch == "qwen2":
            t(b + "attn_q.bias", [q]), t(b + "attn_k.bias", [kv]), t(b + "attn_v.bias", [kv])
        t(b + "attn_output.weight", [q, d], ty), t(b + "ffn_norm.weight", [d], scale=0.2)
        t(b + "ffn_gate.weight", [d, d_mlp], ty), t(b + "ffn_up.weight", [d, d_mlp], ty), t(b + "ffn_down.weight", [d_mlp, d], ty)
    t("output_norm.weight", [d], scale=0.2)
    if arch == "gpt2":
        t("output_norm.bias", [d])
    if not tied:
        t("output.weight", [d, vocab], ty)
    g.write_gguf(path, md, tensors)
    if dequantized:  # the same model with every value as F32: what a reader that dequantizes at load holds
        g.write_gguf(dequantized, md, [(n, dims, "F32", values[n].astype(np.float32).tobytes()) for n, dims, _ty, _raw in tensors])
    return values


def llama_logits(values, arch, tokens, n_layer=2, d=64, n_head=4, n_kv=2, d_mlp=256, vocab=48, stages=None):
    cfg = ref.LlamaConfig(d_model=d, n_layers=n_layer, n_heads=n_head, n_kv_heads=n_kv, d_head=d // n_head, d_mlp=d_mlp,
                          vocab=vocab, eps=float(np.float32(1e-6)), pairing="adjacent" if arch == "llama" else "half_split")
    t = {k: torch.from_numpy(v) for k, v in values.items()}
    w = ref.gguf_llama_to_hf(t, n_layer)
    for layer in range(n_layer):  # qwen2's biases (gguf_llama_to_hf maps weights only)
        for part, hf in (("attn_q", "q_proj"), ("attn_k", "k_proj"), ("attn_v", "v_proj")):
            if f"blk.{layer}.{part}.bias" in t:
                w[f"model.layers.{layer}.self_attn.{hf}.bias"] = t[f"blk.{layer}.{part}.bias"]
    out = ref.forward(w, cfg, [tokens])
    if stages is not None:
        stages.update(out)
    return out["logits"][0].numpy()


def gpt2_logits(values, tokens, n_layer=2, n_head=4, eps=float(np.float32(1e-5))):
    """GPT-2's forward (pre-norm, LayerNorm with bias, fused qkv, GELU-tanh), written here."""
    v = {k: torch.from_numpy(x) for k, x in values.items()}
    T = len(tokens)
    x = v["token_embd.weight"][tokens] + v["position_embd.weight"][:T]
    d = x.shape[1]
    dh = d // n_head

    def ln(x, p):
        return torch.nn.functional.layer_norm(x, (d,), v[p + ".weight"], v[p + ".bias"], eps)

    for layer in range(n_layer):
        b = "blk.%d." % layer
        qkv = ln(x, b + "attn_norm") @ v[b + "attn_qkv.weight"].T + v[b + "attn_qkv.bias"]
        q, k, val = (qkv[:, i * d:(i + 1) * d].view(T, n_head, dh).transpose(0, 1) for i in range(3))
        s = q @ k.transpose(1, 2) / dh ** 0.5
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        z = (s.softmax(-1) @ val).transpose(0, 1).reshape(T, d)
        x = x + z @ v[b + "attn_output.weight"].T + v[b + "attn_output.bias"]
        h = torch.nn.functional.gelu(ln(x, b + "ffn_norm") @ v[b + "ffn_up.weight"].T + v[b + "ffn_up.bias"], approximate="tanh")
        x = x + h @ v[b + "ffn_down.weight"].T + v[b + "ffn_down.bias"]
    return (ln(x, "output_norm") @ v["output.weight"].T).numpy()


def tiny_models(tmp):
    for arch, ty, tied in [("llama", "F32", False), ("llama", "Q8_0", False), ("llama", "Q4_K", False), ("llama", "Q6_K", False),
                           ("llama", "Q4_0", True), ("qwen2", "F16", False), ("qwen2", "BF16", True), ("gpt2", "F32", False)]:
        path = os.path.join(tmp, f"{arch}-{ty}.gguf")
        values = tiny_file(path, arch, ty, seed=len(ty) + len(arch), tied=tied)
        out = generate_json(path, "--tokens", "1,7,30,4", "--max-new-tokens", "12", "--dtype", "float64", "--trace", "1.3")
        fed = fed_tokens(out)
        stages = {}
        want = gpt2_logits(values, fed) if arch == "gpt2" else llama_logits(values, arch, fed, stages=stages)
        if stages:  # --trace 1.3: head 3 of layer 1 over the cache at each step = row t of the full pattern
            pattern = stages["blocks.1.attn.hook_pattern"][0, 3].numpy()
            rows = out["trace"]["weights"]
            err = max(np.abs(np.array(r) - pattern[t, :t + 1]).max() for t, r in enumerate(rows)) if len(rows) == len(fed) else 1.0
            check(err <= 1e-12, f"{arch} {ty}: --trace 1.3's weights over the cache differ from the full pattern by {err:.3g}")
        got = np.array(out["logits"])
        err = np.abs(got - want).max() if got.shape == want.shape else float("inf")
        check(err <= 1e-9, f"{arch} {ty}: cached float64 logits differ from the reference forward by {err:.3g}")
        greedy = [int(row.argmax()) for row in want[3:]]
        n = len(out["ids"])
        check(out["ids"] == greedy[:n] and (n == 12 or out["ids"][-1] == 2),
              f"{arch} {ty}: greedy ids {out['ids']} but the reference's argmax gives {greedy}")
        f32 = generate_json(path, "--tokens", "1,7,30,4", "--max-new-tokens", "12")
        err32 = np.abs(np.array(f32["logits"]) - want).max() / max(1.0, np.abs(want).max()) if len(f32["logits"]) == len(want) else float("inf")
        check(err32 <= 1e-4, f"{arch} {ty}: float32 logits off by {err32:.3g} of the largest logit ({np.abs(want).max():.3g})")


def blocks_as_dequantized(tmp):
    """Q8_0 and Q4_K weights multiplied in their blocks (model/quant_matvec) choose the tokens the same model's
    dequantized F32 file chooses, and give the same bytes on 1 and 2 threads (the 2,560-token unembedding is
    past the size that goes to the threads)."""
    for ty, tied in [("Q8_0", False), ("Q4_K", False), ("Q8_0", True)]:
        path, f32 = os.path.join(tmp, f"blocks-{ty}-{tied}.gguf"), os.path.join(tmp, f"blocks-{ty}-{tied}-f32.gguf")
        tiny_file(path, "llama", ty, d=256, n_head=4, n_kv=2, d_mlp=512, vocab=2560, seed=5, tied=tied, dequantized=f32)
        args = ("--tokens", "1,7,30,4", "--max-new-tokens", "8")
        one, two = (attn("generate", path, "--json", "-", "--logits", "--threads", n, *args) for n in ("1", "2"))
        check(one.returncode == 0 and one.stdout == two.stdout, f"{ty} tied={tied}: 1 and 2 threads differ ({one.returncode} {one.stderr})")
        got, want = json.loads(one.stdout) if one.returncode == 0 else {"ids": None}, generate_json(f32, *args)
        check(got["ids"] == want["ids"], f"{ty} tied={tied}: in blocks {got['ids']}, dequantized {want['ids']}")
        if got["ids"] == want["ids"]:
            err = np.abs(np.array(got["logits"]) - np.array(want["logits"])).max() / np.abs(np.array(want["logits"])).max()
            check(err <= 1e-5, f"{ty} tied={tied}: logits in blocks differ from the dequantized file's by {err:.3g} of the largest")


# ---- a GPT-2-family safetensors checkpoint ---------------------------------------------

def safetensors_model():
    path = os.path.join(SOURCE, "lessons", "models", "sort.safetensors")
    if not os.path.isfile(path):
        path = next(os.path.join(SOURCE, "lessons", "models", f) for f in sorted(os.listdir(os.path.join(SOURCE, "lessons", "models")))
                    if f.endswith(".safetensors"))
    out = generate_json(path, "--tokens", "1,2,0", "--max-new-tokens", "3")
    fed = fed_tokens(out)
    r = attn("run", path, "--tokens", ",".join(map(str, fed)), "--json", "-")
    check(r.returncode == 0, f"attn model run {path}: exit {r.returncode} {r.stderr}")
    if r.returncode == 0:
        logits = np.array(json.loads(r.stdout)["stages"]["logits"]["data"])[0]  # [P, V], printed to 6 decimals
        got = np.array(out["logits"])
        err = np.abs(got - logits).max() if got.shape == logits.shape else float("inf")
        check(err <= 1e-5, f"{os.path.basename(path)}: cached logits differ from attn model run's full forward by {err:.3g}")


# ---- a Hugging Face folder (GPT-2 names, config.json, vocab.json + merges.txt) --------------

def byte_units():
    """GPT-2's bytes_to_unicode: each byte as the printable character its BPE files spell it with."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars, n = list(keep), 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


def hf_folder(tmp):
    import gpt_reference as gpt
    units = byte_units()
    vocab = {units[b]: b for b in range(256)}
    merges = [("\u0120", "a"), ("\u0120a", "b"), ("a", "b")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    cfg = dict(n_layer=2, n_head=2, n_embd=16, vocab_size=len(vocab), n_positions=32, has_mlp=True, tied=True)
    params = gpt.random_params(cfg, 7)
    folder = os.path.join(tmp, "hf-gpt2")
    gpt.save_model(folder, cfg, params, "hf", dtype=torch.float64)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
    out = generate_json(folder, "--prompt", "ab ab", "--max-new-tokens", "10")
    check(out["prompt_ids"] == [258, 257], f"HF folder: the folder's tokenizer gave {out['prompt_ids']} for 'ab ab' (want ab, ␣ab: [258, 257])")
    want = gpt.forward(cfg, params, torch.tensor([fed_tokens(out)]))["logits"][0].numpy()
    got = np.array(out["logits"])
    err = np.abs(got - want).max() if got.shape == want.shape else float("inf")
    check(err <= 1e-9, f"HF folder (GPT-2, F64): cached logits differ from gpt_reference's forward by {err:.3g}")
    check(out["ids"] == [int(r.argmax()) for r in want[1:]], f"HF folder: greedy ids {out['ids']}")
    check(isinstance(out.get("text"), str) and len(out["text"]) > 0, "HF folder: no text decoded by the folder's tokenizer")
    os.remove(os.path.join(folder, "model.safetensors"))
    open(os.path.join(folder, "model.safetensors.index.json"), "w").write("{}")
    refused(["generate", folder, "--tokens", "1"], ["model.safetensors.index.json: byte 0", "weight_map"],
            "a folder whose shard index names no shard (test_model_hf_shards.py reads real shards)")


# ---- sampling and bad input --------------------------------------------------------------

def sampling():
    a = generate_json(STORIES, "--tokens", "1", "--max-new-tokens", "30", "--temperature", "1", "--seed", "5")
    b = generate_json(STORIES, "--tokens", "1", "--max-new-tokens", "30", "--temperature", "1", "--seed", "5")
    c = generate_json(STORIES, "--tokens", "1", "--max-new-tokens", "30", "--temperature", "1", "--seed", "6")
    check(a["ids"] == b["ids"], "the same seed gave different samples")
    check(a["ids"] != c["ids"], "seeds 5 and 6 gave the same 30 samples")
    k1 = generate_json(STORIES, "--tokens", "1", "--max-new-tokens", "20", "--temperature", "2", "--top-k", "1")
    greedy = generate_json(STORIES, "--tokens", "1", "--max-new-tokens", "20")
    check(k1["ids"] == greedy["ids"], "--top-k 1 is not greedy")


def refused(args, words, what):
    r = attn(*args)
    check(r.returncode == 2 and all(w in r.stderr for w in words) and "Traceback" not in r.stderr,
          f"{what}: exit {r.returncode}, stderr {r.stderr!r} (want exit 2 and {words})")


def bad_input(tmp):
    good = os.path.join(tmp, "good.gguf")
    tiny_file(good, "llama", "F32")
    data = open(good, "rb").read()
    cut = os.path.join(tmp, "cut.gguf")
    open(cut, "wb").write(data[:len(data) * 2 // 3])
    refused(["generate", cut, "--tokens", "1"], ["cut.gguf", "byte"], "a truncated GGUF")
    odd = os.path.join(tmp, "heads.gguf")
    tiny_file(odd, "llama", "F32", d=60, n_head=8, n_kv=2)
    refused(["generate", odd, "--tokens", "1"], ["heads.gguf", "byte", "divide"], "heads that do not divide embedding_length")
    kv = os.path.join(tmp, "kv.gguf")
    tiny_file(kv, "llama", "F32", n_head=4, n_kv=3)
    refused(["generate", kv, "--tokens", "1"], ["kv.gguf", "byte", "key/value heads"], "key/value heads that do not divide")
    refused(["generate", good, "--tokens", "1,2", "--max-new-tokens", "63"], ["--max-new-tokens 63", "context of 64"],
            "a max beyond the context")
    refused(["generate", good, "--tokens", ",".join(["5"] * 65)], ["65 tokens", "context of 64"], "a prompt longer than the context")
    refused(["generate", good, "--tokens", "1,48"], ["id 48", "vocabulary"], "an id outside the vocabulary")
    refused(["generate", os.path.join(tmp, "absent.gguf"), "--tokens", "1"], ["absent.gguf"], "a missing file")
    refused(["generate", good, "--tokens", "1", "--prompt", "w3"], ["--prompt", "--tokens"], "both --prompt and --tokens")
    r = attn("generate", good, "--tokens", "1,5,5,9", "--max-new-tokens", "4", "--width", "40")
    check(r.returncode == 0 and "\x1b" not in r.stdout and "\\x1b[31mred" in r.stdout,
          f"a piece with ESC: exit {r.returncode}, stdout {r.stdout!r}")
    refused(["generate", good, "--tokens", "1", "--trace", "2.0"], ["--trace 2.0", "2 layers"], "--trace of a layer past the last")
    refused(["generate", good, "--tokens", "1", "--trace", "1"], ["LAYER.HEAD"], "--trace without a head")
    refused(["generate", good, "--tokens", "1", "--top-k", "3"], ["--top-k", "--temperature"], "--top-k without sampling")
    r = attn("generate", good, "--tokens", "1", "--json", good)
    check(r.returncode == 2 and "input" in r.stderr and r.stdout == "" and open(good, "rb").read() == data,
          f"--json over the checkpoint: exit {r.returncode}, stdout {r.stdout[:80]!r}, stderr {r.stderr!r}")


with tempfile.TemporaryDirectory() as tmp:
    stories()
    tiny_models(tmp)
    blocks_as_dequantized(tmp)
    safetensors_model()
    hf_folder(tmp)
    sampling()
    bad_input(tmp)

print("model generate:", "ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
