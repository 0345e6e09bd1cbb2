#!/usr/bin/python3
"""tests/python/test_model_train_init_scaled.py — `attn model train TASK --init CKPT` on a
checkpoint whose rotary frequencies are rescaled is refused up front (cli/model_train's
check_init_scaling): the checkpoint a run writes has no words for rope_scaling, so the
trained model could only be written wrong. Before this check the run trained every step
and only then failed to write.

Checks, for a Hugging Face Llama model.safetensors (test_model_hf_folders.make_folder)
with config.json's rope_scaling "llama3" and "linear" beside it, a GGUF `llama` with rope.scaling.type
linear, and a GGUF with rope_freqs.weight (Llama 3's per-pair divisors):
  * exit 2, the message names the --init file and says its frequencies are rescaled and
    why training refuses it, no Python traceback, nothing written at --out;
  * refused before any work: --iters 100000 still ends at once (well under the 60 s limit);
  * the control: the same file with rope_scaling removed trains (--iters 2) and writes
    its checkpoint, so the refusal is the scaling's, not the folder's."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reference as g  # noqa: E402
import test_model_hf_folders as hf  # noqa: E402
import test_model_rope_scaling as rs  # noqa: E402

ATTN = hf.ATTN
check = hf.check


def train(init, out, iters):
    start = time.monotonic()
    r = subprocess.run([ATTN, "model", "train", "sort", "--arch", "llama", "--init", init, "--out", out, "--iters", str(iters),
                        "--batch", "2"], capture_output=True, text=True, timeout=120)
    return r, time.monotonic() - start


def refused(what, init, out):
    r, took = train(init, out, 100000)
    err = " ".join(r.stderr.split())
    check(r.returncode == 2, "%s: exit %d (wanted 2): %s" % (what, r.returncode, r.stderr[-400:]))
    check(init in err and "--init" in err and "rescaled" in err and "rope_scaling" in err and "Traceback" not in r.stderr,
          "%s: the message should name %s and the rescaling: %r" % (what, init, r.stderr[-400:]))
    check(not os.path.exists(out), "%s: something was written at --out" % what)
    check(took < 30, "%s: refused after %.1f s: not before the training" % (what, took))
    print("%s: refused in %.2f s: %s" % (what, took, err[:160]))


def main():
    root = tempfile.mkdtemp(prefix="attn-train-scaled-")
    try:
        out = os.path.join(root, "trained.safetensors")
        folder, _cfg, _w = hf.make_folder(root, "llama")
        rs.set_config(folder, max_position_embeddings=64)
        rs.set_config(folder, rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 8.0,
                                            "original_max_position_embeddings": 64})
        weights = os.path.join(folder, "model.safetensors")  # --init takes a file; config.json beside it
        refused("config.json rope_scaling llama3", weights, out)
        rs.set_config(folder, rope_scaling={"type": "linear", "factor": 4.0})
        refused("config.json rope_scaling linear", weights, out)

        rng = np.random.default_rng(5)
        md, tensors = g.llama_file(arch="llama", n_layer=2, d=32, n_head=4, n_kv=2, d_mlp=48, vocab=40, ty="F32", rng=rng,
                                   extra_md=[("llama.rope.scaling.type", "string", "linear"),
                                             ("llama.rope.scaling.factor", "f32", 4.0),
                                             ("tokenizer.ggml.scores", ("array", "f32"), [0.0] * 40)])
        linear = os.path.join(root, "linear.gguf")
        g.write_gguf(linear, md, tensors)
        refused("GGUF rope.scaling.type linear", linear, out)
        md, tensors = g.llama_file(arch="llama", n_layer=2, d=32, n_head=4, n_kv=2, d_mlp=48, vocab=40, ty="F32", rng=rng,
                                   extra_md=[("tokenizer.ggml.scores", ("array", "f32"), [0.0] * 40)])
        factors = np.array([1.0, 2.5, 8.0, 8.0], np.float32)  # d_head 8: four pairs
        freqs = os.path.join(root, "freqs.gguf")
        g.write_gguf(freqs, md, tensors + [("rope_freqs.weight", [4], "F32", factors.tobytes())])
        refused("GGUF rope_freqs.weight", freqs, out)

        rs.set_config(folder, rope_scaling=None)  # the control: unscaled, the same folder trains
        r, took = train(weights, out, 2)
        check(r.returncode == 0 and os.path.isfile(out), "unscaled folder: exit %d %s" % (r.returncode, r.stderr[-400:]))
        print("unscaled control: trained 2 steps in %.1f s" % took)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if hf.failures:
        print("%d failure(s)" % len(hf.failures))
        sys.exit(1)
    print("ok: train --init on a rescaled checkpoint is refused before any work, naming the file")


if __name__ == "__main__":
    main()
