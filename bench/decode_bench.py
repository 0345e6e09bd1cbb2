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

The same threads: PyTorch runs in a child process of this script whose OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS are the row's thread count before torch is
imported (torch.set_num_threads alone does not bind Debian's OpenBLAS, which runs its
matrix-vector products on every core). Each row says how that was checked: the child's
CPU time over its loop's wall time, and its OS threads (/proc/self/task) after the loop.

The roofline: a step reads every weight once (the embedding one row; a tied unembedding
whole) and every cached key and value of every layer, so a token cannot take less than
(those bytes) / (the machine's read bandwidth). The bytes come from the file's tensor
table and shapes (the cache's at the loop's mean length, context / 2); the bandwidth is
measured by attn_bandwidth (bench/bandwidth/) streaming a block the size of the model's
weights on the row's threads (or fewer, when that reads faster) — from memory for the random models, from cache for
stories260K. A row's "2× needs" is PyTorch's time over 2 beside that floor: below it,
2× is beyond what the memory can deliver, whatever the code.

Quantized: the Llama-shaped model's weights quantized here to Q8_0 and Q4_K (ggml's
block layouts; norms stay F32) and written beside the F32 file; `attn model run FILE
--tokens <128 ids>` (the whole process: reading, dequantizing, one forward, printing)
and `attn model generate` at context 128 (the decoding loop) on each, side by side with
the F32 file's. Issue 33: dequantizing must not make a forward slower than F32 twice.
Quant-decode: `attn model generate` on those Q8_0 / Q4_K files (their weights multiplied in
their blocks, model/quant_matvec) beside PyTorch's loop on the same weights dequantized to
F32 (what transformers holds after loading a GGUF: PyTorch reads 4 bytes a weight), the
floor from the bytes attn reads.

What each side's time holds — the same thing: attn's is the one it prints on stderr, a clock
around model::generate (every decoding step from BOS to the last token chosen, the greedy
choices included), without starting the process, reading the file or the tokenizer, packing
the weights into huge pages (make_decoder) or writing the JSON; PyTorch's is its clock around
its loop of the same steps, without importing torch or reading the weights. Both count the
same steps (context − 1: the last token needs no step) and are divided by them. attn's loop
takes no page fault, and its CPU time per step is flat from the first step on, the same at
capacity 128 and 1,024 (bench/results/decode.md).
Warm-up: each model's file is flushed to disk (os.sync) after it is written, and its first
row starts after one untimed run of each side: in earlier tables the first timed row of a run
(context 128, 1 thread) was 1.4× slower per token than the same model at 1,024 for attn and
1.15× for PyTorch, and the 2-thread row after it more than 2× faster than it — more than two
threads can give — a cost of the machine at that moment, not of either loop.

  /usr/bin/python3 bench/decode_bench.py --attn build-bench/attn [--bandwidth build-bench/bench/attn_bandwidth]
      [--threads 1,2] [--rounds 3] [--cases stories,gpt2,llama,quant,quant-decode] [--contexts 128,1024] [--out FILE]
