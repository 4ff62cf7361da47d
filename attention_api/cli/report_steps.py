"""The worksheet's steps for the newer variants, as lines of text and of LaTeX: the biases
added to q_i, k_j and v_j, RoPE's turn of q_i and of each k_j, ALiBi's term in each scaled
score, and which keys the window and its sinks leave readable.

Each function writes one step of one row's working (attention_core.working.RowWorking) in
the order of the maths, indices 1-based as taught; a step whose variant is off (its
RowWorking fields None) has no lines, so a plain request's working is as it always was.
"""

from __future__ import annotations

import numpy as np

from attention_core.working import RowWorking

from .printing import factor, number, setting, vector


def _sum(term: str, unbiased, b, b_name: str, total, d: int, latex: bool) -> str:
    """ "x_3·W_Q + b_Q = (2.000, 2.000) + (0.500, -1.000) = (2.500, 1.000)", or
    "x_3·W_Q = (…)" when there is no bias."""
    if b is None:
        return f"{term} = {vector(total, d, latex)}"
    return (f"{term} + {b_name} = {vector(unbiased, d, latex)} + {vector(b, d, latex)} = "
            f"{vector(total, d, latex)}")


def _angle(x: float, d: int, latex: bool) -> str:
    """An angle as the argument of cos or sin; in parentheses when it has a power of ten."""
    text = number(x, d, latex)
    return f"({text})" if "×" in text or "\\times" in text else text


def _theta(rope_base: float | None, d: int, latex: bool = False) -> str:
    """θ as given, or the letter when the caller does not know it (RowWorking has no θ)."""
    if rope_base is None:
        return "\\theta" if latex else "θ"
    return setting(rope_base, d, latex)


def _given_theta(rope_base: float | None, d: int, latex: bool = False) -> str:
    """", θ = 10000" for RoPE's heading, or nothing when θ is not known."""
    if rope_base is None:
        return ""
    theta = _theta(rope_base, d, latex)
    return f", $\\theta = {theta}$" if latex else f", θ = {theta}"


def _pairs(w: RowWorking, d: int, latex: bool, rope_base: float | None) -> list[str]:
    """Each pair c of q_i turned by its angle p_i·θ^(−2c/d_k): the cos/sin formula in numbers."""
    d_k, theta, p = len(w.q), _theta(rope_base, d, latex), w.position
    out = []
    for c, phi in enumerate(w.angles):
        a, b = w.q_unrotated[2 * c], w.q_unrotated[2 * c + 1]
        x, y = (factor(v, d, latex) for v in (a, b))
        cos, sin = (" \\cos", " \\sin") if latex else ("·cos", "·sin")
        t = _angle(phi, d, latex)
        turned = (f"({x}{cos} {t} - {y}{sin} {t}, {x}{sin} {t} + {y}{cos} {t}) = "
                  f"{vector(w.q[2 * c:2 * c + 2], d, latex)}")
        if latex:
            out.append(f"\\varphi_{{{c}}} &= {p} \\cdot {{{theta}}}^{{-{2 * c}/{d_k}}} = "
                       f"{number(phi, d, True)}, \\quad {turned}")
        else:
            out.append(f"  c = {c}, components {2 * c + 1} and {2 * c + 2}: angle "
                       f"{p}·{theta}^(-{2 * c}/{d_k}) = {number(phi, d)} rad; {turned}")
    return out


def query_text(w: RowWorking, d: int, rope_base: float | None = None) -> list[str]:
    """q_i: its bias added to x_i·W_Q, then RoPE's turn of each pair (``rope_base`` is θ)."""
    i = w.row + 1
    if w.q_unrotated is None:
        return [f"q_{i} = {_sum(f'x_{i}·W_Q', w.q_unbiased, w.b_Q, 'b_Q', w.q, d, False)}"
                if w.b_Q is not None else f"q_{i} = {vector(w.q, d)}"]
    return [f"q_{i} before rotation = "
            f"{_sum(f'x_{i}·W_Q', w.q_unbiased, w.b_Q, 'b_Q', w.q_unrotated, d, False)}",
            f"RoPE{_given_theta(rope_base, d)}: query {i} is at position p_{i} = {w.position}; "
            "components 2c+1 and 2c+2 turn by the angle p·θ^(-2c/d_k):",
            *_pairs(w, d, False, rope_base), f"q_{i} = {vector(w.q, d)}"]


