"""tests/python/gguf_reference.py — a GGUF writer and quantizer written from the format's
documentation (ggml's docs/gguf.md; the block layouts of ggml-common.h and
ggml-quants.c), independent of attn: the tests make their files with it and know the
exact values each block stands for.

  write_gguf(path, metadata, tensors, version=3, alignment=None)
      metadata: [(key, type, value)], type one of TYPES ("u8" … "f64", "bool", "string",
      ("array", element type) — element types nest: ("array", ("array", "u8")));
      tensors: [(name, dims innermost first, ggml type name, raw bytes)] laid out in
      order, each at a multiple of the alignment.
  quantize(type name, codes…) → (raw bytes, exact float64 values) for F32, F16, BF16,
      Q8_0, Q4_0, Q4_K, Q6_K from random codes and scales (random_tensor does it).
"""
import struct

import numpy as np

TYPES = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "u32": 4, "i32": 5, "f32": 6, "bool": 7, "string": 8, "array": 9,
         "u64": 10, "i64": 11, "f64": 12}
SCALAR = {"u8": "<B", "i8": "<b", "u16": "<H", "i16": "<h", "u32": "<I", "i32": "<i", "f32": "<f", "bool": "<?",
          "u64": "<Q", "i64": "<q", "f64": "<d"}
GGML = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q5_0": 6, "Q8_0": 8, "Q4_K": 12, "Q5_K": 13, "Q6_K": 14, "BF16": 30}
BLOCK = {"F32": (1, 4), "F16": (1, 2), "BF16": (1, 2), "Q8_0": (32, 34), "Q4_0": (32, 18), "Q4_1": (32, 20),
         "Q5_0": (32, 22), "Q4_K": (256, 144), "Q5_K": (256, 176), "Q6_K": (256, 210)}


def gguf_string(s):
    b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(b)) + b


def type_tag(t):
    return TYPES["array"] if isinstance(t, tuple) else TYPES[t]


def value_bytes(t, v):
    if isinstance(t, tuple):  # ("array", element type)
        et = t[1]
        return struct.pack("<IQ", type_tag(et), len(v)) + b"".join(value_bytes(et, x) for x in v)
    if t == "string":
        return gguf_string(v)
    return struct.pack(SCALAR[t], v)


def header_bytes(metadata, tensors, version=3, n_tensors=None, n_kv=None):
    """The bytes before the data: magic, version, counts, metadata, tensor table."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", version, len(tensors) if n_tensors is None else n_tensors,
                                          len(metadata) if n_kv is None else n_kv))
    for key, t, v in metadata:
        out += gguf_string(key) + struct.pack("<I", type_tag(t)) + value_bytes(t, v)
    for name, dims, ty, offset in tensors:
        out += gguf_string(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
        out += struct.pack("<IQ", GGML[ty] if isinstance(ty, str) else ty, offset)
    return bytes(out)


def layout(tensors, alignment):
    """Offsets (relative to the data) of each tensor's bytes, each aligned."""
    offsets, at = [], 0
    for _, _, _, raw in tensors:
        at = (at + alignment - 1) // alignment * alignment
        offsets.append(at)
        at += len(raw)
    return offsets


def gguf_bytes(metadata, tensors, version=3, alignment=None):
    align = 32 if alignment is None else alignment
    md = list(metadata) + ([("general.alignment", "u32", alignment)] if alignment is not None else [])
    offsets = layout(tensors, align)
    head = header_bytes(md, [(n, d, t, o) for (n, d, t, _), o in zip(tensors, offsets)], version)
    data_start = (len(head) + align - 1) // align * align
    out = bytearray(head + b"\0" * (data_start - len(head)))
    for (_, _, _, raw), off in zip(tensors, offsets):
        out += b"\0" * (data_start + off - len(out)) + raw
    return bytes(out)


def write_gguf(path, metadata, tensors, version=3, alignment=None):
    with open(path, "wb") as f:
        f.write(gguf_bytes(metadata, tensors, version, alignment))


# ── quantizers: bytes and the exact values they stand for ─────────────────────────

def f16(x):
    return np.float64(np.float16(x))


