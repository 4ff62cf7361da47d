"""attention_core.working: the hand calculation of one row, checked by hand."""

import math

import numpy as np
import pytest

from attention_core import AttentionInputError, attention, working

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
    assert np.isfinite(w.exp_shifted).all() and w.exp_shifted_sum == 1.0  # e^(0-1000) underflows to 0, e^0 = 1


@pytest.mark.parametrize("row", [-1, 3, 1.0, True, "2"])
def test_row_out_of_range_is_refused(row):
    with pytest.raises(AttentionInputError) as info:
        working(attention(**CAT), row)
    assert info.value.field == "row"
