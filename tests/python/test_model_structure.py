#!/usr/bin/env python3
"""tests/python/test_model_structure.py — the model floor's structure rules (issue 32).

- Architecture as data: no GPT-only config type anywhere in src/ (`gpt_config`,
  `gpt_params`), and in src/model the one type that carries a model's sizes
  (`n_head`, `n_embd`) is `architecture` (model/architecture.hpp); the parameters hold
  an `architecture`. GPT-2's fixed shapes (`4 * n_embd`, `3 * d`) live nowhere else.
- One name-mapping file per checkpoint family: GPT-2's tensor names (c_attn, c_fc,
  c_proj) appear as string literals only in src/model/names_gpt2.cpp, Llama's
  (q_proj … down_proj) only in src/model/names_llama*.cpp.
- One forward: exactly one whole-model forward (a `*_forward` taking `model_params`)
  is declared in src/model (train_forward, the backward beside it). The traced stages
  (`trace_stages`, src/model/traced_forward.cpp) are a view that copies train_forward's
  stages: that file computes nothing (no product, exponential, root or kernel call).
"""
import os
import re
import sys

src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
model_dir = os.path.join(src, "src", "model")
failures = []

def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def sources(folder):
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            if f.endswith((".cpp", ".hpp")):
                yield os.path.join(root, f)


def code_of(text):
    """The text with comments blanked (string literals kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def literals(code):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', code)


texts = {}
for path in sources(os.path.join(src, "src")):
    with open(path, encoding="utf-8") as f:
        texts[os.path.relpath(path, src)] = code_of(f.read())

# 1. No GPT-only config type.
for rel, code in texts.items():
    for word in ("gpt_config", "gpt_params"):
        check(not re.search(r"\b%s\b" % word, code), f"{rel}: uses the GPT-only type {word}")

size_types = []
for rel, code in texts.items():
    if not rel.startswith(os.path.join("src", "model")):
        continue
    for m in re.finditer(r"\bstruct\s+(\w+)\s*(?::[^{]*)?\{", code):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        body = code[m.end():j]
        if re.search(r"\bstd::size_t\s+n_head\b", body) and re.search(r"\bn_embd\b", body):
            size_types.append((rel, m.group(1)))
check(size_types == [(os.path.join("src", "model", "architecture.hpp"), "architecture")],
      f"the types in src/model that carry a model's sizes: {size_types} (want only architecture)")
params = texts.get(os.path.join("src", "model", "params.hpp"), "")
check(re.search(r"struct model_params\s*\{[^}]*\barchitecture config;", params) is not None,
      "model_params does not hold an architecture")
for rel, code in texts.items():
    if rel.endswith("architecture.hpp") or not rel.startswith(os.path.join("src", "model")):
        continue
    check(not re.search(r"4\s*\*\s*(c\.|config\.)?n_embd\b", code), f"{rel}: GPT-2's MLP width 4·n_embd outside the architecture")

# 2. One name-mapping file per checkpoint family.
families = {
    "names_gpt2": ("c_attn", "c_fc", "c_proj"),
    "names_llama": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "input_layernorm"),
}
for rel, code in texts.items():
    base = os.path.basename(rel)
    for family, words in families.items():
        if base.startswith(family):
            continue
        for lit in literals(code):
            for w in words:
                check(w not in lit, f"{rel}: the checkpoint name '{w}' outside src/model/{family}.cpp (in \"{lit[:60]}\")")
check(os.path.exists(os.path.join(model_dir, "names_gpt2.cpp")), "src/model/names_gpt2.cpp is missing")

# 3. One forward.
forwards = set()
for rel, code in texts.items():
    if rel.startswith(os.path.join("src", "model")) and rel.endswith(".hpp"):
        for m in re.finditer(r"\b(\w+_forward)\s*\(\s*const\s+model_params\s*<", code):
            forwards.add(m.group(1))
check(forwards == {"train_forward"}, f"whole-model forwards in src/model: {sorted(forwards)} (train_forward alone expected)")
view = texts.get(os.path.join("src", "model", "traced_forward.cpp"), "")
check(view != "", "src/model/traced_forward.cpp (the traced stages' view) is missing")
for word in ("matmul", "exp(", "sqrt(", "tanh(", "layer_norm", "linear_forward", "attention_forward", "softmax", "gelu", "rotary_forward"):
    check(word not in view, f"src/model/traced_forward.cpp computes ('{word}'): it should only copy train_forward's stages")
check(not os.path.exists(os.path.join(model_dir, "layers.cpp")), "src/model/layers.cpp (the second forward's layers) is back")

print("model structure:", "ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