def query_latex(w: RowWorking, d: int, rope_base: float | None = None) -> list[str]:
    """The align* lines of q_i (see query_text)."""
    i = w.row + 1
    term = f"x_{{{i}}} W_Q"
    if w.q_unrotated is None:
        if w.b_Q is None:
            return [f"q_{{{i}}} &= {vector(w.q, d, True)}"]
        return [f"q_{{{i}}} &= {_sum(term, w.q_unbiased, w.b_Q, 'b_Q', w.q, d, True)}"]
    return [f"q_{{{i}}}\\ \\text{{before RoPE}} &= "
            f"{_sum(term, w.q_unbiased, w.b_Q, 'b_Q', w.q_unrotated, d, True)}",
            f"&\\text{{RoPE{_given_theta(rope_base, d, True)}: query {i} is at "
            f"position $p_{{{i}}} = {w.position}$; pair $c$ turns by "
            f"$\\varphi_c = p \\, \\theta^{{-2c/d_k}}$}}",
            *_pairs(w, d, True, rope_base), f"q_{{{i}}} &= {vector(w.q, d, True)}"]


def keys_text(w: RowWorking, keys: list[str], d: int, cross: bool = False) -> list[str]:
    """Each k_j with b_K added, then turned by RoPE at its position; each v_j with b_V.

    ``cross``: the keys and values come from X_kv, whose rows are written x_kv,j.
    """
    x = "x_kv,j" if cross else "x_j"
    lines = []
    rope = w.k_unrotated is not None
    if w.b_K is not None:
        before = w.k_unrotated if rope else w.k
        lines += ["", f"Keys{' before rotation' if rope else ''}, k_j = {x}·W_K + b_K:"]
        lines += [f"  k_{j + 1} ({t}) = {vector(w.k_unbiased[j], d)} + {vector(w.b_K, d)} = "
                  f"{vector(before[j], d)}" for j, t in enumerate(keys)]
    if rope:
        lines += ["", "Keys, turned by RoPE at their positions p_j (the same angles "
                  "p·θ^(-2c/d_k)):"]
        lines += [f"  k_{j + 1} ({t}) at p_{j + 1} = {int(w.positions_k[j])}, angles "
                  f"{vector(w.angles_k[j], d)}: {vector(w.k_unrotated[j], d)} turns to "
                  f"{vector(w.k[j], d)}" for j, t in enumerate(keys)]
    if w.b_V is not None:
        lines += ["", f"Values, v_j = {x}·W_V + b_V:"]
        lines += [f"  v_{j + 1} ({t}) = {vector(w.v_unbiased[j], d)} + {vector(w.b_V, d)} = "
                  f"{vector(w.v[j], d)}" for j, t in enumerate(keys)]
    return lines


def keys_latex(w: RowWorking, d: int, cross: bool = False) -> list[str]:
    """The align* lines of the keys and values (see keys_text); X_kv's rows are x^{kv}_j."""
    x = "x^{kv}" if cross else "x"
    lines = []
    m = len(w.dots)
    rope = w.k_unrotated is not None
    if w.b_K is not None:
        before = w.k_unrotated if rope else w.k
        name = "\\ \\text{before RoPE}" if rope else ""
        lines += [f"k_{{{j + 1}}}{name} &= " + _sum(f"{x}_{{{j + 1}}} W_K", w.k_unbiased[j],
                                                     w.b_K, "b_K", before[j], d, True)
                  for j in range(m)]
    if rope:
        lines.append("&\\text{RoPE turns each key by its position: $R_p$ turns pair $c$ by "
                     "$p \\, \\theta^{-2c/d_k}$}")
        lines += [f"k_{{{j + 1}}} &= R_{{{int(w.positions_k[j])}}} "
                  f"{vector(w.k_unrotated[j], d, True)} = {vector(w.k[j], d, True)}, \\quad "
                  f"\\varphi = {vector(w.angles_k[j], d, True)}" for j in range(m)]
    if w.b_V is not None:
        lines += [f"v_{{{j + 1}}} &= " + _sum(f"{x}_{{{j + 1}}} W_V", w.v_unbiased[j], w.b_V,
                                               "b_V", w.v[j], d, True) for j in range(m)]
    return lines


