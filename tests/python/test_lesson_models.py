#!/usr/bin/python3
"""tests/python/test_lesson_models.py — the trained models of lessons 20–22.

  * Each built-in checkpoint (lessons/models/NAME.safetensors) is retrained from the
    command its lesson file documents (the header line "#   attn model train …") and
    the bytes are the same. The training runs once per test run, in the CTest fixture
    lesson_models.train.NAME (tests/python/train_lesson_models.py, into
    $ATTN_LESSON_MODELS_DIR); this test compares what it wrote. Release build only: under
    ATTN_SLOW_BUILD=1 (sanitizers, Debug) training takes minutes, so it is skipped.
  * The numbers the lessons print are recomputed here by PyTorch reading the same
    checkpoint (tests/python/model_train_reference.py's minGPT, float64): lesson 20's
    greedy decoding table (tokens and probabilities) and its head's weights; lesson 21's
    heatmaps (every shade), the induction head's strongest keys and their distance, the
    head detector's scores and the losses with each head removed.
  * The wider sort model of lessons 20 and 22's per-student exercises (sort8: eight digits
    from {0, …, 5}) does what their prompts say, in PyTorch: it sorts fresh inputs, and its
    layer 1, head 1 weights a copy of the smallest digit most at the query of the last
    input digit, the step that writes the first sorted digit."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_train_reference as ref  # noqa: E402
import train_lesson_models as fixture  # noqa: E402
import torch  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
SLOW = os.environ.get("ATTN_SLOW_BUILD", "0") == "1"
TRAINED = os.environ.get("ATTN_LESSON_MODELS_DIR", "")
LONG = os.environ.get("ATTN_LESSON_MODELS_LONG", "").split()  # retrained by tools/run test, not a fixture
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def retrained():
    """The checkpoints the fixture lesson_models.train.* retrained from the lessons' documented
    commands (tests/python/train_lesson_models.py) against the built-in ones, byte for byte."""
    cmds = fixture.documented_commands()
    check(len(cmds) >= 1, "no lesson documents an 'attn model train' command")
    if SLOW:
        print("skip: retraining the lesson checkpoints takes minutes in the sanitizer build")
        return
    check(bool(TRAINED), "ATTN_LESSON_MODELS_DIR is not set: run through CTest (the lesson_models fixture)")
    for model, (lesson, argv) in sorted(cmds.items()):
        command = os.path.join(TRAINED, model + ".command")
        if not os.path.exists(command) and model in LONG:
            print(f"skip: {lesson}: {model} was not retrained this run (its training takes minutes: "
                  f"tools/run test retrains it before the suite, tests/python/train_lesson_models.py)")
            continue
        if not os.path.exists(command):
            check(False, f"{lesson}: the fixture did not retrain {model} (no {command})")
            continue
        with open(command, encoding="utf-8") as f:
            ran = f.read().split()
        check(ran == argv, f"{lesson}: the fixture ran `{' '.join(ran)}`, the lesson documents `{' '.join(argv)}`")
        written = [argv[argv.index("--out") + 1]]
        if "--losses" in argv:  # the loss history the lesson draws is the run's own
            written.append(argv[argv.index("--losses") + 1])
        for name in written:
            with open(os.path.join(SRC, "lessons", "models", name), "rb") as f:
                built_in = f.read()
            with open(os.path.join(TRAINED, name), "rb") as f:
                again = f.read()
            check(again == built_in, f"{lesson}: retraining wrote other bytes than lessons/models/{name} "
                  f"({len(again)} vs {len(built_in)})")
        print(f"ok: {lesson}: {model} retrained to the same bytes as lessons/models/")


def lesson_text(n, width=200):
    r = subprocess.run([ATTN, "lesson", str(n), "--no-pause", "--color", "never", "--width", str(width)],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"attn lesson {n}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def model(name):
    m, _ = ref.load_model(os.path.join(SRC, "lessons", "models", name + ".safetensors"), torch.float64)
    return m


def probs(m, ids):
    logits, _ = m(torch.tensor([ids]))
    return torch.softmax(logits[0, -1], -1)


def check_greedy(text, m, prompt):
    """Rows '  1   2 0 1 1 0 2   0   0.9990   1   0.0010' of the greedy table."""
    ids = list(prompt)
    rows = re.findall(r"^\s*(\d+)\s+([0-9 ]+?)\s+(\d)\s+([0-9.]+)\s+(\d)\s+([0-9.]+)\s*$", text, re.M)
    check(len(rows) == 6, f"greedy table: {len(rows)} rows, expected 6")
    for step, fed, nxt, p, second, p2 in rows:
        check([int(t) for t in fed.split()] == ids, f"step {step}: fed {fed}, expected {ids}")
        pr = probs(m, ids)
        top = torch.topk(pr, 2)
        check(int(nxt) == int(top.indices[0]) and int(second) == int(top.indices[1]),
              f"step {step}: next {nxt}, runner-up {second}; PyTorch {top.indices.tolist()}")
        check(abs(float(p) - float(top.values[0])) <= 6e-5 and abs(float(p2) - float(top.values[1])) <= 6e-5,
              f"step {step}: p {p}, {p2}; PyTorch {top.values.tolist()}")
        ids.append(int(nxt))
    check(ids[6:] == sorted(prompt), f"greedy answer {ids[6:]} is not {sorted(prompt)}")


def table_after(text, title, n_rows):
    """The rows of numbers of the first table whose title line starts with `title`."""
    at = text.find(title)
    check(at >= 0, f"no table '{title}'")
    rows = []
    for line in text[at:].splitlines()[2:]:
        cells = line.split()
        if not cells or not re.match(r"^-?\d+\.\d+$", cells[-1]):
            break
        rows.append([float(c) for c in cells[1:]])
    check(len(rows) == n_rows, f"'{title}': {len(rows)} rows, expected {n_rows}")
    return rows


def check_weights(text, m, ids, layer, head, title):
    pattern = m.pattern(torch.tensor([ids]), layer)[0, head]
    got = torch.tensor(table_after(text, title, len(ids)), dtype=torch.float64)
    worst = float((got - pattern).abs().max())
    check(worst <= 0.0051, f"{title}: weights differ from PyTorch's by {worst}")
    print(f"ok: {title}: weights within {worst:.4f} of PyTorch's (2 decimals)")


def sorted_half_loss(m, seq):
    logits, _ = m(torch.tensor([seq]))
    return float(torch.nn.functional.cross_entropy(logits[0, 5:10], torch.tensor(seq[6:11])))


def check_lesson_22(seq):
    text = lesson_text(22)
    m = re.search(r"^\s+step 0\s+step 100\s+step 500\s+step 2000\n\s+loss ([0-9.]+)\s+loss ([0-9.]+)\s+loss ([0-9.]+)"
                  r"\s+loss ([0-9.]+)\s*$", text, re.M)
    check(m is not None, "lesson 22: no panels of steps 0, 100, 500 and 2000")
    if m:
        for got, name in zip(m.groups()[1:], ("sort-100", "sort-500", "sort")):
            want = sorted_half_loss(model(name), seq)
            check(abs(float(got) - want) <= 6e-4, f"lesson 22: {name}: loss {got}, PyTorch {want:.5f}")
        print(f"ok: lesson 22: the losses at steps 100, 500, 2000 are PyTorch's ({', '.join(m.groups()[1:])})")
    # Step 0 (the trainer's own initial weights, which no other code draws): each row of
    # the untrained head is near uniform over the keys it sees, as the lesson says.
    rows = table_after(text, "Layer 1, head 1 at step 0: weights softmax(S)", len(seq))
    for i, row in enumerate(rows):
        check(all(abs(w - 1 / (i + 1)) <= 0.02 for w in row[:i + 1]) and all(w == 0 for w in row[i + 1:]),
              f"lesson 22: step 0 row {i} is not near 1/{i + 1}: {row}")
    with open(os.path.join(SRC, "lessons", "models", "sort-losses.csv")) as f:
        losses = [float(line.split(",")[1]) for line in f.read().splitlines()[1:]]
    first = re.search(r"first loss ([0-9.]+), last ([0-9.]+)", text)
    check(first is not None and abs(float(first.group(1)) - losses[0]) <= 5e-5,
          f"lesson 22: the first loss printed is not the run's {losses[0]}")
    # The x axis: a tick ┬ over each step label, at the column that holds that step
    # (column c holds steps c·N/cols + 1 … (c + 1)·N/cols), step 1 first, N last.
    axis = re.search(r"^( {9}└)([─┬]+)\n(.*)$", text, re.M)
    check(axis is not None, "lesson 22: no x axis under the loss curve")
    if axis:
        cols, start = len(axis.group(2)), len(axis.group(1))
        labels = [(m.start(), int(m.group())) for m in re.finditer(r"\d+", axis.group(3))]
        check(len(labels) >= 3 and labels[0][1] == 1 and labels[-1][1] == len(losses),
              f"lesson 22: x labels {labels} do not run from step 1 to {len(losses)}")
        for at, step in labels:
            col = min(cols - 1, (step - 1) * cols // len(losses))
            label = str(step)
            check(axis.group(2)[col] == "┬" and at <= start + col < at + max(1, len(label)) + 1,
                  f"lesson 22: the label {step} is not under the tick of its column {col}")
        print(f"ok: lesson 22: x axis labels {[s for _, s in labels]} under their ticks")
    zeros = re.search(r"(\d+) of the (\d+) steps have a loss of exactly 0", text)
    check(zeros is not None and int(zeros.group(1)) == losses.count(0.0) and int(zeros.group(2)) == len(losses),
          f"lesson 22: the count of zero losses is not {losses.count(0.0)} of {len(losses)}")


EXTRA = """number = 20
title = "The show kinds no built-in lesson uses yet"
[[step]]
title = "Ablation and head scores"
text = "Both on the sort model."
[[step.show]]
kind = "head_ablation"
model = "sort"
tokens = "2 0 1 1 0 2 0 0 1 1 2 2"
from = 6
[[step.show]]
kind = "head_scores"
model = "sort"
tokens = "2 0 1 1 0 2 0 0 1 1 2"
"""


def losses_without(m, seq, layer, head, start=6):
    """Mean loss on tokens 1 … start − 1 and start … end with one head's W_O columns (nn.Linear [out, in]) zeroed."""
    w = m.transformer.h[layer].attn.c_proj.weight if layer is not None else None
    saved = w.detach().clone() if w is not None else None
    hs = m.config["n_embd"] // m.config["n_head"]
    with torch.no_grad():
        if w is not None:
            w[:, head * hs:(head + 1) * hs] = 0
        logits, _ = m(torch.tensor([seq[:-1]]))
        ce = torch.nn.functional.cross_entropy(logits[0], torch.tensor(seq[1:]), reduction="none")
        if w is not None:
            w.copy_(saved)
    return float(ce[:start - 1].mean()), float(ce[start - 1:].mean())


