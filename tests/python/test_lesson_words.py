#!/usr/bin/python3
"""tests/python/test_lesson_words.py — what a student reads names things in words.
Every lesson's output, and every `--token` trace a lesson or a golden case
documents (commands and exercise ids aside), is searched for internal
ids: dotted names of a block's pieces ("mha.q.h1", "post.add_norm1.residual"),
snake_case names longer than a symbol ("small_unscaled", "self_k_cache"), and
the "seed 000" style of citing a source the student does not have. Math symbols
with a subscript (d_k, n_tgt, q_i, W_O) are notation, not ids, and are allowed."""
import glob
import os
import re
import subprocess
import sys

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
# d_k, n_src, q_i, h_i, W_O, K_enc, softmax_j, head_h: a short base and a short subscript.
SYMBOL = re.compile(r"^(?:[A-Za-z]{1,3}_[A-Za-z0-9]{1,5}|[A-Za-z]{1,8}_[A-Za-z0-9])$")
DOTTED = re.compile(r"\b[a-z][a-z0-9_]*\.(?:[a-z_]+[0-9]*\.)*[a-z_]*[a-z][a-z0-9_]*\b")
SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
SEED = re.compile(r"\bseeds? \d{3}\b")
HOOK = re.compile(r"\bhook_[a-z_]+\b")
failures = []


def visible_prose(text):
    """Lines a student reads as words: without `attn ...` commands and exercise ids."""
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"attn (?:lesson|exercise|grade|trace|shapes|model)[^\n]*", "", text)
    text = re.sub(r"\[\d\d-[a-z0-9-]+\]", "", text)
    text = re.sub(r"\b\d\d-[a-z0-9-]+\b", "", text)
    return text


def internal_names(text):
    text = visible_prose(text)
    found = set()
    for m in DOTTED.finditer(text):
        word = m.group(0)
        if re.fullmatch(r"[a-z]\.[a-z]\.?", word) or word in ("e.g", "i.e"):
            continue
        found.add(word)
    for m in SNAKE.finditer(text):
        if not SYMBOL.match(m.group(0)):
            found.add(m.group(0))
    for m in SEED.finditer(text):
        found.add(m.group(0))
    for m in HOOK.finditer(text):
        found.add(m.group(0))
    return found


def lesson_ids(n):
    """A lesson's own ids a student must never read: its runs' and blocks' names with
    an underscore ("oven_p"), and matrix names whose subscript is a word ("X_oven";
    K_enc, Q_dec, X_src stay: notation)."""
    path = glob.glob(os.path.join(SRC, "lessons", f"{n:02d}-*.toml"))
    if not path:
        return set()
    import tomllib
    with open(path[0], "rb") as f:
        doc = tomllib.load(f)
    ids = {k for k in list(doc.get("runs", {})) + list(doc.get("blocks", {})) if "_" in k}
    for k in list(doc.get("matrices", {})) + list(doc.get("derived", {})):
        m = re.fullmatch(r"[A-Za-z]+_([a-z]{4,})", k)
        if m:
            ids.add(k)
    return ids


def ids_shown(n, text):
    text = visible_prose(text)
    return {i for i in lesson_ids(n) if re.search(r"(?<![A-Za-z0-9_])" + re.escape(i) + r"(?![A-Za-z0-9_])", text)}


def documented_traces(lesson_texts):
    """[lesson, args...] of every `--token` run in a golden case or in a lesson's text."""
    found = set()
    for tsv in glob.glob(os.path.join(SRC, "golden/cases/*.tsv")):
        for line in open(tsv, encoding="utf-8"):
            m = re.search(r"\blesson (\d+) (.*--token.*)$", line.strip())
            if m:
                found.add((m.group(1), *[a for a in m.group(2).split() if a not in ("--color", "never")]))
    for text in lesson_texts:
        for m in re.finditer(r"attn lesson (\d+) (--token \S+?)(?: (--run \S+?))?[`)\s]", text):
            found.add((m.group(1), *m.group(2).split(), *(m.group(3).split() if m.group(3) else [])))
    return sorted(found)


def main():
    numbers = [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s", subprocess.run([ATTN, "lessons"], capture_output=True, text=True).stdout, re.M)]
    texts = []
    for n in numbers:
        out = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", "200"],
                             capture_output=True, text=True).stdout
        texts.append(out)
        found = internal_names(out) | ids_shown(n, out)
        if found:
            failures.append(f"lesson {n}: {sorted(found)}")
    listed = subprocess.run([ATTN, "exercise", "list", "--width", "200"], capture_output=True, text=True).stdout
    found = {m.group(0) for m in SEED.finditer(listed)} | {m.group(0) for m in HOOK.finditer(listed)}
    if found:
        failures.append(f"attn exercise list: {sorted(found)}")
    traces = documented_traces(texts)
    for t in traces:
        out = subprocess.run([ATTN, "lesson", *t, "--color", "never", "--width", "200"], capture_output=True, text=True).stdout
        found = internal_names(out)
        if found:
            failures.append(f"lesson {' '.join(t)}: {sorted(found)}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(numbers)} lessons and {len(traces)} documented traces read; {len(failures)} with internal names")
    sys.exit(1 if failures else 0)


main()
