#!/usr/bin/python3
"""tests/python/test_step_viewer_pty.py — the lesson step viewer on a real
pseudo-terminal (80×24): keys in, screen out. The intro its own page, next (n,
Enter), back (p), jump (a number then Enter), ? lists the keys, the recap and the
questions the last page, q quits at once with no Enter, --pager with a pager that
works or fails, and
after q, end of input or SIGINT (Ctrl-C) the terminal is back in its cooked
mode: canonical input and echo on, exactly the settings it had before."""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []


class Session:
    def __init__(self, *args, env=None):
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(ATTN, [ATTN, *args], {**os.environ, "TERM": "xterm", **(env or {})})
        self.pid, self.fd, self.screen = pid, fd, ""
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.cooked = termios.tcgetattr(fd)  # the pty's settings before attn changes them
        self.status = None

    def read_until(self, text, timeout=20.0):
        end = time.time() + timeout
        while text not in self.screen and time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if r:
                try:
                    self.screen += os.read(self.fd, 65536).decode("utf-8", "replace")
                except OSError:
                    break
        return text in self.screen

    def send(self, keys):
        self.screen = ""
        os.write(self.fd, keys.encode())

    def wait(self, timeout=20.0):
        end = time.time() + timeout
        while time.time() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return status
            r, _, _ = select.select([self.fd], [], [], 0.05)
            try:
                if r:  # a read with nothing to read would block while attn waits for a key
                    os.read(self.fd, 65536)
            except OSError:
                pass
        os.kill(self.pid, signal.SIGKILL)
        return None

    def modes(self):
        return termios.tcgetattr(self.fd)


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def cooked(attrs):
    return bool(attrs[3] & termios.ICANON) and bool(attrs[3] & termios.ECHO)


def go_on(s, key, target):
    """key (n or Enter) until the prompt names `target`: on a page taller than the screen
    each press first shows the rest of the page, the prompt saying "more below"."""
    for _ in range(12):
        s.send(key)
        if not s.read_until("q: quit] "):
            return False
        if target in s.screen:
            return True
    return False


def navigation():
    s = Session("lesson", "1", "--no-pager", "--color", "never")
    check("the intro is its own page", s.read_until("[intro") and "Step 1/6" not in s.screen, s.screen[-300:])
    check("raw mode while waiting for a key", not (s.modes()[3] & termios.ICANON))
    check("n goes to step 1", go_on(s, "n", "[step 1/6") and "Step 1/6" in s.screen, s.screen[-300:])
    check("n goes to step 2", go_on(s, "n", "[step 2/6") and "Step 2/6" in s.screen, s.screen[-300:])
    check("Enter goes to step 3", go_on(s, "\r", "[step 3/6") and "Step 3/6" in s.screen, s.screen[-300:])
    s.send("p")
    check("p goes back to step 2", s.read_until("[step 2/6") and "Step 2/6" in s.screen, s.screen[-300:])
    s.send("5\r")
    check("5 Enter jumps to step 5", s.read_until("[step 5/6") and "Step 5/6" in s.screen, s.screen[-300:])
    s.send("9\r")
    check("a step that does not exist is refused", s.read_until("No step 9: steps are 1..6"), s.screen[-300:])
    s.send("?")
    check("? lists the keys", s.read_until("previous page") and s.read_until("[Enter: back"), s.screen[-300:])
    s.send("\r")
    check("a key after ? shows the page again", s.read_until("[step 5/6"), s.screen[-300:])
    check("Enter goes to step 6", go_on(s, "\r", "[step 6/6") and "Step 6/6" in s.screen, s.screen[-400:])
    check("Enter after the last step: the recap and the questions", go_on(s, "\r", "[recap") and "Questions" in s.screen,
          s.screen[-400:])
    s.send("p")
    check("p goes back from the recap to step 6", s.read_until("[step 6/6"), s.screen[-300:])
    s.send("3\r")
    s.read_until("[step 3/6")
    s.send("q")  # no Enter after it
    check("q quits at once and says how to come back", s.read_until("attn lesson 1 --step 4"), s.screen[-300:])
    status = s.wait()
    check("exit 0 after q", status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status)
    check("terminal cooked again after q", cooked(s.modes()) and s.modes()[3] == s.cooked[3], s.modes()[3])


def interrupt(sig_keys, name):
    s = Session("lesson", "4", "--no-pager", "--color", "never")
    check(f"{name}: prompt shown", s.read_until("[intro"), s.screen[-300:])
    check(f"{name}: raw mode at the prompt", not (s.modes()[3] & termios.ICANON))
    if sig_keys == "SIGTERM":
        os.kill(s.pid, signal.SIGTERM)
    else:
        s.send(sig_keys)
    status = s.wait()
    expected = signal.SIGTERM if sig_keys == "SIGTERM" else signal.SIGINT
    check(f"{name}: attn ends by the signal", status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == expected,
          status)
    check(f"{name}: terminal settings restored", s.modes()[3] == s.cooked[3] and cooked(s.modes()), (s.modes()[3], s.cooked[3]))


def pager():
    s = Session("lesson", "1", "--pager", "--color", "never", env={"PAGER": "cat"})
    check("--pager: a tall page goes through $PAGER and comes back to the prompt", s.read_until("[intro"), s.screen[-300:])
    s.send("q")
    s.wait()


def pager_fails():
    """A pager that fails (exit status 1, or not found) leaves the page printed."""
    for pager_cmd in ("false", "/nonexistent/pager"):
        s = Session("lesson", "1", "--pager", "--color", "never", env={"PAGER": pager_cmd})
        check(f"--pager with PAGER={pager_cmd}: the page is printed all the same",
              s.read_until("[intro") and "Attention is" in s.screen, s.screen[-300:])
        s.send("q")
        s.wait()


def pager_less():
    """--pager with the default pager: a step taller than the screen opens in less at
    its top, Space scrolls, q comes back to the step prompt."""
    if not os.path.exists("/usr/bin/less"):
        print("skip less: not installed")
        return
    os.environ.pop("PAGER", None)  # attn's default: less -FRX
    s = Session("lesson", "1", "--pager", "--color", "never")
    check("less: the tall first page opens at its top", s.read_until("Self-attention step by step") and
          s.read_until(":") and "[intro" not in s.screen, s.screen[-300:])
    s.send("q")
    check("less: q comes back to the prompt", s.read_until("[intro"), s.screen[-300:])
    s.send("q")
    s.wait()


def pipes_unchanged():
    import subprocess
    out = subprocess.run([ATTN, "lesson", "1", "--color", "never"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    check("a pipe gets the whole lesson without prompts", "[step" not in out.stdout and "Step 6/6" in out.stdout)


if __name__ == "__main__":  # test_practise_pty.py imports the driver above
    navigation()
    interrupt("\x03", "Ctrl-C")
    interrupt("SIGTERM", "SIGTERM")
    pager()
    pager_fails()
    pager_less()
    pipes_unchanged()
    sys.exit(1 if failures else 0)
