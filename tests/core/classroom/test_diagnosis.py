"""The hints for wrong answers (attention_core/classroom/diagnosis.py), one test per mistake,
each on an exercise worked by hand here.

The textbook row: X = [[1, 0], [0, 1], [1, 1]], W_Q = [[1, 0], [1, 2]], W_K = [[2, 0],
[0, 1]], W_V = [[1, 0], [0, 2]], query 3 (row 2). By hand: q = (2, 2); the keys (2, 0),
(0, 1), (2, 1); q·k = 4, 2, 6; scaled by 1/√2: 2.828, 1.414, 4.243; e^s: 16.92, 4.113,
69.59, their sum 90.62; weights 0.187, 0.045, 0.768; the values (1, 0), (0, 2), (1, 2);
z = (0.187 + 0.768, 2 · 0.045 + 2 · 0.768) = (0.955, 1.627).
"""

import math

import numpy as np
import pytest

from attention_core.classroom.diagnosis import check, shown, tolerance
from attention_core.classroom.exercises import Exercise, solve

X = np.array([[1, 0], [0, 1], [1, 1]], float)
HEAD = {"W_Q": np.array([[1, 0], [1, 2]], float), "W_K": np.array([[2, 0], [0, 1]], float),
        "W_V": np.array([[1, 0], [0, 2]], float)}
ROW = ("working.q[0]", "working.q[1]", *(f"working.k[{j}][{c}]" for j in range(3) for c in (0, 1)),
       *(f"working.dots[{j}]" for j in range(3)), *(f"working.scaled[{j}]" for j in range(3)),
       *(f"working.exp[{j}]" for j in range(3)), "working.exp_sum",
       *(f"working.weights[{j}]" for j in range(3)), "working.z[0]", "working.z[1]")
S = [4 / math.sqrt(2), 2 / math.sqrt(2), 6 / math.sqrt(2)]
E = [math.exp(s) for s in S]


def textbook(row=2, causal=False, blanks=ROW, **kw) -> Exercise:
    return Exercise(0, "row", ("I", "love", "tea"), X, (HEAD,), row, blanks, causal=causal,
                    **kw)


def hint(answers: dict, e: Exercise | None = None) -> str:
    """The hint for the last of ``answers``, which must be wrong."""
    results = check(e or textbook(), answers)
    last = results[list(answers)[-1]]
    assert not last.correct
    return last.hint


def test_right_answers_written_as_the_page_shows_them_are_correct():
    answers = {"working.dots[2]": 6, "working.scaled[0]": 2.828, "working.exp[0]": 16.92,
               "working.exp_sum": 90.62, "working.weights[0]": 0.187, "working.weights[1]": 0.045,
               "working.weights[2]": 0.768, "working.z[0]": 0.955, "working.z[1]": 1.627}
    results = check(textbook(), answers)
    assert {p: r.correct for p, r in results.items()} == {p: True for p in answers}
    assert all(r.hint is None for r in results.values())


def test_the_tolerance_is_one_unit_in_the_last_place_shown():
    assert tolerance("weights", 0.187) == 0.001
    assert tolerance("exp", 16.92) == pytest.approx(0.01)
    assert tolerance("exp", 4.113) == pytest.approx(0.001)
    assert tolerance("exp_sum", 90.62) == pytest.approx(0.01)
    e = textbook()
    assert check(e, {"working.weights[0]": 0.186})["working.weights[0]"].correct  # 0.18671
    assert not check(e, {"working.weights[0]": 0.185})["working.weights[0]"].correct
    assert check(e, {"working.exp[0]": 16.91})["working.exp[0]"].correct  # 16.919
    assert not check(e, {"working.exp[0]": 16.95})["working.exp[0]"].correct


def test_forgot_to_scale():
    h = hint({"working.scaled[0]": 4})
    assert h == "Your 4.000 is q·k₁ itself: the scaled score divides it by √d_k, √2 = 1.414."


def test_scaled_by_d_k_instead_of_its_root():
    h = hint({"working.scaled[2]": 3})  # 6 / 2
    assert h == ("Your 3.000 divides q·k₃ = 6.000 by d_k = 2; divide by its square root, "
                 "√2 = 1.414.")


