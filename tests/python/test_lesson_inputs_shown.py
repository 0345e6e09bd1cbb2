#!/usr/bin/python3
"""tests/python/test_lesson_inputs_shown.py — every input a step computes with is on
the screen, so a student can recompute the step: for each step of each lesson, the
matrices its show items use (a run's Q, K, V and bias, a block's X and weights, a
derived matrix's own inputs, followed back to the lesson's [matrices] and its random
or position tables) are listed, and each must be shown (a `matrix` item, or a
`stage` item of q, k or v, in this step or an earlier one) or referred to by name in
the intro or the text of this step or an earlier one ("W_O (shown in lesson 07)",
"the 4 × 4 identity"). Reads the lesson files only; prints the list per step."""
import os
import re
import sys
import tomllib

SRC = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
LESSONS = os.path.join(SRC, "lessons")
MATRIX_KEYS = {"q", "k", "v", "bias", "x", "x_q", "x_kv", "w_q", "w_k", "w_v", "w_o", "w1", "w2", "b1", "b2",
               "encoder_output", "of", "a", "b", "table", "matrix", "grad"}
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def names_in(table, keys):
    out = []
    for key, value in table.items():
        if key in keys or key.startswith(("self_w_", "cross_w_", "w_q", "w_k", "w_v")):
            if isinstance(value, str):
                out.append(value)
        if key in ("matrices", "runs") and isinstance(value, list):
            out += [v for v in value if isinstance(v, str)]
    return out


def aliases(name):
    """How a text may call the matrix `name`."""
    out = {name, name.translate(SUBSCRIPT), name.replace("_", "")}
    m = re.fullmatch(r"([A-Za-z]+)_?(\d+)", name)
    if m:
        out |= {m.group(1) + m.group(2).translate(SUBSCRIPT), m.group(1) + "_" + m.group(2)}
    if re.fullmatch(r"I\d+", name):
        out |= {"identity"}
    return out


def referred(name, text):
    for a in aliases(name):
        if re.search(r"(?<![A-Za-z0-9_])" + re.escape(a) + r"(?![A-Za-z0-9_])", text):
            return True
    return False


class Lesson:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.doc = tomllib.load(f)
        self.matrices = set(self.doc.get("matrices", {}))
        self.derived = self.doc.get("derived", {})
        self.runs = self.doc.get("runs", {})
        self.blocks = self.doc.get("blocks", {})

    def inputs_of(self, name, seen=None):
        """The lesson inputs behind a matrix name: [(name, parents)] leaves and derived ops."""
        seen = seen if seen is not None else set()
        if name in seen:
            return []
        seen.add(name)
        base = name.split(".")[0]
        if name in self.matrices:
            return [name]
        if name in self.derived:
            d = self.derived[name]
            if d.get("op") in ("random_normal", "sinusoidal", "distance_bias"):
                return [name]
            out = [name]
            for n in names_in(d, MATRIX_KEYS | {"x"}):
                out += self.inputs_of(n, seen)
            return out
        if base in self.derived and base != name:
            return self.inputs_of(base, seen)
        if base in self.runs:
            out = []
            for n in names_in(self.runs[base], {"q", "k", "v", "bias"}):
                out += self.inputs_of(n, seen)
            return out
        if base in self.blocks:
            # A piece of the attention sub-layers ("post.attn.h1", "dec.self.output",
            # "mha.q") is computed before the FFN: its weights are not among its inputs.
            parts = name.split(".")
            before_ffn = len(parts) > 1 and (parts[1] in ("attn", "self", "cross", "q", "k", "v", "concat", "result",
                                                          "add_norm1") or re.fullmatch(r"h\d+", parts[1]))
            keys = MATRIX_KEYS - {"w1", "w2", "b1", "b2"} if before_ffn else MATRIX_KEYS
            out = []
            for n in names_in(self.blocks[base], keys):
                out += self.inputs_of(n, seen)
            return out
        return []

    def used_by(self, item):
        # Showing a slice, a transpose or a table of a matrix puts its numbers on the
        # screen: what it was cut from is not used.
        if item.get("kind") == "matrix" and self.derived.get(item["matrix"], {}).get("op") in (
                "rows", "transpose", "scale", "scale_columns", "sinusoidal", "random_normal"):
            return [item["matrix"]]
        out = []
        for n in names_in(item, MATRIX_KEYS | {"run", "block"}):
            out += self.inputs_of(n)
        for key in ("runs", "matrices"):
            for n in item.get(key, []) if isinstance(item.get(key), list) else []:
                out += self.inputs_of(n)
        return out

    def shown_by(self, item):
        """Matrices an item puts on the screen as they are."""
        if item.get("kind") == "matrix":
            return {item["matrix"]}
        if item.get("kind") == "stage" and item.get("stage") in ("q", "k", "v"):
            run = self.runs.get(item["run"], {})
            return {run.get(item["stage"], "")}
        if item.get("kind") == "scale_columns":
            return {item["matrix"]}
        return set()


def check_lesson(path):
    lesson = Lesson(path)
    text = lesson.doc.get("intro", "")
    shown = set()
    problems = []
    for k, step in enumerate(lesson.doc.get("step", []), 1):
        text += "\n" + step.get("title", "") + "\n" + step.get("text", "")
        items = step.get("show", [])
        for item in items:
            shown |= lesson.shown_by(item)
        used = []
        for item in items:
            for n in lesson.used_by(item):
                if n not in used:
                    used.append(n)
        leaves = [n for n in used if n in lesson.matrices or n in lesson.derived]
        print(f"  {os.path.basename(path)} step {k}: uses {', '.join(leaves) or '(none)'}")
        for n in leaves:
            if n in shown or referred(n, text):
                continue
            # random numbers cannot be typed in: saying they are random is what can be shown
            if lesson.derived.get(n, {}).get("op") == "random_normal" and re.search(r"\brandom\b", text):
                continue
            # a derived matrix is fine when what it is made of is on the screen
            d = lesson.derived.get(n)
            if d and d.get("op") not in ("random_normal", "sinusoidal", "distance_bias"):
                continue
            problems.append(f"{os.path.basename(path)} step {k} ({step.get('title', '')}): "
                            f"{n} is used but neither shown nor referred to")
    return problems


def main():
    problems = []
    files = sorted(f for f in os.listdir(LESSONS) if re.match(r"\d\d-.*\.toml$", f))
    for f in files:
        problems += check_lesson(os.path.join(LESSONS, f))
    for p in problems:
        print("FAIL " + p)
    if not problems:
        print(f"ok   every input of every step of {len(files)} lessons is shown or referred to")
    # the check itself must be able to fail: a lesson whose step uses a matrix it never names
    probe = os.path.join(os.environ.get("TMPDIR", "/tmp"), "attn-inputs-probe-%d.toml" % os.getpid())
    try:
        with open(probe, "w") as f:
            f.write('number = 1\ntitle = "t"\n[matrices]\nSECRET = [[1.0]]\n'
                    '[runs.r]\nq = "SECRET"\nk = "SECRET"\nv = "SECRET"\n'
                    '[[step]]\ntitle = "s"\ntext = "nothing"\n[[step.show]]\nkind = "stage"\nrun = "r"\nstage = "weights"\n')
        caught = check_lesson(probe)
    finally:
        os.remove(probe)
    if not caught:
        print("FAIL the check did not catch a matrix that is never shown")
        problems.append("probe")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
