#!/usr/bin/python3
"""tests/python/test_verb_hints.py — a mistyped verb or sub-verb is refused (exit 2)
with the closest one by edit distance, before anything runs: `attn lessson 3`
suggests `lesson`, `attn exercise chek` suggests `check`, `attn model tarin`
suggests `train`, `attn lesson 91` suggests 19 (two digits swapped); a word nothing is close to lists the verbs without a guess;
a mistyped exercise id (`attn exercise show 04-cross-thee`, `[04-cross-thee]` in an
answer file) suggests `04-cross-the`, and a mistyped part (`raws = …`) suggests `raw`; and
words that are no verb where a positional may stand (`attn lesson 3`), or the value
of an option (`attn --lessons DIR lesson 1`), are left alone."""
import os
import subprocess
import sys

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []


def run(*args):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)


def refused(args, hint):
    p = run(*args)
    ok = p.returncode == 2 and hint in p.stderr and p.stdout == ""
    print(("ok   " if ok else "FAIL ") + " ".join(args) + ": " + p.stderr.strip()[:160])
    if not ok:
        failures.append(" ".join(args))


refused(["lessson", "3"], "'lessson' is not a verb of `attn` (did you mean 'lesson'?)")
refused(["exercise", "chek", "x.toml"], "'chek' is not a verb of `attn exercise` (did you mean 'check'?)")
refused(["model", "tarin", "sort"], "(did you mean 'train'?)")
refused(["--lessons", os.path.join(SRC, "lessons"), "trcae"], "(did you mean 'trace'?)")
refused(["lesson", "91", "--no-pause"], "(did you mean 19?)")
refused(["exercise", "show", "04-cross-thee"], "no exercise '04-cross-thee' (did you mean '04-cross-the'?)")
refused(["exercise", "template", "04-cross-thee"], "(did you mean '04-cross-the'?)")

# In an answer file: both are notes of the check (the file is graded, the typo said).
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory(prefix="attn-hints-") as tmp:
    answers = os.path.join(tmp, "answers.toml")
    with open(answers, "w", encoding="utf-8") as f:
        f.write('student = ""\n[04-cross-thee]\nraw = [1, 2, 3, 4, 5]\n[04-cross-the]\nraws = [1, 2, 3, 4, 5]\n')
    p = run("exercise", "check", answers, "--width", "120")
    said = " ".join(p.stdout.split())  # the notes wrap: compare the words
    for want in ("answers.toml:2:1: no exercise '04-cross-thee' (did you mean '04-cross-the'?)",
                 "answers.toml:5:8: exercise 04-cross-the has no part 'raws' (did you mean 'raw'?)"):
        ok = want in said
        print(("ok   " if ok else "FAIL ") + want)
        if not ok:
            failures.append("exercise check notes: " + want + " not in:\n" + p.stdout[-600:])
    for word in ("zzzz-nothing", "qqqq"):  # nothing close: no guess
        with open(answers, "w", encoding="utf-8") as f:
            f.write('student = ""\n[%s]\nraw = 1\n' % word)
        p = run("exercise", "check", answers, "--width", "120")
        if "did you mean" in p.stdout:
            failures.append("a guess for '%s': %s" % (word, p.stdout[-300:]))

p = run("zzzzzz")
if not (p.returncode == 2 and "did you mean" not in p.stderr and "verbs: lessons, lesson, trace" in p.stderr):
    failures.append("a word close to no verb: " + p.stderr.strip()[:200])

for args in (["lesson", "3", "--no-pause", "--step", "1"], ["--lessons", os.path.join(SRC, "lessons"), "lesson", "1", "--no-pause", "--step", "1"]):
    p = run(*args)
    if p.returncode != 0:
        failures.append(" ".join(args) + ": exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
