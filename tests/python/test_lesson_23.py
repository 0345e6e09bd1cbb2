#!/usr/bin/python3
"""tests/python/test_lesson_23.py — lesson 23, "A real small Llama", against an independent
forward: every number the lesson prints is recomputed here by PyTorch from the GGUF file
itself (tests/python/llama_reference.py: its own GGUF reader, RMSNorm, rotary pairs,
grouped-query attention, SwiGLU; never attn's code), and its exercises are graded for two
students against the same reference.

  * the facts the lesson states (layers, heads, key/value heads, head size, base, vocabulary,
    context) are the file's metadata; its token labels are the file's pieces (▁ dropped);
  * step 1: layer norm's mean, variance and σ, and RMSNorm's divisor (hook_scale), of the
    residual stream entering layer 1;
  * step 2: the rotation of layer 2, query head 4 at position 9 pair by pair (frequency,
    angle, cos, sin, before, after) and the model's own rotated row;
  * step 3: the rotated q·k and q·k with sinusoidal P added at each pair of positions;
  * step 4: which key/value head each query head reads, and heads 4 and 3's weights;
  * step 5: each query's strongest key, its weight, the distance and the runner-up;
  * step 6: the KV cache's numbers and bytes for G = 8, 4, 1;
  * step 7: the story generated through the cache (greedy, every probability) and the
    numbers cached per step;
  * exercises: 23-rotary-row for alice and bob (their inputs drawn from the course secret:
    BOS, five drawn tokens, the model's own greedy continuation), the right answer full
    marks, an honest mistake (q and k never rotated; the key/value head of another
    group; the head counted from 0) fewer, named; the choice exercises' right answers and
    named wrong ones."""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STORIES = os.path.join(SRC, "lessons", "models", "stories260K.gguf")
LESSON = os.path.join(SRC, "lessons", "23-a-real-small-llama.toml")
SECRET = os.path.join(SRC, "tests", "fixtures", "grade", "course.secret")
TOKENS = [1, 403, 407, 261, 378, 432, 383, 286, 261, 376]
SUB = "₀₁₂₃₄₅₆₇₈₉"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(got, want, tol):
    return abs(float(got) - float(want)) <= tol


def subscript(n):
    return "".join(SUB[int(c)] for c in str(n))


META, _ = ref.read_gguf_f32(STORIES)
CFG, WEIGHTS = ref.read_gguf_llama(STORIES)
PIECES = META["tokenizer.ggml.tokens"]


def label(i):
    p = PIECES[i]
    return p[1:] if p.startswith("▁") and len(p) > 1 else p


def forward(ids):
    with torch.no_grad():
        return ref.forward(WEIGHTS, CFG, [ids])


S = forward(TOKENS)
LABELS = [label(t) + subscript(i) for i, t in enumerate(TOKENS)]


