#!/usr/bin/python3
"""tests/python/test_trace_html_browser.py — the `attn trace --html` report in a real
browser: Debian's headless Chromium, driven over the DevTools protocol by
tests/browser/cdp_pipe.py (standard library only).

Checks that the page renders the heatmap cells with the right numbers (computed
here in NumPy from the spec's own matrices), that hovering a cell and focusing it
with Tab each show its computation (q·k terms, scaling, exp, share of the row),
that the page asks the network for nothing, and keeps screenshots as test
artefacts in <build>/test-artifacts/ (not committed).
"""
import json
import os
import subprocess
import sys
import tempfile
import tomllib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "browser"))
from cdp_pipe import Browser  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", os.path.join(HERE, "..", ".."))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(ATTN)), "test-artifacts")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def compact(x):
    """attn's compact(): up to 4 decimals, trailing zeros dropped, at least one decimal."""
    s = f"{x:.4f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


def make_report(spec, html):
    p = subprocess.run([ATTN, "trace", spec, "--html", html], capture_output=True, text=True)
    check(p.returncode == 0, f"attn trace --html {os.path.basename(spec)} exits 0 ({p.stderr.strip()})")


def main():
    if not os.path.exists(CHROMIUM):
        print(f"FAIL: no Chromium at {CHROMIUM}; install Debian's chromium package (tools/packages.txt lists it)")
        sys.exit(1)
    os.makedirs(ARTIFACTS, exist_ok=True)
    spec_path = os.path.join(SRC, "examples", "trace", "cat-causal.toml")
    spec = tomllib.load(open(spec_path, "rb"))
    Q, K = np.array(spec["Q"]), np.array(spec["K"])
    tokens = spec["tokens"]
    n, d = Q.shape
    # Independent reference: causal softmax of QKᵀ/√d.
    scaled = Q @ K.T / np.sqrt(d)
    scaled = np.where(np.tril(np.ones((n, n), bool)), scaled, -np.inf)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)

    with tempfile.TemporaryDirectory() as tmp:
        html = os.path.join(tmp, "cat-causal.html")
        make_report(spec_path, html)
        text = open(html, encoding="utf-8").read()
        check(all(s not in text for s in ("http://", "https://", "<script", "src=", "@import", "url(")),
              "the report names no external script, font, style or URL")

        with Browser(CHROMIUM) as b:
            page = b.new_page(1100, 800)
            page.goto("file://" + html)
            check(page.requests() == ["file://" + html], "loading the page requests nothing but the file itself")

            cells = page.evaluate("""[...document.querySelectorAll('#heatmap-b0-h0 td.cell')].map(td =>
                [+td.dataset.q, +td.dataset.k, td.querySelector('.v').innerText])""")
            check(len(cells) == n * n, f"the heatmap has {n}×{n} cells (found {len(cells)})")
            wrong = [(q, k, v) for q, k, v in cells if v != f"{weights[q, k]:.4f}"]
            check(not wrong, f"every rendered cell shows the NumPy weight to 4 decimals (wrong: {wrong[:3]})")
            row_text = page.evaluate("[...document.querySelectorAll('table.stage')].map(t => t.innerText).join('\\n')")
            check(f"{weights[1, 0]:.4f}" in row_text and f"{weights[4, 4]:.4f}" in row_text,
                  "the stage tables show the weights too")
            check(page.evaluate("[...document.querySelectorAll('.calc')].every(c => getComputedStyle(c).display == 'none')"),
                  "no computation shows before any hover or focus")

            # Hover the cell (cat, The): its computation appears, the others stay hidden.
            qi, kj = 1, 0
            cid = f"heatmap-b0-h0-q{qi}-k{kj}"
            r = page.evaluate(f"(() => {{ const r = document.getElementById('{cid}').getBoundingClientRect();"
                              " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            page.hover(r[0], r[1])
            shown = page.evaluate("[...document.querySelectorAll('.calc')].filter(c => getComputedStyle(c).display != 'none')"
                                  ".map(c => c.id)")
            check(shown == [cid + "-calc"], f"hovering ({tokens[qi]}, {tokens[kj]}) shows exactly its computation ({shown})")
            calc = page.evaluate(f"document.getElementById('{cid}-calc').innerText")
            terms = " + ".join(f"{compact(a)}×{compact(c)}" for a, c in zip(Q[qi], K[kj]))
            raw = Q[qi] @ K[kj]
            ex = np.exp(scaled[qi, kj] - scaled[qi].max())
            want = [f"query '{tokens[qi]}' → key '{tokens[kj]}'", f"q·k = {terms} = {raw:.4f}",
                    f"÷ {compact(np.sqrt(d))} = {scaled[qi, kj]:.4f}", f"= {ex:.4f}",
                    f"share of the row: {ex:.4f} ÷ Σexp {e[qi].sum() / 1:.4f} = {weights[qi, kj]:.4f}"]
            missing = [w for w in want if w not in calc]
            check(not missing, f"the hovered computation has the q·k terms, scaling, exp and share ({missing})")
            page.screenshot(os.path.join(ARTIFACTS, "trace-html-hover.png"))

            # Keyboard: move the mouse away, Tab into the heatmap; focus shows the computation.
            page.hover(1090, 790)
            page.press_tab()
            active = page.evaluate("document.activeElement.id")
            check(active == "heatmap-b0-h0-q0-k0", f"Tab focuses the first heatmap cell ({active})")
            vis = page.evaluate("getComputedStyle(document.activeElement.querySelector('.calc')).display")
            check(vis == "block", f"the focused cell shows its computation (display {vis})")
            page.press_tab()
            active = page.evaluate("document.activeElement.id")
            calc = page.evaluate("document.activeElement.querySelector('.calc').innerText")
            check(active == "heatmap-b0-h0-q0-k1" and "blocked by the mask" in calc,
                  "the next Tab reaches the blocked cell (The, cat), which says it is masked")
            page.screenshot(os.path.join(ARTIFACTS, "trace-html-focus.png"))

        # Heads and batch: one heatmap per (batch, head), numbers equal to the JSON export.
        mh_spec = os.path.join(SRC, "examples", "trace", "multihead-batch.toml")
        mh_html = os.path.join(tmp, "multihead.html")
        make_report(mh_spec, mh_html)
        j = json.loads(subprocess.run([ATTN, "trace", mh_spec, "--json", "-"], capture_output=True, text=True).stdout)
        pattern = np.array(j["stages"]["hook_pattern"]["data"])  # [batch, head, query_pos, key_pos]
        with Browser(CHROMIUM) as b:
            page = b.new_page(1100, 800)
            page.goto("file://" + mh_html)
            maps = page.evaluate("[...document.querySelectorAll('table.heatmap')].map(t => t.id)")
            check(maps == ["heatmap-b0-h0", "heatmap-b0-h1", "heatmap-b1-h0", "heatmap-b1-h1"],
                  f"one heatmap per batch item and head ({maps})")
            cells = page.evaluate("""[...document.querySelectorAll('table.heatmap')].flatMap(t =>
                [...t.querySelectorAll('td.cell')].map(td => [t.id, +td.dataset.q, +td.dataset.k, td.querySelector('.v').innerText]))""")
            wrong = [c for c in cells
                     if c[3] != f"{pattern[int(c[0][9]), int(c[0][12]), c[1], c[2]]:.4f}"]
            check(len(cells) == pattern.size and not wrong, f"every head's cells equal the JSON pattern ({wrong[:2]})")
            page.screenshot(os.path.join(ARTIFACTS, "trace-html-multihead.png"))

    for name in ("trace-html-hover.png", "trace-html-focus.png", "trace-html-multihead.png"):
        p = os.path.join(ARTIFACTS, name)
        check(os.path.exists(p) and open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"screenshot artefact {p}")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("the HTML report renders the right numbers and explains a cell on hover and on focus")


if __name__ == "__main__":
    main()