def head_scores_reference(patterns, tokens):
    """TransformerLens head_detector ("mul") on [layer][head][q, k] patterns of one sequence."""
    import numpy as np
    t = np.array(tokens)
    n = len(t)
    prev = np.zeros((n, n))
    prev[1:, :-1] = np.eye(n - 1)
    dup = (t[None, :] == t[:, None]).astype(float)
    np.fill_diagonal(dup, 0)
    dup = np.tril(dup)
    ind = np.tril(np.concatenate([np.zeros((n, 1)), np.roll(dup, 1, axis=1)[:, 1:]], axis=1))
    return {name: [[float((pat * d).sum() / pat.sum()) for pat in layer] for layer in patterns]
            for name, d in (("Previous-token", np.tril(prev)), ("Duplicate-token", dup), ("Induction", ind))}


ABLATION_ROW = r"^\s+(nothing|layer \d, head \d)\s+([0-9.]+)\s+([0-9.]+)\s*$"
SCORES_ROW = r"^\s+layer (\d), head (\d)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$"


def check_ablation(text, m, seq, start, what):
    """Every row of a head_ablation table against PyTorch; returns the rows {label: (first, second)}."""
    rows = re.findall(ABLATION_ROW, text, re.M)
    heads = m.config["n_layer"] * m.config["n_head"]
    check(len(rows) == heads + 1, f"{what}: head_ablation has {len(rows)} rows, expected {heads + 1}")
    worst = 0.0
    for label, first, second in rows:
        # "layer 1, head 1" on screen is blocks.0 head 0 (lessons count heads from 1)
        lh = None if label == "nothing" else tuple(int(x) - 1 for x in re.findall(r"\d", label))
        want = losses_without(m, seq, *(lh or (None, None)), start=start)
        worst = max(worst, abs(float(first) - want[0]), abs(float(second) - want[1]))
    check(worst <= 6e-5, f"{what}: head_ablation's losses differ from PyTorch's by {worst}")
    return {label: (float(a), float(b)) for label, a, b in rows}


