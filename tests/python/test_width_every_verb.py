#!/usr/bin/python3
"""tests/python/test_width_every_verb.py — `--width` is accepted by every verb and
sub-verb that `attn --help` lists (walked from the help texts, so a new verb without a
sample below fails here), and at 60, 80 and 120 columns no line of what it prints as
text is wider than that. Data kept whole on purpose is not measured: JSON, an answer
file's value lines (a TOML string cannot break; its comments are fitted) and the secret
written to standard output."""
import os
import re
import subprocess
import sys
import tempfile
import unicodedata

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []
tmp = tempfile.mkdtemp(prefix="attn-width-")


def run(args, env=None):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env=env, timeout=300)


def subcommands(args):
    """The sub-verbs a help text lists under Subcommands:."""
    out = run([*args, "--help"]).stdout
    part = out.split("Subcommands:", 1)
    return [] if len(part) < 2 else re.findall(r"^  ([a-z][a-z-]*)  ", part[1], re.M)


def columns(line):
    """Terminal columns of a line (East Asian wide characters count 2)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
               for c in line)


# A tokenizer of the 256 byte tokens and no merges: enough for `model tokenize`.
tok = os.path.join(tmp, "tok")
os.makedirs(tok)
bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
cs, n = bs[:], 0
for b in range(256):
    if b not in bs:
        bs.append(b)
        cs.append(256 + n)
        n += 1
with open(os.path.join(tok, "vocab.json"), "w", encoding="utf-8") as f:
    f.write("{" + ", ".join('"%s": %d' % (chr(c).replace("\\", "\\\\").replace('"', '\\"'), i)
                            for i, c in enumerate(cs)) + "}")
with open(os.path.join(tok, "merges.txt"), "w", encoding="utf-8") as f:
    f.write("#version: 0.2\n")
model = os.path.join(SRC, "lessons", "models", "sort.safetensors")
answers = os.path.join(tmp, "answers.toml")
with open(answers, "w", encoding="utf-8") as f:
    f.write('student = ""\n[01-scale]\nanswer = 2.0\n')

long_text = "the quick brown fox jumps over the lazy dog and then over the lazy cat once more"
# verb path -> (arguments, exit codes accepted, which output is text to measure)
SAMPLES = {
    ("lessons",): ([], (0,), "stdout"),
    ("lesson",): (["1", "--no-pause", "--step", "1", "--color", "never"], (0,), "stdout"),
    ("lesson", "check"): ([os.path.join(SRC, "lessons", "01-self-attention.toml")], (0,), "stdout"),
    ("trace",): (["--example", "cat-causal", "--color", "never"], (0,), "stdout"),
    ("examples",): ([], (0,), "stdout"),
    ("shapes",): (["multi_head"], (0,), "stdout"),
    ("exercise", "list"): ([], (0,), "stdout"),
    ("exercise", "show"): (["04-cross-the"], (0,), "stdout"),
    ("exercise", "template"): (["04"], (0,), "comments"),
    ("exercise", "check"): ([answers], (0, 1), "stdout"),
    ("grade",): ([answers, "--no-variants"], (0, 1), "stdout"),
    ("model", "run"): ([model, "--tokens", "2,0,1,1,0,2", "--layer", "0", "--head", "0", "--color", "never"], (0,),
                       "stdout"),
    ("model", "info"): ([model], (0,), "stdout"),
    ("model", "list"): ([], (0,), "stdout"),
    ("model", "heads"): ([model, "--color", "never"], (0,), "stdout"),
    ("model", "explain"): ([model, "--tokens", "2,0,1,1,0,2", "--layer", "1", "--head", "0", "--query", "5", "--writes",
                           "--target", "1", "--color", "never"], (0,), "stdout"),
    ("model", "circuits"): ([model, "--layer", "1", "--head", "0", "--color", "never"], (0,), "stdout"),
    ("model", "patch"): ([model, "--clean-tokens", "2,0,1,1,0,2", "--corrupt-tokens", "1,0,2,1,0,2", "--metric", "loss",
                         "--color", "never"], (0,), "stdout"),
    ("model", "generate"): ([os.path.join(SRC, "lessons", "models", "stories260K.gguf"), "--tokens", "1", "--new", "60"], (0,),
                            "stdout"),
    ("model", "tokenize"): (["--tokenizer", tok, long_text], (0,), "stdout"),
    ("model", "train"): (["sort", "--iters", "2", "--batch", "2", "--layers", "1", "--heads", "1", "--d-model", "8",
                          "--out", os.path.join(tmp, "{w}", "m.safetensors")], (0,), "stderr"),
    ("course", "secret"): ([os.path.join(tmp, "{w}", "secret")], (0,), "stdout"),
}

# Every verb and sub-verb `attn --help` lists, found by walking the help texts.
leaves = []
for verb in subcommands([]):
    subs = subcommands([verb])
    if not subs or verb == "lesson":  # `attn lesson N` runs; `check` is its sub-verb
        leaves.append((verb,))
    leaves.extend((verb, s) for s in subs)
for leaf in leaves:
    if leaf not in SAMPLES:
        failures.append("no sample arguments for `attn %s` (add it to SAMPLES)" % " ".join(leaf))
check_ok = len(leaves) >= 15  # lessons … course secret
if not check_ok:
    failures.append("the help walk found only %d verbs: %s" % (len(leaves), leaves))

env = dict(os.environ, NO_COLOR="1", XDG_STATE_HOME=os.path.join(tmp, "state"))
for leaf in leaves:
    if leaf not in SAMPLES:
        continue
    args, codes, what = SAMPLES[leaf]
    for width in (60, 80, 120):
        os.makedirs(os.path.join(tmp, str(width)), exist_ok=True)
        full = [*leaf, *[a.replace("{w}", str(width)) for a in args], "--width", str(width)]
        p = run(full, env)
        name = "attn " + " ".join(leaf) + " --width %d" % width
        if p.returncode not in codes:
            failures.append("%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()[:300]))
            continue
        text = p.stderr if what == "stderr" else p.stdout
        lines = text.splitlines()
        if what == "comments":  # an answer file: its comments are the text
            lines = [line for line in lines if line.startswith("#")]
        if not lines:
            failures.append("%s printed no %s" % (name, what))
        wide = [line for line in lines if columns(line) > width]
        if wide:
            failures.append("%s: %d line(s) wider than %d, e.g. %d columns: %r" %
                            (name, len(wide), width, columns(wide[0]), wide[0][:160]))
        else:
            print("ok   %s (%d lines)" % (name, len(lines)))

# Without --width these verbs keep their lines whole (they are data a script reads).
p = run(["model", "tokenize", "--tokenizer", tok, long_text], env)
if not any(columns(line) > 120 for line in p.stdout.splitlines()):
    failures.append("model tokenize without --width: the ids line should stay whole")

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
