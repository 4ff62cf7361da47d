"""The worksheet's steps for biases, RoPE, ALiBi, shared key/value heads, windows and sinks.

Every example is "the cat sat" (tests/conftest.py's cat_sat): X = [[1,0],[0,1],[1,1]],
W_Q = [[1,0],[1,2]], W_K = [[2,0],[0,1]], W_V = [[1,0],[0,2]], so before any variant
q_3 = (2, 2), the keys are k_1 = (2, 0), k_2 = (0, 1), k_3 = (2, 1), the values
v_1 = (1, 0), v_2 = (0, 2), v_3 = (1, 2), and the scale is 1/√2. The numbers expected are
worked out by hand in the comments, or with plain math (RoPE as complex numbers: a pair
(x, y) is x + iy, turned by the angle φ it is (x + iy)·e^(iφ)).
"""

import cmath
import math
import re

import pytest

from attention_api.attention.request import parse_request
from attention_api.attention.response import compute
from attention_api.cli.report import latex_report, text_report, working_latex, working_text
from attention_core import attention, working

ROW_3 = {"row": 2}  # query 3, "sat"
KEYS = ["the", "cat", "sat"]


def report(cat_sat, fmt="text", **fields):
    request = parse_request({**cat_sat, **ROW_3, **fields})
    write = text_report if fmt == "text" else latex_report
    return write(request, compute(request))


def f3(x: float) -> str:
    """x to 3 decimals, as the worksheets print it (no "-0.000")."""
    text = f"{x:.3f}"
    return text[1:] if text == "-0.000" else text


def lines_of(out: str) -> list[str]:
    return out.split("\n")


# ---- LaTeX that compiles in principle ---------------------------------------------------

def assert_sound_latex(doc: str) -> None:
    """Balanced braces, \\[ \\] and environments; $ paired on each line; ASCII outside the
    comments (pdflatex reads ASCII without packages); one & per row of an align*."""
    in_align = False
    stack = []
    for line in doc.split("\n"):
        if line.startswith("%"):
            continue
        assert line.isascii(), line
        plain = line.replace("\\\\", "").replace("\\{", "").replace("\\}", "").replace("\\$", "")
        depth = 0
        for ch in plain:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0, line
        assert depth == 0, line
        assert plain.count("$") % 2 == 0, line
        assert line.count("\\[") == line.count("\\]"), line
        for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", line):
            if kind == "begin":
                stack.append(env)
            else:
                assert stack and stack.pop() == env, line
        if line == "\\begin{align*}":
            in_align = True
        elif line == "\\end{align*}":
            in_align = False
        elif in_align:
            row = line.removesuffix(" \\\\").replace("\\&", "")
            assert row.count("&") == 1, line
    assert not stack and not in_align


def test_the_checker_refuses_what_would_not_compile():
    for bad in ("\\[ x_{1 \\]", "\\begin{align*}\nq &= 1 & 2\n\\end{align*}", "\\text{$x}",
                "\\begin{align*}\nq &= 1", "θ = 1"):
        with pytest.raises(AssertionError):
            assert_sound_latex(bad)


# ---- biases -----------------------------------------------------------------------------

BIASES = {"b_Q": [0.5, -1], "b_K": [0, 1], "b_V": [1, 1]}


