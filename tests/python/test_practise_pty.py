#!/usr/bin/python3
"""tests/python/test_practise_pty.py — a student's path on a real pseudo-terminal
(80×24), using only what the screen says: `attn lesson 1`, Enter through the steps
to the questions, `a` (named on the prompt line), pick a question, a wrong answer
(the grader's feedback and the hint), then the right one (computed here with NumPy
from the lesson file, not taken from attn), ✓; `attn lessons` then shows the
progress. Also: `s` shows the worked solution only after a try, SIGINT at the answer prompt leaves the
terminal's settings as they were, a corrupt progress file is reported and ignored,
a resize redraws the step at the new width, and a pipe is unchanged. A two-part
question answered wrong then right: a part right only given a wrong earlier part
is never a bare ✓ and is asked again, and full marks come within the tries."""
import fcntl
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import tomllib
import unicodedata

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_step_viewer_pty import Session, check, cooked, failures  # noqa: E402  (the pty driver)

ATTN = os.environ.get("ATTN_BIN", "build/attn")
HERE = os.path.dirname(os.path.abspath(__file__))
LESSON = os.path.join(HERE, "..", "..", "lessons", "01-self-attention.toml")


def lesson_numbers():
    """Lesson 1's weights and output, by NumPy from the lesson file's own Q, K, V."""
    with open(LESSON, "rb") as f:
        doc = tomllib.load(f)
    m = doc["matrices"]
    q, k, v = (np.array(m[name], dtype=float) for name in ("Q", "K", "V"))
    d_k = q.shape[1]
    scores = q @ k.T / np.sqrt(d_k)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    unscaled = np.exp(q @ k.T - (q @ k.T).max(axis=1, keepdims=True))
    unscaled /= unscaled.sum(axis=1, keepdims=True)
    return np.sqrt(d_k), weights, weights @ v, unscaled, unscaled @ v


def typed(m):
    """A matrix as a student types it on one line: rows split by ';'."""
    return "; ".join(" ".join(f"{x:.4f}" for x in row) for row in m)


def display_width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def to_questions(s):
    """Enter from the intro through the steps to the last page: the recap and the questions."""
    check("the prompt names the answer key", s.read_until("a: answer"), s.screen[-300:])
    for _ in range(40):
        if "[recap" in s.screen:
            break
        s.send("\r")
        s.read_until("a: answer")
    check("the last page shows the questions", "Questions" in s.screen and "[recap" in s.screen, s.screen[-400:])


def screen_table(screen, name):
    """The numbers of the table titled `name  [r × c]` as printed on the screen."""
    lines = screen.replace("\r", "").split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"{name}  ["))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.strip():
            break
        rows.append([float(x) for x in ln.split()[1:]])
    return np.array(rows)


def check_solution_numbers(question, solution):
    """The worked solution of the practice question, against NumPy on the numbers the screen showed."""
    q, k, v = (screen_table(question, n) for n in ("Q", "K", "V"))
    raw = q[1] @ k.T  # the query "cat" is row 1
    scaled = raw / np.sqrt(q.shape[1])
    w = np.exp(scaled - scaled.max())
    w /= w.sum()
    want = {"raw": raw, "scaled": scaled, "weights": w, "output": w @ v}
    text = solution.replace("\r", "")
    shown = {}
    for part in want:
        m = re.search(rf"^  {part}: .*?the answer: .*?\n\s+cat\s+\[([^\]]*)\]", text, re.S | re.M)
        shown[part] = np.array([float(x) for x in m.group(1).split(",")]) if m else None
    ok = all(shown[p] is not None and np.allclose(shown[p], want[p], atol=6e-5) for p in want)
    check("the worked solution's numbers equal NumPy's on the practice numbers shown", ok, (shown, want))


