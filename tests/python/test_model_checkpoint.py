#!/usr/bin/python3
"""tests/python/test_model_checkpoint.py — checkpoints through the command line: files
this test writes (its own safetensors writer, NumPy + json) in both layouts and the four
dtypes F64, F32, F16, BF16 load in `attn model info` with the right layout, dtype and
config; malformed files (truncated, a header that lies, overlapping or out-of-range
offsets, wrong dtype sizes, 2^63 shapes, duplicate keys, missing tensors, wrong shapes,
no n_head, a NaN weight) and paths that are not files exit 2 with "FILE: byte N:" where
N is the offset this test computes from the bytes it wrote, and nothing on stdout.
The bit-for-bit round trips (attn → NumPy/PyTorch → attn) are in
tests/model_checkpoint_test.cpp with tests/python/checkpoint_reference.py."""
import json
import os
import shutil
import struct
import subprocess
import tempfile

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []
D, V, P, L = 4, 7, 5, 2  # width, vocabulary, positions, layers; 2 heads


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def tensors(layout, mlp=True, tied=True, seed=0):
    """[(name, float64 array)] of a random tiny model in `layout` ('hf' or 'mingpt')."""
    rng = np.random.default_rng(seed)
    pre = "" if layout == "hf" else "transformer."
    lin = (lambda i, o: rng.normal(size=(i, o))) if layout == "hf" else (lambda i, o: rng.normal(size=(o, i)))
    t = [(pre + "wte.weight", rng.normal(size=(V, D))), (pre + "wpe.weight", rng.normal(size=(P, D)))]
    for layer in range(L):
        h = f"{pre}h.{layer}."
        t += [(h + "ln_1.weight", 1 + 0.1 * rng.normal(size=D)), (h + "ln_1.bias", rng.normal(size=D)),
              (h + "attn.c_attn.weight", lin(D, 3 * D)), (h + "attn.c_attn.bias", rng.normal(size=3 * D)),
              (h + "attn.c_proj.weight", lin(D, D)), (h + "attn.c_proj.bias", rng.normal(size=D))]
        if mlp:
            t += [(h + "ln_2.weight", 1 + 0.1 * rng.normal(size=D)), (h + "ln_2.bias", rng.normal(size=D)),
                  (h + "mlp.c_fc.weight", lin(D, 4 * D)), (h + "mlp.c_fc.bias", rng.normal(size=4 * D)),
                  (h + "mlp.c_proj.weight", lin(4 * D, D)), (h + "mlp.c_proj.bias", rng.normal(size=D))]
    t += [(pre + "ln_f.weight", np.ones(D)), (pre + "ln_f.bias", np.zeros(D))]
    if not tied:
        t.append(("lm_head.weight", rng.normal(size=(V, D))))
    return t


def encode(a, dtype):
    if dtype == "BF16":
        bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2").tobytes()
    return a.astype({"F64": "<f8", "F32": "<f4", "F16": "<f2"}[dtype]).tobytes()


def safetensors(ts, dtype="F32", meta=None, entries=None):
    """(header text, data bytes); entries(header dict) may change the header before it is written."""
    header, data = {}, b""
    if meta is not None:
        header["__metadata__"] = meta
    for name, a in ts:
        b = encode(a, dtype)
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    if entries:
        entries(header)
    return json.dumps(header, separators=(",", ":")), data


def file_bytes(header, data):
    h = header.encode()
    return struct.pack("<Q", len(h)) + h + data


def at(header, fragment, nth=1):
    """The file offset of the nth occurrence of fragment in the header."""
    i = -1
    for _ in range(nth):
        i = header.index(fragment, i + 1)
    return 8 + i


def run(*args):
    return subprocess.run([ATTN, "model", *args], capture_output=True, text=True, timeout=60)


def good_files(d):
    for layout in ("hf", "mingpt"):
        for dtype in ("F64", "F32", "F16", "BF16"):
            for mlp, tied in ((True, True), (False, False)):
                path = os.path.join(d, f"{layout}-{dtype}-{mlp}-{tied}.safetensors")
                open(path, "wb").write(file_bytes(*safetensors(tensors(layout, mlp, tied), dtype, {"n_head": "2"})))
                p = run("info", path)
                what = f"model info {os.path.basename(path)}"
                check(p.returncode == 0, f"{what}: exit {p.returncode}: {p.stderr.strip()}")
                want_layout = "GPT-2 (Hugging Face)" if layout == "hf" else "minGPT / nanoGPT"
                for fragment in (want_layout, dtype, "__metadata__"):
                    check(fragment in p.stdout, f"{what}: '{fragment}' not in\n{p.stdout}")


def after(header, key, field):
    """The file offset of `field`'s value in the entry of tensor `key`."""
    i = header.index(f'"{key}"')
    return 8 + header.index(f'"{field}":', i) + len(f'"{field}":')