def q8_0(rng, n):
    raw, vals = bytearray(), []
    for _ in range(n // 32):
        d = np.float16(rng.uniform(-0.05, 0.05))
        q = rng.integers(-128, 128, 32).astype(np.int8)
        raw += d.tobytes() + q.tobytes()
        vals += list(np.float64(d) * q.astype(np.float64))
    return bytes(raw), np.array(vals)


def q4_0(rng, n):
    raw, vals = bytearray(), []
    for _ in range(n // 32):
        d = np.float16(rng.uniform(-0.05, 0.05))
        q = rng.integers(0, 16, 32)
        packed = (q[:16] | (q[16:] << 4)).astype(np.uint8)  # low nibbles: elements 0-15, high: 16-31
        raw += d.tobytes() + packed.tobytes()
        vals += list(np.float64(d) * (q - 8).astype(np.float64))
    return bytes(raw), np.array(vals)


def pack_k4_scales(sc, m):
    """Eight 6-bit scales and mins in 12 bytes (quantize_row_q4_K_ref's packing)."""
    s = [0] * 12
    for j in range(8):
        if j < 4:
            s[j] = int(sc[j])
            s[j + 4] = int(m[j])
        else:
            s[j + 4] = (int(sc[j]) & 0xF) | ((int(m[j]) & 0xF) << 4)
            s[j - 4] |= (int(sc[j]) >> 4) << 6
            s[j] |= (int(m[j]) >> 4) << 6
    return bytes(s)


def q4_k(rng, n):
    raw, vals = bytearray(), []
    for _ in range(n // 256):
        d, dmin = np.float16(rng.uniform(0.001, 0.02)), np.float16(rng.uniform(0.001, 0.02))
        sc, m = rng.integers(0, 64, 8), rng.integers(0, 64, 8)
        q = rng.integers(0, 16, 256)
        qs = bytearray()
        for k in range(4):  # 64 elements: the low nibbles are sub-block 2k, the high ones 2k + 1
            qs += bytes(int(q[64 * k + l]) | (int(q[64 * k + 32 + l]) << 4) for l in range(32))
        raw += d.tobytes() + dmin.tobytes() + pack_k4_scales(sc, m) + bytes(qs)
        j = np.arange(256) // 32
        vals += list(np.float64(d) * sc[j].astype(np.float64) * q.astype(np.float64) - np.float64(dmin) * m[j].astype(np.float64))
    return bytes(raw), np.array(vals)


def q6_k(rng, n):
    raw, vals = bytearray(), []
    for _ in range(n // 256):
        d = np.float16(rng.uniform(-0.01, 0.01))
        sc = rng.integers(-128, 128, 16).astype(np.int8)
        L = rng.integers(0, 64, 256)
        ql, qh = bytearray(128), bytearray(64)
        for h in range(2):  # two halves of 128: ql[64h…], qh[32h…]
            b = 128 * h
            for l in range(32):
                ql[64 * h + l] = (L[b + l] & 15) | ((L[b + l + 64] & 15) << 4)
                ql[64 * h + l + 32] = (L[b + l + 32] & 15) | ((L[b + l + 96] & 15) << 4)
                qh[32 * h + l] = (L[b + l] >> 4) | ((L[b + l + 32] >> 4) << 2) | ((L[b + l + 64] >> 4) << 4) | ((L[b + l + 96] >> 4) << 6)
        raw += bytes(ql) + bytes(qh) + sc.tobytes() + d.tobytes()
        vals += list(np.float64(d) * sc[np.arange(256) // 16].astype(np.float64) * (L - 32).astype(np.float64))
    return bytes(raw), np.array(vals)


def random_tensor(rng, ty, n):
    """(raw bytes, exact values) of n elements of type ty."""
    if ty == "F32":
        x = rng.standard_normal(n).astype(np.float32)
        return x.tobytes(), x.astype(np.float64)
    if ty == "F16":
        x = rng.standard_normal(n).astype(np.float16)
        return x.tobytes(), x.astype(np.float64)
    if ty == "BF16":
        bits = (rng.standard_normal(n).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return bits.tobytes(), (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return {"Q8_0": q8_0, "Q4_0": q4_0, "Q4_K": q4_k, "Q6_K": q6_k}[ty](rng, n)


def raw_zeros(ty, dims):
    """Bytes of a tensor of type ty and dims, all zero (for shapes-only files)."""
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    block, size = BLOCK[ty]
    return b"\0" * (n // block * size)


def llama_file(arch="llama", n_layer=2, d=64, n_head=4, n_kv=2, d_mlp=96, vocab=40, ty="F32", rng=None, tied=False,
               extra_md=(), context=128):
    """(metadata, tensors) of a small random model of a GGUF architecture (llama, qwen2, gpt2)."""
    rng = rng or np.random.default_rng(0)
    dh = d // n_head
    md = [("general.architecture", "string", arch), ("general.name", "string", "tiny " + arch),
          (arch + ".block_count", "u32", n_layer), (arch + ".context_length", "u32", context),
          (arch + ".embedding_length", "u32", d), (arch + ".feed_forward_length", "u32", d_mlp),
          (arch + ".attention.head_count", "u32", n_head)]
    if arch == "gpt2":
        md += [(arch + ".attention.layer_norm_epsilon", "f32", 1e-5)]
    else:
        md += [(arch + ".attention.head_count_kv", "u32", n_kv), (arch + ".rope.freq_base", "f32", 10000.0),
               (arch + ".rope.dimension_count", "u32", dh), (arch + ".attention.layer_norm_rms_epsilon", "f32", 1e-6)]
    md += [("tokenizer.ggml.model", "string", "gpt2" if arch != "llama" else "llama"),
           ("tokenizer.ggml.tokens", ("array", "string"), ["t%d" % i for i in range(vocab)])] + list(extra_md)

    def t(name, dims, typ="F32"):
        raw, _ = random_tensor(rng, typ, int(np.prod(dims)))
        return (name, dims, typ, raw)
    q, kv = n_head * dh, (n_kv if arch != "gpt2" else n_head) * dh
    tensors = [t("token_embd.weight", [d, vocab], ty if d % BLOCK[ty][0] == 0 else "F32")]
    if arch == "gpt2":
        tensors += [t("position_embd.weight", [d, context])]
    for layer in range(n_layer):
        b = "blk.%d." % layer
        tensors += [t(b + "attn_norm.weight", [d])]
        if arch == "gpt2":
            tensors += [t(b + "attn_norm.bias", [d]), t(b + "attn_qkv.weight", [d, 3 * d], ty), t(b + "attn_qkv.bias", [3 * d]),
                        t(b + "attn_output.weight", [d, d], ty), t(b + "attn_output.bias", [d]),
                        t(b + "ffn_norm.weight", [d]), t(b + "ffn_norm.bias", [d]),
                        t(b + "ffn_up.weight", [d, d_mlp], ty), t(b + "ffn_up.bias", [d_mlp]),
                        t(b + "ffn_down.weight", [d_mlp, d], ty if d_mlp % BLOCK[ty][0] == 0 else "F32"), t(b + "ffn_down.bias", [d])]
            continue
        tensors += [t(b + "attn_q.weight", [d, q], ty), t(b + "attn_k.weight", [d, kv], ty), t(b + "attn_v.weight", [d, kv], ty),
                    t(b + "attn_output.weight", [q, d], ty), t(b + "ffn_norm.weight", [d]),
                    t(b + "ffn_gate.weight", [d, d_mlp], ty), t(b + "ffn_up.weight", [d, d_mlp], ty),
                    t(b + "ffn_down.weight", [d_mlp, d], ty if d_mlp % BLOCK[ty][0] == 0 else "F32")]
        if arch == "qwen2":
            tensors += [t(b + "attn_q.bias", [q]), t(b + "attn_k.bias", [kv]), t(b + "attn_v.bias", [kv])]
    tensors += [t("output_norm.weight", [d])] + ([t("output_norm.bias", [d])] if arch == "gpt2" else [])
    if not tied:
        tensors += [t("output.weight", [d, vocab], ty if d % BLOCK[ty][0] == 0 else "F32")]
    return md, tensors
