#!/usr/bin/python3
"""tests/python/test_trace_repeated_tokens.py — a token that occurs twice is labelled
apart wherever the tracer labels rows and columns by token: each occurrence gets its
position from 0 as a subscript ("the₀ … the₄"), tokens that occur once keep their plain
label. Checked on `attn trace` (stage tables, heatmap, per-token walk-through, HTML) of
a causal spec with "the" twice and a cross spec with a key repeated, and on `attn model
run --query` of the built-in induction model on ids given twice. The weights printed
under the new labels are recomputed here with NumPy (softmax of Q Kᵀ / √d, causal), so a
label moved onto the wrong cell fails. --query takes the label ("the₄") and refuses the
bare repeated token with both labels; --json keeps the tokens as given (data)."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []
SUB = "₀₁₂₃₄₅₆₇₈₉"


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    return subprocess.run([ATTN, *args, "--color", "never", "--width", "120"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, env=dict(os.environ, NO_COLOR="1"))


def matrix_text(m):
    return "[" + ", ".join("[" + ", ".join(repr(float(x)) for x in row) + "]" for row in m) + "]"


def weights(q, k, causal):
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def table_rows(out, title_word):
    """The first table whose title holds title_word: {row label: [cells]} and its header."""
    lines = out.splitlines()
    start = next(i for i, x in enumerate(lines) if title_word in x and "[" in x)
    at = next(i for i in range(start, len(lines)) if lines[i].split()[:3] == ["Q", "\\", "K"])
    header = lines[at].split()[3:]
    rows = {}
    for x in lines[at + 1:]:
        if not x.strip():
            break
        parts = x.split()
        rows[parts[0]] = parts[1:]
    return header, rows


def causal_spec(tmp):
    rng = np.random.default_rng(7)
    q, k, v = (np.round(rng.normal(size=(5, 4)), 2) for _ in range(3))
    path = os.path.join(tmp, "the-twice.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write('kind = "causal"\ntokens = ["the", "cat", "sat", "on", "the"]\n')
        f.write("Q = %s\nK = %s\nV = %s\n" % (matrix_text(q), matrix_text(k), matrix_text(v)))
    w = weights(q, k, True)
    labels = ["the₀", "cat", "sat", "on", "the₄"]

    p = run("trace", path, "--stage", "weights", "--heatmap", "weights")
    check(p.returncode == 0, f"trace: exit {p.returncode} {p.stderr}")
    header, rows = table_rows(p.stdout, "weights")
    check(header == labels, f"weights table header {header}")
    check(list(rows) == labels, f"weights table rows {list(rows)}")
    for i, name in enumerate(labels):
        cells = rows.get(name, [])
        got = [float(c) if c != "-inf" else 0.0 for c in cells]
        check(len(got) == 5 and np.allclose(got, w[i], atol=6e-5), f"row {name}: {cells} vs {np.round(w[i], 4)}")
    heat = p.stdout[p.stdout.index("Heatmap"):]
    check(re.search(r"^ +the₀ +cat +sat +on +the₄$", heat, re.M) is not None, "heatmap header not told apart")
    check(re.search(r"^  the₄ ", heat, re.M) is not None, "heatmap row the₄ missing")
    check(not re.search(r"\bthe\b(?![₀-₉])", p.stdout.replace("Heatmap of the ", "")), "a bare 'the' label is left")

    p = run("trace", path, "--query", "the₄")
    check(p.returncode == 0 and "trace: 'the₄' (row 4 of Q)" in p.stdout, f"--query the₄: {p.stdout[:120]!r} {p.stderr!r}")
    for j, key in enumerate(labels):
        m = re.search(r"A\[the₄,%s *\] = [0-9.]+ ÷ [0-9.]+ = ([0-9.]+)" % re.escape(key), p.stdout)
        check(m is not None and abs(float(m.group(1)) - w[4, j]) < 6e-5, f"A[the₄,{key}] vs {w[4, j]:.4f}")
    check("A[the₄,the₀]" in p.stdout and "A[the,the]" not in p.stdout, "walk-through labels")
    p = run("trace", path, "--query", "cat")
    check(p.returncode == 0 and "A[cat,the₀]" in p.stdout and "S[cat,cat ]" in p.stdout, "--query cat: labels")
    p = run("trace", path, "--query", "the")
    check(p.returncode == 2 and "the₀, the₄" in p.stderr and not p.stdout, f"--query the: {p.returncode} {p.stderr!r}")
    p = run("trace", path, "--query", "4")
    check(p.returncode == 0 and "trace: 'the₄' (row 4 of Q)" in p.stdout, "--query 4")

    p = run("trace", path, "--json", "-")
    doc = json.loads(p.stdout)
    check(doc["tokens"]["query"] == ["the", "cat", "sat", "on", "the"], f"--json tokens {doc['tokens']}")
    html = os.path.join(tmp, "r.html")
    p = run("trace", path, "--html", html)
    with open(html, encoding="utf-8") as f:
        page = f.read()
    check(p.returncode == 0 and ("Trace of query &#39;the₄&#39;" in page or "Trace of query 'the₄'" in page),
          "HTML: the₄ not in the per-token traces")


def cross_spec(tmp):
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 3))
    path = os.path.join(tmp, "cross.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write('kind = "cross"\nquery_tokens = ["le", "chat"]\nkey_tokens = ["the", "cat", "the", "mat"]\n')
        f.write("Q = %s\nK = %s\nV = %s\n" % (matrix_text(q), matrix_text(k), matrix_text(v)))
    p = run("trace", path, "--stage", "weights")
    header, rows = table_rows(p.stdout, "weights")
    check(header == ["the₀", "cat", "the₂", "mat"] and list(rows) == ["le", "chat"], f"cross: {header} {list(rows)}")
    w = weights(q, k, False)
    check(np.allclose([float(c) for c in rows.get("chat", [])], w[1], atol=6e-5), "cross: row chat")


def model_run():
    p = run("model", "run", "induction", "--tokens", "0,5,0,5", "--layer", "1", "--head", "0", "--query", "#0₂")
    check(p.returncode == 0, f"model run --query #0₂: {p.returncode} {p.stderr!r}")
    for pair in ("A[#0₂,#0₀]", "A[#0₂,#5₁]", "A[#0₂,#0₂]", "A[#0₂,#5₃]"):
        check(pair in p.stdout, f"model run: {pair} missing")
    check("A[#0,#0]" not in p.stdout, "model run: A[#0,#0] still printed")


def main():
    tmp = tempfile.mkdtemp(prefix="attn-repeated-")
    try:
        causal_spec(tmp)
        cross_spec(tmp)
        model_run()
    finally:
        shutil.rmtree(tmp)
    if failures:
        raise SystemExit(f"{len(failures)} failures")
    print("all passed")


if __name__ == "__main__":
    main()