def check_scores(text, m, seq, what):
    """The head_scores table (one row a head) against TransformerLens's formula on PyTorch's patterns."""
    L, H = m.config["n_layer"], m.config["n_head"]
    pats = [[m.pattern(torch.tensor([seq]), layer)[0, h].detach().numpy() for h in range(H)] for layer in range(L)]
    want = head_scores_reference(pats, seq)
    rows = re.findall(SCORES_ROW, text, re.M)
    check(len(rows) == L * H, f"{what}: head_scores has {len(rows)} rows, expected {L * H}")
    diff = 0.0
    for layer, head, *got in rows:  # counted from 1 on screen
        for name, g in zip(("Previous-token", "Duplicate-token", "Induction"), got):
            diff = max(diff, abs(float(g) - want[name][int(layer) - 1][int(head) - 1]))
    check(diff <= 6e-4, f"{what}: head_scores differ from PyTorch's by {diff}")
    return want


def shade(w):
    return "░" if w < 0.3 else "▒" if w < 0.6 else "▓" if w < 0.75 else "█"  # the legend: 0.3, 0.6, 0.75


def check_compact_heatmap(text, m, seq, layer, title):
    """A heatmap too wide for 4-character cells, drawn one shade a cell of 1 to 3 characters:
    every cell's shade is PyTorch's weight's, every key after the query is blocked (·)."""
    at = text.find(title)
    check(at >= 0, f"lesson 21: no heatmap '{title}'")
    pattern = m.pattern(torch.tensor([seq]), layer)[0, 0].detach()
    rows = [line for line in text[at:].splitlines()[1:] if re.match(r"^\s+\d+[₀-₉]+\s", line)][:len(seq)]
    wrong = []
    for i, line in enumerate(rows):
        cells = re.sub(r"^\s+\S+\s+", "", line).replace(" ", "")
        shades = cells.replace("·", "")
        n = len(shades) // (i + 1) if len(shades) % (i + 1) == 0 and shades else 1
        want = "".join(shade(float(pattern[i, j])) for j in range(i + 1))
        if shades[::n] != want or cells.count("·") != len(seq) - i - 1:
            wrong.append(i)
    check(len(rows) == len(seq) and not wrong, f"lesson 21: '{title}': rows {wrong} differ from PyTorch's shades")


