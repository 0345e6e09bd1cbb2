#!/usr/bin/python3
"""tests/python/test_hostile_corpus.py — issue 18's counted hostile corpus: every case of
tests/hostile/corpus.py (bad spec TOML, .npy, .csv, --lessons folders, submissions in TOML
and JSON, assignments, review sheets, Gradescope metadata, the progress file, secrets,
pagers, signals during exports, links, FIFOs, UTF-16/BOM, sparse and huge files, long
texts, control characters, stdout closed or full) run through the command line, each in
a fresh folder, and judged:

  clean   the exit code is one the case allows; a refusal (exit 2) names the place
          (FILE:line:col, FILE:offset N, or the file) and says something; no `nan` and no
          control character reaches the output; nothing in the folder outside the case's
          declared outputs is created, changed or deleted (snapshot before and after, by
          content); no `.attn-tmp` is left; it ends within its time limit; peak RSS under
          the default budget (2 GiB)
  crash   killed by a signal it was not sent, a sanitizer report, `internal error`,
          `std::...` or bad_alloc reaching the user
  hang    past the time limit
  loss    a file outside the outputs changed or deleted

It prints clean/total per surface and fails below 97% clean or on any crash, hang or
loss. Under ATTN_SLOW_BUILD=1 (the sanitizer build) the long texts are 64 KB instead of
1 MB and one case in three is run (every surface keeps its small cases), to stay within
about three minutes. ATTN_HOSTILE_FULL=1 runs every case with the 1 MB texts in any build
(the sanitizer build's full run, by hand: see tests/hostile/README.md). CTest runs it as
shards, each a share of the cases (tests/python/shards.py); the thresholds hold per shard."""
import fcntl
import hashlib
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
SRC = os.path.abspath(os.environ.get("ATTN_SOURCE_DIR", "."))
SLOW = os.environ.get("ATTN_SLOW_BUILD") == "1"
FULL = os.environ.get("ATTN_HOSTILE_FULL") == "1"  # every case, full-size texts, even when SLOW
sys.path.insert(0, os.path.join(SRC, "tests", "hostile"))
import corpus  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shards  # noqa: E402

RSS_LIMIT_KIB = (2 << 30) // 1024 * (3 if SLOW else 1)  # the default budget; ASan's shadow memory on top
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
NAN = re.compile(rb"(?i)(?<![a-z_])-?nan(?![a-z_])")
CRASH = re.compile(r"AddressSanitizer|runtime error:|LeakSanitizer|internal error|std::|bad_alloc|terminate called|"
                   r"Segmentation|core dumped")


def snapshot(d):
    """Every path under d (links not followed): kind, size and content hash."""
    snap = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, d)
            st = os.lstat(p)
            if os.path.islink(p):
                snap[rel] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                snap[rel] = ("dir",)
            elif not os.path.isfile(p):
                snap[rel] = ("special", st.st_mode)
            elif st.st_blocks * 512 < st.st_size // 2 or st.st_size > 64 << 20:  # sparse or huge: size and time
                snap[rel] = ("file", st.st_size, st.st_mtime_ns)
            else:
                with open(p, "rb") as f:
                    snap[rel] = ("file", st.st_size, hashlib.sha256(f.read()).hexdigest())
    return snap


def declared(rel, outputs):
    return any(rel == o or (o.endswith("/") and (rel + "/").startswith(o)) for o in outputs)


def wait_rusage(proc, deadline, on_poll=None):
    """(exit code or -signal, peak RSS KiB, timed out) reaping the child with wait4."""
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, ru.ru_maxrss, False
        if time.time() > deadline:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, ru = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, ru.ru_maxrss, True
        if on_poll:
            on_poll()
        time.sleep(0.005)


def run_pty(argv, env, c, d):
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 10, 60, 0, 0))
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=d, start_new_session=True)
    os.close(slave)
    out = b""
    deadline = time.time() + c["timeout"]
    last_key = time.time()
    while True:
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            out += chunk
        if time.time() - last_key > 0.4:  # Enter pages on, q ends
            try:
                os.write(master, c["keys"] or b"\r")
            except OSError:
                pass
            last_key = time.time()
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            os.close(master)
            return proc.returncode, out, ru.ru_maxrss, False
        if time.time() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, ru = os.wait4(proc.pid, 0)
            proc.returncode = -9
            os.close(master)
            return -9, out, ru.ru_maxrss, True


def run_case(c, base):
    d = tempfile.mkdtemp(dir=base)
    for rel, data in c["files"].items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    if c["make"]:
        c["make"](d)
    before = snapshot(d)
    argv = [ATTN] + [a.replace("{d}", d) for a in c["argv"]]
    env = dict(os.environ, COLUMNS="80", LC_ALL="C.UTF-8")
    for k in ("ATTN_COURSE_SECRET", "ATTN_ALLOW_GUESSABLE_SECRET", "PAGER"):  # the product's defaults
        env.pop(k, None)
    env.update({k: v.replace("{d}", d) for k, v in c["env"].items()})
    start = time.time()
    if c["pty"]:
        rc, out, rss, timed_out = run_pty(argv, env, c, d)
        err = b""
    else:
        stdout_f = tempfile.TemporaryFile(dir=base)
        stderr_f = tempfile.TemporaryFile(dir=base)
        stdin = subprocess.PIPE if c["stdin"] is not None else subprocess.DEVNULL
        stdout = open("/dev/full", "wb") if c["stdout"] == "full" else stdout_f
        pre = (lambda: os.close(1)) if c["stdout"] == "closed" else None
        proc = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=stderr_f, env=env, cwd=d,
                                start_new_session=True, preexec_fn=pre)
        if c["stdin"] is not None:
            try:
                proc.stdin.write(c["stdin"])
                proc.stdin.close()
            except BrokenPipeError:
                pass
        sent = []

        def poll():
            if c["signal"] and not sent:
                sig, marker = c["signal"]
                for e in os.listdir(d):
                    p = os.path.join(d, e)
                    if marker in e and os.path.isdir(p) and os.listdir(p):
                        os.kill(proc.pid, sig)
                        sent.append(sig)
                        return

        rc, rss, timed_out = wait_rusage(proc, start + c["timeout"], poll)
        if stdout is not stdout_f:
            stdout.close()
        stdout_f.seek(0)
        stderr_f.seek(0)
        out, err = stdout_f.read(), stderr_f.read()
        stdout_f.close()
        stderr_f.close()
    elapsed = time.time() - start
    after = snapshot(d)
    verdict, why = judge(c, d, rc, out, err, rss, timed_out, before, after)
    shutil.rmtree(d, ignore_errors=True)
    return verdict, why, elapsed


