#!/usr/bin/python3
"""tests/python/test_hardening_round3.py — the model floor and the progress file held to
the rules the rest of attn keeps: a forged export manifest deletes and replaces nothing
(its hashes are keyed with the user's export key), lesson progress saved from several
processes at once keeps every answer, `attn model train` refuses two outputs under one
name and NaN hyperparameters before training, a file cut short while mapped is a clear
error (exit 2; tests/io_mapped_file_test.cpp), an unreadable path is the file's problem (exit 2, not an internal
error), and output names reach the terminal without control characters."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
EXAMPLE = os.path.join(SRC, "examples", "trace", "multihead-batch.toml")
SMALL = os.path.join(SRC, "examples", "trace", "cat-causal.toml")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def run(*args, env=None, **kw):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=120, env=env, **kw)


def test_forged_manifest(d, env):
    """Lines an attacker can compute (unkeyed BLAKE2b, the old FNV form, a bare name)
    vouch for nothing: the next export keeps the files and names them."""
    out = os.path.join(d, "forged")
    p = run("trace", EXAMPLE, "--npy", out, env=env)
    check("export to a fresh folder", p.returncode == 0, p.stderr)
    notes = b"my notes\n"
    open(os.path.join(out, "notes.txt"), "wb").write(notes)
    open(os.path.join(out, "README"), "wb").write(b"")
    open(os.path.join(out, "__init__.py"), "wb").write(b"")
    manifest = open(os.path.join(out, ".attn-manifest")).read()
    manifest += f"{len(notes)} {hashlib.blake2b(notes, digest_size=16).hexdigest()} notes.txt\n"
    manifest += f"0 {hashlib.blake2b(b'', digest_size=16).hexdigest()} README\n"
    manifest += "0 cbf29ce484222325 __init__.py\n"
    open(os.path.join(out, ".attn-manifest"), "w").write(manifest)
    p = run("trace", SMALL, "--npy", out, env=env)  # writes fewer files: the rest would be removed
    check("forged manifest lines: the export is refused (exit 2), naming a kept file",
          p.returncode == 2 and "not the file attn wrote" in p.stderr, f"exit {p.returncode}: {p.stderr}")
    for name, content in (("notes.txt", notes), ("README", b""), ("__init__.py", b"")):
        path = os.path.join(out, name)
        check(f"forged manifest line: {name} kept, unchanged",
              os.path.exists(path) and open(path, "rb").read() == content)
    # the attn-written files are still vouched for: after moving the strangers away, it works
    for name in ("notes.txt", "README", "__init__.py"):
        os.unlink(os.path.join(out, name))
    p = run("trace", SMALL, "--npy", out, env=env)
    check("after the strangers are gone: the export replaces attn's own files (exit 0)", p.returncode == 0, p.stderr)
    key = os.path.join(env["XDG_STATE_HOME"], "attn", "export-key")
    check("the export key is kept in the state folder, readable by its owner only",
          os.path.exists(key) and (os.stat(key).st_mode & 0o077) == 0 and len(open(key).read()) == 65)


def test_other_key_vouches_nothing(d, env):
    """Another user's key (another state folder) cannot vouch for this user's files."""
    out = os.path.join(d, "two-users")
    p = run("trace", EXAMPLE, "--npy", out, env=env)
    check("first user's export", p.returncode == 0, p.stderr)
    other = dict(env, XDG_STATE_HOME=os.path.join(d, "other-state"))
    p = run("trace", SMALL, "--npy", out, env=other)
    check("another user's export over it: refused (exit 2)", p.returncode == 2, f"exit {p.returncode}: {p.stderr}")
    check("another user's export over it: the first user's files kept",
          os.path.exists(os.path.join(out, "hook_attn_out.npy")))


def test_train_outputs(d, env):
    ck = os.path.join(d, "m.safetensors")
    cases = [
        (["--out", ck, "--losses", ck], "--losses"),
        (["--out", ck, "--grads", ck], "--grads"),
        (["--out", ck, "--losses", os.path.join(d, "m.step5.safetensors"), "--keep-steps", "5"], "--keep-steps"),
        (["--out", ck, "--losses", os.path.join(d, ".", "m.safetensors")], "--losses"),
    ]
    for args, flag in cases:
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        p = run("model", "train", "sort", "--iters", "10", *args, env=env)
        check(f"model train {' '.join(a.replace(d, 'D') for a in args)}: refused before training (exit 2)",
              p.returncode == 2 and flag in p.stderr and "own name" in p.stderr and not os.path.exists(ck),
              f"exit {p.returncode}: {p.stderr}")
    for flag in ("--weight-decay", "--clip"):
        p = run("model", "train", "sort", "--iters", "10", "--out", ck, flag, "nan", env=env)
        check(f"model train {flag} nan: refused (exit 2), nothing written",
              p.returncode == 2 and flag in p.stderr and "nan" not in p.stderr.lower() and not os.path.exists(ck),
              f"exit {p.returncode}: {p.stderr}")
    p = run("model", "train", "sort", "--iters", "3", "--out", ck, "--lr", "9.9", "--clip", "0", env=env)
    # a learning rate this high may or may not overflow; either way no unreadable checkpoint
    if p.returncode == 0:
        q = run("model", "info", ck, env=env)
        check("a run that ended: its checkpoint reads back", q.returncode == 0, q.stderr)
    else:
        check("a run whose loss turned non-finite: says so, exit 2, no checkpoint",
              p.returncode == 2 and "finite" in p.stderr and not os.path.exists(ck), p.stderr)
    name = os.path.join(d, "x\x1b]0;owned\x07.safetensors")
    p = run("model", "train", "sort", "--iters", "2", "--out", name, env=env)
    check("model train: the written name reaches the terminal without control characters",
          p.returncode == 0 and "\x1b" not in p.stderr and "\x07" not in p.stderr, repr(p.stderr))


def test_data_ids(d, env):
    data = os.path.join(d, "ids.txt")
    open(data, "w").write("1 2 3 1000000\n")
    p = run("model", "train", "--data", data, "--iters", "1", "--out", os.path.join(d, "ids.safetensors"), env=env)
    check("--data: id 1000000 refused as the message says (below 1000000)",
          p.returncode == 2 and "below 1000000" in p.stderr, f"exit {p.returncode}: {p.stderr}")


def test_unreadable_paths(d, env):
    loop = os.path.join(d, "loop")
    os.symlink(loop, loop)
    p = run("model", "info", os.path.join(loop, "config.json"), env=env)
    check("a path through a symlink loop: exit 2 naming it, not an internal error",
          p.returncode == 2 and "internal error" not in p.stderr, f"exit {p.returncode}: {p.stderr}")


def main():
    d = tempfile.mkdtemp(prefix="attn-harden3-")
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(d, "state"))
    try:
        for t in (test_forged_manifest, test_other_key_vouches_nothing, test_train_outputs, test_data_ids,
                  test_unreadable_paths):
            sub = os.path.join(d, t.__name__)
            os.makedirs(sub)
            t(sub, env)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