def bad(d, name, content, expect_offset, says, verb=("info",), config=None):
    """Writes the file (and config.json beside it), runs attn, expects exit 2 with
    "FILE: byte N: " (FILE the config.json when given) and `says`, nothing on stdout."""
    path = os.path.join(d, name + ".safetensors")
    open(path, "wb").write(content if isinstance(content, bytes) else file_bytes(*content))
    cfg = os.path.join(d, "config.json")
    if config is not None:
        open(cfg, "w").write(config)
    p = run(verb[0], path, *verb[1:])
    if config is not None:
        os.remove(cfg)
    prefix = f"{cfg if config is not None else path}: byte {expect_offset}: "
    ok = p.returncode == 2 and prefix in p.stderr and says in p.stderr and p.stdout == ""
    check(ok, f"{name}: exit {p.returncode}, stderr {p.stderr.strip()!r}; expected exit 2 with {prefix!r} and {says!r}")
    if ok:
        print(f"ok   {name}: {p.stderr.strip()}")


def bad_files(d):
    ts = tensors("mingpt")
    meta = {"n_head": "2"}
    h, data = safetensors(ts, "F32", meta)
    whole = file_bytes(h, data)
    bad(d, "shorter-than-8", whole[:5], 0, "8-byte header length")
    bad(d, "header-past-the-end", whole[:8 + len(h) // 2], 0, "the file is truncated")
    bad(d, "length-past-the-limit", struct.pack("<Q", 1 << 62) + whole[8:], 0, "more than the limit")
    last = ts[-1][0]  # cutting the data cuts the last tensor: its data_offsets go past the end
    bad(d, "truncated-data", whole[:-10], after(h, last, "data_offsets"), f"'{last}' has data_offsets")
    bad(d, "not-json", file_bytes(h[:-1] + ",}", data), 8 + len(h), "expected a key")
    bad(d, "duplicate-key", file_bytes(h.replace('"transformer.wpe.weight"', '"transformer.wte.weight"'), data),
        at(h, '"transformer.wpe.weight"'), "appears twice")
    name = "transformer.h.0.ln_1.weight"

    def entry(**kw):
        return lambda header: header[name].update(kw)

    hh, dd = safetensors(ts, "F32", meta, entry(data_offsets=[8, 24]))  # inside wte's bytes
    bad(d, "overlapping-offsets", (hh, dd), at(hh, "[8,24]"), "overlap those of 'transformer.wte.weight'")
    hh, dd = safetensors(ts, "F32", meta, entry(data_offsets=[len(data) - 8, len(data) + 8]))
    bad(d, "out-of-range-offsets", (hh, dd), after(hh, name, "data_offsets"), "outside the data")
    hh, dd = safetensors(ts, "F32", meta, entry(dtype="F64"))
    bad(d, "wrong-dtype-size", (hh, dd), after(hh, name, "data_offsets"), "needs 32 bytes, its data_offsets hold 16")
    hh, dd = safetensors(ts, "F32", meta, entry(shape=[2 ** 63, 2]))
    bad(d, "shape-2^63", (hh, dd), after(hh, name, "shape"), "more elements than 2^64 - 1")
    hh, dd = safetensors(ts, "F32", meta, entry(dtype="F33"))
    bad(d, "unknown-dtype", (hh, dd), at(hh, f'"{name}"'), "unknown dtype 'F33'")
    bad(d, "missing-tensor", safetensors([t for t in ts if t[0] != name], "F32", meta), 8, "no tensor 'h.0.ln_1.weight'")
    fc = "transformer.h.1.mlp.c_fc.weight"  # nn.Linear [4d, d] = [16, 4], written as [4, 16]
    hh, dd = safetensors([(n, a.T if n == fc else a) for n, a in ts], "F32", meta)
    bad(d, "wrong-shape", (hh, dd), after(hh, fc, "shape"), "has the shape [4, 16], expected [16, 4]")
    bad(d, "no-n-head", safetensors(ts, "F32", {}), 8, "no tensor shape tells it")
    bad(d, "config-json-contradicts", safetensors(ts, "F32", {}), 14, "n_embd is 8 but wte.weight has a width of 4",
        config='{"n_head": 2, "n_embd": 8}')
    nan = [(n, a.copy()) for n, a in ts]
    nan[1][1][2, 3] = np.nan  # transformer.wpe.weight, after wte's V·D floats
    hh, dd = safetensors(nan, "F32", meta)
    bad(d, "nan-weight", (hh, dd), 8 + len(hh) + (V * D + 2 * D + 3) * 4, "element [2, 3] of tensor 'transformer.wpe.weight' is not a number",
        verb=("run", "--tokens", "0,1"))


def not_files(d):
    fifo = os.path.join(d, "fifo.safetensors")
    os.mkfifo(fifo)
    for what, path, says in (("a folder", d, "a folder without model.safetensors"), ("a FIFO", fifo, "a FIFO"),
                             ("a missing file", os.path.join(d, "none.safetensors"), "no such file")):
        p = run("info", path)
        check(p.returncode == 2 and says in p.stderr, f"{what}: exit {p.returncode}, stderr {p.stderr.strip()!r}")


def main():
    d = tempfile.mkdtemp(prefix="attn-ckpt-")
    try:
        good_files(d)
        bad_files(d)
        not_files(d)
    finally:
        shutil.rmtree(d)
    if failures:
        raise SystemExit(f"{len(failures)} failures")
    print("all passed")


if __name__ == "__main__":
    main()
