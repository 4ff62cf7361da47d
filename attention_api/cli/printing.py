"""How the worksheets print a number, a factor of a product and a vector, in text or LaTeX."""

from __future__ import annotations

import numpy as np

FIXED_LIMIT = 100_000  # the page's rule (static/js/lib/format.js): beyond it, 4 significant figures
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number(x: float, decimals: int = 3, latex: bool = False) -> str:
    r"""x as the page prints it: fixed decimals while |x| rounds below 100000, else 4
    significant figures, "1.235×10²⁰" (LaTeX "1.235 \times 10^{20}"); never "-0.000";
    ±inf as "inf" (or \infty in LaTeX). The minus is ASCII, as in the rest of the text.

    >>> number(-99999.999), number(1.2346e20), number(123456789, latex=True)
    ('-99999.999', '1.235×10²⁰', '1.235 \\times 10^{8}')
    """
    if np.isinf(x):
        sign = "-" if x < 0 else ""
        return sign + ("\\infty" if latex else "inf")
    text = f"{x:.{decimals}f}"
    if abs(float(text)) >= FIXED_LIMIT:
        mant, exp = f"{x:.3e}".split("e")
        exp = str(int(exp))
        if latex:
            return f"{mant} \\times 10^{{{exp}}}"
        return f"{mant}×10{exp.translate(_SUPERSCRIPT)}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


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
