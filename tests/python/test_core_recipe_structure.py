#!/usr/bin/env python3
"""tests/python/test_core_recipe_structure.py — attention's recipe and the stage
vocabulary live on the ground floor (issue 32, Build 1).

- No floor above core composes attention's variants: outside src/core (and src/model,
  whose forward moves onto the recipe separately), no code calls the core functions the
  recipe is made of (the one-head forward, the fast forward, RoPE, grouped-query heads,
  the tiled forward, the backward). Each place that does is named; the few allowed are
  listed below with the reason.
- The spec (`attn trace`), the lesson runs and the grader's pipeline call the recipe.
- No floor above core spells a stage table of its own: no stage name of
  core/stages.cpp's table appears as a string literal in src/io, src/lessons,
  src/trace or src/grade (comments may name stages).
- The recipe keeps every stage of the vocabulary's table that it computes, by id:
  core/stages.cpp's table lists each stage once, and trace/stages.cpp holds no table.
"""
import os
import re
import sys

src = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def sources(folder):
    for root, _, files in os.walk(os.path.join(src, folder)):
        for f in sorted(files):
            if f.endswith((".cpp", ".hpp")):
                yield os.path.join(root, f)


def code_lines(path):
    """(line number, the line without its // comment and with string literals kept)."""
    with open(path, encoding="utf-8") as f:
        in_block = False
        for n, line in enumerate(f, 1):
            if in_block:
                if "*/" not in line:
                    continue
                line = line.split("*/", 1)[1]
                in_block = False
            if "/*" in line and "*/" not in line.split("/*", 1)[1]:
                line, in_block = line.split("/*", 1)[0], True
            yield n, re.sub(r"//.*", "", line) if '"' not in line else strip_comment(line)


def strip_comment(line):
    """The line up to a // outside a string literal."""
    out, quoted, i = [], False, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and quoted:
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        if not quoted and line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


# The core functions the recipe composes; above core only the recipe calls them.
composed = ["scaled_dot_product_attention", "fast_attention", "rotary_embed", "rotary_embed_at",
            "grouped_query_attention", "kv_group_of", "tiled_attention", "attention_backward"]
call = re.compile(r"\b(" + "|".join(composed) + r")\s*\(")
# (file, function): why it may call it.
allowed = {
    ("src/lessons/show_rope.cpp", "rotary_embed"): "lesson 17 shows the rotation itself (angles, the relative "
                                                    "dot product), not attention",
    ("src/lessons/show_rope.cpp", "rotary_embed_at"): "the same: q·k at two positions",
    # The grader's catalogued mistakes compute wrong stages on purpose (a rotation at the
    # wrong positions, a backward on a mistaken forward); they move onto the recipe's
    # options with the grader's restructuring.
    ("src/grade/mistakes.cpp", "rotary_embed"): "a mistake: rotation at the wrong positions",
    ("src/grade/mistakes.cpp", "scaled_dot_product_attention"): "a mistake's forward",
    ("src/grade/mistakes.cpp", "attention_backward"): "a mistake's backward",
}
above = ["src/io", "src/lessons", "src/trace", "src/grade", "src/cli"]
for folder in above:
    for path in sources(folder):
        rel = os.path.relpath(path, src)
        for n, line in code_lines(path):
            for m in call.finditer(line):
                if (rel, m.group(1)) not in allowed:
                    check(False, f"{rel}:{n}: calls core's {m.group(1)}() — compose attention through "
                                 f"core/recipe.hpp (attention_recipe, attention_recipe_head, fast_recipe)")

# The three callers of the recipe.
for rel, fn in [("src/trace/trace_run.cpp", "fast_recipe"), ("src/grade/pipeline.cpp", "attention_recipe_head"),
                ("src/lessons/loader_runs.cpp", "attention_recipe_head")]:
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        check(re.search(r"\b" + fn + r"\s*\(", f.read()) is not None, f"{rel} does not call the recipe's {fn}()")

# The vocabulary: one table, in core.
with open(os.path.join(src, "src", "core", "stages.cpp"), encoding="utf-8") as f:
    table = f.read()
rows = re.findall(r'\{stage::(\w+), "(\w+)", "(\w+)"', table)
with open(os.path.join(src, "src", "core", "stages.hpp"), encoding="utf-8") as f:
    enum = re.search(r"enum class stage \{(.*?)\};", f.read(), re.S).group(1)
ids = re.findall(r"\b(\w+)\s*,", re.sub(r"//.*", "", enum))
check(len(rows) >= 24, f"core/stages.cpp's table has {len(rows)} rows")
check(sorted(r[0] for r in rows) == sorted(ids), f"core/stages.cpp's table and the stage enum differ: "
                                                 f"{sorted(set(ids) ^ set(r[0] for r in rows))}")
hooks = {r[1] for r in rows}
check({"hook_q", "hook_pattern", "hook_z", "hook_rot_q", "tiled_running_max", "grad_q"} <= hooks,
      f"core/stages.cpp's table lacks names: {sorted(hooks)}")
literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
for folder in ["src/io", "src/lessons", "src/trace", "src/grade"]:
    for path in sources(folder):
        rel = os.path.relpath(path, src)
        for n, line in code_lines(path):
            for word in literal.findall(line):
                check(word not in hooks, f"{rel}:{n}: the stage name \"{word}\" spelled above core "
                                         f"(read it from core/stages.hpp: stage_info_of(stage::…).hook)")
for rel in ["src/trace/stages.cpp", "src/trace/stage_words.cpp"]:
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        check(not re.search(r'\{stage::\w+, "', f.read()), f"{rel} holds a stage table of its own")

if failures:
    print(f"{len(failures)} structure problem(s)")
    sys.exit(1)
print("ok: attention's recipe and the stage vocabulary are core's")
