#!/usr/bin/python3
"""tests/python/test_trace_numpy.py — `attn trace --json/--npy/--csv` against an
independent NumPy computation of every stage (never used by the product).

Random inputs from NumPy (fixed seed): self, causal, cross with n_q != n_k, a
padding mask, attend/block polarity, an additive bias, 4 heads with projections
and W_O, batch 2 with a per-item padding mask, float32 and CSV inputs. Every
stage of the JSON must match to 1e-12; the .npy files must load with numpy.load
and equal the JSON exactly; the CSV slices must equal it too.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
TOL = 1e-12
rng = np.random.default_rng(20261126)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def toml_value(v):
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(v)  # lists of strings


def write_spec(d, name, fields, arrays):
    """fields: plain TOML values; arrays: name -> ndarray, saved as .npy beside the spec."""
    lines = []
    for k, v in fields.items():
        if k != "mask":
            lines.append(f"{k} = {toml_value(v)}")
    for k, a in arrays.items():
        if isinstance(a, tuple):  # (ndarray, 'csv' | 'f32' | 'inline')
            a, how = a
        else:
            how = "npy"
        if how == "inline":
            lines.append(f"{k} = {json.dumps(a.tolist())}")
            continue
        fn = f"{name}.{k}." + ("csv" if how == "csv" else "npy")
        p = os.path.join(d, fn)
        if how == "csv":
            np.savetxt(p, a, delimiter=",", fmt="%.17g")
        else:
            np.save(p, a.astype(np.float32) if how == "f32" else a)
        lines.append(f'{k} = "{fn}"')
    if "mask" in fields:
        pol, m = fields["mask"]
        lines.append("[mask]")
        lines.append(f"{pol} = {json.dumps(m.tolist())}")
    path = os.path.join(d, name + ".toml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def reference(Q, K, V, heads, attend, bias, W_O=None):
    """Q [B, n_q, H*d], K [B, n_k, H*d], V [B, n_k, H*dv]; attend [B, n_q, n_k] bool; bias [H, n_q, n_k] or None."""
    B, n_q, _ = Q.shape
    n_k = K.shape[1]
    d = Q.shape[2] // heads
    dv = V.shape[2] // heads
    q = Q.reshape(B, n_q, heads, d)
    k = K.reshape(B, n_k, heads, d)
    v = V.reshape(B, n_k, heads, dv)
    raw = np.einsum("bqhd,bkhd->bhqk", q, k)
    scaled = raw / np.sqrt(d)
    masked = scaled + (0 if bias is None else bias[None, :, :, :])
    masked = np.where(attend[:, None, :, :], masked, -np.inf)
    mx = masked.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # a fully blocked row: fixed up by the caller
        e = np.exp(masked - mx)
        pattern = e / e.sum(axis=-1, keepdims=True)
    z = np.einsum("bhqk,bkhd->bqhd", pattern, v)
    out = {"hook_q": q, "hook_k": k, "hook_v": v, "hook_attn_scores_raw": raw,
           "hook_attn_scores_scaled": scaled, "hook_attn_scores": masked, "hook_pattern": pattern, "hook_z": z}
    if W_O is not None:
        wo = W_O.reshape(heads, dv, -1)
        out["hook_result"] = np.einsum("bqhd,hdm->bqhm", z, wo)
        out["hook_attn_out"] = out["hook_result"].sum(axis=2)
    return out


def from_json(stage):
    a = np.array(stage["data"], dtype=object)
    a = np.where(a == None, -np.inf, a).astype(np.float64)  # noqa: E711 — JSON null is a blocked -inf
    return a.reshape(stage["shape"])


def run(args):
    p = subprocess.run([ATTN, "trace"] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def compare_case(d, name, fields, arrays, ref):
    spec = write_spec(d, name, fields, arrays)
    code, out, err = run([spec, "--json", "-"])
    check(code == 0, f"{name}: exit {code}: {err}")
    if code != 0:
        return
    j = json.loads(out)
    check(set(j["stages"]) == set(ref), f"{name}: stages {sorted(j['stages'])} vs {sorted(ref)}")
    for stage, want in ref.items():
        got = from_json(j["stages"][stage])
        check(got.shape == want.shape, f"{name}/{stage}: shape {got.shape} vs {want.shape}")
        if got.shape != want.shape:
            continue
        fin = np.isfinite(want)
        check(np.array_equal(np.isfinite(got), fin), f"{name}/{stage}: blocked cells differ")
        err_max = np.max(np.abs(got[fin] - want[fin])) if fin.any() else 0.0
        check(err_max <= TOL, f"{name}/{stage}: max |error| {err_max:.3g} > {TOL}")
    axes = j["stages"]["hook_pattern"]["axes"]
    check(axes == ["batch", "head", "query_pos", "key_pos"], f"{name}: hook_pattern axes {axes}")
    check(j["stages"]["hook_q"]["axes"] == ["batch", "query_pos", "head", "d_head"], f"{name}: hook_q axes")

    # --npy: numpy.load gives float64 C-order arrays equal to the JSON, bit for bit.
    npy_dir = os.path.join(d, name + "-npy")
    code, _, err = run([spec, "--npy", npy_dir])
    check(code == 0, f"{name}: --npy exit {code}: {err}")
    for stage in ref:
        a = np.load(os.path.join(npy_dir, stage + ".npy"))
        check(a.dtype == np.float64 and a.flags["C_CONTIGUOUS"], f"{name}/{stage}.npy: dtype {a.dtype}")
        check(np.array_equal(a, from_json(j["stages"][stage])), f"{name}/{stage}.npy differs from the JSON")

    # --csv: one file per 2-D slice; header row and first column are labels.
    csv_dir = os.path.join(d, name + "-csv")
    code, _, err = run([spec, "--csv", csv_dir])
    check(code == 0, f"{name}: --csv exit {code}: {err}")
    pat = from_json(j["stages"]["hook_attn_scores"])
    B, H = pat.shape[0], pat.shape[1]
    for b in range(B):
        for h in range(H):
            c = np.genfromtxt(os.path.join(csv_dir, f"hook_attn_scores.b{b}.h{h}.csv"), delimiter=",", skip_header=1)[:, 1:]
            check(np.array_equal(c, pat[b, h]), f"{name}: hook_attn_scores.b{b}.h{h}.csv differs from the JSON")
            z = np.genfromtxt(os.path.join(csv_dir, f"hook_z.b{b}.h{h}.csv"), delimiter=",", skip_header=1)[:, 1:]
            check(np.array_equal(z.reshape(-1), from_json(j["stages"]["hook_z"])[b, :, h, :].reshape(-1)),
                  f"{name}: hook_z.b{b}.h{h}.csv differs from the JSON")


def main():
    with tempfile.TemporaryDirectory() as d:
        n, n_k, dk, dv = 5, 7, 4, 3
        # Self-attention, Q/K/V direct.
        Q, K, V = rng.normal(size=(n, dk)), rng.normal(size=(n, dk)), rng.normal(size=(n, dv))
        full = np.ones((1, n, n), bool)
        compare_case(d, "self", {"kind": "self"}, {"Q": Q, "K": K, "V": V},
                     reference(Q[None], K[None], V[None], 1, full, None))
        # Causal.
        causal = np.tril(np.ones((n, n), bool))[None]
        compare_case(d, "causal", {"kind": "causal", "tokens": ["a", "b", "c", "d", "e"]}, {"Q": Q, "K": K, "V": V},
                     reference(Q[None], K[None], V[None], 1, causal, None))
        # Cross with n_q != n_k, K from float32 and V from CSV.
        Kx, Vx = rng.normal(size=(n_k, dk)), rng.normal(size=(n_k, dv))
        K32 = Kx.astype(np.float32).astype(np.float64)
        compare_case(d, "cross", {"kind": "cross"}, {"Q": Q, "K": (Kx, "f32"), "V": (Vx, "csv")},
                     reference(Q[None], K32[None], Vx[None], 1, np.ones((1, n, n_k), bool), None))
        # Padding mask on the keys (last two are padding) + an additive bias.
        pad = np.array([False, False, False, False, False, True, True])
        bias = rng.normal(size=(n, n_k))
        compare_case(d, "padding", {"kind": "cross", "mask": ("key_is_padding", pad)},
                     {"Q": Q, "K": Kx, "V": Vx, "bias": bias},
                     reference(Q[None], Kx[None], Vx[None], 1, np.broadcast_to(~pad, (1, n, n_k)), bias[None]))
        # Explicit block polarity, inline matrices; one row fully blocked (weights 0, not NaN).
        block = rng.random((n, n)) < 0.4
        block[2, :] = True
        attend = ~block
        ref = reference(Q[None], K[None], V[None], 1, attend[None], None)
        ref["hook_pattern"][0, 0, 2, :] = 0.0
        ref["hook_z"][0, 2, 0, :] = 0.0
        compare_case(d, "block", {"kind": "self", "mask": ("block", block)},
                     {"Q": (Q, "inline"), "K": (K, "inline"), "V": (V, "inline")}, ref)
        # 4 heads with projections and W_O, causal.
        H, dm, dh = 4, 8, 3
        X = rng.normal(size=(6, dm))
        WQ, WK, WV, WO = (rng.normal(size=(dm, H * dh)), rng.normal(size=(dm, H * dh)),
                          rng.normal(size=(dm, H * dh)), rng.normal(size=(H * dh, dm)))
        compare_case(d, "heads4", {"kind": "causal", "heads": H}, {"X": X, "W_Q": WQ, "W_K": WK, "W_V": WV, "W_O": WO},
                     reference((X @ WQ)[None], (X @ WK)[None], (X @ WV)[None], H,
                               np.tril(np.ones((6, 6), bool))[None], None, WO))
        # Batch 2, cross with projections, per-item padding masks, 4 heads.
        Xb, Sb = rng.normal(size=(2, 3, dm)), rng.normal(size=(2, 5, dm))
        padb = np.array([[False] * 5, [False, False, False, True, True]])
        attb = np.broadcast_to(~padb[:, None, :], (2, 3, 5))
        compare_case(d, "batch2", {"kind": "cross", "heads": H, "mask": ("key_is_padding", padb)},
                     {"X": Xb, "X_src": Sb, "W_Q": WQ, "W_K": WK, "W_V": WV, "W_O": WO},
                     reference(Xb @ WQ, Sb @ WK, Sb @ WV, H, attb, None, WO))
        # Batch 2 with Q/K/V direct and 2 heads split from the columns; per-head bias.
        Qb, Kb, Vb = rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 4))
        hb = rng.normal(size=(2, 4, 4))
        compare_case(d, "batch2-direct", {"kind": "self", "heads": 2}, {"Q": Qb, "K": Kb, "V": Vb, "bias": hb},
                     reference(Qb, Kb, Vb, 2, np.ones((2, 4, 4), bool), hb))
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("all trace stages match NumPy to 1e-12; .npy and .csv equal the JSON")


if __name__ == "__main__":
    main()
