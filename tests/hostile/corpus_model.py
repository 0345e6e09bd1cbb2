"""tests/hostile/corpus_model.py — the counted hostile corpus's model surface (issue 37):
safetensors checkpoints mutated in their header, values and length, run through
`attn model info` and `attn model run`; the memory budget's cases (a 4,096-position model
at 4,096 tokens, a 10 GB sparse checkpoint, training flags at the top of their ranges, a
--data line of 1,024 tokens); non-finite forwards; --seed and one-token refusals; training's
outputs and --data files. Each case is stated with corpus.case (see corpus.py)."""
import json
import os
import struct

import corpus

DIMS = dict(n_layer=1, n_head=2, n_embd=8, vocab=11, n_pos=8)


def gpt_shapes(n_layer, n_embd, vocab, n_pos, **_):
    C = n_embd
    t = {"transformer.wte.weight": [vocab, C], "transformer.wpe.weight": [n_pos, C],
         "transformer.ln_f.weight": [C], "transformer.ln_f.bias": [C]}
    for l in range(n_layer):
        h = f"transformer.h.{l}."
        t.update({h + "ln_1.weight": [C], h + "ln_1.bias": [C], h + "attn.c_attn.weight": [3 * C, C],
                  h + "attn.c_attn.bias": [3 * C], h + "attn.c_proj.weight": [C, C], h + "attn.c_proj.bias": [C],
                  h + "ln_2.weight": [C], h + "ln_2.bias": [C], h + "mlp.c_fc.weight": [4 * C, C],
                  h + "mlp.c_fc.bias": [4 * C], h + "mlp.c_proj.weight": [C, 4 * C], h + "mlp.c_proj.bias": [C]})
    return t


def checkpoint(dims=None, header_edit=None, value=None, dtype="F32", sparse_bytes=0):
    """(header dict, data bytes) of a minGPT checkpoint; header_edit(header) may change the
    header; value(name, index) gives the number at that place (default a small pattern)."""
    d = dict(DIMS, **(dims or {}))
    size = {"F32": 4, "F64": 8}[dtype]
    fmt = "<f" if dtype == "F32" else "<d"
    header = {"__metadata__": {"n_layer": str(d["n_layer"]), "n_head": str(d["n_head"]), "n_embd": str(d["n_embd"]),
                               "vocab_size": str(d["vocab"]), "n_positions": str(d["n_pos"])}}
    blobs, offset = [], 0
    for name, shape in sorted(gpt_shapes(**d).items()):
        n = 1
        for s in shape:
            n *= s
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n * size]}
        offset += n * size
        if not sparse_bytes:
            ones = name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight"))
            blobs.append(b"".join(struct.pack(fmt, value(name, i) if value else (1.0 if ones else ((i * 7) % 13 - 6) / 100))
                                  for i in range(n)))
    if header_edit:
        header_edit(header)
    return header, b"".join(blobs)


def file_bytes(header, data, pad=True):
    h = json.dumps(header).encode() if isinstance(header, dict) else header
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def valid():
    return file_bytes(*checkpoint())


def edited(edit):
    return file_bytes(*checkpoint(header_edit=edit))


