#!/usr/bin/python3
"""tests/python/test_trace_tiled_partial.py — the tiled trace's running partial
output (stage `tiled_partial_output`, the accumulator o after each key block, not
yet divided by l) in every export of `attn trace` against NumPy: JSON, .npy, CSV,
the HTML report and the text trace. The NumPy online softmax below is written
here, block by block, from the recurrence of lesson 16 (Milakov & Gimelshein 2018):
  m_new = max(m, max_j s_j);  c = exp(m − m_new);  o = o·c + Σ_j exp(s_j − m_new) v_j
Causal, 7 tokens, 2 heads, blocks of 3 keys (the last block holds one key), so the
first queries see nothing in later blocks (o stays as it was there) and o after the
last block divided by l is hook_z."""
import atexit
import csv
import json
import os
import shutil
import subprocess
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
TOL = 1e-12
failures = []
tmp = tempfile.mkdtemp(prefix="attn-tiled-partial-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b, what):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = a.shape == b.shape and np.allclose(a, b, rtol=0, atol=TOL)
    check(ok, "%s: shapes %s vs %s" % (what, a.shape, b.shape))


def partial_outputs(q, k, v, tile, mask):
    """[blocks, n_q, d_v]: o after each block of `tile` keys, and the final l."""
    s = q @ k.T / np.sqrt(q.shape[1])
    s = np.where(mask, s, -np.inf)
    m = np.full(q.shape[0], -np.inf)
    l = np.zeros(q.shape[0])
    o = np.zeros((q.shape[0], v.shape[1]))
    out = []
    for lo in range(0, k.shape[0], tile):
        blk = s[:, lo:lo + tile]
        m_new = np.maximum(m, blk.max(axis=1))
        c = np.where(np.isinf(m), 1.0, np.exp(m - m_new))  # nothing seen yet: nothing to rescale
        p = np.where(np.isinf(blk), 0.0, np.exp(blk - m_new[:, None]))
        l = l * c + p.sum(axis=1)
        o = o * c[:, None] + p @ v[lo:lo + tile]
        m = m_new
        out.append(o.copy())
    return np.stack(out), l


rng = np.random.default_rng(2026_11_26)
n, H, d, tile = 7, 2, 4, 3
tokens = ["the", "cat", "sat", "on", "a", "warm", "mat"]
Q, K, V = rng.normal(size=(n, H * d)) * 2, rng.normal(size=(n, H * d)) * 2, rng.normal(size=(n, H * d))
for name, a in (("Q", Q), ("K", K), ("V", V)):
    np.save(os.path.join(tmp, name + ".npy"), a)
spec = os.path.join(tmp, "tiled.toml")
with open(spec, "w", encoding="utf-8") as f:
    f.write('kind = "causal"\nheads = 2\ntile = 3\ntokens = %s\nQ = "Q.npy"\nK = "K.npy"\nV = "V.npy"\n'
            % json.dumps(tokens))
causal = np.tril(np.ones((n, n), dtype=bool))
ref = [partial_outputs(Q[:, h * d:(h + 1) * d], K[:, h * d:(h + 1) * d], V[:, h * d:(h + 1) * d], tile, causal)
       for h in range(H)]


def run(*args):
    p = subprocess.run([ATTN, "trace", spec, *args], capture_output=True, text=True)
    check(p.returncode == 0, "attn trace %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


# JSON: axes, shape and every number; the last block's o / l is hook_z.
doc = json.loads(run("--json", "-"))
st = doc["stages"]
check("tiled_partial_output" in st, "JSON has tiled_partial_output")
if "tiled_partial_output" in st:
    po = st["tiled_partial_output"]
    check(po["axes"] == ["batch", "head", "block", "query_pos", "d_head_v"], "axes %s" % po["axes"])
    check(po["shape"] == [1, H, 3, n, d], "shape %s" % po["shape"])
    data = np.array(po["data"], dtype=float).reshape(po["shape"])
    z = np.array(st["hook_z"]["data"], dtype=float).reshape(st["hook_z"]["shape"])  # [batch, query_pos, head, d_head_v]
    for h in range(H):
        close(data[0, h], ref[h][0], "JSON partial output, head %d" % h)
        close(data[0, h, -1] / ref[h][1][:, None], z[0, :, h], "o / l after the last block = hook_z, head %d" % h)
    # the first query sees only key 0 (block 1): o stays the same in blocks 2 and 3
    close(data[0, 0, 1, 0], data[0, 0, 0, 0], "query 'the': o unchanged by a block it cannot see")

# .npy equals the JSON.
npy = os.path.join(tmp, "npy")
run("--npy", npy)
f = os.path.join(npy, "tiled_partial_output.npy")
check(os.path.exists(f), "tiled_partial_output.npy written")
if os.path.exists(f) and "tiled_partial_output" in st:
    a = np.load(f)
    check(a.shape == (1, H, 3, n, d), ".npy shape %s" % (a.shape,))
    close(a, np.array(st["tiled_partial_output"]["data"], dtype=float).reshape(a.shape), ".npy = JSON")

# CSV: one file per head, blocks one under the other, a first column naming the block.
csv_dir = os.path.join(tmp, "csv")
run("--csv", csv_dir)
for h in range(H):
    f = os.path.join(csv_dir, "tiled_partial_output.b0.h%d.csv" % h)
    check(os.path.exists(f), "CSV %s written" % f)
    if not os.path.exists(f):
        continue
    with open(f, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    check(rows[0] == ["block", "query\\dim", "d0", "d1", "d2", "d3"], "CSV header %s" % rows[0])
    body = rows[1:]
    check(len(body) == 3 * n, "CSV rows %d" % len(body))
    check([r[0] for r in body] == ["block%d" % (i // n) for i in range(3 * n)], "CSV block column")
    check([r[1] for r in body] == tokens * 3, "CSV query column")
    close(np.array([[float(x) for x in r[2:]] for r in body]).reshape(3, n, d), ref[h][0], "CSV head %d" % h)

# HTML: a table per block, titled with the block's keys.
html = os.path.join(tmp, "r.html")
run("--html", html)
with open(html, encoding="utf-8") as fh:
    page = fh.read()
for k, keys in enumerate(["the–sat", "on–warm", "mat"]):
    check("partial output o (tiled_partial_output) after block %d of 3 (%s)" % (k + 1, keys) in page,
          "HTML table of block %d" % (k + 1))
check(page.count("after block 1 of 3") == H, "HTML: one block-1 table per head")

# Text: the per-query walk prints o after each block, as NumPy computes it.
text = run("--query", "warm", "--head", "1", "--width", "120")  # heads count from 1
check("Partial output o for 'warm' after each block" in text, "text trace shows the partial output")
for k in range(3):
    row = "  ".join("%.4f" % x for x in ref[0][0][k, 5])
    want = [("%.4f" % x).replace("-0.0000", "0.0000") for x in ref[0][0][k, 5]]
    check(all(w in text for w in want), "text trace block %d: %s" % (k + 1, row))

if failures:
    raise SystemExit("%d failure(s)" % len(failures))
print("ok: tiled_partial_output in JSON, .npy, CSV, HTML and text agrees with NumPy")