def student_path(state):
    scale, weights, output, unscaled_w, unscaled_o = lesson_numbers()
    s = Session("lesson", "1", "--no-pager", "--color", "never", env={"XDG_STATE_HOME": state})
    to_questions(s)
    s.send("a")
    check("a lists the questions and says how to pick one",
          s.read_until("Which question (1-3, then Enter)?") and "1. The scaling divisor" in s.screen, s.screen[-500:])

    s.send("1\r")
    check("question 1 shows its numbers and how to type an answer",
          s.read_until("answer> ") and "the lesson's own numbers" in s.screen and "Type numbers on one line" in s.screen,
          s.screen[-600:])
    s.send("abc\r")  # not a number: asked again, no try used
    check("input that is not an answer costs no try",
          s.read_until("answer> ") and "no try used" in s.screen and "Try again" not in s.screen, s.screen[-600:])
    s.send(f"{scale * scale:g}\r")  # d_k itself: the divisor without the square root
    check("a wrong divisor is marked wrong with the hint",
          s.read_until("answer> ") and "✗" in s.screen and "Hint: " in s.screen and "Try again (1 of 3" in s.screen,
          s.screen[-600:])
    check("the first wrong try does not give the expected value away",
          "expected" not in s.screen and f"{scale:.4f}" not in s.screen, s.screen[-600:])
    s.send(f"{scale:g}\r")
    check("the right divisor is marked right", s.read_until("✓ Right."), s.screen[-400:])
    check("back at the question list", s.read_until("Which question ("), s.screen[-300:])

    s.send("3\r")
    check("question 3 asks the weights part first", s.read_until("answer> ") and "weights" in s.screen, s.screen[-400:])
    s.send(typed(unscaled_w) + "\r")
    check("question 3 then asks the output part", s.read_until("answer> "), s.screen[-400:])
    s.send(typed(unscaled_o) + "\r")
    check("weights without the scaling are named as that mistake",
          s.read_until("Try again") and "✗ weights" in s.screen and "scal" in s.screen.lower(), s.screen[-900:])
    s.send(typed(weights) + "\r")
    s.read_until("answer> ")
    s.send(typed(output) + "\r")
    check("the NumPy weights and output are right", s.read_until("✓ Right."), s.screen[-600:])

    s.send("2\r")
    check("question 2 (practice numbers) is labelled as practice",
          s.read_until("answer> ") and "PRACTICE numbers" in s.screen, s.screen[-600:])
    q2 = s.screen
    s.send("s\r")  # before any try: no solution (issue 36), the question is asked again
    check("s before a try is refused, the part asked again",
          s.read_until("comes after a try") and s.read_until("answer> ") and "Worked solution" not in s.screen, s.screen[-600:])
    for zeros in (5, 5, 5, 4):  # a wrong try: raw, scaled, weights (5 keys) and output (4 features)
        s.send(" ".join(["0"] * zeros) + "\r")
        s.read_until("answer> ")
    check("a wrong try of every part uses one try", "Try again (1 of 3" in s.screen, s.screen[-600:])
    s.send("s\r")
    check("s after a try shows the worked solution", s.read_until("Worked solution (the practice numbers)") and
          s.read_until("Which question ("), s.screen[-600:])
    check_solution_numbers(q2, s.screen)
    s.send("\r")
    check("Enter alone goes back to the lesson's prompt", s.read_until("a: answer"), s.screen[-300:])
    s.send("q")
    status = s.wait()
    check("exit 0 after q", status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status)
    check("terminal cooked again", cooked(s.modes()) and s.modes()[3] == s.cooked[3], s.modes()[3])

    env = {**os.environ, "XDG_STATE_HOME": state}
    out = subprocess.run([ATTN, "lessons"], capture_output=True, text=True, env=env)
    lines = out.stdout.splitlines()
    under1 = lines[lines.index(next(ln for ln in lines if re.match(r"\s*1\s", ln))) + 1]
    check("attn lessons shows 2 of 3 questions right under lesson 1 (2 tried before its solution), each marked",
          out.returncode == 0 and re.fullmatch(r"\s+2/3 questions right:\s+1 ✓\s+2 tried\s+3 ✓", under1) is not None,
          out.stdout[:400])
    check("attn lessons: a lesson without answers keeps its one line",
          re.match(r"\s*3\s", lines[lines.index(next(ln for ln in lines if re.match(r"\s*2\s", ln))) + 1]) is not None,
          out.stdout[:400])
    with open(os.path.join(state, "attn", "progress.toml")) as f:
        saved = f.read()
    check("progress.toml holds the graded questions",
          '"01-scale" = "right"' in saved and '"01-self-weights" = "right"' in saved, saved)


def solution_after_a_remembered_try(state):
    """A try the progress file remembers (an earlier session) opens the worked solution at once."""
    os.makedirs(os.path.join(state, "attn"))
    with open(os.path.join(state, "attn", "progress.toml"), "w") as f:
        f.write('[questions]\n"01-self-cat" = "tried"\n')
    s = Session("lesson", "1", "--no-pager", "--color", "never", env={"XDG_STATE_HOME": state})
    s.read_until("a: answer")
    s.send("a")
    s.read_until("Which question (")
    s.send("2\r")
    s.read_until("answer> ")
    s.send("s\r")
    check("s after a try the progress file remembers shows the worked solution",
          s.read_until("Worked solution (the practice numbers)") and "comes after a try" not in s.screen, s.screen[-600:])
    s.read_until("Which question (")
    s.send("\r")
    s.read_until("a: answer")
    s.send("q")
    s.wait()