def test_biases_are_added_to_q_k_and_v_in_the_text_working(cat_sat):
    # q_3 = (2, 2) + (0.5, -1) = (2.5, 1); k = (2, 1), (0, 2), (2, 2); v = (2, 1), (1, 3),
    # (2, 3). Scores: 2.5·2 + 1·1 = 6, 2.5·0 + 1·2 = 2, 2.5·2 + 1·2 = 7; × 1/√2.
    lines = lines_of(report(cat_sat, **BIASES))
    start = lines.index('Working for query 3, "sat" (row index 2)')
    assert lines[start + 1:start + 13] == [
        "q_3 = x_3·W_Q + b_Q = (2.000, 2.000) + (0.500, -1.000) = (2.500, 1.000)",
        "",
        "Keys, k_j = x_j·W_K + b_K:",
        "  k_1 (the) = (2.000, 0.000) + (0.000, 1.000) = (2.000, 1.000)",
        "  k_2 (cat) = (0.000, 1.000) + (0.000, 1.000) = (0.000, 2.000)",
        "  k_3 (sat) = (2.000, 1.000) + (0.000, 1.000) = (2.000, 2.000)",
        "",
        "Values, v_j = x_j·W_V + b_V:",
        "  v_1 (the) = (1.000, 0.000) + (1.000, 1.000) = (2.000, 1.000)",
        "  v_2 (cat) = (0.000, 2.000) + (1.000, 1.000) = (1.000, 3.000)",
        "  v_3 (sat) = (1.000, 2.000) + (1.000, 1.000) = (2.000, 3.000)",
        "",
    ]
    r2 = math.sqrt(2)
    assert f"  q_3·k_1 (the) = 2.500·2.000 + 1.000·1.000 = 6.000  →  s_3,1 = {f3(6 / r2)}" in lines
    assert f"  q_3·k_3 (sat) = 2.500·2.000 + 1.000·2.000 = 7.000  →  s_3,3 = {f3(7 / r2)}" in lines
    exps = [math.exp(s / r2) for s in (6, 2, 7)]
    a = [e / sum(exps) for e in exps]
    z = (a[0] * 2 + a[1] * 1 + a[2] * 2, a[0] * 1 + a[1] * 3 + a[2] * 3)
    assert f"    = ({f3(z[0])}, {f3(z[1])})" in lines


def test_biases_are_matrices_of_the_report(cat_sat):
    out = report(cat_sat, **BIASES)
    assert ("b_Q, added to every row of Q  (1×2)\n  b_Q   0.500  -1.000\n\n"
            "Q = X·W_Q + b_Q  (3×2)\n  the   1.500  -1.000\n  cat   1.500   1.000\n"
            "  sat   2.500   1.000\n") in out
    assert "K = X·W_K + b_K  (3×2)\n  the  2.000  1.000\n  cat  0.000  2.000\n" in out
    assert "V = X·W_V + b_V  (3×2)\n  the  2.000  1.000\n  cat  1.000  3.000\n" in out


def test_biases_in_latex(cat_sat):
    out = report(cat_sat, "latex", **BIASES)
    assert_sound_latex(out)
    assert "\\[ b_Q = \\begin{pmatrix} 0.500 & -1.000 \\end{pmatrix} \\]" in out
    for line in ("q_{3} &= x_{3} W_Q + b_Q = (2.000, 2.000) + (0.500, -1.000) = (2.500, 1.000)",
                 "k_{2} &= x_{2} W_K + b_K = (0.000, 1.000) + (0.000, 1.000) = (0.000, 2.000)",
                 "v_{3} &= x_{3} W_V + b_V = (1.000, 2.000) + (1.000, 1.000) = (2.000, 3.000)",
                 "q_{3} \\cdot k_{1} &= 2.500 \\cdot 2.000 + 1.000 \\cdot 1.000 = 6.000, "
                 f"\\quad s_{{3,1}} = 6.000 \\times 0.707 = {f3(6 / math.sqrt(2))}"):
        assert line + " \\\\" in lines_of(out), line


def test_cross_attention_names_x_kv_rows_in_the_bias_step(cat_sat):
    # X_kv = [[1, 0], [2, 1]]: x_kv,2·W_K = (4, 1), + b_K (1, 1) = (5, 2).
    fields = {"X_kv": [[1, 0], [2, 1]], "b_K": [1, 1]}
    assert "  k_2 (s2) = (4.000, 1.000) + (1.000, 1.000) = (5.000, 2.000)" in report(
        cat_sat, **fields)
    assert "Keys, k_j = x_kv,j·W_K + b_K:" in report(cat_sat, **fields)
    latex = report(cat_sat, "latex", **fields)
    assert ("k_{2} &= x^{kv}_{2} W_K + b_K = (4.000, 1.000) + (1.000, 1.000) = (5.000, 2.000)"
            in latex)
    assert "K = X_kv·W_K + b_K  (2×2)" in report(cat_sat, **fields)


