#!/usr/bin/python3
"""tests/python/test_model_rope_scaling.py — rotary frequencies rescaled as checkpoints
state it (model/rope_scaling): config.json's rope_scaling ("llama3", Llama 3.1/3.2's;
"linear"), GGUF's rope.scaling.type linear + rope.scaling.factor, and GGUF's
rope_freqs.weight (Llama 3's per-pair divisors, as llama.cpp's converter writes them).

The reference is written here: the rescaled inverse frequencies as transformers'
_compute_llama3_parameters and _compute_linear_scaling_rope_parameters define them
(torch, float64), put into llama_reference's PyTorch forward in place of its unscaled
angles. The models: test_model_hf_folders.py's Llama folder (half-split pairs, d_head 8,
theta 10000) with rope_scaling added to its config.json; a random F32 GGUF `llama`
(gguf_reference.llama_file, adjacent pairs) with the linear keys.

Checks:
  * `run --dtype float64 --json` equals the scaled reference at every stage within 1e-10
    (llama3 with an original context of 64 and high_freq_factor 8, so its kept, blended
    and divided frequencies are all used; linear with factor 4), `generate` its greedy ids, and the logits differ
    from the unscaled reference (the scaling is not a no-op here);
  * rope_type "default" and rope_scaling null compute the unscaled model;
  * a GGUF with rope_freqs.weight (Llama 3's scaling as llama.cpp writes it: per-pair
    divisors) equals the reference with those divisors; a factor 0, NaN or the wrong count
    is refused;
  * refused by name (exit 2, 'config.json: byte N:'): rope_type yarn, dynamic, longrope;
    llama3 without low_freq_factor; a factor of 0; high_freq_factor not above
    low_freq_factor; a factor without a type; GGUF rope.scaling.type yarn."""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reference as g  # noqa: E402
import llama_reference as ref  # noqa: E402
import test_model_hf_folders as hf  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
ATTN = hf.ATTN
check = hf.check
UNSCALED = ref.rotary_angles


def llama3_inv_freq(theta, dims, factor, low_freq_factor, high_freq_factor, old_context):
    """transformers' _compute_llama3_parameters, in float64."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, dims, 2, dtype=torch.float64) / dims))
    low_freq_wavelen = old_context / low_freq_factor
    high_freq_wavelen = old_context / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, inv_freq_llama)


def linear_inv_freq(theta, dims, factor):
    return 1.0 / (theta ** (torch.arange(0, dims, 2, dtype=torch.float64) / dims)) / factor


def use_frequencies(inv_freq):
    """llama_reference's angles with these frequencies (None: its own, unscaled)."""
    if inv_freq is None:
        ref.rotary_angles = UNSCALED
        return

    def angles(positions, dims, theta, dtype=torch.float64):
        assert len(inv_freq) == dims // 2
        return (torch.as_tensor(positions, dtype=torch.float64)[:, None] * inv_freq[None, :]).to(dtype)
    ref.rotary_angles = angles


