#!/usr/bin/python3
"""tests/python/test_gguf.py — attn's GGUF reader against files this test makes with its
own writer and quantizer (tests/python/gguf_reference.py, from the documented formats)
and against npm's @huggingface/gguf 0.4.6 parser (run with Node).

The package and its one dependency (@huggingface/tasks 0.21.54) are fetched with
`npm pack` into the build folder (BUILD/gguf-reference; kept for later runs, the
tarballs checked by SHA-256). If node or npm is missing the test fails saying so; if npm
cannot reach the registry it is skipped, saying so (exit 77: tests/python/npm_reach.py):
it never passes without the reference.

Checks:
  * every tensor type attn reads (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K), made from
    random codes and scales so the expected values are exact: `attn model info FILE
    --tensor NAME --json -` gives exactly those float64 values;
  * metadata of every GGUF value type (u8 … f64, bool, strings with Unicode, arrays of
    each, arrays of arrays) and the tensor table, in GGUF v2 and v3 and with
    general.alignment 64: `attn model info --json -` equals @huggingface/gguf's reading
    (values, types, tensor names, dims, type ids, offsets, where the data starts);
  * `attn model info` on small test-made llama (grouped-query), qwen2 and gpt2 files
    prints each choice; a Q4_K + Q6_K mix counts each type; another architecture, a
    Q5_K tensor, an unexpected tensor and RoPE scaling are refused by name (exit 2,
    file and byte);
  * the real ../shared/models/stories260K.gguf (or lessons/models/ when shipped there):
    info prints its choices, every one of its 48 tensors reads back equal to NumPy's
    reading of the same bytes, and @huggingface/gguf agrees on its header."""
