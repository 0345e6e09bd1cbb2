"""tests/python/test_core_prng.py — the pinned PRNG numbers that tests/core_prng_test.cpp
reads (tests/data/core_prng_reference.txt) must equal what an independent Python
transcription computes, and that transcription must reproduce the published reference
vectors of SplitMix64, xoshiro256** and FNV-1a 64."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core_prng_reference as ref  # noqa: E402

root = os.environ.get("ATTN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

# Published vectors: xoshiro256** from state {1,2,3,4} (reference C code, rand_xoshiro tests);
# SplitMix64 from seed 1234567 (Rosetta Code); FNV-1a 64 of "", "a", "foobar" (FNV test suite).
g = ref.Xoshiro(state=[1, 2, 3, 4])
assert [g.next() for _ in range(6)] == [11520, 0, 1509978240, 1215971899390074240,
                                        1216172134540287360, 607988272756665600]
s, out = 1234567, []
for _ in range(5):
    s, z = ref.splitmix64(s)
    out.append(z)
assert out == [6457827717110365317, 3203168211198807973, 9817491932198370423,
               4593380528125082431, 16408922859458223821], out
assert ref.fnv1a64("") == 0xCBF29CE484222325
assert ref.fnv1a64("a") == 0xAF63DC4C8601EC8C
assert ref.fnv1a64("foobar") == 0x85944171F73967E8

with open(os.path.join(root, "tests", "data", "core_prng_reference.txt"), encoding="utf-8") as f:
    committed = f.read().splitlines()
computed = ref.lines()
if committed != computed:
    for a, b in zip(committed, computed):
        if a != b:
            print("committed:", a, "\ncomputed: ", b)
    sys.exit("tests/data/core_prng_reference.txt is stale; regenerate it with core_prng_reference.py")
print("ok")
