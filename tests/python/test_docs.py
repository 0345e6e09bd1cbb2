#!/usr/bin/python3
"""tests/python/test_docs.py — the README and the pages under docs/, as a newcomer reads them.

  * README.md has at most 250 lines; no line of docs/ARCHITECTURE.md is over 120 characters.
  * Neither names an issue ("issue 23") or a commit hash: the docs say what is, not how it came.
  * Every relative link of README.md and docs/*.md points at a file or folder of the source tree.
  * Every `attn …` command they print runs. A page's commands run in its order, through the shell,
    in one fresh folder per page, with the built attn first on PATH and no ATTN_LESSONS_DIR or
    course secret in the environment:
      - a command line of a code block (indented four spaces, or fenced), a trailing `# …` comment
        dropped and `\\` continuations joined, must exit 0 — or N when its comment starts with
        `# exit N`; a block's `mkdir` lines run too (the folders later commands write into);
      - an `attn …` between backticks in prose is run the same way, unless it is a synopsis
        (a placeholder in capitals such as FILE or N, `|`, `[` or `…`) or names only verbs
        (`attn exercise check`): then `attn <its verbs> --help` must exit 0, so the verb exists.
    The folder holds links to the source tree's lessons/ and examples/ (what a checkout has, for
    the contributor's commands) and, for the model page's `gpt2/` commands, a tiny stand-in of
    GPT-2's files written here: a random GPT-2-layout checkpoint with a config.json, and a
    byte-level vocabulary whose merges make each word of the pages' texts one token. The real
    files are a 548 MB download the docs tell the reader to make; the stand-in has their names,
    layout and formats, so each command is checked to parse and run, not GPT-2's answers.
CTest runs the pages as shards (tests/python/shards.py), each page whole and in order."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shards  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def pages():
    docs = os.path.join(SRC, "docs")
    names = ["README.md"] + sorted(os.path.join("docs", n) for n in os.listdir(docs) if n.endswith(".md"))
    return [(n, open(os.path.join(SRC, n), encoding="utf-8").read()) for n in names]


# --- the page rules ------------------------------------------------------------------------------

ISSUE = re.compile(r"\bissues?\s+#?\d+", re.I)
HASH = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")


def check_page_rules(name, text):
    lines = text.split("\n")
    if name == "README.md":
        check(len(lines) - (1 if text.endswith("\n") else 0) <= 250, f"README.md has {len(lines)} lines (at most 250)")
    if name == os.path.join("docs", "ARCHITECTURE.md"):
        for i, line in enumerate(lines, 1):
            check(len(line) <= 120, f"{name}:{i}: {len(line)} characters (at most 120)")
    if name in ("README.md", os.path.join("docs", "ARCHITECTURE.md")):
        for i, line in enumerate(lines, 1):
            for m in list(ISSUE.finditer(line)) + list(HASH.finditer(line)):
                check(False, f"{name}:{i}: names an issue or a commit: '{m.group(0)}'")
    for m in re.finditer(r"\]\(([^)#\s]+)(#[^)]*)?\)", text):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):
            continue
        path = os.path.normpath(os.path.join(SRC, os.path.dirname(name), target))
        check(os.path.exists(path), f"{name}: link to {target}: no such file")


# --- the commands a page prints ------------------------------------------------------------------

def block_lines(text):
    """(line number, line) of code blocks: indented four spaces after a blank line, or fenced."""
    out, fenced, in_block, prev_blank = [], False, False, True
    for no, line in enumerate(text.split("\n")):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            out.append((no, line))
        elif line.startswith("    ") and (in_block or prev_blank):
            in_block = True
            out.append((no, line[4:]))
        elif line.strip():
            in_block = False
        prev_blank = not line.strip()
    return out


def strip_comment(line):
    """(command, comment) of a shell line: the comment starts at an unquoted `#`."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def commands_of(text):
    """(kind, command, exit code expected) in the page's order; kind is 'run' or 'verb'."""
    found = []  # (line number, kind, command, code)
    joined = []
    for no, line in block_lines(text):
        if joined and joined[-1][1].endswith("\\"):
            joined[-1] = (joined[-1][0], joined[-1][1][:-1].rstrip() + " " + line.strip())
        else:
            joined.append((no, line.strip()))
    for no, line in joined:
        cmd, comment = strip_comment(line)
        if cmd.startswith("mkdir "):  # the folder a later command writes into
            found.append((no, "run", cmd, 0))
        elif cmd == "attn" or cmd.startswith("attn "):
            m = re.match(r"exit (\d+)", comment)
            found.append((no, "run", cmd, int(m.group(1)) if m else 0))
    verb = re.compile(r"^[a-z][a-z-]*$")
    for m in re.finditer(r"(?<!`)`(attn(?: [^`]+)?)`(?!`)", text):
        cmd = " ".join(m.group(1).split())
        words = cmd.split()[1:]
        synopsis = re.search(r"\b[A-Z][A-Z_]*\b|[|\[…/]", cmd) is not None
        if synopsis or all(verb.match(w) for w in words):
            verbs = []
            for w in words:
                if not verb.match(w):
                    break
                verbs.append(w)
            cmd, kind = " ".join(["attn"] + verbs + ["--help"]), "verb"
        else:
            kind = "run"
        found.append((text.count("\n", 0, m.start()), kind, cmd, 0))
    found.sort(key=lambda f: f[0])
    return [(k, c, code) for _, k, c, code in found]


