"""attention_core.working: the hand calculation of one row (its entropy and the size of the
softmax's Jacobian included), checked by hand and against plain loops."""

import math

import numpy as np
import pytest

from attention_core import AttentionInputError, attention, working
from tests.reference import reference_entropy, reference_jacobian_norm

CAT = dict(X=[[1, 0], [0, 1], [1, 1]], W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]],
           W_V=[[1, 0], [0, 2]])


def test_row_three_of_the_default_example_matches_the_textbook_numbers():
    w = working(attention(**CAT), 2)
    assert w.q.tolist() == [2, 2]
    # q_3 = (2, 2); k = (2,0), (0,1), (2,1): products term by term.
    assert w.products.tolist() == [[4, 0], [0, 2], [4, 2]]
    assert w.dots.tolist() == [4, 2, 6]
    assert w.scaled.tolist() == pytest.approx([4 / math.sqrt(2), 2 / math.sqrt(2),
                                               6 / math.sqrt(2)])
    assert np.round(w.exp, 2).tolist() == [16.92, 4.11, 69.59]
    assert round(w.exp_sum, 2) == 90.62 and not w.exp_overflow
    assert np.round(w.weights, 3).tolist() == [0.187, 0.045, 0.768]
    assert np.round(w.z, 3).tolist() == [0.955, 1.627]
    np.testing.assert_allclose(w.terms.sum(axis=0), w.z, atol=1e-15)
    np.testing.assert_allclose(w.exp_shifted / w.exp_shifted_sum, w.weights, atol=1e-15)
    assert w.shift == pytest.approx(6 / math.sqrt(2))


def test_masked_keys_show_zero_exponential_and_weight():
    w = working(attention(**CAT, causal=True), 1)
    assert w.allowed.tolist() == [True, True, False]
    assert w.scaled[2] == -np.inf and w.exp[2] == 0 and w.weights[2] == 0
    assert w.exp_sum == pytest.approx(2 * math.exp(2 / math.sqrt(2)))


def test_huge_scores_say_the_textbook_exponential_overflows():
    r = attention([[0.0], [1.0]], [[1.0]], [[1000.0]], [[1.0]], scale=1)
    w = working(r, 1)
    assert w.exp_overflow and w.exp_sum == math.inf
    assert w.weights.tolist() == pytest.approx([0.0, 1.0])
    # e^(0-1000) underflows to 0, e^0 = 1
    assert np.isfinite(w.exp_shifted).all() and w.exp_shifted_sum == 1.0


@pytest.mark.parametrize("row", [-1, 3, 1.0, True, "2"])
def test_row_out_of_range_is_refused(row):
    with pytest.raises(AttentionInputError) as info:
        working(attention(**CAT), row)
    assert info.value.field == "row"


# ---- entropy and the Jacobian's size ----


def hand_weights_of_row_three():
    """q_3 = (1, 1)·W_Q = (2, 2); k_j = rows of X·W_K = (2, 0), (0, 1), (2, 1)."""
    q = [2, 2]
    keys = [[2, 0], [0, 1], [2, 1]]
    scaled = [sum(q[c] * k[c] for c in range(2)) / math.sqrt(2) for k in keys]  # 4, 2, 6 / √2
    exps = [math.exp(s) for s in scaled]
    total = sum(exps)
    return [e / total for e in exps]


def test_the_hand_weights_of_row_three_are_the_known_ones():
    assert [round(p, 5) for p in hand_weights_of_row_three()] == [0.18669, 0.04539, 0.76792]


def test_engine_row_three_entropy_and_jacobian_norm_by_hand():
    a = hand_weights_of_row_three()
    w = working(attention(**CAT), 2)
    assert w.entropy == pytest.approx(reference_entropy(a), rel=1e-12)
    assert w.jacobian_norm == pytest.approx(reference_jacobian_norm(a), rel=1e-12)
    # Written out: −(0.18669 ln 0.18669 + 0.04539 ln 0.04539 + 0.76792 ln 0.76792).
    assert round(w.entropy, 4) == 0.6565 and round(w.jacobian_norm, 4) == 0.3168


def test_a_row_with_no_permitted_key_has_entropy_and_jacobian_norm_zero():
    mask = [[False] * 3, [True] * 3, [True] * 3]
    w = working(attention(**CAT, mask=mask), 0)
    assert w.weights.tolist() == [0, 0, 0]
    assert w.entropy == 0.0 and w.jacobian_norm == 0.0


def test_a_row_reading_one_key_has_entropy_and_jacobian_norm_zero():
    w = working(attention(**CAT, causal=True), 0)  # the first token reads only itself
    assert w.weights.tolist() == [1, 0, 0]
    assert w.entropy == 0.0 and w.jacobian_norm == 0.0


def test_uniform_row_has_entropy_ln_n():
    # Equal keys give equal scores: row 0 reads all three keys with weight 1/3.
    w = working(attention([[1.0], [1.0], [1.0]], [[1.0]], [[1.0]], [[1.0]]), 0)
    a = [1 / 3] * 3
    assert w.entropy == pytest.approx(math.log(3), rel=1e-12)
    assert w.jacobian_norm == pytest.approx(reference_jacobian_norm(a), rel=1e-12)
