#!/usr/bin/python3
"""bench/decode_bench.py — decode speed: `attn model generate` (model/decode: one step per
token against a KV cache) beside PyTorch running its own cached decode loop of the same
model (the loop below: preallocated key/value caches, one query row per head per step,
torch.no_grad, float32), the same threads, greedy from BOS. Both must produce the same
tokens; the table gives tokens per second (prompt + new tokens over the whole loop) and
milliseconds per token, the median of --rounds runs each.

  /usr/bin/python3 bench/decode_bench.py --attn build/attn [--model lessons/models/stories260K.gguf]
      [--new 200] [--threads 1] [--rounds 5] [--out bench/results/decode.md]

attn's time is the one it prints on stderr (the decoding loop alone, without loading the
file or the tokenizer); PyTorch's is timed around its loop the same way."""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))
import llama_reference as ref  # noqa: E402
import torch  # noqa: E402


def attn_run(attn, model, new, threads):
    r = subprocess.run([attn, "model", "generate", model, "--tokens", "1", "--new", str(new), "--threads", str(threads),
                        "--json", "-"], capture_output=True, text=True, check=True)
    ms = float(re.search(r"tokens in ([0-9.]+) ms", r.stderr).group(1))
    ids = [int(x) for x in re.search(r'"ids":\[([0-9,]*)\]', r.stdout).group(1).split(",")]
    return ms, ids


