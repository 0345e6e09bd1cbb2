#!/usr/bin/python3
"""tests/python/test_trace_errors.py — bad inputs to `attn trace`: exit 2, a message
that says where (file:line:col for spec files, the element index for data files),
what was expected and what was found; and no output file left half-written."""
import os
import subprocess
import sys
import tempfile

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []

GOOD_QKV = """
Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
K = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
"""


def case(d, name, spec, expect, extra_args=(), files=None):
    """Writes spec (and files: name -> ndarray or bytes), runs attn trace, checks exit 2 and every
    expected fragment of stderr."""
    for fn, data in (files or {}).items():
        p = os.path.join(d, fn)
        if isinstance(data, bytes):
            open(p, "wb").write(data)
        else:
            np.save(p, data)
    path = os.path.join(d, name + ".toml")
    open(path, "w").write(spec)
    p = subprocess.run([ATTN, "trace", path, *extra_args], capture_output=True, text=True)
    ok = p.returncode == 2 and all(e.replace("SPEC", path) in p.stderr for e in expect) and "nan" not in p.stdout
    if not ok:
        failures.append(name)
        print(f"FAIL {name}: exit {p.returncode}\n  stderr: {p.stderr.strip()}\n  expected: {expect}")
    else:
        print(f"ok   {name}: {p.stderr.strip().splitlines()[0]}")
    return p


