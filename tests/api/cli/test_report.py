"""The worksheet write-ups (report.py): subscripts, the shifted exponentials, number format."""

import json
import math

import pytest

from attention_api.attention.request import parse_request
from attention_api.attention.response import compute
from attention_api.cli.main import main
from attention_api.cli.report import (
    latex_report,
    latex_text,
    number,
    text_report,
    working_latex,
    working_text,
)
from attention_core import attention, working

# Twelve equal tokens of width 1: every score is 1·1 = 1, so every weight is e^1 / (12 e^1).
TWELVE = dict(X=[[1.0]] * 12, W_Q=[[1.0]], W_K=[[1.0]], W_V=[[1.0]], scale=1)
E = "2.718"  # e^1
SUM = "32.619"  # 12 · 2.718281828 = 32.6194


def test_latex_subscripts_keep_query_and_key_apart():
    """Row 11 key 1 and row 1 key 11 would both read a_{111} without the comma."""
    r = attention(**TWELVE)
    row_11, row_1 = working_latex(working(r, 10)), working_latex(working(r, 0))
    assert f"a_{{11,1}} &= {E} / {SUM} = 0.083" in row_11
    assert f"a_{{1,11}} &= {E} / {SUM} = 0.083" in row_1
    assert "a_{111}" not in row_11 + row_1
    assert "\\quad s_{11,1} = 1.000 \\times 1.000 = 1.000" in row_11
    assert "\\quad s_{1,11} = 1.000 \\times 1.000 = 1.000" in row_1
    assert "\\textstyle\\sum_j e^{s_{11,j}} &= " in row_11


def test_text_scores_name_query_and_key():
    lines = working_text(working(attention(**TWELVE), 10), ["t"] * 12, ["t"] * 12)
    assert any(line.endswith("→  s_11,1 = 1.000") for line in lines)
    assert f"  a_11,12 (t) = {E} / {SUM} = 0.083" in lines


# Scaled scores 0 and 1000 in row 2: e^1000 overflows float64 (beyond e^709.78), so the
# code subtracts m = 1000: e^(0 - 1000) = 0 (underflow), e^(1000 - 1000) = 1, sum 1.
OVERFLOW = {"tokens": ["a", "b"], "X": [[0], [1]], "W_Q": [[1]], "W_K": [[1000]],
            "W_V": [[1]], "scale": 1, "row": 1}


def _cli(tmp_path, capsys, fmt):
    f = tmp_path / "req.json"
    f.write_text(json.dumps(OVERFLOW))
    assert main([str(f), "--format", fmt]) == 0
    return capsys.readouterr().out


def test_latex_explains_the_shift_and_shows_the_shifted_exponentials(tmp_path, capsys):
    out = _cli(tmp_path, capsys, "latex")
    working_part = out[out.index("\\begin{align*}"):]
    assert "largest score $m = 1000.000$ is subtracted first; the weights are unchanged" in out
    assert ("\\textstyle\\sum_j e^{s_{2,j} - m} &= e^{0.000 - 1000.000} + "
            "e^{1000.000 - 1000.000} = 1.000") in out
    assert "a_{2,1} &= 0.000 / 1.000 = 0.000" in out
    assert "a_{2,2} &= 1.000 / 1.000 = 1.000" in out
    assert "\\infty" not in working_part  # no infinite sum before shifted fractions


def test_text_shows_the_shifted_exponentials_it_divides(tmp_path, capsys):
    lines = _cli(tmp_path, capsys, "text").splitlines()
    start = lines.index("Exponentials:")
    exps = lines[start + 1:lines.index("Weights:")]
    assert "m = 1000.000 is subtracted first; the weights are unchanged" in exps[0]
    assert exps[1:4] == ["  e^(0.000 - 1000.000) = 0.000", "  e^(1000.000 - 1000.000) = 1.000",
                         "  sum of e^(s - m) = 1.000"]
    assert "  a_2,2 (b) = 1.000 / 1.000 = 1.000" in lines
    assert not any("inf" in line for line in exps)


@pytest.mark.parametrize("x, text, latex", [
    (-99999.999, "-99999.999", "-99999.999"),  # the widest fixed form
    (99999.9996, "1.000×10⁵", "1.000 \\times 10^{5}"),  # rounds to 100000.000
    (100000.0, "1.000×10⁵", "1.000 \\times 10^{5}"),
    (1e20, "1.000×10²⁰", "1.000 \\times 10^{20}"),
    (-485165195.4, "-4.852×10⁸", "-4.852 \\times 10^{8}"),
    (1.7976931348623157e308, "1.798×10³⁰⁸", "1.798 \\times 10^{308}"),
    (-1e-20, "0.000", "0.000"),
    (0.44649, "0.446", "0.446"),
    (-math.inf, "-inf", "-\\infty"),
])
def test_numbers_follow_the_pages_rule(x, text, latex):
    assert number(x) == text and number(x, latex=True) == latex