# --- the folder the commands run in --------------------------------------------------------------

def byte_alphabet():
    """GPT-2's bytes_to_unicode: byte → the character that stands for it."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def write_stand_in_gpt2(folder, texts, vocab_size=4096):
    """A GPT-2-layout checkpoint with random weights and a byte-level BPE vocabulary in folder."""
    import gpt_reference as ref
    alphabet = byte_alphabet()
    vocab = [alphabet[b] for b in range(256)]
    merges = []
    for text in texts:
        for i, word in enumerate(re.findall(r" ?[A-Za-z]+", text)):
            pieces = [alphabet[b] for b in word.encode("utf-8")]
            left = pieces[0]
            for right in pieces[1:]:
                if left + right not in vocab:
                    merges.append(f"{left} {right}")
                    vocab.append(left + right)
                left = left + right
    vocab += [f"filler{i}" for i in range(vocab_size - len(vocab))]
    os.makedirs(folder)
    import json
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({t: i for i, t in enumerate(vocab)}, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(m + "\n" for m in merges))
    cfg = {"n_layer": 6, "n_head": 2, "n_embd": 8, "vocab_size": vocab_size, "n_positions": 64}
    ref.save_model(folder, cfg, ref.random_params(cfg, seed=35), "hf")


def prepare_folder(text):
    work = tempfile.mkdtemp(prefix="attn-docs-")
    for name in ("lessons", "examples"):
        os.symlink(os.path.join(os.path.abspath(SRC), name), os.path.join(work, name))
    if "gpt2/" in text:
        texts = re.findall(r'--text "([^"]*)"', text) + re.findall(r'tokenize --tokenizer \S+ "([^"]*)"', text)
        write_stand_in_gpt2(os.path.join(work, "gpt2"), texts)
    return work


# Pages whose commands another test runs in order, with the files they build on:
# docs/teaching.md walks a term (tests/python/test_grade_teaching_doc.py).
RUN_ELSEWHERE = {os.path.join("docs", "teaching.md")}


def run_page(name, text, env):
    if name in RUN_ELSEWHERE:
        return 0
    cmds = commands_of(text)
    work = prepare_folder(text)
    try:
        for kind, cmd, code in cmds:
            p = subprocess.run(cmd, shell=True, cwd=work, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=120)
            err = (p.stderr or p.stdout).strip().splitlines()
            check(p.returncode == code, f"{name}: `{cmd}` exits {p.returncode}, expected {code}: {err[-1:] }")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return len(cmds)


def main():
    bindir = tempfile.mkdtemp(prefix="attn-docs-bin-")
    state = tempfile.mkdtemp(prefix="attn-docs-state-")
    try:
        os.symlink(os.path.abspath(ATTN), os.path.join(bindir, "attn"))
        env = {k: v for k, v in os.environ.items() if k not in ("ATTN_LESSONS_DIR", "ATTN_COURSE_SECRET",
                                                                "ATTN_ALLOW_GUESSABLE_SECRET")}
        env.update({"PATH": bindir + os.pathsep + os.environ["PATH"], "XDG_STATE_HOME": state, "COLUMNS": "100"})
        total = 0
        for name, text in shards.mine(pages()):  # CTest runs the pages as shards (tests/python/shards.py)
            check_page_rules(name, text)
            start = time.monotonic()
            n = run_page(name, text, env)
            print(f"{name}: {n} commands, {time.monotonic() - start:.1f} s")
            total += n
    finally:
        shutil.rmtree(bindir, ignore_errors=True)
        shutil.rmtree(state, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print(f"ok: {total} commands of the docs run as printed{shards.label()}")


if __name__ == "__main__":
    main()
