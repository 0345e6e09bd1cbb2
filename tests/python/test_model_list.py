#!/usr/bin/python3
"""tests/python/test_model_list.py — the models built into attn by name: `attn model
list` against the files of lessons/models/ read here (each safetensors header: layers,
heads, d_model, MLP or none, parameters as the sum of the tensors' shapes, the steps
and task the trainer wrote in __metadata__) and the lesson files (tomllib: the lessons
whose tables name the model, or name it at a step of head_over_steps); every line within
80 and 60 columns. Then the names at work from a folder with no lessons in it: `model
run`, `heads` and `info` by name print what they print for the file's own path; a file
or folder of that name comes first; an unknown name exits 2 with every built-in name and
nothing on stdout. The built-in GGUF, stories260K, likewise: `generate`, `run --text` (its
own tokenizer), `heads`, `tokenize --tokenizer` and `info` by name print what they print for
lessons/models/stories260K.gguf."""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import tomllib
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402  (its GGUF reader: the built-in stories260K.gguf)

ATTN = os.path.abspath(os.environ.get("ATTN_BIN", "build/attn"))
SRC = os.path.abspath(os.environ.get("ATTN_SOURCE_DIR", "."))
MODELS = os.path.join(SRC, "lessons", "models")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, cwd):
    env = {k: v for k, v in os.environ.items() if k != "ATTN_LESSONS_DIR"}
    env["NO_COLOR"] = "1"
    return subprocess.run([ATTN, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)


def columns(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in line)


def header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n))


def expected_models():
    """name → the facts `attn model list` must show, from the files themselves."""
    out = {}
    for path in sorted(glob.glob(os.path.join(MODELS, "*.safetensors"))):
        h = header(path)
        meta = h.pop("__metadata__", {})
        layers = {int(m.group(1)) for k in h for m in [re.search(r"\.h\.(\d+)\.", k)] if m}
        d_model = h["transformer.wte.weight"]["shape"][1]
        n_head = int(meta["n_head"])  # the head count is config, not a tensor shape
        mlp = any(".mlp." in k for k in h)
        params = sum(int.__mul__(*t["shape"]) if len(t["shape"]) == 2 else t["shape"][0] for t in h.values())
        arch = "%d layer%s × %d head%s, d_model %d%s" % (len(layers), "" if len(layers) == 1 else "s", n_head,
                                                        "" if n_head == 1 else "s", d_model, "" if mlp else ", no MLP")
        training = "trained {:,} steps on the {} task".format(int(meta["attn.steps"]), meta["attn.task"])
        out[os.path.basename(path)[:-len(".safetensors")]] = (arch, "{:,}".format(params), training)
    for path in sorted(glob.glob(os.path.join(MODELS, "*.gguf"))):  # trained elsewhere: no training line
        meta, tensors = ref.read_gguf_f32(path)
        a = meta["general.architecture"]
        layers, heads, d_model = meta[a + ".block_count"], meta[a + ".attention.head_count"], meta[a + ".embedding_length"]
        arch = "%d layer%s × %d head%s, d_model %d" % (layers, "" if layers == 1 else "s", heads, "" if heads == 1 else "s", d_model)
        out[os.path.basename(path)[:-len(".gguf")]] = (arch, "{:,}".format(sum(t.numel() for t in tensors.values())), "")
    return out


def models_named(node, into):
    """Every model a lesson table names (head_over_steps: also NAME-STEP per step)."""
    if isinstance(node, dict):
        if isinstance(node.get("model"), str):
            into.add(node["model"])
            if node.get("kind") == "head_over_steps":
                into.update("%s-%d" % (node["model"], s) for s in node.get("steps", []))
        for v in node.values():
            models_named(v, into)
    elif isinstance(node, list):
        for v in node:
            models_named(v, into)


