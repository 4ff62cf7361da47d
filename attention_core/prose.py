"""Prose with maths: words with TeX between dollar signs ("divided by $\\sqrt{2} = 1.414$"),
the markup the practice page typesets with KaTeX (static/js/draw/tex.js's proseParts reads
it; outside maths "\\$" is a dollar and "\\\\" a backslash), and its plain text in Unicode
for a terminal, a worksheet's words and a screen reader's live region ("√2 = 1.414").

Only the TeX these texts use is made plain: ``\\cdot`` ·, ``\\sqrt{x}`` √x, ``\\Sigma`` and
``\\sum`` Σ, ``\\infty`` ∞, ``\\div`` ÷, ``\\times`` ×, ``\\max``, ``\\sin``, ``\\cos``,
``\\text{…}``, - as −, a subscript of digits in subscript digits (k₁) and any other as
``_k``, and a superscript of more than one term in brackets (e^(q·k), e^−∞).

>>> plain("$q \\\\cdot k_{1}$ over $\\\\sqrt{2} = 1.414$, not $e^{s_{1} - \\\\max s}$")
'q·k₁ over √2 = 1.414, not e^(s₁ − max s)'

And the numbers in them: ``number`` prints every number of the hints, the worksheets and
the command line by the page's one rule (static/js/lib/format.js, which the page config
sends NUMBER_FORMAT), ``page_number`` the same with the page's minus sign and ∞.

>>> number(-0.0004), number(0.0625), number(1.2346e20), page_number(-16.9249, figures=True)
('0.000', '0.063', '1.235×10²⁰', '−16.92')
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Context, Decimal

_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_COMMANDS = {"cdot": "·", "Sigma": "Σ", "sum": "Σ", "infty": "∞", "div": "÷", "times": "×",
             "max": "max", "sin": "sin", "cos": "cos"}


# One rule for every number printed: fixed decimals while the rounded magnitude is below
# FIXED_LIMIT (so "-99999.999" is the widest fixed form), beyond it FIGURES significant
# figures times a power of ten, so that 1e20 fits a matrix column as "1.235×10²⁰" and not
# as 25 digits. The page's own formatter (static/js/lib/format.js, and for e^s and their
# sums workingtex.js's sigText) is sent these in the page config (NUMBER_FORMAT).
FIXED_LIMIT = 100_000
DECIMALS = 3  # of every number computed
FIGURES = 4  # significant figures of a scientific number, and of e^s and their sums
NUMBER_FORMAT = {"fixed_limit": FIXED_LIMIT, "decimals": DECIMALS, "figures": FIGURES}
MINUS = "\u2212"  # the page's minus sign; the worksheets' text and LaTeX write "-"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
# Rounding as JavaScript's toFixed, toExponential and toPrecision round, so that a worksheet
# prints the page's digits: from the float's exact value (767 digits at most), a tie away
# from zero (0.0625 to 3 decimals is 0.063; Python's own format would give 0.062).
_EXACT = Context(prec=800, rounding=ROUND_HALF_UP)


def _rounded(x: float, exponent: int) -> Decimal:
    """``x`` rounded to a multiple of 10^exponent, a tie away from zero."""
    return Decimal(x).quantize(Decimal((0, (1,), exponent)), context=_EXACT)


def _figures(x: float) -> tuple[Decimal, int]:
    """``x`` rounded to FIGURES significant figures, and the power of ten of its first
    figure: 1.2346e20 → (1.235E+20, 20), 9.99996 → (10.00, 1)."""
    exp = Decimal(x).adjusted()
    r = _rounded(x, exp - FIGURES + 1)
    if r.adjusted() > exp:  # rounded up to the next power of ten
        exp += 1
        r = _rounded(x, exp - FIGURES + 1)
    return r, exp


def _scientific(x: float, latex: bool) -> str:
    r, exp = _figures(x)
    mant = f"{r.scaleb(-exp):f}"
    if latex:
        return f"{mant} \\times 10^{{{exp}}}"
    return f"{mant}×10{str(exp).translate(_SUPERSCRIPT)}"


def number(x: float, decimals: int = DECIMALS, latex: bool = False,
           figures: bool = False) -> str:
    r"""``x`` as the page prints it, with an ASCII minus: ``decimals`` fixed decimals while
    |x| rounds below FIXED_LIMIT, else 4 significant figures, "1.235×10²⁰" (LaTeX
    "1.235 \times 10^{20}"); never "-0.000"; ±inf as "inf" (LaTeX \infty). With
    ``figures``, 4 significant figures below FIXED_LIMIT too, as the working writes e^s and
    their sums: 16.92, 1925, 0.0006012, 19930, 0 for 0, scientific below 10⁻⁶.

    >>> number(-99999.999), number(123456789, latex=True), number(0.00060123, figures=True)
    ('-99999.999', '1.235 \\times 10^{8}', '0.0006012')
    """
    if math.isinf(x):
        return ("-" if x < 0 else "") + ("\\infty" if latex else "inf")
    if math.isnan(x):
        return "nan"
    if figures and abs(x) < FIXED_LIMIT:
        if x == 0:
            return "0"
        r, exp = _figures(x)
        if exp < -6:  # where toPrecision writes an exponent: 1.000e-7
            return _scientific(x, latex)
        return str(int(r)) if exp >= FIGURES else f"{r:f}"  # 19930; 16.92
    text = f"{_rounded(x, -decimals):f}"
    if abs(Decimal(text)) >= FIXED_LIMIT:
        return _scientific(x, latex)
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def page_number(x: float, decimals: int = DECIMALS, figures: bool = False) -> str:
    """``x`` as ``number`` prints it, with the page's minus sign and ∞, as the page's
    formatNumber (static/js/lib/format.js) writes it, or with ``figures`` its sigText
    (static/js/draw/workingtex.js)."""
    if math.isinf(x):
        return "∞" if x > 0 else MINUS + "∞"
    return number(x, decimals, figures=figures).replace("-", MINUS)


def words(text: str) -> str:
    """Words to quote in prose (a token): each $ and \\ escaped, so they stay words."""
    return re.sub(r"([\\$])", r"\\\1", str(text))


def tex(source: str) -> str:
    """``source`` as maths in prose: "$source$"."""
    return f"${source}$"


def plain(markup: str) -> str:
    """The prose ``markup`` as plain text: its maths in Unicode, its words unescaped."""
    out, k = [], 0
    while k < len(markup):
        end = markup.find("$", k + 1) if markup[k] == "$" else -1
        if markup[k] == "\\" and markup[k + 1:k + 2] in ("$", "\\"):
            out.append(markup[k + 1])
            k += 2
        elif end > k + 1:  # "$$" is no maths, as tex.js's proseParts reads it
            out.append(_plain_tex(markup[k + 1:end]))
            k = end + 1
        else:
            out.append(markup[k])
            k += 1
    return "".join(out)


def _plain_tex(source: str) -> str:
    text, _ = _convert(source, 0)
    return text.replace(" · ", "·")


def _argument(source: str, k: int) -> tuple[str, int]:
    """The argument at ``k`` (a {group} or one character), made plain, and where it ends."""
    if source[k] == "{":
        return _convert(source, k + 1)
    return _convert(source[k], 0)[0], k + 1


def _convert(source: str, k: int) -> tuple[str, int]:
    """The TeX from ``k`` to the end or to the "}" that closes its group, made plain, and
    the index after it."""
    out = []
    while k < len(source) and source[k] != "}":
        c = source[k]
        if c == "\\":
            name = re.match(r"[A-Za-z]+", source[k + 1:])[0]
            k += 1 + len(name)
            if name in ("sqrt", "text"):
                arg, k = _argument(source, k)
                out.append(("√" if name == "sqrt" else "") + arg)
            else:
                out.append(_COMMANDS[name])
        elif c in "_^":
            arg, k = _argument(source, k + 1)
            if c == "_":
                out.append(arg.translate(_SUBSCRIPT) if arg.isdigit() else f"_{arg}")
            else:
                out.append(f"^({arg})" if re.search(r"[ ·/]", arg) else f"^{arg}")
        elif c == "{":
            arg, k = _convert(source, k + 1)
            out.append(arg)
        else:
            out.append("−" if c == "-" else c)
            k += 1
    return "".join(out), k + 1
