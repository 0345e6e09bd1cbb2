"""tests/python/gguf_metadata.py — a minimal GGUF (v3) writer and metadata reader written
for the tests from the format as ggml documents it (magic "GGUF", u32 version, u64
tensor count, u64 metadata count, then key/value pairs: u64-length strings, a u32 type,
the value; arrays as u32 element type + u64 count + elements). Metadata only: the
tokenizer tests write files with no tensors, and read the tokenizer of a shipped file."""
import struct

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?",
          U64: "<Q", I64: "<q", F64: "<d"}


def _string(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def _value(vtype, value):
    if vtype == STRING:
        return _string(value)
    if vtype in SCALAR:
        return struct.pack(SCALAR[vtype], value)
    etype, items = value  # ARRAY: (element type, [values])
    return struct.pack("<IQ", etype, len(items)) + b"".join(_value(etype, v) for v in items)


def write_gguf(path, metadata, version=3):
    """metadata: [(key, type, value)], in order; ARRAY values are (element type, list)."""
    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(metadata))
    for key, vtype, value in metadata:
        out += _string(key) + struct.pack("<I", vtype) + _value(vtype, value)
    with open(path, "wb") as f:
        f.write(out)
    return out


def read_metadata(path):
    """{key: value} of a GGUF file's metadata (arrays as lists)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"GGUF", "not a GGUF file"
    version, _tensors, count = struct.unpack_from("<IQQ", data, 4)
    assert version in (2, 3)
    pos = 24

    def string():
        nonlocal pos
        (n,) = struct.unpack_from("<Q", data, pos)
        s = data[pos + 8:pos + 8 + n]
        pos += 8 + n
        return s.decode("utf-8")

    def value(t):
        nonlocal pos
        if t == STRING:
            return string()
        if t in SCALAR:
            (v,) = struct.unpack_from(SCALAR[t], data, pos)
            pos += struct.calcsize(SCALAR[t])
            return v
        et, n = struct.unpack_from("<IQ", data, pos)
        pos += 12
        return [value(et) for _ in range(n)]

    meta = {}
    for _ in range(count):
        key = string()
        (t,) = struct.unpack_from("<I", data, pos)
        pos += 4
        meta[key] = value(t)
    return meta
