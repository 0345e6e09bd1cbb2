#!/usr/bin/python3
"""tests/python/test_model_explain.py — `attn model explain` and `attn model patch` against
an independent PyTorch reference written here: a GPT-2-style module whose forward takes
hooks (a function per TransformerLens hook name that may replace the activation), run on
random tiny float64 models in Hugging Face layout (written with gpt_reference's file
helpers only). Checked to 1e-9 (float64 files):
  - explain --json: every (query-side, key-side) term of a score, the score itself, for
    several layers, heads, queries and keys; the terms sum to the score; --versus's terms
    of a difference of two scores;
  - --target: each component's direct logit attribution through ln_final with its scale
    frozen; --writes: each key's weight and the tokens its write promotes and demotes;
  - patch --json: clean/corrupted baselines, hook_z patching of each head, hook_resid_pre
    patching at each layer and position, zero and mean ablation, for the three metrics.
Then the lesson-21 induction model, from attn's own numbers: for every query of the
repeated half, the layer-1 head's top key is the token after the earlier copy, and the
largest key-side component of its lift (top score − the other keys' mean score) is the
previous-token head's output; the patching and ablation facts; and the failure paths
(exit 2, a message naming what is wrong)."""
import json
import math
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
TOL = 1e-9
# sanitizer build: three of the ten induction queries (each is ~16 processes of the same code path)
SLOW = os.environ.get("ATTN_SLOW_BUILD", "0") == "1"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attn(*args):
    return subprocess.run([ATTN, "model", *args], capture_output=True, text=True, timeout=60)


def attn_json(*args):
    r = attn(*args, "--json", "-")
    if r.returncode != 0:
        failures.append(f"{args}: exit {r.returncode}: {r.stderr}")
        return None
    return json.loads(r.stdout)


# ---- the reference: a GPT-2 block stack with hooks ------------------------------------

