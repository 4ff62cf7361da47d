"""Comparing what the engine computed with what was pinned, as another CPU may compute it.

The last bits of a float64 result depend on the processor: BLAS and LAPACK pick their SIMD
kernels at run time, and a sum taken in another order rounds otherwise. So a pinned answer
is compared exactly in everything that must not change (keys and their order, structure,
status codes, strings, booleans, integers, dtypes and shapes) and within ``RTOL``/``ATOL``
in its floats, base64 arrays included (decoded by the tests' own reading).
"""

import json
import math

import numpy as np

from tests.api.helpers import decode

# 1e-13 relative is about 450 ulp of a float64: far more than a different order of a
# handful of additions can move a result, far less than any digit the page prints.
RTOL = 1e-13
# A result that is 0 on one CPU may be a few ulp of its summands (~1e-16 for numbers of
# order 1) on another: the pinned answers' numbers are of order 1 to 10.
ATOL = 1e-14


def differences(got, want, path="$"):
    """Every place where ``got`` and ``want`` (parsed JSON) differ beyond the tolerance,
    as "path: got … want …" lines; empty when they agree."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or list(got) != list(want):
            return [f"{path}: keys {_keys(got)} want {list(want)}"]
        return [d for k in want for d in differences(got[k], want[k], f"{path}.{k}")]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: {_short(got)} want a list of {len(want)}"]
        return [d for i, (g, w) in enumerate(zip(got, want, strict=True)) for d in
                differences(g, w, f"{path}[{i}]")]
    if isinstance(want, np.ndarray):
        return _array_differences(got, want, path)
    if type(got) is not type(want):
        return [f"{path}: {got!r} ({type(got).__name__}) want {want!r} ({type(want).__name__})"]
    if isinstance(want, float):
        return [] if _close(got, want) else [f"{path}: {got!r} want {want!r}"]
    if isinstance(want, int) and not isinstance(want, bool) and _rounded(path):
        return [] if abs(got - want) <= 1 else [f"{path}: {got!r} want {want!r}"]
    return [] if got == want else [f"{path}: {got!r} want {want!r}"]


def _array_differences(got, want, path):
    if not isinstance(got, np.ndarray) or got.dtype != want.dtype or got.shape != want.shape:
        return [f"{path}: {_short(got)} want {want.dtype} {want.shape}"]
    if want.dtype == np.float64:
        same = np.isclose(got, want, rtol=RTOL, atol=ATOL) | (got == want)  # −∞ equals −∞
    else:
        same = np.abs(got.astype(int) - want.astype(int)) <= (1 if _rounded(path) else 0)
    return [] if same.all() else [f"{path}: {got.tolist()} want {want.tolist()}"]


def _rounded(path):
    """weights_u8 is round(255 · a): a weight of 0.5 is 127.5, and its last bit decides."""
    return "weights_u8" in path


def _close(a, b):
    return a == b or math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


def _keys(obj):
    return list(obj) if isinstance(obj, dict) else type(obj).__name__


def _short(obj):
    text = repr(obj)
    return text if len(text) < 80 else text[:77] + "…"


def assert_same_answer(got_body: str, want_body: str, what: str = "answer"):
    """Two JSON bodies agree: exactly but for floats, which agree within RTOL/ATOL."""
    got, want = decode(json.loads(got_body)), decode(json.loads(want_body))
    found = differences(got, want)
    assert not found, f"{what} differs:\n" + "\n".join(found[:20])


def printed_near(x: float, write, tol: float = RTOL * 10) -> set[str]:
    """What ``write`` (a number → text function) may print for ``x`` computed on another CPU,
    or in float32 where the test computes in float64: its text at x and at x ± tol·max(1, |x|).
    Two texts only when x lies that close to a rounding boundary of what is printed."""
    step = tol * max(1.0, abs(x))
    return {write(x - step), write(x), write(x + step)}


def colours_near(rgbs, fills: set[str]) -> list[tuple[int, int, int]]:
    """The colours of ``rgbs`` that no fill (``#rrggbb``) of ``fills`` matches within 1 in each
    channel: a weight on a channel's rounding boundary may be coloured either side of it."""
    got = [tuple(int(f[i:i + 2], 16) for i in (1, 3, 5)) for f in fills]
    return [rgb for rgb in rgbs
            if not any(all(abs(a - b) <= 1 for a, b in zip(rgb, g, strict=True)) for g in got)]