# ---- RoPE -------------------------------------------------------------------------------

def turn(v, p, freq=1.0):
    """(x, y) turned by p·freq radians, as a complex number."""
    z = complex(*v) * cmath.exp(1j * p * freq)
    return z.real, z.imag


def test_rope_turns_q_and_each_key_in_the_text_working(cat_sat):
    # d_k = 2: one pair, frequency 10000^0 = 1, so position p turns it by p radians.
    # q_3 at p = 2: (2cos2 − 2sin2, 2sin2 + 2cos2) = (−2.651, 0.986).
    # k_2 = (0, 1) at p = 1: (−sin1, cos1) = (−0.841, 0.540);
    # k_3 = (2, 1) at p = 2: (2cos2 − sin2, 2sin2 + cos2) = (−1.742, 1.402).
    lines = lines_of(report(cat_sat, positional="rope"))
    start = lines.index('Working for query 3, "sat" (row index 2)')
    assert lines[start + 1:start + 11] == [
        "q_3 before rotation = x_3·W_Q = (2.000, 2.000)",
        "RoPE, θ = 10000: query 3 is at position p_3 = 2; components 2c+1 and 2c+2 turn by "
        "the angle p·θ^(-2c/d_k):",
        "  c = 0, components 1 and 2: angle 2·10000^(-0/2) = 2.000 rad; (2.000·cos 2.000 - "
        "2.000·sin 2.000, 2.000·sin 2.000 + 2.000·cos 2.000) = (-2.651, 0.986)",
        "q_3 = (-2.651, 0.986)",
        "",
        "Keys, turned by RoPE at their positions p_j (the same angles p·θ^(-2c/d_k)):",
        "  k_1 (the) at p_1 = 0, angles (0.000): (2.000, 0.000) turns to (2.000, 0.000)",
        "  k_2 (cat) at p_2 = 1, angles (1.000): (0.000, 1.000) turns to (-0.841, 0.540)",
        "  k_3 (sat) at p_3 = 2, angles (2.000): (2.000, 1.000) turns to (-1.742, 1.402)",
        "",
    ]
    # The scores are those of the turned vectors: q·k_j = Re(q · conj(k_j)).
    q = complex(*turn((2, 2), 2))
    for j, (k, t) in enumerate(zip([(2, 0), (0, 1), (2, 1)], KEYS, strict=True)):
        dot = (q * complex(*turn(k, j)).conjugate()).real
        assert f"({t}) = " in lines[start + 12 + j]
        assert lines[start + 12 + j].endswith(
            f" = {f3(dot)}  →  s_3,{j + 1} = {f3(dot / math.sqrt(2))}")
    assert lines[start + 14].startswith(
        "  q_3·k_3 (sat) = (-2.651)·(-1.742) + 0.986·1.402 = 6.000")  # p − p = 0: unturned


