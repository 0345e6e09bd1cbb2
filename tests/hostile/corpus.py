"""tests/hostile/corpus.py — the counted hostile corpus of issue 18: bad input on every
surface attn reads, generated from small valid fixtures by mutation, each case with the
outcome it must have. tests/python/test_hostile_corpus.py runs it.

A case is a dict:
  surface  which reader it aims at ("spec", "npy", "csv", "lessons", "submission", ...)
  name     what was done to the input
  files    {relative path: bytes} written into a fresh folder (the folder is "{d}")
  make     optional fn(folder) for what bytes cannot say (links, sparse files, FIFOs)
  argv     the command after `attn` ("{d}" is replaced by the folder)
  env      extra environment; stdin: bytes for standard input (default: none)
  exit     the exit codes allowed (default {2}: refused)
  place    what a refusal (exit 2) must name: "line" (FILE:L:C), "offset" (FILE:offset N
           or FILE:L:C), "file" (the file's name), or None; `where` is that FILE
  outputs  paths (relative) the run may create or change; everything else in the folder
           must be exactly as before (nothing created, changed or deleted)
  stdout   "pipe" (default), "full" (/dev/full) or "closed"
  signal   (signum, path that appears when the run is underway) for signals mid-export
  pty      run on a pseudo-terminal (the pager cases), with `keys` typed; `expect`: text
           the screen must show
  timeout  seconds (a hang is a failure)

Sizes scale with `small` (the sanitizer build: ATTN_SLOW_BUILD=1): 1 MB texts become
64 KB there, and the runner samples the cases; the surfaces and kinds stay the same.
"""
import os
import signal
import struct

MB = 1_000_000

# ── fixtures ────────────────────────────────────────────────────────────────────────

SPEC = ('kind = "self"\n'
        'title = "three tokens"\n'
        'tokens = ["a", "b", "c"]\n'
        'Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\n'
        'K = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]\n'
        'V = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]\n')

ANSWERS = ('student = "ana"\n'
           '[01-scale]\nanswer = 2.0\n'
           '[02-spread]\nanswer = "√d"\n')

ANSWERS_JSON = '{"student": "ana", "01-scale": {"answer": 2.0}, "02-spread": {"answer": "√d"}}'

ASSIGNMENT = ('title = "week 1"\n'
              'feedback = "full"\n'
              '[[exercise]]\nid = "01-scale"\npoints = 2\n'
              '[[exercise]]\nid = "02-spread"\n')

OPEN_ANSWER = 'student = "ana"\n[09-data-dependent]\nanswer = "A depends on X"\n'
SHEET_HEAD = "student,exercise,part,max,points,comment,answer,rubric\n"


def sheet_row(points, student="ana", exercise="09-data-dependent", part="answer", answer="A depends on X"):
    return f"{student},{exercise},{part},1,{points},,{answer},r\n"


META = '{"users": [{"email": "ana@uni.edu", "id": 1, "name": "Ana"}]}'


