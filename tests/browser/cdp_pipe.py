"""tests/browser/cdp_pipe.py — drives Debian's headless Chromium through the Chrome
DevTools Protocol over --remote-debugging-pipe (fd 3 in, fd 4 out, messages ended
by NUL). Standard library only: no npm, no websocket client, no network.

    with Browser("/usr/bin/chromium") as b:
        page = b.new_page(1200, 900)
        page.goto("file:///tmp/report.html")
        page.evaluate("document.title")
"""
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--remote-debugging-pipe"]


class CdpError(RuntimeError):
    pass


class Browser:
    def __init__(self, executable, timeout=30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="attn-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # Move the child's ends above fd 9 so that dup2 onto 3 and 4 cannot clobber them.
        high = []
        for fd in (to_child_r, from_child_w):
            high.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
            os.close(fd)
        to_child_r, from_child_w = high

        def wire():  # in the child: fd 3 = commands in, fd 4 = replies out
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     preexec_fn=wire, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self._next_id = 0
        self._buffer = b""
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close", timeout=5)
                except Exception:
                    pass
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            for fd in (self._to_child, self._from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            if self.proc.stderr:
                self.proc.stderr.close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise CdpError("Chromium closed the pipe (exit code %s)" % self.proc.poll())
                self._buffer += chunk
        msg, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=None):
        self._next_id += 1
        mid = self._next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self._to_child, data):]
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == mid:
                if "error" in reply:
                    raise CdpError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session=None, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method and (session is None or e.get("sessionId") == session):
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def new_page(self, width, height):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session, width, height)


class Page:
    def __init__(self, browser, session, width, height):
        self.b, self.s = browser, session
        self.call("Page.enable")
        self.call("Network.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None):
        return self.b.send(method, params, session=self.s)

    def goto(self, url):
        self.call("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", session=self.s)

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise CdpError(f"evaluate failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def requests(self):
        """URLs the page asked the network for (drains Network.requestWillBeSent events)."""
        urls = [e["params"]["request"]["url"] for e in self.b.events
                if e.get("method") == "Network.requestWillBeSent" and e.get("sessionId") == self.s]
        self.b.events = [e for e in self.b.events if e.get("method") != "Network.requestWillBeSent"]
        return urls

    def hover(self, x, y):
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def press_tab(self):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": "Tab", "code": "Tab",
                                                 "windowsVirtualKeyCode": 9, "nativeVirtualKeyCode": 9})

    def screenshot(self, path):
        import base64
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
