"""tests/python/checkpoint_reference.py — an independent safetensors reader and writer
(NumPy + json, and torch.frombuffer; the `safetensors` package is not on Debian), run by
tests/model_checkpoint_test.cpp on the files attn writes.

    /usr/bin/python3 tests/python/checkpoint_reference.py IN.safetensors OUT_DIR

Reads IN (written by attn::model::write_checkpoint) with its own parser, checks the
format (8-byte length, header padded to 8, contiguous data, the config in __metadata__
as strings, minGPT/nanoGPT names and nn.Linear shapes), loads every tensor with
torch.frombuffer bit for bit equal to NumPy's, and loads the whole state dict into a
nanoGPT-shaped torch module (strict names and shapes). Then writes the same model in
both layouts (Hugging Face GPT-2: no prefix, Conv1D [in, out], no lm_head when tied;
minGPT: as read) in the four dtypes F64, F32, F16, BF16, as OUT_DIR/<layout>-<dtype>
.safetensors, each with OUT_DIR/<layout>-<dtype>.expected: the values each element
converts to, as little-endian float64 in attn's parameter order and storage layout
([in, out] for linear weights), for attn to compare bit for bit. Exits 1 on a failed
check, printing it."""
import json
import os
import struct
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def read(path):
    """(metadata, [(name, array)]) with every format rule checked."""
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    if (8 + n) % 8 != 0:
        fail(f"header of {n} bytes leaves the data unaligned")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    data = raw[8 + n:]
    tensors, at = [], 0
    for name, e in header.items():
        b, end = e["data_offsets"]
        if b != at:
            fail(f"{name}: data not contiguous ({b} != {at})")
        dt = np.dtype(DTYPES[e["dtype"]]).newbyteorder("<")
        a = np.frombuffer(data[b:end], dtype=dt).reshape(e["shape"])
        t = torch.frombuffer(bytearray(data[b:end]), dtype={"F64": torch.float64, "F32": torch.float32}[e["dtype"]]).reshape(e["shape"])
        if not np.array_equal(t.numpy().view(np.uint8), a.view(np.uint8)):
            fail(f"{name}: torch.frombuffer and NumPy differ")
        tensors.append((name, a))
        at = end
    if at != len(data):
        fail("bytes after the last tensor")
    return meta, tensors


def is_linear(name):
    return name.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight"))


class Block(torch.nn.Module):
    def __init__(self, d, mlp):
        super().__init__()
        self.ln_1 = torch.nn.LayerNorm(d)
        self.attn = torch.nn.Module()
        self.attn.c_attn, self.attn.c_proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        if mlp:
            self.ln_2 = torch.nn.LayerNorm(d)
            self.mlp = torch.nn.Module()
            self.mlp.c_fc, self.mlp.c_proj = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)


def load_in_torch(meta, tensors):
    """nanoGPT's module tree, loaded with strict=True: every name and shape must fit."""
    d, L, V, P = (int(meta[k]) for k in ("n_embd", "n_layer", "vocab_size", "n_positions"))
    state = {n: torch.from_numpy(a.copy()) for n, a in tensors}
    mlp = any(".mlp." in n for n in state)
    m = torch.nn.Module()
    m.transformer = torch.nn.ModuleDict(dict(wte=torch.nn.Embedding(V, d), wpe=torch.nn.Embedding(P, d),
                                             h=torch.nn.ModuleList([Block(d, mlp) for _ in range(L)]), ln_f=torch.nn.LayerNorm(d)))
    m.lm_head = torch.nn.Linear(d, V, bias=False)
    state.setdefault("lm_head.weight", state["transformer.wte.weight"])  # tied: nanoGPT shares wte
    m.to(next(iter(state.values())).dtype).load_state_dict(state, strict=True)


def bf16(a):
    """float32 → bfloat16 bits, round to nearest even; checked against torch's own."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    out = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    ref = torch.from_numpy(a.astype(np.float32).copy()).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    if not np.array_equal(out, ref):
        fail("bfloat16 rounding differs from torch's")
    return out


def write(path, tensors, dtype, meta):
    """Writes tensors in `dtype`; returns what each element converts to, as float64."""
    header, blobs, at, values = {"__metadata__": meta}, [], 0, []
    for name, a in tensors:
        if dtype == "BF16":
            bits = bf16(a)
            blob = bits.astype("<u2").tobytes()
            values.append((name, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)))
        else:
            c = a.astype(DTYPES[dtype])
            blob = c.astype(np.dtype(DTYPES[dtype]).newbyteorder("<")).tobytes()
            values.append((name, c.astype(np.float64)))
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [at, at + len(blob)]}
        blobs.append(blob)
        at += len(blob)
    h = json.dumps(header).encode()  # no padding: attn must read unaligned data too
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    return values


def expected(values, order, hugging_face):
    """float64 bytes in attn's order, linear weights [in, out] (the HF file's own layout)."""
    by = dict(values)
    out = []
    for name in order:
        key = name[len("transformer."):] if hugging_face and name.startswith("transformer.") else name
        v = by[key]
        out.append(v if hugging_face or not is_linear(name) else v.T)
    return b"".join(np.ascontiguousarray(v).astype("<f8").tobytes() for v in out)


def main(src, out_dir):
    meta, tensors = read(src)
    for k in ("n_layer", "n_head", "n_embd", "vocab_size", "n_positions", "layer_norm_epsilon"):
        if k not in meta or not isinstance(meta[k], str):
            fail(f"__metadata__ has no string {k}")
    d = int(meta["n_embd"])
    for name, a in tensors:
        if name.endswith("c_attn.weight") and a.shape != (3 * d, d):
            fail(f"{name} is {a.shape}, nn.Linear stores [3d, d]")
    load_in_torch(meta, tensors)
    order = [n for n, _ in tensors]
    config = {"n_head": meta["n_head"], "layer_norm_epsilon": meta["layer_norm_epsilon"]}
    hf = [(n[len("transformer."):] if n.startswith("transformer.") else n, a.T if is_linear(n) else a) for n, a in tensors]
    for dtype in ("F64", "F32", "F16", "BF16"):
        for layout, ts in (("mingpt", tensors), ("hf", hf)):
            values = write(os.path.join(out_dir, f"{layout}-{dtype}.safetensors"), ts, dtype, config)
            open(os.path.join(out_dir, f"{layout}-{dtype}.expected"), "wb").write(expected(values, order, layout == "hf"))
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
