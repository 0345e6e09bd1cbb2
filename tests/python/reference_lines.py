"""tests/python/reference_lines.py — compares committed reference data (tests/data/*.txt)
with a fresh run of the NumPy script that wrote it. Numbers must agree to 1e-13 relative
(plus 1e-15 absolute), everything else exactly: NumPy's sin, cos, exp and BLAS pick
their SIMD kernels by CPU, so the last bits of a fresh run differ from machine to
machine (the data was written on a CPU with other kernels than a clean Debian root
here), while a real change of the script or of its inputs changes far more than that."""
import math


def _number(token):
    try:
        return float(token)
    except ValueError:
        return None


def first_difference(committed, fresh, rtol=1e-13, atol=1e-15):
    """None when the two lists of lines agree; else a message naming the first difference."""
    if len(committed) != len(fresh):
        return f"{len(committed)} committed lines, {len(fresh)} from a fresh run"
    for i, (a, b) in enumerate(zip(committed, fresh), start=1):
        ta, tb = a.split(), b.split()
        if len(ta) != len(tb):
            return f"line {i}: {len(ta)} fields committed, {len(tb)} fresh"
        for x, y in zip(ta, tb):
            nx, ny = _number(x), _number(y)
            if nx is None or ny is None:
                if x != y:
                    return f"line {i}: '{x}' committed, '{y}' fresh"
            elif not (math.isclose(nx, ny, rel_tol=rtol, abs_tol=atol) or (math.isnan(nx) and math.isnan(ny))):
                return f"line {i}: {x} committed, {y} fresh"
    return None