def main():
    with tempfile.TemporaryDirectory() as d:
        case(d, "missing-spec-key", 'kind = "self"\n', ["SPEC:", "no inputs"])
        os.remove(os.path.join(d, "missing-spec-key.toml"))
        p = subprocess.run([ATTN, "trace", os.path.join(d, "nope.toml")], capture_output=True, text=True)
        if p.returncode != 2 or "cannot open the spec file: no such file" not in p.stderr:
            failures.append("no-spec-file")
            print("FAIL no-spec-file:", p.returncode, p.stderr)
        case(d, "toml-syntax", 'kind = "self"\nQ = [[1.0, 2.0]\n', ["SPEC:2:17: TOML syntax", "end-of-file"])
        case(d, "unknown-key", 'kind = "self"\nq_matrix = 1\n', ["SPEC:2:1: unknown key 'q_matrix' in a spec file"])
        case(d, "bad-kind", 'kind = "selfish"\n' + GOOD_QKV, ["SPEC:1:8:", "found \"selfish\""])
        case(d, "missing-npy", 'kind = "self"\nQ = "q.npy"\nK = "q.npy"\nV = "q.npy"\n',
             ["SPEC:2:5: 'Q' = \"q.npy\":", "cannot open the .npy file"])
        case(d, "int-dtype", 'kind = "self"\nQ = "qi.npy"\nK = "qi.npy"\nV = "qi.npy"\n',
             ["SPEC:2:5:", "expected dtype float64 ('<f8') or float32 ('<f4')", "found '<i8'"],
             files={"qi.npy": np.arange(6, dtype=np.int64).reshape(3, 2)})
        case(d, "fortran-order", 'kind = "self"\nQ = "qf.npy"\nK = "qf.npy"\nV = "qf.npy"\n',
             ["SPEC:2:5:", "Fortran order; expected C order"],
             files={"qf.npy": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(3, 2))})
        case(d, "truncated-npy", 'kind = "self"\nQ = "qt.npy"\nK = "qt.npy"\nV = "qt.npy"\n', ["truncated"],
             files={"qt.npy": open(os.path.join(d, "qf.npy"), "rb").read()[:-8]})
        case(d, "nan-npy", 'kind = "self"\nQ = "qn.npy"\nK = "qn.npy"\nV = "qn.npy"\n',
             ["SPEC:2:5: Q[2, 1] is not a number (from qn.npy), axes [n_q, d_k]"],
             files={"qn.npy": np.array([[1.0, 2.0], [3.0, 4.0], [5.0, np.nan]])})
        case(d, "inf-inline", 'kind = "self"\nQ = [[1.0, 0.0], [0.0, inf], [1.0, 1.0]]\n' + GOOD_QKV.split("\n", 2)[2],
             ["SPEC:2:5: Q[1, 1] is infinity, axes [n_q, d_k]"])
        case(d, "dk-differs", 'kind = "self"\nQ = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]]\n' +
             GOOD_QKV.split("\n", 2)[2], ["SPEC:3:5: K [n_k=3, d_k=2] does not chain with Q [n_q=3, d_k=3]: d_k differs"])
        case(d, "nk-differs", 'kind = "cross"\nQ = [[1.0, 0.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\nV = [[1.0], [2.0], [3.0]]\n',
             ["SPEC:4:5: V [n_k=3, d_v=1] does not chain with K [n_k=2, d_k=2]: n_k differs"])
        case(d, "self-two-lengths", 'kind = "self"\nQ = [[1.0, 0.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\nV = [[1.0], [2.0]]\n',
             ["SPEC:3:5: K [n_k=2, d_k=2] does not chain with Q [n_q=1, d_k=2]", "kind = \"cross\""])
        case(d, "w-chain", 'kind = "self"\nX = [[1.0, 0.0, 1.0]]\nW_Q = [[1.0], [0.0]]\nW_K = [[1.0], [0.0]]\nW_V = [[1.0], [0.0]]\n',
             ["SPEC:3:7: W_Q [d_model=2, d_k=1] does not chain with X [n=1, d_model=3]: d_model differs"])
        case(d, "batch-differs", 'kind = "self"\nQ = "qb2.npy"\nK = "qb3.npy"\nV = "qb3.npy"\n',
             ["K [batch=3, n_k=3, d_k=2] does not chain with Q [batch=2, n_q=3, d_k=2]: batch differs"],
             files={"qb2.npy": np.zeros((2, 3, 2)), "qb3.npy": np.zeros((3, 3, 2))})
        case(d, "mask-shape", 'kind = "self"\n' + GOOD_QKV + '[mask]\nattend = [[true, false], [true, true]]\n',
             ["SPEC:7:10: mask [2 × 2] does not chain with the scores [n_q=3, n_k=3]"])
        case(d, "bare-mask", 'kind = "self"\nmask = [[1, 0, 0], [1, 1, 0], [1, 1, 1]]\n' + GOOD_QKV,
             ["SPEC:2:8: a mask needs its polarity", "bare matrix of 0/1 is refused"])
        case(d, "mask-values", 'kind = "self"\n' + GOOD_QKV + '[mask]\nblock = [[0.5, 0, 0], [1, 1, 0], [1, 1, 1]]\n',
             ["SPEC:7:11: mask entries must be true/false"])
        case(d, "heads-divide", 'kind = "self"\nheads = 3\n' + GOOD_QKV, ["heads = 3 must divide d_k = 2"])
        case(d, "tokens-count", 'kind = "self"\ntokens = ["a", "b"]\n' + GOOD_QKV,
             ["SPEC:2:10: tokens has 2 entries but the inputs have n = 3"])
        case(d, "ragged", 'kind = "self"\nQ = [[1.0, 0.0], [0.0], [1.0, 1.0]]\nK = 1\nV = 2\n', ["SPEC:2:18:", "ragged"])
        open(os.path.join(d, "bad.csv"), "w").write("1.0,2.0\n3.0,x4\n5.0,6.0\n")
        case(d, "csv-cell", 'kind = "self"\nQ = "bad.csv"\nK = "bad.csv"\nV = "bad.csv"\n',
             ["SPEC:2:5: 'Q' = \"bad.csv\":", "bad.csv:2:5: expected a number, found 'x4'"])

        # Nothing half-written: a bad --query fails before any file is touched, and
        # a good run leaves no temporary files behind.
        good = os.path.join(d, "good.toml")
        open(good, "w").write('kind = "self"\n' + GOOD_QKV)
        out_json = os.path.join(d, "out.json")
        p = subprocess.run([ATTN, "trace", good, "--query", "zebra", "--json", out_json, "--html", out_json + ".html"],
                           capture_output=True, text=True)
        if p.returncode != 2 or os.path.exists(out_json) or os.path.exists(out_json + ".html") or "zebra" not in p.stderr:
            failures.append("bad-query-writes-nothing")
            print("FAIL bad-query-writes-nothing:", p.returncode, p.stderr)
        p = subprocess.run([ATTN, "trace", good, "--json", out_json, "--npy", os.path.join(d, "npy")], capture_output=True, text=True)
        left = [f for f in os.listdir(d) if ".tmp-" in f]
        if p.returncode != 0 or not os.path.exists(out_json) or left:
            failures.append("good-run-no-temp-files")
            print("FAIL good-run-no-temp-files:", p.returncode, p.stderr, left)
        p = subprocess.run([ATTN, "trace", good, "--json", os.path.join(d, "no", "such", "dir", "o.json")],
                           capture_output=True, text=True)
        if p.returncode != 2 or "cannot write" not in p.stderr:
            failures.append("unwritable-output")
            print("FAIL unwritable-output:", p.returncode, p.stderr)
    if failures:
        print(f"{len(failures)} failure(s): {failures}")
        sys.exit(1)
    print("every bad input exits 2 with its location")


if __name__ == "__main__":
    main()