def scores_heading(w: RowWorking, d: int) -> str:
    """The heading of the scores: the scale, and ALiBi's term when it is on."""
    if w.bias is None:
        return f"Scores, then × scale {number(w.scale, d)}:"
    return (f"Scores, then × scale {number(w.scale, d)}, plus ALiBi's -m·|i - j| with "
            f"slope m = {setting(w.alibi_slope, d)}:")


def scaled(w: RowWorking, j: int, d: int, latex: bool = False) -> str:
    """s_i,j: scale·(q_i·k_j), with ALiBi's −m·|i − j| when it is on."""
    if not w.allowed[j]:
        return "-\\infty \\quad\\text{(masked)}" if latex else "-inf (masked)"
    s = number(w.scaled[j], d, latex)
    times = f"{number(w.dots[j], d, True)} \\times {number(w.scale, d, True)}" if latex else ""
    if w.bias is None:
        return f"{times} = {s}" if latex else s
    i, dot = w.row + 1, "\\cdot" if latex else "·"
    a = number(w.scale * w.dots[j], d, latex)
    alibi = (f" - {setting(w.alibi_slope, d, latex)}{' ' if latex else ''}{dot}"
             f"{' ' if latex else ''}|{i} - {j + 1}|")
    start = times if latex else a
    return f"{start}{alibi} = {a} - {number(-w.bias[j], d, latex)} = {s}"


def _closed(w: RowWorking, j: int, causal: bool, mask) -> str:
    """Why query i may not read key j, or "" when it may."""
    if w.allowed[j]:
        return ""
    why = []
    if not (w.in_window[j] or (w.sink is not None and w.sink[j])):
        why.append("outside the window")
    if causal and j > w.row:
        why.append(f"causal (key {j + 1} comes after query {w.row + 1})")
    if mask is not None and not mask[j]:
        why.append("masked by hand")
    return ", ".join(why) or "masked"


def _sinks(s: int) -> str:
    return "the sink" if s == 1 else f"the {s} sinks"


def window_text(w: RowWorking, keys: list[str], causal: bool = False,
                mask: np.ndarray | None = None) -> list[str]:
    """Which keys the window and the sinks leave readable, and why the others are not.

    ``mask`` is row i of the mask given by hand ((m,) bool), or None.
    """
    if w.window is None:
        return []
    i = w.row + 1
    sinks = f", or j ≤ {w.sinks} ({_sinks(w.sinks)})" if w.sinks else ""
    lines = ["", f"Readable keys: |{i} - j| < {w.window} (the window){sinks}:"]
    for j, t in enumerate(keys):
        near = "<" if w.in_window[j] else "≥"
        sink = ", a sink" if w.sink is not None and w.sink[j] else ""
        why = _closed(w, j, causal, mask)
        lines.append(f"  k_{j + 1} ({t}): |{i} - {j + 1}| = {abs(w.row - j)} {near} {w.window}"
                     f"{sink}  →  " + (f"not readable: {why}" if why else "readable"))
    return lines


def window_latex(w: RowWorking, causal: bool = False, mask: np.ndarray | None = None) -> list[str]:
    """The align* lines of window_text."""
    if w.window is None:
        return []
    i = w.row + 1
    sinks = f" or $j \\le {w.sinks}$ ({_sinks(w.sinks)})" if w.sinks else ""
    lines = [f"&\\text{{query {i} reads key $j$ when $|{i} - j| < {w.window}$ "
             f"(the window){sinks}}}"]
    for j in range(len(w.dots)):
        near = "<" if w.in_window[j] else "\\ge"
        sink = ",\\ \\text{a sink}" if w.sink is not None and w.sink[j] else ""
        why = _closed(w, j, causal, mask)
        verdict = f"not readable: {why}" if why else "readable"
        lines.append(f"k_{{{j + 1}}} &: |{i} - {j + 1}| = {abs(w.row - j)} {near} {w.window}"
                     f"{sink} \\;\\Rightarrow\\; \\text{{{verdict}}}")
    return lines