def test_rope_pairs_of_a_wider_head_turn_slower(cat_sat):
    # W_Q = W_K = [[1,0,1,0],[0,1,0,1]]: q_3 = (1, 1, 1, 1). θ = 100, d_k = 4: pair c = 1
    # turns by 2·100^(−2/4) = 0.2 rad: (cos0.2 − sin0.2, sin0.2 + cos0.2) = (0.781, 1.179).
    wide = [[1, 0, 1, 0], [0, 1, 0, 1]]
    out = report(cat_sat, W_Q=wide, W_K=wide, W_V=wide, positional="rope", rope_base=100)
    x, y = turn((1, 1), 2, 100 ** -0.5)
    assert ("  c = 1, components 3 and 4: angle 2·100^(-2/4) = 0.200 rad; (1.000·cos 0.200 - "
            f"1.000·sin 0.200, 1.000·sin 0.200 + 1.000·cos 0.200) = ({f3(x)}, {f3(y)})") in out
    assert (x, y) == pytest.approx((0.78140, 1.17874), abs=1e-5)
    k2 = turn((0, 1), 1) + turn((0, 1), 1, 0.1)  # k_2 = (0, 1, 0, 1) at p = 1
    assert ("  k_2 (cat) at p_2 = 1, angles (1.000, 0.100): (0.000, 1.000, 0.000, 1.000) "
            f"turns to ({', '.join(map(f3, k2))})") in out
    assert "Q, turned by RoPE (θ = 100, positions 0 to 2)  (3×4)" in out


def test_an_offset_moves_every_position_and_leaves_the_scores(cat_sat):
    # Offset 5: query 3 at p = 7 and the keys at 5, 6, 7; q·k depends on 7 − (5 + j) alone.
    plain = lines_of(report(cat_sat, positional="rope"))
    shifted = lines_of(report(cat_sat, positional="rope", position_offset=5))
    assert ("RoPE, θ = 10000: query 3 is at position p_3 = 7; components 2c+1 and 2c+2 turn "
            "by the angle p·θ^(-2c/d_k):") in shifted
    x, y = turn((2, 2), 7)
    assert f"q_3 = ({f3(x)}, {f3(y)})" in shifted and f"q_3 = ({f3(x)}, {f3(y)})" not in plain
    assert any(line.startswith("  k_1 (the) at p_1 = 5, angles (5.000)") for line in shifted)
    assert "Q, turned by RoPE (θ = 10000, positions 5 to 7)  (3×2)" in shifted

    def scores(lines):
        return [line.split("→")[1] for line in lines if "→  s_3," in line]
    assert scores(shifted) == scores(plain) == [
        f"  s_3,{j + 1} = {f3(s)}" for j, s in enumerate((-5.30178 / math.sqrt(2),
                                                        2.76352 / math.sqrt(2), 6 / math.sqrt(2)))]


def test_rope_matrices_and_latex(cat_sat):
    text = report(cat_sat, positional="rope", b_Q=[0.5, -1])
    # Q before rotation = X·W_Q + b_Q: (1.5, −1), (1.5, 1), (2.5, 1); row 2 turned by 1 rad.
    x, y = turn((1.5, 1), 1)
    assert ("Q before rotation = X·W_Q + b_Q  (3×2)\n  the   1.500  -1.000\n  cat   1.500   1.000"
            "\n  sat   2.500   1.000\n") in text
    assert (f"Q, turned by RoPE (θ = 10000, positions 0 to 2)  (3×2)\n  the   1.500  -1.000\n"
            f"  cat  {f3(x):>6}  {f3(y):>6}\n") in text
    assert "K before rotation = X·W_K  (3×2)" in text
    latex = report(cat_sat, "latex", positional="rope", b_Q=[0.5, -1])
    assert_sound_latex(latex)
    x, y = turn((2.5, 1), 2)
    for line in ("q_{3}\\ \\text{before RoPE} &= x_{3} W_Q + b_Q = (2.000, 2.000) + "
                 "(0.500, -1.000) = (2.500, 1.000)",
                 "&\\text{RoPE, $\\theta = 10000$: query 3 is at position $p_{3} = 2$; pair $c$ "
                 "turns by $\\varphi_c = p \\, \\theta^{-2c/d_k}$}",
                 "\\varphi_{0} &= 2 \\cdot {10000}^{-0/2} = 2.000, \\quad (2.500 \\cos 2.000 - "
                 "1.000 \\sin 2.000, 2.500 \\sin 2.000 + 1.000 \\cos 2.000) = "
                 f"({f3(x)}, {f3(y)})",
                 f"q_{{3}} &= ({f3(x)}, {f3(y)})",
                 "k_{2} &= R_{1} (0.000, 1.000) = (-0.841, 0.540), \\quad \\varphi = (1.000)"):
        assert line + " \\\\" in lines_of(latex), line
    assert "\\[ Q_{\\text{before RoPE}} = \\begin{pmatrix} 1.500 & -1.000 \\\\" in latex


