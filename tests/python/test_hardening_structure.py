#!/usr/bin/env python3
"""tests/python/test_hardening_structure.py — the one-of-each rules of issue 18 (Build 7),
read from the sources so a second copy cannot creep back in:

- one `toml::parse(` call site in src/ (io/toml_parse.cpp: one wording of a syntax error);
- no `throw std::...` in src/, and every exception type thrown or defined in src/
  derives from the one base, attn::error (core/error.hpp: exit code and place);
- one rename-into-place site (io/output_writer.cpp: one temp-and-rename writer);
- one UTF-8 validator (io/utf8.cpp: the only code that knows which lead bytes and
  code points are well-formed).

Each detector is first run on small snippets that break its rule, so a detector that
stopped seeing anything would fail here rather than pass quietly.
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


def code_of(text):
    """The text without comments (string literals stay: a throw's message is harmless)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return "\n".join(strip_line(line) for line in text.split("\n"))


def strip_line(line):
    """Cuts a // comment that is outside a string literal."""
    out, in_str, i = [], False, 0
    while i < len(line):
        c = line[i]
        if in_str:
            if c == "\\":
                out.append(line[i:i + 2])
                i += 2
                continue
            in_str = c != '"'
        elif c == '"':
            in_str = True
        elif c == "'":  # a character literal such as '"' or '\\'
            end = line.find("'", i + 2 if line.startswith("'\\", i) else i + 1)
            end = len(line) - 1 if end < 0 else end
            out.append(line[i:end + 1])
            i = end + 1
            continue
        elif line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


def sources():
    files = {}
    for root, _, names in os.walk(os.path.join(src, "src")):
        for n in sorted(names):
            if n.endswith((".cpp", ".hpp")):
                path = os.path.join(root, n)
                with open(path, encoding="utf-8") as f:
                    files[os.path.relpath(path, src)] = code_of(f.read())
    return files


def sites(files, pattern):
    """[(file, line)] of every match of `pattern` in the code."""
    out = []
    for name, code in files.items():
        for m in re.finditer(pattern, code):
            out.append((name, code.count("\n", 0, m.start()) + 1))
    return out


TOML_PARSE = r"\btoml::parse\s*\("
THROW_STD = r"\bthrow\s+std::"
RENAME = r"\b(?:rename|renameat2?)\s*\("
# Which lead bytes start a sequence (0xC2, 0xF4, 0xF8 boundaries) or which code points
# exist (0x10FFFF): only a UTF-8 validator needs these numbers.
UTF8_RULE = r"\b0[xX](?:10[fF]{4}|[cC]2|[fF]4|[fF]8)\b"


def class_graph(files):
    """{class name: [base names]} for every class or struct with a base list."""
    graph = {}
    for name, code in files.items():
        for m in re.finditer(r"\b(?:struct|class)\s+(\w+)\s*(?:final\s*)?:\s*([^{;()]+)\{", code):
            bases = [re.sub(r"^(?:public|protected|private|virtual)\s+", "", b.strip()) for b in m.group(2).split(",")]
            graph.setdefault(m.group(1), []).extend((name, b) for b in bases)
    return graph


def reaches_base(graph, cls, seen=()):
    """True when `cls` is attn::error or derives from it through classes of src/."""
    if cls == "error":
        return True
    for _, b in graph.get(cls, []):
        last = b.split("::")[-1]
        if b.startswith("std::") or last in seen:
            continue
        if reaches_base(graph, last, seen + (cls,)):
            return True
    return False


def error_type_problems(files):
    graph = class_graph(files)
    problems = []
    # The one base itself derives from std::runtime_error (what() for free); no other may.
    for cls, bases in graph.items():
        for where, b in bases:
            if b.startswith("std::") and re.search(r"(exception|error|argument|range)$", b) and \
                    not (cls == "error" and where == os.path.join("src", "core", "error.hpp")):
                problems.append(f"{where}: {cls} derives from {b}, not from attn::error")
    for cls in graph:
        if re.search(r"(_error|exception|_request)$", cls) and not reaches_base(graph, cls):
            problems.append(f"{cls} is an error type that does not derive from attn::error")
    for name, code in files.items():
        for m in re.finditer(r"\bthrow\s+([A-Za-z_][\w:]*)\s*[({]", code):
            thrown = m.group(1).split("::")[-1]
            if not reaches_base(graph, thrown):
                problems.append(f"{name}:{code.count(chr(10), 0, m.start()) + 1}: throws {m.group(1)}, "
                                f"which does not derive from attn::error")
    return problems


# --- the detectors see what they are for -------------------------------------------
bad = {
    "a.cpp": code_of('auto t = toml::parse(text, path);\nthrow std::runtime_error("x");\n'
                     '::rename(a, b);\nif (b >= 0xC2 && b <= 0xF4) ok();\n'
                     'struct my_error : std::runtime_error { using runtime_error::runtime_error; };\n'
                     'void f() { throw my_error("y"); }\n'),
    "b.cpp": code_of('// toml::parse( in a comment is no call\nstd::filesystem::rename(x, y);\n'
                     'const char* s = "// not a comment"; auto u = toml::parse(s);\n'),
}
check(len(sites(bad, TOML_PARSE)) == 2, f"the toml::parse detector sees 2 calls in the snippets, not {sites(bad, TOML_PARSE)}")
check(len(sites(bad, THROW_STD)) == 1, "the throw std:: detector sees the snippet's throw")
check(len(sites(bad, RENAME)) == 2, f"the rename detector sees 2 sites in the snippets, not {sites(bad, RENAME)}")
check(len(sites(bad, UTF8_RULE)) == 2, "the UTF-8 rule detector sees the snippet's lead-byte bounds")
found = error_type_problems(bad)
check(any("my_error derives from std::runtime_error" in p for p in found), f"a std:: base is seen: {found}")
check(any("throws my_error" in p for p in found), f"a thrown non-attn type is seen: {found}")

# --- the rules, on src/ ------------------------------------------------------------
files = sources()
check(len(files) > 300, f"src/ read: {len(files)} files")
check("error" in class_graph(files), "the base attn::error is found in core/error.hpp")

parse_sites = sites(files, TOML_PARSE)
check([f for f, _ in parse_sites] == [os.path.join("src", "io", "toml_parse.cpp")],
      f"one toml::parse( call site, in io/toml_parse.cpp; found {parse_sites}")

throws = sites(files, THROW_STD)
check(throws == [], f"no `throw std::` in src/ (an internal contract throws attn::internal_error); found {throws}")

for p in error_type_problems(files):
    check(False, p)

renames = sites(files, RENAME)
check([f for f, _ in renames] == [os.path.join("src", "io", "output_writer.cpp")],
      f"one rename-into-place site, in io/output_writer.cpp; found {renames}")

# generated Unicode tables (`*_table.cpp`, from tools/gen-unicode-*) hold ranges, no rules
utf8 = sorted({f for f, _ in sites(files, UTF8_RULE) if not f.endswith("_table.cpp")})
check(utf8 == [os.path.join("src", "io", "utf8.cpp")], f"one UTF-8 validator, io/utf8.cpp; lead-byte rules found in {utf8}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print(f"ok: {len(files)} files; toml::parse at {parse_sites[0][0]}:{parse_sites[0][1]}; "
      f"rename at {renames[0][0]}:{renames[0][1]}; no throw std::; every error type derives from attn::error")