LESSON_21 = [0, 7, 23, 41, 12, 58, 3, 36, 19, 50, 28, 7, 23, 41, 12, 58, 3, 36, 19, 50, 28]


def check_lesson_21():
    """Lesson 21 on the built-in induction checkpoint, every number against PyTorch."""
    m = model("induction")
    seq, block = LESSON_21, 10
    text = lesson_text(21)
    for width in (60, 80):  # 21 keys in cells of 4 fit neither: 2 and 3 characters a cell
        for layer in (0, 1):
            check_compact_heatmap(lesson_text(21, width), m, seq, layer, f"Layer {layer + 1}, head 1: weights  [21 × 21]")
    # The induction head's strongest keys, "  23₁₂  41₃  0.97  9  0₀  0.01": the key's
    # position is its subscript.
    at = text.find("Layer 2, head 1: where each query looks")
    check(at >= 0, "lesson 21: no table of where each query looks")
    keys = re.findall(r"^\s+\d+[₀-₉]+\s+\d+([₀-₉]+)\s+([0-9.]+)\s+(\d+)\s", text[at:], re.M)[:len(seq)]
    check(len(keys) == len(seq), f"lesson 21: the strongest table has {len(keys)} rows, expected {len(seq)}")
    pattern = m.pattern(torch.tensor([seq]), 1)[0, 0].detach()
    stripe = 0
    for i, (pos, weight, back) in enumerate(keys):
        j = int(torch.argmax(pattern[i, :i + 1]))
        got = int(pos.translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")))
        check(got == j and int(back) == i - j and abs(float(weight) - float(pattern[i, j])) <= 0.0051,
              f"lesson 21: row {i}: strongest key {got} ({weight}, {back} back); PyTorch: {j} ({float(pattern[i, j]):.4f})")
        stripe += i > block and i - j == block - 1
    check(stripe >= block - 2, f"lesson 21: only {stripe} queries of the repeated half look block − 1 = 9 back")
    want = check_scores(text, m, seq, "lesson 21")
    check(want["Induction"][1][0] > 0.3 and want["Previous-token"][0][0] > 0.5,
          f"lesson 21: the heads are not what the lesson says (scores {want})")
    rows = check_ablation(text, m, seq, block + 1, "lesson 21")
    if len(rows) == 3:  # the repeated half is cheap with both heads, dear without either
        kept, no_prev, no_ind = rows["nothing"], rows["layer 1, head 1"], rows["layer 2, head 1"]
        check(kept[1] < 0.5 * kept[0] and no_ind[1] > 2 * kept[1] and no_prev[1] > 2 * kept[1],
              f"lesson 21: removing a head does not bring the repeated half's loss back up: {rows}")
    print(f"ok: lesson 21: heatmaps, strongest keys ({stripe} on the stripe), head scores and ablation are PyTorch's")


def check_unused_kinds(sort):
    """head_ablation and head_scores, run from a lesson file, against PyTorch."""
    tmp = tempfile.mkdtemp(prefix="attn-lesson-kinds-")
    try:
        path = os.path.join(tmp, "20-kinds.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(EXTRA)
        r = subprocess.run([ATTN, "lesson", path, "--no-pause", "--color", "never", "--width", "200"],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"the extra lesson: exit {r.returncode}: {r.stderr}")
        seq = [2, 0, 1, 1, 0, 2, 0, 0, 1, 1, 2, 2]
        check_ablation(r.stdout, sort, seq, 6, "the sort model")
        # Lessons count layers and heads from 1, the head scores' table too.
        check(re.search(r"^\s+layer 3, head 3\s", r.stdout, re.M) and not re.search(r"\blayer 0\b|\bhead 0\b", r.stdout),
              "the extra lesson: layers and heads are not counted from 1 on screen")
        check_scores(r.stdout, sort, seq[:-1], "the sort model")
        print("ok: head_ablation within 6e-5 and head_scores within 6e-4 of PyTorch's on the sort model")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_sort8():
    """sort8 sorts at least 985 of 1,000 fresh inputs by greedy decoding, and its layer 1, head 1
    (blocks.0 head 0) at row 7 weights a copy of the smallest digit most on at least 95% of them."""
    m = model("sort8")
    g = torch.Generator().manual_seed(2026)
    inputs = torch.randint(0, 6, (1000, 8), generator=g)
    seq = inputs.clone()
    with torch.no_grad():
        for _ in range(8):
            logits, _ = m(seq)
            seq = torch.cat([seq, logits[:, -1, :].argmax(-1, keepdim=True)], dim=1)
        sorted_ok = int((seq[:, 8:] == inputs.sort(dim=1).values).all(dim=1).sum())
        row = m.pattern(seq[:, :15], 0)[:, 0, 7, :8]  # [1000, 8]: the query of position 7 over the input
        most = row.argmax(dim=1)
        on_min = float((inputs.gather(1, most[:, None])[:, 0] == inputs.min(dim=1).values).double().mean())
    check(sorted_ok >= 985, f"sort8 sorts only {sorted_ok} of 1,000 fresh inputs")
    check(on_min >= 0.95, f"sort8's layer 1, head 1 weights the smallest digit most on only {100 * on_min:.1f}% of inputs")
    print(f"ok: sort8 sorts {sorted_ok} of 1,000; its layer 1, head 1 weights the smallest digit most on "
          f"{100 * on_min:.1f}% of them")


def main():
    torch.set_num_threads(1)
    retrained()
    sort = model("sort")
    text = lesson_text(20)
    check_greedy(text, sort, [2, 0, 1, 1, 0, 2])
    seq = [2, 0, 1, 1, 0, 2, 0, 0, 1, 1, 2]
    check_weights(text, sort, seq, 0, 0, "Layer 1, head 1: weights softmax(S)")
    check_lesson_22(seq)
    check_unused_kinds(sort)
    check_lesson_21()
    check_sort8()
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok: lessons 20–22's models retrain to their bytes and their numbers are PyTorch's")


if __name__ == "__main__":
    main()
