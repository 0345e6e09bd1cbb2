#!/usr/bin/python3
"""tests/python/test_model_tokenizer_spm.py — attn's SentencePiece BPE (model/spm, GGUF
tokenizer.ggml.model = "llama") against SentencePiece itself and against a reference
written here.

1. Debian's python3-sentencepiece trains two small BPE models in this test (identity
   normalization, whitespace kept): one with byte fallback, one without. Their pieces,
   scores and types are written as GGUF tokenizer metadata (tests/python/gguf_metadata.py,
   a writer written from the format), and `attn model tokenize --tokenizer FILE.gguf`
   must give [BOS] + SentencePiece's ids on 1,200 texts (tests/python/tokenizer_texts.py);
   `--decode` must give each text back (and SentencePiece's decode). Without byte
   fallback, a text SentencePiece can only encode with <unk> is refused by attn (exit 2,
   file:line:col), never approximated.
2. ../shared/models/stories260K.gguf's own tokenizer (llama2.c's 512 pieces): story text
   encoded by attn equals a SentencePiece BPE written here from the same pieces and
   scores (merge the best-scoring adjacent pair, leftmost first, until none is a piece;
   byte fallback), and decodes back.
3. Hostile GGUF tokenizers: exit 2 with "file: byte N" and what was expected.
If sentencepiece is missing the test fails saying how to install it (tools/packages.txt,
[test])."""
import atexit
import io
import random
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_metadata import ARRAY, BOOL, F32, I32, STRING, U32, read_metadata, write_gguf  # noqa: E402
from tokenizer_texts import CODE, SCRIPTS, make_texts, number, sentence  # noqa: E402

ATTN = os.environ.get("ATTN_BIN", "build/attn")
SOURCE = os.environ.get("ATTN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# shared/ sits beside the clone (CI, /work/main) or two levels up (a helper's worktree)
STORIES = next((p for p in (os.path.join(os.path.dirname(SOURCE), "shared", "models", "stories260K.gguf"),
                            os.path.join(os.path.dirname(os.path.dirname(SOURCE)), "shared", "models", "stories260K.gguf"),
                            os.path.join(SOURCE, "lessons", "models", "stories260K.gguf")) if os.path.exists(p)),
               os.path.join(os.path.dirname(SOURCE), "shared", "models", "stories260K.gguf"))
failures = []
tmp = tempfile.mkdtemp(prefix="attn-spm-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)

try:
    import sentencepiece as spm
except ImportError:
    print("FAIL: python3-sentencepiece is missing (apt-get install python3-sentencepiece; tools/run test installs it)")
    sys.exit(1)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attn(*args):
    return subprocess.run([ATTN, *args], capture_output=True, timeout=300)


def attn_encode(tok, texts, chunk=2000):
    results = []
    for start in range(0, len(texts), chunk):
        files = []
        for k, t in enumerate(texts[start:start + chunk]):
            path = os.path.join(tmp, f"text-{start + k}.txt")
            with open(path, "wb") as f:
                f.write(t.encode("utf-8"))
            files += ["--file", path]
        out = attn("model", "tokenize", "--tokenizer", tok, "--json", *files)
        if out.returncode != 0:
            print("FAIL: attn model tokenize exited", out.returncode, out.stderr.decode(errors="replace")[-1500:])
            sys.exit(1)
        results += [json.loads(line)["ids"] for line in out.stdout.decode("utf-8").split("\n")[:-1]]
    return results


def attn_decode(tok, id_lists, chunk=2000):
    texts = []
    for start in range(0, len(id_lists), chunk):
        args = []
        for ids in id_lists[start:start + chunk]:
            args += ["--decode", ",".join(map(str, ids))]
        out = attn("model", "tokenize", "--tokenizer", tok, "--json", *args)
        if out.returncode != 0:
            print("FAIL: attn model tokenize --decode exited", out.returncode, out.stderr.decode(errors="replace")[-1500:])
            sys.exit(1)
        texts += [json.loads(line)["text"] for line in out.stdout.decode("utf-8").split("\n")[:-1]]
    return texts


def train(corpus, byte_fallback, vocab_size):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus), model_writer=model, model_type="bpe", vocab_size=vocab_size,
        byte_fallback=byte_fallback, normalization_rule_name="identity", remove_extra_whitespaces=False,
        add_dummy_prefix=True, character_coverage=1.0 if byte_fallback else 0.98, hard_vocab_limit=False,
        allow_whitespace_only_pieces=True, minloglevel=2, num_threads=1)
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def piece_type(sp, i):
    if sp.is_unknown(i):
        return 2
    if sp.is_control(i):
        return 3
    if sp.is_unused(i):
        return 5
    if sp.is_byte(i):
        return 6
    return 1


