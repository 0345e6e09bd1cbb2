#!/usr/bin/python3
"""tests/python/test_model_patch_token_ids.py — `attn model patch … --metric logit-diff:A,B`
(and explain --target) on a GGUF with a SentencePiece vocabulary (stories260K): a token
is named by its id (#300 as attn labels a token, or 300) or by its text, and a text that
several tokens read (a byte-fallback token and a piece both read 'a') or digits that are
both an id and another token's text are refused with every candidate id named.

The expected ids come from the file's own tokenizer.ggml.tokens read here
(llama_reference.read_gguf_f32), each piece's readable label made by hand (▁ → ␣, a byte
token <0xHH> → its character); the metric's clean value is checked against an
independent float64 PyTorch forward (llama_reference.forward): logit[A] − logit[B] at the
last position."""
import json
import os
import subprocess
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import llama_reference as ref  # noqa: E402

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", ".")
MODEL = os.path.join(SOURCE, "lessons", "models", "stories260K.gguf")
CLEAN, CORRUPT = [1, 300, 301, 302, 303], [1, 310, 311, 312, 303]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def label(piece):
    if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        c = chr(int(piece[3:5], 16))
        return c if c.isprintable() and c != " " else None
    return piece.replace("▁", "␣")


def patch(metric):
    return subprocess.run([ATTN, "model", "patch", MODEL, "--clean-tokens", ",".join(map(str, CLEAN)), "--corrupt-tokens",
                           ",".join(map(str, CORRUPT)), "--metric", metric, "--json", "-"], capture_output=True, text=True,
                          timeout=60)


def main():
    meta, _ = ref.read_gguf_f32(MODEL)
    cfg, weights = ref.read_gguf_llama(MODEL)
    pieces = meta["tokenizer.ggml.tokens"]
    by_label = {}
    for i, p in enumerate(pieces):
        if label(p) is not None:
            by_label.setdefault(label(p), []).append(i)
    with torch.no_grad():
        logits = ref.forward(weights, cfg, [CLEAN])["logits"][0, -1].double()
    unique = next(w for w in ("␣the", "␣cat", "␣was") if len(by_label.get(w, [])) == 1)
    ambiguous = next(w for w in ("a", "e", "A", "t") if len(by_label.get(w, [])) > 1)
    digit = next((w for w, ids in by_label.items() if w.isdigit() and ids != [int(w)] and int(w) < len(pieces)), None)
    cases = [("#300", 300), ("300" if "300" not in by_label else "#300", 300), (unique, by_label[unique][0]),
             (f"#{by_label[ambiguous][1]}", by_label[ambiguous][1])]
    for word, want in cases:
        r = patch(f"logit-diff:{word},#5")
        check(r.returncode == 0, f"--metric logit-diff:{word},#5: exit {r.returncode}: {r.stderr}")
        if r.returncode:
            continue
        j = json.loads(r.stdout)
        check(j["metric"] == {"kind": "logit-diff", "a": want, "b": 5}, f"logit-diff:{word}: metric {j['metric']}, want a = {want}")
        ref_value = float(logits[want] - logits[5])
        check(abs(j["clean"] - ref_value) <= 1e-4 * max(1.0, abs(ref_value)),
              f"logit-diff:{word}: clean {j['clean']}, PyTorch {ref_value}")
    refusals = [(ambiguous, by_label[ambiguous], "ambiguous")]
    if digit:
        refusals.append((digit, [int(digit)] + by_label[digit], "ambiguous"))
    refusals += [("#99999", [], "not in the vocabulary"), ("▁nosuchpiece", [], "no such token")]
    for word, ids, words in refusals:
        r = patch(f"logit-diff:{word},#5")
        check(r.returncode == 2 and r.stdout == "", f"logit-diff:{word}: exit {r.returncode}, stdout {r.stdout[:80]!r}")
        check(words in r.stderr and all(f"#{i}" in r.stderr or (i == ids[0] and digit == word and f"id {i}" in r.stderr)
                                        for i in ids), f"logit-diff:{word}: message {r.stderr!r} should name {ids}")
    # explain --target spells tokens the same way
    r = subprocess.run([ATTN, "model", "explain", MODEL, "--tokens", ",".join(map(str, CLEAN)), "--layer", "0", "--head", "0",
                        "--query", "4", "--target", ambiguous], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "ambiguous" in r.stderr, f"explain --target {ambiguous}: exit {r.returncode}: {r.stderr}")
    print(f"ok: ids (#300, 300), the unique text {unique!r}, ambiguous {ambiguous!r} ({by_label[ambiguous]})"
          f"{', digits ' + repr(digit) if digit else ''} refused")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
