#!/usr/bin/python3
"""tests/python/test_lesson_walk_pty.py — every lesson walked on a real
pseudo-terminal at 80×24 with Enter alone, from its first page (the intro) to
"end of lesson NN": every screen drawn fits 24 rows and 80 columns and ends in the
prompt line, no pager's "(END)" ever shows, and the recap and the questions are
the last page. Nothing is left unseen: on every page taller than the screen,
Enter scrolls before it leaves (the screens' "lines a–b of n" cover 1..n, and the
prompt says "more below" until the last screenful), and every line the lesson
prints without a terminal (`--no-pause --width 80`) showed on some screen. Then the keys that scroll a tall page (Space, Down, Up, Home, End,
j, k) move the "more below" line's position as they should, and q on the last
step shows the recap before it quits."""
import os
import re
import subprocess
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_step_viewer_pty import ATTN, Session, check, failures  # noqa: E402

CLEAR = "\x1b[H\x1b[2J"
PROMPT = re.compile(r"\[(intro|recap|step \d+/\d+) · [^\n]*\] $")


def columns(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in line)


def last_screen(text):
    """The last screen drawn (after the last clear), or None when none was."""
    at = text.rfind(CLEAR)
    return None if at < 0 else text[at + len(CLEAR):]


def screen_problem(text):
    screen = last_screen(text)
    if screen is None:
        return "no screen was drawn"
    if "(END)" in text:
        return "a pager's (END) showed"
    lines = screen.replace("\r", "").split("\n")
    if len(lines) > 24:
        return f"{len(lines)} rows on a 24-row screen"
    if not PROMPT.search(lines[-1]):
        return "the last row is not the prompt: " + repr(lines[-1][-100:])
    wide = [l for l in lines if columns(l) > 80]
    if wide:
        return "a line wider than 80 columns: " + repr(wide[0])
    return None


MARKER = re.compile(r"lines (\d+)–(\d+) of (\d+)")


def screen_lines(text):
    """The rows of the last screen, without the marker, note and prompt rows."""
    rows = last_screen(text).replace("\r", "").split("\n")[:-1]
    while rows and (MARKER.search(rows[-1]) or rows[-1].startswith("The recap and")):
        rows.pop()
    return [r.rstrip() for r in rows]


def printed_lines(n):
    """Every non-blank line of the lesson printed at once, as a file gets it."""
    out = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", "80"],
                         capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "80"})
    return [l.rstrip() for l in out.stdout.split("\n") if l.strip()]


def page_problem(ranges, prompts):
    """A tall page's screens, in order: their ranges cover 1..n with no gap, and
    the prompt says "more below" on every screen but the last."""
    covered = 0
    for (a, b, total), prompt in zip(ranges, prompts):
        if a > covered + 1:
            return f"lines {covered + 1}–{a - 1} of {total} never showed"
        covered = max(covered, b)
        if ("more below" in prompt) != (b < total):
            return f"at lines {a}–{b} of {total} the prompt is {prompt!r}"
    if ranges and covered < ranges[-1][2]:
        return f"Enter left the page at line {covered} of {ranges[-1][2]}"
    return None


def walk(n):
    s = Session("lesson", str(n), "--color", "never", env={"PAGER": "less"})
    end = re.compile(r"\[(intro|recap|step \d+/\d+) · [^\n]*\] $|end of lesson %02d" % n)
    pages, problem, seen_recap, screens = 0, None, False, 0
    seen, page, ranges, prompts = set(), None, [], []
    while screens < 400:
        if not s.read_until_match(end):
            problem = "neither a prompt nor the end within the time: " + repr(s.screen[-200:])
            break
        if f"end of lesson {n:02d}" in s.screen:
            problem = problem or page_problem(ranges, prompts)
            break
        problem = screen_problem(s.screen)
        if problem:
            break
        screen = last_screen(s.screen).replace("\r", "")
        prompt = screen.split("\n")[-1]
        where = PROMPT.search(prompt).group(1)
        if where != page:  # a new page: the last one's screens are complete
            problem = page_problem(ranges, prompts)
            if problem:
                break
            page, ranges, prompts, pages = where, [], [], pages + 1
        marker = MARKER.search(screen)
        if marker:
            ranges.append(tuple(int(g) for g in marker.groups()))
            prompts.append(prompt)
        seen.update(screen_lines(s.screen))
        seen_recap = seen_recap or "[recap" in s.screen
        screens += 1
        s.send("\r")
    s.wait()
    unseen = [l for l in printed_lines(n) if l not in seen]
    check(f"lesson {n}: Enter alone from the intro to the end, the recap last ({pages} pages, {screens} screens)",
          problem is None and pages >= 3 and seen_recap, problem or s.screen[-300:])
    check(f"lesson {n}: every line of every page seen with Enter alone", not unseen and problem is None,
          f"{len(unseen)} lines never showed, the first: {unseen[:3]!r}")