def interrupt_at_answer(state):
    s = Session("lesson", "1", "--no-pager", "--color", "never", env={"XDG_STATE_HOME": state})
    check("SIGINT: prompt shown", s.read_until("a: answer"), s.screen[-300:])
    s.send("a")
    s.read_until("Which question (")
    s.send("1\r")
    check("SIGINT: at the answer prompt", s.read_until("answer> "), s.screen[-300:])
    fcntl.ioctl(s.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 70, 0, 0))  # SIGWINCH mid-answer
    s.send("2\r")
    check("a resize at the answer prompt keeps the question (the answer is still graded)",
          s.read_until("✓ Right."), s.screen[-300:])
    s.read_until("Which question (")
    s.send("1\r")
    s.read_until("answer> ")
    s.send("0.5")  # typed, not yet entered
    s.send("\x03")
    status = s.wait()
    check("SIGINT at the answer prompt ends attn by the signal",
          status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT, status)
    check("SIGINT at the answer prompt leaves the terminal's settings as they were",
          s.modes()[3] == s.cooked[3] and cooked(s.modes()), (s.modes()[3], s.cooked[3]))


def three_wrong_tries(state):
    scale = lesson_numbers()[0]
    s = Session("lesson", "1", "--no-pager", "--color", "never", env={"XDG_STATE_HOME": state})
    s.read_until("a: answer")
    s.send("a")
    s.read_until("Which question (")
    s.send("1\r")
    s.read_until("answer> ")
    for k, wrong in enumerate((scale * scale, 1.0, scale + 1), start=1):
        s.send(f"{wrong:g}\r")
        if k < 3:
            check(f"wrong try {k}: try again, no solution yet",
                  s.read_until("answer> ") and f"Try again ({k} of 3" in s.screen and "Worked solution" not in s.screen,
                  s.screen[-400:])
    check("the third wrong try shows the worked solution with the divisor",
          s.read_until("Which question (") and "Worked solution (the lesson's numbers)" in s.screen
          and f"√d_k = {scale:g}" in s.screen, s.screen[-500:])
    check("the last wrong try gives the expected value", "expected" in s.screen, s.screen[-500:])
    s.send("\r")
    s.read_until("a: answer")
    s.send("q")
    s.wait()


def no_pause_on_a_terminal():
    s = Session("lesson", "1", "--no-pause", "--no-pager", "--color", "never")
    whole = s.read_until("Next: attn lesson 2")  # the lesson's last line
    status = s.wait()
    check("--no-pause on a terminal: the whole lesson, no prompt, exit 0",
          whole and "Questions" in s.screen and "[step" not in s.screen and status is not None and os.WIFEXITED(status)
          and os.WEXITSTATUS(status) == 0, (status, s.screen[-300:]))


def corrupt_progress(state):
    os.makedirs(os.path.join(state, "attn"), exist_ok=True)
    path = os.path.join(state, "attn", "progress.toml")
    with open(path, "w") as f:
        f.write("[questions\n\x1b[31m = 3\n")
    env = {**os.environ, "XDG_STATE_HOME": state}
    out = subprocess.run([ATTN, "lessons"], capture_output=True, text=True, env=env)
    check("a corrupt progress file: attn lessons still lists the lessons (exit 0)",
          out.returncode == 0 and "Self-attention" in out.stdout, (out.returncode, out.stderr))
    check("a corrupt progress file is reported, without control characters",
          "progress" in out.stderr and "ignored" in out.stderr and "\x1b" not in out.stderr, out.stderr)


def colour_marks(state):
    """--color always: the ✗ and ✓ of a try are coloured, never printed as escape text."""
    scale = lesson_numbers()[0]
    s = Session("lesson", "1", "--color", "always", env={"XDG_STATE_HOME": state})
    s.read_until("a: answer")
    s.send("a")
    s.read_until("Which question (")
    s.send("1\r")
    s.read_until("answer> ")
    s.send(f"{scale * scale:g}\r")
    check("colour: a wrong try shows a red ✗, no escape text",
          s.read_until("Try again") and "\x1b[31m✗" in s.screen and "\\x1b" not in s.screen, s.screen[-400:])
    s.send(f"{scale:g}\r")
    check("colour: a right try shows a green ✓, no escape text",
          s.read_until("Right.") and "\x1b[32m✓" in s.screen and "\\x1b" not in s.screen, s.screen[-400:])
    s.send("\r")
    s.read_until("a: answer")
    s.send("q")
    s.wait()


