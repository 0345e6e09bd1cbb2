#!/usr/bin/python3
"""tests/python/test_gguf_hostile.py — hostile GGUF files against `attn model info` (and
`attn model generate`, which reads the tokenizer and every weight):
truncated (the first 40 prefixes of a small file and every 7th after, a cut in its data), lying counts
(tensors, keys, array lengths, string lengths up to 2^64 - 1), huge strings, misaligned
and overlapping tensors, offsets past the end, unknown value and tensor types, dims
whose product overflows, too many dims, arrays nested too deep, bad bools, duplicate
keys and names, a bad general.alignment, version 1, big-endian, another magic. Each
must exit 2 with `FILE: byte N: ` and the words that say what was expected and found,
in milliseconds, with no crash, no `nan`, no control character and nothing written.

The same cases seed the fuzz target's corpus: `test_gguf_hostile.py --write-corpus DIR`
writes them (with the valid files they were made from) into DIR (tests/fuzz/corpus/gguf)."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reference as g  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def base_file():
    """A small valid file: metadata of several types, two tensors (F32 and Q8_0)."""
    md = [("general.architecture", "string", "llama"), ("a.u32", "u32", 7), ("a.strs", ("array", "string"), ["x", "yz"]),
          ("a.nest", ("array", ("array", "u8")), [[1], [2, 3]])]
    return md, [("w", [4, 2], "F32", b"\0" * 32), ("q", [32], "Q8_0", b"\0" * 34)]


def u64(n):
    return struct.pack("<Q", n)


def cases():
    """(name, bytes, words the refusal must contain)."""
    md, tensors = base_file()
    good = g.gguf_bytes(md, tensors)
    head = g.header_bytes(md, [(n, d, t, o) for (n, d, t, _), o in zip(tensors, g.layout(tensors, 32))])
    out = []
    for cut in list(range(0, 40)) + list(range(40, len(head), 7)):  # the fixed start whole, then every 7th prefix
        out.append((f"truncated-{cut}", good[:cut], []))
    out.append(("truncated-data", good[:-5], ["needs bytes", "the file is truncated"]))
    out.append(("not-gguf", b"GGUX" + good[4:], []))  # not GGUF: the safetensors reader refuses it
    out.append(("version-1", good[:4] + struct.pack("<I", 1) + good[8:], ["version 1 is not supported"]))
    out.append(("version-7", good[:4] + struct.pack("<I", 7) + good[8:], ["expected GGUF version 2 or 3, found 7"]))
    out.append(("big-endian", good[:4] + struct.pack(">I", 3) + good[8:], ["big-endian"]))
    out.append(("lying-tensor-count", good[:8] + u64(2 ** 62) + good[16:], ["the tensor count says 4611686018427387904"]))
    out.append(("lying-kv-count", good[:16] + u64(2 ** 64 - 1) + good[24:], ["the metadata count says 18446744073709551615"]))
    out.append(("more-kv-than-written", g.header_bytes(md, [], n_kv=len(md) + 1) + b"\0" * 64, []))
    out.append(("huge-key-string", good[:24] + u64(2 ** 63) + good[32:], ["says it is 9223372036854775808 bytes long"]))
    out.append(("huge-string-value", g.header_bytes([("k", "string", "v")], []).replace(u64(1) + b"v", u64(2 ** 64 - 1) + b"v"),
                ["18446744073709551615 bytes long"]))
    arr = g.header_bytes([("k", ("array", "u32"), [1, 2])], [])
    out.append(("lying-array-length", arr.replace(struct.pack("<IQ", 4, 2), struct.pack("<IQ", 4, 2 ** 61)), ["the array's length says"]))
    sarr = g.header_bytes([("k", ("array", "string"), ["a"])], [])
    out.append(("lying-string-array", sarr.replace(struct.pack("<IQ", 8, 1), struct.pack("<IQ", 8, 2 ** 40)), ["the array's length says"]))
    one_kv = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + g.gguf_string("k")
    out.append(("unknown-value-type", one_kv + struct.pack("<I", 13) + b"\x01", ["a metadata value type", "found 13"]))
    out.append(("bad-bool", one_kv + struct.pack("<I", 7) + b"\x02", ["expected a bool (0 or 1), found 2"]))
    deep = ("array", "u8")
    val = [1]
    for _ in range(9):
        deep, val = ("array", deep), [val]
    out.append(("nested-too-deep", g.header_bytes([("k", deep, val)], []), ["nested at most 8 deep"]))
    out.append(("duplicate-key", g.header_bytes([("k", "u8", 1), ("k", "u8", 2)], []), ["the metadata key 'k' appears twice"]))
    out.append(("empty-key", g.header_bytes([("", "u8", 1)], []), ["expected a metadata key, found an empty string"]))
    out.append(("alignment-3", g.gguf_bytes(md, tensors, alignment=3), ["expected general.alignment to be a power of two"]))
    out.append(("alignment-u8", g.gguf_bytes(md + [("general.alignment", "u8", 32)], tensors), ["expected general.alignment to be a u32"]))

    def table(entries, pad=256, metadata=md):
        h = g.header_bytes(metadata, entries)
        return h + b"\0" * ((-len(h)) % 32) + b"\0" * pad
    out.append(("misaligned", table([("w", [4], "F32", 8)]), ["has the offset 8, not a multiple of the alignment 32"]))
    out.append(("overlapping", table([("w", [16], "F32", 0), ("v", [4], "F32", 32)]), ["overlap those of 'w'"]))
    out.append(("same-offset", table([("w", [4], "F32", 0), ("v", [4], "F32", 0)]), ["overlap"]))
    out.append(("offset-past-end", table([("w", [4], "F32", 2 ** 63)]), ["needs bytes 9223372036854775808"]))
    out.append(("offset-wraps", table([("w", [2 ** 61], "F32", 2 ** 64 - 32)]), ["needs"]))
    out.append(("dims-overflow", table([("w", [2 ** 32, 2 ** 32, 2], "F32", 0)]), ["more elements than 2^64 - 1"]))
    out.append(("bytes-overflow", table([("w", [2 ** 62, 4], "F32", 0)]), ["more elements than 2^64 - 1"]))
    out.append(("bytes-overflow-2", table([("w", [2 ** 63], "F32", 0)]), ["needs more than 2^64 - 1 bytes"]))
    out.append(("too-many-dims", table([("w", [1, 1, 1, 1, 1], "F32", 0)]), ["expected at most 4 dims, found 5"]))
    out.append(("unknown-tensor-type", table([("w", [4], 99, 0)]), ["unknown GGUF tensor type 99"]))
    out.append(("removed-tensor-type", table([("w", [4], 4, 0)]), ["unknown GGUF tensor type 4"]))
    out.append(("partial-block", table([("w", [40], "Q8_0", 0)]), ["not a multiple of the block size 32"]))
    out.append(("duplicate-tensor", table([("w", [4], "F32", 0), ("w", [4], "F32", 32)]), ["the tensor name 'w' appears twice"]))
    out.append(("empty-tensor-name", table([("", [4], "F32", 0)]), ["expected a tensor name, found an empty string"]))
    out.append(("control-chars", table([("w\x1b[31m", [4], "F32", 8)]), ["not a multiple"]))
    nan = b"\0\0\xc0\x7f"
    out.append(("nan-weight", g.gguf_bytes(md, [("w", [4], "F32", b"\0" * 8 + nan + b"\0" * 4)]), ["element 2", "is not a number"]))
    out.append(("inf-scale", g.gguf_bytes(md, [("q", [32], "Q8_0", b"\x00\x7c" + b"\x01" * 32)]), ["is infinite"]))
    return good, out


def run_case(folder, name, data, words):
    path = os.path.join(folder, name + ".gguf")
    with open(path, "wb") as f:
        f.write(data)
    args = ["model", "info", path]
    if name in ("nan-weight", "inf-scale"):
        args += ["--tensor", "q" if name == "inf-scale" else "w"]
    before = sorted(os.listdir(folder))
    t0 = time.monotonic()
    r = subprocess.run([ATTN] + args, capture_output=True, text=True, timeout=20)
    took = time.monotonic() - t0
    text = r.stdout + r.stderr
    ok = r.returncode == 2 and re.search(re.escape(path) + r": byte \d+: ", r.stderr) is not None
    check(ok, f"{name}: expected exit 2 with '{path}: byte N: ', got {r.returncode}: {r.stderr.strip()[:300]}")
    for w in words:
        check(w in r.stderr, f"{name}: the refusal lacks {w!r}: {r.stderr.strip()[:300]}")
    check(not CONTROL.search(text.replace("\n", "")), f"{name}: a control character reached the output: {text!r}")
    check(not re.search(r"(?i)\bnan\b", text.replace(path, "")), f"{name}: prints nan: {text}")
    check(re.search(r"internal error|std::|terminate|Sanitizer", text) is None, f"{name}: crash: {text}")
    check(took < 5, f"{name}: took {took:.1f} s")
    check(sorted(os.listdir(folder)) == before, f"{name}: files appeared or vanished")
    # The same file given to `attn model generate` (the tokenizer, then the weights read into
    # model_params): refused the same way, whatever it trips on first.
    r = subprocess.run([ATTN, "model", "generate", path, "--tokens", "1"], capture_output=True, text=True, timeout=20)
    text = r.stdout + r.stderr
    check(r.returncode == 2 and re.search(re.escape(path) + r": byte \d+: ", r.stderr) is not None,
          f"{name}: generate: expected exit 2 with '{path}: byte N: ', got {r.returncode}: {r.stderr.strip()[:300]}")
    check(not CONTROL.search(text.replace("\n", "")) and re.search(r"internal error|std::|terminate|Sanitizer", text) is None,
          f"{name}: generate: {text!r}")
    check(sorted(os.listdir(folder)) == before, f"{name}: generate: files appeared or vanished")
    os.remove(path)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--write-corpus":
        good, out = cases()
        os.makedirs(sys.argv[2], exist_ok=True)
        keep = [("valid", good)] + [(n, d) for n, d, _ in out if not n.startswith("truncated-") or n in
                                    ("truncated-0", "truncated-30", "truncated-60", "truncated-data")]
        md, tensors = g.llama_file("llama", n_layer=1, d=32, n_head=4, n_kv=2, d_mlp=32, vocab=6)
        keep.append(("tiny-llama", g.gguf_bytes(md, tensors)))
        import numpy as np
        rng = np.random.default_rng(1)
        for ty in ["F16", "BF16", "Q4_0", "Q4_K", "Q6_K"]:
            keep.append((f"type-{ty}", g.gguf_bytes([("general.architecture", "string", "llama")],
                                                    [("x", [256], ty, g.random_tensor(rng, ty, 256)[0])])))
        for n, d in keep:
            with open(os.path.join(sys.argv[2], n + ".gguf"), "wb") as f:
                f.write(d)
        print(f"wrote {len(keep)} files to {sys.argv[2]}")
        return
    good, out = cases()
    folder = tempfile.mkdtemp(prefix="attn-gguf-hostile-")
    try:
        with open(os.path.join(folder, "good.gguf"), "wb") as f:
            f.write(good)
        r = subprocess.run([ATTN, "model", "info", os.path.join(folder, "good.gguf"), "--json", "-"], capture_output=True, text=True)
        check(r.returncode == 0, f"the valid file is refused: {r.stderr}")
        os.remove(os.path.join(folder, "good.gguf"))
        for name, data, words in out:
            run_case(folder, name, data, words)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{len(out) - len(failures)}/{len(out)} hostile GGUF cases refused cleanly")
    if failures:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
