#!/usr/bin/python3
"""bench/make_term_class.py — a term-sized class for timing `attn grade --class` on the two
assignments of issue 36: `bench/term-14.toml` (14 exercises of lessons 01–19, 13 with numbers
per student) and `bench/term-models.toml` (lessons 20–22's six trained-head exercises and two
choices).

usage: ATTN_COURSE_SECRET=... bench/make_term_class.py [--jobs J] ATTN_BIN ASSIGNMENT.toml DIR N [FIRST [LAST]]

FIRST and LAST (default 0 and N) write only students FIRST … LAST-1 of the N; `--jobs J`
splits them over J processes (one a core). A slice of SLICE students whose files all exist is
skipped, so an interrupted run resumes where it stopped (a file appears whole: written to
.NAME.json.part, then renamed).

Writes DIR/s000000.json … for N students, each answering on their own numbers (asked of
`attn exercise show ID --students FILE`, one call per exercise and slice, its output read as
it streams), computed here in NumPy — never by attn — for a whole slice at once (students
stacked along a first axis; one batched run per catalogued mistake): about 60% fully right,
25% with one catalogued mistake on the plain attention exercises (no scaling, softmax over
the wrong axis, transposed scores, mask left out; noise on the others), 10% wrong numbers, 4%
with exercises left out, 1% unreadable files. Deterministic: student i's choices come from
random.Random(i), the numbers from the secret; student i's file is the same whatever N and
however the class is sliced (the batched products are the per-student ones, matrix by matrix).
Not part of the product or the tests.
"""
import json
import os
import random
import subprocess
import sys
import tomllib

import numpy as np

SLICE = 4000  # students per `exercise show --students` call: ~200 MB here for lesson 21's 21×64 heads
PLAIN_MISTAKES = ["no_scaling", "wrong_axis", "transposed", "mask_missing"]
CHOICES = {"04-qkv-from": {"Q": "target", "K": "source", "V": "source"},
           "20-greedy": {"answer": "the likeliest token is appended and the model runs again"},
           "21-ablation": {"answer": "it goes back up: the induction head's keys no longer say which token came before"}}
ARRAYS = ("grad", "k", "q", "v")  # the inputs read as NumPy arrays straight from the text (the rest by json)


def parse_show(line, special):
    """One `exercise show` line: the arrays of ARRAYS parsed by np.fromstring (lessons 20–22's
    long lists; V skipped when no part needs the output), the rest by json."""
    arrays, pieces, at = {}, [], line.find('"inputs":{')
    need_v = special or '"stage":"output"' in line
    for key in ARRAYS:
        tag = '"%s":[[' % key
        start = line.find(tag, at)
        if start < 0:
            continue
        end = line.find("]]", start + len(tag))
        pieces += [line[at:start], '"%s":null' % key]
        if key != "v" or need_v:
            body = line[start + len(tag):end]
            arrays[key] = np.fromstring(body.replace("],[", ","), sep=",").reshape(body.count("],[") + 1, -1)
        at = end + 2
    d = json.loads(line[:line.find('"inputs":{')] + "".join(pieces) + line[at:])
    d["inputs"].update(arrays)
    return d


