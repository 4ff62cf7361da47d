"""Plain-text and LaTeX write-ups of a result and of one row's working, for worksheets."""

from __future__ import annotations

import numpy as np

from .engine import AttentionResult
from .working import RowWorking


def number(x: float, decimals: int = 3, latex: bool = False) -> str:
    """Fixed decimals; never "-0.000"; ±inf as "inf" (or \\infty in LaTeX)."""
    if np.isinf(x):
        sign = "-" if x < 0 else ""
        return sign + ("\\infty" if latex else "inf")
    text = f"{x:.{decimals}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


def _matrices(result: AttentionResult, X: np.ndarray) -> list[tuple[str, str, np.ndarray]]:
    """(name, LaTeX name, matrix) for every matrix of the computation, in order."""
    return [
        ("X", "X", X), ("Q = X·W_Q", "Q = XW_Q", result.Q), ("K = X·W_K", "K = XW_K", result.K),
        ("V = X·W_V", "V = XW_V", result.V), ("QKᵀ", "QK^\\top", result.scores),
        (f"QKᵀ × {number(result.scale)}", f"QK^\\top \\times {number(result.scale)}",
         result.scaled_scores),
        ("A = softmax", "A = \\operatorname{softmax}", result.weights),
        ("Z = A·V", "Z = AV", result.output),
    ]


def text_report(result: AttentionResult, X: np.ndarray, tokens: list[str],
                row: RowWorking | None, decimals: int = 3) -> str:
    """Every matrix labelled with its tokens, then the working of ``row`` if given."""
    n, d_k = result.Q.shape  # (n tokens, d_k)
    width = max(len(t) for t in tokens)
    lines = [f"Tokens: {', '.join(tokens)}  (n = {n}, d_model = {X.shape[1]}, d_k = {d_k}, "
             f"d_v = {result.V.shape[1]}, scale = {number(result.scale, decimals)})", ""]
    for name, _, m in _matrices(result, X):
        cells = [[number(v, decimals) for v in r] for r in m]
        cw = max(len(c) for r in cells for c in r)
        lines.append(f"{name}  ({m.shape[0]}×{m.shape[1]})")
        lines += [f"  {t:<{width}}  " + "  ".join(c.rjust(cw) for c in r)
                  for t, r in zip(tokens, cells)]
        lines.append("")
    lines += result.warnings
    if row is not None:
        lines += ["", *working_text(row, tokens, decimals)]
    return "\n".join(lines).rstrip() + "\n"


def _vector(v: np.ndarray, decimals: int, latex: bool = False) -> str:
    return "(" + ", ".join(number(x, decimals, latex) for x in v) + ")"


def _weight_fraction(w: RowWorking, j: int) -> tuple[float, float]:
    """The numerator and denominator to show for a_j: e^s / sum as taught, shifted if that overflows."""
    if w.exp_overflow:
        return w.exp_shifted[j], w.exp_shifted_sum
    return w.exp[j], w.exp_sum


def working_text(w: RowWorking, tokens: list[str], decimals: int = 3) -> list[str]:
    """The hand calculation of one row as lines of plain text (indices 1-based, as taught)."""
    f = lambda x: number(x, decimals)  # noqa: E731
    i = w.row + 1
    lines = [f"Working for query {i}, \"{tokens[w.row]}\" (row index {w.row})",
             f"q_{i} = {_vector(w.q, decimals)}", "",
             f"Scores, then × scale {f(w.scale)}:"]
    for j, t in enumerate(tokens):
        terms = " + ".join(f"{f(a)}·{f(b)}" for a, b in zip(w.q, w.k[j]))
        scaled = f(w.scaled[j]) if w.allowed[j] else "-inf (masked)"
        lines.append(f"  q_{i}·k_{j + 1} ({t}) = {terms} = {f(w.dots[j])}  →  s_{j + 1} = {scaled}")
    lines += ["", "Exponentials:"]
    for j in range(len(tokens)):
        lines.append(f"  e^{f(w.scaled[j]) if w.allowed[j] else '-inf'} = {f(w.exp[j])}")
    lines.append(f"  sum = {f(w.exp_sum)}")
    if w.exp_overflow:
        lines.append(f"  (e^s overflows float64; the code subtracts the row maximum "
                     f"{f(w.shift)} first: sum of e^(s - max) = {f(w.exp_shifted_sum)})")
    lines += ["", "Weights:"]
    for j, t in enumerate(tokens):
        top, bottom = _weight_fraction(w, j)
        lines.append(f"  a_{i},{j + 1} ({t}) = {f(top)} / {f(bottom)} = {f(w.weights[j])}"
                     if w.allowed[j] else f"  a_{i},{j + 1} ({t}) = 0 (masked)")
    terms = " + ".join(f"{f(a)}·{_vector(v, decimals)}" for a, v in zip(w.weights, w.v))
    lines += ["", f"z_{i} = {terms}", f"    = {_vector(w.z, decimals)}"]
    if not w.allowed.any():
        lines.append("  (no key may be read, so every weight and z are 0)")
    return lines


def _pmatrix(m: np.ndarray, decimals: int) -> str:
    rows = [" & ".join(number(v, decimals, latex=True) for v in r) for r in m]
    return "\\begin{pmatrix} " + " \\\\ ".join(rows) + " \\end{pmatrix}"


def latex_report(result: AttentionResult, X: np.ndarray, tokens: list[str],
                 row: RowWorking | None, decimals: int = 3) -> str:
    """Every matrix as a display-maths pmatrix, then the working of ``row`` as align*."""
    label = ", ".join(t.replace("\\", "\\textbackslash{}") for t in tokens)
    parts = [f"% Attention Explorer: tokens {label}"]
    parts += [f"\\[ {tex} = {_pmatrix(m, decimals)} \\]"
              for _, tex, m in _matrices(result, X)]
    if row is not None:
        parts.append(working_latex(row, decimals))
    return "\n".join(parts) + "\n"


def working_latex(w: RowWorking, decimals: int = 3) -> str:
    """The hand calculation of one row as an align* environment (indices 1-based, as printed)."""
    f = lambda x: number(x, decimals, latex=True)  # noqa: E731
    i = w.row + 1
    lines = [f"q_{{{i}}} &= {_vector(w.q, decimals, True)}"]
    for j in range(len(w.dots)):
        terms = " + ".join(f"{f(a)} \\cdot {f(b)}" for a, b in zip(w.q, w.k[j]))
        s = (f"{f(w.dots[j])} \\times {f(w.scale)} = {f(w.scaled[j])}" if w.allowed[j]
             else "-\\infty \\quad\\text{(masked)}")
        lines.append(f"q_{{{i}}} \\cdot k_{{{j + 1}}} &= {terms} = {f(w.dots[j])}, "
                     f"\\quad s_{{{j + 1}}} = {s}")
    exps = " + ".join(f"e^{{{f(s)}}}" for s, ok in zip(w.scaled, w.allowed) if ok)
    lines.append(f"\\textstyle\\sum_j e^{{s_j}} &= {exps or '0'} = {f(w.exp_sum)}")
    for j in range(len(w.dots)):
        lines.append(f"a_{{{i}{j + 1}}} &= " + (
            "{} / {} = {}".format(*map(f, _weight_fraction(w, j)), f(w.weights[j]))
            if w.allowed[j] else "0"))
    terms = " + ".join(f"{f(a)} {_vector(v, decimals, True)}" for a, v in zip(w.weights, w.v))
    lines.append(f"z_{{{i}}} &= {terms} = {_vector(w.z, decimals, True)}")
    return "\\begin{align*}\n" + " \\\\\n".join(lines) + "\n\\end{align*}"
