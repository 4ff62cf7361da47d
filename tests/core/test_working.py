"""attention_core.working: the hand calculation of one row (its entropy and the size of the
softmax's Jacobian included), checked by hand and against plain loops; with today's additions
(biases, RoPE, ALiBi, a window and sinks) against tests/reference_modern."""

import math

import numpy as np
import pytest

from attention_core import AttentionInputError, attention, working
from tests.core.helpers import (
    COS1,
    I2,
    SIN1,
    F,
    T,
    close,
    lists,
    rng_biases,
    rng_problem,
)
from tests.reference import reference_entropy, reference_jacobian_norm
from tests.reference_modern import (
    reference_modern,
)

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


# ---- the row working ----


def test_working_of_every_option_together():
    p = dict(rng_problem(14, n=4, m=5, d_k=4), **rng_biases(15))
    r = attention(**p, rope_base=100, position_offset=2, alibi_slope=0.5, window=2, sinks=1,
                  causal=True)
    ref = reference_modern(**lists(p), rope_base=100, position_offset=2, alibi_slope=0.5,
                           window=2, sinks=1, causal=True)
    w = working(r, 3)
    # Biases: q_unbiased = x_i·W_Q, and q_unbiased + b_Q is q before its rotation.
    close(w.q_unbiased, p["X"][3] @ p["W_Q"])
    close(w.q_unbiased + w.b_Q, ref["Q_unrotated"][3])
    close(w.k_unbiased, p["X_kv"] @ p["W_K"])
    close(w.k_unbiased + w.b_K, ref["K_unrotated"])
    close(w.v_unbiased + w.b_V, ref["V"])
    # Rotation: query 4 sits at position 2 + 3, the keys at 2 … 6; angles = position·freq.
    assert w.position == 5 and list(w.positions_k) == [2, 3, 4, 5, 6]
    close(w.frequencies, [1, 0.1])
    close(w.angles, [5, 0.5])
    close(w.angles_k, [[p_j, p_j * 0.1] for p_j in range(2, 7)])
    close(w.q_unrotated, ref["Q_unrotated"][3])
    close(w.k_unrotated, ref["K_unrotated"])
    close(w.q, ref["Q"][3])
    close(w.k, ref["K"])
    # ALiBi: −0.5·|3 − j|, inside the scaled scores of the keys the row may read.
    assert w.bias.tolist() == [-1.5, -1, -0.5, 0, -0.5] and w.alibi_slope == 0.5
    close(w.scaled[w.allowed], (r.scale * w.dots + w.bias)[w.allowed])
    # Window 2 and causal: keys 2, 3; sink 0 readable too.
    assert w.window == 2 and w.in_window.tolist() == [F, F, T, T, T]
    assert w.sinks == 1 and w.sink.tolist() == [T, F, F, F, F]
    assert w.allowed.tolist() == [T, F, T, T, F]
    close(w.weights, ref["weights"][3])


def test_working_without_the_new_options_leaves_their_fields_none():
    w = working(attention(**rng_problem(16)), 1)
    for name in ("q_unbiased", "b_Q", "k_unbiased", "b_K", "v_unbiased", "b_V", "q_unrotated",
                 "k_unrotated", "position", "positions_k", "frequencies", "angles", "angles_k",
                 "bias", "alibi_slope", "window", "in_window", "sinks", "sink"):
        assert getattr(w, name) is None, name


def test_working_with_rope_by_hand():
    X = [[1.0, 0.0], [1.0, 0.0]]
    w = working(attention(X, I2, I2, I2, rope_base=10000, scale=1), 1)
    assert w.position == 1 and list(w.positions_k) == [0, 1]
    assert w.frequencies.tolist() == [1.0] and w.angles.tolist() == [1.0]  # 1 radian
    assert w.angles_k.tolist() == [[0.0], [1.0]]
    assert w.q_unrotated.tolist() == [1, 0]
    close(w.q, [COS1, SIN1], 1e-15)
    close(w.dots, [COS1, 1], 1e-15)
