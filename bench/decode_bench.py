#!/usr/bin/python3
"""bench/decode_bench.py — decode speed, the benchmark of record of issue 33: `attn model
generate` (model/decode: one step per token against a KV cache) beside PyTorch running its
own cached decode loop of the same model, the same threads, greedy from BOS; both must
produce the same tokens. Then a quantized file against its F32 original.

Cases (every one in one command; `tools/bench --decode` runs this):
  * stories260K.gguf (the shipped real Llama; its context is 512 positions);
  * a GPT-2-small-shaped random model (12 layers, d 768, 12 heads, GELU MLP 3,072,
    learned positions, vocabulary 50,257), written here as a GGUF `gpt2` F32 file;
  * a Llama-shaped random model (8 layers, d 512, 8 query heads sharing 4 key/value
    heads, SwiGLU 1,536, RMSNorm, rotary, vocabulary 32,000), a GGUF `llama` F32 file;
each at contexts of 128 and 1,024 tokens (stories260K: 128 and its 512): the decoder
starts at BOS and generates until the cache holds that many tokens, every step timed,
on 1 thread and on every core. A row gives ms per token (the whole loop over the number
of steps) for both sides and PyTorch's time over attn's.

PyTorch's loop is written to be fast, not a strawman: float32, torch.no_grad, key/value
caches preallocated as [layers, kv_heads, context, d_head] (a step's attention is two
batched products over views, no copy of the cache), the query/key/value projections
fused into one matrix-vector product and SwiGLU's gate and up into another (attn fuses
the first too), rotary turns as complex products (Meta's own form), torch.addmv for
GPT-2's biased projections.

Quantized: the Llama-shaped model's weights quantized here to Q8_0 and Q4_K (ggml's
block layouts; norms stay F32) and written beside the F32 file; `attn model run FILE
--tokens <128 ids>` (the whole process: reading, dequantizing, one forward, printing)
and `attn model generate` at context 128 (the decoding loop) on each, side by side with
the F32 file's. Issue 33: dequantizing must not make a forward slower than F32 twice.

attn's decode time is the one it prints on stderr (the decoding loop alone, without
loading the file or the tokenizer); PyTorch's is timed around its loop the same way.

  /usr/bin/python3 bench/decode_bench.py --attn build-bench/attn [--threads 1,2]
      [--rounds 3] [--cases stories,gpt2,llama,quant] [--contexts 128,1024] [--out FILE]
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))
import numpy as np  # noqa: E402
import gguf_reference as gg  # noqa: E402
import torch  # noqa: E402

STORIES = os.path.join(HERE, "..", "lessons", "models", "stories260K.gguf")
GPT2_SHAPE = dict(d=768, layers=12, heads=12, d_mlp=3072, vocab=50257, context=1024)  # tied unembedding
LLAMA_SHAPE = dict(d=512, layers=8, heads=8, kv=4, d_mlp=1536, vocab=32000, context=1024)


# ---- attn ----------------------------------------------------------------------------

def attn_generate(attn, model, new, threads):
    """(ms of the decoding loop as attn prints it, the new ids)."""
    r = subprocess.run([attn, "model", "generate", model, "--tokens", "1", "--new", str(new), "--threads", str(threads),
                        "--json", "-"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"decode_bench: attn model generate {model} failed ({r.returncode}):\n{r.stderr}")
    ms = float(re.search(r"tokens in ([0-9.]+) ms", r.stderr).group(1))
    ids = [int(x) for x in re.search(r'"ids":\[([0-9,]*)\]', r.stdout).group(1).split(",")]
    return ms, ids


def attn_run_ms(attn, model, tokens):
    """Wall milliseconds of the whole `attn model run` process (read, dequantize, forward, print; every core)."""
    start = time.perf_counter()
    r = subprocess.run([attn, "model", "run", model, "--tokens", ",".join(map(str, tokens))], capture_output=True, text=True)
    ms = (time.perf_counter() - start) * 1e3
    if r.returncode != 0:
        sys.exit(f"decode_bench: attn model run {model} failed ({r.returncode}):\n{r.stderr}")
    return ms


# ---- GGUF F32 tensors for PyTorch --------------------------------------------------------

def read_gguf(path):
    """(metadata, {name: float32 tensor, outermost dim first}) of a GGUF file of F32 tensors."""
    data = np.memmap(path, dtype=np.uint8, mode="r")
    raw = bytes(data[:1 << 24]) if data.size > 1 << 24 else bytes(data)
    pos = 4
    assert raw[:4] == b"GGUF"

    def take(fmt):
        nonlocal pos
        v = np.frombuffer(raw, dtype=np.dtype(fmt), count=1, offset=pos)[0]
        pos += np.dtype(fmt).itemsize
        return v.item()

    def string():
        nonlocal pos
        n = take("<u8")
        s = raw[pos:pos + n].decode("utf-8")
        pos += n
        return s

    scalar = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "<u1", 10: "<u8", 11: "<i8", 12: "<f8"}

    def value(kind):
        if kind == 8:
            return string()
        if kind == 9:
            item, n = take("<u4"), take("<u8")
            return [value(item) for _ in range(n)]
        return take(scalar[kind])
    take("<u4")
    n_tensors, n_kv = take("<u8"), take("<u8")
    meta = {}
    for _ in range(n_kv):
        key = string()
        meta[key] = value(take("<u4"))
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = [take("<u8") for _ in range(take("<u4"))]
        kind, offset = take("<u4"), take("<u8")
        assert kind == 0, (name, "F32 only")
        infos.append((name, dims, offset))
    align = meta.get("general.alignment", 32)
    start = (pos + align - 1) // align * align
    tensors = {}
    for name, dims, offset in infos:
        a = np.frombuffer(data, dtype="<f4", count=int(np.prod(dims)), offset=start + offset)
        tensors[name] = torch.from_numpy(np.array(a.reshape(list(reversed(dims)))))
    return meta, tensors


# ---- PyTorch's cached decode loops -------------------------------------------------------

class TorchLlama:
    """A cached decode loop of a GGUF `llama` model (adjacent rotary pairs), float32."""

    def __init__(self, path, capacity):
        meta, w = read_gguf(path)
        self.L = meta["llama.block_count"]
        self.H, self.KV = meta["llama.attention.head_count"], meta["llama.attention.head_count_kv"]
        self.dh = meta["llama.embedding_length"] // self.H
        self.eps = meta["llama.attention.layer_norm_rms_epsilon"]
        self.embed = w["token_embd.weight"]
        self.layers = []
        for layer in range(self.L):
            p = "blk.%d." % layer
            self.layers.append(dict(
                n1=w[p + "attn_norm.weight"], n2=w[p + "ffn_norm.weight"], o=w[p + "attn_output.weight"],
                qkv=torch.cat([w[p + "attn_q.weight"], w[p + "attn_k.weight"], w[p + "attn_v.weight"]]).contiguous(),
                gu=torch.cat([w[p + "ffn_gate.weight"], w[p + "ffn_up.weight"]]).contiguous(), down=w[p + "ffn_down.weight"]))
        self.norm = w["output_norm.weight"]
        self.unembed = w.get("output.weight", self.embed)
        theta = meta.get("llama.rope.freq_base", 10000.0)
        freq = theta ** (-torch.arange(0, self.dh, 2, dtype=torch.float64) / self.dh)
        ang = torch.arange(capacity, dtype=torch.float64)[:, None] * freq[None, :]
        self.turn = torch.polar(torch.ones_like(ang), ang).to(torch.complex64)  # [capacity, dh/2]
        self.k = torch.zeros(self.L, self.KV, capacity, self.dh)
        self.v = torch.zeros(self.L, self.KV, capacity, self.dh)
        self.scale = self.dh ** -0.5

    def rms(self, x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * w

    def rotate(self, x, pos):  # x [heads, dh], adjacent pairs as complex numbers
        return torch.view_as_real(torch.view_as_complex(x.view(x.shape[0], -1, 2)) * self.turn[pos]).flatten(-2)

    def step(self, token, pos):
        H, KV, dh, g = self.H, self.KV, self.dh, self.H // self.KV
        x = self.embed[token]
        for layer, w in enumerate(self.layers):
            qkv = w["qkv"] @ self.rms(x, w["n1"])
            q = self.rotate(qkv[:H * dh].view(H, dh), pos)
            self.k[layer, :, pos] = self.rotate(qkv[H * dh:(H + KV) * dh].view(KV, dh), pos)
            self.v[layer, :, pos] = qkv[(H + KV) * dh:].view(KV, dh)
            k, v = self.k[layer, :, :pos + 1], self.v[layer, :, :pos + 1]  # [KV, t, dh] views
            att = torch.softmax(torch.matmul(q.view(KV, g, dh), k.transpose(1, 2)) * self.scale, dim=-1)  # [KV, g, t]
            x = x + w["o"] @ torch.matmul(att, v).reshape(-1)
            gate, up = (w["gu"] @ self.rms(x, w["n2"])).chunk(2)
            x = x + w["down"] @ (torch.nn.functional.silu(gate) * up)
        return self.unembed @ self.rms(x, self.norm)


class TorchGPT2:
    """A cached decode loop of a GGUF `gpt2` model (learned positions, LayerNorm, GELU-tanh), float32."""

    def __init__(self, path, capacity):
        meta, w = read_gguf(path)
        self.L, self.H = meta["gpt2.block_count"], meta["gpt2.attention.head_count"]
        self.C = meta["gpt2.embedding_length"]
        self.dh = self.C // self.H
        self.eps = meta["gpt2.attention.layer_norm_epsilon"]
        self.wte, self.wpe = w["token_embd.weight"], w["position_embd.weight"]
        names = ("attn_norm.weight", "attn_norm.bias", "attn_qkv.weight", "attn_qkv.bias", "attn_output.weight",
                 "attn_output.bias", "ffn_norm.weight", "ffn_norm.bias", "ffn_up.weight", "ffn_up.bias", "ffn_down.weight",
                 "ffn_down.bias")
        self.layers = [{n: w["blk.%d.%s" % (layer, n)] for n in names} for layer in range(self.L)]
        self.nf_w, self.nf_b = w["output_norm.weight"], w["output_norm.bias"]
        self.unembed = w.get("output.weight", self.wte)
        self.k = torch.zeros(self.L, self.H, capacity, self.dh)
        self.v = torch.zeros(self.L, self.H, capacity, self.dh)
        self.scale = self.dh ** -0.5

    def norm(self, x, w, b):
        return torch.nn.functional.layer_norm(x, (self.C,), w, b, self.eps)

    def step(self, token, pos):
        C, H, dh = self.C, self.H, self.dh
        x = self.wte[token] + self.wpe[pos]
        for layer, w in enumerate(self.layers):
            qkv = torch.addmv(w["attn_qkv.bias"], w["attn_qkv.weight"], self.norm(x, w["attn_norm.weight"], w["attn_norm.bias"]))
            self.k[layer, :, pos] = qkv[C:2 * C].view(H, dh)
            self.v[layer, :, pos] = qkv[2 * C:].view(H, dh)
            k, v = self.k[layer, :, :pos + 1], self.v[layer, :, :pos + 1]  # [H, t, dh] views
            att = torch.softmax(torch.matmul(qkv[:C].view(H, 1, dh), k.transpose(1, 2)) * self.scale, dim=-1)  # [H, 1, t]
            x = x + torch.addmv(w["attn_output.bias"], w["attn_output.weight"], torch.matmul(att, v).reshape(-1))
            h = torch.addmv(w["ffn_up.bias"], w["ffn_up.weight"], self.norm(x, w["ffn_norm.weight"], w["ffn_norm.bias"]))
            x = x + torch.addmv(w["ffn_down.bias"], w["ffn_down.weight"], torch.nn.functional.gelu(h, approximate="tanh"))
        return self.unembed @ self.norm(x, self.nf_w, self.nf_b)


def torch_generate(path, new, threads):
    """(ms of PyTorch's loop, the new ids): BOS, then each chosen token fed back, `new` steps."""
    torch.set_num_threads(threads)
    with open(path, "rb") as f:
        f.seek(4 + 4 + 16 + 8)
        arch = f.read(64)
    d = (TorchGPT2 if b"gpt2" in arch else TorchLlama)(path, new + 1)
    ids, tok = [], 1
    with torch.no_grad():
        start = time.perf_counter()
        for pos in range(new):
            tok = int(d.step(tok, pos).argmax())
            ids.append(tok)
        ms = (time.perf_counter() - start) * 1e3
    return ms, ids


# ---- the random models ---------------------------------------------------------------

def tokenizer_md(vocab):
    """A SentencePiece-style vocabulary of `vocab` pieces, BOS 1, no end-of-sequence (every run makes all its tokens)."""
    return [("tokenizer.ggml.model", "string", "llama"),
            ("tokenizer.ggml.tokens", ("array", "string"), ["<unk>", "<s>", "</s>"] + ["\u2581w%d" % i for i in range(3, vocab)]),
            ("tokenizer.ggml.scores", ("array", "f32"), [0.0] * vocab),
            ("tokenizer.ggml.token_type", ("array", "i32"), [2, 3, 3] + [1] * (vocab - 3)),
            ("tokenizer.ggml.bos_token_id", "u32", 1)]


def random_weights(shape_of, seed):
    """{name: float32 array, outermost dim first}: N(0, 1/fan-in) matrices, norms 1 (biases 0)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, dims in shape_of:
        if len(dims) == 1:
            out[name] = np.zeros(dims, np.float32) if name.endswith(".bias") else np.ones(dims, np.float32)
            continue
        scale = 1.0 if name in ("token_embd.weight", "position_embd.weight") else dims[0] ** -0.5  # dims[0]: fan-in
        out[name] = (rng.standard_normal(dims[0] * dims[1], dtype=np.float32) * np.float32(scale)).reshape(dims[1], dims[0])
    return out


def llama_shapes(d, layers, heads, kv, d_mlp, vocab, **_):
    dh, s = d // heads, [("token_embd.weight", [d, vocab])]
    for layer in range(layers):
        b = "blk.%d." % layer
        s += [(b + "attn_norm.weight", [d]), (b + "attn_q.weight", [d, d]), (b + "attn_k.weight", [d, kv * dh]),
              (b + "attn_v.weight", [d, kv * dh]), (b + "attn_output.weight", [d, d]), (b + "ffn_norm.weight", [d]),
              (b + "ffn_gate.weight", [d, d_mlp]), (b + "ffn_up.weight", [d, d_mlp]), (b + "ffn_down.weight", [d_mlp, d])]
    return s + [("output_norm.weight", [d]), ("output.weight", [d, vocab])]


def gpt2_shapes(d, layers, d_mlp, vocab, context, **_):
    s = [("token_embd.weight", [d, vocab]), ("position_embd.weight", [d, context])]
    for layer in range(layers):
        b = "blk.%d." % layer
        s += [(b + "attn_norm.weight", [d]), (b + "attn_norm.bias", [d]), (b + "attn_qkv.weight", [d, 3 * d]),
              (b + "attn_qkv.bias", [3 * d]), (b + "attn_output.weight", [d, d]), (b + "attn_output.bias", [d]),
              (b + "ffn_norm.weight", [d]), (b + "ffn_norm.bias", [d]), (b + "ffn_up.weight", [d, d_mlp]),
              (b + "ffn_up.bias", [d_mlp]), (b + "ffn_down.weight", [d_mlp, d]), (b + "ffn_down.bias", [d])]
    return s + [("output_norm.weight", [d]), ("output_norm.bias", [d])]  # tied, as GPT-2: the unembedding is token_embd


def q8_0_bytes(x):
    """ggml's Q8_0 of x (a multiple of 32 values): per 32, f16 d = max|x|/127 and int8 round(x/d)."""
    b = x.astype(np.float32).reshape(-1, 32)
    d = np.abs(b).max(1) / 127
    inv = np.divide(1, d, out=np.zeros_like(d), where=d > 0)
    out = np.zeros(b.shape[0], dtype=[("d", "<f2"), ("q", "i1", 32)])
    out["d"], out["q"] = d, np.clip(np.rint(b * inv[:, None]), -127, 127)
    return out.tobytes()


def q4_k_bytes(x):
    """ggml's Q4_K of x (a multiple of 256 values): per 256, eight sub-blocks of 32 with 6-bit scales and
    mins (f16 d, dmin above them) and 4-bit values; x ≈ d·sc·q − dmin·m (quantize_row_q4_K_ref's layout,
    its simple min/max fit rather than its search)."""
    b = x.astype(np.float32).reshape(-1, 8, 32)
    lo, hi = np.minimum(b.min(2), 0), b.max(2)
    scale, mins = (hi - lo) / 15, -lo                                    # [blocks, 8]
    d = np.float16(scale.max(1) / 63).astype(np.float32)               # [blocks]
    dmin = np.float16(mins.max(1) / 63).astype(np.float32)
    sc = np.clip(np.rint(np.divide(scale, d[:, None], out=np.zeros_like(scale), where=d[:, None] > 0)), 0, 63).astype(np.uint8)
    m = np.clip(np.rint(np.divide(mins, dmin[:, None], out=np.zeros_like(mins), where=dmin[:, None] > 0)), 0, 63).astype(np.uint8)
    step = d[:, None] * sc                                              # [blocks, 8]
    q = np.rint(np.divide(b + (dmin[:, None] * m)[:, :, None], step[:, :, None], out=np.zeros_like(b),
                          where=step[:, :, None] > 0))
    q = np.clip(q, 0, 15).astype(np.uint8).reshape(-1, 4, 2, 32)         # [blocks, pairs of sub-blocks, 2, 32]
    scales = np.zeros((b.shape[0], 12), np.uint8)                        # pack_k4_scales, vectorised
    scales[:, 0:4], scales[:, 4:8] = sc[:, :4], m[:, :4]
    scales[:, 8:12] = (sc[:, 4:] & 0xF) | ((m[:, 4:] & 0xF) << 4)
    scales[:, 0:4] |= (sc[:, 4:] >> 4) << 6
    scales[:, 4:8] |= (m[:, 4:] >> 4) << 6
    out = np.zeros(b.shape[0], dtype=[("d", "<f2"), ("dmin", "<f2"), ("scales", "u1", 12), ("qs", "u1", 128)])
    out["d"], out["dmin"], out["scales"] = d, dmin, scales
    out["qs"] = (q[:, :, 0] | (q[:, :, 1] << 4)).reshape(-1, 128)       # low nibbles: sub-block 2k, high: 2k + 1
    return out.tobytes()


def write_model(path, arch, md, weights, ty="F32"):
    """A GGUF of these weights: 2-D ones as `ty` (F32, Q8_0 or Q4_K), 1-D ones F32."""
    tensors = []
    for name, a in weights.items():
        dims = list(reversed(a.shape))
        if ty == "F32" or a.ndim == 1:
            tensors.append((name, dims, "F32", a.tobytes()))
        else:
            tensors.append((name, dims, ty, (q8_0_bytes if ty == "Q8_0" else q4_k_bytes)(a)))
    gg.write_gguf(path, [("general.architecture", "string", arch)] + md, tensors)


def llama_md(s):
    return [("llama.block_count", "u32", s["layers"]), ("llama.context_length", "u32", s["context"]),
            ("llama.embedding_length", "u32", s["d"]), ("llama.feed_forward_length", "u32", s["d_mlp"]),
            ("llama.attention.head_count", "u32", s["heads"]), ("llama.attention.head_count_kv", "u32", s["kv"]),
            ("llama.rope.freq_base", "f32", 10000.0), ("llama.attention.layer_norm_rms_epsilon", "f32", 1e-5)] + tokenizer_md(s["vocab"])


def gpt2_md(s):
    return [("gpt2.block_count", "u32", s["layers"]), ("gpt2.context_length", "u32", s["context"]),
            ("gpt2.embedding_length", "u32", s["d"]), ("gpt2.feed_forward_length", "u32", s["d_mlp"]),
            ("gpt2.attention.head_count", "u32", s["heads"]), ("gpt2.attention.layer_norm_epsilon", "f32", 1e-5)] + tokenizer_md(s["vocab"])


def shape_words(s, arch):
    if arch == "gpt2":
        return f"GPT-2-small-shaped random ({s['layers']} layers, d {s['d']}, {s['heads']} heads, vocab {s['vocab']:,})"
    return (f"Llama-shaped random ({s['layers']} layers, d {s['d']}, {s['heads']} q / {s['kv']} kv heads, SwiGLU {s['d_mlp']}, "
            f"vocab {s['vocab']:,})")


# ---- the table -------------------------------------------------------------------------

def machine():
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{model}, {os.cpu_count()} hardware threads, Linux {platform.release()}, PyTorch {torch.__version__}"


def decode_row(o, words, path, context, threads):
    a_ms, t_ms, a_ids, t_ids = [], [], None, None
    new = context - 1  # BOS and the new tokens fill the cache to the context
    for _ in range(o.rounds):
        ms, a_ids = attn_generate(o.attn, path, new, threads)
        a_ms.append(ms)
        ms, t_ids = torch_generate(path, new, threads)
        t_ms.append(ms)
    if a_ids != t_ids:
        first = next(i for i, (a, b) in enumerate(zip(a_ids + [-1], t_ids + [-2])) if a != b)
        sys.exit(f"decode_bench: {words}: attn and PyTorch chose different tokens from step {first}:\n{a_ids}\n{t_ids}")
    am, tm = statistics.median(a_ms) / new, statistics.median(t_ms) / new
    row = f"| {words} | {context:,} | {threads} | {am:.3f} ms | {tm:.3f} ms | {tm / am:.2f}× |"
    print(row, flush=True)
    return row


def quant_rows(o, folder, threads):
    """F32 vs Q8_0 vs Q4_K of the Llama-shaped model: `attn model run` and `generate` on each."""
    s = LLAMA_SHAPE
    weights = random_weights(llama_shapes(**s), seed=1)
    tokens = [1] + [int(x) for x in np.random.default_rng(2).integers(3, s["vocab"], 127)]
    rows, base = [], None
    for ty in ("F32", "Q8_0", "Q4_K"):
        path = os.path.join(folder, f"llama-{ty}.gguf")
        write_model(path, "llama", llama_md(s), weights, ty)
        run = statistics.median(attn_run_ms(o.attn, path, tokens) for _ in range(o.rounds))
        gen = statistics.median(attn_generate(o.attn, path, 128, threads)[0] for _ in range(o.rounds)) / 128
        mb = os.path.getsize(path) / 2 ** 20
        base = base or (run, gen)
        rows.append(f"| {ty} | {mb:,.0f} MiB | {threads} | {run:,.0f} ms | {run / base[0]:.2f}× | {gen:.3f} ms | {gen / base[1]:.2f}× |")
        print(rows[-1], flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", default="build/attn")
    ap.add_argument("--threads", default="1,%d" % (os.cpu_count() or 1), help="comma-separated thread counts (default: 1 and every core)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="stories,gpt2,llama,quant")
    ap.add_argument("--contexts", default="128,1024")
    ap.add_argument("--out", default="")
    o = ap.parse_args()
    threads = sorted({int(t) for t in o.threads.split(",")})
    cases, contexts = o.cases.split(","), [int(c) for c in o.contexts.split(",")]
    began = time.perf_counter()
    folder = tempfile.mkdtemp(prefix="decode-bench-")
    models = []
    if "stories" in cases:
        models.append(("stories260K.gguf (real, trained; 5 layers, d 64, 8 q / 4 kv heads)", STORIES, 512))
    for key, arch, shape, shapes, md in (("gpt2", "gpt2", GPT2_SHAPE, gpt2_shapes, gpt2_md),
                                         ("llama", "llama", LLAMA_SHAPE, llama_shapes, llama_md)):
        if key in cases:
            path = os.path.join(folder, f"{key}.gguf")
            write_model(path, arch, md(shape), random_weights(shapes(**shape), seed=1))
            models.append((shape_words(shape, arch), path, shape["context"]))
    rows = []
    for words, path, limit in models:
        for context in sorted({min(c, limit) for c in contexts}):
            for t in threads:
                rows.append(decode_row(o, words, path, context, t))
        if path != STORIES:
            os.remove(path)
    qrows = []
    if "quant" in cases:
        qrows = quant_rows(o, folder, max(threads))
    took = time.perf_counter() - began
    text = (f"## Decode through a KV cache — {datetime.date.today().isoformat()}\n\n"
            f"Machine: {machine()}. Median of {o.rounds} runs; attn and PyTorch choose the same tokens in every row.\n"
            f"Command: `/usr/bin/python3 bench/decode_bench.py {' '.join(sys.argv[1:])}` ({took / 60:.1f} minutes)\n\n")
    if rows:
        text += ("Greedy from BOS until the cache holds the context's tokens; ms per token over the whole loop.\n\n"
                 "| model | context | threads | attn model generate | PyTorch cached loop | PyTorch time ÷ attn time |\n"
                 "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    if qrows:
        text += ("\nThe Llama-shaped model quantized: `attn model run` on 128 tokens (the whole process: read, dequantize, "
                 "forward, print; every core) and `attn model generate` at context 128 (ms per token), each beside the F32 file's.\n\n"
                 "| file | size | threads | attn model run | ÷ F32 | generate | ÷ F32 |\n|---|---|---|---|---|---|---|\n"
                 + "\n".join(qrows) + "\n")
    print(text)
    if o.out:
        with open(o.out, "a") as f:
            f.write("\n" + text)
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == "__main__":
    main()
