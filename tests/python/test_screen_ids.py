#!/usr/bin/python3
"""tests/python/test_screen_ids.py — words, not ids, on every screen a student reads.
The ids are gathered from the sources, not written here: the grader's catalogue of
mistakes (src/grade/mistakes.cpp), the mistakes the lessons declare, the show kinds
(src/lessons/show_*.cpp), the lessons' run names and the stages' hook names. Then
these outputs are searched for them: every lesson (prose, commands aside), the
feedback of `attn exercise check` on answers that make each declared and a
catalogued mistake, the model verbs on the built-in checkpoints (`model run` with a
head, `model heads`), and `--help` of every verb. An id that is also an English
phrase ("previous-token", "late-rows") is looked for where only an id would be: in
brackets or after "looks like:" / "mistake:"; a one-word id ("sampling") is its word."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def attn(*args, ok=(0, 1)):
    p = subprocess.run([ATTN, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    if p.returncode not in ok:
        failures.append(f"attn {' '.join(args)} exits {p.returncode}: {p.stderr[:200]}")
    return p.stdout + p.stderr


# ── the ids, from the sources ──
catalogue = set(re.findall(r'^\s*\{"([a-z0-9_]+)", "', open(os.path.join(SRC, "src/grade/mistakes.cpp")).read(), re.M))
show_kinds = set()
for f in glob.glob(os.path.join(SRC, "src/lessons/show_*.cpp")):
    show_kinds |= set(re.findall(r'\{"([a-z_]+)", show_', open(f).read()))
lessons = {}
for f in sorted(glob.glob(os.path.join(SRC, "lessons/[0-9][0-9]-*.toml"))):
    with open(f, "rb") as fh:
        lessons[os.path.basename(f)] = tomllib.load(fh)
declared, runs = {}, set()  # declared: mistake id → (exercise id, part id or None, answer)
for doc in lessons.values():
    runs |= set(doc.get("runs", {}))
    for x in doc.get("exercise", []):
        for m in x.get("mistake", []):
            declared.setdefault(m["id"], (x["id"], None, m.get("answer")))
        for p in x.get("part", []):
            for m in p.get("mistake", []):
                declared.setdefault(m["id"], (x["id"], p["id"], m.get("answer")))
hooks = re.compile(r"\bhook_[a-z_]+\b")
check("ids gathered from the sources", len(catalogue) >= 10 and len(show_kinds) >= 20 and len(declared) >= 10 and runs,
      (len(catalogue), len(show_kinds), len(declared), len(runs)))

# An id with an underscore or two hyphens is never a word; any other is looked for
# only where an id would stand.
never_words = {i for i in catalogue | show_kinds | runs | set(declared) if "_" in i or i.count("-") >= 2}
anywhere = re.compile(r"(?<![\w./-])(" + "|".join(sorted(map(re.escape, never_words), key=len, reverse=True)) + r")(?![\w-])")
every_id = sorted({i for i in catalogue | show_kinds | runs | set(declared) if "-" in i or "_" in i}, key=len, reverse=True)
as_id = re.compile(r"(?:\[|looks like: |mistake: |kind ')(" + "|".join(map(re.escape, every_id)) + r")(?:\]|'|$)", re.M)


def prose(text):
    """What a student reads as words: commands and exercise ids (typed by the student) aside."""
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"^\s*attn [^\n]*$", "", text, flags=re.M)
    text = re.sub(r"attn (?:lesson|exercise|grade|trace|shapes|model|examples)\b[^\n]*", "", text)
    return re.sub(r"\b\d\d-[a-z0-9-]+\b", "", text)


def ids_in(text):
    text = prose(text)
    found = {m.group(1) for m in anywhere.finditer(text)} | {m.group(1) for m in as_id.finditer(text)}
    return sorted(found | set(hooks.findall(text)))


def no_ids(what, text):
    found = ids_in(text)
    check(f"{what}: no ids", not found, found[:6])


# ── lessons ──
for n in range(1, len(lessons) + 1):
    no_ids(f"lesson {n}", attn("lesson", str(n), "--no-pause", "--color", "never", "--width", "200", ok=(0,)))

# ── feedback: each declared mistake's answer, and a catalogued one (no scaling) ──
answers = {}
for mid, (ex, part, answer) in declared.items():
    if answer is not None:
        answers.setdefault(ex, {})[part or "answer"] = answer
info = json.loads(attn("exercise", "show", "01-self-weights", "--format", "json", ok=(0,)))
import numpy as np  # noqa: E402

q, k, v = (np.array(info["inputs"][r], dtype=float) for r in ("q", "k", "v"))
raw = q @ k.T
w = np.exp(raw - raw.max(axis=1, keepdims=True))
w /= w.sum(axis=1, keepdims=True)
answers["01-self-weights"] = {"weights": w.tolist(), "output": (w @ v).tolist()}
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "answers.json")
    with open(path, "w") as f:
        json.dump(answers, f)
    env_state = {"XDG_STATE_HOME": tmp}
    p = subprocess.run([ATTN, "exercise", "check", path, "--width", "200"], capture_output=True, text=True,
                       env={**os.environ, **env_state})
    out = p.stdout + p.stderr
check("exercise check names the mistakes in words", "no scaling" in out and "mistake: " in out, out[:600])
no_ids("exercise check's feedback", out)

# ── model verbs on the built-in checkpoints ──
models = os.path.join(SRC, "lessons", "models")
run = attn("model", "run", os.path.join(models, "sort.safetensors"), "--tokens", "2,0,1,1,0,2", "--layer", "0",
           "--head", "0", "--width", "120", "--color", "never", ok=(0,))
no_ids("model run, one head", run)
check("model run: the head's title in words, counted from 1", "blocks.0.attn" not in run and "head 0 of" not in run
      and "layer 1 of 3, head 1 of 3" in run, run[:400])
heads = attn("model", "heads", os.path.join(models, "induction.safetensors"), "--width", "120", "--color", "never", ok=(0,))
no_ids("model heads", heads)
check("model heads: the grid is layers × heads", "rows: layers · columns: heads" in heads
      and "rows: queries" not in heads, heads[:600])
check("model heads: the induction model is scored with the BOS it was trained with", "BOS" in heads, heads[:300])

# ── --help of every verb and sub-verb ──
top = attn("--help", ok=(0,))
verbs = re.findall(r"^\s{2}([a-z][a-z-]+)\s{2,}", top.split("SUBCOMMANDS:")[-1], re.M)
check("attn --help lists the verbs", len(verbs) >= 6, top[-600:])
no_ids("attn --help", top)
for verb in verbs:
    text = attn(verb, "--help", ok=(0,))
    no_ids(f"attn {verb} --help", text)
    subs = re.findall(r"^\s{2}([a-z][a-z-]+)\s{2,}", text.split("SUBCOMMANDS:")[-1], re.M) if "SUBCOMMANDS:" in text else []
    for sub in subs:
        no_ids(f"attn {verb} {sub} --help", attn(verb, sub, "--help", ok=(0,)))

sys.exit(1 if failures else 0)
