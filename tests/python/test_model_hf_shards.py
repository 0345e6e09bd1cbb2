#!/usr/bin/python3
"""tests/python/test_model_hf_shards.py — Hugging Face checkpoints in shards
(model.safetensors.index.json + model-0000N-of-0000M.safetensors beside config.json),
read by attn as one checkpoint (model/checkpoint_shards).

The folders are test_model_hf_folders.py's (a Llama: untied, 4 query heads over 2
key/value heads, half-split rotary; a Qwen2: q/k/v biases, tied), with their
model.safetensors split here into three shards and an index naming each tensor's shard,
as transformers' save_pretrained(max_shard_size=…) writes them.

Checks:
  * `run --dtype float64 --json` gives every stage of llama_reference's PyTorch forward
    within 1e-10 (compare_stages), `generate` the reference's greedy ids, `info` and
    `heads` work at 80 columns — on the folder and on the index file named directly;
  * hostile shards and indexes exit 2 with "file: byte N:" and what was expected, nothing
    on stdout: a tensor named in the index but missing from its shard, a shard the index
    names that is not there, a shard named with a path ('../x', 'a/b'), a tensor in a shard
    the index does not name there, a tensor named twice (a duplicate key), an index that is
    not JSON or has no weight_map, a shard cut short, a shard with a tensor of the wrong
    shape; and a shard reached through the index is never written over (--json to it is
    refused)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_model_hf_folders as hf  # noqa: E402
import llama_reference as ref  # noqa: E402,F401

ATTN = hf.ATTN
check = hf.check
INDEX = "model.safetensors.index.json"


def shard_folder(folder, n=3):
    """Replaces folder/model.safetensors by n shards and an index; returns {tensor: shard}."""
    import struct
    path = os.path.join(folder, "model.safetensors")
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    names = sorted(k for k in header if k != "__metadata__")
    weight_map = {}
    for s in range(n):
        mine = names[s::n]
        shard = "model-%05d-of-%05d.safetensors" % (s + 1, n)
        out, blobs, at = {"__metadata__": {"format": "pt"}}, [], 0
        for k in mine:
            b, e = header[k]["data_offsets"]
            out[k] = {"dtype": header[k]["dtype"], "shape": header[k]["shape"], "data_offsets": [at, at + e - b]}
            blobs.append(data[b:e])
            at += e - b
            weight_map[k] = shard
        text = json.dumps(out).encode()
        text += b" " * (-len(text) % 8)
        with open(os.path.join(folder, shard), "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    os.remove(path)
    write_index(folder, weight_map)
    return weight_map


def write_index(folder, weight_map, text=None):
    with open(os.path.join(folder, INDEX), "w", encoding="utf-8") as f:
        f.write(text if text is not None else json.dumps({"metadata": {"total_size": 0}, "weight_map": weight_map}, indent=2))


def refused(folder, why, expect):
    r = subprocess.run([ATTN, "model", "run", folder, "--tokens", "1,2,3"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and r.stdout == "" and ": byte " in r.stderr and all(e in r.stderr for e in expect),
          "%s: exit %d, stderr %r (wanted exit 2, 'file: byte N' and %s)" % (why, r.returncode, r.stderr[-400:], expect))


def hostile(root):
    folder, cfg, w = hf.make_folder(os.path.join(root, "hostile"), "llama")
    good = shard_folder(folder)
    first = sorted(good)[0]
    shard1 = good[first]

    def with_map(change, why, expect):
        m = dict(good)
        change(m)
        write_index(folder, m)
        refused(folder, why, expect)
        write_index(folder, good)

    with_map(lambda m: m.__setitem__("model.layers.0.self_attn.q_proj.extra", shard1), "a tensor named in the index but missing",
             [INDEX, "model.layers.0.self_attn.q_proj.extra", "has no such tensor"])
    with_map(lambda m: m.__setitem__(first, "model-00009-of-00009.safetensors"), "a shard that is not there",
             [INDEX, "model-00009-of-00009.safetensors", "not a file"])
    with_map(lambda m: m.__setitem__(first, "../model-00001-of-00003.safetensors"), "a shard named with '..'",
             [INDEX, "shard's file name"])
    with_map(lambda m: m.__setitem__(first, "sub/x.safetensors"), "a shard named with a folder", [INDEX, "shard's file name"])
    with_map(lambda m: m.pop(first), "a tensor in a shard the index does not name",
             [os.path.join(folder, shard1), first, "does not name it"])
    other = next(s for s in sorted(set(good.values())) if s != shard1)
    with_map(lambda m: m.__setitem__(first, other), "a tensor named in another shard", [INDEX, first, "has no such tensor"])
    dup = json.dumps({"weight_map": good}, indent=1)
    dup = dup.replace('"weight_map": {', '"weight_map": {"%s": "%s", ' % (first, shard1), 1)
    write_index(folder, None, dup)
    refused(folder, "a tensor named twice in the index", [INDEX, "appears twice"])
    write_index(folder, None, "{\"weight_map\": {")
    refused(folder, "an index cut short", [INDEX])
    write_index(folder, None, "{\"metadata\": {}}")
    refused(folder, "an index without weight_map", [INDEX, "weight_map"])
    write_index(folder, None, "[1, 2]")
    refused(folder, "an index that is not an object", [INDEX, "object"])
    write_index(folder, good)
    # A shard cut short: its header promises more bytes than the file has.
    path = os.path.join(folder, shard1)
    whole = open(path, "rb").read()
    open(path, "wb").write(whole[:-4])
    refused(folder, "a shard cut short", [shard1])
    open(path, "wb").write(whole)
    # A tensor of the wrong shape in a shard: named by its shard, not the index.
    import struct
    n = struct.unpack("<Q", whole[:8])[0]
    h = json.loads(whole[8:8 + n])
    name = next(k for k in h if k.endswith("q_proj.weight"))
    h[name]["shape"] = list(reversed(h[name]["shape"])) if h[name]["shape"][0] != h[name]["shape"][1] else [h[name]["shape"][0] * 2, h[name]["shape"][1] // 2]
    text = json.dumps(h).encode()
    text += b" " * (-len(text) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + whole[8 + n:])
    refused(folder, "a shard's tensor of the wrong shape", [shard1, name, "shape"])
    open(path, "wb").write(whole)
    # The shards are inputs: --json over one is refused and the shard left as it was.
    r = subprocess.run([ATTN, "model", "run", folder, "--tokens", "1,2", "--json", path], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and open(path, "rb").read() == whole, "run --json over a shard: exit %d %r" % (r.returncode, r.stderr[-300:]))
    r = subprocess.run([ATTN, "model", "run", folder, "--tokens", "1,2,3"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "the repaired sharded folder runs: exit %d %r" % (r.returncode, r.stderr[-300:]))


def main():
    root = tempfile.mkdtemp(prefix="attn-hf-shards-")
    try:
        for family in hf.FAMILIES:
            folder, cfg, w = hf.make_folder(root, family)
            shard_folder(folder)
            check(not os.path.exists(os.path.join(folder, "model.safetensors")), "the shards replace model.safetensors")
            hf.compare_stages(family + " (3 shards)", folder, cfg, w)
            hf.compare_stages(family + " (the index named)", os.path.join(folder, INDEX), cfg, w)
            hf.info_heads(family, folder, cfg)
            hf.generation(family, folder, cfg, w)
        hostile(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if hf.failures:
        print("%d failure(s)" % len(hf.failures))
        sys.exit(1)
    print("ok: sharded Hugging Face Llama and Qwen2 folders read as one checkpoint, as PyTorch computes; hostile shards refused")


if __name__ == "__main__":
    main()