def header_mutations():
    """(name, file bytes) of checkpoints wrong in their header."""
    v = valid()
    hlen = struct.unpack("<Q", v[:8])[0]
    first = "transformer.h.0.attn.c_attn.bias"

    def set_entry(key, field, val):
        return lambda h: h[key].__setitem__(field, val)

    def meta(key, val):
        return lambda h: h["__metadata__"].__setitem__(key, val)
    out = [
        ("empty file", b""), ("7 bytes", v[:7]), ("header length past the file", struct.pack("<Q", 10 ** 6) + v[8:]),
        ("header length 2^63", struct.pack("<Q", 1 << 63) + v[8:]), ("header length 0", struct.pack("<Q", 0) + v[8:]),
        ("header not JSON", struct.pack("<Q", hlen) + b"{" * hlen + v[8 + hlen:]),
        ("header cut short", v[:8 + hlen // 2]), ("data cut short", v[:len(v) - 17]),
        ("a byte after the data", v + b"\x00"),
        ("header UTF-16", struct.pack("<Q", hlen) + ("\ufeff" + " " * (hlen // 2 - 1)).encode("utf-16-le")[:hlen] + v[8 + hlen:]),
        ("header NUL", struct.pack("<Q", hlen) + b"\x00" * hlen + v[8 + hlen:]),
        ("dtype F8", edited(set_entry(first, "dtype", "F8"))), ("dtype I64", edited(set_entry(first, "dtype", "I64"))),
        ("dtype a number", edited(set_entry(first, "dtype", 3))),
        ("shape too long", edited(set_entry(first, "shape", [25]))), ("shape 2^62", edited(set_entry(first, "shape", [1 << 62]))),
        ("shape negative", edited(set_entry(first, "shape", [-24]))), ("shape a string", edited(set_entry(first, "shape", "24"))),
        ("offsets reversed", edited(lambda h: h[first].__setitem__("data_offsets", h[first]["data_offsets"][::-1]))),
        ("offsets past the file", edited(lambda h: h[first].__setitem__("data_offsets", [0, 1 << 40]))),
        ("offsets floats", edited(lambda h: h[first].__setitem__("data_offsets", [float(x) for x in h[first]["data_offsets"]]))),
        ("tensor missing", edited(lambda h: h.pop("transformer.h.0.mlp.c_fc.weight"))),
        ("n_head 0", edited(meta("n_head", "0"))), ("n_head 3 (8 not divisible)", edited(meta("n_head", "3"))),
        ("n_head not a number", edited(meta("n_head", "two"))), ("n_layer 10^12", edited(meta("n_layer", "1000000000000"))),
        ("n_positions contradicting wpe", edited(meta("n_positions", "4096"))),
        ("vocab_size 10^18", edited(meta("vocab_size", "1000000000000000000"))),
        ("metadata value a number", edited(meta("n_embd", 8))),
        ("escape in a tensor name", edited(lambda h: h.__setitem__("\x1b]0;pwned\x07", h.pop(first)))),
        ("metadata n_head nan", edited(meta("n_head", "nan"))),
    ]
    return out


def value_mutations():
    bad = "transformer.h.0.mlp.c_fc.weight"
    return [
        ("a NaN weight", file_bytes(*checkpoint(value=lambda n, i: float("nan") if n == bad and i == 5 else 0.01))),
        ("an infinite weight", file_bytes(*checkpoint(value=lambda n, i: float("inf") if n == bad and i == 5 else 0.01))),
    ]


def model_cases(small):
    out = []
    run = ["model", "run", "{d}/m.safetensors", "--tokens", "1,2,3"]
    info = ["model", "info", "{d}/m.safetensors"]
    for name, data in header_mutations() + value_mutations():
        for verb, argv in (("info", info), ("run", run)):
            exit_ok = {2}
            if name in ("a NaN weight", "an infinite weight") and verb == "info":
                exit_ok = {0}  # info reads the header only: the values are not its business
            out.append(corpus.case("model", f"{verb}: {name}", {"m.safetensors": data}, argv, exit=exit_ok,
                                   place="file" if exit_ok == {2} else None, where="m.safetensors"))
    out.append(corpus.case("model", "run: valid", {"m.safetensors": valid()}, run, exit={0}))
    out.append(corpus.case("model", "info: valid", {"m.safetensors": valid()}, info, exit={0}))
    out.append(corpus.case("model", "run: config.json beside, broken", {"m.safetensors": edited(lambda h: h.pop("__metadata__")),
                                                                        "config.json": b"{\"n_head\": "}, run,
                           place="file", where="config.json"))
    out.append(corpus.case("model", "run: config.json a folder", {"m.safetensors": edited(lambda h: h.pop("__metadata__"))}, run,
                           make=lambda d: os.makedirs(os.path.join(d, "config.json")), place=None))
    out += budget_cases()
    out += refusal_cases()
    return out


def budget_cases():
    """The memory budget: refused before allocating, at a few MiB of RSS."""
    out = []
    long_model = file_bytes(*checkpoint(dims=dict(n_layer=2, n_head=8, n_embd=32, vocab=50, n_pos=4096)))
    ids = ",".join(str(i % 50) for i in range(4096))
    out.append(corpus.case("model", "budget: run, 4,096 tokens", {"m.safetensors": long_model},
                           ["model", "run", "{d}/m.safetensors", "--tokens", ids], place=None))
    out.append(corpus.case("model", "budget: heads --length 2048", {"m.safetensors": long_model},
                           ["model", "heads", "{d}/m.safetensors", "--length", "2048"], place=None))
    out.append(corpus.case("model", "budget: run, 8 rows of 1,024 tokens", {"m.safetensors": long_model},
                           ["model", "run", "{d}/m.safetensors"] + ["--tokens", ids[:ids.index(",", 2900)]] * 8, place=None))
    sparse_header, _ = checkpoint(dims=dict(n_embd=64, vocab=40_000_000, n_pos=64), sparse_bytes=1)

    def make_sparse(d):
        h = json.dumps(sparse_header).encode()
        h += b" " * ((8 - len(h) % 8) % 8)
        end = max(e["data_offsets"][1] for k, e in sparse_header.items() if k != "__metadata__")
        with open(os.path.join(d, "big.safetensors"), "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h)
            f.truncate(8 + len(h) + end)
    out.append(corpus.case("model", "budget: info on a 10 GB sparse file", {}, ["model", "info", "{d}/big.safetensors"],
                           exit={0}, make=make_sparse))
    out.append(corpus.case("model", "budget: run on a 10 GB sparse file", {}, ["model", "run", "{d}/big.safetensors", "--tokens", "1"],
                           make=make_sparse, place="file", where="big.safetensors"))
    out.append(corpus.case("model", "budget: train at the top of every range", {},
                           ["model", "train", "sort", "--out", "{d}/t.safetensors", "--batch", "65536", "--d-model", "2048",
                            "--layers", "48", "--heads", "64", "--iters", "1"], place=None))
    line = (" ".join(str(i % 90) for i in range(1024)) + "\n").encode()
    out.append(corpus.case("model", "budget: --data line of 1,024 tokens", {"d.txt": line},
                           ["model", "train", "--data", "{d}/d.txt", "--out", "{d}/t.safetensors", "--iters", "1"], place=None))
    return out


def refusal_cases():
    out = []
    overflow = file_bytes(*checkpoint(value=lambda n, i: 1e21 if n.endswith("c_attn.weight") else 0.01))
    out.append(corpus.case("model", "float32 forward overflows", {"m.safetensors": overflow},
                           ["model", "run", "{d}/m.safetensors", "--tokens", "1,2,3"], place=None))
    out.append(corpus.case("model", "float32 forward overflows, --json", {"m.safetensors": overflow},
                           ["model", "run", "{d}/m.safetensors", "--tokens", "1,2,3", "--json", "{d}/o.json"], place=None))
    out.append(corpus.case("model", "F64 1e300 under --dtype auto",
                           {"m.safetensors": file_bytes(*checkpoint(dtype="F64", value=lambda n, i: 1e300 if n.endswith("wte.weight") and i < 8 else 0.01))},
                           ["model", "info", "{d}/m.safetensors"], exit={0}))
    for verb in (["model", "heads", "{d}/m.safetensors"], ["model", "train", "sort", "--out", "{d}/t.safetensors", "--iters", "1"]):
        out.append(corpus.case("model", f"{verb[1]} --seed -1", {"m.safetensors": valid()}, verb + ["--seed", "-1"], place=None))
    out.append(corpus.case("model", "heads --tokens 1", {"m.safetensors": valid()},
                           ["model", "heads", "{d}/m.safetensors", "--tokens", "1"], place=None))
    for name, data in (("binary", b"\x00\x01\xff\xfe"), ("UTF-16", corpus.utf16("1 2 3\n")), ("empty", b""),
                       ("id 1000000", b"1 2 1000000\n"), ("letters", b"a b c\n"), ("only a bar", b"|\n")):
        out.append(corpus.case("model", f"train --data {name}", {"d.txt": data},
                               ["model", "train", "--data", "{d}/d.txt", "--out", "{d}/t.safetensors", "--iters", "1"],
                               place="file", where="d.txt"))
    out.append(corpus.case("model", "train --out onto --data", {"d.txt": b"1 2 3 | 4 5\n"},
                           ["model", "train", "--data", "{d}/d.txt", "--out", "{d}/d.txt", "--iters", "1"], place=None))
    out.append(corpus.case("model", "train --losses onto --out", {},
                           ["model", "train", "sort", "--out", "{d}/t.safetensors", "--losses", "{d}/t.safetensors", "--iters", "1"],
                           place=None))
    out.append(corpus.case("model", "train ok", {}, ["model", "train", "sort", "--out", "{d}/t.safetensors", "--iters", "2"],
                           exit={0}, outputs=["t.safetensors"]))
    return out