def npy_bytes(shape, dtype="<f8", data=None, fortran=False, version=(1, 0), header=None, magic=b"\x93NUMPY"):
    """A .npy file written by hand (the format, not NumPy: an independent writer)."""
    if header is None:
        shp = "(" + "".join(f"{s}, " for s in shape)[:-2] + ("," if len(shape) == 1 else "") + ")"
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (dtype, "True" if fortran else "False", shp)
    h = header.encode("latin1")
    pre = len(magic) + 2 + (2 if version[0] == 1 else 4)
    pad = (64 - (pre + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    ln = struct.pack("<H", len(h)) if version[0] == 1 else struct.pack("<I", len(h))
    if data is None:
        n = 1
        for s in shape:
            n *= s
        data = struct.pack("<%dd" % n, *[float(i % 7) - 3.0 for i in range(n)]) if dtype == "<f8" else b""
    return magic + bytes(version) + ln + h + data


def utf16(text):
    return "\ufeff".encode("utf-16-le") + text.encode("utf-16-le")


# ── helpers to state cases ───────────────────────────────────────────────────────────

def case(surface, name, files, argv, **kw):
    c = dict(surface=surface, name=name, files=files, argv=argv, exit={2}, place=None, where=None, outputs=[],
             env={}, stdin=None, stdout="pipe", timeout=30, make=None, signal=None, pty=False, keys=b"", expect=None)
    c.update(kw)
    if not isinstance(c["exit"], set):
        c["exit"] = set(c["exit"]) if isinstance(c["exit"], (list, tuple)) else {c["exit"]}
    return c


# Values of every TOML type and shape, put where something else is expected.
TOML_VALUES = {
    "string": '"x"', "empty string": '""', "integer": "3", "zero": "0", "negative": "-1", "float": "2.5",
    "nan": "nan", "inf": "inf", "minus inf": "-inf", "huge float": "1e308", "tiny float": "1e-320",
    "huge integer": "9223372036854775807", "hex integer": "0x1", "octal integer": "0o7", "binary integer": "0b1",
    "boolean": "true", "date": "1979-05-27", "datetime": "1979-05-27T07:32:00Z", "empty array": "[]",
    "array of strings": '["a", "b"]', "nested empty": "[[]]", "inline table": "{ a = 1 }",
    "mixed array": '[1, "a"]', "ragged": "[[1.0], [1.0, 2.0]]", "deep array": "[[[[1.0]]]]",
    "nan matrix": "[[nan, 1.0], [1.0, 1.0], [1.0, 1.0]]", "inf matrix": "[[inf, 1.0], [1.0, 1.0], [1.0, 1.0]]",
    "huge matrix": "[[1e308, 1e308], [1e308, 1e308], [1e308, 1e308]]",
}


def replace_line(text, key, new_line):
    out = []
    for line in text.splitlines(keepends=True):
        out.append(new_line if line.startswith(key + " =") else line)
    return "".join(out)


# ── surfaces ─────────────────────────────────────────────────────────────────────────

def spec_cases(small):
    out = []
    trace = ["trace", "{d}/spec.toml"]

    def sc(name, text, **kw):
        kw.setdefault("place", "line")
        kw.setdefault("where", "spec.toml")
        data = text if isinstance(text, bytes) else text.encode()
        out.append(case("spec", name, {"spec.toml": data}, trace, **kw))

    # Every key with every wrong value: refused at the value (some values are valid for
    # some keys: those may run, exit 0).
    valid_for = {
        "kind": set(), "title": {"string", "empty string"}, "tokens": {"array of strings"},
        "Q": {"huge matrix", "deep array", "nested empty"}, "K": {"huge matrix"}, "V": {"huge matrix"},
    }
    for key in ["kind", "title", "tokens", "Q", "K", "V"]:
        for vname, v in TOML_VALUES.items():
            ok = vname in valid_for[key]
            sc(f"{key} = {vname}", replace_line(SPEC, key, f"{key} = {v}\n"), exit={0, 2} if ok else {2})
    for key, v in [("heads", '"2"'), ("heads", "0"), ("heads", "-3"), ("heads", "2.5"), ("heads", "1e300"),
                   ("heads", "nan"), ("scale", "0"), ("scale", "-1"), ("scale", "nan"), ("scale", "inf"),
                   ("scale", '"big"'), ("causal", "1"), ("causal", '"yes"'), ("tile", "0"), ("tile", "-1"),
                   ("tile", "1e9"), ("tile", '"4"'), ("window", "-1"), ("window", "0.5"), ("kv_heads", "0"),
                   ("kv_heads", "3"), ("rope", "1"), ("rope", "0.5"), ("rope", '"yes"'), ("rope", "nan"),
                   ("heads", "3"), ("mask", "[[1, 0, 0], [1, 1, 0], [1, 1, 1]]"), ("bias", '"x.txt"'),
                   ("backward", "[[1.0]]"), ("X_src", "1")]:
        sc(f"{key} = {v}", SPEC + f"{key} = {v}\n")
    for typo in ["kinds", "titel", "token", "q", "Kk", "W_q", "heds", "scael", "casual", "mask_attend",
                 "title\u200b", "é", "x" * 200]:
        sc(f"unknown key {typo[:20]}", SPEC + f'"{typo}" = 1\n')
    for mk in ["attend = [[1, 0, 0]]", "block = [[2, 0, 0], [0, 0, 0], [0, 0, 0]]", "attendd = [[1]]",
               "attend = 1", "attend = [[1,1,1],[1,1,1],[1,1,1]]\nblock = [[0,0,0],[0,0,0],[0,0,0]]",
               "key_is_padding = [true, false]", "attend = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]"]:
        # a fully blocked row is allowed (its weights are 0, said so), so the last may run
        sc(f"[mask] {mk[:30]}", SPEC + "[mask]\n" + mk + "\n", exit={0, 2} if "[0, 0, 0]]" in mk else {2})
    # Syntax: the file cut at every few bytes (a cut may leave valid TOML: run or refused).
    step = 9 if small else 3
    for cut in range(1, len(SPEC) - 1, step):
        sc(f"cut at byte {cut}", SPEC[:cut], exit={0, 2}, place="line")
    for name, text in [("duplicate key", SPEC + 'kind = "self"\n'), ("duplicate table", "[a]\n[a]\n"),
                       ("unclosed string", 'kind = "self\n'), ("unclosed array", "Q = [[1.0, 2.0]\n"),
                       ("bare word", "kind = self\n"), ("equals only", "=\n"), ("tab in key", "ki\tnd = 1\n"),
                       ("NUL byte", 'kind = "se\x00lf"\n'), ("CR only lines", SPEC.replace("\n", "\r")),
                       ("bad escape", 'title = "\\q"\n' + SPEC), ("JSON instead", '{"kind": "self"}\n'),
                       ("nesting 100", "a = " + "[" * 100 + "]" * 100 + "\n"),
                       ("nesting 100000", "a = " + "[" * (2000 if small else 100000) + "\n"),
                       ("dotted 200", ".".join(["a"] * 200) + " = 1\n"),
                       ("header 5000", "[" + ".".join(["a"] * (500 if small else 5000)) + "]\n")]:
        sc(name, text, place="line")
    sc("empty file", "", place=None)
    sc("only a comment", "# nothing\n", place=None)
    sc("BOM then spec", b"\xef\xbb\xbf" + SPEC.encode(), exit={0, 2})
    sc("UTF-16 spec", utf16(SPEC), place="file")
    sc("Latin-1 title", replace_line(SPEC, "title", "title = \"caf\xe9\"\n").encode("latin1"), place="line")
    sc("overlong UTF-8", SPEC.encode() + b'title2 = "\xc0\xaf"\n', place="line")
    sc("lone surrogate", SPEC.encode() + b'x = "\xed\xa0\x80"\n', place="line")
    for ch in ["\x1b[2J", "\x07", "\x1b]0;owned\x07", "\u202e", "\x9b", "\r"]:
        esc = ch.encode("unicode_escape").decode().replace("\\x", "\\u00")
        sc(f"control {ch!r} in title", replace_line(SPEC, "title", f'title = "t{esc}t"\n'), exit={0, 2})
        sc(f"control {ch!r} in token", replace_line(SPEC, "tokens", f'tokens = ["a{esc}", "b", "c"]\n'), exit={0, 2})
        sc(f"control {ch!r} in key", SPEC + f'"k{esc}" = 1\n')
    n = 64_000 if small else MB
    sc("1 MB title", replace_line(SPEC, "title", 'title = "' + "t" * n + '"\n'), exit={0}, timeout=30)
    sc("1 MB token", replace_line(SPEC, "tokens", 'tokens = ["' + "w" * n + '", "b", "c"]\n'), exit={0}, timeout=30)
    sc("1 MB CJK token", replace_line(SPEC, "tokens", 'tokens = ["' + "語" * (n // 3) + '", "b", "c"]\n'),
       exit={0}, timeout=30)
    sc("1 MB unknown key", SPEC + '"' + "k" * n + '" = 1\n', timeout=30)
    sc("10 MB comment", SPEC + "#" + "c" * (MB if small else 10 * MB) + "\n", exit={0, 2}, place="file", timeout=30)
    out.append(case("spec", "--query with 100 KB token", {"spec.toml": SPEC.encode()},
                    ["trace", "{d}/spec.toml", "--query", "q" * (10_000 if small else 100_000)],
                    place=None, timeout=30))
    # Files that are not files.
    out.append(case("spec", "missing spec", {}, trace, place="file", where="spec.toml"))
    out.append(case("spec", "spec is a folder", {}, trace, make=lambda d: os.mkdir(os.path.join(d, "spec.toml")),
                    place="file", where="spec.toml"))
    out.append(case("spec", "spec is a FIFO", {}, trace, make=lambda d: os.mkfifo(os.path.join(d, "spec.toml")),
                    place="file", where="spec.toml", timeout=10))
    out.append(case("spec", "spec is a link loop", {}, trace,
                    make=lambda d: os.symlink("spec.toml", os.path.join(d, "spec.toml")), place="file", where="spec.toml"))
    out.append(case("spec", "sparse 3 GB spec", {}, trace, place="file", where="spec.toml",
                    make=lambda d: os.truncate(open(os.path.join(d, "spec.toml"), "w").name, 3 << 30)))
    out.append(case("spec", "spec from empty stdin", {}, ["trace", "-"], stdin=b"", place=None))
    out.append(case("spec", "spec from stdin, bad", {}, ["trace", "-"], stdin=b"kind = 1\n", place="line",
                    where="<stdin>"))
    return out


def npy_cases(small):
    out = []

    def nc(name, data, exit={2}, place="offset", **kw):
        spec = 'kind = "self"\ntokens = ["a", "b", "c"]\nQ = "q.npy"\nK = "q.npy"\nV = "q.npy"\n'
        files = {"spec.toml": spec.encode(), "q.npy": data}
        out.append(case("npy", name, files, ["trace", "{d}/spec.toml"], exit=exit, place=place, where="q.npy", **kw))

    good = npy_bytes((3, 2))
    nc("valid", good, exit={0})
    for cut in range(0, len(good), 7 if small else 2):
        nc(f"cut at byte {cut}", good[:cut])
    for name, hdr in [("descr complex", "{'descr': '<c16', 'fortran_order': False, 'shape': (3, 2), }"),
                      ("descr object", "{'descr': '|O', 'fortran_order': False, 'shape': (3, 2), }"),
                      ("descr string", "{'descr': '<U4', 'fortran_order': False, 'shape': (3, 2), }"),
                      ("descr struct", "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3, 2), }"),
                      ("big-endian", "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 2), }"),
                      ("no shape", "{'descr': '<f8', 'fortran_order': False, }"),
                      ("negative shape", "{'descr': '<f8', 'fortran_order': False, 'shape': (-3, 2), }"),
                      ("zero shape", "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }"),
                      ("rank 5", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 3, 2), }"),
                      ("shape overflow", "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"),
                      ("shape text", "{'descr': '<f8', 'fortran_order': False, 'shape': 'big', }"),
                      ("fortran maybe", "{'descr': '<f8', 'fortran_order': maybe, 'shape': (3, 2), }"),
                      ("unclosed dict", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2)"),
                      ("empty header", ""), ("not a dict", "[1, 2, 3]"), ("NUL in header", "{'descr': '<f8\x00'}"),
                      ("escape in header", "{'descr': '\x1b[2J', 'fortran_order': False, 'shape': (3, 2), }"),
                      ("extra key", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), 'x': 1, }"),
                      ("huge header", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }" + " " * 70000)]:
        nc(name, npy_bytes((3, 2), header=hdr, data=good[128:], version=(2, 0) if len(hdr) > 60000 else (1, 0)),
           exit={0, 2} if name == "huge header" else {2})  # version 2 allows a long header
    nc("bad magic", npy_bytes((3, 2), magic=b"\x93NUMPZ"))
    nc("version 3 (valid: UTF-8 header)", npy_bytes((3, 2), version=(3, 0)), exit={0, 2})
    nc("version 9", npy_bytes((3, 2), version=(9, 0)))
    nc("version 2 valid", npy_bytes((3, 2), version=(2, 0)), exit={0})
    nc("header length lies", good[:8] + struct.pack("<H", 65000) + good[10:])
    nc("data too short", good[:-8])
    nc("data too long", good + b"\x00" * 8)
    nc("fortran order 3x2", npy_bytes((3, 2), fortran=True), exit={0, 2})
    nc("float32", npy_bytes((3, 2), dtype="<f4", data=struct.pack("<6f", 1, 2, 3, 4, 5, 6)), exit={0})
    nc("int64", npy_bytes((3, 2), dtype="<i8", data=struct.pack("<6q", 1, 2, 3, 4, 5, 6)), exit={0, 2})
    nc("bool", npy_bytes((3, 2), dtype="|b1", data=b"\x01\x00" * 3), exit={0, 2})
    for vname, v in [("nan", float("nan")), ("inf", float("inf")), ("-inf", -float("inf")), ("1e308", 1e308),
                     ("denormal", 5e-324)]:
        data = struct.pack("<6d", v, 1, 2, 3, 4, 5)
        nc(f"{vname} value", npy_bytes((3, 2), data=data), exit={0} if vname == "denormal" else {2})
    nc("wrong shape 4x2", npy_bytes((4, 2)), place="line")
    nc("rank 1", npy_bytes((6,)), exit={0, 2}, place="line")
    nc("text file named .npy", b"hello\n")
    nc("UTF-16 BOM file", utf16("hello"))
    nc("sparse 2 GiB data", b"", make=lambda d: sparse_npy(d, "q.npy", (16384, 16384)), timeout=30)
    nc("header claims 2^40 elements", npy_bytes((1 << 20, 1 << 20), data=b""), timeout=30)
    # Two inputs each within the budget, not together: refused from the headers.
    two = 'kind = "cross"\nquery_tokens = ["a"]\nkey_tokens = ["b"]\nQ = "a.npy"\nK = "b.npy"\nV = "b.npy"\n'
    out.append(case("npy", "two 2 GiB inputs", {"spec.toml": two.encode()}, ["trace", "{d}/spec.toml"],
                    make=lambda d: (sparse_npy(d, "a.npy", (1, 1 << 28)), sparse_npy(d, "b.npy", (1, 1 << 28))),
                    place="line", where="spec.toml", timeout=30))
    out.append(case("npy", "npy path is a folder", {"spec.toml": b'kind = "self"\nQ = "q.npy"\nK = "q.npy"\nV = "q.npy"\n'},
                    ["trace", "{d}/spec.toml"], make=lambda d: os.mkdir(os.path.join(d, "q.npy")), place="line",
                    where="spec.toml"))
    out.append(case("npy", "npy path escapes to /dev/zero", {"spec.toml": b'kind = "self"\nQ = "/dev/zero.npy"\nK = "q"\nV = "q"\n'},
                    ["trace", "{d}/spec.toml"], place="line", where="spec.toml"))
    out.append(case("npy", "npy symlink to /dev/zero", {"spec.toml": b'kind = "self"\nQ = "q.npy"\nK = "q.npy"\nV = "q.npy"\n'},
                    ["trace", "{d}/spec.toml"], make=lambda d: os.symlink("/dev/zero", os.path.join(d, "q.npy")),
                    place="line", where="spec.toml", timeout=10))
    return out


def sparse_npy(d, name, shape):
    head = npy_bytes(shape, data=b"")
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(head)
    n = 8
    for s in shape:
        n *= s
    os.truncate(path, len(head) + n)


def csv_cases(small):
    out = []

    def cc(name, text, exit={2}, place="line"):
        spec = 'kind = "self"\ntokens = ["a", "b"]\nQ = "q.csv"\nK = "q.csv"\nV = "q.csv"\n'
        data = text if isinstance(text, bytes) else text.encode()
        out.append(case("csv", name, {"spec.toml": spec.encode(), "q.csv": data}, ["trace", "{d}/spec.toml"],
                        exit=exit, place=place, where="q.csv"))

    cc("valid", "1.0,2.0\n3.0,4.0\n", exit={0})
    for name, text in [("ragged", "1,2\n3\n"), ("word", "1,two\n3,4\n"), ("empty", ""), ("blank lines", "\n\n"),
                       ("nan", "nan,1\n1,1\n"), ("NaN", "NaN,1\n1,1\n"), ("inf", "inf,1\n1,1\n"),
                       ("1e999", "1e999,1\n1,1\n"), ("-1e999", "-1e999,1\n1,1\n"), ("hex", "0x1,1\n1,1\n"),
                       ("quoted", '"1",1\n1,1\n'), ("unclosed quote", '"1,1\n1,1\n'), ("semicolons", "1;2\n3;4\n"),
                       ("trailing comma", "1,2,\n3,4,\n"), ("NUL", "1,\x002\n3,4\n"), ("escape", "1,\x1b[2J\n3,4\n"),
                       ("spaces", " 1 , 2 \n3,4\n"), ("header row", "x,y\n1,2\n3,4\n"), ("one cell", "5\n"),
                       ("3 rows", "1,2\n3,4\n5,6\n"), ("comma decimal", "1,5;2\n"), ("plus sign", "+1,2\n3,4\n"),
                       ("only commas", ",,,\n,,,\n"), ("CR only", "1,2\r3,4\r"), ("tabs", "1\t2\n3\t4\n"),
                       ("1e308", "1e308,1e308\n1e308,1e308\n"), ("bidi", "1,\u202e2\n3,4\n")]:
        ok = {"spaces", "CR only", "1e308", "plus sign"}
        cc(name, text, exit={0, 2} if name in ok else {2}, place="file" if name in ("empty", "blank lines") else "line")
    cc("BOM", b"\xef\xbb\xbf1,2\n3,4\n", exit={0, 2})
    cc("UTF-16", utf16("1,2\n3,4\n"), place="file")
    cc("Latin-1", "1,caf\xe9\n3,4\n".encode("latin1"))
    n = 100_000 if small else 2 * MB
    cc("2 MB line", "1," + "9" * n + "\n3,4\n", exit={0, 2})
    cc("million columns", ",".join(["1"] * (20_000 if small else 1_000_000)) + "\n", exit={2})
    for cut in range(1, 15, 2 if not small else 5):
        cc(f"cut at {cut}", "1.5,2.5\n3.5,4.5\n"[:cut], exit={0, 2})
    return out


def lesson_cases(small, src):
    """A --lessons folder with lesson 01 copied and broken, read by the verbs that load it."""
    out = []
    base = open(os.path.join(src, "lessons", "01-self-attention.toml"), encoding="utf-8").read()
    two = open(os.path.join(src, "lessons", "02-why-scale.toml"), encoding="utf-8").read()
    verbs = [["lesson", "check", "{d}/L/01-self-attention.toml"], ["lesson", "1", "--no-pause"], ["exercise", "list"]]

    def lc(name, text, verb_set=verbs, exit={2}, place="line", where="01-self-attention.toml", extra=None, **kw):
        data = text if isinstance(text, bytes) else text.encode()
        files = {"L/01-self-attention.toml": data}
        files.update(extra or {})
        for v in verb_set:
            out.append(case("lessons", f"{name} ({' '.join(v[:2])})", files, ["--lessons", "{d}/L"] + v,
                            exit=exit, place=place, where=where, **kw))

    lc("valid", base, exit={0})
    edits = [("number = 1", "number = 0"), ("number = 1", 'number = "1"'), ("number = 1", "number = 2"),
             ('title = "', "titel = 1\ntitle = \""), ("[matrices]", "[matrices]\nbad = [[nan]]"),
             ("[matrices]", "[matrices]\nbad = [[1e308, 1e308]]"), ("[matrices]", "[matrices]\nbad = []"),
             ("[matrices]", "[matrices]\nbad = [[1, 2], [3]]"), ("[matrices]", "[matrices]\nbad = \"x\""),
             ("[[step]]", "[[step]]\ntitel = \"x\""), ("[[step]]", "[[stepp]]\n[[step]]"),
             ("[tokens]", "[tokens]\nbad = [1, 2]"), ("[tokens]", "[tokens]\nbad = \"x\""),
             ("decimals = ", "decimals = 12 #"), ("decimals = ", "decimals = \"3\" #"),
             ("kind = \"", "kind = \"nonesuch\"\nkind2 = \""), ("[[exercise]]", "[[exercise]]\npoints = nan"),
             ("[[exercise]]", "[[exercise]]\npoints = 1e308"), ("[[exercise]]", "[[exercise]]\npoints = -1"),
             ("[[exercise]]", "[[exercise]]\nrtol = -1"), ("[[exercise]]", "[[exercise]]\natol = inf"),
             ("[matrices]", "[matrices]\nbig = { op = \"random_normal\", rows = 100000, cols = 100000 }"),
             ("[derived]", "[derived]\nhuge = { op = \"random_normal\", rows = 100000, cols = 100000, seed = 1 }"),
             ("[runs", "[runs.x]\nkind = \"self\"\nQ = \"nope\"\n[runs")]
    for i, (old, new) in enumerate(edits):
        if old in base:
            # an unused finite 1e308 matrix is a valid lesson
            lc(f"edit {i}: {new[:40]!r}", base.replace(old, new, 1), exit={0, 2} if "1e308" in new else {2})
    step = 97 if small else 23
    for cut in range(50, len(base), max(step, len(base) // (12 if small else 40))):
        lc(f"cut at {cut}", base[:cut], verb_set=verbs[:1], exit={0, 2})  # a cut may end between tables
    lc("lesson number 00 file", base, verb_set=[["lessons"], ["exercise", "list"]], where="00-self.toml",
       extra={"L/00-self.toml": base.replace("number = 1", "number = 0").encode()}, place="file")
    lc("two lessons numbered 02", base, verb_set=[["lessons"], ["lesson", "2", "--no-pause"], ["exercise", "list"]],
       extra={"L/02-a.toml": two.encode(), "L/02-b.toml": two.encode()}, place="file", where="02-a.toml")
    lc("UTF-16 lesson", utf16(base), place="file")
    lc("BOM lesson", b"\xef\xbb\xbf" + base.encode(), exit={0, 2})
    lc("control chars in title", base.replace('title = "', 'title = "\\u001b[2J', 1), exit={0, 2})
    n = 64_000 if small else MB
    lc("1 MB step word", base.replace("[[step]]\n", "[[step]]\n", 1).replace('text = """', 'text = """' + "w" * n, 1),
       verb_set=[verbs[1]], exit={0}, timeout=30)
    out.append(case("lessons", "lessons folder missing", {}, ["--lessons", "{d}/nope", "lessons"], place="file",
                    where="nope"))
    out.append(case("lessons", "lessons folder is a file", {"L": b"x"}, ["--lessons", "{d}/L", "lessons"],
                    place="file", where="L"))
    out.append(case("lessons", "lesson file is a link to /dev/zero", {}, ["--lessons", "{d}/L", "lesson", "1", "--no-pause"],
                    make=lambda d: (os.mkdir(os.path.join(d, "L")),
                                    os.symlink("/dev/zero", os.path.join(d, "L", "01-x.toml"))),
                    place="file", where="01-x.toml", timeout=10))
    return out


def submission_cases(small):
    out = []
    grade = ["grade", "--no-variants", "--width", "80"]

    def sc(name, text, fname="a.toml", exit={2}, place="line", argv_extra=(), **kw):
        data = text if isinstance(text, bytes) else text.encode()
        out.append(case("submission", name, {fname: data}, grade + ["{d}/" + fname] + list(argv_extra),
                        exit=exit, place=place, where=fname, **kw))

    sc("valid", ANSWERS, exit={0})
    sc("valid JSON", ANSWERS_JSON, fname="a.json", exit={0})
    # A wrong value is a wrong answer (graded, exit 0) or refused with its place (exit 2).
    for vname, v in TOML_VALUES.items():
        sc(f"01-scale answer = {vname}", ANSWERS.replace("answer = 2.0", f"answer = {v}"), exit={0, 2})
        sc(f"02-spread answer = {vname}", ANSWERS.replace('answer = "√d"', f"answer = {v}"), exit={0, 2})
    for key in ["student", "[01-scale]"]:
        for vname, v in list(TOML_VALUES.items())[:12]:
            if key == "student":
                sc(f"student = {vname}", ANSWERS.replace('student = "ana"', f"student = {v}"), exit={0, 2})
    for name, text in [("unknown exercise", ANSWERS + '[99-nope]\nanswer = 1\n'),
                       ("typo exercise", ANSWERS + '[01-scael]\nanswer = 1\n'),
                       ("unknown part", ANSWERS.replace("answer = 2.0", "answr = 2.0")),
                       ("answer table", ANSWERS.replace("answer = 2.0", "answer = { x = 1 }")),
                       ("exercise not a table", 'student = "ana"\n"01-scale" = 2.0\n'),
                       ("syntax", "student = \n"),
                       ("duplicate", ANSWERS + "[01-scale]\nanswer = 1.0\n"), ("JSON in .toml", ANSWERS_JSON),
                       ("nesting", "a = " + "[" * 5000 + "]" * 5000 + "\n")]:
        sc(name, text, exit={0, 2})
    for name, text in [("JSON syntax", '{"student": "ana", '), ("JSON nan", '{"01-scale": {"answer": NaN}}'),
                       ("JSON 1e999", '{"01-scale": {"answer": 1e999}}'), ("JSON array", "[1, 2]"),
                       ("JSON deep", "[" * 100000 + "]" * 100000), ("JSON dup keys", '{"student": "a", "student": "b"}'),
                       ("JSON bad escape", '{"student": "\\ud800"}'), ("JSON control", '{"student": "a\x01"}'),
                       ("JSON TOML", ANSWERS), ("JSON huge number", '{"01-scale": {"answer": 1' + "0" * 400 + "}}"),
                       ("JSON string number", '{"01-scale": {"answer": "2"}}')]:
        sc(name, text, fname="a.json", exit={0, 2})
    n = 900_000 if not small else 64_000
    sc("900 KB answer", ANSWERS.replace('answer = "√d"', 'answer = "' + "x" * n + '"'), exit={0}, timeout=30)
    sc("1 MB student id", ANSWERS.replace('student = "ana"', 'student = "' + "s" * n + '"'), exit={0, 2}, timeout=30)
    for ch in ["\\u001b[2J", "\\u0007", "\\u009b", "\\u202e", "\\r", "\\n"]:
        sc(f"control {ch} in student", ANSWERS.replace('student = "ana"', f'student = "a{ch}a"'), exit={0, 2})
        sc(f"control {ch} in answer", ANSWERS.replace('answer = "√d"', f'answer = "a{ch}a"'), exit={0, 2})
    sc("UTF-16 answers", utf16(ANSWERS), exit={0})  # decoded from its byte-order mark (issue 36)
    sc("empty", "", place="file")
    sc("only student", 'student = "ana"\n', place="file")
    sc("JSON empty", "", fname="a.json", place="file")
    sc("BOM answers", b"\xef\xbb\xbf" + ANSWERS.encode(), exit={0, 2})
    sc("over --max-bytes", ANSWERS + "#" + "x" * 5000 + "\n", argv_extra=["--max-bytes", "1000"], place="file")
    out.append(case("submission", "answers from stdin", {}, grade + ["-"], stdin=ANSWERS.encode(), exit={0}))
    out.append(case("submission", "--student control chars", {"a.toml": ANSWERS.encode()},
                    grade + ["{d}/a.toml", "--student", "x\x1b[2Jy"], exit={0, 2}))
    out.append(case("submission", "answers folder empty", {}, grade + ["{d}/sub"],
                    make=lambda d: os.mkdir(os.path.join(d, "sub")), place="file", where="sub"))
    out.append(case("submission", "answers file missing", {}, grade + ["{d}/none.toml"], place="file", where="none.toml"))
    out.append(case("submission", "--junit onto the input", {"a.toml": ANSWERS.encode()},
                    grade + ["{d}/a.toml", "--junit", "{d}/a.toml"], place="file", where="a.toml"))
    out.append(case("submission", "--junit into a missing folder", {"a.toml": ANSWERS.encode()},
                    grade + ["{d}/a.toml", "--junit", "{d}/no/j.xml"], exit={0, 2}, place="file", where="j.xml",
                    outputs=["no/"]))  # the report's folder is made, as for every attn output
    out.append(case("submission", "--junit over a symlink", {"a.toml": ANSWERS.encode(), "victim": b"keep"},
                    grade + ["{d}/a.toml", "--junit", "{d}/j.xml"], place="file", where="j.xml",
                    make=lambda d: os.symlink("victim", os.path.join(d, "j.xml"))))
    return out


def assignment_cases(small):
    out = []
    argv = ["grade", "--no-variants", "{d}/a.toml", "--assignment", "{d}/as.toml"]

    def ac(name, text, exit={2}, place="line"):
        data = text if isinstance(text, bytes) else text.encode()
        out.append(case("assignment", name, {"a.toml": ANSWERS.encode(), "as.toml": data}, argv, exit=exit,
                        place=place, where="as.toml"))

    ac("valid", ASSIGNMENT, exit={0})
    for vname, v in TOML_VALUES.items():
        ac(f"points = {vname}", ASSIGNMENT.replace("points = 2", f"points = {v}"),
           exit={0, 2} if vname in ("integer", "float", "hex integer", "octal integer", "binary integer",
                                    "tiny float") else {2})
        ac(f"id = {vname}", ASSIGNMENT.replace('id = "02-spread"', f"id = {v}"), exit={2})
        ac(f"feedback = {vname}", ASSIGNMENT.replace('feedback = "full"', f"feedback = {v}"), exit={2})
    for name, text in [("unknown key", ASSIGNMENT + "pionts = 1\n"), ("no exercises", 'title = "x"\n'),
                       ("unknown id", ASSIGNMENT + '[[exercise]]\nid = "99-none"\n'),
                       ("listed twice", ASSIGNMENT + '[[exercise]]\nid = "01-scale"\n'),
                       ("exercise not tables", 'exercise = ["01-scale"]\n'), ("visibility bad", 'visibility = "sometimes"\n' + ASSIGNMENT),
                       ("syntax", "[[exercise]\n"), ("empty", ""), ("exercise key typo", ASSIGNMENT.replace("points", "pionts")),
                       ("points 1e7", ASSIGNMENT.replace("points = 2", "points = 10000000")),
                       ("1 MB title", ASSIGNMENT.replace('title = "week 1"', 'title = "' + "t" * (64_000 if small else MB) + '"'))]:
        ac(name, text, exit={0} if name == "1 MB title" else {2}, place="line" if name not in ("empty",) else None)
    ac("UTF-16", utf16(ASSIGNMENT), place="file")
    return out


def review_cases(small):
    out = []
    argv = ["grade", "--no-variants", "--class", "{d}/C", "--exercises", "09-data-dependent", "--gradebook",
            "{d}/gb.csv", "--reviews", "{d}/rs.csv"]

    def rc(name, text, exit={2}, place="line"):
        data = text if isinstance(text, bytes) else text.encode()
        out.append(case("reviews", name, {"C/ana.toml": OPEN_ANSWER.encode(), "rs.csv": data}, argv, exit=exit,
                        place=place, where="rs.csv", outputs=["gb.csv"]))

    rc("valid", SHEET_HEAD + sheet_row("1"), exit={0})
    rc("not reviewed", SHEET_HEAD + sheet_row(""), exit={0})
    for p in ["0x1", "0X1", "1p0", "inf", "nan", "-1", "2", "1e999", "one", "1,0", "1.0.0", "0x1p0", "--1", "+-1",
              ".", "e1", "1e", "١", "１", "1\x00", "\x1b[2J"]:
        rc(f"points {p!r}", SHEET_HEAD + sheet_row(f'"{p}"' if "," in p else p))
    for p in ["0.5", " 1 ", ".5", "1e0", "+1", "0"]:
        rc(f"points {p!r} accepted", SHEET_HEAD + sheet_row(p), exit={0})
    for name, text in [("no header", sheet_row("1")), ("empty", ""), ("header only", SHEET_HEAD),
                       ("unknown exercise", SHEET_HEAD + sheet_row("1", exercise="99-none")),
                       ("not open", SHEET_HEAD + sheet_row("1", exercise="01-scale")),
                       ("twice", SHEET_HEAD + sheet_row("1") + sheet_row("1")),
                       ("unclosed quote 2", SHEET_HEAD + 'ana,"09\n'), ("unclosed quote", SHEET_HEAD + '"ana,09\n'),
                       ("no points column", "student,exercise,part\nana,09-data-dependent,answer\n")]:
        rc(name, text, exit={0, 2} if name in ("header only",) else {2}, place="line" if name not in ("empty",) else None)
    rc("UTF-16 sheet", utf16(SHEET_HEAD + sheet_row("1")), place="file")
    rc("Latin-1 sheet", (SHEET_HEAD + sheet_row("1", answer="caf\xe9")).encode("latin1"), place="file")
    big = 200_000 if small else 4_000_000
    rc("many cells", SHEET_HEAD + ",".join(["x"] * big) + "\n", exit={2}, place="line")
    rc("1 MB comment", SHEET_HEAD + "ana,09-data-dependent,answer,1,1," + "c" * (64_000 if small else MB) + ",x,r\n", exit={0})
    return out


def gradescope_cases(small):
    out = []
    argv = ["grade", "--gradescope", "--no-variants", "--exercises", "01-scale", "--submission", "{d}/sub",
            "--results", "{d}/results.json", "--metadata", "{d}/meta.json"]

    def gc(name, meta, exit={0, 2}, answers=None):
        files = {"sub/answers.toml": (answers or ANSWERS).encode(), "meta.json": meta if isinstance(meta, bytes) else meta.encode()}
        out.append(case("gradescope", name, files, argv, exit=exit, place="file", where="meta.json",
                        outputs=["results.json"]))

    gc("valid", META, exit={0})
    for name, meta in [("empty", ""), ("not JSON", "users:"), ("array", "[]"), ("no users", "{}"),
                       ("users not array", '{"users": 1}'), ("user not object", '{"users": [1]}'),
                       ("email number", '{"users": [{"email": 1}]}'), ("deep", "[" * 100000),
                       ("control email", '{"users": [{"email": "a\\u001b[2J@x"}]}'),
                       ("two users", '{"users": [{"email": "a@x"}, {"email": "b@x"}]}'),
                       ("1 MB email", '{"users": [{"email": "' + "e" * (64_000 if small else MB) + '"}]}'),
                       ("NUL", '{"users": [{"email": "a\\u0000b"}]}'), ("UTF-16", utf16(META)),
                       ("nan", '{"users": [{"id": NaN}]}'), ("trailing comma", '{"users": [],}')]:
        gc(name, meta)
    gc("answers broken", META, answers="student = \n")
    return out


def progress_cases(small):
    out = []

    def pc(name, text, argv=("lessons",)):
        data = text if isinstance(text, bytes) else text.encode()
        out.append(case("progress", name, {"state/attn/progress.toml": data}, list(argv),
                        env={"XDG_STATE_HOME": "{d}/state"}, exit={0}, place=None))

    pc("valid", '[questions]\n"01-scale" = "right"\n')
    for name, text in [("syntax", "[questions\n"), ("questions not table", "questions = 3\n"),
                       ("maybe", '[questions]\n"01-a" = "maybe"\n'), ("number", '[questions]\n"01-a" = 1\n'),
                       ("unknown top key", "questoins = 1\n"), ("UTF-16", utf16("[questions]\n")),
                       ("NUL", "[questions]\n\x00\n"), ("escape in id", '[questions]\n"\\u001b[2J" = "right"\n'),
                       ("1 MB id", '[questions]\n"' + "q" * (64_000 if small else MB) + '" = "right"\n'),
                       ("deep", "a = " + "[" * 10000 + "\n"), ("2 MB", "#" + "x" * (2 * MB) + "\n"),
                       ("empty", "")]:
        pc(name, text)
        pc(name + " (exercise list)", text, argv=("exercise", "list"))
    out.append(case("progress", "progress is a folder", {}, ["lessons"], env={"XDG_STATE_HOME": "{d}/state"},
                    exit={0}, make=lambda d: os.makedirs(os.path.join(d, "state", "attn", "progress.toml"))))
    out.append(case("progress", "progress is a link", {"elsewhere.toml": b"[questions]\n"}, ["lessons"],
                    env={"XDG_STATE_HOME": "{d}/state"}, exit={0},
                    make=lambda d: (os.makedirs(os.path.join(d, "state", "attn")),
                                    os.symlink("../../elsewhere.toml", os.path.join(d, "state", "attn", "progress.toml")))))
    out.append(case("progress", "progress is a FIFO", {}, ["lessons"], env={"XDG_STATE_HOME": "{d}/state"},
                    exit={0}, timeout=10,
                    make=lambda d: (os.makedirs(os.path.join(d, "state", "attn")),
                                    os.mkfifo(os.path.join(d, "state", "attn", "progress.toml")))))
    return out


def secret_cases(small):
    out = []
    argv = ["grade", "{d}/a.toml", "--secret-file", "{d}/secret"]

    def sc(name, data, exit={2}, place="file", **kw):
        files = {"a.toml": ANSWERS.encode()}
        if data is not None:
            files["secret"] = data if isinstance(data, bytes) else data.encode()
        out.append(case("secret", name, files, argv, exit=exit, place=place, where="secret", **kw))

    sc("valid", "a-long-random-course-secret-8f3k2j\n", exit={0})
    for name, data in [("empty", ""), ("newline only", "\n"), ("short", "abc\n"), ("guessable", "password\n"),
                       ("UTF-16", utf16("a-long-random-course-secret-8f3k2j\n")),
                       ("BOM", b"\xef\xbb\xbfa-long-random-course-secret-8f3k2j\n"), ("NUL", b"a-long\x00random-secret-8f3k\n"),
                       ("binary", bytes(range(256))), ("2 MB line", "s" * (2 * MB)), ("spaces", "     \n"),
                       ("escape", "\x1b[2Ja-long-random-course-secret\n"), ("missing", None)]:
        sc(name, data, exit={0, 2} if name in ("BOM", "escape") else {2})  # a secret is never printed
    out.append(case("secret", "secret is a folder", {"a.toml": ANSWERS.encode()}, argv,
                    make=lambda d: os.mkdir(os.path.join(d, "secret")), place="file", where="secret"))
    out.append(case("secret", "secret is a FIFO", {"a.toml": ANSWERS.encode()}, argv, timeout=10,
                    make=lambda d: os.mkfifo(os.path.join(d, "secret")), place="file", where="secret"))
    out.append(case("secret", "env secret UTF-16-like", {"a.toml": ANSWERS.encode()}, ["grade", "{d}/a.toml"],
                    env={"ATTN_COURSE_SECRET": "\x01\x02"}, exit={2}, place=None))
    return out


def export_cases(small):
    """Outputs: never over an input, a link, a device; signals clean up; stdout closed/full."""
    out = []
    spec = {"spec.toml": SPEC.encode()}
    t = ["trace", "{d}/spec.toml"]
    out.append(case("export", "--json onto the spec", dict(spec), t + ["--json", "{d}/spec.toml"], place="file", where="spec.toml"))
    out.append(case("export", "--npy into the spec's folder file", dict(spec), t + ["--npy", "{d}/spec.toml"], place="file", where="spec.toml"))
    out.append(case("export", "--json over a symlink", dict(spec, victim=b"keep"), t + ["--json", "{d}/o.json"],
                    make=lambda d: os.symlink("victim", os.path.join(d, "o.json")), place="file", where="o.json"))
    out.append(case("export", "--json to /dev/full", dict(spec), t + ["--json", "/dev/full"], place="file", where="/dev/full"))
    out.append(case("export", "--html into missing folder", dict(spec), t + ["--html", "{d}/no/x.html"], place="file", where="x.html"))
    out.append(case("export", "--npy with a stranger's manifest", dict(spec, **{"o/.attn-manifest": b"notes.txt 5 abc\n", "o/notes.txt": b"mine!"}),
                    t + ["--npy", "{d}/o"], exit={0, 2}, place="file", where="o", outputs=["o/"]))
    out.append(case("export", "--json ok", dict(spec), t + ["--json", "{d}/o.json"], exit={0}, outputs=["o.json"]))
    out.append(case("export", "--npy ok", dict(spec), t + ["--npy", "{d}/o"], exit={0}, outputs=["o/"]))
    for name in ["a\x1b]0;x\x07b.json", "a\nb.json", "-x.json", "a b.json"]:
        out.append(case("export", f"--json named {name!r}", dict(spec), t + ["--json", "{d}/" + name], exit={0},
                        outputs=[name]))
    out.append(case("export", "stdout to /dev/full", dict(spec), t, stdout="full", place=None))
    out.append(case("export", "stdout closed", dict(spec), t, stdout="closed", place=None))
    out.append(case("export", "--json - to /dev/full", dict(spec), t + ["--json", "-"], stdout="full", place=None))
    out.append(case("export", "lessons to /dev/full", {}, ["lessons"], stdout="full", place=None))
    out.append(case("export", "grade to closed stdout", {"a.toml": ANSWERS.encode()}, ["grade", "--no-variants", "{d}/a.toml"],
                    stdout="closed", place=None))
    out.append(case("export", "gradebook onto the class folder's file", {"C/ana.toml": ANSWERS.encode()},
                    ["grade", "--no-variants", "--class", "{d}/C", "--gradebook", "{d}/C/ana.toml"], place="file", where="ana.toml"))
    out.append(case("export", "histogram onto a device", {"C/ana.toml": ANSWERS.encode()},
                    ["grade", "--no-variants", "--class", "{d}/C", "--gradebook", "{d}/gb.csv", "--histogram", "/dev/null"],
                    place="file", where="/dev/null"))
    # Signals during --npy/--csv: the staged folder is cleaned up, nothing else changes.
    n = 300 if small else 700
    big_spec = 'kind = "self"\nQ = "big.npy"\nK = "big.npy"\nV = "big.npy"\n'
    big = npy_bytes((n, 48), data=struct.pack("<%dd" % (n * 48), *[((i * 37) % 101) / 50.0 - 1 for i in range(n * 48)]))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        out.append(case("export", f"{sig.name} during --npy/--csv", {"spec.toml": big_spec.encode(), "big.npy": big},
                        ["trace", "{d}/spec.toml", "--npy", "{d}/o", "--csv", "{d}/oc"],
                        exit={0, 128 + sig, -sig}, place=None, signal=(sig, "attn-tmp"), outputs=["o/", "oc/"], timeout=60))
    return out


def pager_cases(small):
    """--pager on a terminal with a pager that fails or is missing: the step is printed
    instead (its title is on the screen), nothing lost, exit 0."""
    out = []
    for name, pager in [("PAGER=false", "false"), ("PAGER missing", "/nonexistent/pager"),
                        ("PAGER exits 3", "sh -c 'exit 3'"), ("PAGER empty", ""), ("PAGER with escape", "\x1b[2J")]:
        out.append(case("pager", name, {}, ["lesson", "1", "--pager", "--step", "2"],
                        env={"PAGER": pager, "COLUMNS": "60", "LINES": "10"}, exit={0}, pty=True, keys=b"q",
                        expect="Scores: every query against every key", timeout=30))
    return out


def all_cases(src, small=False):
    cases = []
    for gen in (spec_cases, npy_cases, csv_cases, submission_cases, assignment_cases, review_cases, gradescope_cases,
                progress_cases, secret_cases, export_cases, pager_cases):
        cases += gen(small)
    cases += lesson_cases(small, src)
    import corpus_model  # the model surface (issue 37), in its own file; it states cases with case()
    cases += corpus_model.model_cases(small)
    return cases