def write_sp_gguf(sp, path, add_bos=True, extra=()):
    n = sp.get_piece_size()
    meta = [("general.architecture", STRING, "llama"), ("tokenizer.ggml.model", STRING, "llama"),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, [sp.id_to_piece(i) for i in range(n)])),
            ("tokenizer.ggml.scores", ARRAY, (F32, [sp.get_score(i) for i in range(n)])),
            ("tokenizer.ggml.token_type", ARRAY, (I32, [piece_type(sp, i) for i in range(n)])),
            ("tokenizer.ggml.unknown_token_id", U32, sp.unk_id()),
            ("tokenizer.ggml.bos_token_id", U32, sp.bos_id()), ("tokenizer.ggml.eos_token_id", U32, sp.eos_id()),
            ("tokenizer.ggml.add_bos_token", BOOL, add_bos)]
    write_gguf(path, meta + list(extra))
    return meta


def corpus_lines():
    """Training text: English, numbers, code and the scripts' lines (the random code points
    and emoji of the test texts are left out, so they reach the byte fallback or <unk>)."""
    rng = random.Random(7)
    lines = [sentence(rng) + " " + number(rng) for _ in range(3000)] + CODE * 20 + SCRIPTS * 30
    return [t.replace("\n", " ").replace("\r", " ") for t in lines]


def check_trained():
    texts = make_texts(1200, seed=33)
    sp = train(corpus_lines(), True, 1000)
    tok = os.path.join(tmp, "trained.gguf")
    write_sp_gguf(sp, tok)
    want = [[sp.bos_id()] + sp.encode(t) for t in texts]
    got = attn_encode(tok, texts)
    bad = [k for k in range(len(texts)) if got[k] != want[k]]
    check(not bad, f"{len(bad)} of {len(texts)} texts encode unlike SentencePiece; first: {texts[bad[0]]!r} "
                   f"attn {got[bad[0]]} sentencepiece {want[bad[0]]}" if bad else "")
    print(f"byte fallback model ({sp.get_piece_size()} pieces): {len(texts) - len(bad)}/{len(texts)} texts equal SentencePiece")
    decoded = attn_decode(tok, got)
    bad = [k for k in range(len(texts)) if decoded[k] != texts[k] or decoded[k] != sp.decode(want[k][1:])]
    check(not bad, f"{len(bad)} texts do not decode back; first: {texts[bad[0]]!r} → {decoded[bad[0]]!r}" if bad else "")
    # add_bos_token false: no BOS
    nobos = os.path.join(tmp, "nobos.gguf")
    write_sp_gguf(sp, nobos, add_bos=False)
    check(attn_encode(nobos, texts[:50]) == [w[1:] for w in want[:50]], "add_bos_token false still adds BOS")


def check_without_fallback():
    texts = make_texts(400, seed=34)
    sp = train(corpus_lines(), False, 600)
    tok = os.path.join(tmp, "nofallback.gguf")
    write_sp_gguf(sp, tok)
    unk = sp.unk_id()
    plain = [t for t in texts if unk not in sp.encode(t)]
    refused = [t for t in texts if unk in sp.encode(t)]
    got = attn_encode(tok, plain)
    bad = [k for k in range(len(plain)) if got[k] != [sp.bos_id()] + sp.encode(plain[k])]
    check(not bad, f"without byte fallback, {len(bad)} of {len(plain)} texts encode unlike SentencePiece")
    check(len(refused) >= 5, f"only {len(refused)} texts have a character outside the model (the test needs some)")
    for k, t in enumerate(refused[:15]):
        path = os.path.join(tmp, f"refused-{k}.txt")
        with open(path, "wb") as f:
            f.write(t.encode("utf-8"))
        out = attn("model", "tokenize", "--tokenizer", tok, "--file", path)
        err = out.stderr.decode("utf-8", errors="replace")
        check(out.returncode == 2 and f"{path}:" in err and "cannot tokenize this text exactly" in err and out.stdout == b"",
              f"a text with a character outside the model was not refused: {t!r} → exit {out.returncode} {err!r}")
    print(f"no byte fallback: {len(plain) - len(bad)}/{len(plain)} equal, {len(refused)} refused (15 checked)")


def reference_spm(pieces, scores, types, text, bos):
    """SentencePiece BPE encoding, written here: '▁' for spaces after a leading one, the
    best-scoring adjacent pair merged (leftmost on ties) until no pair is a piece."""
    vocab = {p: i for i, p in enumerate(pieces) if types[i] in (1, 4, 5)}
    byte_id = {int(p[3:5], 16): i for i, p in enumerate(pieces) if types[i] == 6}
    syms = list(("▁" + text.replace(" ", "▁")))
    while True:
        best = None
        for i in range(len(syms) - 1):
            j = vocab.get(syms[i] + syms[i + 1])
            if j is not None and (best is None or scores[j] > best[0]):
                best = (scores[j], i)
        if best is None:
            break
        i = best[1]
        syms[i:i + 2] = [syms[i] + syms[i + 1]]
    ids = [bos]
    for s in syms:
        if s in vocab and types[vocab[s]] in (1, 4):
            ids.append(vocab[s])
        else:
            ids += [byte_id[b] for b in s.encode("utf-8")]
    return ids


