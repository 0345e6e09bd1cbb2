#!/usr/bin/python3
"""tests/python/test_lesson_commands.py — every command a lesson prints runs as
printed. Commands are taken from what `attn lesson N` prints: `attn …` between
backticks, indented command lines ("    attn exercise template 1 > answers-01.toml")
and the closing "Next: attn lesson N+1". Each runs through the shell, in order,
in an empty scratch folder (no source tree: the examples travel with attn), and
each that neither writes a file nor reads one an earlier command wrote runs
from / as well; every one exits 0 (`attn exercise
check` of a fresh template may say 1: not yet right), and a file a command
writes must be there for the next one (template, then check). Every lesson
points at a trace example (`attn trace --example NAME`). And a command is
never broken over two lines, at any width the width test uses (60, 80, 120): a
student copies it from one line. An `attn model train` command that the CTest fixture
lesson_models.train.* already ran this test run, as printed (its MODEL.command file in
$ATTN_LESSON_MODELS_DIR; the fixture's `--losses FILE` only adds a file), is not trained
again: its checkpoint is taken from there; one
too long to train in a test ($ATTN_LESSON_MODELS_LONG: the induction model) is taken from
lessons/models/, which test_lesson_models.py checks is that command's output."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shards  # noqa: E402
import train_lesson_models as fixture  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
# sanitizer build: no training runs, and each command runs once (the release pass runs it from /
# too and checks the widths: the same code paths again)
SLOW = os.environ.get("ATTN_SLOW_BUILD", "0") == "1"
TRAINED = os.environ.get("ATTN_LESSON_MODELS_DIR", "")
LONG = os.environ.get("ATTN_LESSON_MODELS_LONG", "").split()  # too long to train in a test: shipped
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


def trained_by_fixture(c, work):
    """True when the fixture ran command c as printed: its outputs are copied into work."""
    if not TRAINED or not c.startswith("attn model train "):
        return False
    for name in os.listdir(TRAINED):
        if not name.endswith(".command"):
            continue
        with open(os.path.join(TRAINED, name), encoding="utf-8") as f:
            ran = f.read().split()
        if "--losses" in ran and "--losses" not in c.split():  # --losses only adds a file
            at = ran.index("--losses")
            ran = ran[:at] + ran[at + 2:]
        if ran != c.split():
            continue
        argv = c.split()
        outputs = [argv[argv.index(flag) + 1] for flag in ("--out", "--losses") if flag in argv]
        for out in outputs:
            shutil.copyfile(os.path.join(TRAINED, os.path.basename(out)), os.path.join(work, out))
        print(f"`{c}`: trained once this run by the fixture lesson_models.train.{name[:-len('.command')]}")
        return True
    for model, (lesson, argv) in fixture.documented_commands().items():  # the shipped checkpoint
        if model in LONG and argv == c.split():  # test_lesson_models.py checks it is this command's output
            shutil.copyfile(os.path.join(SRC, "lessons", "models", model + ".safetensors"),
                            os.path.join(work, model + ".safetensors"))
            print(f"`{c}`: lessons/models/{model}.safetensors, the checkpoint this command writes")
            return True
    return False


def main():
    numbers = [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s", subprocess.run([ATTN, "lessons"], capture_output=True, text=True).stdout, re.M)]
    bindir = tempfile.mkdtemp(prefix="attn-cmds-bin-")
    os.symlink(os.path.abspath(ATTN), os.path.join(bindir, "attn"))
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ["PATH"]}
    env.pop("ATTN_COURSE_SECRET", None)
    env.pop("ATTN_LESSONS_DIR", None)
    state = tempfile.mkdtemp(prefix="attn-cmds-state-")
    env["XDG_STATE_HOME"] = state  # `exercise check` keeps progress: never in the tester's home
    ran = 0
    for n in shards.mine(numbers):  # CTest runs shards of the lessons (tests/python/shards.py)
        text = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", "200"],
                              capture_output=True, text=True).stdout
        work = tempfile.mkdtemp(prefix="attn-cmds-")
        cmds = commands_of(text)
        written = set()  # files earlier commands of this lesson wrote
        untrained = set()  # checkpoints a skipped `attn model train` would have written
        if n <= 14 and not any("exercise template" in c for c in cmds):
            failures.append(f"lesson {n}: never mentions attn exercise template")
        if not any(c.startswith("attn trace --example ") for c in cmds):
            failures.append(f"lesson {n}: never points at a trace example (attn trace --example NAME)")
        for c in cmds:
            if (c.startswith("attn model train") or any(w in c.split() for w in untrained)) and SLOW:
                print(f"lesson {n}: skip `{c}`: training takes minutes in the sanitizer build")
                untrained |= set(re.findall(r"--out\s+(\S+)", c))
                continue
            allowed = (0, 1) if c.startswith("attn exercise check") else (0,)
            if trained_by_fixture(c, work):
                ran += 1
                written |= set(re.findall(r"--out\s*(\S+)", c))
                continue
            p = subprocess.run("( " + c + " ) < /dev/null > out.txt 2> err.txt", shell=True, cwd=work, env=env)
            ran += 1
            err = open(os.path.join(work, "err.txt"), encoding="utf-8", errors="replace").read().strip()
            if p.returncode not in allowed:
                failures.append(f"lesson {n}: `{c}` exits {p.returncode}: {err[:200]}")
            written |= set(re.findall(r"(?:>|--out)\s*(\S+)", c))  # a checkpoint --out is written too
            if not SLOW and ">" not in c and "--out" not in c and not any(w in c for w in written):  # no file written or read back: from / too
                q = subprocess.run(c, shell=True, cwd="/", env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
                if q.returncode not in allowed:
                    failures.append(f"lesson {n}: `{c}` run from / exits {q.returncode}: {q.stderr.strip()[:200]}")
        shutil.rmtree(work)
        for width in () if SLOW else (60, 80, 120):
            shown = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", str(width)],
                                   capture_output=True, text=True).stdout
            for m in re.finditer(r"`(attn [^`]+)`", shown):
                if "\n" in m.group(1):
                    failures.append(f"lesson {n} at width {width}: `{' '.join(m.group(1).split())}` is broken over lines")
    shutil.rmtree(bindir)
    shutil.rmtree(state)
    for f in failures:
        print("FAIL", f)
    print(f"{ran} commands run from {len(numbers)} lessons")
    sys.exit(1 if failures else 0)


main()