def run_logits(path, tokens):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.json")
        r = subprocess.run([ATTN, "model", "run", path, "--dtype", "float64", "--json", out, "--tokens", ",".join(map(str, tokens))],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            check(False, "run %s: exit %d %s" % (path, r.returncode, r.stderr[-400:]))
            return None
        s = json.load(open(out, encoding="utf-8"))["stages"]["logits"]
        return np.array(s["data"], dtype=float).reshape(s["shape"])


def set_config(folder, **changes):
    path = os.path.join(folder, "config.json")
    config = json.load(open(path, encoding="utf-8"))
    for k, v in changes.items():
        if v is ...:
            config.pop(k, None)
        else:
            config[k] = v
    json.dump(config, open(path, "w", encoding="utf-8"))


def hf_scaled(root):
    folder, cfg, w = hf.make_folder(root, "llama")
    tokens = [5, 260, 261, 77, 3, 268, 100, 9, 42, 7, 200, 13, 14, 15, 16, 17, 18, 19, 20, 21]
    with torch.no_grad():
        plain = ref.forward(w, cfg, [tokens])["logits"].numpy()
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 8.0,
              "original_max_position_embeddings": 64}
    inv = llama3_inv_freq(cfg.theta, cfg.d_head, 8.0, 1.0, 8.0, 64)
    wavelen = 2 * math.pi / linear_inv_freq(cfg.theta, cfg.d_head, 1.0)  # 6.3, 63, 628, 6283
    check(bool((wavelen < 8).any() and ((wavelen >= 8) & (wavelen <= 64)).any() and (wavelen > 64).any()),
          "the llama3 case uses all three bands: wavelengths %s" % wavelen.tolist())
    cases = [("llama3", llama3, inv), ("linear", {"type": "linear", "factor": 4.0}, linear_inv_freq(cfg.theta, cfg.d_head, 4.0)),
             ("default", {"rope_type": "default"}, None), ("null", None, None)]
    for name, scaling, freqs in cases:
        set_config(folder, rope_scaling=scaling)
        use_frequencies(freqs)
        hf.compare_stages("rope_scaling " + name, folder, cfg, w)
        got = run_logits(folder, tokens)
        if got is not None:
            moved = np.abs(got - plain.reshape(got.shape)).max()
            if freqs is None:
                check(moved < 1e-10, "rope_scaling %s: the logits moved %.3g from the unscaled model" % (name, moved))
            else:
                check(moved > 1e-3, "rope_scaling %s: the logits equal the unscaled model's (moved %.3g)" % (name, moved))
        if freqs is not None:
            hf.generation("llama", folder, cfg, w)
    use_frequencies(None)
    r = subprocess.run([ATTN, "model", "info", folder], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "info on a scaled folder: %s" % r.stderr[-300:])
    set_config(folder, rope_scaling=llama3)
    r = subprocess.run([ATTN, "model", "info", folder], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "llama3, factor 8" in " ".join(r.stdout.split()), "info names the llama3 scaling: %s" % r.stdout[-600:])
    return folder