class TorchDecoder:
    """A cached decode loop of a GGUF `llama` model (adjacent rotary pairs), float32."""

    def __init__(self, path, capacity):
        meta, t = ref.read_gguf_f32(path)
        self.L = meta["llama.block_count"]
        self.H, self.KV = meta["llama.attention.head_count"], meta["llama.attention.head_count_kv"]
        self.C = meta["llama.embedding_length"]
        self.dh = self.C // self.H
        self.eps = meta["llama.attention.layer_norm_rms_epsilon"]
        self.w = {k: v.to(torch.float32).contiguous() for k, v in t.items()}
        ang = ref.rotary_angles(list(range(capacity)), self.dh, meta.get("llama.rope.freq_base", 10000.0), torch.float32)
        self.cos, self.sin = ang.cos(), ang.sin()  # [capacity, dh/2]
        self.k = torch.zeros(self.L, capacity, self.KV, self.dh)
        self.v = torch.zeros(self.L, capacity, self.KV, self.dh)
        self.unembed = self.w.get("output.weight", self.w["token_embd.weight"])

    def rms(self, x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * w

    def rotate(self, x, pos):  # x [heads, dh], adjacent pairs
        a, b = x[:, 0::2], x[:, 1::2]
        c, s = self.cos[pos], self.sin[pos]
        return torch.stack([a * c - b * s, a * s + b * c], dim=-1).flatten(-2)

    def step(self, token, pos):
        w, g = self.w, self.H // self.KV
        x = w["token_embd.weight"][token]
        for layer in range(self.L):
            p = "blk.%d." % layer
            a = self.rms(x, w[p + "attn_norm.weight"])
            q = self.rotate((w[p + "attn_q.weight"] @ a).view(self.H, self.dh), pos)
            self.k[layer, pos] = self.rotate((w[p + "attn_k.weight"] @ a).view(self.KV, self.dh), pos)
            self.v[layer, pos] = (w[p + "attn_v.weight"] @ a).view(self.KV, self.dh)
            k = self.k[layer, :pos + 1].repeat_interleave(g, dim=1)  # [t+1, H, dh]
            v = self.v[layer, :pos + 1].repeat_interleave(g, dim=1)
            att = torch.einsum("hd,thd->ht", q, k) / self.dh ** 0.5
            z = torch.einsum("ht,thd->hd", att.softmax(-1), v).reshape(-1)
            x = x + w[p + "attn_output.weight"] @ z
            m = self.rms(x, w[p + "ffn_norm.weight"])
            gate = w[p + "ffn_gate.weight"] @ m
            x = x + w[p + "ffn_down.weight"] @ (torch.nn.functional.silu(gate) * (w[p + "ffn_up.weight"] @ m))
        return self.unembed @ self.rms(x, w["output_norm.weight"])


def torch_run(path, new, threads):
    torch.set_num_threads(threads)
    d = TorchDecoder(path, new + 1)
    ids, tok = [], 1
    with torch.no_grad():
        start = time.perf_counter()
        for pos in range(new):
            tok = int(d.step(tok, pos).argmax())
            ids.append(tok)
        ms = (time.perf_counter() - start) * 1e3
    return ms, ids


def random_llama(path, d, layers, heads, kv, d_mlp, vocab, context):
    """A random GGUF `llama` model of this shape (F32, weights scaled 1/√fan-in), for speed only."""
    import numpy as np
    import gguf_reference as g
    rng = np.random.default_rng(0)
    dh = d // heads
    md = [("general.architecture", "string", "llama"), ("llama.block_count", "u32", layers),
          ("llama.context_length", "u32", context), ("llama.embedding_length", "u32", d),
          ("llama.feed_forward_length", "u32", d_mlp), ("llama.attention.head_count", "u32", heads),
          ("llama.attention.head_count_kv", "u32", kv), ("llama.rope.freq_base", "f32", 10000.0),
          ("llama.attention.layer_norm_rms_epsilon", "f32", 1e-5),
          ("tokenizer.ggml.model", "string", "llama"),
          ("tokenizer.ggml.tokens", ("array", "string"), ["<unk>", "<s>", "</s>"] + ["\u2581w%d" % i for i in range(3, vocab)]),
          ("tokenizer.ggml.scores", ("array", "f32"), [0.0] * vocab),
          ("tokenizer.ggml.token_type", ("array", "i32"), [2, 3, 3] + [1] * (vocab - 3)),
          ("tokenizer.ggml.bos_token_id", "u32", 1), ("tokenizer.ggml.eos_token_id", "u32", 2)]

    def t(name, dims, scale):
        x = (rng.standard_normal(int(np.prod(dims)), dtype=np.float32) * np.float32(scale)).astype(np.float32)
        return (name, dims, "F32", x.tobytes())
    ones = lambda name: (name, [d], "F32", np.ones(d, np.float32).tobytes())  # noqa: E731
    tensors = [t("token_embd.weight", [d, vocab], 1.0)]
    for layer in range(layers):
        b = "blk.%d." % layer
        tensors += [ones(b + "attn_norm.weight"), t(b + "attn_q.weight", [d, d], d ** -0.5),
                    t(b + "attn_k.weight", [d, kv * dh], d ** -0.5), t(b + "attn_v.weight", [d, kv * dh], d ** -0.5),
                    t(b + "attn_output.weight", [d, d], d ** -0.5), ones(b + "ffn_norm.weight"),
                    t(b + "ffn_gate.weight", [d, d_mlp], d ** -0.5), t(b + "ffn_up.weight", [d, d_mlp], d ** -0.5),
                    t(b + "ffn_down.weight", [d_mlp, d], d_mlp ** -0.5)]
    tensors += [ones("output_norm.weight"), t("output.weight", [d, vocab], d ** -0.5)]
    g.write_gguf(path, md, tensors)


def machine():
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{model}, {os.cpu_count()} hardware threads, Linux {platform.release()}, PyTorch {torch.__version__}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", default="build/attn")
    ap.add_argument("--model", default=os.path.join(HERE, "..", "lessons", "models", "stories260K.gguf"))
    ap.add_argument("--new", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default="")
    ap.add_argument("--random", default="", help="d_model,layers,heads,kv_heads,d_mlp,vocab: a random Llama of that shape instead")
    o = ap.parse_args()
    if o.random:
        import tempfile
        d, layers, heads, kv, d_mlp, vocab = (int(x) for x in o.random.split(","))
        o.model = os.path.join(tempfile.mkdtemp(prefix="decode-bench-"), f"llama-{d}x{layers}-{heads}q{kv}kv-v{vocab}.gguf")
        random_llama(o.model, d, layers, heads, kv, d_mlp, vocab, o.new + 8)
    a_ms, a_ids, t_ms, t_ids = [], None, [], None
    for _ in range(o.rounds):
        ms, a_ids = attn_run(o.attn, o.model, o.new, o.threads)
        a_ms.append(ms)
        ms, t_ids = torch_run(o.model, o.new, o.threads)
        t_ms.append(ms)
    if a_ids != t_ids:
        sys.exit(f"decode_bench: attn and PyTorch generated different tokens:\n{a_ids}\n{t_ids}")
    n = o.new  # attn feeds BOS + new − 1 tokens and chooses new; PyTorch feeds new steps
    am, tm = statistics.median(a_ms), statistics.median(t_ms)
    rows = [f"| {os.path.basename(o.model)}, greedy from BOS, {n} tokens | {o.threads} | {n / am * 1e3:,.0f} tokens/s "
            f"({am / n:.3f} ms/token) | {n / tm * 1e3:,.0f} tokens/s ({tm / n:.3f} ms/token) | {tm / am:.2f}× |"]
    text = (f"## Decode through a KV cache — {datetime.date.today().isoformat()}\n\n"
            f"Machine: {machine()}. Median of {o.rounds} runs; both sides generate the same {n} tokens.\n"
            f"Command: `/usr/bin/python3 bench/decode_bench.py --attn {o.attn} --new {o.new} --threads {o.threads} "
            f"--rounds {o.rounds}{' --random ' + o.random if o.random else ''}`\n\n"
            "| case | threads | attn model generate | PyTorch cached loop | PyTorch time ÷ attn time |\n|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n")
    print(text)
    if o.out:
        with open(o.out, "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
