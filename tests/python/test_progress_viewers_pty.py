#!/usr/bin/python3
"""tests/python/test_progress_viewers_pty.py — two lesson viewers and an `exercise check`
answering at once keep every answer (issue 37, Done when). Two `attn lesson 1` viewers on
real pseudo-terminals (80×24) share one XDG_STATE_HOME; each goes to the questions and opens a
different one; then, at the same moment, viewer A answers question 1 (the scaling divisor,
√d_k from the lesson file's own Q), viewer B answers question 2 and an `attn exercise check`
answers an exercise of lesson 3. Both viewers have read progress.toml before either saves, so
a viewer writing back its own copy would erase the other's answer; the read-modify-write under
a lock is raced by 8 forked writers in tests/lessons_progress_test.cpp. Afterwards `attn lessons`
shows all three answers."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_step_viewer_pty import Session, check, failures  # noqa: E402  (the pty driver)

ATTN = os.environ.get("ATTN_BIN", "build/attn")
HERE = os.path.dirname(os.path.abspath(__file__))
LESSON = os.path.join(HERE, "..", "..", "lessons", "01-self-attention.toml")


def scale_divisor():
    """√d_k of lesson 1, from the width of the lesson file's own Q."""
    with open(LESSON, "rb") as f:
        q = tomllib.load(f)["matrices"]["Q"]
    return len(q[0]) ** 0.5


def to_question(s, number):
    """Enter through the steps to the questions, then `a` and the question's number."""
    s.read_until("a: answer")
    for _ in range(40):
        if "[recap" in s.screen:
            break
        s.send("\r")
        s.read_until("a: answer")
    s.send("a")
    s.read_until("then Enter)?")
    s.send(f"{number}\r")
    return s.read_until("answer> ")


def until_any(s, texts, timeout=10.0):
    """Reads the screen until one of texts shows (Session.read_until polls for one)."""
    end = time.time() + timeout
    while time.time() < end:
        if any(t in s.screen for t in texts):
            return True
        s.read_until(texts[0], timeout=0.2)
    return any(t in s.screen for t in texts)


def leave(s):
    """Back to the lesson's prompt (Enter alone at an answer prompt), then q."""
    for _ in range(4):
        s.send("\r")
        if s.read_until("a: answer", timeout=3):
            break
    s.send("q")
    return s.wait(timeout=10)


def main():
    d = tempfile.mkdtemp(prefix="attn-progress-viewers-")
    try:
        state = os.path.join(d, "state")
        env = {"XDG_STATE_HOME": state}
        a = Session("lesson", "1", "--no-pager", "--color", "never", env=env)
        b = Session("lesson", "1", "--no-pager", "--color", "never", env=env)
        check("viewer A reached question 1's prompt", to_question(a, 1), a.screen[-400:])
        check("viewer B reached question 2's prompt", to_question(b, 2), b.screen[-400:])
        answers = os.path.join(d, "answers.json")
        with open(answers, "w") as f:
            f.write('{"03-causal-weights": 2.0}')  # right or wrong, a graded exercise is recorded
        # the three answers at once
        a.send(f"{scale_divisor():g}\r")
        b.send("0 0 0 0 0\r")  # a wrong try is still a try the file must keep
        check_env = dict(os.environ, XDG_STATE_HOME=state)
        p = subprocess.run([ATTN, "exercise", "check", answers], capture_output=True, text=True, env=check_env,
                           timeout=50)
        check("exercise check ran (exit 0 or 1) and saved", p.returncode in (0, 1) and "not saved" not in p.stderr,
              f"exit {p.returncode}: {p.stderr[-300:]}")
        check("viewer A: the right divisor is marked right", a.read_until("✓ Right."), a.screen[-400:])
        for _ in range(6):  # question 2 has several parts, each asked in turn: zeros for every one
            if until_any(b, ["Try again", "✗", "answer> "]) and ("Try again" in b.screen or "✗" in b.screen):
                break
            b.send("0 0 0 0 0\r")
        check("viewer B: its wrong answers were graded", "✗" in b.screen or "Try again" in b.screen, b.screen[-400:])
        for s in (a, b):
            leave(s)
        path = os.path.join(state, "attn", "progress.toml")
        text = open(path).read() if os.path.exists(path) else ""
        with open(path, "rb") as f:
            doc = tomllib.load(f)
        flat = repr(doc)
        check("progress.toml keeps the exercise check's answer", "03-causal-weights" in flat, text[-600:])
        lines = subprocess.run([ATTN, "lessons"], capture_output=True, text=True, env=check_env).stdout
        one = next((ln for ln in lines.splitlines() if "1/3 questions right" in ln), "")
        check("attn lessons: lesson 1 keeps both viewers' questions (1 right, 2 tried)",
              "1 ✓" in one and "2 tried" in one, lines[:300])
        check("attn lessons: lesson 3 keeps the exercise check's", "0/6 questions right:  1 ·  2 tried" in lines,
              lines[:400])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)
    print("two viewers and an exercise check kept every answer")


if __name__ == "__main__":
    main()
