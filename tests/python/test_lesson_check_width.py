#!/usr/bin/python3
"""tests/python/test_lesson_check_width.py — `attn lesson check` takes --width like every
verb: a broken lesson's problems (file:line:col, the closest key, the known keys)
and a sound lesson's "ok" line fit 40, 60 and 80 columns, and the exit codes stay
2 (problems) and 0 (sound)."""
import os
import subprocess
import sys
import tempfile

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.toml")
    with open(bad, "w", encoding="utf-8") as f:
        f.write('number = 90\ntitel = "x"\n')
    good = os.path.join(SRC, "lessons", "01-self-attention.toml")
    for width in (40, 60, 80):
        for path, code in ((bad, 2), (good, 0)):
            p = subprocess.run([ATTN, "lesson", "check", path, "--width", str(width)], capture_output=True, text=True)
            lines = (p.stdout + p.stderr).splitlines()
            if p.returncode != code:
                failures.append(f"{path} at {width}: exit {p.returncode}, expected {code}")
            if not lines or max(len(x) for x in lines) > width:
                failures.append(f"{path} at {width}: a line is wider: {max((len(x) for x in lines), default=0)}")
            if code == 2 and "did you mean 'title'?" not in " ".join(" ".join(lines).split()):
                failures.append(f"{path} at {width}: the hint is lost")
for f in failures:
    print("FAIL", f)
print("ok" if not failures else "%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
