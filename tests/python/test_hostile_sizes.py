#!/usr/bin/python3
"""tests/python/test_hostile_sizes.py — issue 18's budgets and long texts through the
command line: two 2 GiB .npy inputs (sparse files) refused from their headers before
either is read, naming the files, the sizes, the budget and --max-elements; a huge
`random_normal` in a --lessons folder refused at file:line:col (never std::bad_alloc);
lesson numbers that overflow refused as `attn trace` refuses them; a megabyte token,
title, student id and answer go through trace, grade and lesson (a hang guard, not a
speed test: the timings are printed)."""
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []
MB = 1_000_000


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail[:2000]))
    if not ok:
        failures.append(name)


def run(args, timeout=120, **kw):
    t = time.time()
    p = subprocess.run([ATTN, *args], capture_output=True, timeout=timeout, **kw)
    return p, time.time() - t


def sparse_npy(path, shape):
    """A float64 .npy whose data is a hole: the header says `shape`, the file is that long."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{n}, " for n in shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        f.truncate(10 + len(header) + 8 * shape[0] * shape[1])


def test_two_big_inputs(d):
    sparse_npy(os.path.join(d, "q.npy"), (16384, 16384))  # 2^28 numbers = 2 GiB each: each within the budget
    sparse_npy(os.path.join(d, "k.npy"), (16384, 16384))
    spec = os.path.join(d, "big.toml")
    open(spec, "w").write('kind = "self"\nQ = "q.npy"\nK = "k.npy"\nV = "k.npy"\n')
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p, secs = run(["trace", spec])
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    err = p.stderr.decode()
    check("two 2 GiB inputs: exit 2 with the budget named",
          p.returncode == 2 and "q.npy" in err and "k.npy" in err and "268435456" in err and "--max-elements" in err,
          f"exit {p.returncode}: {err}")
    print(f"     ({secs:.2f} s, peak RSS of the children so far {rss_kb // 1024} MiB)")
    check("two 2 GiB inputs: refused without reading them (peak RSS under 1 GiB)",
          max(rss_kb, before) < 1024 * 1024, f"{rss_kb} KiB")


def lessons_copy(d):
    dst = os.path.join(d, "lessons")
    shutil.copytree(os.path.join(SRC, "lessons"), dst)
    return dst


def test_huge_random_normal(d):
    les = lessons_copy(d)
    path = os.path.join(les, "02-why-scale.toml")
    text = open(path).read().replace("rows = 5\ncols = 512\nseed = 512", "rows = 100000\ncols = 100000\nseed = 512", 1)
    open(path, "w").write(text)
    line = text[:text.index("rows = 100000")].count("\n")  # the [derived.Q512] table's line (1-based: +0)
    for args in (["exercise", "list"], ["lesson", "check", path], ["lesson", "2", "--no-pause"]):
        p, secs = run(["--lessons", les, *args])
        err = p.stderr.decode() + p.stdout.decode()
        check(f"random_normal 100000 × 100000, {' '.join(args[:2])}: refused at file:line:col, no bad_alloc",
              p.returncode != 0 and "bad_alloc" not in err and re.search(r"02-why-scale\.toml:\d+:\d+:.*random_normal", err)
              is not None and "budget" in err, f"exit {p.returncode} in {secs:.1f} s: {err}")


def test_lesson_overflow(d):
    les = lessons_copy(d)
    path = os.path.join(les, "01-self-attention.toml")
    text = open(path).read()
    text = text.replace("  [1.0, 0.0, 1.0, 0.0],  # The", "  [1.0e308, 1.0e308, 1.0e308, 1.0e308],  # The")
    open(path, "w").write(text)
    p, _ = run(["--lessons", les, "lesson", "check", path])
    out = p.stderr.decode() + p.stdout.decode()
    check("Q = K = 1e308 in a lesson: lesson check names the overflow",
          p.returncode != 0 and "overflows" in out and "01-self-attention.toml:" in out, f"exit {p.returncode}: {out}")
    p, _ = run(["--lessons", les, "lesson", "1", "--no-pause"])
    out = p.stderr.decode() + p.stdout.decode()
    check("Q = K = 1e308 in a lesson: the lesson refuses, exit 2", p.returncode == 2 and "overflows" in out,
          f"exit {p.returncode}: {out[-500:]}")


def test_megabyte_texts(d):
    big = "A" * MB
    spec = os.path.join(d, "long.toml")
    open(spec, "w").write(f'kind = "self"\ntitle = "{big}"\ntokens = ["{big}", "b", "c"]\n'
                          "Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\n"
                          "V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]\n")
    cjk = os.path.join(d, "cjk.toml")
    open(cjk, "w").write(f'kind = "self"\ntokens = ["{"가" * (MB // 3)}", "b", "c"]\n'
                         "Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\n"
                         "V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]\n")
    for name, args in (("trace, 1 MB token and title", ["trace", spec]), ("trace, 1 MB CJK token", ["trace", cjk]),
                       ("trace --query of a 100 KB token", ["trace", spec, "--query", "A" * 100_000])):
        p, secs = run(args, timeout=60)
        err = p.stderr.decode()
        check(f"{name}: done ({secs:.2f} s)", p.returncode in (0, 2) and "nan" not in p.stdout.decode()[:100000]
              and (p.returncode == 0 or "not a query token" in err), f"exit {p.returncode}: {err[:300]}")
    answers = {"answer": f'student = "s1"\n[02-spread]\nanswer = "{big}"\n',
               "student id": f'student = "{big}"\n[02-spread]\nanswer = "d"\n',
               "open answer": f'student = "s1"\n[09-data-dependent]\nanswer = "{" ".join(["word"] * (MB // 5))}"\n'}
    for name, text in answers.items():
        f = os.path.join(d, "a.toml")
        open(f, "w").write(text)
        p, secs = run(["grade", f, "--no-variants", "--max-bytes", str(3 * MB)], timeout=60,
                      env={**os.environ, "ATTN_LESSONS_DIR": os.path.join(SRC, "lessons")})
        check(f"grade, 1 MB {name}: graded ({secs:.2f} s)", p.returncode == 0, p.stderr.decode()[:300])
    les = lessons_copy(d)
    path = os.path.join(les, "01-self-attention.toml")
    text = open(path).read().replace('title = "Self-attention step by step"', f'title = "{big}"', 1)
    text = text.replace('is "The cat sat on mat", with d_k', f'is "The cat sat on mat" {big}, with d_k', 1)
    open(path, "w").write(text)
    for args in (["lesson", "1", "--no-pause"], ["lessons"], ["lesson", "check", path]):
        p, secs = run(["--lessons", les, *args], timeout=60)
        check(f"{' '.join(args[:2])}, 1 MB title and word: done ({secs:.2f} s)", p.returncode == 0,
              p.stderr.decode()[:300])


def main():
    for t in (test_two_big_inputs, test_huge_random_normal, test_lesson_overflow, test_megabyte_texts):
        with tempfile.TemporaryDirectory() as d:
            t(d)
    if failures:
        print(f"{len(failures)} failed: {failures}")
        sys.exit(1)


if __name__ == "__main__":
    main()
