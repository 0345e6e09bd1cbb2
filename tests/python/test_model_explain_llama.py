#!/usr/bin/python3
"""tests/python/test_model_explain_llama.py — `attn model explain`, `circuits` and `patch` on
a Llama-family model (lessons/models/stories260K.gguf: RMSNorm, rotary positions with
adjacent pairs, grouped-query attention 8/4, SwiGLU, no biases) against an independent
float64 PyTorch reference written here: a forward with hooks (a function per
TransformerLens hook name that may replace the activation) built from llama_reference's
pieces (rms_norm, rotary_pairs, causal_attention; read_gguf_llama for the weights).

  - explain --json (--dtype float64): every (query-side, key-side) term of a score — each
    component through RMSNorm with the forward's scale (no centring), the q or k rows of
    its query head or of that head's key/value head h / (H/KV), turned by the rotary angle
    of its own position — for several layers, heads (both heads of a key/value group),
    queries and keys: to 1e-9, and the terms sum to the model's score to 1e-10;
  - --target: each component's direct logit attribution through the final RMSNorm; --writes:
    each key's weight and the tokens its write (v of the key/value head · W_O) promotes;
  - circuits --json: the Q-, K-, V-composition scores with W_K, W_V of the key/value head,
    ln1's weight folded in, W_O not centred (an RMSNorm keeps the mean);
  - patch --json --metric loss:2: clean/corrupted baselines, hook_z patching of every head,
    hook_resid_pre patching at each layer and position, zero and mean ablation;
  - the three verbs' text at 80 columns: no line wider."""
import json
import math
import os
import subprocess
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import llama_reference as L  # noqa: E402

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", ".")
MODEL = os.path.join(SOURCE, "lessons", "models", "stories260K.gguf")
TOKENS = [1, 403, 407, 261, 378, 280, 319, 450]
CORRUPT = [1, 403, 407, 300, 378, 280, 319, 450]
TOL = 1e-9
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attn(*args):
    return subprocess.run([ATTN, "model", *args], capture_output=True, text=True, timeout=60)


def attn_json(*args):
    r = attn(*args, "--dtype", "float64", "--json", "-")
    if r.returncode != 0:
        failures.append(f"{args[:1]}: exit {r.returncode}: {r.stderr}")
        return None
    return json.loads(r.stdout)


