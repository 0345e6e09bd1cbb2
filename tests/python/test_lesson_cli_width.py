#!/usr/bin/python3
"""tests/python/test_lesson_cli_width.py — what a student reads around the lessons
fits the width and keeps their progress: at --width 60, 80 and 120 no line of
`attn lessons` or of `attn exercise check` (a fresh template of every lesson) is
wider than the width (Hangul counting two columns); `attn exercise check` with a
right answer (√d_k = 2 for lesson 01's d_k = 4, computed here from the lesson
file) shows in `attn lessons` as a question answered right, a template's TODO
counts as no try, and `--width` is accepted by every verb a lesson names."""
import os
import subprocess
import sys
import tempfile
import tomllib
import unicodedata

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def columns(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in line)


def run(args, env, cwd=None):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, env=env, cwd=cwd, stdin=subprocess.DEVNULL)


def widest(text):
    return max((columns(line) for line in text.splitlines()), default=0)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_STATE_HOME": os.path.join(tmp, "state")}
        env.pop("ATTN_COURSE_SECRET", None)
        lessons = run(["lessons"], env).stdout
        numbers = [int(line.split()[0]) for line in lessons.splitlines() if line[:2].strip().isdigit()]
        for n in numbers:
            path = os.path.join(tmp, f"answers-{n:02d}.toml")
            with open(path, "w") as f:
                f.write(run(["exercise", "template", str(n)], env).stdout)
        for width in (60, 80, 120):
            out = run(["lessons", "--width", str(width)], env)
            check(f"attn lessons --width {width} fits", out.returncode == 0 and widest(out.stdout) <= width,
                  (out.returncode, widest(out.stdout)))
            worst = (0, None)
            for n in numbers:
                out = run(["exercise", "check", os.path.join(tmp, f"answers-{n:02d}.toml"), "--width", str(width)], env)
                if out.returncode not in (0, 1):
                    failures.append(f"exercise check of lesson {n}'s template exits {out.returncode}: {out.stderr[:200]}")
                worst = max(worst, (widest(out.stdout), n))
            check(f"attn exercise check --width {width} fits, every lesson's template", worst[0] <= width, worst)
        progress = os.path.join(tmp, "state", "attn", "progress.toml")
        check("a template's TODO answers are no try (no progress written)", not os.path.exists(progress),
              open(progress).read() if os.path.exists(progress) else "")

        with open(os.path.join(SRC, "lessons", "01-self-attention.toml"), "rb") as f:
            d_k = len(tomllib.load(f)["matrices"]["Q"][0])
        right = os.path.join(tmp, "right.toml")
        with open(right, "w") as f:
            f.write(f'["01-scale"]\nanswer = {d_k ** 0.5}\n')
        out = run(["exercise", "check", right], env)
        check("exercise check: √d_k is right", out.returncode == 0, out.stdout[-300:] + out.stderr)
        lines = run(["lessons"], env).stdout.splitlines()
        under = lines[lines.index(next(ln for ln in lines if ln.strip().startswith("1 "))) + 1]
        check("attn lessons shows the question answered through exercise check", "1/3 questions right" in under
              and "1 ✓" in under, under)

        for verb in (["lessons"], ["lesson", "1", "--no-pause"], ["examples"], ["trace", "--example", "cat-causal"],
                     ["shapes", "cross"], ["exercise", "list"], ["exercise", "show", "01-scale"]):
            out = run([*verb, "--width", "70"], env, cwd=tmp)
            check(f"attn {' '.join(verb)} --width 70 is accepted and fits", out.returncode == 0 and widest(out.stdout) <= 70,
                  (out.returncode, out.stderr[:200], widest(out.stdout)))
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
