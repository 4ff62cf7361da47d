"""Plain-text and LaTeX write-ups of a result and of one row's working, for worksheets."""

from __future__ import annotations

import numpy as np

from attention_core.working import RowWorking

from ..attention.request import AttentionRequest
from ..attention.response import Computed
from . import report_steps as steps
from .printing import factor, number, numbered, setting
from .printing import vector as _vector

__all__ = ["latex_report", "latex_text", "number", "text_report", "working_latex",
           "working_text"]


# What a query that may read no key gets, in the page's words (static/js/draw/workingtex.js's
# NO_KEY): attention_core.engine.softmax_rows gives such a row all 0, never the textbook's
# 0/0, and its warning says "its weights and output are all 0". Two parts, so that each
# LaTeX line of it fits a page.
NO_KEY = ("No key may be read, so there is no sum to divide by: by convention,",
          "as torch's scaled_dot_product_attention returns, its weights and output are all 0.")


def _span(start: int, count: int) -> str:
    """ "positions 5 to 7": the positions of ``count`` tokens from ``start``."""
    return f"position {start}" if count == 1 else f"positions {start} to {start + count - 1}"


def _matrices(request: AttentionRequest, computed: Computed, decimals: int = 3):
    """(heading, LaTeX name, matrix, row labels) for every matrix, in the order computed."""
    q, kv = request.tokens, request.tokens_kv or request.tokens
    out = [("X", "X", request.X, q)]
    if request.X_kv is not None:
        out.append(("X_kv (keys and values)", "X_{kv}", request.X_kv, kv))
    offset = request.position_offset
    if computed.positional_encoding is not None:
        at = _span(offset, len(q)) if offset else "positions"
        out.append((f"PE, sinusoidal {at} (added to X)", "PE",
                    computed.positional_encoding, q))
    if computed.positional_encoding_kv is not None:
        at = f", {_span(offset, len(kv))}" if offset else ""
        out.append((f"PE_kv{at} (added to X_kv)", "PE_{kv}", computed.positional_encoding_kv, kv))
    for h in range(len(computed.results)):
        out += _head_matrices(request, computed, h, decimals)
    if computed.multi is not None:
        heads = numbered("Z_", len(computed.results))
        out += [(f"Concat({heads})", "\\operatorname{Concat}", computed.multi.concat, q),
                ("Output = Concat·W_O", "\\operatorname{Concat} W_O", computed.multi.output, q)]
    return out


def _head_matrices(request: AttentionRequest, computed: Computed, h: int, decimals: int):
    """Head h's matrices (see _matrices): its biases, Q and K before and after RoPE, V,
    the scores, ALiBi's bias, the weights and Z."""
    r = computed.results[h]
    q, kv = request.tokens, request.tokens_kv or request.tokens
    head = f"head {h + 1}: " if computed.multi is not None else ""
    sup = f"^{{({h + 1})}}" if computed.multi is not None else ""
    # Shared keys and values: say whose they are, as the answer's kv_head does.
    shared = (f" (key/value head {computed.multi.kv_heads[h] + 1})"
              if computed.multi is not None and request.kv_heads is not None else "")
    src = "X_kv" if request.X_kv is not None else "X"
    out = []

    def projection(name, b, unrotated, turned, x, rows, plain_name, of=""):
        plus = f" + b_{name}" if b is not None else ""
        if b is not None:
            out.append((f"{head}b_{name}, added to every row of {name}{of}", f"b_{name}{sup}",
                        b[np.newaxis, :], [f"b_{name}"]))
        if unrotated is None:
            out.append((f"{head}{name} = {x}·W_{name}{plus}{of}" if b is not None
                        else f"{head}{plain_name}{of}", f"{name}{sup}", turned, rows))
            return
        out.append((f"{head}{name} before rotation = {x}·W_{name}{plus}{of}",
                    f"{name}{sup}_{{\\text{{before RoPE}}}}", unrotated, rows))
        out.append((f"{head}{name}, turned by RoPE (θ = {setting(r.rope_base, decimals)}, "
                    f"{_span(r.position_offset, len(rows))}){of}", f"{name}{sup}", turned, rows))

    projection("Q", r.b_Q, r.Q_unrotated, r.Q, "X", q, "Q = X·W_Q")
    projection("K", r.b_K, r.K_unrotated, r.K, src, kv, "K", shared)
    projection("V", r.b_V, None, r.V, src, kv, "V", shared)
    scaled = f"Q{sup}K{sup}{{}}^\\top \\times {number(r.scale)}"
    out.append((f"{head}QKᵀ", f"Q{sup}K{sup}{{}}^\\top", r.scores, q))
    if r.bias is None:
        out.append((f"{head}QKᵀ × {number(r.scale)}", scaled, r.scaled_scores, q))
    else:
        slope = setting(r.alibi_slope, decimals)
        alibi = f"B{sup}_{{\\text{{ALiBi}}}}"
        out += [(f"{head}ALiBi's bias -m·|i - j|, slope m = {slope}",
                 f"{alibi} = -{setting(r.alibi_slope, decimals, True)} \\, |i - j|", r.bias, q),
                (f"{head}QKᵀ × {number(r.scale)} + ALiBi's bias", f"{scaled} + {alibi}",
                 r.scaled_scores, q)]
    out += [(f"{head}A = softmax", f"A{sup}", r.weights, q),
            (f"{head}Z = A·V", f"Z{sup}", r.output, q)]
    return out