def refused_config(folder, scaling, expect, why):
    set_config(folder, rope_scaling=scaling)
    r = subprocess.run([ATTN, "model", "run", folder, "--tokens", "1,2,3"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and r.stdout == "" and "config.json: byte " in r.stderr and all(e in r.stderr for e in expect),
          "%s: exit %d %r (wanted exit 2, 'config.json: byte N' and %s)" % (why, r.returncode, r.stderr[-300:], expect))


def hf_refusals(folder):
    for kind in ("yarn", "dynamic", "longrope"):
        refused_config(folder, {"rope_type": kind, "factor": 2.0}, ['"%s"' % kind, "not supported", "llama3, linear"],
                       "rope_type " + kind)
    refused_config(folder, {"type": "su", "factor": 2.0}, ['"su"', "not supported"], "the older key type: su")
    refused_config(folder, {"rope_type": "llama3", "factor": 8.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 16},
                   ["low_freq_factor"], "llama3 without low_freq_factor")
    refused_config(folder, {"rope_type": "linear", "factor": 0}, ["factor", "above 0"], "a linear factor of 0")
    refused_config(folder, {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 4.0,
                            "original_max_position_embeddings": 16}, ["high_freq_factor"], "high_freq_factor not above low")
    refused_config(folder, {"factor": 2.0}, ["factor", "rope_type"], "a factor without a type")
    refused_config(folder, {"rope_type": 3}, ["rope_scaling"], "a rope_type that is a number")


def gguf_linear(root):
    rng = np.random.default_rng(5)
    md, tensors = g.llama_file(arch="llama", n_layer=2, d=32, n_head=4, n_kv=2, d_mlp=48, vocab=40, ty="F32", rng=rng,
                               extra_md=[("llama.rope.scaling.type", "string", "linear"), ("llama.rope.scaling.factor", "f32", 4.0),
                                         ("tokenizer.ggml.scores", ("array", "f32"), [0.0] * 40)])
    path = os.path.join(root, "linear.gguf")
    g.write_gguf(path, md, tensors)
    cfg, w = ref.read_gguf_llama(path)
    tokens = [1, 5, 9, 30, 2, 7, 7, 11, 39, 0, 3, 4]
    with torch.no_grad():
        use_frequencies(linear_inv_freq(cfg.theta, cfg.d_head, 4.0))
        want = ref.forward(w, cfg, [tokens])["logits"].numpy()
        use_frequencies(None)
        plain = ref.forward(w, cfg, [tokens])["logits"].numpy()
    got = run_logits(path, tokens)
    if got is not None:
        err = np.abs(got - want.reshape(got.shape)).max() / max(1.0, np.abs(want).max())
        check(err <= 1e-10, "GGUF linear scaling: logits differ from the scaled reference by %.3g" % err)
        check(np.abs(got - plain.reshape(got.shape)).max() > 1e-3, "GGUF linear scaling: the logits equal the unscaled model's")
        print("GGUF rope.scaling linear ×4: logits within %.3g of the reference" % err)
    r = subprocess.run([ATTN, "model", "info", path], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "linear, positions divided by 4" in r.stdout, "GGUF info names the scaling: %s %s" % (r.stdout, r.stderr))
    md2 = [(k, t, ("yarn" if k == "llama.rope.scaling.type" else v)) for k, t, v in md]
    g.write_gguf(path, md2, tensors)
    r = subprocess.run([ATTN, "model", "run", path, "--tokens", "1,2"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "yarn" in r.stderr and "not supported" in r.stderr and ": byte " in r.stderr,
          "GGUF rope.scaling.type yarn refused: exit %d %r" % (r.returncode, r.stderr[-300:]))


def gguf_freq_factors(root):
    """Llama 3's scaling as llama.cpp's converter writes it: a rope_freqs.weight tensor of
    per-pair factors (unscaled frequency / scaled), each pair's frequency divided by it."""
    rng = np.random.default_rng(6)
    md, tensors = g.llama_file(arch="llama", n_layer=2, d=32, n_head=4, n_kv=2, d_mlp=48, vocab=40, ty="F32", rng=rng,
                               extra_md=[("tokenizer.ggml.scores", ("array", "f32"), [0.0] * 40)])
    dims, theta = 8, 10000.0
    base = linear_inv_freq(theta, dims, 1.0)
    factors = (base / llama3_inv_freq(theta, dims, 8.0, 1.0, 8.0, 64)).numpy().astype(np.float32)  # [1, ~blend, 8, 8]
    path = os.path.join(root, "freqs.gguf")
    g.write_gguf(path, md, tensors + [("rope_freqs.weight", [dims // 2], "F32", factors.tobytes())])
    cfg, w = ref.read_gguf_llama(path)
    tokens = [1, 5, 9, 30, 2, 7, 7, 11, 39, 0, 3, 4]
    with torch.no_grad():
        use_frequencies(base / torch.tensor(factors.astype(np.float64)))
        want = ref.forward(w, cfg, [tokens])["logits"].numpy()
        use_frequencies(None)
        plain = ref.forward(w, cfg, [tokens])["logits"].numpy()
    got = run_logits(path, tokens)
    if got is not None:
        err = np.abs(got - want.reshape(got.shape)).max() / max(1.0, np.abs(want).max())
        check(err <= 1e-10, "GGUF rope_freqs.weight: logits differ from the scaled reference by %.3g" % err)
        check(np.abs(got - plain.reshape(got.shape)).max() > 1e-3, "GGUF rope_freqs.weight: the logits equal the unscaled model's")
        print("GGUF rope_freqs.weight (Llama 3's factors): logits within %.3g of the reference" % err)
    r = subprocess.run([ATTN, "model", "info", path], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "rope_freqs.weight" in r.stdout, "GGUF info names rope_freqs.weight: %s %s" % (r.stdout, r.stderr))
    for bad, why in ((np.array([1, 0, 8, 8], np.float32), "a factor of 0"), (np.array([1, np.nan, 8, 8], np.float32), "a NaN factor"),
                     (np.ones(3, np.float32), "3 factors for 4 pairs")):
        g.write_gguf(path, md, tensors + [("rope_freqs.weight", [len(bad)], "F32", bad.tobytes())])
        r = subprocess.run([ATTN, "model", "run", path, "--tokens", "1,2"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 2 and "rope_freqs.weight" in r.stderr and ": byte " in r.stderr and "nan" not in r.stderr.lower(),
              "GGUF rope_freqs.weight with %s: exit %d %r" % (why, r.returncode, r.stderr[-300:]))


def main():
    root = tempfile.mkdtemp(prefix="attn-rope-scaling-")
    try:
        folder = hf_scaled(root)
        hf_refusals(folder)
        gguf_linear(root)
        gguf_freq_factors(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if hf.failures:
        print("%d failure(s)" % len(hf.failures))
        sys.exit(1)
    print("ok: rope_scaling llama3 and linear (config.json) and GGUF linear scaling as PyTorch computes; others refused by name")


if __name__ == "__main__":
    main()