def test_forgot_to_exponentiate():
    h = hint({"working.exp[0]": 2.828})
    assert h.startswith("Your 2.828 is the scaled score itself: this step raises e to it")


def test_exponentiated_the_unscaled_score():
    h = hint({"working.exp[2]": round(math.exp(6), 1)})  # 403.4
    assert "Your 403.4 is e^(q·k) = e^6.000, unscaled" in h


def test_a_sign_slip_in_one_product():
    # q·k₃ = 2·2 + 2·1 = 6; with the first product's sign slipped, −4 + 2 = −2.
    h = hint({"working.dots[2]": -2})
    assert h == ("Your −2.000 looks like a sign slip in one product: check "
                 "q[1]·k[1] = (2.000)·(2.000).")


def test_another_keys_dot_product():
    h = hint({"working.dots[0]": 6})
    assert h == "Your 6.000 is q·k with key 3 (“tea”); this blank is key 1 (“I”)."


def test_divided_by_the_wrong_sum():
    a = round(E[0] / (E[0] + E[2]), 3)  # 16.92 / 86.51 = 0.196, key 2's e^s left out
    h = hint({"working.weights[0]": a})
    assert h == f"Your {a:.3f} divides by a sum that leaves out key 2 (“love”)."


def test_a_weight_that_is_its_exponential_undivided():
    h = hint({"working.weights[1]": 4.113})
    assert h.startswith("Your 4.113 is e^s₂ itself: the weight divides it by the row's sum")


def test_weights_that_do_not_add_to_one():
    answers = {"working.weights[0]": 0.3, "working.weights[1]": 0.045,
               "working.weights[2]": 0.768}  # 1.113
    results = check(textbook(), answers)
    assert [r.correct for r in results.values()] == [False, True, True]
    assert "Your weights add to 1.113; a row's weights always add to 1" in \
        results["working.weights[0]"].hint


def test_z_from_the_exponentials_instead_of_the_weights():
    h = hint({"working.z[0]": round(E[0] + E[2], 2)})  # 16.92·1 + 4.113·0 + 69.59·1
    assert h.startswith("Your 86.510 weighs the values by e^s, not by the weights")


def test_z_from_the_students_own_wrong_weights():
    answers = {"working.weights[0]": 0.2, "working.weights[1]": 0.1, "working.weights[2]": 0.7,
               "working.z[0]": 0.9}  # 0.2·1 + 0.7·1, from those weights
    assert hint(answers) == ("Your 0.900 follows from your own weights, and one of them is "
                             "off: check those first.")


def test_a_scaled_score_that_follows_from_the_students_own_wrong_dot_product():
    answers = {"working.dots[0]": 5, "working.scaled[0]": round(5 / math.sqrt(2), 3)}
    assert hint(answers) == ("Your 3.536 follows from your q·k₁, 5.000, which is off: check "
                             "that blank first.")


def test_a_masked_key_given_weight():
    # Causal, query 2 (row 1): key 3 comes after it. Keys 1 and 2 by hand: q = x₂·W_Q =
    # (1, 2); q·k = 2, 2; the weights 0.5 and 0.5.
    e = textbook(row=1, causal=True, blanks=("working.weights[0]", "working.weights[2]",
                                             "working.exp[2]", "working.exp_sum"))
    assert check(e, {"working.weights[0]": 0.5})["working.weights[0]"].correct
    h = hint({"working.weights[2]": 0.2}, e)
    assert h.startswith("Your 0.200 gives key 3 (“tea”) weight, but it is masked: it comes "
                        "after query 2, and the causal mask hides later keys.")
    assert "e^s" in hint({"working.exp[2]": 16.92}, e)
    # The sum with key 3's e^s in it: q·k₃ = 1·2 + 2·1 = 4, scaled 2.828.
    with_it = round(2 * math.exp(2 / math.sqrt(2)) + math.exp(4 / math.sqrt(2)), 2)
    assert hint({"working.exp_sum": with_it}, e).startswith(
        f"Your {with_it:.4g} includes the masked keys' e^s")


