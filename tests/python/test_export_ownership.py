#!/usr/bin/python3
"""tests/python/test_export_ownership.py — `attn trace --npy/--csv DIR` never deletes
what it did not write (issue 18): not one of this run's own inputs, not a file that a
stranger's .attn-manifest names, not a file changed since attn wrote it; a signal
during an export leaves no staged folder behind; success messages print file names
terminal-safe."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
EXAMPLE = os.path.join(SRC, "examples", "trace", "multihead-batch.toml")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def run(*args, **kw):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=120, **kw)


def chain_inputs(d):
    """out1 = the export of a spec with W_O (it writes hook_attn_out.npy); chain2.toml
    reads that file back as Q, K and V, and has no W_O (so its export does not write it)."""
    for f in os.listdir(os.path.dirname(EXAMPLE)):
        if f.startswith("multihead-batch"):
            shutil.copy(os.path.join(os.path.dirname(EXAMPLE), f), d)
    p = run("trace", os.path.join(d, "multihead-batch.toml"), "--npy", os.path.join(d, "out1"))
    check("first export", p.returncode == 0, p.stderr)
    chain2 = os.path.join(d, "chain2.toml")
    open(chain2, "w").write('kind = "self"\nQ = "out1/hook_attn_out.npy"\nK = "out1/hook_attn_out.npy"\n'
                            'V = "out1/hook_attn_out.npy"\n')
    return chain2


def test_input_survives(d):
    chain2 = chain_inputs(d)
    target = os.path.join(d, "out1", "hook_attn_out.npy")
    before = np.load(target)
    p = run("trace", chain2, "--npy", os.path.join(d, "out1"))
    check("export over its own input: exit 0", p.returncode == 0, p.stderr)
    check("export over its own input: the input is still there",
          os.path.exists(target) and np.array_equal(np.load(target), before))
    check("export over its own input: the new stages are written",
          os.path.exists(os.path.join(d, "out1", "hook_pattern.npy")))


def test_stranger_manifest(d):
    out = os.path.join(d, "stranger")
    os.makedirs(out)
    open(os.path.join(out, "notes.txt"), "w").write("my notes\n")
    open(os.path.join(out, ".attn-manifest"), "w").write("# attn export manifest\nnotes.txt\n")
    for flag in ("--npy", "--csv"):
        p = run("trace", EXAMPLE, flag, out)
        check(f"stranger's manifest {flag}: refused with exit 2, saying why",
              p.returncode == 2 and "not the file attn wrote" in p.stderr, f"exit {p.returncode}: {p.stderr}")
        check(f"stranger's manifest {flag}: notes.txt kept",
              os.path.exists(os.path.join(out, "notes.txt")) and
              open(os.path.join(out, "notes.txt")).read() == "my notes\n", p.stderr)


def test_edited_file_refused(d):
    out = os.path.join(d, "edited")
    p = run("trace", EXAMPLE, "--npy", out)
    check("export to a fresh folder", p.returncode == 0, p.stderr)
    victim = os.path.join(out, "hook_attn_out.npy")
    open(victim, "wb").write(b"the user's own bytes now")
    small = os.path.join(SRC, "examples", "trace", "cat-causal.toml")  # no W_O: would remove the file
    p = run("trace", small, "--npy", out)
    check("a changed stale file: refused with exit 2", p.returncode == 2 and "not the file attn wrote" in p.stderr,
          f"exit {p.returncode}: {p.stderr}")
    check("a changed stale file: kept", open(victim, "rb").read() == b"the user's own bytes now")
    p = run("trace", EXAMPLE, "--npy", out)  # would replace it
    check("a changed file to replace: refused with exit 2", p.returncode == 2 and "not the file attn wrote" in p.stderr,
          f"exit {p.returncode}: {p.stderr}")
    check("a changed file to replace: kept", open(victim, "rb").read() == b"the user's own bytes now")


def test_signal_cleans_staged_folder(d):
    n, dm = 900, 64  # big enough that the export takes a moment, small for the sanitizer build
    rng = np.random.default_rng(0)
    np.save(os.path.join(d, "big.npy"), rng.standard_normal((n, dm)))
    spec = os.path.join(d, "big.toml")
    open(spec, "w").write('kind = "self"\nQ = "big.npy"\nK = "big.npy"\nV = "big.npy"\n')
    for sig in (signal.SIGINT, signal.SIGTERM):
        out = os.path.join(d, f"sig{int(sig)}")
        proc = subprocess.Popen([ATTN, "trace", spec, "--npy", out, "--csv", out + "c"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        caught = False
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            staged = [e for e in os.listdir(d) if "attn-tmp" in e]
            if any(os.path.isdir(os.path.join(d, e)) and os.listdir(os.path.join(d, e)) for e in staged):
                proc.send_signal(sig)
                caught = True
                break
            time.sleep(0.01)
        proc.wait(timeout=60)
        left = [e for e in os.listdir(d) if "attn-tmp" in e]
        check(f"signal {sig.name} during --npy/--csv: nothing staged is left" +
              ("" if caught else " (the run ended first)"), not left, str(left))


def test_names_printed_safe(d):
    name = os.path.join(d, "x\x1b]0;owned\x07\nline.json")
    p = run("trace", EXAMPLE, "--json", name)
    check("wrote <name>: no control characters reach the terminal",
          p.returncode == 0 and "\x1b" not in p.stderr and "\x07" not in p.stderr and p.stderr.count("\n") == 1,
          repr(p.stderr))


def main():
    for t in (test_input_survives, test_stranger_manifest, test_edited_file_refused, test_signal_cleans_staged_folder,
              test_names_printed_safe):
        with tempfile.TemporaryDirectory() as d:
            t(d)
    if failures:
        print(f"{len(failures)} failed: {failures}")
        sys.exit(1)


if __name__ == "__main__":
    main()