def resize():
    s = Session("lesson", "1", "--step", "1", "--color", "never")
    check("resize: prompt shown", s.read_until("a: answer"), s.screen[-300:])
    s.screen = ""
    fcntl.ioctl(s.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))  # the kernel sends SIGWINCH
    check("a resize redraws the step", s.read_until("a answer") and "Step 1/" in s.screen, s.screen[-300:])
    widest = max(display_width(ln) for ln in s.screen.replace("\r", "").split("\n"))
    check("the redrawn step fits the new width (60)", widest <= 60, widest)
    check("after the resize: still raw mode at the prompt", not (s.modes()[3] & termios.ICANON))
    s.send("q")
    s.wait()
    check("after the resize and q: the terminal's settings as they were", s.modes()[3] == s.cooked[3] and cooked(s.modes()),
          (s.modes()[3], s.cooked[3]))


def pipes_unchanged():
    out = subprocess.run([ATTN, "lesson", "1", "--color", "never"], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL)
    check("a pipe: the whole lesson, no prompt, no answering", "[step" not in out.stdout and "answer>" not in out.stdout
          and "Questions" in out.stdout)


def unsaved_progress(tmp):
    """A progress file that cannot be written: the answer is still marked right, the
    screen says why nothing was saved, and never "Saved" right after it (issue 18)."""
    state = os.path.join(tmp, "not-a-folder")
    with open(state, "w") as f:
        f.write("a file where the state folder should be\n")
    scale = lesson_numbers()[0]
    s = Session("lesson", "1", "--no-pager", "--color", "never", env={"XDG_STATE_HOME": state})
    to_questions(s)
    s.send("a")
    s.read_until("Which question (1-3, then Enter)?")
    s.send("1\r")
    s.read_until("answer> ")
    s.send(f"{scale:g}\r")
    check("unsaved progress: right, and said so", s.read_until("✓ Right.") and "progress not saved" in s.screen,
          s.screen[-600:])
    s.read_until("Which question (")
    check("unsaved progress: never 'Saved' after 'progress not saved'", "Saved" not in s.screen, s.screen[-600:])
    s.send("\r")
    s.read_until("a: answer")
    s.send("q")
    s.wait()


def multi_part_fair(state):
    """A two-part question (lesson 1's weights and output) answered wrong then right:
    the output computed from the wrong weights is marked as following from them
    (never a bare ✓), the retry asks both parts again, and the second try scores full
    marks (one try per submission). Three such tries end on a screen that marks no
    wrong value right."""
    _, weights, output, unscaled_w, unscaled_o = lesson_numbers()
    s = Session("lesson", "1", "--no-pager", "--color", "never", env={"XDG_STATE_HOME": state})
    s.read_until("a: answer")
    s.send("a")
    s.read_until("Which question (")
    s.send("3\r")
    s.read_until("answer> ")
    s.send(typed(unscaled_w) + "\r")
    s.read_until("answer> ")
    s.send(typed(unscaled_o) + "\r")
    check("multi-part: the wrong weights are ✗ and the output from them is not ✓",
          s.read_until("Try again (1 of 3") and "✗ weights" in s.screen and "↳ output" in s.screen
          and "✓ output" not in s.screen, s.screen[-900:])
    check("multi-part: the retry asks the weights again", s.read_until("answer> ") and "weights:" in s.screen,
          s.screen[-400:])
    s.send(typed(weights) + "\r")
    check("multi-part: the output that followed from the wrong weights is asked again",
          s.read_until("answer> ") and "output:" in s.screen, s.screen[-400:])
    s.send(typed(output) + "\r")
    check("multi-part: wrong then right reaches full marks on the second try",
          s.read_until("✓ Right.") and "Try again (2" not in s.screen, s.screen[-600:])
    s.read_until("Which question (")
    s.send("3\r")
    s.read_until("answer> ")
    for k in range(3):
        s.send(typed(unscaled_w) + "\r")
        s.read_until("answer> ")
        s.send(typed(unscaled_o) + "\r")
        if k < 2:
            s.read_until("answer> ")
    check("multi-part: the last screen marks no wrong value right",
          s.read_until("Which question (") and "Worked solution" in s.screen and "✓ output" not in s.screen
          and "✓ weights" not in s.screen and "↳ output" in s.screen, s.screen[-1200:])
    s.send("\r")
    s.read_until("a: answer")
    s.send("q")
    s.wait()


with tempfile.TemporaryDirectory() as tmp:
    student_path(os.path.join(tmp, "a"))
    unsaved_progress(tmp)
    interrupt_at_answer(os.path.join(tmp, "b"))
    solution_after_a_remembered_try(os.path.join(tmp, "g"))
    corrupt_progress(os.path.join(tmp, "c"))
    three_wrong_tries(os.path.join(tmp, "d"))
    colour_marks(os.path.join(tmp, "e"))
    multi_part_fair(os.path.join(tmp, "f"))
no_pause_on_a_terminal()
resize()
pipes_unchanged()
sys.exit(1 if failures else 0)
