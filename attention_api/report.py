"""Plain-text and LaTeX write-ups of a result and of one row's working, for worksheets."""

from __future__ import annotations

import numpy as np

from attention_core.working import RowWorking

from .request import AttentionRequest
from .response import Computed

FIXED_LIMIT = 100_000  # the page's rule (static/js/format.js): beyond it, 4 significant figures
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


def _matrices(request: AttentionRequest, computed: Computed):
    """(heading, LaTeX name, matrix, row labels) for every matrix, in the order computed."""
    q, kv = request.tokens, request.tokens_kv or request.tokens
    out = [("X", "X", request.X, q)]
    if request.X_kv is not None:
        out.append(("X_kv (keys and values)", "X_{kv}", request.X_kv, kv))
    if computed.positional_encoding is not None:
        out.append(("PE, sinusoidal positions (added to X)", "PE", computed.positional_encoding, q))
    if computed.positional_encoding_kv is not None:
        out.append(("PE_kv (added to X_kv)", "PE_{kv}", computed.positional_encoding_kv, kv))
    for h, r in enumerate(computed.results):
        head = f"head {h + 1}: " if computed.multi is not None else ""
        sup = f"^{{({h + 1})}}" if computed.multi is not None else ""
        out += [
            (f"{head}Q = X·W_Q", f"Q{sup}", r.Q, q), (f"{head}K", f"K{sup}", r.K, kv),
            (f"{head}V", f"V{sup}", r.V, kv),
            (f"{head}QKᵀ", f"Q{sup}K{sup}{{}}^\\top", r.scores, q),
            (f"{head}QKᵀ × {number(r.scale)}", f"Q{sup}K{sup}{{}}^\\top \\times {number(r.scale)}",
             r.scaled_scores, q),
            (f"{head}A = softmax", f"A{sup}", r.weights, q),
            (f"{head}Z = A·V", f"Z{sup}", r.output, q),
        ]
    if computed.multi is not None:
        out += [("Concat(Z_1, …, Z_h)", "\\operatorname{Concat}", computed.multi.concat, q),
                ("Output = Concat·W_O", "\\operatorname{Concat} W_O", computed.multi.output, q)]
    return out


def text_report(request: AttentionRequest, computed: Computed, decimals: int = 3) -> str:
    """Every matrix labelled with its tokens, then the working of the asked row if any."""
    first = computed.results[0]
    n, d_model = request.X.shape  # (n tokens, d_model)
    lines = [f"Tokens: {', '.join(request.tokens)}  (n = {n}, d_model = {d_model}, "
             f"heads = {len(computed.results)}, d_k = {first.d_k}, "
             f"scale = {number(first.scale, decimals)})", ""]
    for name, _, m, row_labels in _matrices(request, computed):
        width = max(len(t) for t in row_labels)
        cells = [[number(v, decimals) for v in r] for r in m]
        cw = max(len(c) for r in cells for c in r)
        lines.append(f"{name}  ({m.shape[0]}×{m.shape[1]})")
        lines += [f"  {t:<{width}}  " + "  ".join(c.rjust(cw) for c in r)
                  for t, r in zip(row_labels, cells, strict=True)]
        lines.append("")
    lines += computed.multi.warnings if computed.multi else first.warnings
    keys = request.tokens_kv or request.tokens
    for h, w in enumerate(computed.rows):
        if w is not None:
            title = [f"Head {h + 1}", ""] if computed.multi is not None else []
            lines += ["", *title, *working_text(w, request.tokens, keys, decimals)]
    return "\n".join(lines).rstrip() + "\n"


def _vector(v: np.ndarray, decimals: int, latex: bool = False) -> str:
    return "(" + ", ".join(number(x, decimals, latex) for x in v) + ")"


def _weight_fraction(w: RowWorking, j: int) -> tuple[float, float]:
    """The numerator and denominator to show for a_j: e^s / sum as taught, shifted on overflow."""
    if w.exp_overflow:
        return w.exp_shifted[j], w.exp_shifted_sum
    return w.exp[j], w.exp_sum