(without --bandwidth, the helper is compiled from bench/bandwidth/bandwidth.cpp with c++ into a temporary folder).
"""
import argparse
import datetime
import json
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

torch = None  # imported by the PyTorch child only (torch_child), after its thread variables are set
TORCH_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

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

def read_gguf_header(path):
    """(metadata, [(name, dims innermost first, type id, offset)], data start) of a GGUF file."""
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
        infos.append((name, dims, take("<u4"), take("<u8")))
    align = meta.get("general.alignment", 32)
    return meta, infos, (pos + align - 1) // align * align


def read_gguf(path):
    """(metadata, {name: float32 tensor, outermost dim first}) of a GGUF file of F32 tensors."""
    meta, infos, start = read_gguf_header(path)
    data = np.memmap(path, dtype=np.uint8, mode="r")
    tensors = {}
    for name, dims, kind, offset in infos:
        assert kind == 0, (name, "F32 only")
        a = np.frombuffer(data, dtype="<f4", count=int(np.prod(dims)), offset=start + offset)
        tensors[name] = torch.from_numpy(np.array(a.reshape(list(reversed(dims)))))
    return meta, tensors


BLOCKS = {0: (1, 4), 8: (32, 34), 12: (256, 144)}  # ggml type id: (elements, bytes) a block (F32, Q8_0, Q4_K)


def weight_bytes(path):
    """Bytes of the weights one decoding step reads as the file holds them (F32, or Q8_0 / Q4_K blocks read in
    place): every tensor, the token and position embeddings one row each, a tied unembedding (no output.weight)
    the whole token embedding."""
    _meta, infos, _start = read_gguf_header(path)
    names = {name for name, _d, _k, _o in infos}
    total = 0
    for name, dims, kind, _offset in infos:
        n = int(np.prod(dims))
        if name in ("token_embd.weight", "position_embd.weight"):
            n = dims[0] + (n if name == "token_embd.weight" and "output.weight" not in names else 0)
        per, nbytes = BLOCKS[kind]
        total += n // per * nbytes
    return total


def cache_bytes(path, context):
    """Mean bytes of cached keys and values one step reads over a loop from BOS to `context` tokens
    (step t reads t + 1 positions; float32)."""
    meta, _infos, _start = read_gguf_header(path)
    arch = meta["general.architecture"]
    layers, heads = meta[arch + ".block_count"], meta[arch + ".attention.head_count"]
    kv, d_head = meta.get(arch + ".attention.head_count_kv", heads), meta[arch + ".embedding_length"] // heads
    steps = context - 1
    return 2 * 4 * layers * kv * d_head * (steps + 1) / 2


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


def torch_child(path, new, threads):
    """The PyTorch side of a row, in the child process (its thread variables set by torch_generate before
    torch is imported): prints one JSON line — the loop's ms, the new ids, CPU ÷ wall over the loop,
    the process's OS threads after it, torch's own thread count and version, the BLAS it loaded."""
    global torch
    import torch as loaded
    torch = loaded
    torch.set_num_threads(threads)
    with open(path, "rb") as f:
        f.seek(4 + 4 + 16 + 8)
        arch = f.read(64)
    d = (TorchGPT2 if b"gpt2" in arch else TorchLlama)(path, new + 1)
    ids, tok = [], 1
    with torch.no_grad():
        cpu, start = time.process_time(), time.perf_counter()
        for pos in range(new):
            tok = int(d.step(tok, pos).argmax())
            ids.append(tok)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    with open("/proc/self/maps") as f:
        blas = sorted({os.path.basename(line.split()[-1]) for line in f if "blas" in line.split()[-1]})
    print(json.dumps(dict(ms=wall * 1e3, ids=ids, cpu_per_wall=cpu / wall, os_threads=len(os.listdir("/proc/self/task")),
                          torch_threads=torch.get_num_threads(), version=torch.__version__, blas=blas)))


def torch_generate(path, new, threads):
    """PyTorch's loop on `threads` threads (torch_child's JSON as a dict): BOS, then each chosen token fed
    back, `new` steps, in a child process whose OpenMP/OpenBLAS/MKL thread counts are set before torch loads."""
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", **{v: str(threads) for v in TORCH_THREAD_VARIABLES})
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-child", path, str(new), str(threads)], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"decode_bench: the PyTorch loop on {path} failed ({r.returncode}):\n{r.stderr}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if out["cpu_per_wall"] > threads + 0.25:  # more cores busy than asked: the comparison would not be fair
        sys.exit(f"decode_bench: PyTorch asked for {threads} thread(s) used {out['cpu_per_wall']:.2f} cores (CPU ÷ wall)")
    return out


# ---- the roofline: the machine's read bandwidth ------------------------------------------

def bandwidth_tool(o, folder):
    """The attn_bandwidth binary: --bandwidth, or compiled here from bench/bandwidth/bandwidth.cpp."""
    if o.bandwidth:
        return o.bandwidth
    out = os.path.join(folder, "attn_bandwidth")
    src = os.path.join(HERE, "bandwidth", "bandwidth.cpp")
    r = subprocess.run(["c++", "-O2", "-march=native", "-std=c++17", "-pthread", src, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"decode_bench: cannot compile {src} (give --bandwidth BIN):\n{r.stderr}")
    return out


def read_bandwidth(tool, nbytes, threads):
    """GB/s (10⁹ bytes) streaming a block of nbytes on `threads` threads: attn_bandwidth's best of 7 rounds."""
    kib = max(64, (nbytes + 1023) // 1024)
    r = subprocess.run([tool, str(threads), str(kib), "7"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"decode_bench: {tool} {threads} {kib} failed ({r.returncode}):\n{r.stderr}")
    return json.loads(r.stdout)["gb_per_s"]


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


def dequantized(ty, raw):
    """The float32 values of Q8_0 / Q4_K bytes, as ggml's dequantize_row_* computes them (each operation rounded to
    float32: Q8_0 q·d, Q4_K (d·sc)·q − dmin·m): what transformers holds after loading such a GGUF."""
    if ty == "Q8_0":
        b = np.frombuffer(raw, dtype=[("d", "<f2"), ("q", "i1", 32)])
        return (b["q"].astype(np.float32) * b["d"].astype(np.float32)[:, None]).reshape(-1)
    b = np.frombuffer(raw, dtype=[("d", "<f2"), ("dmin", "<f2"), ("scales", "u1", 12), ("qs", "u1", 128)])
    s = b["scales"].astype(np.int32)
    sc = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 0xF) | ((s[:, 0:4] >> 6) << 4)], 1)   # [blocks, 8]
    m = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)], 1)
    d1 = b["d"].astype(np.float32)[:, None] * sc.astype(np.float32)                           # exact products
    m1 = b["dmin"].astype(np.float32)[:, None] * m.astype(np.float32)
    qs = b["qs"].reshape(-1, 4, 32)
    q = np.stack([qs & 0xF, qs >> 4], 2).reshape(-1, 8, 32).astype(np.float32)                # sub-block 2k low, 2k + 1 high
    return (d1[:, :, None] * q - m1[:, :, None]).astype(np.float32).reshape(-1)