class Reference:
    """The Llama forward with hooks, and the residual stream's components."""

    def __init__(self, cfg, w):
        self.cfg, self.w = cfg, w
        self.H, self.KV, self.dh = cfg.n_heads, cfg.n_kv_heads, cfg.d_head

    def forward(self, tokens, hooks=None):
        hooks, cache, cfg, w = hooks or {}, {}, self.cfg, self.w
        T, pos = len(tokens), list(range(len(tokens)))

        def hook(name, x):
            if name in hooks:
                x = hooks[name](x.clone())
            cache[name] = x
            return x

        x = w["model.embed_tokens.weight"][torch.tensor(tokens)][None]  # [1, T, C]
        for layer in range(cfg.n_layers):
            p = f"model.layers.{layer}."
            x = hook(f"blocks.{layer}.hook_resid_pre", x)
            a, cache[f"blocks.{layer}.ln1.scale"], _ = L.rms_norm(x, w[p + "input_layernorm.weight"], cfg.eps)
            q = L.linear(a, w, p + "self_attn.q_proj").view(1, T, self.H, self.dh)
            k = L.linear(a, w, p + "self_attn.k_proj").view(1, T, self.KV, self.dh)
            v = L.linear(a, w, p + "self_attn.v_proj").view(1, T, self.KV, self.dh)
            rq, rk = (L.rotary_pairs(t, pos, cfg.dims, cfg.theta, cfg.pairing) for t in (q, k))
            scores, pattern, z = L.causal_attention(rq, rk, v)
            cache[f"blocks.{layer}.attn.hook_attn_scores"], cache[f"blocks.{layer}.attn.hook_pattern"] = scores, pattern
            cache[f"blocks.{layer}.attn.hook_v"] = v
            z = hook(f"blocks.{layer}.attn.hook_z", z[0])[None]  # [1, T, H, dh]
            x = x + L.linear(z.reshape(1, T, self.H * self.dh), w, p + "self_attn.o_proj")
            m, _, _ = L.rms_norm(x, w[p + "post_attention_layernorm.weight"], cfg.eps)
            gate = L.linear(m, w, p + "mlp.gate_proj")
            out = L.linear(gate * torch.sigmoid(gate) * L.linear(m, w, p + "mlp.up_proj"), w, p + "mlp.down_proj")
            cache[f"blocks.{layer}.hook_mlp_out"] = out[0]
            x = x + out
        f, cache["ln_final.scale"], _ = L.rms_norm(x, w["model.norm.weight"], cfg.eps)
        cache["logits"] = (f @ self.unembed().T)[0]
        return cache

    def unembed(self):
        return self.w.get("lm_head.weight", self.w["model.embed_tokens.weight"])  # [V, C]

    def wo(self, layer, h):
        return self.w[f"model.layers.{layer}.self_attn.o_proj.weight"][:, h * self.dh:(h + 1) * self.dh]  # [C, dh]

    def components(self, cache, tokens, layer, pos):
        out = [("embed", self.w["model.embed_tokens.weight"][tokens[pos]])]
        for lay in range(layer):
            z = cache[f"blocks.{lay}.attn.hook_z"][pos]  # [H, dh]
            out += [(f"blocks.{lay}.attn.head.{h}", self.wo(lay, h) @ z[h]) for h in range(self.H)]
            out.append((f"blocks.{lay}.mlp", cache[f"blocks.{lay}.hook_mlp_out"][pos]))
        out.append(("bias", torch.zeros(self.cfg.d_model, dtype=torch.float64)))
        return out

    def side(self, comps, scale, layer, proj, head, pos):
        """Each component through ln1 (scale frozen, no centring), one head's rows of q_proj or
        k_proj, turned by the rotary angle of pos."""
        p = f"model.layers.{layer}."
        rows = self.w[p + f"self_attn.{proj}.weight"][head * self.dh:(head + 1) * self.dh]  # [dh, C]
        out = []
        for _, c in comps:
            r = rows @ (c / scale * self.w[p + "input_layernorm.weight"])
            out.append(L.rotary_pairs(r.view(1, 1, 1, self.dh), [pos], self.cfg.dims, self.cfg.theta, self.cfg.pairing).view(-1))
        return torch.stack(out)

    def score_terms(self, cache, tokens, layer, h, q, k):
        scale = cache[f"blocks.{layer}.ln1.scale"][0, :, 0]
        qc, kc = self.components(cache, tokens, layer, q), self.components(cache, tokens, layer, k)
        Q = self.side(qc, scale[q], layer, "q_proj", h, q)
        K = self.side(kc, scale[k], layer, "k_proj", h // (self.H // self.KV), k)
        return [n for n, _ in qc], Q @ K.T / math.sqrt(self.dh)

    def final(self, cache, pos, write):
        return (write / cache["ln_final.scale"][0, pos, 0] * self.w["model.norm.weight"]) @ self.unembed().T


def check_explain(ref, cache):
    ids = ",".join(map(str, TOKENS))
    for layer, h, q, k in [(0, 0, 4, 4), (0, 1, 4, 2), (1, 3, 4, 2), (1, 2, 7, 0), (3, 6, 7, 5), (4, 7, 6, 1), (4, 6, 6, 6)]:
        got = attn_json("explain", MODEL, "--tokens", ids, "--layer", str(layer), "--head", str(h), "--query", str(q), "--key", str(k))
        if got is None:
            continue
        names, terms = ref.score_terms(cache, TOKENS, layer, h, q, k)
        want = {(a, b): float(terms[i, j]) for i, a in enumerate(names) for j, b in enumerate(names)}
        have = {(t["query_side"], t["key_side"]): t["value"] for t in got["terms"]}
        what = f"L{layer}H{h} q{q} k{k}"
        check(set(have) == set(want), f"{what}: components {sorted(set(have) ^ set(want))[:4]}")
        err = max((abs(have[x] - want[x]) for x in want if x in have), default=0.0)
        check(err <= TOL, f"{what}: max |term - PyTorch| = {err:.3g}")
        score = float(cache[f"blocks.{layer}.attn.hook_attn_scores"][0, h, q, k])
        check(abs(got["model_score"] - score) <= TOL, f"{what}: the model's score {got['model_score']} vs {score}")
        check(abs(got["score"] - score) <= 1e-10, f"{what}: Σ terms {got['score']} vs the score {score}")
    print("ok: explain on stories260K: every term of 7 scores (rotary, GQA, RMSNorm) within 1e-9 of PyTorch")


def check_dla_and_writes(ref, cache):
    ids, q, layer, h = ",".join(map(str, TOKENS)), 6, 4, 5
    got = attn_json("explain", MODEL, "--tokens", ids, "--layer", str(layer), "--head", str(h), "--query", str(q),
                    "--target", "300", "--writes")
    if got is None:
        return
    comps = ref.components(cache, TOKENS, ref.cfg.n_layers, q)
    want = [(n, float(ref.final(cache, q, c)[300])) for n, c in comps]
    check([n for n, _ in want] == [c["name"] for c in got["dla"]["components"]], "DLA components")
    err = max(abs(c["value"] - v) for c, (_, v) in zip(got["dla"]["components"], want))
    check(err <= TOL, f"DLA: max |attn - PyTorch| = {err:.3g}")
    check(abs(got["dla"]["logit"] - float(cache["logits"][q, 300])) <= TOL, "DLA: the logit")
    check(abs(sum(v for _, v in want) - float(cache["logits"][q, 300])) <= 1e-10, "the reference's DLA sums to the logit")
    pattern, v = cache[f"blocks.{layer}.attn.hook_pattern"][0, h, q], cache[f"blocks.{layer}.attn.hook_v"][0]
    g = h // (ref.H // ref.KV)
    for entry in got["writes"]["keys"]:
        k = entry["key"]
        logits = ref.final(cache, q, ref.wo(layer, h) @ (pattern[k] * v[k, g]))
        check(abs(entry["weight"] - float(pattern[k])) <= TOL, f"writes key {k}: weight")
        top = torch.argsort(logits, descending=True, stable=True)[:5].tolist()
        check([t["token"] for t in entry["promotes"]] == top, f"writes key {k}: promotes {entry['promotes']} vs {top}")
        err = max(abs(t["value"] - float(logits[t["token"]])) for t in entry["promotes"] + entry["demotes"])
        check(err <= TOL, f"writes key {k}: DLA off by {err:.3g}")
    print(f"ok: explain --target/--writes on stories260K: DLA of {len(want)} components and {len(got['writes']['keys'])} keys' writes")


def check_circuits(ref):
    cfg, w = ref.cfg, ref.w

    def mats(layer, h):
        p, g = f"model.layers.{layer}.", h // (ref.H // ref.KV)
        n = w[p + "input_layernorm.weight"].unsqueeze(1)  # [C, 1]
        wq = n * w[p + "self_attn.q_proj.weight"][h * ref.dh:(h + 1) * ref.dh].T
        wk = n * w[p + "self_attn.k_proj.weight"][g * ref.dh:(g + 1) * ref.dh].T
        wv = n * w[p + "self_attn.v_proj.weight"][g * ref.dh:(g + 1) * ref.dh].T
        return wq @ wk.T, wv @ ref.wo(layer, h).T  # W_QK, W_OV [C, C]

    def score(a, b):
        return float(torch.linalg.norm(a @ b) / (torch.linalg.norm(a) * torch.linalg.norm(b)))

    for layer, h in [(2, 5), (1, 0)]:
        got = attn_json("circuits", MODEL, "--layer", str(layer), "--head", str(h))
        if got is None:
            return
        worst = 0.0
        for c in got["composition"]:
            (la, ha), (lb, hb) = ((int(x.split(".")[1]), int(x.split(".")[-1])) for x in (c["earlier"], c["later"]))
            _, OVa = mats(la, ha)
            QKb, OVb = mats(lb, hb)
            for key, want in (("q", score(OVa, QKb)), ("k", score(OVa, QKb.T)), ("v", score(OVa, OVb))):
                worst = max(worst, abs(c[key] - want))
        check(worst <= TOL, f"circuits L{layer}H{h}: composition max |attn - PyTorch| = {worst:.3g}")
        check(len(got["composition"]) == (cfg.n_layers - 1) * ref.H, f"circuits L{layer}H{h}: {len(got['composition'])} pairs")
    print("ok: circuits on stories260K: Q/K/V composition with the key/value head's W_K, W_V")


def loss(cache, frm=2):
    lp = torch.log_softmax(cache["logits"], -1)
    return float(-sum(lp[i, TOKENS[i + 1]] for i in range(frm, len(TOKENS) - 1)) / (len(TOKENS) - 1 - frm))


def check_patch(ref):
    got = attn_json("patch", MODEL, "--clean-tokens", ",".join(map(str, TOKENS)), "--corrupt-tokens",
                    ",".join(map(str, CORRUPT)), "--metric", "loss:2")
    if got is None:
        return
    cc, cx = ref.forward(TOKENS), ref.forward(CORRUPT)

    def set_head(h, source):
        def f(z):
            z[:, h] = source
            return z
        return f

    grids = {"head_patch": [], "resid_patch": [], "zero_ablation": [], "mean_ablation": []}
    for layer in range(ref.cfg.n_layers):
        z, hz = cc[f"blocks.{layer}.attn.hook_z"], f"blocks.{layer}.attn.hook_z"
        grids["head_patch"].append([loss(ref.forward(CORRUPT, {hz: set_head(h, z[:, h])})) for h in range(ref.H)])
        grids["zero_ablation"].append([loss(ref.forward(TOKENS, {hz: set_head(h, 0.0)})) for h in range(ref.H)])
        grids["mean_ablation"].append([loss(ref.forward(TOKENS, {hz: set_head(h, z[:, h].mean(0))})) for h in range(ref.H)])
        resid = cc[f"blocks.{layer}.hook_resid_pre"]

        def put(pos):
            def f(x):
                x[0, pos] = resid[0, pos]
                return x
            return f
        grids["resid_patch"].append([loss(ref.forward(CORRUPT, {f"blocks.{layer}.hook_resid_pre": put(pos)}))
                                     for pos in range(len(TOKENS))])
    check(abs(got["clean"] - loss(cc)) <= TOL and abs(got["corrupt"] - loss(cx)) <= TOL,
          f"patch baselines {got['clean']}, {got['corrupt']} vs {loss(cc)}, {loss(cx)}")
    for key, grid in grids.items():
        shape_ok = [len(r) for r in got[key]] == [len(r) for r in grid]
        err = max(abs(a - b) for ra, rb in zip(got[key], grid) for a, b in zip(ra, rb))
        check(shape_ok and err <= TOL, f"patch {key}: max |attn - PyTorch| = {err:.3g} (shape ok: {shape_ok})")
    print(f"ok: patch on stories260K: baselines {loss(cc):.4f} / {loss(cx):.4f} and 4 grids within {TOL} of PyTorch")


def check_width():
    ids = ",".join(map(str, TOKENS))
    for args in (["explain", MODEL, "--tokens", ids, "--layer", "2", "--head", "5", "--query", "7", "--writes", "--target", "300"],
                 ["circuits", MODEL, "--layer", "2", "--head", "5"],
                 ["patch", MODEL, "--clean-tokens", ids, "--corrupt-tokens", ",".join(map(str, CORRUPT)), "--metric", "loss:2"]):
        r = attn(*args, "--width", "80", "--color", "never")
        wide = [line for line in r.stdout.splitlines() if len(line) > 80]
        check(r.returncode == 0 and r.stdout and not wide, f"{args[0]} at 80 columns: exit {r.returncode}, wide lines {wide[:2]}")
    print("ok: explain, circuits and patch on stories260K fit 80 columns")


def main():
    cfg, w = L.read_gguf_llama(MODEL)
    check(cfg.n_kv_heads < cfg.n_heads, "stories260K is grouped-query")
    ref = Reference(cfg, w)
    cache = ref.forward(TOKENS)
    check_explain(ref, cache)
    check_dla_and_writes(ref, cache)
    check_circuits(ref)
    check_patch(ref)
    check_width()
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