def test_a_right_number_with_too_few_digits():
    assert hint({"working.weights[0]": 0.19}) == (
        "Your 0.190 is this number rounded to 2 decimals; this step is written to 3 decimals.")


def test_no_scaling_asked_but_scaled():
    e = textbook(blanks=("working.scaled[0]",), scale=1.0)
    assert check(e, {"working.scaled[0]": 4})["working.scaled[0]"].correct
    assert "this exercise does not scale (scale 1)" in hint({"working.scaled[0]": 2.828}, e)


def test_sine_and_cosine_swapped_in_a_position():
    # Position 1, entry 1 (pair 0, d_model 2): sin(1) = 0.841; cos(1) = 0.540.
    e = textbook(blanks=("positional_encoding[1][0]",), positional="sinusoidal")
    assert check(e, {"positional_encoding[1][0]": 0.841})["positional_encoding[1][0]"].correct
    assert hint({"positional_encoding[1][0]": 0.540}, e).startswith(
        "Your 0.540 swaps sine and cosine")


def test_a_projection_from_the_wrong_matrix():
    # k₁ = x₁·W_K = (2, 0); with W_Q instead, x₁·W_Q = (1, 0).
    assert hint({"working.k[0][0]": 1}) == "Your 1.000 is built with W_Q; k uses W_K."


def test_a_hint_never_holds_the_number_asked_for():
    """Of the steps after the dot products, whose hints quote no input vector (an input's
    entry may be the same number by chance)."""
    e = textbook()
    truth = solve(e)
    for path in (p for p in ROW if any(s in p for s in ("scaled", "exp", "weights"))):
        for wrong in (-7.5, 0.123, 55.0, truth[path] * 1.1, truth[path] / 2):
            result = check(e, {path: wrong})[path]
            assert not result.correct
            said = result.hint.replace(shown(wrong, "exp"), "").replace(shown(wrong), "")
            for step in ("", "exp"):
                assert shown(truth[path], step) not in said, (path, wrong, result.hint)


def test_every_hint_quotes_the_students_number_at_every_level():
    from attention_core.classroom.exercises import LEVELS, exercise

    checked = 0
    for level in LEVELS:
        for seed in range(25):
            e = exercise(seed, level)
            for path, true in solve(e).items():
                for wrong in (true + 0.5, true * -1.3 - 0.25, 0.123):
                    result = check(e, {path: wrong})[path]
                    if result.correct:  # 0.123 may be right
                        continue
                    quoted = {shown(wrong), shown(wrong, "exp")}
                    assert any(q in result.hint for q in quoted), (level, seed, path, result.hint)
                    checked += 1
    assert checked > 7_000


def test_a_number_is_shown_as_the_pages_working_writes_it():
    """shown() against the page's own formatters, run in node: formatNumber for 3 decimals,
    sigText for the exponentials, at numbers across every range either writes."""
    import json
    import subprocess
    from pathlib import Path

    from attention_core.prose import NUMBER_FORMAT

    values = [0.0, 1.0, 16.92, 4.1134, 1925.3, 9999.6, 19930.4, 99999.4, 99999.9996, 100000.0,
              123456.0, 1.5e20, 0.0006012, 1.2345e-5, 1.2345e-7, 5e-7, -0.0001, -2.5, -0.0004,
              0.00049999, 3.14159, 1e-300, -123456.789]
    # The page is sent the number format in its config (attention_core.prose's).
    script = ("import { number } from './static/js/lib/config.js';"
              "import { formatNumber } from './static/js/lib/format.js';"
              "import { sigText } from './static/js/draw/workingtex.js';"
              "const xs = JSON.parse(process.argv[1]);"
              "Object.assign(number, JSON.parse(process.argv[2]));"
              "console.log(JSON.stringify(xs.map((x) => [formatNumber(x), sigText(x)])));")
    out = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps(values),
                          json.dumps(NUMBER_FORMAT)],
                         cwd=Path(__file__).resolve().parents[3], capture_output=True,
                         text=True, check=True, timeout=60)
    pages = [[a, b.replace("-", "\u2212")] for a, b in json.loads(out.stdout)]
    assert [[shown(x), shown(x, "exp")] for x in values] == pages