def _exp_lines_text(w: RowWorking, f) -> list[str]:
    """The exponentials and their sum; when e^s overflows float64, the shifted ones the code uses.

    Subtracting the row maximum m leaves every weight e^(s - m) / sum e^(s - m) unchanged,
    so the lines shown are the numbers the weights below are really divided from.
    """
    allowed = range(len(w.scaled))
    if not w.exp_overflow:
        lines = [f"  e^{f(w.scaled[j]) if w.allowed[j] else '-inf'} = {f(w.exp[j])}"
                 for j in allowed]
        return lines + [f"  sum = {f(w.exp_sum)}"]
    m = f(w.shift)
    lines = [f"  (e^s is too large for float64 here, so, as the code does, the largest score "
             f"m = {m} is subtracted first; the weights are unchanged)"]
    lines += [f"  e^({f(w.scaled[j])} - {m}) = {f(w.exp_shifted[j])}" if w.allowed[j]
              else f"  e^-inf = {f(0.0)}" for j in allowed]
    return lines + [f"  sum of e^(s - m) = {f(w.exp_shifted_sum)}"]


def working_text(w: RowWorking, tokens: list[str], keys: list[str],
                 decimals: int = 3) -> list[str]:
    """The hand calculation of one row as lines of plain text (indices 1-based, as taught).

    ``tokens`` label the queries, ``keys`` the keys (the same list in self-attention).
    """
    def f(x: float) -> str:
        return number(x, decimals)

    i = w.row + 1
    lines = [f"Working for query {i}, \"{tokens[w.row]}\" (row index {w.row})",
             f"q_{i} = {_vector(w.q, decimals)}", "",
             f"Scores, then × scale {f(w.scale)}:"]
    for j, t in enumerate(keys):
        terms = " + ".join(f"{factor(a, decimals)}·{factor(b, decimals)}"
                           for a, b in zip(w.q, w.k[j], strict=True))
        scaled = f(w.scaled[j]) if w.allowed[j] else "-inf (masked)"
        lines.append(f"  q_{i}·k_{j + 1} ({t}) = {terms} = {f(w.dots[j])}  →  "
                     f"s_{i},{j + 1} = {scaled}")
    lines += ["", "Exponentials:", *_exp_lines_text(w, f)]
    lines += ["", "Weights:"]
    for j, t in enumerate(keys):
        top, bottom = _weight_fraction(w, j)
        lines.append(f"  a_{i},{j + 1} ({t}) = {f(top)} / {f(bottom)} = {f(w.weights[j])}"
                     if w.allowed[j] else f"  a_{i},{j + 1} ({t}) = 0 (masked)")
    terms = " + ".join(f"{f(a)}·{_vector(v, decimals)}"
                       for a, v in zip(w.weights, w.v, strict=True))
    lines += ["", f"z_{i} = {terms}", f"    = {_vector(w.z, decimals)}"]
    if not w.allowed.any():
        lines.append("  (no key may be read, so every weight and z are 0)")
    lines += ["", f"Entropy of the weights: {f(w.entropy)} nats; size of the softmax Jacobian "
                  f"diag(a) - a a^T: {f(w.jacobian_norm)}"]
    return lines


def _pmatrix(m: np.ndarray, decimals: int) -> str:
    rows = [" & ".join(number(v, decimals, latex=True) for v in r) for r in m]
    return "\\begin{pmatrix} " + " \\\\ ".join(rows) + " \\end{pmatrix}"


# Each character that means something to TeX, as text that prints it; every control
# character (a newline, a tab, a carriage return…) and line separator as a space, so no
# label can end a comment, open or close a group, issue a command (\input), start TeX's
# ^^5c notation for a backslash, or switch to maths. static/js/format.js's texText agrees.
_LATEX_TEXT = {
    **{ord(c): f"\\{c}" for c in "{}$&#%_"},
    ord("\\"): r"\textbackslash{}", ord("^"): r"\textasciicircum{}",
    ord("~"): r"\textasciitilde{}", ord("<"): r"\textless{}", ord(">"): r"\textgreater{}",
    ord("|"): r"\textbar{}",
    **{c: " " for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)},
}


