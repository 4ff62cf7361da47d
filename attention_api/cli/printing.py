"""How the worksheets print a number, a factor of a product and a vector, in text or LaTeX:
each number by ``number``, the page's one rule (attention_core.prose, which the hints use
too)."""

from __future__ import annotations

import numpy as np

from attention_core.prose import FIXED_LIMIT, number


def factor(x: float, decimals: int = 3, latex: bool = False) -> str:
    """A factor of a product: negative numbers in parentheses, "2.000·(-0.500)"."""
    text = number(x, decimals, latex)
    return f"({text})" if text.startswith("-") else text


def vector(v: np.ndarray, decimals: int, latex: bool = False) -> str:
    """"(1.000, -0.500)": the entries of v in order, each as ``number`` prints it."""
    return "(" + ", ".join(number(x, decimals, latex) for x in v) + ")"


def setting(x: float, decimals: int = 3, latex: bool = False) -> str:
    """A setting such as θ or an ALiBi slope as it was given, not rounded to ``decimals``:
    whole numbers without decimals, others to 6 significant figures while that needs no
    exponent, else as ``number`` prints them.

    >>> setting(10000.0), setting(0.00390625), setting(1 / 3), setting(1e20)
    ('10000', '0.00390625', '0.333333', '1.000×10²⁰')
    """
    if float(x).is_integer() and abs(x) < 10 * FIXED_LIMIT ** 2:
        return str(int(x))
    text = f"{x:.6g}"
    return number(x, decimals, latex) if "e" in text else text


def numbered(prefix: str, n: int, first: int = 1) -> str:
    """``n`` numbered symbols, all of them up to three, else the first, "…" and the last (as
    static/js/lib/words.js writes them).

    >>> numbered("Z_", 2), numbered("Z_", 3), numbered("Z_", 4)
    ('Z_1, Z_2', 'Z_1, Z_2, Z_3', 'Z_1, …, Z_4')
    """
    if n <= 3:
        return ", ".join(f"{prefix}{first + k}" for k in range(n))
    return f"{prefix}{first}, …, {prefix}{first + n - 1}"
