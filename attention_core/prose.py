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
"""

from __future__ import annotations

import re

_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_COMMANDS = {"cdot": "·", "Sigma": "Σ", "sum": "Σ", "infty": "∞", "div": "÷", "times": "×",
             "max": "max", "sin": "sin", "cos": "cos"}


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
