#!/usr/bin/python3
"""tests/python/test_trace_stages.py — the stage table of docs/trace.md against `attn`.

Every stage the **Stages** table of docs/trace.md lists must be described there once, and
exactly as `attn trace --list-stages` (the vocabulary table in src/trace/stages.cpp)
describes it; `--stage NAME` must accept it (its hook name and its short word) and
print its table; `--npy` and `--json` must export it with the listed axes; the HTML
report must describe it once. An unknown stage is an error (exit 2, the valid names
listed, nothing on stdout), never the weights.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SRC = os.environ.get("ATTN_SOURCE_DIR", ".")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args):
    p = subprocess.run([ATTN, "trace"] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def table_rows(text):
    """Rows of the first Markdown table in text: lists of cells, header and rule dropped."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return [r for r in rows[2:]]


def readme_stage_rows():
    doc = open(os.path.join(SRC, "docs", "trace.md"), encoding="utf-8").read()
    at = doc.index("**Stages**")
    return table_rows(doc[at:])


def main():
    rows = readme_stage_rows()
    check(len(rows) >= 10, f"docs/trace.md stage table has {len(rows)} rows")
    names = [r[0].strip("`") for r in rows]
    check(len(names) == len(set(names)), f"a stage is listed twice in docs/trace.md: {names}")

    code, listed, err = run(["--list-stages"])
    check(code == 0, f"--list-stages exit {code}: {err}")
    listed_rows = table_rows(listed)
    check(listed_rows == rows, "docs/trace.md stage table differs from `attn trace --list-stages`:\n"
          + "\n".join(" | ".join(r) for r in listed_rows))

    rng = np.random.default_rng(12)
    with tempfile.TemporaryDirectory() as d:
        H, dm, dh, n = 2, 4, 2, 3
        arrays = {"X": (n, dm), "W_Q": (dm, H * dh), "W_K": (dm, H * dh), "W_V": (dm, H * dh), "W_O": (H * dh, dm),
                  "backward": (n, H * dh)}
        for k, shape in arrays.items():
            np.save(os.path.join(d, k + ".npy"), rng.normal(size=shape))
        # Two specs cover every stage: backward does not go with rope.
        specs = {"main": 'tile = 2\n' + "".join(f'{k} = "{k}.npy"\n' for k in arrays),
                 "rope": "rope = true\n" + "".join(f'{k} = "{k}.npy"\n' for k in ["X", "W_Q", "W_K", "W_V"])}
        runs = {}
        for name, body in specs.items():
            spec = os.path.join(d, name + ".toml")
            with open(spec, "w") as f:
                f.write('kind = "causal"\nheads = 2\ntokens = ["a", "b", "c"]\n' + body)
            code, out, err = run([spec, "--json", "-"])
            check(code == 0, f"{name} --json exit {code}: {err}")
            stages = json.loads(out)["stages"] if code == 0 else {}
            npy = os.path.join(d, name + "-npy")
            code, _, err = run([spec, "--npy", npy])
            check(code == 0, f"{name} --npy exit {code}: {err}")
            html = os.path.join(d, name + ".html")
            code, _, err = run([spec, "--html", html])
            check(code == 0, f"{name} --html exit {code}: {err}")
            page = open(html, encoding="utf-8").read() if code == 0 else ""
            runs[name] = (spec, stages, npy, page)

        for row in rows:
            name, shape = row[0].strip("`"), row[1].strip("`")
            axes = re.findall(r"\w+", shape)
            spec, stages, npy, page = runs["main"] if name in runs["main"][1] else runs["rope"]
            code, out, err = run([spec, "--stage", name, "--heatmap", "none", "--color", "never"])
            check(code == 0 and out.strip(), f"--stage {name}: exit {code}, {len(out)} bytes: {err}")
            check(name in stages and stages[name]["axes"] == axes,
                  f"{name}: JSON axes {stages.get(name, {}).get('axes')} vs docs/trace.md {axes}")
            path = os.path.join(npy, name + ".npy")
            check(os.path.exists(path) and np.load(path).ndim == len(axes), f"{name}.npy missing or not {len(axes)}-D")
            check(page.count(f"<dt>{name} ") == 1, f"{name}: described {page.count(f'<dt>{name} ')} times in the HTML")

        spec = runs["main"][0]
        code, out, err = run([spec, "--stage", "hook_patern"])
        check(code == 2, f"unknown stage: exit {code}, not 2")
        check(out == "", "unknown stage printed a report")
        check(all(n in err for n in names), f"unknown stage: the message does not list every stage: {err}")
        code, out, err = run([spec, "--heatmap", "hook_z"])
        check(code == 2 and "hook_pattern" in err, f"--heatmap of a non-score stage: exit {code}: {err}")
        code, out, err = run([os.path.join(SRC, "examples/trace/cat-causal.toml"), "--stage", "hook_attn_out"])
        check(code == 2 and "W_O" in err, f"--stage hook_attn_out without W_O: exit {code}: {err}")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print(f"all {len(rows)} stages of docs/trace.md are accepted, exported and described once")


if __name__ == "__main__":
    main()