def test_a_working_written_without_theta_names_the_letter():
    w = working(attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 0], [0, 1]],
                          [[1], [1]], rope_base=10000.0), 1)
    lines = working_text(w, ["a", "b"], ["a", "b"])
    assert lines[2].startswith("RoPE: query 2 is at position p_2 = 1;")
    assert lines[3].startswith("  c = 0, components 1 and 2: angle 1·θ^(-0/2) = 1.000 rad;")
    latex = working_latex(w)
    assert "\\varphi_{0} &= 1 \\cdot {\\theta}^{-0/2} = 1.000" in latex
    assert_sound_latex(latex)


# ---- ALiBi ------------------------------------------------------------------------------

def test_alibi_adds_its_term_to_each_scaled_score(cat_sat):
    # slope 0.5, query 3: s = 4/√2 − 0.5·2 = 1.828, 2/√2 − 0.5·1 = 0.914, 6/√2 − 0 = 4.243.
    lines = lines_of(report(cat_sat, positional="alibi", alibi_slopes=[0.5]))
    assert "Scores, then × scale 0.707, plus ALiBi's -m·|i - j| with slope m = 0.5:" in lines
    assert ("  q_3·k_1 (the) = 2.000·2.000 + 2.000·0.000 = 4.000  →  "
            "s_3,1 = 2.828 - 0.5·|3 - 1| = 2.828 - 1.000 = 1.828") in lines
    assert ("  q_3·k_2 (cat) = 2.000·0.000 + 2.000·1.000 = 2.000  →  "
            "s_3,2 = 1.414 - 0.5·|3 - 2| = 1.414 - 0.500 = 0.914") in lines
    exps = [math.exp(4 / math.sqrt(2) - 1), math.exp(2 / math.sqrt(2) - 0.5),
            math.exp(6 / math.sqrt(2))]
    assert f"  a_3,1 (the) = {f3(exps[0])} / {f3(sum(exps))} = {f3(exps[0] / sum(exps))}" in lines
    out = "\n".join(lines)
    assert ("ALiBi's bias -m·|i - j|, slope m = 0.5  (3×3)\n  the   0.000  -0.500  -1.000\n"
            "  cat  -0.500   0.000  -0.500\n  sat  -1.000  -0.500   0.000\n\n"
            "QKᵀ × 0.707 + ALiBi's bias  (3×3)\n") in out


def test_alibi_in_latex(cat_sat):
    latex = report(cat_sat, "latex", positional="alibi", alibi_slopes=[0.5])
    assert_sound_latex(latex)
    assert ("q_{3} \\cdot k_{1} &= 2.000 \\cdot 2.000 + 2.000 \\cdot 0.000 = 4.000, \\quad "
            "s_{3,1} = 4.000 \\times 0.707 - 0.5 \\cdot |3 - 1| = 2.828 - 1.000 = 1.828 \\\\"
            ) in lines_of(latex)
    assert ("\\[ B_{\\text{ALiBi}} = -0.5 \\, |i - j| = \\begin{pmatrix} 0.000 & -0.500 & "
            "-1.000 \\\\ -0.500 & 0.000 & -0.500 \\\\ -1.000 & -0.500 & 0.000 \\end{pmatrix} \\]"
            ) in latex
    assert "\\[ QK{}^\\top \\times 0.707 + B_{\\text{ALiBi}} = \\begin{pmatrix} 1.414 & " in latex