def scrolling():
    s = Session("lesson", "1", "--color", "never")
    s.read_until_match(PROMPT)
    # the intro page of lesson 01 is taller than 24 rows
    check("a tall page says what is below", "↓ more below: lines 1–22 of " in s.screen, s.screen[-300:])
    total = re.search(r"lines 1–22 of (\d+)", s.screen)
    total = int(total.group(1)) if total else 0
    s.send(" ")
    check("Space scrolls a screenful", s.read_until_match(PROMPT) and (f"lines 23–" in s.screen or "end of page" in s.screen),
          s.screen[-300:])
    s.send("\x1b[H")
    check("Home goes back to the top", s.read_until_match(PROMPT) and "lines 1–22" in s.screen, s.screen[-300:])
    s.send("\x1b[B")
    check("Down scrolls one line", s.read_until_match(PROMPT) and "lines 2–23" in s.screen, s.screen[-300:])
    s.send("j")
    check("j scrolls one line", s.read_until_match(PROMPT) and "lines 3–24" in s.screen, s.screen[-300:])
    s.send("\x1b[A")
    check("Up scrolls back one line", s.read_until_match(PROMPT) and "lines 2–23" in s.screen, s.screen[-300:])
    s.send("k")
    check("k scrolls back one line", s.read_until_match(PROMPT) and "lines 1–22" in s.screen, s.screen[-300:])
    s.send("\x1b[F")
    check("End shows the bottom", s.read_until_match(PROMPT) and f"end of page: lines {total - 21}–{total} of {total}"
          in s.screen, s.screen[-300:])
    s.send("\x1b[5~")
    top = max(0, total - 22 - 22)  # from the last screenful, 22 lines up (not past the top)
    check("PgUp scrolls a screenful up", s.read_until_match(PROMPT) and f"lines {top + 1}–{top + 22}" in s.screen,
          s.screen[-300:])
    check("the prompt says more below", "Enter: more below" in s.screen.split("\n")[-1], s.screen[-300:])
    s.send("\r")
    check("Enter in the middle of a page shows the rest of it first", s.read_until_match(PROMPT) and
          "end of page" in s.screen and "[intro" in s.screen and "more below" not in s.screen.split("\n")[-1],
          s.screen[-300:])
    s.send("\r")
    check("Enter at the bottom of a page goes on", s.read_until_match(PROMPT) and "[step 1/6" in s.screen,
          s.screen[-300:])
    s.send("q")
    s.wait()


def quit_on_last_step():
    s = Session("lesson", "3", "--color", "never", "--step", "1")
    s.read_until_match(PROMPT)
    total = int(re.search(r"\[step 1/(\d+)", s.screen).group(1))
    s.send(f"{total}\r")
    check("a step number and Enter go to the last step", s.read_until_match(PROMPT) and f"[step {total}/{total}" in s.screen,
          s.screen[-300:])
    s.send("q")
    check("q on the last step shows the recap first", s.read_until_match(PROMPT) and "[recap" in s.screen and
          "Recap" in s.screen and "q again quits" in s.screen, s.screen[-400:])
    s.send("q")
    check("q on the recap quits", s.read_until("end of lesson 03"), s.screen[-300:])
    status = s.wait()
    check("exit 0", status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status)


def read_until_match(self, pattern, timeout=20.0):
    import codecs
    import select
    import time
    if not hasattr(self, "decoder"):  # a character split over two reads is decoded whole
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
    end = time.time() + timeout
    while not pattern.search(self.screen) and time.time() < end:
        r, _, _ = select.select([self.fd], [], [], 0.05)
        if r:
            try:
                self.screen += self.decoder.decode(os.read(self.fd, 65536))
            except OSError:
                break
    return bool(pattern.search(self.screen))


Session.read_until_match = read_until_match

if __name__ == "__main__":
    scrolling()
    quit_on_last_step()
    lesson_dir = os.path.join(os.environ.get("ATTN_SOURCE_DIR", "."), "lessons")
    numbers = sorted(int(f[:2]) for f in os.listdir(lesson_dir) if re.match(r"\d\d-.*\.toml$", f))
    for n in numbers:
        walk(n)
    sys.exit(1 if failures else 0)
