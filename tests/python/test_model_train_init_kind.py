#!/usr/bin/python3
"""tests/python/test_model_train_init_kind.py — `attn model train TASK --init X` on something
that is not a safetensors checkpoint is refused by name, saying what --init takes
(cli/model_train's check_init_kind). Before, a GGUF reached the safetensors reader and was
told "the header length is 14064895815 bytes … (not a safetensors file?)".

Checks:
  * a GGUF (the shipped stories260K.gguf, and a Llama GGUF this test writes): exit 2,
    "FILE: byte 0: a GGUF file", the message names what --init takes (.safetensors, written
    by attn model train, GPT-2, minGPT/nanoGPT, Llama with config.json), never "not a
    safetensors file?", no traceback, nothing written at --out, refused before any training
    (--iters 100000 ends at once);
  * a folder: exit 2, names the folder's model.safetensors;
  * the control: a checkpoint attn model train wrote is taken by --init and trains."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reference as g  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def train(init, out, iters, arch="gpt2"):
    start = time.monotonic()
    r = subprocess.run([ATTN, "model", "train", "sort", "--arch", arch, "--init", init, "--out", out, "--iters", str(iters),
                        "--batch", "2"], capture_output=True, text=True, timeout=120)
    return r, time.monotonic() - start


def refused(what, init, out, words):
    r, took = train(init, out, 100000)
    err = " ".join(r.stderr.split())
    check(r.returncode == 2, "%s: exit %d (wanted 2): %s" % (what, r.returncode, r.stderr[-400:]))
    for w in words:
        check(w in err, "%s: the message should say %r: %r" % (what, w, err[-500:]))
    check("not a safetensors file?" not in err and "Traceback" not in r.stderr, "%s: the old guess or a traceback: %r" % (what, err))
    check(not os.path.exists(out), "%s: something was written at --out" % what)
    check(took < 30, "%s: refused after %.1f s: not before the training" % (what, took))
    print("%s: refused in %.2f s: %s" % (what, took, err[:200]))


def main():
    root = tempfile.mkdtemp(prefix="attn-train-init-kind-")
    try:
        out = os.path.join(root, "trained.safetensors")
        takes = ["--init takes one .safetensors checkpoint", "attn model train", "GPT-2", "minGPT/nanoGPT", "config.json"]
        stories = os.path.join(SOURCE, "lessons", "models", "stories260K.gguf")
        refused("stories260K.gguf", stories, out, [stories + ": byte 0: a GGUF file"] + takes)

        md, tensors = g.llama_file(arch="llama", n_layer=2, d=32, n_head=4, n_kv=2, d_mlp=48, vocab=40, ty="F32",
                                   rng=np.random.default_rng(3), extra_md=[("tokenizer.ggml.scores", ("array", "f32"), [0.0] * 40)])
        tiny = os.path.join(root, "tiny.gguf")
        g.write_gguf(tiny, md, tensors)
        refused("a test-written Llama GGUF", tiny, out, [tiny + ": byte 0: a GGUF file"] + takes)

        folder = os.path.join(root, "folder")
        os.mkdir(folder)
        refused("a folder", folder, out, [folder + ": a folder", "model.safetensors"] + takes)

        first = os.path.join(root, "first.safetensors")  # the control: attn's own checkpoint is taken
        r = subprocess.run([ATTN, "model", "train", "sort", "--out", first, "--iters", "2", "--batch", "2"], capture_output=True,
                           text=True, timeout=120)
        check(r.returncode == 0 and os.path.isfile(first), "control: training a first checkpoint: %s" % r.stderr[-400:])
        r, took = train(first, out, 2)
        check(r.returncode == 0 and os.path.isfile(out), "control: --init %s: exit %d %s" % (first, r.returncode, r.stderr[-400:]))
        print("control: --init of attn's own checkpoint trained 2 steps in %.1f s" % took)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("ok: train --init refuses a GGUF and a folder by name, saying what it takes")


if __name__ == "__main__":
    main()