def text_report(request: AttentionRequest, computed: Computed, decimals: int = 3) -> str:
    """Every matrix labelled with its tokens, then the working of the asked row if any."""
    first = computed.results[0]
    n, d_model = request.X.shape  # (n tokens, d_model)
    lines = [f"Tokens: {', '.join(request.tokens)}  (n = {n}, d_model = {d_model}, "
             f"heads = {len(computed.results)}{_kv_count(request)}, d_k = {first.d_k}, "
             f"scale = {number(first.scale, decimals)})", ""]
    for name, _, m, row_labels in _matrices(request, computed, decimals):
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
            title = ([f"Head {h + 1}", *_kv_note(request, computed, h), ""]
                     if computed.multi is not None else [])
            lines += ["", *title, *working_text(w, request.tokens, keys, decimals,
                                                **_context(request, computed, h))]
    return "\n".join(lines).rstrip() + "\n"


def _kv_count(request: AttentionRequest) -> str:
    return f", key/value heads = {len(request.kv_heads)}" if request.kv_heads else ""


def _kv_note(request: AttentionRequest, computed: Computed, h: int) -> list[str]:
    """The sentence naming the key/value head query head h reads, when heads share them."""
    if request.kv_heads is None:
        return []
    g = computed.multi.kv_heads[h]
    readers = [k + 1 for k, kv in enumerate(computed.multi.kv_heads) if kv == g]
    if len(readers) == 1:
        return [f"Query head {h + 1} reads key/value head {g + 1}, which no other query "
                "head reads."]
    names = ", ".join(map(str, readers[:-1])) + f" and {readers[-1]}"
    return [f"Query head {h + 1} reads key/value head {g + 1}, which query heads {names} "
            "share."]


def _context(request: AttentionRequest, computed: Computed, h: int) -> dict:
    """What head h's working needs beside its RowWorking: RoPE's θ, whether the keys are
    X_kv's, the causal flag and the asked row of the mask given by hand (why the window's
    step finds a key closed)."""
    row = computed.rows[h].row
    return {"rope_base": computed.results[h].rope_base, "cross": request.X_kv is not None,
            "causal": request.causal,
            "mask": None if request.mask is None else request.mask[row]}


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
    if not w.allowed.any():  # no term to add, and no sum for a weight to be divided by
        return [f"  every s_{w.row + 1},j is -inf (masked), so every e^s is 0"]
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


def working_text(w: RowWorking, tokens: list[str], keys: list[str], decimals: int = 3, *,
                 rope_base: float | None = None, cross: bool = False, causal: bool = False,
                 mask: np.ndarray | None = None) -> list[str]:
    """The hand calculation of one row as lines of plain text (indices 1-based, as taught).

    ``tokens`` label the queries, ``keys`` the keys (the same list in self-attention).
    ``rope_base`` is RoPE's θ, written in its step (as "θ" when None); ``cross`` says the
    keys and values are X_kv's rows (cross-attention), for the biases' step. ``causal`` and
    ``mask`` (row i of the mask given by hand, (m,) bool) say why the window's step finds a
    key closed.
    """
    def f(x: float) -> str:
        return number(x, decimals)

    i = w.row + 1
    lines = [f"Working for query {i}, \"{tokens[w.row]}\" (row index {w.row})",
             *steps.query_text(w, decimals, rope_base),
             *steps.keys_text(w, keys, decimals, cross), "",
             steps.scores_heading(w, decimals)]
    for j, t in enumerate(keys):
        terms = " + ".join(f"{factor(a, decimals)}·{factor(b, decimals)}"
                           for a, b in zip(w.q, w.k[j], strict=True))
        lines.append(f"  q_{i}·k_{j + 1} ({t}) = {terms} = {f(w.dots[j])}  →  "
                     f"s_{i},{j + 1} = {steps.scaled(w, j, decimals)}")
    lines += steps.window_text(w, keys, causal, mask)
    lines += ["", "Exponentials:", *_exp_lines_text(w, f)]
    lines += ["", "Weights:"]
    if not w.allowed.any():
        lines.append("  " + " ".join(NO_KEY))
    for j, t in enumerate(keys):
        top, bottom = _weight_fraction(w, j)
        lines.append(f"  a_{i},{j + 1} ({t}) = {f(top)} / {f(bottom)} = {f(w.weights[j])}"
                     if w.allowed[j] else f"  a_{i},{j + 1} ({t}) = 0 (masked)")
    if w.allowed.any():
        terms = " + ".join(f"{f(a)}·{_vector(v, decimals)}"
                           for a, v in zip(w.weights, w.v, strict=True))
        lines += ["", f"z_{i} = {terms}", f"    = {_vector(w.z, decimals)}"]
    else:  # no value is read: z_i is 0 by the convention said above
        lines += ["", f"z_{i} = {_vector(w.z, decimals)}"]
    lines += ["", f"Entropy of the weights: {f(w.entropy)} nats; size of the softmax Jacobian "
                  f"diag(a) - a a^T: {f(w.jacobian_norm)}"]
    return lines