@pytest.mark.parametrize("row, causal, says", [
    (0, True, "Your 1000 is not Σ e^s: that adds e^s of the 1 key query 1 may read."),
    (2, False, "Your 1000 is not Σ e^s: that adds e^s of the 3 keys query 3 may read."),
])
def test_the_sum_hint_counts_the_keys_in_words_that_agree(row, causal, says):
    assert hint({"working.exp_sum": 1000.0}, textbook(row=row, causal=causal)) == says


def test_a_weight_of_0_for_a_key_the_query_reads_says_every_such_key_gets_some():
    """Weight 2 is 4.113 / 90.62 = 0.045: 0 for it says e^s > 0 first, and rounding only
    after (0.045 is 0.0 to 1 decimal, but 0.045 to the 3 the page writes)."""
    assert hint({"working.weights[1]": 0}) == (
        "Your 0.000 gives key 2 (“love”) no weight, but every key the query may read gets a "
        "weight above zero: e^s > 0 for every score s, however negative, so e^s₂ / Σ e^s > 0. "
        "Rounded to the 3 decimals this step is written to, it is not 0 either.")


def test_an_exponential_of_0_for_a_key_the_query_reads():
    """e^s₂ = e^1.414 = 4.113: 0 is no rounding of it, so the hint says only e^s > 0."""
    assert hint({"working.exp[1]": 0}) == (
        "Your 0 gives key 2 (“love”) an e^s of 0, but every key the query may read gets a "
        "weight above zero: e^s > 0 for every score s, however negative.")


def test_a_number_with_decimals_rounded_too_far_is_still_said_to_be_rounded():
    """0.05 for weight 2 (0.045): typed with decimals, the slip is the rounding."""
    assert hint({"working.weights[1]": 0.05}) == (
        "Your 0.050 is this number rounded to 2 decimals; this step is written to 3 decimals.")


def test_an_exponential_with_the_rows_maximum_subtracted():
    """The stable softmax's e^(s − max): the largest scaled score is s₃ = 6/√2 = 4.243, so
    e^(s₁ − max) = e^(2.828 − 4.243) = e^−1.414 = 0.2431, e^(s₂ − max) = e^−2.828 = 0.05911
    and e^(s₃ − max) = e^0 = 1; their sum 1.302."""
    shifted = ("it gives the same weights, since the shift cancels in e^s / Σ e^s, but "
               "this blank asks for")
    assert hint({"working.exp[0]": 0.2431}) == (
        f"Your 0.2431 is e^(s₁ − max s), the exponential with the row's largest score "
        f"subtracted, as a stable softmax computes it: {shifted} e^s₁ itself, unshifted.")
    assert hint({"working.exp[2]": 1}).startswith("Your 1.000 is e^(s₃ − max s), the ")
    assert hint({"working.exp_sum": 1.302}) == (
        f"Your 1.302 adds e^(s − max s), the exponentials with the row's largest score "
        f"subtracted, as a stable softmax computes them: {shifted} Σ e^s itself, unshifted.")


def test_a_hint_writes_its_maths_as_tex_for_the_page_and_its_words_plain():
    """hint_tex: the maths between $ signs, as the page typesets it; hint: the same in plain
    text. A token's $ stays a word in both."""
    r = check(textbook(), {"working.scaled[0]": 4})["working.scaled[0]"]
    assert r.hint_tex == ("Your 4.000 is $q \\cdot k_{1}$ itself: the scaled score divides it "
                          "by $\\sqrt{d_k}$, $\\sqrt{2} = 1.414$.")
    assert r.hint == "Your 4.000 is q·k₁ itself: the scaled score divides it by √d_k, √2 = 1.414."
    e = Exercise(0, "row", ("I", "$5", "tea"), X, (HEAD,), 2, ROW)
    r = check(e, {"working.dots[0]": 2})["working.dots[0]"]  # q·k₂ = 2·0 + 2·1
    assert r.hint_tex == ("Your 2.000 is $q \\cdot k$ with key 2 (“\\$5”); this blank is key 1 "
                          "(“I”).")
    assert r.hint == "Your 2.000 is q·k with key 2 (“$5”); this blank is key 1 (“I”)."