def test_the_papers_slope_is_printed_whole(cat_sat):
    # One head: m = 2^−8 = 0.00390625; −m·2 = −0.0078125, and 2.8284 − 0.0078 = 2.8206.
    assert ("s_3,1 = 2.828 - 0.00390625·|3 - 1| = 2.828 - 0.008 = 2.821"
            in report(cat_sat, positional="alibi"))


# ---- window and sinks -------------------------------------------------------------------

def test_window_and_sink_say_which_keys_stay_readable(cat_sat):
    # window 1: query 3 reads only itself (|3 − 3| = 0 < 1); key 1 is a sink, so readable too.
    lines = lines_of(report(cat_sat, window=1, sinks=1))
    start = lines.index("Readable keys: |3 - j| < 1 (the window), or j ≤ 1 (the sink):")
    assert lines[start + 1:start + 4] == [
        "  k_1 (the): |3 - 1| = 2 ≥ 1, a sink  →  readable",
        "  k_2 (cat): |3 - 2| = 1 ≥ 1  →  not readable: outside the window",
        "  k_3 (sat): |3 - 3| = 0 < 1  →  readable",
    ]
    assert lines[start - 3].endswith("→  s_3,2 = -inf (masked)")  # the step after the scores
    assert lines[start + 5] == "Exponentials:"
    # a_3,1 = e^(4/√2) / (e^(4/√2) + e^(6/√2)) = 1 / (1 + e^√2) = 0.196
    assert f"  a_3,1 (the) = 16.919 / 86.510 = {f3(1 / (1 + math.exp(math.sqrt(2))))}" in lines


@pytest.mark.parametrize("fields, row, expected", [
    # window 2, key 3 closed by hand for query 3; key 3 after query 2 is causal.
    ({"window": 2, "causal": True, "mask": [[True] * 3, [True] * 3, [True, True, False]]}, 2,
     ["  k_1 (the): |3 - 1| = 2 ≥ 2  →  not readable: outside the window",
      "  k_2 (cat): |3 - 2| = 1 < 2  →  readable",
      "  k_3 (sat): |3 - 3| = 0 < 2  →  not readable: masked by hand"]),
    ({"window": 2, "causal": True}, 1,
     ["  k_1 (the): |2 - 1| = 1 < 2  →  readable",
      "  k_2 (cat): |2 - 2| = 0 < 2  →  readable",
      "  k_3 (sat): |2 - 3| = 1 < 2  →  not readable: causal (key 3 comes after query 2)"]),
    # A sink is still causal: with 3 sinks, query 1 may not read the later keys.
    ({"window": 1, "sinks": 3, "causal": True}, 0,
     ["  k_1 (the): |1 - 1| = 0 < 1, a sink  →  readable",
      "  k_2 (cat): |1 - 2| = 1 ≥ 1, a sink  →  not readable: causal (key 2 comes after query 1)",
      "  k_3 (sat): |1 - 3| = 2 ≥ 1, a sink  →  not readable: causal (key 3 comes after query 1)"]),
    ({"window": 1, "causal": True}, 0,
     ["  k_1 (the): |1 - 1| = 0 < 1  →  readable",
      "  k_2 (cat): |1 - 2| = 1 ≥ 1  →  not readable: outside the window, causal (key 2 "
      "comes after query 1)",
      "  k_3 (sat): |1 - 3| = 2 ≥ 1  →  not readable: outside the window, causal (key 3 "
      "comes after query 1)"]),
])
def test_why_a_key_is_closed(cat_sat, fields, row, expected):
    lines = lines_of(report(cat_sat, **{**fields, "row": row}))
    start = next(k for k, line in enumerate(lines) if line.startswith("Readable keys:"))
    assert lines[start + 1:start + 4] == expected