def test_a_huge_input_fits_its_column_in_the_text_report():
    """X row 1 column 1 = 1e20 gives Q row 1 = (1e20, 0): 1.000×10²⁰ beside 0.000."""
    request = {"tokens": ["a", "b"], "X": [[1e20, 0], [0, 1]], "W_Q": [[1, 0], [0, 1]],
               "W_K": [[0, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]}
    req = parse_request(request)
    out = text_report(req, compute(req))
    assert "  a  1.000×10²⁰       0.000" in out
    assert "100000000000000000000" not in out


@pytest.mark.parametrize("label, tex", [
    # (a hostile label, the LaTeX text that only prints it), each worked out by hand.
    (r"\input{/etc/passwd}", r"\textbackslash{}input\{/etc/passwd\}"),
    ("^^5cinput", r"\textasciicircum{}\textasciicircum{}5cinput"),  # ^^5c is TeX's backslash
    ("a\n\\input x", r"a \textbackslash{}input x"),  # a newline would end the comment
    ("x\r\\end", r"x \textbackslash{}end"), ("tab\there", "tab here"),
    ("100% sure", r"100\% sure"), ("}{", r"\}\{"), ("$x^2$", r"\$x\textasciicircum{}2\$"),
    ("a&b#c_d~e", r"a\&b\#c\_d\textasciitilde{}e"), ("<|>", r"\textless{}\textbar{}\textgreater{}"),
    ("\x85\u2028\u2029\x00\x7f", "     "), ("café 😀", "café 😀"),
])
def test_latex_text_escapes_every_label_literally(label, tex):
    assert latex_text(label) == tex


def test_latex_report_keeps_hostile_labels_inside_its_comment(cat_sat):
    tokens = ["a\n\\input{x}", "50%", "^^5c"]
    request = parse_request({**cat_sat, "tokens": tokens})
    lines = latex_report(request, compute(request)).split("\n")
    assert lines[0] == (r"% Attention Explorer: tokens a \textbackslash{}input\{x\}, 50\%, "
                        r"\textasciicircum{}\textasciicircum{}5c")
    assert lines[1].startswith(r"\[ X = \begin{pmatrix}")
    assert not any(line.startswith("%") for line in lines[1:])


# Query 1 of the default example with every key masked by hand: q_1 = (1, 0), its dots with
# k = (2, 0), (0, 1), (2, 1) are 2, 0, 2, then every scaled score is −∞. No key may be read:
# by the engine's convention (softmax_rows) its weights are all 0, and so is z_1.
NO_KEY = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
          "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]],
          "mask": [[False, False, False], [True, True, False], [True, True, True]], "row": 0}


def test_a_query_that_may_read_no_key_is_written_without_a_sum_to_divide_by():
    request = parse_request(NO_KEY)
    text = text_report(request, compute(request))
    lines = text[text.index("Working for query 1"):].splitlines()
    assert "  q_1·k_2 (cat) = 1.000·0.000 + 0.000·1.000 = 0.000  →  s_1,2 = -inf (masked)" in lines
    assert not any(line.lstrip().startswith("sum") for line in lines), lines
    assert [line for line in lines if line.startswith("  a_1,")] == [
        "  a_1,1 (the) = 0 (masked)", "  a_1,2 (cat) = 0 (masked)", "  a_1,3 (sat) = 0 (masked)"]
    said = " ".join(lines)
    assert "No key may be read" in said and "its weights and output are all 0" in said
    assert "torch's scaled_dot_product_attention" in said
    assert "z_1 = (0.000, 0.000)" in lines
    assert not any(" / 0" in line or "0.000·(" in line for line in lines), lines

    latex = latex_report(request, compute(request))
    align = latex[latex.index("\\begin{align*}"):]
    assert "\\sum" not in align and "= 0 = 0.000" not in align, align
    assert "a_{1,2} &= 0" in align
    assert "z_{1} &= (0.000, 0.000)" in align
    assert "No key may be read" in align and "its weights and output are all 0" in align
    assert "scaled\\_dot\\_product\\_attention" in align  # an underscore in \text is escaped
