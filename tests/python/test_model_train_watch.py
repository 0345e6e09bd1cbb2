#!/usr/bin/python3
"""tests/python/test_model_train_watch.py — `attn model train --watch` in a terminal of the
student's size: each frame fits the terminal and shows the whole map, and each redraw
starts where the last frame started, so nothing is left over.

attn runs in a pseudo-terminal of 80×24, 160×48 and 60×20 (TIOCSWINSZ), training the
induction model (32 positions) for a few steps with --watch 1.0. The raw output is cut
into frames at the redraw sequence (ESC[nA ESC[J: up n lines, clear below); judged here:
  - n equals the number of lines the previous frame printed (the cursor returns to the
    previous frame's first line, and ESC[J clears everything under it);
  - a frame plus its progress line has at most the terminal's rows, no line is wider
    than its columns (display width: wide characters count 2);
  - the map covers every query and key: its title says [r × c] and, when downsampled,
    its note the block (R queries × C keys), with r = ⌈32 / R⌉ and c = ⌈32 / C⌉, and the
    frame holds r map rows (a token label, then cells);
  - at 160×48 the 32 × 32 map is drawn whole, cell for cell;
  - the last frame shows the last step."""
import math
import os
import pty
import re
import select
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import unicodedata

ATTN = os.environ.get("ATTN_BIN", "build/attn")
# the sanitizer build trains about ten times slower: 12 steps redrawn every 4 there (the
# terminal's default is every 10), still several frames
SLOW = os.environ.get("ATTN_SLOW_BUILD", "0") == "1"
STEPS = 12 if SLOW else 40
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def width(text):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 0 if unicodedata.combining(ch) else 1 for ch in text)


def run_in_terminal(cols, rows, argv, cwd):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 50)
        if not ready:
            p.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        out += data
    os.close(master)
    return p.wait(), out.decode("utf-8")


def frames_of(raw):
    """[(up, frame_lines, progress)]: up is None for the first frame."""
    pieces = re.split(r"\x1b\[(\d+)A\x1b\[J", raw)
    out = []
    for k in range(0, len(pieces), 2):
        up = None if k == 0 else int(pieces[k - 1])
        body = pieces[k].replace("\r\n", "\n")  # the terminal's line discipline adds the \r
        if "\r\x1b[K" not in body:
            continue
        frame, progress = body.split("\r\x1b[K", 1)
        out.append((up, frame, progress.split("\n")[0]))
    return out


def judge(cols, rows, raw, n=32):
    frames = frames_of(raw)
    check(len(frames) >= 3, f"{cols}×{rows}: several frames drawn (got {len(frames)})")
    prev_lines = None
    for i, (up, frame, progress) in enumerate(frames):
        lines = frame.split("\n")[:-1]
        where = f"{cols}×{rows} frame {i}"
        if up is not None:
            check(up == prev_lines, f"{where}: redraw goes up {up} lines, the previous frame had {prev_lines}")
        prev_lines = len(lines)
        check(len(lines) + 1 <= rows, f"{where}: {len(lines)} lines + the progress line > {rows} rows")
        for line in lines + [progress]:
            check(width(line) <= cols, f"{where}: a line {width(line)} wide: {line!r}")
        title = re.search(r"layer 1 head 0 at step (\d+)\s+\[(\d+) × (\d+)\]", frame)
        check(title is not None, f"{where}: the map's title: {lines[:2]!r}")
        if not title:
            continue
        r, c = int(title.group(2)), int(title.group(3))
        block = re.search(r"max of (\d+) queries × (\d+) keys", frame)
        rb, cb = (int(block.group(1)), int(block.group(2))) if block else (1, 1)
        check(r == math.ceil(n / rb) and c == math.ceil(n / cb),
              f"{where}: [{r} × {c}] in blocks of {rb} × {cb} covers {n} × {n}")
        map_rows = [l for l in lines if re.match(r"^  \S+\s+(███|▓▓▓|▒▒▒|░░░|·)", l)]
        check(len(map_rows) == r, f"{where}: {len(map_rows)} map rows drawn, the title says {r}")
        if i == len(frames) - 1:
            check(int(title.group(1)) == STEPS, f"{where}: the last frame shows step {title.group(1)}, not {STEPS}")
            check(progress.startswith(f"step {STEPS}/{STEPS}"), f"{where}: the progress line: {progress!r}")
    return frames


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for cols, rows in ((80, 24), (160, 48), (60, 20)):
            rc, raw = run_in_terminal(cols, rows, [ATTN, "model", "train", "induction", "--iters", str(STEPS), "--watch",
                                                   "1.0", "--out", f"w{cols}.safetensors"] + (["--every", "4"] if SLOW else []), tmp)
            check(rc == 0, f"{cols}×{rows}: exit {rc}: {raw[-400:]!r}")
            frames = judge(cols, rows, raw)
            if (cols, rows) == (160, 48) and frames:
                check("max of" not in frames[-1][1], "160×48: the 32 × 32 map drawn cell for cell")
            print(f"{cols}×{rows}: {len(frames)} frames, the last {len(frames[-1][1].splitlines()) if frames else 0} lines")
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