def test_window_in_latex(cat_sat):
    latex = report(cat_sat, "latex", window=1, sinks=2)
    assert_sound_latex(latex)
    rows = lines_of(latex)
    start = rows.index("&\\text{query 3 reads key $j$ when $|3 - j| < 1$ (the window) or "
                       "$j \\le 2$ (the 2 sinks)} \\\\")
    assert rows[start + 1:start + 4] == [
        "k_{1} &: |3 - 1| = 2 \\ge 1,\\ \\text{a sink} \\;\\Rightarrow\\; \\text{readable} \\\\",
        "k_{2} &: |3 - 2| = 1 \\ge 1,\\ \\text{a sink} \\;\\Rightarrow\\; \\text{readable} \\\\",
        "k_{3} &: |3 - 3| = 0 < 1 \\;\\Rightarrow\\; \\text{readable} \\\\",
    ]


def test_sinks_without_a_window_add_no_step(cat_sat):
    assert report(cat_sat, sinks=2) == report(cat_sat)


# ---- shared key/value heads -------------------------------------------------------------

def gqa(cat_sat, groups: int, heads: int = 4) -> dict:
    """``heads`` query heads (W_Q = cat_sat's, then the identity…) over ``groups`` key/value
    heads: kv head 1 is cat_sat's W_K, W_V; kv head 2 the identity for both."""
    eye = [[1, 0], [0, 1]]
    kv = [{"W_K": cat_sat["W_K"], "W_V": cat_sat["W_V"]}, {"W_K": eye, "W_V": eye}]
    return {"tokens": cat_sat["tokens"], "X": cat_sat["X"],
            "heads": [{"W_Q": cat_sat["W_Q"] if h == 0 else eye} for h in range(heads)],
            "kv_heads": kv[:groups], "W_O": [[1, 0], [0, 1]] * heads, "row": 2}


def test_each_query_head_names_the_key_value_head_it_reads(cat_sat):
    request = parse_request(gqa(cat_sat, 2))
    out = text_report(request, compute(request))
    assert out.startswith("Tokens: the, cat, sat  (n = 3, d_model = 2, heads = 4, "
                          "key/value heads = 2, d_k = 2, scale = 0.707)\n")
    assert ("\nHead 3\nQuery head 3 reads key/value head 2, which query heads 3 and 4 share."
            "\n\nWorking for query 3") in out
    assert ("\nHead 2\nQuery head 2 reads key/value head 1, which query heads 1 and 2 share.\n"
            in out)
    # kv head 2 is the identity: head 3's keys are X's rows, q_3 = x_3 = (1, 1).
    assert "head 3: K (key/value head 2)  (3×2)\n  the  1.000  0.000\n" in out
    assert "  q_3·k_1 (the) = 1.000·1.000 + 1.000·0.000 = 1.000  →  s_3,1 = 0.707" in out
    latex = latex_report(request, compute(request))
    assert_sound_latex(latex)
    assert ("% head 4\nQuery head 4 reads key/value head 2, which query heads 3 and 4 share.\n"
            "\\begin{align*}\n") in latex


@pytest.mark.parametrize("groups, heads, sentence", [
    (1, 3, "Query head 2 reads key/value head 1, which query heads 1, 2 and 3 share."),
    (2, 2, "Query head 2 reads key/value head 2, which no other query head reads."),
])
def test_multi_query_and_one_key_value_head_each(cat_sat, groups, heads, sentence):
    request = parse_request(gqa(cat_sat, groups, heads))
    assert f"\nHead 2\n{sentence}\n" in text_report(request, compute(request))


def test_every_variant_at_once_is_sound_latex(cat_sat):
    request = parse_request({
        **gqa(cat_sat, 2), "positional": "rope", "rope_base": 2.5, "position_offset": 3,
        "window": 2, "sinks": 1, "causal": True, "tokens": ["a\n\\input{x}", "50%", "^^5c"],
        "mask": [[True] * 3, [True] * 3, [True, False, True]]})
    latex = latex_report(request, compute(request), 5)
    assert_sound_latex(latex)
    assert "RoPE, $\\theta = 2.5$" in latex and "\\text{not readable: masked by hand}" in latex
