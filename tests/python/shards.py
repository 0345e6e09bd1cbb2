"""tests/python/shards.py — one Python test run as several CTest tests, so that no test runs
over 60 s: tests/CMakeLists.txt (ATTN_PY_SHARDS) registers py.NAME.1 … py.NAME.n, each with
ATTN_TEST_SHARD="i/n", and the test keeps its i-th share of its cases (every n-th, from the
i-th). Without the variable (the test run by hand) it keeps every case.

    import shards
    for case in shards.mine(cases): ...
    print(shards.label())   # "shard 2 of 3" or ""
"""
import os


def current():
    """(i, n), counted from 1: this run's shard and how many there are; (1, 1) by default."""
    text = os.environ.get("ATTN_TEST_SHARD", "")
    if not text:
        return 1, 1
    i, n = (int(x) for x in text.split("/"))
    if not 1 <= i <= n:
        raise SystemExit(f"ATTN_TEST_SHARD={text!r}: expected i/n with 1 <= i <= n")
    return i, n


def mine(items):
    """This shard's share of items: every n-th, from the i-th (the order of items is kept)."""
    i, n = current()
    return list(items)[i - 1::n]


def label():
    i, n = current()
    return f" (shard {i} of {n})" if n > 1 else ""
