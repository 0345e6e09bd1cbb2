#!/usr/bin/python3
"""tests/python/test_lesson_commands.py — every command a lesson prints runs as
printed. Commands are taken from what `attn lesson N` prints: `attn …` between
backticks, indented command lines ("    attn exercise template 1 > answers-01.toml")
and the closing "Next: attn lesson N+1". Each runs through the shell, in order,
in a scratch folder that has the source tree's examples/ (as a student's checkout
does); none may end in a usage or input error (exit 2), and a file a command
writes must be there for the next one (template, then check). And a command is
never broken over two lines, at any width the width test uses (60, 80, 120): a
student copies it from one line."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []


def commands_of(text):
    found = []
    for m in re.finditer(r"`(attn [^`]+)`", text):
        found.append(" ".join(m.group(1).split()))  # prose may break a command over lines
    for m in re.finditer(r"^ {2,}(attn [^\n]+)$", text, re.M):
        found.append(m.group(1).strip())
    for m in re.finditer(r"^Next: (attn lesson \d+)", text, re.M):
        found.append(m.group(1))
    seen, out = set(), []
    for c in found:
        if c not in seen and "…" not in c and " N " not in c + " " and " K" not in c:
            seen.add(c)
            out.append(c)
    return out


def main():
    numbers = [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s", subprocess.run([ATTN, "lessons"], capture_output=True, text=True).stdout, re.M)]
    bindir = tempfile.mkdtemp(prefix="attn-cmds-bin-")
    os.symlink(os.path.abspath(ATTN), os.path.join(bindir, "attn"))
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ["PATH"]}
    env.pop("ATTN_COURSE_SECRET", None)
    ran = 0
    for n in numbers:
        text = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", "200"],
                              capture_output=True, text=True).stdout
        work = tempfile.mkdtemp(prefix="attn-cmds-")
        os.symlink(os.path.join(os.path.abspath(SRC), "examples"), os.path.join(work, "examples"))
        cmds = commands_of(text)
        if n <= 14 and not any("exercise template" in c for c in cmds):
            failures.append(f"lesson {n}: never mentions attn exercise template")
        if n <= 14 and not any(c.startswith("attn trace") for c in cmds):
            failures.append(f"lesson {n}: never mentions attn trace")
        for c in cmds:
            p = subprocess.run("( " + c + " ) < /dev/null > out.txt 2> err.txt", shell=True, cwd=work, env=env)
            ran += 1
            err = open(os.path.join(work, "err.txt"), encoding="utf-8", errors="replace").read().strip()
            if p.returncode not in (0, 1):
                failures.append(f"lesson {n}: `{c}` exits {p.returncode}: {err[:200]}")
        shutil.rmtree(work)
        for width in (60, 80, 120):
            shown = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", str(width)],
                                   capture_output=True, text=True).stdout
            for m in re.finditer(r"`(attn [^`]+)`", shown):
                if "\n" in m.group(1):
                    failures.append(f"lesson {n} at width {width}: `{' '.join(m.group(1).split())}` is broken over lines")
    shutil.rmtree(bindir)
    for f in failures:
        print("FAIL", f)
    print(f"{ran} commands run from {len(numbers)} lessons")
    sys.exit(1 if failures else 0)


main()
