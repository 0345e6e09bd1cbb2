#!/usr/bin/python3
"""tests/python/test_progress_concurrent.py — the progress file kept whole when several
attn processes answer at once (issue 37, Done when: "an `exercise check` answering at
once keep all answers"): 8 `attn exercise check` runs, each answering a different
exercise, start together against one XDG_STATE_HOME; every exercise they graded must be
in progress.toml afterwards (a read-modify-write without the lock keeps only the last
writer's). The lesson viewers save through the same lessons::save_progress (its forked
writers: tests/lessons_progress_test.cpp, "processes saving at once keep every answer")."""
import os
import shutil
import subprocess
import sys
import tempfile

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def main():
    d = tempfile.mkdtemp(prefix="attn-progress-concurrent-")
    try:
        env = dict(os.environ, XDG_STATE_HOME=os.path.join(d, "state"))
        rows = [line.split() for line in subprocess.run([ATTN, "exercise", "list"], capture_output=True, text=True,
                                                        env=env).stdout.splitlines()]
        # one-part exercises ("01-scale  numeric  1  …"): a bare value answers them
        ids = [r[0] for r in rows if len(r) > 2 and r[0][:2].isdigit() and r[0][2:3] == "-" and r[2] == "1"][:8]
        check("8 exercises listed", len(ids) == 8, repr(ids))
        procs = []
        for i, ex in enumerate(ids):
            path = os.path.join(d, f"a{i}.json")
            with open(path, "w") as f:
                f.write('{"%s": 2.0}' % ex)  # right or wrong, each graded exercise is recorded
            procs.append(subprocess.Popen([ATTN, "exercise", "check", path], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True, env=env))
        errs = [p.communicate(timeout=50)[1] for p in procs]
        check("every check ran (exit 0 or 1), no 'progress not saved'",
              all(p.returncode in (0, 1) for p in procs) and not any("not saved" in e for e in errs),
              repr([(p.returncode, e[-200:]) for p, e in zip(procs, errs)]))
        path = os.path.join(d, "state", "attn", "progress.toml")
        text = open(path).read() if os.path.exists(path) else ""
        missing = [ex for ex in ids if f'"{ex}"' not in text]
        check(f"progress.toml keeps all {len(ids)} answers", not missing, f"missing {missing}: {text[-400:]}")
        left = [n for n in os.listdir(os.path.dirname(path))] if os.path.exists(path) else []
        check("no temporary file left beside it", all(not n.startswith(".") or n.endswith(".lock") for n in left), repr(left))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