def lesson_text():
    r = subprocess.run([ATTN, "lesson", "23", "--no-pause", "--width", "80", "--color", "never"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, "attn lesson 23 exits %d: %s" % (r.returncode, r.stderr[-300:]))
    return r.stdout


def section(out, title):
    """The lines after the line that starts with `title`, up to the next blank line."""
    lines = out.split("\n")
    for i, l in enumerate(lines):
        if l.startswith(title):
            rows = []
            for m in lines[i + 1:]:
                if not m.strip():
                    break
                rows.append(m)
            return rows
    check(False, "the lesson prints %r" % title)
    return []


def labelled(rows, first=None):
    """The rows of a table whose first cell passes `first` (default: a story label)."""
    ok = first or (lambda c: c in LABELS)
    return [r for r in rows if r.split() and ok(r.split()[0])]


def numbers(s):
    return [float(x) for x in re.findall(r"-?\d+\.\d+|-?\d+", s)]


def facts():
    text = open(LESSON, encoding="utf-8").read()
    check((CFG.n_layers, CFG.d_model, CFG.n_heads, CFG.n_kv_heads, CFG.d_head) == (5, 64, 8, 4, 8),
          "stories260K is 5 layers, d_model 64, 8 heads over 4 key/value heads of 8: %s" % CFG)
    check(CFG.theta == 10000.0 and CFG.pairing == "adjacent" and len(PIECES) == 512 and META["llama.context_length"] == 2048,
          "base 10000, adjacent pairs, 512 pieces, 2048 positions")
    for said in ("5 layers", "d_model = 64, 8 query heads of size 8", "4 key/value heads", "base 10000", "512 tokens",
                 "context is 2048 tokens"):
        check(said in text, "the lesson says %r" % said)
    story = re.search(r"^story = \[(.*)\]$", text, re.M).group(1)
    check(re.findall(r'"([^"]*)"', story) == LABELS, "the lesson's labels are the file's pieces: %s" % LABELS)
    check(all('tokens = "%s"' % " ".join(map(str, TOKENS)) in block for block in text.split("[[step.show]]")
              if 'model = "stories260K"' in block and "tokens =" in block), "every model item reads the same story")


def step1(out):
    x = S["blocks.0.hook_resid_pre"][0]  # [P, 64]
    mean, var = x.mean(-1), x.var(-1, unbiased=False)
    rows = labelled(section(out, "Layer norm's statistics of each token"))
    check(len(rows) == 10, "ten tokens of layer norm statistics, found %d" % len(rows))
    for i, r in enumerate(rows):
        n = numbers(r.split(None, 1)[1])
        want = [mean[i], var[i], math.sqrt(var[i] + 1e-5)]
        check(r.split()[0] == LABELS[i] and all(close(a, b, 6e-5) for a, b in zip(n, want)),
              "layer norm stats of %s: %s, want %s" % (LABELS[i], n, [float(w) for w in want]))
    scale = S["blocks.0.ln1.hook_scale"][0, :, 0]
    rows = labelled(section(out, "RMSNorm's divisor, as the model computed it"))
    check(len(rows) == 10, "ten RMS values")
    for i, r in enumerate(rows):
        check(close(numbers(r.split(None, 1)[1])[0], scale[i], 6e-5), "RMS of %s: %s, want %f" % (LABELS[i], r, scale[i]))
        check(close(scale[i] ** 2, (x[i] ** 2).mean() + CFG.eps, 1e-9), "RMS is √(mean(x²) + ε)")


def step2(out):
    q, rq = S["blocks.1.attn.hook_q"][0, 9, 3], S["blocks.1.attn.hook_rot_q"][0, 9, 3]
    rows = labelled(section(out, "Layer 2, query head 4: little₉ at position 9, base 10000"), lambda c: re.match(r"d\d,d\d$", c))
    check(len(rows) == 4, "four pairs, found %d" % len(rows))
    for i, r in enumerate(rows):
        freq = 10000.0 ** (-2 * i / 8)
        n = numbers(r.split(None, 1)[1])
        want_head = [freq, 9 * freq, math.cos(9 * freq), math.sin(9 * freq)]
        check(all(close(a, b, 6e-5) for a, b in zip(n[:4], want_head)), "pair %d: %s, want %s" % (i, n[:4], want_head))
        check(close(n[4], q[2 * i], 0.006) and close(n[5], q[2 * i + 1], 0.006), "pair %d before: %s" % (i, n[4:6]))
        check(close(n[6], rq[2 * i], 6e-5) and close(n[7], rq[2 * i + 1], 6e-5),
              "pair %d after: %s, want %s" % (i, n[6:8], rq[2 * i:2 * i + 2].tolist()))
    kept = section(out, "The model's own rotated query of little₉, as its forward kept it")
    n = numbers(kept[-1].split(None, 1)[1])
    check(len(n) == 8 and all(close(a, b, 6e-5) for a, b in zip(n, rq)), "the kept rotated row %s, want %s" % (n, rq.tolist()))


def sinusoidal(p, d):
    return torch.tensor([math.sin(p / 10000 ** (i / d)) if i % 2 == 0 else math.cos(p / 10000 ** ((i - 1) / d))
                         for i in range(d)], dtype=torch.float64)


def step3(out):
    q, k = S["blocks.1.attn.hook_q"][0, 9, 3], S["blocks.1.attn.hook_k"][0, 8, 1]  # query head 4 reads K/V head 2
    rows = [r for r in section(out, "Query head 4's q of little₉ and k of a₈ at positions m, n") if re.match(r"\s+\d+, \d+ ", r)]
    check(len(rows) == 6, "six pairs of positions")
    for r in rows:
        m, n, diff, rot, added = numbers(r)
        rq = ref.rotary_pairs(q.view(1, 1, 1, 8), [m], 8, 10000.0, "adjacent").view(8)
        rk = ref.rotary_pairs(k.view(1, 1, 1, 8), [n], 8, 10000.0, "adjacent").view(8)
        want_added = float((q + sinusoidal(m, 8)) @ (k + sinusoidal(n, 8)))
        check(diff == m - n and close(rot, rq @ rk, 6e-5) and close(added, want_added, 6e-5),
              "positions %d, %d: %s, want %f and %f" % (m, n, r, rq @ rk, want_added))


def step4(out):
    flat = " ".join(out.split())  # the map's line wraps at 80 columns
    want = "query head → key/value head: " + ", ".join("%d → %d" % (h + 1, h // 2 + 1) for h in range(8))
    check(flat.count(want) == 2, "the head map is %r" % want)
    for head, grp in ((4, 2), (3, 2)):
        check("query head %d reads columns %d–%d of K and V (K/V head %d)." % (head, (grp - 1) * 8, grp * 8 - 1, grp) in out,
              "query head %d reads K/V head %d" % (head, grp))
        pattern = S["blocks.1.attn.hook_pattern"][0, head - 1]  # [P, P]
        rows = weights_table(out, "Query head %d of 8," % head)
        check(len(rows) == 10, "query head %d: ten rows of weights, found %d" % (head, len(rows)))
        for i, cells in rows.items():
            check(all(close(a, b, 6e-5) for a, b in zip(cells, pattern[i])),
                  "query head %d, row %s: %s, want %s" % (head, LABELS[i], cells, pattern[i].tolist()))


def weights_table(out, title):
    """Row index → the weights, collected across the table's column blocks."""
    rows = {}
    lines = out.split("\n")
    for i, l in enumerate(lines):
        if not l.startswith(title):
            continue
        for m in lines[i + 1:]:
            if not m.strip():
                break
            first = m.split()[0]
            if first in LABELS:
                rows.setdefault(LABELS.index(first), []).extend(numbers(m.split(None, 1)[1]))
    return rows


def shade(w):
    return "░" if w < 0.3 else "▒" if w < 0.6 else "▓" if w < 0.75 else "█"


def step5(out):
    pattern = S["blocks.1.attn.hook_pattern"][0, 3]
    rows = labelled(section(out, "Layer 2, head 4: weights"))
    check(len(rows) == 10, "ten rows of the heatmap, found %d" % len(rows))
    for i, r in enumerate(rows):
        cells = r[2 + max(map(len, LABELS)) + 1:]
        want = "".join(shade(float(pattern[i, j])) * 3 if j <= i else "  ·" for j in range(10))
        check(cells == want, "heatmap row %s: %r, want %r" % (LABELS[i], cells, want))
    rows = labelled(section(out, "Layer 2, head 4: where each query looks"))
    check(len(rows) == 10, "ten queries in the strongest-key table, found %d" % len(rows))
    for i, r in enumerate(rows):
        cells = r.split()
        order = sorted(range(i + 1), key=lambda j: (-float(pattern[i, j]), j))
        best = order[0]
        check(cells[0] == LABELS[i] and cells[1] == LABELS[best] and close(cells[2], pattern[i, best], 0.006) and
              int(cells[3]) == i - best, "strongest key of %s: %s, want %s %.2f" % (LABELS[i], cells, LABELS[best], pattern[i, best]))
        if i > 0:
            check(cells[4] == LABELS[order[1]] and close(cells[5], pattern[i, order[1]], 0.006),
                  "runner-up of %s: %s, want %s" % (LABELS[i], cells[4:], LABELS[order[1]]))


def step6(out):
    rows = labelled(section(out, "stories260K's KV cache at 2048 tokens"), str.isdigit)
    got = {int(r.split()[0]): r for r in rows}
    for g in (8, 4, 1):
        n = 2 * CFG.n_layers * g * CFG.d_head * 2048
        size = "%.1f MiB" % (n * 4 / 2 ** 20) if n * 4 >= 2 ** 20 else "%.1f KiB" % (n * 4 / 2 ** 10)
        check(g in got and str(n) in got[g].split() and size in got[g] and "1/%d" % (8 // g) in got[g],
              "G = %d: %d numbers, %s: %s" % (g, n, size, got.get(g)))


def step7(out):
    rows = labelled(section(out, "Decoding through the KV cache, one token a step"), str.isdigit)
    ids = list(TOKENS)
    per = 2 * CFG.n_layers * CFG.n_kv_heads * CFG.d_head
    check(per == 320, "320 numbers cached a token")
    check(len(rows) == 11, "eleven new tokens, found %d" % len(rows))
    for k, r in enumerate(rows):
        logits = forward(ids)["logits"][0, -1]
        p = torch.softmax(logits, -1)
        nxt = int(p.argmax())
        cells = r.split()
        pos = len(ids) - 1
        want = [str(len(ids)), label(ids[-1]) + subscript(pos), label(nxt)]
        check(cells[:3] == want and close(cells[3], p[nxt], 6e-5) and int(cells[4]) == len(ids) * per and
              int(cells[5]) == len(ids) * 2 * per, "step %d: %s, want %s p %.4f" % (k + 1, cells, want, p[nxt]))
        ids.append(nxt)
    words = "".join(PIECES[t].replace("▁", " ") for t in ids).lstrip(" ")
    check(("story: " + words) in " ".join(l.strip() for l in out.split("\n")), "the story is %r" % words)
    return ids


# ---- exercises ---------------------------------------------------------------------------

tmp = tempfile.mkdtemp(prefix="attn-lesson-23-")


def show_tokens(student):
    p = subprocess.run([ATTN, "exercise", "show", "23-rotary-row", "--format", "json", "--student", student,
                        "--secret-file", SECRET], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "exercise show for %s: %s" % (student, p.stderr))
    j = json.loads(p.stdout)
    check(j["numbers"]["personal"], "%s's numbers are personal" % student)
    return j["inputs"]["model"]["tokens"], j


def grade(ex, student, parts):
    path = os.path.join(tmp, "%s-%s-%d.json" % (ex, student, len(os.listdir(tmp))))
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"student": student, ex: parts}, f)
    p = subprocess.run([ATTN, "grade", path, "--format", "json", "--secret-file", SECRET], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0, "%s: grade exit %d: %s" % (ex, p.returncode, p.stderr))
    return json.loads(p.stdout)


def expect(ex, student, parts, mistake=None):
    r = grade(ex, student, parts)
    got, top = r["score"], r["max_score"]
    named = [p.get("mistake", {}).get("id") for p in r["exercises"][0]["parts"]]
    if mistake is None:
        check(got == top and top > 0, "%s/%s: the right answer scores %s of %s: %s" % (ex, student, got, top, r["exercises"][0]["parts"]))
    else:
        check(got < top, "%s/%s: the %s answer scores less than full (%s of %s)" % (ex, student, mistake, got, top))
        check(mistake in named, "%s/%s: the mistake %s is named (found %s)" % (ex, student, mistake, named))


def row9(q, k):
    """scaled, weights, most of query row 9 (q, k [P, 8] already as the student uses them)."""
    scaled = (q[9] @ k[:10].T) / math.sqrt(8)
    w = torch.softmax(scaled, 0)
    return {"scaled": scaled.tolist(), "weights": w.tolist(), "most": int(w.argmax())}


def exercises():
    seen = {}
    for student in ("alice", "bob"):
        toks, shown = show_tokens(student)
        seen[student] = toks
        greedy = ref.greedy(WEIGHTS, CFG, toks[:6], 4)
        check(len(toks) == 10 and toks[0] == 1 and all(380 <= t <= 400 for t in toks[1:6]) and toks == greedy,
              "%s's input %s is BOS, five drawn tokens (380 … 400) and the model's greedy continuation %s" % (student, toks, greedy))
        s = forward(toks)
        a = "blocks.1.attn."
        right = row9(s[a + "hook_rot_q"][0, :, 4], s[a + "hook_rot_k"][0, :, 2])
        # The hand-out's q and k are before the rotation, K/V head 3's (blocks.1 kv head 2).
        q_shown = torch.tensor(shown["inputs"]["q"], dtype=torch.float64)
        k_shown = torch.tensor(shown["inputs"]["k"], dtype=torch.float64)
        check(torch.allclose(q_shown, s[a + "hook_q"][0, :, 4], atol=1e-9) and
              torch.allclose(k_shown, s[a + "hook_k"][0, :, 2], atol=1e-9),
              "%s's hand-out holds query head 5's q and key/value head 3's k before the rotation" % student)
        expect("23-rotary-row", student, right)
        expect("23-rotary-row", student, row9(s[a + "hook_q"][0, :, 4], s[a + "hook_k"][0, :, 2]), "rotation_skipped")
        expect("23-rotary-row", student, row9(s[a + "hook_rot_q"][0, :, 4], s[a + "hook_rot_k"][0, :, 0]), "kv_head_wrong_group")
        b = "blocks.2.attn."  # layer 3, head 6: "layer 2, head 5" read as blocks.2 head 5
        expect("23-rotary-row", student, row9(s[b + "hook_rot_q"][0, :, 5], s[b + "hook_rot_k"][0, :, 2]), "head_counted_from_0")
    check(seen["alice"] != seen["bob"], "alice and bob get different stories: %s" % seen["alice"])
    s = forward(seen["alice"])
    r = grade("23-rotary-row", "bob", row9(s["blocks.1.attn.hook_rot_q"][0, :, 4], s["blocks.1.attn.hook_rot_k"][0, :, 2]))
    check(r["score"] <= 0.2 * r["max_score"], "alice's right answer handed in by bob earns at most 20%% (%s of %s)" % (r["score"], r["max_score"]))
    # The choice exercises: the heads' groups and the cache, counted here.
    check(str(5 // 2 + 1) == "3", "query head 6 (from 1) reads key/value head 3")
    expect("23-shared-head", "alice", {"answer": "3"})
    r = grade("23-shared-head", "bob", {"answer": "2"})
    check(r["score"] == 0 and "round-robin" in json.dumps(r), "23-shared-head: round-robin named: %s" % r)
    n = 2 * CFG.n_layers * CFG.n_kv_heads * CFG.d_head * 100
    expect("23-cache-numbers", "alice", {"answer": str(n)})
    r = grade("23-cache-numbers", "bob", {"answer": str(2 * n)})
    check(r["score"] == 0 and "cache-uses-h" in json.dumps(r), "23-cache-numbers: counting 8 heads is named")


def main():
    facts()
    out = lesson_text()
    wide = [l for l in out.split("\n") if len(l) > 80]
    check(not wide, "no line over 80 columns: %s" % wide[:1])
    for step in (step1, step2, step3, step4, step5, step6, step7):
        step(out)
    exercises()
    shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("ok: lesson 23's numbers recomputed by PyTorch from the GGUF; its exercises graded for two students")


if __name__ == "__main__":
    main()