def latex_text(text: str) -> str:
    r"""``text`` (a token label) as LaTeX text that prints it and does nothing else, in a
    comment or in running text alike.

    >>> print(latex_text(r"50% of {x}_1 \input"))
    50\% of \{x\}\_1 \textbackslash{}input
    """
    return text.translate(_LATEX_TEXT)


def latex_report(request: AttentionRequest, computed: Computed, decimals: int = 3) -> str:
    """Every matrix as a display-maths pmatrix, then each head's working as align*."""
    label = ", ".join(map(latex_text, request.tokens))
    parts = [f"% Attention Explorer: tokens {label}"]
    parts += [f"\\[ {tex} = {_pmatrix(m, decimals)} \\]"
              for _, tex, m, _ in _matrices(request, computed)]
    for h, w in enumerate(computed.rows):
        if w is not None:
            if computed.multi is not None:
                parts.append(f"% head {h + 1}")
            parts.append(working_latex(w, decimals))
    return "\n".join(parts) + "\n"


def _exp_lines_latex(w: RowWorking, f) -> list[str]:
    """The sum of the exponentials of row i; shifted by the row maximum m when e^s overflows.

    The shifted terms e^{s_{i,j} - m} are the numerators the weight lines divide, so the
    working stays one consistent calculation (the weights are the same either way).
    """
    i = w.row + 1
    allowed = [j for j in range(len(w.scaled)) if w.allowed[j]]
    if not w.exp_overflow:
        exps = " + ".join(f"e^{{{f(w.scaled[j])}}}" for j in allowed)
        return [f"\\textstyle\\sum_j e^{{s_{{{i},j}}}} &= {exps or '0'} = {f(w.exp_sum)}"]
    m = f(w.shift)
    exps = " + ".join(f"e^{{{f(w.scaled[j])} - {m}}}" for j in allowed)
    return [f"&\\text{{$e^{{s}}$ is too large for float64 here, so, as the code does, the "
            f"largest score $m = {m}$ is subtracted first; the weights are unchanged}}",
            f"\\textstyle\\sum_j e^{{s_{{{i},j}} - m}} &= {exps} = {f(w.exp_shifted_sum)}"]


def working_latex(w: RowWorking, decimals: int = 3) -> str:
    """The hand calculation of one row as an align* environment (indices 1-based, as printed)."""
    def f(x: float) -> str:
        return number(x, decimals, latex=True)

    i = w.row + 1
    lines = [f"q_{{{i}}} &= {_vector(w.q, decimals, True)}"]
    for j in range(len(w.dots)):
        terms = " + ".join(f"{factor(a, decimals, True)} \\cdot {factor(b, decimals, True)}"
                           for a, b in zip(w.q, w.k[j], strict=True))
        s = (f"{f(w.dots[j])} \\times {f(w.scale)} = {f(w.scaled[j])}" if w.allowed[j]
             else "-\\infty \\quad\\text{(masked)}")
        lines.append(f"q_{{{i}}} \\cdot k_{{{j + 1}}} &= {terms} = {f(w.dots[j])}, "
                     f"\\quad s_{{{i},{j + 1}}} = {s}")
    lines += _exp_lines_latex(w, f)
    for j in range(len(w.dots)):
        lines.append(f"a_{{{i},{j + 1}}} &= " + (
            "{} / {} = {}".format(*map(f, _weight_fraction(w, j)), f(w.weights[j]))
            if w.allowed[j] else "0"))
    terms = " + ".join(f"{f(a)} {_vector(v, decimals, True)}"
                       for a, v in zip(w.weights, w.v, strict=True))
    lines.append(f"z_{{{i}}} &= {terms} = {_vector(w.z, decimals, True)}")
    return "\\begin{align*}\n" + " \\\\\n".join(lines) + "\n\\end{align*}"
