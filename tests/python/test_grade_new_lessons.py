#!/usr/bin/python3
"""tests/python/test_grade_new_lessons.py — the exercises of lessons 15–19 graded
end to end: for a per-student variant, the numbers come from `attn exercise show
--format json`, the expected answers from an independent computation (PyTorch
autograd for the gradients, NumPy for the rest), and `attn grade --format json` must
give a correct answer 100% and name each catalogued mistake when the answer is
computed the mistaken way."""
import atexit
import json
import os
import subprocess
import sys
import shutil
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core_backward_reference as back  # noqa: E402
import core_tiled_reference as ref  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
ROOT = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SECRET = os.path.join(ROOT, "tests", "fixtures", "grade", "course.secret")
STUDENT = ["--student", "alice", "--secret-file", SECRET]
tmp = tempfile.mkdtemp(prefix="attn-grade-new-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # leave nothing behind
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def numbers(ex):
    p = subprocess.run([ATTN, "exercise", "show", ex, "--format", "json", *STUDENT], capture_output=True, text=True)
    check(p.returncode == 0, "%s: exercise show: %s" % (ex, p.stderr))
    i = json.loads(p.stdout)["inputs"]
    out = {k: np.array(i[k], dtype=float) for k in ("q", "k", "v") if i.get(k) is not None}
    if i.get("grad") is not None:
        out["grad"] = np.array(i["grad"], dtype=float)
    if i.get("mask_attend") is not None:
        out["mask"] = np.array(i["mask_attend"], dtype=bool)
    for key in ("tile", "rope", "window"):
        if i.get(key) is not None:
            out[key] = i[key]
    return out


def grade(ex, parts):
    path = os.path.join(tmp, "%s-%d.json" % (ex, len(os.listdir(tmp))))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"student": "alice", ex: {k: np.asarray(v).tolist() for k, v in parts.items()}}, f)
    p = subprocess.run([ATTN, "grade", path, "--format", "json", "--secret-file", SECRET], capture_output=True, text=True)
    check(p.returncode == 0, "%s: grade exit %d: %s" % (ex, p.returncode, p.stderr))
    return json.loads(p.stdout)


def expect_full(ex, parts):
    r = grade(ex, parts)
    check(r["score"] == r["max_score"] and r["max_score"] > 0,
          "%s: a correct answer scores %s of %s: %s" % (ex, r["score"], r["max_score"], r["exercises"][0]["parts"]))


def expect_mistake(ex, parts, mistake):
    r = grade(ex, parts)
    named = [p.get("mistake", {}).get("id") for p in r["exercises"][0]["parts"]]
    check(mistake in named, "%s: the mistake %s is named (found %s)" % (ex, mistake, named))