def write_model(path, arch, md, weights, ty="F32", dequantized_path=None):
    """A GGUF of these weights: 2-D ones as `ty` (F32, Q8_0 or Q4_K), 1-D ones F32."""
    tensors = []
    for name, a in weights.items():
        dims = list(reversed(a.shape))
        if ty == "F32" or a.ndim == 1:
            tensors.append((name, dims, "F32", a.tobytes()))
        else:
            tensors.append((name, dims, ty, (q8_0_bytes if ty == "Q8_0" else q4_k_bytes)(a)))
    gg.write_gguf(path, [("general.architecture", "string", arch)] + md, tensors)
    if dequantized_path:  # the same weights dequantized to F32: the file PyTorch's loop reads
        gg.write_gguf(dequantized_path, [("general.architecture", "string", arch)] + md,
                      [(n, dims, "F32", raw if t == "F32" else dequantized(t, raw).tobytes()) for n, dims, t, raw in tensors])
    os.sync()  # the new file's pages written back now, not in the middle of a timed row


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

def machine(torch_version):
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{model}, {os.cpu_count()} hardware threads, Linux {platform.release()}, PyTorch {torch_version}"


def warm_up(o, path, f32_path, context):
    """One untimed run of each side on a model before its timed rows (see the header: Warm-up)."""
    attn_generate(o.attn, path, context - 1, 1)
    torch_generate(f32_path, context - 1, 1)


def decode_row(o, words, path, context, threads, bandwidth):
    """One row: attn and PyTorch at this context and thread count, beside the roofline (bandwidth: GB/s on
    `threads` threads for this model's weights)."""
    a_ms, t_ms, a_ids, t = [], [], None, None
    new = context - 1  # BOS and the new tokens fill the cache to the context
    for _ in range(o.rounds):
        ms, a_ids = attn_generate(o.attn, path, new, threads)
        a_ms.append(ms)
        t = torch_generate(path, new, threads)
        t_ms.append(t["ms"])
    if a_ids != t["ids"]:
        first = next(i for i, (a, b) in enumerate(zip(a_ids + [-1], t["ids"] + [-2])) if a != b)
        sys.exit(f"decode_bench: {words}: attn and PyTorch chose different tokens from step {first}:\n{a_ids}\n{t['ids']}")
    am, tm = statistics.median(a_ms) / new, statistics.median(t_ms) / new
    nbytes = weight_bytes(path) + cache_bytes(path, context)
    floor = nbytes / (bandwidth * 1e9) * 1e3  # ms
    need = tm / 2
    verdict = "reachable" if need >= floor else "**beyond the floor**"
    row = (f"| {words} | {context:,} | {threads} | {nbytes / 1e6:,.1f} MB | {bandwidth:.1f} GB/s | {floor:.3f} ms | {am:.3f} ms | "
           f"{tm:.3f} ms | {tm / am:.2f}× | {need:.3f} ms: {verdict} | {t['cpu_per_wall']:.2f}, {t['os_threads']} |")
    print(row, flush=True)
    return row, t["version"]