class Reference(torch.nn.Module):
    """Parameters as gpt_reference.random_params lays them out (linear weights [in, out])."""

    def __init__(self, cfg, p):
        super().__init__()
        self.cfg, self.p = cfg, p
        self.H, self.d = cfg["n_head"], cfg["n_embd"]
        self.dh = self.d // self.H

    def ln(self, x, w, b):
        """Returns (output, rstd): rstd = 1/sqrt(var + eps), biased variance."""
        mean = x.mean(-1, keepdim=True)
        rstd = 1.0 / ((x - mean).pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()
        return (x - mean) * rstd * w + b, rstd

    def forward(self, tokens, hooks=None):
        hooks, cache = hooks or {}, {}

        def hook(name, x):
            if name in hooks:
                x = hooks[name](x.clone())
            cache[name] = x
            return x

        p, H, d, dh = self.p, self.H, self.d, self.dh
        t = torch.tensor(tokens)
        P = len(tokens)
        x = p["wte"][t] + p["wpe"][:P]
        causal = torch.tril(torch.ones(P, P, dtype=torch.bool))
        for L, b in enumerate(p["blocks"]):
            x = hook(f"blocks.{L}.hook_resid_pre", x)
            a, cache[f"blocks.{L}.ln1.rstd"] = self.ln(x, b["ln1_w"], b["ln1_b"])
            qkv = a @ b["w_qkv"] + b["b_qkv"]
            q, k, v = (qkv[:, i * d:(i + 1) * d].reshape(P, H, dh) for i in range(3))
            cache[f"blocks.{L}.attn.hook_v"] = v
            scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(dh)
            cache[f"blocks.{L}.attn.hook_attn_scores"] = scores
            pattern = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
            cache[f"blocks.{L}.attn.hook_pattern"] = pattern
            z = hook(f"blocks.{L}.attn.hook_z", torch.einsum("hqk,khd->qhd", pattern, v))
            x = x + z.reshape(P, d) @ b["w_out"] + b["b_out"]
            if "w_fc" in b:
                m, _ = self.ln(x, b["ln2_w"], b["ln2_b"])
                out = files.gelu_tanh(m @ b["w_fc"] + b["b_fc"]) @ b["w_proj"] + b["b_proj"]
                cache[f"blocks.{L}.hook_mlp_out"] = out
                x = x + out
        cache["resid_final"] = x
        f, cache["ln_final.rstd"] = self.ln(x, p["lnf_w"], p["lnf_b"])
        cache["logits"] = f @ p.get("lm_head", p["wte"]).T
        return cache

    def unembed(self):
        return self.p.get("lm_head", self.p["wte"])  # [V, d]

    def components(self, cache, tokens, layer, pos):
        """decompose_resid + stack_head_results of the stream entering `layer` at pos."""
        p, H, dh = self.p, self.H, self.dh
        out = [("embed", p["wte"][tokens[pos]]), ("pos_embed", p["wpe"][pos])]
        bias = torch.zeros(self.d, dtype=torch.float64)
        for L in range(layer):
            b = p["blocks"][L]
            z = cache[f"blocks.{L}.attn.hook_z"][pos]
            for h in range(H):
                out.append((f"blocks.{L}.attn.head.{h}", z[h] @ b["w_out"][h * dh:(h + 1) * dh]))
            if "w_fc" in b:
                out.append((f"blocks.{L}.mlp", cache[f"blocks.{L}.hook_mlp_out"][pos]))
            bias = bias + b["b_out"]
        out.append(("bias", bias))
        return out

    def side(self, comps, rstd, b, col):
        """Each component through ln1 (scale frozen) and one head's q or k columns."""
        rows = []
        for i, (_, c) in enumerate(comps):
            y = (c - c.mean()) * rstd * b["ln1_w"]
            r = y @ b["w_qkv"][:, col:col + self.dh]
            if i == len(comps) - 1:
                r = r + b["ln1_b"] @ b["w_qkv"][:, col:col + self.dh] + b["b_qkv"][col:col + self.dh]
            rows.append(r)
        return torch.stack(rows)

    def score_terms(self, cache, tokens, L, h, q, k):
        b = self.p["blocks"][L]
        rstd = cache[f"blocks.{L}.ln1.rstd"]
        qc, kc = self.components(cache, tokens, L, q), self.components(cache, tokens, L, k)
        Q = self.side(qc, rstd[q, 0], b, h * self.dh)
        K = self.side(kc, rstd[k, 0], b, self.d + h * self.dh)
        return [n for n, _ in qc], Q @ K.T / math.sqrt(self.dh)

    def dla(self, cache, tokens, pos, target):
        rstd = cache["ln_final.rstd"][pos, 0]
        out = []
        for name, c in self.components(cache, tokens, len(self.p["blocks"]), pos):
            y = (c - c.mean()) * rstd * self.p["lnf_w"] + (self.p["lnf_b"] if name == "bias" else 0)
            out.append((name, float(y @ self.unembed()[target])))
        return out


# ---- explain ------------------------------------------------------------------------

def check_explain(path, ref, tokens, what):
    cache = ref.forward(tokens)
    ids = ",".join(map(str, tokens))
    cfg = ref.cfg
    for L in range(cfg["n_layer"]):
        for h in range(cfg["n_head"]):
            for q, k in [(len(tokens) - 1, 0), (len(tokens) - 1, 3), (4, 4), (5, 2)]:
                got = attn_json("explain", path, "--tokens", ids, "--layer", str(L), "--head", str(h), "--query", str(q),
                                "--key", str(k))
                if got is None:
                    continue
                names, terms = ref.score_terms(cache, tokens, L, h, q, k)
                want = {(a, b): float(terms[i, j]) for i, a in enumerate(names) for j, b in enumerate(names)}
                have = {(t["query_side"], t["key_side"]): t["value"] for t in got["terms"]}
                check(set(have) == set(want), f"{what} L{L}H{h} q{q} k{k}: components {sorted(set(have) ^ set(want))}")
                err = max((abs(have[x] - want[x]) for x in want if x in have), default=0.0)
                check(err <= TOL, f"{what} L{L}H{h} q{q} k{k}: max |term - PyTorch| = {err:.3g}")
                score = float(cache[f"blocks.{L}.attn.hook_attn_scores"][h, q, k])
                check(abs(got["model_score"] - score) <= TOL, f"{what}: the model's score {got['model_score']} vs {score}")
                check(abs(got["score"] - score) <= 1e-10, f"{what} L{L}H{h} q{q} k{k}: Σ terms {got['score']} vs {score}")
                check(abs(sum(have.values()) - score) <= 1e-10, f"{what}: the JSON terms do not sum to the score")
                if k == 0 or q == 0:
                    continue
                got = attn_json("explain", path, "--tokens", ids, "--layer", str(L), "--head", str(h), "--query", str(q),
                                "--key", str(k), "--versus", "0")
                _, other = ref.score_terms(cache, tokens, L, h, q, 0)
                diff = {(a, b): float(terms[i, j] - other[i, j]) for i, a in enumerate(names) for j, b in enumerate(names)}
                have = {(t["query_side"], t["key_side"]): t["value"] for t in got["versus"]["terms"]} if got else {}
                err = max((abs(have.get(x, 1e9) - diff[x]) for x in diff), default=0.0)
                check(err <= TOL, f"{what} L{L}H{h} q{q} k{k} --versus 0: max |term - PyTorch| = {err:.3g}")


def check_dla_and_writes(path, ref, tokens, what):
    cache = ref.forward(tokens)
    ids, q, L, h = ",".join(map(str, tokens)), len(tokens) - 2, ref.cfg["n_layer"] - 1, 1
    for target in (0, 5):
        got = attn_json("explain", path, "--tokens", ids, "--layer", str(L), "--head", str(h), "--query", str(q),
                        "--target", str(target), "--writes")
        if got is None:
            return
        want = ref.dla(cache, tokens, q, target)
        have = {c["name"]: c["value"] for c in got["dla"]["components"]}
        check([n for n, _ in want] == [c["name"] for c in got["dla"]["components"]], f"{what}: DLA components")
        err = max(abs(have.get(n, 1e9) - v) for n, v in want)
        check(err <= TOL, f"{what} target {target}: max |DLA - PyTorch| = {err:.3g}")
        logit = float(cache["logits"][q, target])
        check(abs(sum(v for _, v in want) - logit) <= 1e-10, f"{what}: the reference's DLA does not sum to the logit")
        check(abs(got["dla"]["logit"] - logit) <= TOL, f"{what}: logit {got['dla']['logit']} vs {logit}")
    # --writes: per key, weight · v_k · W_O through ln_final frozen and W_U
    b, dh = ref.p["blocks"][L], ref.dh
    pattern, v = cache[f"blocks.{L}.attn.hook_pattern"][h, q], cache[f"blocks.{L}.attn.hook_v"]
    rstd = cache["ln_final.rstd"][q, 0]
    for entry in got["writes"]["keys"]:
        k = entry["key"]
        write = pattern[k] * v[k, h] @ b["w_out"][h * dh:(h + 1) * dh]
        logits = ((write - write.mean()) * rstd * ref.p["lnf_w"]) @ ref.unembed().T
        check(abs(entry["weight"] - float(pattern[k])) <= TOL, f"{what}: writes key {k} weight")
        top = torch.argsort(logits, descending=True, stable=True)[:5].tolist()
        check([t["token"] for t in entry["promotes"]] == top, f"{what}: key {k} promotes {entry['promotes']} vs {top}")
        err = max(abs(t["value"] - float(logits[t["token"]])) for t in entry["promotes"] + entry["demotes"])
        check(err <= TOL, f"{what}: key {k} write's DLA off by {err:.3g}")


# ---- patch --------------------------------------------------------------------------

def metric(ref, cache, kind, clean):
    logits = cache["logits"]
    if kind[0] == "logit-diff":
        return float(logits[-1, kind[1]] - logits[-1, kind[2]])
    if kind[0] == "prob":
        return float(torch.softmax(logits[-1], -1)[kind[1]])
    frm = kind[1]
    lp = torch.log_softmax(logits, -1)
    return float(-sum(lp[i, clean[i + 1]] for i in range(frm, len(clean) - 1)) / (len(clean) - 1 - frm))


def set_head(h, dh, source):
    def f(z):
        z[:, h] = source[:, h] if source.dim() == 3 else source
        return z
    return f


def check_patch(path, ref, clean, corrupt, kind, flag, what):
    got = attn_json("patch", path, "--clean-tokens", ",".join(map(str, clean)), "--corrupt-tokens",
                    ",".join(map(str, corrupt)), "--metric", flag)
    if got is None:
        return
    cc, cx = ref.forward(clean), ref.forward(corrupt)
    want = {"clean": metric(ref, cc, kind, clean), "corrupt": metric(ref, cx, kind, clean)}
    grids = {"head_patch": [], "resid_patch": [], "zero_ablation": [], "mean_ablation": []}
    for L in range(ref.cfg["n_layer"]):
        z = cc[f"blocks.{L}.attn.hook_z"]
        hz = f"blocks.{L}.attn.hook_z"
        grids["head_patch"].append([metric(ref, ref.forward(corrupt, {hz: set_head(h, ref.dh, z)}), kind, clean)
                                    for h in range(ref.H)])
        grids["zero_ablation"].append([metric(ref, ref.forward(clean, {hz: set_head(h, ref.dh, torch.zeros_like(z[:, h]))}),
                                              kind, clean) for h in range(ref.H)])
        grids["mean_ablation"].append([metric(ref, ref.forward(clean, {hz: set_head(h, ref.dh, z[:, h].mean(0))}), kind, clean)
                                       for h in range(ref.H)])
        resid = cc[f"blocks.{L}.hook_resid_pre"]

        def put(pos):
            def f(x):
                x[pos] = resid[pos]
                return x
            return f
        grids["resid_patch"].append([metric(ref, ref.forward(corrupt, {f"blocks.{L}.hook_resid_pre": put(pos)}), kind, clean)
                                     for pos in range(len(clean))])
    for key in ("clean", "corrupt"):
        check(abs(got[key] - want[key]) <= TOL, f"{what} {flag}: {key} {got[key]} vs PyTorch {want[key]}")
    for key, grid in grids.items():
        err = max(abs(a - b) for ra, rb in zip(got[key], grid) for a, b in zip(ra, rb))
        shape_ok = [len(r) for r in got[key]] == [len(r) for r in grid]
        check(shape_ok and err <= TOL, f"{what} {flag}: {key} max |attn - PyTorch| = {err:.3g} (shape ok: {shape_ok})")


# ---- the induction model (lesson 21), from attn's own numbers ------------------------

def check_induction():
    path = os.path.join(SOURCE, "lessons", "models", "induction.safetensors")
    block = [5, 17, 33, 9, 41, 22, 8, 60, 3, 14]
    other = [50, 27, 13, 39, 11, 2, 48, 6, 31, 44]
    clean = [0] + block + block
    ids = ",".join(map(str, clean))

    def columns(q, k):
        got = attn_json("explain", path, "--tokens", ids, "--layer", "1", "--head", "0", "--query", str(q), "--key", str(k))
        out = {}
        for t in got["terms"] if got else []:
            out[t["key_side"]] = out.get(t["key_side"], 0.0) + t["value"]
        return out, got
    # Each query of the repeated half: its top key is the token after its earlier copy, and
    # what lifts that key's score above the other keys' (BOS, the attention sink, aside) is
    # mostly the previous-token head's output at the key: the largest key-side column of
    # (top score − mean score of the other keys).
    for q in (11, 15, 20) if SLOW else range(11, 21):
        top = attn_json("explain", path, "--tokens", ids, "--layer", "1", "--head", "0", "--query", str(q))
        if top is None:
            return
        check(top["key"] == q - 9, f"induction: query {q}'s top key is {top['key']}, not the token after its earlier copy")
        mine, _ = columns(q, top["key"])
        others = [columns(q, k)[0] for k in range(1, q + 1) if k != top["key"]]
        lift = {n: mine[n] - sum(o[n] for o in others) / len(others) for n in mine}
        best = max(lift, key=lambda n: lift[n])
        check(best == "blocks.0.attn.head.0", f"induction: query {q}: the largest key-side lift is {best} ({lift})")
    got = attn_json("patch", path, "--clean-tokens", ",".join(map(str, clean)), "--corrupt-tokens",
                    ",".join(map(str, [0] + other + block)), "--metric", "loss:10")
    if got is None:
        return
    print(f"induction, loss of the repeated half: clean {got['clean']:.4f}, corrupted {got['corrupt']:.4f}, "
          f"head patches {got['head_patch']}, zero ablation {got['zero_ablation']}")
    check(got["corrupt"] - got["clean"] > 2.0, "induction: corrupting the first half should raise the repeated half's loss")
    effects = {(L, 0): got["head_patch"][L][0] - got["corrupt"] for L in range(2)}
    # the induction head's output patched in restores most of the clean loss; the previous-token
    # head's alone moves it too (it makes the induction head copy the corrupted token)
    check(effects[(1, 0)] < -0.8 * (got["corrupt"] - got["clean"]), f"induction: layer 1 head patch {effects}")
    check(abs(effects[(0, 0)]) > 1.0, f"induction: the previous-token head's patch moves the loss by {effects[(0, 0)]}")
    for L in range(2):
        check(got["zero_ablation"][L][0] - got["clean"] > 2.0, f"induction: zero-ablating layer {L}'s head costs too little")


# ---- failure paths ------------------------------------------------------------------

def check_errors(path):
    ids = "1,2,3,4,5,6"
    cases = [
        (["explain", path, "--tokens", ids, "--layer", "9", "--head", "0", "--query", "1"], "--layer 9 does not exist"),
        (["explain", path, "--tokens", ids, "--layer", "0", "--head", "5", "--query", "1"], "--head 5 does not exist"),
        (["explain", path, "--tokens", ids, "--layer", "0", "--head", "0", "--query", "6"], "--query 6 does not exist"),
        (["explain", path, "--tokens", ids, "--layer", "0", "--head", "0", "--query", "2", "--key", "3"], "masks it"),
        (["explain", path, "--tokens", ids, "--layer", "0", "--head", "0", "--query", "2", "--target", "zz"], "no such token"),
        (["explain", path, "--tokens", "1,99", "--layer", "0", "--head", "0", "--query", "1"], "not in the vocabulary"),
        (["patch", path, "--clean-tokens", ids, "--corrupt-tokens", "1,2,3", "--metric", "loss"], "one token length"),
        (["patch", path, "--clean-tokens", ids, "--corrupt-tokens", ids, "--metric", "prob:99"], "not in the vocabulary"),
        (["patch", path, "--clean-tokens", ids, "--corrupt-tokens", ids, "--metric", "bogus"], "expected logit-diff"),
    ]
    for args, words in cases:
        r = attn(*args)
        check(r.returncode == 2 and words in r.stderr and not r.stdout, f"{args[:1]} {args[-2:]}: exit {r.returncode}, {r.stderr!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, mlp, tied in [("mlp-tied", True, True), ("attention-only-untied", False, False)]:
            cfg = {"n_layer": 2, "n_head": 2, "n_embd": 8, "vocab_size": 13, "n_positions": 10, "has_mlp": mlp, "tied": tied}
            p = files.random_params(cfg, seed=3 if mlp else 4)
            path = files.save_model(os.path.join(tmp, name), cfg, p, "hf", dtype=torch.float64)
            ref = Reference(cfg, p)
            tokens = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
            check_explain(path, ref, tokens, name)
            check_dla_and_writes(path, ref, tokens, name)
            corrupt = [3, 7, 4, 8, 5, 9, 2, 6, 0, 3]
            for kind, flag in [(("logit-diff", 5, 2), "logit-diff:5,2"), (("loss", 0), "loss"), (("loss", 4), "loss:4"),
                               (("prob", 5), "prob:5")]:
                check_patch(path, ref, tokens, corrupt, kind, flag, name)
        check_errors(path)
    check_induction()
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