def attention(n, q=None, k=None, mask=None):
    q = n["q"] if q is None else q
    k = n["k"] if k is None else k
    s = q @ k.T / np.sqrt(q.shape[1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


CAT = 1  # "cat", the query these exercises ask about

# Lesson 15: the softmax backward of one row; dV and dQ.
n = numbers("15-softmax-backward")
g = back.autograd_attention(n["q"], n["k"], n["v"], n["grad"])
expect_full("15-softmax-backward", {"dA": g["grad_weights"][CAT], "dS": g["grad_scores"][CAT]})
a = attention(n)
expect_mistake("15-softmax-backward", {"dA": g["grad_weights"][CAT], "dS": (a * g["grad_weights"])[CAT]},
               "jacobian_sum_missing")

n = numbers("15-grad-q-v")
g = back.autograd_attention(n["q"], n["k"], n["v"], n["grad"])
expect_full("15-grad-q-v", {"dV": g["grad_v"], "dQ": g["grad_q"][CAT]})
a = attention(n)
expect_mistake("15-grad-q-v", {"dV": a @ n["grad"], "dQ": g["grad_q"][CAT]}, "gradient_not_transposed")
expect_mistake("15-grad-q-v", {"dV": g["grad_v"], "dQ": (g["grad_scores"] @ n["k"])[CAT]}, "gradient_not_scaled")

# Lesson 16: the online softmax by hand (query "on"), and 3 keys per block for every query.
ON = 3
n = numbers("16-online-on")
o = ref.online(n["q"], n["k"], n["v"], 2)
expect_full("16-online-on", {"m": o["running_max"][ON], "l": o["running_sum"][ON], "output": o["output"][ON]})
wrong = ref.online(n["q"], n["k"], n["v"], 2, rescale=False)["output"][ON]
if not np.allclose(wrong, o["output"][ON], atol=1e-3):
    expect_mistake("16-online-on", {"m": o["running_max"][ON], "l": o["running_sum"][ON], "output": wrong},
                   "online_not_rescaled")
n = numbers("16-tile-3")
o = ref.online(n["q"], n["k"], n["v"], 3)
expect_full("16-tile-3", {"m": o["running_max"], "output": o["output"]})
expect_mistake("16-tile-3", {"m": o["running_max"], "output": ref.online(n["q"], n["k"], n["v"], 3, rescale=False)["output"]},
               "online_not_rescaled")
r = grade("16-memory", {"answer": "n × n"})
check("scores-kept" in json.dumps(r), "16-memory: the declared mistake scores-kept is named")
expect_full("16-memory", {"answer": "2n: a max and a sum per query"})

# Lesson 17: rotate one query; the raw scores with rotation. Mistaken angles: pair i
# with base^(−i/d), or positions counted from 1.
def rope_wrong(x, base, step, first):
    d = x.shape[1]
    freq = base ** (-step * np.arange(d // 2) / d)
    z = (x[:, 0::2] + 1j * x[:, 1::2]) * np.exp(1j * np.outer(np.arange(x.shape[0]) + first, freq))
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


SAT, MAT = 2, 4
n = numbers("17-rotate")
pos = np.arange(5)
expect_full("17-rotate", {"rotated": ref.rope(n["q"], pos, n["rope"])[SAT]})
expect_mistake("17-rotate", {"rotated": rope_wrong(n["q"], n["rope"], 1.0, 0)[SAT]}, "rope_wrong_angle")
expect_mistake("17-rotate", {"rotated": rope_wrong(n["q"], n["rope"], 2.0, 1)[SAT]}, "rope_wrong_angle")
n = numbers("17-scores")
rq, rk = ref.rope(n["q"], pos, n["rope"]), ref.rope(n["k"], pos, n["rope"])
expect_full("17-scores", {"raw": (rq @ rk.T)[MAT]})
wq, wk = rope_wrong(n["q"], n["rope"], 1.0, 0), rope_wrong(n["k"], n["rope"], 1.0, 0)
expect_mistake("17-scores", {"raw": (wq @ wk.T)[MAT]}, "rope_wrong_angle")

# Lesson 18: the cache's shape and size, with H and G mixed up. The choices' numbers
# are checked here against the formula 2 · layers · G · d_head · tokens · bytes.
GiB = 1024 ** 3
size = 2 * 80 * 8 * 128 * 4096 * 2
check(size / GiB == 1.25 and 2 * 80 * 64 * 128 * 4096 * 2 / GiB == 10 and size / 2 / GiB == 0.625,
      "18-cache-bytes: the choices are the formula's numbers")
expect_full("18-cache-bytes", {"answer": "1.25 GiB"})
check("cache-uses-h" in json.dumps(grade("18-cache-bytes", {"answer": "10 GiB"})), "18-cache-bytes: cache-uses-h named")
expect_full("18-cache-shape", {"K_cache": "B x G x n x d_head"})
check("h-for-g" in json.dumps(grade("18-cache-shape", {"K_cache": "(B, H, n, d_head)"})), "18-cache-shape: h-for-g named")

# Lesson 19: weights under a causal window, and the window off by one either way.
DOG, FOX = 8, 3
n = numbers("19-window-weights")
a = attention(n, mask=ref.window(12, 2, True))
expect_full("19-window-weights", {"weights": a[DOG]})
for w in (1, 3):
    expect_mistake("19-window-weights", {"weights": attention(n, mask=ref.window(12, w, True))[DOG]}, "window_off_by_one")
n = numbers("19-window-1")
a = attention(n, mask=ref.window(12, 1, True))
expect_full("19-window-1", {"weights": a[FOX], "output": (a @ n["v"])[FOX]})
a0 = attention(n, mask=ref.window(12, 0, True))
expect_mistake("19-window-1", {"weights": a0[FOX], "output": (a0 @ n["v"])[FOX]}, "window_off_by_one")
expect_full("19-reach", {"answer": "12"})
check("one-layer-only" in json.dumps(grade("19-reach", {"answer": "3"})), "19-reach: one-layer-only named")

if failures:
    sys.exit("%d failures" % len(failures))
print("ok")
