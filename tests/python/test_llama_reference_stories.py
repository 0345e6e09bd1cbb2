"""tests/python/test_llama_reference_stories.py — the Llama-family reference
(llama_reference.py) runs a real trained model: karpathy's stories260K (5 layers, GQA 8/4,
adjacent-pair RoPE, RMSNorm, SwiGLU, tied; ../shared/models/README.md), read here from its
GGUF with the reference's own small reader (read_gguf_f32). Greedy decoding from BOS must write the story
llama2.c's test_all.py pins ("Once upon a time, there was a little girl named Lily. …");
with half-split pairing (the wrong one for GGUF `llama` tensors) it must not. Greedy
decoding is done with the full forward every step, so it checks every stage that reaches
the logits."""
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
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


def detokenize(pieces, ids):
    out = []
    for i in ids:
        p = pieces[i]
        if p.startswith("<0x") and p.endswith(">"):
            out.append(chr(int(p[3:-1], 16)))
        else:
            out.append(p.replace("\u2581", " "))
    return "".join(out).lstrip(" ")


meta, tensors = ref.read_gguf_f32(find_model())
assert meta["general.architecture"] == "llama"
n_layers = meta["llama.block_count"]
n_heads, n_kv = meta["llama.attention.head_count"], meta["llama.attention.head_count_kv"]
d_model = meta["llama.embedding_length"]
weights = ref.gguf_llama_to_hf(tensors, n_layers)
vocab = weights["model.embed_tokens.weight"].shape[0]
pieces = meta["tokenizer.ggml.tokens"]
bos = meta.get("tokenizer.ggml.bos_token_id", 1)


def greedy(cfg, steps):
    return detokenize(pieces, ref.greedy(weights, cfg, [bos], steps)[1:])


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