def _pmatrix(m: np.ndarray, decimals: int) -> str:
    rows = [" & ".join(number(v, decimals, latex=True) for v in r) for r in m]
    return "\\begin{pmatrix} " + " \\\\ ".join(rows) + " \\end{pmatrix}"


# Each character that means something to TeX, as text that prints it; every control
# character (a newline, a tab, a carriage return…) and line separator as a space, so no
# label can end a comment, open or close a group, issue a command (\input), start TeX's
# ^^5c notation for a backslash, or switch to maths. static/js/lib/format.js's texText agrees.
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
              for _, tex, m, _ in _matrices(request, computed, decimals)]
    for h, w in enumerate(computed.rows):
        if w is not None:
            if computed.multi is not None:
                parts += [f"% head {h + 1}", *_kv_note(request, computed, h)]
            parts.append(working_latex(w, decimals, **_context(request, computed, h)))
    return "\n".join(parts) + "\n"


def _exp_lines_latex(w: RowWorking, f) -> list[str]:
    """The sum of the exponentials of row i; shifted by the row maximum m when e^s overflows.

    The shifted terms e^{s_{i,j} - m} are the numerators the weight lines divide, so the
    working stays one consistent calculation (the weights are the same either way).
    """
    i = w.row + 1
    allowed = [j for j in range(len(w.scaled)) if w.allowed[j]]
    if not allowed:  # no term to add, and no sum for a weight to be divided by
        return [f"&\\text{{{latex_text(part)}}}" for part in NO_KEY]
    if not w.exp_overflow:
        exps = " + ".join(f"e^{{{f(w.scaled[j])}}}" for j in allowed)
        return [f"\\textstyle\\sum_j e^{{s_{{{i},j}}}} &= {exps or '0'} = {f(w.exp_sum)}"]
    m = f(w.shift)
    exps = " + ".join(f"e^{{{f(w.scaled[j])} - {m}}}" for j in allowed)
    return [f"&\\text{{$e^{{s}}$ is too large for float64 here, so, as the code does, the "
            f"largest score $m = {m}$ is subtracted first; the weights are unchanged}}",
            f"\\textstyle\\sum_j e^{{s_{{{i},j}} - m}} &= {exps} = {f(w.exp_shifted_sum)}"]


def working_latex(w: RowWorking, decimals: int = 3, *, rope_base: float | None = None,
                  cross: bool = False, causal: bool = False,
                  mask: np.ndarray | None = None) -> str:
    """The hand calculation of one row as an align* environment (indices 1-based, as printed).

    ``rope_base``, ``cross``, ``causal`` and ``mask`` as for working_text.
    """
    def f(x: float) -> str:
        return number(x, decimals, latex=True)

    i = w.row + 1
    lines = [*steps.query_latex(w, decimals, rope_base), *steps.keys_latex(w, decimals, cross)]
    for j in range(len(w.dots)):
        terms = " + ".join(f"{factor(a, decimals, True)} \\cdot {factor(b, decimals, True)}"
                           for a, b in zip(w.q, w.k[j], strict=True))
        lines.append(f"q_{{{i}}} \\cdot k_{{{j + 1}}} &= {terms} = {f(w.dots[j])}, "
                     f"\\quad s_{{{i},{j + 1}}} = {steps.scaled(w, j, decimals, latex=True)}")
    lines += steps.window_latex(w, causal, mask)
    lines += _exp_lines_latex(w, f)
    for j in range(len(w.dots)):
        lines.append(f"a_{{{i},{j + 1}}} &= " + (
            "{} / {} = {}".format(*map(f, _weight_fraction(w, j)), f(w.weights[j]))
            if w.allowed[j] else "0"))
    terms = " + ".join(f"{f(a)} {_vector(v, decimals, True)}"
                       for a, v in zip(w.weights, w.v, strict=True))
    lines.append(f"z_{{{i}}} &= {terms} = {_vector(w.z, decimals, True)}" if w.allowed.any()
                 else f"z_{{{i}}} &= {_vector(w.z, decimals, True)}")
    return "\\begin{align*}\n" + " \\\\\n".join(lines) + "\n\\end{align*}"
