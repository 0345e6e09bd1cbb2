#!/usr/bin/python3
"""tests/python/test_model_explain_circuits.py — `attn model circuits` against PyTorch written
here: on random tiny float64 models (3 layers × 2 heads, tied and untied), the full QK
circuit W_E·W_QK·W_Eᵀ, the full OV circuit W_E·W_OV·diag(w_lnf)·W_U and every Q-, K- and
V-composition score (Elhage et al.: ‖W_A·W_B‖_F / (‖W_A‖_F·‖W_B‖_F), with TransformerLens's
default processing: layer-norm weights folded in, W_O's rows centred), computed with the
explicit d_model × d_model matrices, to 1e-9. Then the lesson-21 induction model: its
layer-1 head K-composes with the previous-token head more than it Q- or V-composes, and
its OV circuit copies; and the failure paths (exit 2)."""
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import gpt_reference as files  # noqa: E402  (random parameters and safetensors writing only)

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def circuits(path, L, h, *more):
    r = subprocess.run([ATTN, "model", "circuits", path, "--layer", str(L), "--head", str(h), *more, "--json", "-"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        failures.append(f"circuits {path} {L} {h}: exit {r.returncode}: {r.stderr}")
        return None
    return json.loads(r.stdout)


def head_matrices(cfg, p, L, h):
    d, H = cfg["n_embd"], cfg["n_head"]
    dh = d // H
    b = p["blocks"][L]
    w = b["ln1_w"].unsqueeze(1)
    wq, wk, wv = (w * b["w_qkv"][:, s * d + h * dh:s * d + (h + 1) * dh] for s in range(3))
    wo = b["w_out"][h * dh:(h + 1) * dh]
    wo = wo - wo.mean(1, keepdim=True)
    return wq @ wk.T, wv @ wo, wq, wk, wv, wo


def score(a, b):
    return float(torch.linalg.norm(a @ b) / (torch.linalg.norm(a) * torch.linalg.norm(b)))


def check_model(cfg, p, path, what):
    n = min(6, cfg["vocab_size"])
    E = p["wte"][:n]
    U = (p["lnf_w"].unsqueeze(1) * p.get("lm_head", p["wte"]).T)[:, :n]
    have = {}
    for L in range(cfg["n_layer"]):
        for h in range(cfg["n_head"]):
            got = circuits(path, L, h, "--vocab", str(n))
            if got is None:
                return
            mine = f"blocks.{L}.attn.head.{h}"
            check(all(mine in (c["earlier"], c["later"]) for c in got["composition"]), f"{what}: pairs without {mine}")
            have.update({(c["earlier"], c["later"]): (c["q"], c["k"], c["v"]) for c in got["composition"]})
            QK, OV, *_ = head_matrices(cfg, p, L, h)
            for key, want in (("qk_circuit", E @ QK @ E.T), ("ov_circuit", E @ OV @ U)):
                err = float((torch.tensor(got[key], dtype=torch.float64) - want).abs().max())
                check(err <= 1e-9, f"{what} L{L}H{h} {key}: max |attn - PyTorch| = {err:.3g}")
    want = {}
    for La in range(cfg["n_layer"]):
        for ha in range(cfg["n_head"]):
            _, OVa, *_ = head_matrices(cfg, p, La, ha)
            for Lb in range(La + 1, cfg["n_layer"]):
                for hb in range(cfg["n_head"]):
                    QKb, OVb, *_ = head_matrices(cfg, p, Lb, hb)
                    want[(f"blocks.{La}.attn.head.{ha}", f"blocks.{Lb}.attn.head.{hb}")] = (
                        score(OVa, QKb), score(OVa, QKb.T), score(OVa, OVb))
    check(set(have) == set(want), f"{what}: composition pairs {sorted(set(have) ^ set(want))}")
    err = max((abs(x - y) for k in want if k in have for x, y in zip(have[k], want[k])), default=0.0)
    check(err <= 1e-9, f"{what}: composition scores max |attn - PyTorch| = {err:.3g}")


def check_induction():
    path = os.path.join(SOURCE, "lessons", "models", "induction.safetensors")
    got = circuits(path, 1, 0, "--vocab", "64")
    if got is None:
        return
    (c,) = got["composition"]
    print(f"induction: L0H0 -> L1H0 composition Q {c['q']:.4f} K {c['k']:.4f} V {c['v']:.4f}")
    check(c["k"] > c["q"] and c["k"] > c["v"], f"induction: the layer-1 head should K-compose most with the previous-token head: {c}")
    ov = torch.tensor(got["ov_circuit"])
    copies = int((ov.argmax(1) == torch.arange(64)).sum())
    check(copies >= 48, f"induction: the layer-1 head's OV circuit copies only {copies} of 64 tokens")
    r = subprocess.run([ATTN, "model", "circuits", path, "--layer", "1", "--head", "0", "--width", "80"],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, NO_COLOR="1"))
    check(r.returncode == 0 and "L1H0 K-composes with L0H0" in r.stdout, f"induction: circuits text {r.stderr}")
    check(all(len(line) <= 80 for line in r.stdout.splitlines()), "induction: circuits output wider than 80 columns")


def check_errors(path):
    for args, words in [(["--layer", "3", "--head", "0"], "--layer 3 does not exist"),
                        (["--layer", "0", "--head", "2"], "--head 2 does not exist"),
                        (["--layer", "0", "--head", "0", "--vocab", "0"], "--vocab")]:
        r = subprocess.run([ATTN, "model", "circuits", path, *args], capture_output=True, text=True, timeout=60)
        check(r.returncode == 2 and words in r.stderr and not r.stdout, f"circuits {args}: exit {r.returncode}, {r.stderr!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, mlp, tied in [("mlp-tied", True, True), ("attention-only-untied", False, False)]:
            cfg = {"n_layer": 3, "n_head": 2, "n_embd": 8, "vocab_size": 9, "n_positions": 6, "has_mlp": mlp, "tied": tied}
            p = files.random_params(cfg, seed=5 if mlp else 6)
            path = files.save_model(os.path.join(tmp, name), cfg, p, "hf", dtype=torch.float64)
            check_model(cfg, p, path, name)
        check_errors(path)
    check_induction()
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