def names_place(c, text):
    """The refusal names the case's file (FILE:line:col / FILE:offset N / FILE as asked),
    or a place in another file of the case (a spec naming its .npy input's row)."""
    names = {c["where"]} | {os.path.basename(r) for r in c["files"]}
    for n in names:
        w = re.escape(n if n.startswith("/dev") else os.path.basename(n))
        if n != c["where"] or c["place"] != "file":
            if re.search(w + r"(:\d+:\d+|:offset \d+)", text):
                return True
        elif re.search(w, text):
            return True
    return c["place"] == "file" and re.search(re.escape(os.path.basename(c["where"])), text) is not None


def judge(c, d, rc, out, err, rss, timed_out, before, after):
    text = err.decode("utf-8", "replace")
    if timed_out:
        return "hang", f"no end within {c['timeout']} s"
    lost = [p for p in before if not declared(p, c["outputs"]) and after.get(p) != before[p]
            and not before[p][0] == "dir"]
    if lost:
        return "loss", f"changed or deleted: {lost[:5]}"
    if CRASH.search(text) or (rc < 0 and rc not in c["exit"]) or rc in (70, 134, 139):
        return "crash", f"exit {rc}: {text[-400:]}"
    problems = []
    if rc not in c["exit"]:
        problems.append(f"exit {rc}, expected {sorted(c['exit'])}")
    created = [p for p in after if p not in before and not declared(p, c["outputs"])]
    if created:
        problems.append(f"created outside the outputs: {created[:5]}")
    if any("attn-tmp" in p for p in after):
        problems.append("a staged .attn-tmp is left")
    if rc == 2 and not text.strip() and c["stdout"] == "pipe":
        problems.append("refused without a word")
    if rc == 2 and c["place"] and c["where"] and not names_place(c, text):
        problems.append(f"the message does not name {c['where']} ({c['place']})")
    if not c["pty"]:
        if NAN.search(out) or NAN.search(err):
            problems.append("prints nan")
        if CONTROL.search(out.replace(b"\n", b"").replace(b"\t", b"")) or CONTROL.search(err.replace(b"\n", b"").replace(b"\t", b"")):
            problems.append("a control character reaches the terminal")
    elif c["expect"] and c["expect"].encode() not in re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", out):
        problems.append(f"the step was lost: {out[-300:]!r}")
    if rss > RSS_LIMIT_KIB:
        problems.append(f"peak RSS {rss // 1024} MiB over the budget")
    if problems:
        return "unclean", "; ".join(problems) + " | " + text[-300:].replace("\n", " ")
    return "clean", ""


def main():
    cases = corpus.all_cases(SRC, small=SLOW and not FULL)
    if SLOW and not FULL:  # one in three, keeping every surface's first cases
        seen = {}
        kept = []
        for c in cases:
            k = seen.get(c["surface"], 0)
            seen[c["surface"]] = k + 1
            if k < 4 or k % 3 == 0:
                kept.append(c)
        cases = kept
    cases = shards.mine(cases)  # CTest runs the corpus as shards (tests/python/shards.py)
    only = os.environ.get("HOSTILE_ONLY")
    if only:
        cases = [c for c in cases if c["surface"] == only]
    base = tempfile.mkdtemp(prefix="attn-hostile-")
    tally = {}
    bad = []
    start = time.time()
    try:
        for c in cases:
            verdict, why, elapsed = run_case(c, base)
            t = tally.setdefault(c["surface"], {"total": 0, "clean": 0, "crash": 0, "hang": 0, "loss": 0, "unclean": 0})
            t["total"] += 1
            t[verdict] += 1
            if verdict != "clean":
                bad.append((c["surface"], c["name"], verdict, why))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for s, n, v, why in bad:
        print(f"{v:8} {s:11} {n[:60]!r}: {why[:500]}")
    total = sum(t["total"] for t in tally.values())
    clean = sum(t["clean"] for t in tally.values())
    for s, t in sorted(tally.items()):
        extra = "".join(f", {k} {t[k]}" for k in ("crash", "hang", "loss") if t[k])
        print(f"{s:11} {t['clean']:4} / {t['total']:4} clean{extra}")
    grave = sum(t["crash"] + t["hang"] + t["loss"] for t in tally.values())
    print(f"total       {clean:4} / {total:4} clean ({100.0 * clean / max(total, 1):.1f}%), "
          f"{grave} crash/hang/loss, {time.time() - start:.0f} s{' (sanitizer build: sampled)' if SLOW and not FULL else ''}{' (full)' if FULL else ''}{shards.label()}")
    if grave or clean < 0.97 * total:
        print("FAIL: the corpus needs 0 crash, hang or loss and at least 97% clean")
        sys.exit(1)


if __name__ == "__main__":
    main()