def quant_rows(o, folder, threads):
    """F32 vs Q8_0 vs Q4_K of the Llama-shaped model: `attn model run` and `generate` on each."""
    s = LLAMA_SHAPE
    weights = random_weights(llama_shapes(**s), seed=1)
    tokens = [1] + [int(x) for x in np.random.default_rng(2).integers(3, s["vocab"], 127)]
    rows, base = [], None
    for ty in ("F32", "Q8_0", "Q4_K"):
        path = os.path.join(folder, f"llama-{ty}.gguf")
        write_model(path, "llama", llama_md(s), weights, ty)
        if base is None:
            attn_run_ms(o.attn, path, tokens)  # untimed warm-up (see the header)
        run = statistics.median(attn_run_ms(o.attn, path, tokens) for _ in range(o.rounds))
        gen = statistics.median(attn_generate(o.attn, path, 128, threads)[0] for _ in range(o.rounds)) / 128
        mb = os.path.getsize(path) / 2 ** 20
        base = base or (run, gen)
        rows.append(f"| {ty} | {mb:,.0f} MiB | {threads} | {run:,.0f} ms | {run / base[0]:.2f}× | {gen:.3f} ms | {gen / base[1]:.2f}× |")
        print(rows[-1], flush=True)
    return rows


def quant_decode_rows(o, folder, threads, contexts, tool):
    """attn model generate on the Llama-shaped model's Q8_0 and Q4_K files (weights multiplied in their blocks)
    beside PyTorch's cached loop on the same weights dequantized to F32, with the floor from the bytes attn reads."""
    s = LLAMA_SHAPE
    weights = random_weights(llama_shapes(**s), seed=1)
    rows = []
    for ty in ("Q8_0", "Q4_K"):
        path, f32 = os.path.join(folder, f"llama-{ty}.gguf"), os.path.join(folder, f"llama-{ty}-dequantized.gguf")
        write_model(path, "llama", llama_md(s), weights, ty, dequantized_path=f32)
        bw = {t: read_bandwidth(tool, weight_bytes(path), t) for t in threads}
        bw = {t: max(bw[u] for u in threads if u <= t) for t in threads}
        warm_up(o, path, f32, min(contexts))
        for context in contexts:
            new = context - 1
            for t in threads:
                a_ms, t_ms, a_ids, tr = [], [], None, None
                for _ in range(o.rounds):
                    ms, a_ids = attn_generate(o.attn, path, new, t)
                    a_ms.append(ms)
                    tr = torch_generate(f32, new, t)
                    t_ms.append(tr["ms"])
                same = "same" if a_ids == tr["ids"] else "first differs at %d" % next(
                    i for i, (x, y) in enumerate(zip(a_ids + [-1], tr["ids"] + [-2])) if x != y)
                am, tm = statistics.median(a_ms) / new, statistics.median(t_ms) / new
                nbytes = weight_bytes(path) + cache_bytes(path, context)
                floor = nbytes / (bw[t] * 1e9) * 1e3
                need = tm / 2
                rows.append(f"| {ty} ({os.path.getsize(path) / 2 ** 20:,.0f} MiB) | {context:,} | {t} | {nbytes / 1e6:,.1f} MB | "
                            f"{bw[t]:.1f} GB/s | {floor:.3f} ms | {am:.3f} ms | {tm:.3f} ms | {tm / am:.2f}× | "
                            f"{need:.3f} ms: {'reachable' if need >= floor else '**beyond the floor**'} | {same} |")
                print(rows[-1], flush=True)
        os.remove(f32)
        os.remove(path)
    return rows