def stream_show(attn, ex, students, tmp, special):
    """Each student's `exercise show` document, parsed while attn still writes the next."""
    path = os.path.join(tmp, f".students-{os.getpid()}.txt")  # one a process: several may share DIR
    with open(path, "w") as f:
        f.write("\n".join(students) + "\n")
    p = subprocess.Popen([attn, "exercise", "show", ex, "--format", "json", "--students", path],
                         stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
    for line in p.stdout:
        yield parse_show(line, special)
    if p.wait() != 0:
        sys.exit(f"make_term_class: attn exercise show {ex} failed ({p.returncode})")
    os.unlink(path)


def softmax_last(s):
    """softmax over the last axis with the max subtracted; a row with no finite score gets
    weights 0 (tests/python/attention_reference.softmax_rows, for a stack of matrices)."""
    dead = np.all(np.isneginf(s), axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.exp(s - np.where(dead, 0.0, s.max(axis=-1, keepdims=True)))
        w = e / e.sum(axis=-1, keepdims=True)
    return np.where(dead, 0.0, w)


def tr(x):
    return np.swapaxes(x, -1, -2)


def plain_stages(g, mistake):
    """raw, scaled, masked, weights, output (and argmax) of attention on a stack of students."""
    q, k, v = g["q"], g["k"], g.get("v")
    scale = g["scale"] if g["scale"] is not None else np.sqrt(q.shape[-1])
    if mistake == "no_scaling":
        scale = 1.0
    square = q.shape[-2] == k.shape[-2]
    raw = k @ tr(q) if mistake == "transposed" and square else q @ tr(k)
    scaled = raw / scale
    masked = scaled
    if g["mask"] is not None and mistake != "mask_missing":
        masked = np.where(g["mask"], scaled, -np.inf)
    if not g["softmax"]:
        w = np.where(np.isfinite(masked), masked, 0.0)
    else:
        w = tr(softmax_last(np.ascontiguousarray(tr(masked)))) if mistake == "wrong_axis" and square else softmax_last(masked)
    return {"raw": raw, "scaled": scaled, "masked": masked, "weights": w, "output": None if v is None else w @ v,
            "argmax": np.argmax(w, axis=-1)[..., None]}


def online(q, k, v, tile):
    """tests/python/core_tiled_reference.online (no mask), for a stack of students."""
    s_all = q @ tr(k) / np.sqrt(q.shape[-1])
    shape = s_all.shape[:-1]
    m, l, o = np.full(shape, -np.inf), np.zeros(shape), np.zeros(shape + (v.shape[-1],))
    ms, ls = [], []
    for b in range(0, k.shape[-2], tile):
        s = s_all[..., b:b + tile]
        m_new = np.maximum(m, s.max(axis=-1))
        with np.errstate(invalid="ignore"):
            c = np.where(np.isinf(m), 1.0, np.exp(m - np.where(np.isinf(m_new), 0, m_new)))
        p = np.where(np.isinf(s), 0.0, np.exp(s - m_new[..., None]))
        l = l * c + p.sum(axis=-1)
        o = o * c[..., None] + p @ v[..., b:b + tile, :]
        m = m_new
        ms.append(m.copy()), ls.append(l.copy())
    return {"running_max": np.stack(ms, -1), "running_sum": np.stack(ls, -1), "output": o / l[..., None]}


def rope(x, base):
    """tests/python/core_tiled_reference.rope at positions 0…n-1, for a stack of students."""
    d = x.shape[-1]
    freq = base ** (-np.arange(0, d, 2) / d)
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * np.outer(np.arange(x.shape[-2]), freq))
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def is_special(ex):
    return ex[:3] in ("15-", "16-", "17-")


def special_stages(ex, g):
    """The stages of lessons 15–17's exercises (the references of tests/python), stacked."""
    q, k, v = g["q"], g["k"], g.get("v")
    if ex.startswith("15-"):
        gr = g["grad"]
        s = q @ tr(k) / np.sqrt(q.shape[-1])
        a = softmax_last(s)
        d_a = gr @ tr(v)
        d_s = a * (d_a - (d_a * a).sum(axis=-1, keepdims=True))
        return {"grad_v": tr(a) @ gr, "grad_q": d_s @ k / np.sqrt(q.shape[-1]), "grad_weights": d_a,
                "grad_scores": d_s}
    if ex.startswith("16-"):
        return online(q, k, v, g["tile"])
    if ex.startswith("17-"):
        rq, rk = rope(q, g["rope"]), rope(k, g["rope"])
        return {"rot_q": rq, "rot_k": rk, "raw": rq @ tr(rk)}
    return None


def cut(stages, part):
    """One part of every student of the stack, as the JSON values (a list a student)."""
    m = np.asarray(stages[part["stage"]])
    if m.ndim == 1:
        return [float(x) for x in m]
    rows = part["rows"] or list(range(m.shape[1]))
    cols = part["cols"] or list(range(m.shape[2]))
    out = m[:, rows][:, :, cols]
    if part["stage"] == "argmax":
        return out.reshape(out.shape[0], -1).tolist()
    vals = out.tolist()
    if np.isneginf(out).any():
        vals = [[[("-inf" if x == -np.inf else x) for x in row] for row in one] for one in vals]
    return vals


def student_plan(i):
    """Student i's random stream and mistake (None, a PLAIN_MISTAKE, noise, skip or broken)."""
    rng = random.Random(i)
    r = rng.random()
    if r < 0.01:
        return rng, "broken"
    return rng, None if r < 0.61 else rng.choice(PLAIN_MISTAKES) if r < 0.86 else "noise" if r < 0.96 else "skip"


def group_key(d):
    i = d["inputs"]
    return (i["q"].shape, i["k"].shape, i["v"].shape if i["v"] is not None else None, i["grad"].shape if "grad" in i else None,
            i["scale"], i.get("mask_attend") is not None, i.get("softmax", True), i.get("tile"), i.get("rope"),
            json.dumps(d["parts"]))


def exercise_answers(attn, ex, names, plans, tmp):
    """{slice index: {part: value}} of one exercise for a slice: the right answer, or the
    student's catalogued mistake on a plain attention exercise."""
    index = {s: n for n, s in enumerate(names)}
    groups = {}
    for d in stream_show(attn, ex, [s for s, (_, m) in zip(names, plans) if m != "broken"], tmp, is_special(ex)):
        groups.setdefault(group_key(d), []).append(d)
    out = {}
    for docs in groups.values():
        first = docs[0]["inputs"]
        g = {x: np.stack([d["inputs"][x] for d in docs]) for x in ARRAYS if first.get(x) is not None}
        g.update(scale=first["scale"], softmax=first.get("softmax", True), tile=first.get("tile"),
                 rope=first.get("rope"), mask=None)
        if first.get("mask_attend") is not None:
            g["mask"] = np.array([d["inputs"]["mask_attend"] for d in docs], bool)
        at = [index[d["student"]] for d in docs]
        special = special_stages(ex, g)
        forms = [None] if special is not None else [None] + PLAIN_MISTAKES
        for form in forms:
            pick = [n for n, a in enumerate(at) if (plans[a][1] if plans[a][1] in PLAIN_MISTAKES else None) == form
                    or special is not None]
            if not pick:
                continue
            sub = {x: (y[pick] if isinstance(y, np.ndarray) else y) for x, y in g.items()}
            st = special if special is not None else plain_stages(sub, form)
            vals = {p["id"]: cut(st, p) for p in docs[0]["parts"]}
            for j, n in enumerate(pick):
                out[at[n]] = {pid: v[j] for pid, v in vals.items()}
    return out


def noisy(ans, rng):
    """Every float of every part moved by U(-1, 1), in order (argmax lists untouched)."""
    return {key: (val if isinstance(val, list) and val and isinstance(val[0], int) else
                  [[(x + rng.uniform(-1, 1)) if isinstance(x, float) else x for x in row] for row in val])
            for key, val in ans.items()}


def student_text(i, exercises, plan, per_ex, at, special):
    rng, mistake = plan
    student = f"s{i:06d}"
    if mistake == "broken":
        return '{"student": "%s", "%s": {"raw": [1.0,,]}' % (student, exercises[0])  # broken JSON
    doc = {"student": student}
    for ex in exercises:
        if mistake == "skip" and rng.random() < 0.5:
            continue
        if ex in CHOICES:
            doc[ex] = CHOICES[ex]
            continue
        ans = per_ex[ex][at]
        if mistake == "noise" or (mistake in PLAIN_MISTAKES and special[ex]):
            ans = noisy(ans, rng)
        doc[ex] = ans
    return json.dumps(doc)


def write_slice(attn, exercises, out, start, stop):
    names = [f"s{i:06d}" for i in range(start, stop)]
    plans = [student_plan(i) for i in range(start, stop)]
    per_ex = {ex: exercise_answers(attn, ex, names, plans, out) for ex in exercises if ex not in CHOICES}
    special = {ex: is_special(ex) for ex in exercises}
    for n, i in enumerate(range(start, stop)):
        text = student_text(i, exercises, plans[n], per_ex, n, special)
        aside = os.path.join(out, "." + names[n] + ".json.part")  # a dot file: `attn grade --class` skips it
        with open(aside, "w") as f:
            f.write(text)
        os.replace(aside, os.path.join(out, names[n] + ".json"))


def main():
    args = sys.argv[1:]
    jobs = 1
    if args and args[0] == "--jobs":
        jobs, args = int(args[1]), args[2:]
    attn, assignment, out, n = args[0], args[1], args[2], int(args[3])
    first = int(args[4]) if len(args) > 4 else 0
    last = min(n, int(args[5])) if len(args) > 5 else n
    if jobs > 1:  # contiguous shares on SLICE boundaries, one process each
        step = -(-(last - first) // (jobs * SLICE)) * SLICE
        kids = [subprocess.Popen([sys.executable, os.path.abspath(__file__), attn, assignment, out, str(n),
                                  str(a), str(min(a + step, last))], stdout=subprocess.DEVNULL)
                for a in range(first, last, step)]
        if any(k.wait() != 0 for k in kids):
            sys.exit("make_term_class: a worker failed")
        print(f"{last - first} submissions in {out}")
        return
    with open(assignment, "rb") as f:
        exercises = [e["id"] for e in tomllib.load(f)["exercise"]]
    os.makedirs(out, exist_ok=True)
    for start in range(first, last, SLICE):
        stop = min(start + SLICE, last)
        if all(os.path.exists(os.path.join(out, f"s{i:06d}.json")) for i in range(start, stop)):
            continue  # written by an earlier run (each file appears whole: written aside, then renamed)
        write_slice(attn, exercises, out, start, stop)
        print(f"make_term_class: {stop} of {first}..{last} (class of {n})", file=sys.stderr, flush=True)
    print(f"{last - first} submissions in {out}")


if __name__ == "__main__":
    main()