def expected_lessons(names):
    used = {n: [] for n in names}
    for path in sorted(glob.glob(os.path.join(SRC, "lessons", "[0-9][0-9]-*.toml"))):
        with open(path, "rb") as f:
            named = set()
            models_named(tomllib.load(f), named)
        for n in names:
            if n in named:
                used[n].append(int(os.path.basename(path)[:2]))
    return {n: ", ".join(map(str, v)) or "none" for n, v in used.items()}


def check_list(tmp):
    want = expected_models()
    lessons = expected_lessons(want)
    check(set(want) >= {"sort", "induction"}, f"lessons/models holds {sorted(want)}")
    check(lessons["induction"].startswith("21") and lessons["sort"].startswith("20"), f"lessons found: {lessons}")
    p = run(["model", "list", "--names"], tmp)
    check(p.returncode == 0 and p.stdout.split() == sorted(want), f"--names: {p.stdout!r} vs {sorted(want)}")

    p = run(["model", "list", "--width", "80"], tmp)
    check(p.returncode == 0, f"model list: exit {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    check(all(columns(x) <= 80 for x in lines), "model list: a line over 80 columns")
    check(any(re.match(r"name +what it is +parameters +lessons$", x) for x in lines), "model list: no table header")
    for name, (arch, params, training) in want.items():
        row = [i for i, x in enumerate(lines) if x.split()[:1] == [name]]
        check(len(row) == 1, f"model list: {name} on {len(row)} rows")
        if len(row) != 1:
            continue
        cells = re.split(r"  +", lines[row[0]].strip())
        check(cells == [name, arch, params, lessons[name]], f"model list: row {cells} != {[name, arch, params, lessons[name]]}")
        if training:
            check(lines[row[0] + 1].strip() == training, f"model list: {name}: {lines[row[0] + 1].strip()!r} != {training!r}")
    check(len([x for x in lines if x and not x.startswith(" ") and x.split()[0] in want]) == len(want),
          "model list: a row for a model that lessons/models does not hold")

    p = run(["model", "list", "--width", "60"], tmp)  # too narrow for the table: a block a model
    lines = p.stdout.splitlines()
    check(p.returncode == 0 and all(columns(x) <= 60 for x in lines), "model list --width 60: a line over 60 columns")
    for name, (arch, params, training) in want.items():
        i = lines.index(name) if name in lines else -1
        block = ["  " + arch] + (["  " + training] if training else []) + ["  %s parameters · lessons: %s" % (params, lessons[name])]
        check(i >= 0 and lines[i + 1:i + 1 + len(block)] == block, f"model list --width 60: block of {name}: {lines[i:i + 4]}")


def check_names_at_work(tmp):
    for name in ("induction", "sort"):
        path = os.path.join(MODELS, name + ".safetensors")
        tokens = "0,5,7,9,0,5,7" if name == "induction" else "2,0,1,1,0,2"
        for args in (["run", "{}", "--tokens", tokens, "--layer", "1", "--head", "0", "--query", "4"],
                     ["heads", "{}", "--color", "never"], ["explain", "{}", "--tokens", tokens, "--layer", "1",
                                                          "--head", "0", "--query", "5"]):
            by_name = run(["model", *[a.replace("{}", name) for a in args], "--width", "80"], tmp)
            by_path = run(["model", *[a.replace("{}", path) for a in args], "--width", "80"], tmp)
            check(by_name.returncode == 0 and by_name.stdout == by_path.stdout and by_name.stdout,
                  f"model {args[0]} {name}: by name exit {by_name.returncode} {by_name.stderr.strip()!r}, "
                  f"output {'equal' if by_name.stdout == by_path.stdout else 'differs'} by path")
        info_name = run(["model", "info", name], tmp).stdout.splitlines()
        info_path = run(["model", "info", path], tmp).stdout.splitlines()
        check(info_name[0] == f"Checkpoint:  {name} (built into attn: lessons/models/{name}.safetensors)" and
              info_name[1:] == info_path[1:] and len(info_name) > 5, f"model info {name}: {info_name[:2]}")

    # The built-in GGUF (lesson 23's real Llama) by name: the same as its file, its own tokenizer too.
    gguf = os.path.join(MODELS, "stories260K.gguf")
    for args in (["generate", "{}", "--tokens", "1", "--new", "20"], ["run", "{}", "--text", "Once upon a time", "--layer", "1",
                 "--head", "3"], ["heads", "{}", "--tokens", "1,403,407,261,378"], ["tokenize", "--tokenizer", "{}", "Once upon a time"]):
        by_name = run(["model", *[a.replace("{}", "stories260K") for a in args], "--width", "80"], tmp)
        by_path = run(["model", *[a.replace("{}", gguf) for a in args], "--width", "80"], tmp)
        check(by_name.returncode == 0 and by_name.stdout == by_path.stdout and by_name.stdout,
              f"model {args[0]} stories260K: by name exit {by_name.returncode} {by_name.stderr.strip()[-300:]!r}, "
              f"output {'equal' if by_name.stdout == by_path.stdout else 'differs'} by path")
    info_name = run(["model", "info", "stories260K"], tmp).stdout.splitlines()
    info_path = run(["model", "info", gguf], tmp).stdout.splitlines()
    check(info_name[:1] == ["Checkpoint:  stories260K (built into attn: lessons/models/stories260K.gguf)"] and
          info_name[1:] == info_path[1:] and len(info_name) > 5, f"model info stories260K: {info_name[:2]}")
    p = run(["model", "generate", "stories260K", "--tokens", "1", "--new", "20"], tmp)
    check("Once upon a time, there was a little girl named Lily. She loved to play" in p.stdout,
          f"model generate stories260K: {p.stdout[-300:]!r}")

    # A file or folder of that name comes first: `sort` here is the induction model's bytes.
    shutil.copy(os.path.join(MODELS, "induction.safetensors"), os.path.join(tmp, "sort"))
    p = run(["model", "info", "sort"], tmp)
    check(p.returncode == 0 and "Layers:      2 (n_layer)" in p.stdout and "built into" not in p.stdout,
          f"a file named sort: {p.stdout[:200]!r} {p.stderr!r}")
    os.makedirs(os.path.join(tmp, "sub", "induction"))
    p = run(["model", "run", "induction", "--tokens", "0,1"], os.path.join(tmp, "sub"))
    check(p.returncode == 2 and "folder without model.safetensors" in p.stderr and not p.stdout,
          f"a folder named induction: exit {p.returncode} {p.stderr!r}")


def check_unknown(tmp):
    names = sorted(expected_models())
    for verb in (["run", "sortt", "--tokens", "0"], ["info", "sortt"], ["heads", "sortt"], ["circuits", "sortt", "--layer", "0", "--head", "0"],
                 ["run", "no/such/file.safetensors", "--tokens", "0"]):
        p = run(["model", *verb], tmp)
        err = p.stderr.strip()
        check(p.returncode == 2 and not p.stdout and all(n in err for n in names) and "attn model list" in err and
              err.count("\n") == 0 and "no such file or folder" in err,
              f"model {' '.join(verb)}: exit {p.returncode}, stdout {p.stdout[:80]!r}, stderr {err!r}")
        check(("did you mean 'sort'" in err) == (verb[1] == "sortt"), f"model {verb[0]} {verb[1]}: hint in {err!r}")
    p = run(["model", "--help"], tmp)
    check("attn model list" in p.stdout and "huggingface.co" in p.stdout, "model --help: no word of built-in models")


def main():
    tmp = tempfile.mkdtemp(prefix="attn-model-list-")
    try:
        check_list(tmp)
        check_names_at_work(tmp)
        check_unknown(tmp)
    finally:
        shutil.rmtree(tmp)
    if failures:
        raise SystemExit(f"{len(failures)} failures")
    print("all passed")


if __name__ == "__main__":
    main()