STORY = ("Once upon a time, there was a little girl named Lily. She loved to play outside in the sunshine. "
         "One day, she saw a big, red ball in the park. She ran to it and said, \"Can I play with you?\"\n"
         "The ball said, \"Yes!\" They played all day. Lily's mom called her: \"Time to go home!\" "
         "Lily was sad, but she was happy too. The end. 123 apples, ☺ and naïve café.")


def check_stories():
    if not os.path.exists(STORIES):
        check(False, f"{STORIES} is missing (../shared/models/stories260K.gguf)")
        return
    meta = read_metadata(STORIES)
    pieces, scores, types = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.scores"], meta["tokenizer.ggml.token_type"]
    texts = [STORY] + STORY.split(". ") + [STORY.lower(), STORY.upper(), "  two spaces", "tab\there", "end "]
    want = [reference_spm(pieces, scores, types, t, meta["tokenizer.ggml.bos_token_id"]) for t in texts]
    got = attn_encode(STORIES, texts)
    for t, g, w in zip(texts, got, want):
        check(g == w, f"stories260K: {t[:40]!r}… attn {g[:20]} reference {w[:20]}")
    decoded = attn_decode(STORIES, got)
    check(decoded == texts, "stories260K: decode does not give the texts back")
    print(f"stories260K: {sum(g == w for g, w in zip(got, want))}/{len(texts)} texts equal the reference; "
          f"the story is {len(got[0])} tokens")


def hostile(name, meta, expect):
    path = os.path.join(tmp, name + ".gguf")
    if isinstance(meta, bytes):
        with open(path, "wb") as f:
            f.write(meta)
    else:
        write_gguf(path, meta)
    out = attn("model", "tokenize", "--tokenizer", path, "hello")
    err = out.stderr.decode("utf-8", errors="replace")
    check(out.returncode == 2 and f"{path}: byte " in err and expect in err and out.stdout == b"",
          f"hostile {name}: exit {out.returncode}, {err!r} (wanted '{expect}')")


def check_hostile():
    toks = ["<unk>", "<s>", "</s>", "▁h", "e", "l", "o", "h"]
    base = [("tokenizer.ggml.model", STRING, "llama"), ("tokenizer.ggml.tokens", ARRAY, (STRING, toks)),
            ("tokenizer.ggml.scores", ARRAY, (F32, [0.0] * len(toks))),
            ("tokenizer.ggml.token_type", ARRAY, (I32, [2, 3, 3, 1, 1, 1, 1, 1]))]
    good = write_gguf(os.path.join(tmp, "good.gguf"), base)
    hostile("truncated", good[:len(good) - 7], "expected")
    hostile("bad-magic", b"GGUX" + good[4:], "GGUF")
    hostile("version", good[:4] + b"\x07\x00\x00\x00" + good[8:], "version")
    hostile("huge-string", good[:24] + b"\xff" * 8 + good[32:], "bytes")
    hostile("huge-count", good[:16] + b"\xff\xff\xff\xff\xff\xff\xff\x7f" + good[24:], "fit in the file")
    hostile("scores-count", base[:2] + [("tokenizer.ggml.scores", ARRAY, (F32, [0.0] * 3))] + base[3:], "one score per token")
    hostile("scores-type", base[:2] + [("tokenizer.ggml.scores", ARRAY, (I32, [0] * len(toks)))] + base[3:], "array of f32")
    hostile("type-range", base[:3] + [("tokenizer.ggml.token_type", ARRAY, (I32, [2, 3, 3, 1, 9, 1, 1, 1]))], "token types 1")
    hostile("bos-range", base + [("tokenizer.ggml.bos_token_id", U32, 99)], "below the vocabulary size")
    hostile("unknown-model", [("tokenizer.ggml.model", STRING, "bert")] + base[1:], "not supported; supported: llama")
    hostile("no-tokens", [base[0]], "tokenizer.ggml.tokens")
    hostile("nan-score", base[:2] + [("tokenizer.ggml.scores", ARRAY, (F32, [float("nan")] * len(toks)))] + base[3:], "finite")
    hostile("duplicate", base[:1] + [("tokenizer.ggml.tokens", ARRAY, (STRING, toks[:-1] + ["e"]))] + base[2:], "once")
    hostile("bad-byte-piece", base[:3] + [("tokenizer.ggml.token_type", ARRAY, (I32, [2, 3, 3, 1, 6, 1, 1, 1]))], "<0xNN>")
    hostile("gpt2-pre", [("tokenizer.ggml.model", STRING, "gpt2"), ("tokenizer.ggml.pre", STRING, "falcon")] + base[1:2],
            "byte-level alphabet")


check_trained()
check_without_fallback()
check_stories()
check_hostile()
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("ok")