import atexit
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reference as g  # noqa: E402
import npm_reach  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.path.dirname(os.path.abspath(ATTN))
REFERENCE = os.path.join(BUILD, "gguf-reference")
PACKAGES = {  # npm spec → (folder under node_modules, SHA-256 of the tarball)
    "@huggingface/gguf@0.4.6": ("@huggingface/gguf", "1b06072c973f93b090b17e0ee7e48a07324b30489d5878d056a81a47a8cd9296"),
    "@huggingface/tasks@0.21.54": ("@huggingface/tasks", "ec3461a9eb087379adfc4e8830ae9980d1919d79c5f260dfc8564d67df65c7a2"),
}
failures = []
tmp = tempfile.mkdtemp(prefix="attn-gguf-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # leave nothing behind


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def die(message):
    print("FAIL:", message)
    sys.exit(1)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fetch_reference():
    """BUILD/gguf-reference, holding node_modules/@huggingface/{gguf,tasks}."""
    ready = os.path.join(REFERENCE, "ready")
    if os.path.exists(ready):
        return REFERENCE
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            die(f"`{tool}` is not on PATH: the reference GGUF parser needs Node and npm (tools/run test installs "
                "Debian's nodejs and npm when they are missing)")
    os.makedirs(REFERENCE, exist_ok=True)
    work = tempfile.mkdtemp(dir=REFERENCE, prefix="fetch-")
    try:
        for spec, (folder, digest) in PACKAGES.items():
            out = subprocess.run(["npm", "pack", spec, "--pack-destination", work], cwd=work, capture_output=True, text=True,
                                 timeout=600, env=dict(os.environ, npm_config_cache=os.path.join(REFERENCE, "npm-cache"),
                                                       npm_config_update_notifier="false", npm_config_fund="false"))
            npm_reach.skip_if_unreachable(f"npm pack {spec}", out.returncode, out.stderr)
            tgz = [n for n in os.listdir(work) if n.endswith(".tgz")]
            if out.returncode != 0 or len(tgz) != 1:
                die(f"`npm pack {spec}` could not fetch the reference parser from the npm registry (exit {out.returncode}); "
                    f"is the registry reachable?\n{out.stderr.strip()[-2000:]}")
            path = os.path.join(work, tgz[0])
            if sha256(path) != digest:
                die(f"{spec}: the tarball's SHA-256 is not the one this test pins")
            dest = os.path.join(REFERENCE, "node_modules", folder)
            shutil.rmtree(dest, ignore_errors=True)
            with tarfile.open(path) as t:
                t.extractall(os.path.join(work, "x"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.replace(os.path.join(work, "x", "package"), dest)
            os.remove(path)
        open(ready, "w").close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return REFERENCE


NODE_SCRIPT = r"""
const { gguf } = require(process.argv[1] + "/node_modules/@huggingface/gguf");
const fs = require("fs");
const plain = v => typeof v === "bigint" ? {bigint: v.toString()} : Array.isArray(v) ? v.map(plain) : v;
(async () => {
  const out = {};
  for (const f of JSON.parse(fs.readFileSync(process.argv[2], "utf-8"))) {
    const r = await gguf(f, { allowLocalFile: true, typedMetadata: true });
    const md = {};
    for (const [k, e] of Object.entries(r.typedMetadata)) md[k] = {type: e.type, subType: e.subType, value: plain(e.value)};
    out[f] = {metadata: md, dataOffset: r.tensorDataOffset.toString(),
              tensors: r.tensorInfos.map(t => ({name: t.name, shape: t.shape.map(String), dtype: t.dtype, offset: t.offset.toString()}))};
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
"""


def node_read(ref, files):
    src, dst = os.path.join(tmp, "files.json"), os.path.join(tmp, "node-out.json")
    with open(src, "w") as f:
        json.dump(files, f)
    out = subprocess.run(["node", "-e", NODE_SCRIPT, ref, src, dst], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        die(f"node failed running @huggingface/gguf:\n{out.stderr[-2000:]}")
    with open(dst) as f:
        return json.load(f)


def run(args):
    return subprocess.run([ATTN] + args, capture_output=True, text=True, timeout=60)


def attn_json(args):
    r = run(args + ["--json", "-"])
    if r.returncode != 0:
        die(f"attn {' '.join(args)} --json - exited {r.returncode}: {r.stderr[-1000:]}")
    return json.loads(r.stdout)


TYPE_NAMES = {v: k for k, v in g.TYPES.items()}
TYPE_NAMES[7] = "bool"


def same_value(ours, theirs):
    """attn's JSON value against the reference's (bigint as {bigint: text}; floats as JS numbers)."""
    if isinstance(theirs, dict) and "bigint" in theirs:
        return str(ours) == theirs["bigint"]
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(same_value(a, b) for a, b in zip(ours, theirs))
    if isinstance(theirs, float) or isinstance(ours, float):
        return float(ours) == float(theirs)
    return ours == theirs


def compare_header(path, ours, theirs):
    md = ours["metadata"]
    for key, e in theirs["metadata"].items():
        if key in ("version", "tensor_count", "kv_count"):
            continue
        check(key in md, f"{path}: attn has no metadata key {key!r}")
        if key not in md:
            continue
        check(md[key]["type"] == TYPE_NAMES[e["type"]], f"{path}: {key}: type {md[key]['type']} vs {TYPE_NAMES[e['type']]}")
        if e.get("subType") is not None:
            check(md[key]["element"] == TYPE_NAMES[e["subType"]], f"{path}: {key}: element type differs")
        check(same_value(md[key]["value"], e["value"]), f"{path}: {key}: value {str(md[key]['value'])[:200]} vs {str(e['value'])[:200]}")
    check(len(md) == len(theirs["metadata"]) - 3, f"{path}: {len(md)} keys vs {len(theirs['metadata']) - 3}")
    check(str(ours["data_start"]) == theirs["dataOffset"], f"{path}: data starts at {ours['data_start']} vs {theirs['dataOffset']}")
    tt = theirs["tensors"]
    check(len(ours["tensors"]) == len(tt), f"{path}: {len(ours['tensors'])} tensors vs {len(tt)}")
    for a, b in zip(ours["tensors"], tt):
        check(a["name"] == b["name"] and [str(x) for x in a["dims"]] == b["shape"] and a["type_id"] == b["dtype"]
              and str(a["offset"]) == b["offset"], f"{path}: tensor {a} vs {b}")


ALL_METADATA = [
    ("general.architecture", "string", "llama"), ("t.u8", "u8", 255), ("t.i8", "i8", -128), ("t.u16", "u16", 65535),
    ("t.i16", "i16", -32768), ("t.u32", "u32", 4294967295), ("t.i32", "i32", -2147483648), ("t.f32", "f32", 0.1),
    ("t.bool", "bool", True), ("t.false", "bool", False), ("t.string", "string", "héllo, 世界 🙂\n\"quoted\""),
    ("t.empty", "string", ""), ("t.u64", "u64", 2 ** 64 - 1), ("t.i64", "i64", -2 ** 63), ("t.f64", "f64", -1.2345678901234567e-300),
    ("t.arr.u8", ("array", "u8"), [0, 1, 255]), ("t.arr.i32", ("array", "i32"), [-1, 0, 7]),
    ("t.arr.f32", ("array", "f32"), [0.5, -2.25, 3.0e-8]), ("t.arr.f64", ("array", "f64"), [1e300, -0.0]),
    ("t.arr.bool", ("array", "bool"), [True, False, True]), ("t.arr.str", ("array", "string"), ["a", "", "ü", "<0x0A>"]),
    ("t.arr.u64", ("array", "u64"), [2 ** 63, 1]), ("t.arr.i64", ("array", "i64"), [-5]), ("t.arr.empty", ("array", "u32"), []),
    ("t.arr.nested", ("array", ("array", "i16")), [[1, -2], [], [3]]),
    ("t.arr.nested_str", ("array", ("array", "string")), [["x", "y"], ["z"]]),
]


def typed_files(rng):
    """One file per tensor type (2 tensors each), and the exact values of each tensor."""
    files, expected = [], {}
    for ty in ["F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_K", "Q6_K"]:
        block = g.BLOCK[ty][0]
        shapes = [[max(block, 64), 3], [max(block, 32) * 2]]
        tensors = []
        for k, dims in enumerate(shapes):
            raw, vals = g.random_tensor(rng, ty, int(np.prod(dims)))
            tensors.append((f"w{k}.{ty.lower()}", dims, ty, raw))
            expected[(ty, f"w{k}.{ty.lower()}")] = vals
        path = os.path.join(tmp, f"type-{ty}.gguf")
        g.write_gguf(path, [("general.architecture", "string", "llama")], tensors)
        files.append((ty, path, tensors))
    return files, expected


def check_dequantized(files, expected):
    for ty, path, tensors in files:
        for name, dims, _, _ in tensors:
            out = attn_json(["model", "info", path, "--tensor", name])
            vals = np.array(out["values"], dtype=np.float64)
            want = expected[(ty, name)]
            check(out["type"] == ty and out["dims"] == dims and out["shape"] == dims[::-1], f"{ty} {name}: header {out['type']} {out['dims']}")
            check(vals.shape == want.shape and np.array_equal(vals, want),
                  f"{ty} {name}: dequantized values differ (max |diff| {np.max(np.abs(vals - want)) if vals.shape == want.shape else 'shape'})")
        r = run(["model", "info", path, "--tensor", tensors[0][0]])
        check(r.returncode == 0 and ty in r.stdout and "First row:" in r.stdout, f"{ty}: the tensor summary: {r.stdout} {r.stderr}")
    print(f"dequantized: {sum(len(t) for _, _, t in files)} tensors of 7 types, equal bit for bit")


def metadata_files(rng):
    out = []
    for version, align in [(3, None), (2, None), (3, 64)]:
        raw, _ = g.random_tensor(rng, "Q4_K", 512)
        raw2, _ = g.random_tensor(rng, "F16", 7)
        path = os.path.join(tmp, f"meta-v{version}-{align}.gguf")
        g.write_gguf(path, ALL_METADATA, [("a", [256, 2], "Q4_K", raw), ("b", [7], "F16", raw2), ("c", [1, 1, 1, 2], "F16", b"\0" * 4)],
                     version=version, alignment=align)
        out.append(path)
    return out


def info_text(path):
    r = run(["model", "info", path])
    return r.returncode, r.stdout + r.stderr


def check_families(rng):
    cases = {  # arch → (kwargs, lines the info must print)
        "llama": (dict(ty="Q8_0"), ["Family:      llama ('tiny llama')", "Layers:      2 (block_count)",
                                    "Heads:       4 query heads sharing 2 key/value heads (2 each), d_head 16",
                                    "d_model:     64 (embedding_length)", "d_mlp:       96 (feed_forward_length), SwiGLU",
                                    "Vocabulary:  40 tokens", "Context:     128 tokens", "adjacent pairs", "RMSNorm, epsilon 1e-06",
                                    "Unembedding: output.weight"]),
        "qwen2": (dict(ty="F16", tied=True), ["Family:      qwen2", "half-split pairs", "Unembedding: tied to token_embd"]),
        "gpt2": (dict(ty="F32", n_head=4, n_kv=4), ["Family:      gpt2", "Heads:       4 per layer, d_head 16", "GELU (up, down)",
                                                    "Positions:   learned", "LayerNorm, epsilon 1e-05"]),
    }
    for arch, (kw, lines) in cases.items():
        md, tensors = g.llama_file(arch, rng=rng, **kw)
        path = os.path.join(tmp, f"{arch}.gguf")
        g.write_gguf(path, md, tensors)
        code, text = info_text(path)
        check(code == 0, f"{arch}: info exited {code}: {text}")
        for line in lines:
            check(line in text, f"{arch}: info lacks {line!r}:\n{text}")
        params = sum(int(np.prod(d)) for _, d, _, _ in tensors)
        check(f"Parameters:  {params:,}" in text, f"{arch}: parameter count {params:,} not in\n{text}")
    # Q4_K_M-like mix: counts per type
    md, tensors = g.llama_file("llama", d=256, n_head=4, n_kv=4, d_mlp=256, vocab=8, ty="Q4_K", rng=rng)
    tensors = [(n, d, "Q6_K" if "ffn_down" in n else t, g.random_tensor(rng, "Q6_K" if "ffn_down" in n else t, int(np.prod(d)))[0])
               for n, d, t, _ in tensors]
    path = os.path.join(tmp, "mix.gguf")
    g.write_gguf(path, md, tensors)
    code, text = info_text(path)
    counts = {}
    for _, _, t, _ in tensors:
        counts[t] = counts.get(t, 0) + 1
    want = ", ".join(f"{t} ×{n}" for t, n in sorted(counts.items()))
    check(code == 0 and f"({want})" in text, f"mix: type counts ({want}) not in\n{text}")
    print("families: llama, qwen2, gpt2 and a Q4_K/Q6_K mix printed")


def refused(path, args, words):
    r = run(["model", "info", path] + args)
    ok = r.returncode == 2 and re.search(re.escape(path) + r": byte \d+: ", r.stderr) and all(w in r.stderr for w in words)
    check(ok, f"{os.path.basename(path)} {args}: expected exit 2 naming {words}, got {r.returncode}: {r.stderr.strip()[:400]}")


def check_refusals(rng):
    md, tensors = g.llama_file("llama", rng=rng)
    phi = os.path.join(tmp, "phi3.gguf")
    g.write_gguf(phi, [("general.architecture", "string", "phi3")] + md[1:], tensors)
    refused(phi, [], ["GGUF architecture 'phi3' is not supported; supported: llama, qwen2, gpt2"])
    q5 = os.path.join(tmp, "q5k.gguf")
    md256, t256 = g.llama_file("llama", d=256, n_head=4, n_kv=4, d_mlp=256, vocab=8, rng=rng)
    g.write_gguf(q5, md256, [(n, d, "Q5_K", g.raw_zeros("Q5_K", d)) if n == "blk.0.ffn_up.weight" else (n, d, t, r)
                             for n, d, t, r in t256])
    refused(q5, [], ["GGUF type Q5_K is not supported; supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K"])
    q5only = os.path.join(tmp, "q5k-tensor.gguf")
    g.write_gguf(q5only, [("general.architecture", "string", "llama")], [("x", [256], "Q5_K", g.raw_zeros("Q5_K", [256]))])
    refused(q5only, ["--tensor", "x"], ["tensor 'x': GGUF type Q5_K is not supported; supported:"])
    extra = os.path.join(tmp, "extra.gguf")
    g.write_gguf(extra, md, tensors + [("blk.0.attn_sinks.weight", [8], "F32", b"\0" * 32)])
    refused(extra, [], ["tensor 'blk.0.attn_sinks.weight' is not one a llama model"])
    # rope_freqs.weight is Llama 3's per-pair divisors (test_model_rope_scaling.py): zeros are refused.
    g.write_gguf(extra, md, tensors + [("rope_freqs.weight", [8], "F32", b"\0" * 32)])
    refused(extra, [], ["rope_freqs.weight's factors above 0"])
    scaled = os.path.join(tmp, "scaled.gguf")
    g.write_gguf(scaled, md + [("llama.rope.scaling.type", "string", "yarn")], tensors)
    refused(scaled, [], ["RoPE scaling 'yarn' is not supported"])
    missing = os.path.join(tmp, "missing.gguf")
    g.write_gguf(missing, [e for e in md if e[0] != "llama.block_count"], tensors)
    refused(missing, [], ["the metadata has no 'llama.block_count'"])
    wrong = os.path.join(tmp, "wrong-shape.gguf")
    g.write_gguf(wrong, md, [(n, [64, 48], t, b"\0" * (64 * 48 * 4)) if n == "blk.1.attn_k.weight" else (n, d, t, r)
                             for n, d, t, r in tensors])
    refused(wrong, [], ["tensor 'blk.1.attn_k.weight': expected dims [64, 32]", "found [64, 48]"])
    refused(os.path.join(tmp, "type-F32.gguf"), ["--tensor", "nope"], ["the file has no tensor 'nope'"])
    print("refusals: architecture, type, tensor, scaling, key, shape named")


def stories_path():
    for p in [os.path.join(SOURCE, "lessons", "models", "stories260K.gguf"),
              os.path.join(SOURCE, "..", "..", "shared", "models", "stories260K.gguf"), "/work/shared/models/stories260K.gguf"]:
        if os.path.exists(p):
            return os.path.abspath(p)
    die("stories260K.gguf is in neither lessons/models/ nor ../shared/models/")


def check_stories(path, theirs):
    code, text = info_text(path)
    for line in ["Family:      llama", "Layers:      5 (block_count)", "Heads:       8 query heads sharing 4 key/value heads (2 each), d_head 8",
                 "d_model:     64", "d_mlp:       172", "Vocabulary:  512 tokens", "Context:     2048 tokens",
                 "RoPE:        theta 10000, 8 of 8 dims rotated, adjacent pairs", "RMSNorm, epsilon 1e-05",
                 "Tensors:     48 (F32 ×48)", "Parameters:  292,800"]:
        check(code == 0 and line in text, f"stories260K: info lacks {line!r}:\n{text}")
    header = attn_json(["model", "info", path])
    compare_header(path, header, theirs)
    raw = open(path, "rb").read()
    for t in header["tensors"]:
        out = attn_json(["model", "info", path, "--tensor", t["name"]])
        start = header["data_start"] + t["offset"]
        want = np.frombuffer(raw, dtype="<f4", count=int(np.prod(t["dims"])), offset=start).astype(np.float64)
        check(np.array_equal(np.array(out["values"]), want), f"stories260K: {t['name']} differs from NumPy's reading")
    print(f"stories260K: info right, {len(header['tensors'])} tensors read back equal")


def main():
    if not os.path.exists(ATTN):
        die(f"{ATTN} does not exist: build attn first")
    rng = np.random.default_rng(33)
    ref = fetch_reference()
    files, expected = typed_files(rng)
    check_dequantized(files, expected)
    metas = metadata_files(rng)
    stories = stories_path()
    family_paths = []
    check_families(rng)
    family_paths = [os.path.join(tmp, f"{a}.gguf") for a in ("llama", "qwen2", "gpt2", "mix")]
    all_paths = [p for _, p, _ in files] + metas + family_paths + [stories]
    theirs = node_read(ref, all_paths)
    for p in all_paths[:-1]:
        compare_header(p, attn_json(["model", "info", p]), theirs[p])
    print(f"@huggingface/gguf: {len(all_paths)} headers agree (metadata of every type, v2 and v3, alignment 64)")
    check_refusals(rng)
    check_stories(stories, theirs[stories])
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
