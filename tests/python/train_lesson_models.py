#!/usr/bin/python3
"""tests/python/train_lesson_models.py OUT_DIR [MODEL…] — the CTest fixture `lesson_models.train.*`:
runs, once per test run, the `attn model train` commands the lessons document in their headers
("#   attn model train sort --out sort.safetensors …"), writing each checkpoint (and its
`--losses` file) into OUT_DIR, and records the commands it ran in OUT_DIR/MODEL.command (one
line: the command as the lesson prints it). With MODEL names, only those checkpoints.

Two tests read what it writes instead of training again (a training run takes up to a minute):
test_lesson_models.py compares the bytes with the built-in checkpoints of lessons/models/, and
test_lesson_commands.py takes the checkpoint a lesson's `attn model train` command writes from
here when the command is one this fixture ran. Under ATTN_SLOW_BUILD=1 (sanitizers, Debug)
nothing is trained — training takes many minutes there — and both tests say they skip."""
import os
import re
import shutil
import subprocess
import sys
import time

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
SLOW = os.environ.get("ATTN_SLOW_BUILD", "0") == "1"


def documented_commands():
    """{model name: (lesson file, argv)}: every '#   attn model train … --out NAME.safetensors' header
    line of lessons 20–22; a checkpoint two lessons document is made once, by the longer command."""
    cmds = {}
    for name in sorted(os.listdir(os.path.join(SRC, "lessons"))):
        if not re.match(r"2[0-2]-.*\.toml$", name):
            continue
        with open(os.path.join(SRC, "lessons", name), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^#\s+(attn model train .*--out (\S+)\.safetensors.*)$", line.rstrip())
                if m and (m.group(2) not in cmds or len(m.group(1).split()) > len(cmds[m.group(2)][1])):
                    cmds[m.group(2)] = (name, m.group(1).split())
    return cmds


def train(out_dir, model, lesson, argv):
    """Runs argv with its outputs moved into out_dir; returns an error text or None."""
    work = os.path.join(out_dir, model + ".work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    t0 = time.monotonic()
    r = subprocess.run([ATTN] + argv[1:], cwd=work, capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        return f"{lesson}: `{' '.join(argv)}` exited {r.returncode}: {r.stderr.strip()[-300:]}"
    for f in os.listdir(work):  # the checkpoint, its --losses file
        os.replace(os.path.join(work, f), os.path.join(out_dir, f))
    os.rmdir(work)
    with open(os.path.join(out_dir, model + ".command"), "w", encoding="utf-8") as f:
        f.write(" ".join(argv) + "\n")
    print(f"ok: {lesson}: `{' '.join(argv)}` in {time.monotonic() - t0:.1f} s")
    return None


def main():
    if len(sys.argv) < 2:
        print("usage: train_lesson_models.py OUT_DIR [MODEL…]", file=sys.stderr)
        sys.exit(2)
    out_dir, wanted = sys.argv[1], sys.argv[2:]
    cmds = documented_commands()
    if not cmds:
        print("FAIL: no lesson documents an 'attn model train' command")
        sys.exit(1)
    unknown = [m for m in wanted if m not in cmds]
    if unknown:
        print(f"FAIL: no lesson documents a training command for {unknown}; documented: {sorted(cmds)}")
        sys.exit(1)
    if SLOW:
        print("skip: training the lesson checkpoints takes many minutes in the sanitizer build")
        return
    os.makedirs(out_dir, exist_ok=True)
    errors = []
    for model in wanted or sorted(cmds):
        for stale in (model + ".command", model + ".safetensors"):  # never a previous run's result
            if os.path.exists(os.path.join(out_dir, stale)):
                os.remove(os.path.join(out_dir, stale))
        lesson, argv = cmds[model]
        err = train(out_dir, model, lesson, argv)
        if err:
            errors.append(err)
            print("FAIL:", err)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
