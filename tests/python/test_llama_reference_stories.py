"""tests/python/test_llama_reference_stories.py — the Llama-family reference
(llama_reference.py) runs a real trained model: karpathy's stories260K (5 layers, GQA 8/4,
adjacent-pair RoPE, RMSNorm, SwiGLU, tied; ../shared/models/README.md), read here from its
GGUF with this test's own small reader. Greedy decoding from BOS must write the story
llama2.c's test_all.py pins ("Once upon a time, there was a little girl named Lily. …");
with half-split pairing (the wrong one for GGUF `llama` tensors) it must not. Greedy
decoding is done with the full forward every step, so it checks every stage that reaches
the logits."""
import os
import struct
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
SOURCE = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# llama2.c's test_all.py: run.c, temperature 0, 200 steps from BOS.
STORY = ("Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she "
         "saw a big, red ball. She wanted to play with it, but it was too high.\nLily's mom said, \"Lily, let's go to "
         "the park.\" Lily was sad and didn't know what to do. She said, \"I want to play with your ball, but I can't "
         "find it.\"\n")


def find_model():
    for p in [os.path.join(SOURCE, "lessons", "models", "stories260K.gguf"),
              os.path.join(SOURCE, "..", "..", "shared", "models", "stories260K.gguf"),
              "/work/shared/models/stories260K.gguf"]:
        if os.path.isfile(p):
            return p
    sys.exit("FAIL: stories260K.gguf is in neither lessons/models/ nor ../shared/models/")


def read_gguf(path):
    """(metadata, {name: float64 tensor}) of a GGUF v3 file with F32 tensors."""
    data = open(path, "rb").read()
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return v[0]

    def string():
        nonlocal pos
        n = take("Q")
        s = data[pos:pos + n].decode("utf-8")
        pos += n
        return s

    scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def value(kind):
        if kind == 8:
            return string()
        if kind == 9:
            item, n = take("I"), take("Q")
            return [value(item) for _ in range(n)]
        return take(scalar[kind])

    assert data[:4] == b"GGUF"
    pos = 4
    assert take("I") == 3
    n_tensors, n_kv = take("Q"), take("Q")
    meta = {}
    for _ in range(n_kv):
        key = string()
        meta[key] = value(take("I"))
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = [take("Q") for _ in range(take("I"))]
        kind, offset = take("I"), take("Q")
        assert kind == 0, (name, kind)  # F32
        infos.append((name, dims, offset))
    align = meta.get("general.alignment", 32)
    start = (pos + align - 1) // align * align
    tensors = {}
    for name, dims, offset in infos:
        count = int(np.prod(dims))
        a = np.frombuffer(data, dtype="<f4", count=count, offset=start + offset)
        tensors[name] = torch.from_numpy(a.reshape(list(reversed(dims))).astype(np.float64))  # innermost dim last
    return meta, tensors


def hf_names(t, n_layers):
    """GGUF `llama` names → Hugging Face names (weights stay [out, in])."""
    w = {"model.embed_tokens.weight": t["token_embd.weight"], "model.norm.weight": t["output_norm.weight"]}
    if "output.weight" in t:
        w["lm_head.weight"] = t["output.weight"]
    parts = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
             "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
             "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj"}
    for L in range(n_layers):
        for g, h in parts.items():
            w[f"model.layers.{L}.{h}.weight"] = t[f"blk.{L}.{g}.weight"]
    return w


def detokenize(pieces, ids):
    out = []
    for i in ids:
        p = pieces[i]
        if p.startswith("<0x") and p.endswith(">"):
            out.append(chr(int(p[3:-1], 16)))
        else:
            out.append(p.replace("\u2581", " "))
    return "".join(out).lstrip(" ")


meta, tensors = read_gguf(find_model())
assert meta["general.architecture"] == "llama"
n_layers = meta["llama.block_count"]
n_heads, n_kv = meta["llama.attention.head_count"], meta["llama.attention.head_count_kv"]
d_model = meta["llama.embedding_length"]
weights = hf_names(tensors, n_layers)
vocab = weights["model.embed_tokens.weight"].shape[0]
pieces = meta["tokenizer.ggml.tokens"]
bos = meta.get("tokenizer.ggml.bos_token_id", 1)


def greedy(cfg, steps):
    ids = [bos]
    for _ in range(steps):
        logits = ref.forward(weights, cfg, [ids])["logits"]
        ids.append(int(logits[0, -1].argmax()))
    return detokenize(pieces, ids[1:])


cfg = ref.LlamaConfig(d_model=d_model, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv,
                      d_head=d_model // n_heads, d_mlp=weights["model.layers.0.mlp.gate_proj.weight"].shape[0],
                      vocab=vocab, eps=meta["llama.attention.layer_norm_rms_epsilon"],
                      theta=meta.get("llama.rope.freq_base", 10000.0), pairing="adjacent")
assert (n_heads, n_kv, cfg.d_head) == (8, 4, 8), (n_heads, n_kv, cfg.d_head)
# The file stores output.weight as a copy of the embedding (tied); run it tied.
assert torch.equal(weights.pop("lm_head.weight"), weights["model.embed_tokens.weight"])
text = greedy(cfg, 90)
assert STORY.startswith(text) and len(text) > 200, f"stories260K wrote {text!r}"
print(f"stories260K, adjacent pairs: {text[:60]!r}… ({len(text)} characters of llama2.c's story)")
wrong = greedy(ref.LlamaConfig(**dict(cfg.__dict__, pairing="half_split")), 40)
assert not STORY.startswith(wrong), wrong
print(f"half-split pairs (wrong for GGUF llama tensors) write something else: {wrong[:60]!r}")
print("ok")
