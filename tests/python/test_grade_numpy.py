#!/usr/bin/env python3
"""tests/python/test_grade_numpy.py — the grader checked against NumPy, independently.

For each numeric exercise: `attn exercise show ID --student S --format json` gives the
student's numbers; NumPy computes the answers (its own code, never the product's);
an answer file is written and graded by the real `attn grade`; it must score 100%.
Then each catalogued mistake is produced in NumPy and the feedback must name it.
Run by CTest with /usr/bin/python3 (Debian's, which has numpy).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_reference import softmax_rows  # noqa: E402
import shards  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
ENV = dict(os.environ, ATTN_COURSE_SECRET="numpy-test-secret")
failures = []


def attn(*args, ok=(0,)):
    p = subprocess.run([ATTN, *args], capture_output=True, text=True, env=ENV)
    if p.returncode not in ok:
        raise AssertionError(f"attn {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def stages(inp, q=None, k=None, v=None, scale=None, mask="given", softmax_axis=1, use_softmax=None,
           transpose=False, round_to=None):
    """Every stage in NumPy, with switches that reproduce the catalogued mistakes."""
    q = np.array(inp["q"] if q is None else q, float)
    k = np.array(inp["k"] if k is None else k, float)
    v = np.array(inp["v"] if v is None else v, float)
    d_k = q.shape[1]
    if scale is None:
        scale = inp["scale"] if inp["scale"] is not None else np.sqrt(d_k)
    raw = k @ q.T if transpose else q @ k.T
    r = (lambda x: np.round(x, round_to)) if round_to else (lambda x: x)
    scaled = r(raw) / scale
    given = isinstance(mask, str) and mask == "given"
    m = np.array(inp["mask_attend"], bool) if (given and inp["mask_attend"] is not None) else mask
    masked = r(scaled).copy()
    if inp.get("bias") is not None and masked.shape == np.array(inp["bias"]).shape:
        masked = masked + np.array(inp["bias"], float)
    if isinstance(m, np.ndarray) and m.shape == masked.shape:
        masked[~m] = -np.inf
    if use_softmax is None:
        use_softmax = inp["softmax"]
    if not use_softmax:
        w = np.where(np.isfinite(masked), masked, 0.0)
    elif softmax_axis == 1:
        w = softmax_rows(masked)
    else:
        w = softmax_rows(masked.T).T
    out = r(w) @ v if w.shape[1] == v.shape[0] else None
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": out, "scale": np.array([[scale]])}


def part_value(st, part):
    if part["stage"] == "scale":
        return float(st["scale"][0, 0])
    m = st[part["stage"]]
    rows = part["rows"] or list(range(m.shape[0]))
    cols = part["cols"] or list(range(m.shape[1]))
    return m[np.ix_(rows, cols)]


def to_json_value(x):
    if isinstance(x, float):
        return x
    def one(e):
        if np.isnan(e):
            return "nan"
        if np.isinf(e):
            return "-inf" if e < 0 else "inf"  # JSON cannot spell them; the grader reads these strings
        return float(e)
    return [[one(e) for e in row] for row in x]


def grade(answers, student, exercise_ids, fmt="json"):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "answers." + fmt)
        with open(path, "w") as f:
            if fmt == "json":
                json.dump({"student": student, **answers}, f)
            else:
                f.write(f'student = "{student}"\n')
                for ex, parts in answers.items():
                    f.write(f"[{ex}]\n")
                    for pid, val in parts.items():
                        f.write(f"{pid} = {json.dumps(val)}\n")
        out = attn("grade", path, "--format", "json", "--exercises", ",".join(exercise_ids))
    return json.loads(out)


def my_section(k):
    """Sections k = 1, 2, 3 … go to shards in turn (tests/CMakeLists.txt runs this test as shards)."""
    i, n = shards.current()
    return (k - 1) % n == i - 1


def show(ex, student):
    return json.loads(attn("exercise", "show", ex, "--student", student, "--format", "json"))


# 1. Correct answers computed in NumPy grade 100%, for several students and both file formats.
NUMERIC = ["01-scale", "01-self-cat", "01-self-weights", "03-causal-cat", "03-causal-weights", "03-blind",
           "04-cross-the", "04-cross-weights", "05-fr-first", "05-fr-weights", "06-padded-the", "06-padded",
           "14-caption-weights", "02-small-unscaled", "07-head1", "07-head2-weights", "08-bias-so", "09-xxtx"]
for student, fmt in shards.mine([("alice", "json"), ("bob", "toml"), ("s-0042", "json")]):
    answers = {}
    for ex in NUMERIC:
        info = show(ex, student)
        st = stages(info["inputs"])
        answers[ex] = {p["id"]: to_json_value(part_value(st, p)) for p in info["parts"]}
    rep = grade(answers, student, NUMERIC, fmt)
    check(rep["score"] == rep["max_score"] and rep["max_score"] > 0,
          f"{student}: NumPy's correct answers should score full marks, got {rep['score']}/{rep['max_score']}: "
          + json.dumps([p for x in rep["exercises"] for p in x["parts"] if p["status"] != "correct"])[:800])

# 1b. The template path of the issue: `exercise template` writes the answer file, the TODOs
# are replaced by NumPy's answers computed from `exercise show`, and it grades 100%.
if my_section(1):
    TEMPLATE_IDS = ["01-self-cat", "04-cross-the", "06-padded"]
    text = attn("exercise", "template", *TEMPLATE_IDS, "--student", "zoe")
    filled, current = [], None
    for line in text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            info = show(current, "zoe")
            st = stages(info["inputs"])
            values = {p["id"]: to_json_value(part_value(st, p)) for p in info["parts"]}
        elif current and " = \"TODO" in line:
            key = line.split(" = ")[0]
            line = f"{key} = {json.dumps(values[key])}"
        filled.append(line)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "zoe.toml")
        open(path, "w").write("\n".join(filled) + "\n")
        rep = json.loads(attn("grade", path, "--format", "json", "--strict"))
    check(rep["student"] == "zoe" and rep["score"] == rep["max_score"] == 12.0,
          f"the filled-in template grades 100%: {rep['score']}/{rep['max_score']}")

    # 2. Two students get different numbers; the same student the same numbers twice.
    a1, a2, b = show("04-cross-the", "alice"), show("04-cross-the", "alice"), show("04-cross-the", "bob")
    check(a1["inputs"] == a2["inputs"], "the same student gets the same numbers on every run")
    check(a1["inputs"]["q"] != b["inputs"]["q"], "two students get different numbers")
    check(a1["numbers"]["variant"] != b["numbers"]["variant"], "two students get different variant codes")
    check("seed" not in a1["numbers"], "the hand-out never shows a seed")

# 3. Each catalogued mistake, produced in NumPy, is named in the feedback.
def mistake_named(ex, student, make, expected_id, parts=("weights",)):
    info = show(ex, student)
    inp = info["inputs"]
    st = make(inp)
    ans = {p["id"]: to_json_value(part_value(st, p)) for p in info["parts"] if p["id"] in parts}
    rep = grade({ex: ans}, student, [ex])
    named = [p.get("mistake", {}).get("id") for x in rep["exercises"] for p in x["parts"] if p["id"] in parts]
    feedback = " | ".join(p["feedback"] for x in rep["exercises"] for p in x["parts"])
    check(expected_id in named, f"{ex}/{student}: {expected_id} should be named, got {named}: {feedback[:400]}")
    return feedback


cross = "04-cross-the"
for student in shards.mine(["alice", "carol"]):
    fb = mistake_named(cross, student, lambda i: stages(i, scale=1.0), "no_scaling", ("weights", "output"))
    check("rtol" in fb and "atol" in fb, "the tolerance is echoed in the feedback")
    mistake_named(cross, student, lambda i: stages(i, scale=np.array(i["q"]).shape[1]), "scaled_by_d", ("scaled", "weights"))
    mistake_named("01-self-weights", student, lambda i: stages(i, softmax_axis=0), "softmax_wrong_axis")
    mistake_named(cross, student, lambda i: stages(i, use_softmax=False), "no_softmax")
    mistake_named(cross, student, lambda i: stages(i, transpose=True), "transposed_scores", ("raw", "weights"))
    mistake_named(cross, student, lambda i: stages(i, q=i["encoder_q"]), "queries_from_encoder")
    mistake_named(cross, student, lambda i: stages(i, k=i["v"], v=i["k"]), "k_v_swapped", ("weights", "output"))
    mistake_named(cross, student, lambda i: stages(i, round_to=1), "rounded_early", ("weights",))
    padded = "06-padded"
    mistake_named(padded, student, lambda i: stages(i, mask=None), "mask_missing")
    mistake_named("03-causal-cat", student, lambda i: stages(i, mask=None), "mask_missing")
    mistake_named("03-causal-cat", student, lambda i: stages(i, mask=~np.array(i["mask_attend"], bool)), "mask_reversed")

    def all_masked_rows(i):
        st = stages(i)
        m = np.array(i["mask_attend"], bool)
        st["weights"][~m.any(axis=1)] = np.nan  # what softmax of an all −inf row gives without the guard
        return st
    mistake_named(padded, student, all_masked_rows, "all_masked_row")
    mistake_named("03-blind", student, all_masked_rows, "all_masked_row")

# The exercise-specific mistakes: the bias forgotten, a softmax or a √d added where the exercise has none.
if my_section(2):
    mistake_named("08-bias-so", "alice", lambda i: stages(dict(i, bias=None)), "bias_missing", ("answer",))
    mistake_named("09-xxtx", "alice", lambda i: stages(i, use_softmax=True), "softmax_added", ("H",))
    mistake_named("09-xxtx", "bob", lambda i: stages(i, scale=np.sqrt(np.array(i["q"]).shape[1])), "scaled_anyway", ("H",))
    xinfo = show("09-xxtx", "alice")["inputs"]
    check(xinfo["q"] == xinfo["k"] == xinfo["v"], "a tied variant gives one X for Q, K and V")

    # 4. A later part that follows from the student's own wrong earlier part gets full credit.
    info = show(cross, "dave")
    wrong = stages(info["inputs"])
    ans = {}
    for p in info["parts"]:
        ans[p["id"]] = to_json_value(part_value(wrong, p))
    bad_scaled = np.array(ans["scaled"], float)
    bad_scaled[0, 1] += 0.25  # an arithmetic slip in one scaled score (a shift of all would not change the softmax)
    ans["scaled"] = bad_scaled.tolist()
    w = softmax_rows(bad_scaled)
    ans["weights"] = w.tolist()
    ans["output"] = (w @ np.array(info["inputs"]["v"], float)).tolist()
    rep = grade({cross: ans}, "dave", [cross])
    st = {p["id"]: p["status"] for p in rep["exercises"][0]["parts"]}
    check(st == {"raw": "correct", "scaled": "partial", "weights": "carried", "output": "carried"},
          f"errors carried forward are counted once: {st}")
    # 4 of the 5 scaled entries are right: 0.8 of that part's point; the two later parts
    # follow from it (a genuine attempt: most entries right) and carry 50% each.
    check(abs(rep["score"] - (1 + 0.8 + 0.5 + 0.5)) < 1e-9, f"one slip: 0.8 of its part, carried parts 50%: {rep['score']}")

    # 5. Self-consistency: the image-patch exercise is graded against the student's own Q, K, V.
    rng = np.random.default_rng(7)
    info = show("14-image-patches", "erin")
    q, k, v = rng.integers(-2, 3, (3, 4)).astype(float), rng.integers(-2, 3, (4, 4)).astype(float), rng.integers(-2, 3, (4, 4)).astype(float)
    w = softmax_rows(q @ k.T / 2.0)
    patches = info["inputs"]["key_tokens"]
    own = {"q": q.tolist(), "k": k.tolist(), "v": v.tolist(), "weights": w.tolist(), "output": (w @ v).tolist(),
           "most": [patches[int(np.argmax(row))] for row in w]}
    rep = grade({"14-image-patches": own}, "erin", ["14-image-patches"])
    check(rep["score"] == rep["max_score"], f"own Q, K, V with consistent answers score full marks: {rep['score']}/{rep['max_score']}")
    own["weights"] = softmax_rows(q @ k.T).tolist()  # forgot the scaling, on their own numbers
    rep = grade({"14-image-patches": own}, "erin", ["14-image-patches"])
    named = [p.get("mistake", {}).get("id") for p in rep["exercises"][0]["parts"]]
    check("no_scaling" in named, f"mistakes are diagnosed on the student's own numbers too: {named}")

# 6. Variant stability across compilers: the student's numbers regenerated in pure Python
# from the documented recipe (core's reference PRNG, test-only), independently of the C++.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core_prng_reference as ref  # noqa: E402

import base64  # noqa: E402
import hashlib  # noqa: E402


def keyed(secret, fields, n=32):
    """BLAKE2b keyed with BLAKE2b-256(secret), over the fields joined by NUL (variant.hpp)."""
    key = hashlib.blake2b(secret.encode(), digest_size=32).digest()
    return hashlib.blake2b(b"\0".join(f.encode() for f in fields), key=key, digest_size=n).digest()


if my_section(3):
    for ex, student in [("04-cross-the", "alice"), ("01-self-cat", "s-0042"), ("06-padded", "bob")]:
        info = show(ex, student)
        seed = int.from_bytes(keyed("numpy-test-secret", ["attn-variant-seed-v2", ex, student])[:8], "little")
        code = base64.b32encode(keyed("numpy-test-secret", ["attn-variant-code-v2", ex, student])).decode()[:6]
        check(info["numbers"]["variant"] == code, f"{ex}/{student}: variant code = base32(keyed BLAKE2b)")
        rng = ref.Xoshiro(seed)
        lo, hi = -1.0, 1.0
        roles = info["numbers"]["parameters"].split(":")[0].split(", ")
        for _draw in range(info["numbers"]["redraws"] + 1):  # a rejected draw continues the same stream
            got = {}
            for role in roles:
                rows = []
                for row in info["inputs"][role]:
                    for _ in range(16):  # a row of zeros is drawn again
                        draw = [rng.pick_halves(lo, hi) for _ in row]
                        if any(x != 0 for x in draw):
                            break
                    rows.append(draw)
                got[role] = rows
        for role in roles:
            check(got[role] == info["inputs"][role], f"{ex}/{student}: {role} regenerated in Python equals the grader's")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all NumPy grading checks passed")