def torch_version():
    r = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                       env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE", **{v: "1" for v in TORCH_THREAD_VARIABLES}))
    return r.stdout.strip() or "unknown"


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--torch-child":  # the PyTorch side of a row (torch_generate)
        return torch_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", default="build/attn")
    ap.add_argument("--bandwidth", default="", help="attn_bandwidth (default: compiled from bench/bandwidth/bandwidth.cpp)")
    ap.add_argument("--threads", default="1,%d" % (os.cpu_count() or 1), help="comma-separated thread counts (default: 1 and every core)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="stories,gpt2,llama,quant,quant-decode")
    ap.add_argument("--contexts", default="128,1024")
    ap.add_argument("--out", default="")
    o = ap.parse_args()
    threads = sorted({int(t) for t in o.threads.split(",")})
    cases, contexts = o.cases.split(","), [int(c) for c in o.contexts.split(",")]
    began = time.perf_counter()
    folder = tempfile.mkdtemp(prefix="decode-bench-")
    tool = bandwidth_tool(o, folder)
    models = []
    if "stories" in cases:
        models.append(("stories260K.gguf (real, trained; 5 layers, d 64, 8 q / 4 kv heads)", STORIES, 512))
    for key, arch, shape, shapes, md in (("gpt2", "gpt2", GPT2_SHAPE, gpt2_shapes, gpt2_md),
                                         ("llama", "llama", LLAMA_SHAPE, llama_shapes, llama_md)):
        if key in cases:
            path = os.path.join(folder, f"{key}.gguf")
            write_model(path, arch, md(shape), random_weights(shapes(**shape), seed=1))
            models.append((shape_words(shape, arch), path, shape["context"]))
    rows, version, bandwidths = [], None, []
    for words, path, limit in models:
        bw = {t: read_bandwidth(tool, weight_bytes(path), t) for t in threads}
        bw = {t: max(bw[u] for u in threads if u <= t) for t in threads}  # t threads may always read as fewer do
        bandwidths.append(f"{words.split(' (')[0]} ({weight_bytes(path) / 2 ** 20:,.1f} MiB): "
                          + ", ".join(f"{bw[t]:.1f} GB/s on {t} thread{'s' if t > 1 else ''}" for t in threads))
        print(bandwidths[-1], flush=True)
        warm_up(o, path, path, min(min(contexts), limit))
        for context in sorted({min(c, limit) for c in contexts}):
            for t in threads:
                row, version = decode_row(o, words, path, context, t, bw[t])
                rows.append(row)
        if path != STORIES:
            os.remove(path)
    qrows, qdrows = [], []
    if "quant" in cases:
        qrows = quant_rows(o, folder, max(threads))
    if "quant-decode" in cases:
        qdrows = quant_decode_rows(o, folder, threads, contexts, tool)
    took = time.perf_counter() - began
    text = (f"## Decode through a KV cache — {datetime.date.today().isoformat()}\n\n"
            f"Machine: {machine(version or torch_version())}. Median of {o.rounds} runs; attn and PyTorch choose the same tokens "
            f"in every row.\nCommand: `/usr/bin/python3 bench/decode_bench.py {' '.join(sys.argv[1:])}` ({took / 60:.1f} minutes)\n\n")
    if rows:
        text += ("Greedy from BOS until the cache holds the context's tokens; ms per token over the whole loop. PyTorch ran in a "
                 "child process with OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS set to the row's threads before "
                 "torch was imported; its last column is checked, not assumed: CPU time ÷ wall time over its loop (about the "
                 "cores it kept busy) and its OS threads after the loop. The roofline: bytes a token reads (weights + the KV "
                 "cache at the loop's mean length) ÷ the read bandwidth attn_bandwidth measured streaming a block the size of "
                 "the model's weights on the row's threads or fewer (best of 7) = the floor no decoder can beat on this machine; "
                 "\"2× needs\" is PyTorch's time ÷ 2, reachable only if it is above the floor. Both times are the loop alone "
                 "(no start-up, reading or packing of weights); each model's first row follows one untimed run of each side.\n\n"
                 "Read bandwidth: " + "; ".join(bandwidths) + ".\n\n"
                 "| model | context | threads | bytes a token | read bandwidth | floor | attn model generate | PyTorch cached loop "
                 "| PyTorch ÷ attn | 2× needs | PyTorch CPU ÷ wall, OS threads |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    if qrows:
        text += ("\nThe Llama-shaped model quantized: `attn model run` on 128 tokens (the whole process: read, dequantize, "
                 "forward, print; every core) and `attn model generate` at context 128 (ms per token), each beside the F32 file's.\n\n"
                 "| file | size | threads | attn model run | ÷ F32 | generate | ÷ F32 |\n|---|---|---|---|---|---|---|\n"
                 + "\n".join(qrows) + "\n")
    if qdrows:
        text += ("\nQuantized files decoded on their blocks: `attn model generate` on the Llama-shaped model's Q8_0 and Q4_K "
                 "files (each weight read from its blocks and dequantized in registers; the token embedding one row) beside "
                 "PyTorch's cached loop on the same weights dequantized to F32 — what a PyTorch user with that GGUF runs "
                 "(transformers dequantizes GGUF files to F32 when it loads them), so **PyTorch reads 4 bytes a weight, attn "
                 "34/32 (Q8_0) or 144/256 (Q4_K)**. The floor is from the bytes attn reads (the blocks, the norms, the cache) "
                 "at the bandwidth of a block that size; tokens: whether both chose the same.\n\n"
                 "| file | context | threads | bytes a token (attn) | read bandwidth | floor | attn model generate | PyTorch on the "
                 "dequantized F32 | PyTorch ÷ attn | 2× needs | tokens |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
                 + "\n".join(qdrows) + "\n")
    print(text)
    if o.out:
        with open(o.out, "a") as f:
            f.write("\n" + text)
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == "__main__":
    main()
