"""attention_core.positions: the sinusoidal positional encoding, by formula and by hand;
rotary positions (RoPE) and ALiBi's biases by hand and against tests/reference_modern."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import attention, multi_head_attention
from attention_core.positions import alibi_bias, alibi_slopes, rope_frequencies, rotate, sinusoidal
from tests.core.helpers import (
    COS1,
    I2,
    SIN1,
    agree,
    close,
    lists,
    rng_biases,
    rng_problem,
)
from tests.reference import reference_sinusoidal
from tests.reference_modern import (
    paper_alibi_slopes,
    reference_heads,
    reference_modern,
    rotate_complex,
)


@pytest.mark.parametrize("n, d_model", [(1, 1), (5, 4), (7, 5), (3, 16)])
def test_sinusoidal_matches_the_paper_formula(n, d_model):
    np.testing.assert_allclose(sinusoidal(n, d_model), reference_sinusoidal(n, d_model),
                               rtol=0, atol=1e-15)


def test_sinusoidal_first_rows_by_hand():
    pe = sinusoidal(2, 2)
    assert pe[0].tolist() == [0.0, 1.0]  # sin 0, cos 0
    assert pe[1].tolist() == pytest.approx([math.sin(1), math.cos(1)])


# ---- rotary positions (RoPE) ----


def test_rope_by_hand_two_identical_tokens_at_positions_0_and_1():
    # d_k = 2, θ = 10000: pair 0 turns by p·10000^0 = p radians. Both tokens project to (1, 0).
    X = [[1.0, 0.0], [1.0, 0.0]]
    r = attention(X, I2, I2, I2, rope_base=10000, scale=1)
    assert r.Q_unrotated.tolist() == [[1, 0], [1, 0]]
    assert r.K_unrotated.tolist() == [[1, 0], [1, 0]]
    # q_0 is not turned; q_1 is (1, 0) turned by 1 radian: (cos 1, sin 1).
    close(r.Q, [[1, 0], [COS1, SIN1]], 1e-15)
    close(r.K, [[1, 0], [COS1, SIN1]], 1e-15)
    # The scores see only the distance: 1 on the diagonal, cos 1 one step apart.
    close(r.scores, [[1, COS1], [COS1, 1]], 1e-15)
    assert r.V.tolist() == [[1, 0], [1, 0]]  # values are not rotated


def test_rope_by_hand_offset_5_turns_q_but_not_the_scores():
    X = [[1.0, 0.0], [1.0, 0.0]]
    r = attention(X, I2, I2, I2, rope_base=10000, position_offset=5, scale=1)
    # Positions 5 and 6: (cos 5, sin 5) and (cos 6, sin 6).
    close(r.Q, [[0.28366218546322625, -0.9589242746631385],
                [0.960170286650366, -0.27941549819892586]], 1e-15)
    close(r.scores, [[1, COS1], [COS1, 1]], 1e-15)


def test_rope_by_hand_second_pair_turns_slower():
    # d_k = 4, θ = 100: pair 1 has frequency 100^(−2/4) = 0.1, so at p = 1 it turns by 0.1.
    close(rope_frequencies(4, 100), [1, 0.1], 1e-15)
    close(rotate(np.array([[1.0, 0.0, 1.0, 0.0]]), [1], 100),
          [[COS1, SIN1, 0.9950041652780258, 0.09983341664682815]], 1e-15)


@pytest.mark.parametrize("d_k, base", [(2, 10000), (6, 10000), (8, 500), (4, 2.5)])
def test_rope_frequencies_and_rotate_match_complex_numbers(d_k, base):
    close(rope_frequencies(d_k, base), [base ** (-2 * c / d_k) for c in range(d_k // 2)])
    x = np.random.default_rng(d_k).standard_normal((3, d_k))
    positions = [0, 7, 40]
    close(rotate(x, positions, base),
          [rotate_complex(row, p, base) for row, p in zip(x.tolist(), positions, strict=True)])


@pytest.mark.parametrize("base, offset, m", [(10000, 0, None), (10000, 3, None), (100, 0, 5),
                                             (2.5, 11, 2), (1e6, 0, 4)])
def test_rope_matches_the_complex_number_reference(base, offset, m):
    p = rng_problem(int(base) + offset, n=4, m=m, d_k=6)
    r = attention(**p, rope_base=base, position_offset=offset)
    ref = reference_modern(**lists(p), rope_base=base, position_offset=offset)
    agree(r, ref)
    close(r.Q_unrotated, ref["Q_unrotated"])
    close(r.K_unrotated, ref["K_unrotated"])
    source = p.get("X_kv", p["X"])
    close(r.Q_unrotated, p["X"] @ p["W_Q"])  # before the rotation
    close(r.K_unrotated, source @ p["W_K"])
    close(r.V, source @ p["W_V"])  # values are not rotated
    assert r.rope_base == base and r.position_offset == offset


def test_rope_rotates_after_the_biases():
    p = dict(rng_problem(4, m=3), **rng_biases(5))
    r = attention(**p, rope_base=10000, position_offset=2)
    close(r.Q_unrotated, p["X"] @ p["W_Q"] + p["b_Q"])
    close(r.K_unrotated, p["X_kv"] @ p["W_K"] + p["b_K"])
    agree(r, reference_modern(**lists(p), rope_base=10000, position_offset=2))


def test_without_rope_q_and_k_are_not_rotated_and_the_unrotated_fields_are_none():
    r = attention(**rng_problem(6))
    assert r.Q_unrotated is None and r.K_unrotated is None and r.rope_base is None


# The rotation keeps lengths, so |q_i·k_j| ≤ |q_i|·|k_j|: the shift test measures a score's
# change against that product. Entries of magnitude 0.5 to 2 keep the product of order 1
# (no row collapses to a tiny vector by accident), and offsets up to 10^6 turn pair 0 through
# up to 10^6 radians, where float64 can still hold the angle to about 1e-10.
magnitude = st.tuples(st.sampled_from([-1.0, 1.0]), st.floats(0.5, 2)).map(lambda t: t[0] * t[1])


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_shifting_every_position_leaves_the_rope_scores_unchanged(data):
    n, m, d_model = (data.draw(st.integers(1, 4)) for _ in range(3))
    d_k = 2 * data.draw(st.integers(1, 3))

    def mat(r, c):
        return data.draw(arrays(np.float64, (r, c), elements=magnitude))

    p = dict(X=mat(n, d_model), W_Q=mat(d_model, d_k), W_K=mat(d_model, d_k),
             W_V=mat(d_model, 2), rope_base=data.draw(st.sampled_from([10000.0, 500.0, 3.0])))
    if data.draw(st.booleans()):
        p["X_kv"] = mat(m, d_model)
    shift = data.draw(st.integers(1, 10**6))
    a = attention(**p)
    b = attention(**p, position_offset=shift)
    size = np.linalg.norm(a.Q, axis=1)[:, np.newaxis] * np.linalg.norm(a.K, axis=1)
    assert (np.abs(b.scores - a.scores) <= 1e-9 * size).all()


def test_sinusoidal_offset_starts_the_table_at_that_position():
    np.testing.assert_allclose(sinusoidal(3, 6, offset=4), reference_sinusoidal(7, 6)[4:],
                               rtol=0, atol=1e-15)
    assert sinusoidal(2, 4, offset=0).tolist() == sinusoidal(2, 4).tolist()


# ---- ALiBi ----


def test_alibi_bias_by_hand():
    assert alibi_bias(3, 3, 0.5).tolist() == [[0, -0.5, -1], [-0.5, 0, -0.5], [-1, -0.5, 0]]
    assert alibi_bias(2, 3, 0.25).tolist() == [[0, -0.25, -0.5], [-0.25, 0, -0.25]]


def test_alibi_on_equal_scores_lets_nearer_keys_win_by_hand():
    # W_Q = 0 makes every score 0, so the weights are the softmax of the bias alone.
    X = [[1.0], [2.0], [3.0]]
    r = attention(X, [[0.0]], [[1.0]], [[1.0]], alibi_slope=0.5)
    assert r.bias.tolist() == [[0, -0.5, -1], [-0.5, 0, -0.5], [-1, -0.5, 0]]
    assert r.scaled_scores.tolist() == r.bias.tolist() and r.alibi_slope == 0.5
    e = [1, math.exp(-0.5), math.exp(-1)]  # row 1: keys 0, 1, 2 steps away
    close(r.weights[0], [x / sum(e) for x in e], 1e-15)
    assert np.round(r.weights[0], 4).tolist() == [0.5065, 0.3072, 0.1863]


def test_alibi_is_added_after_scaling_and_before_the_mask():
    # Every score is 1; scale 2 doubles it and the bias is added after: 2 − m·|i − j|.
    X = [[1.0], [1.0], [1.0]]
    r = attention(X, [[1.0]], [[1.0]], [[1.0]], scale=2, alibi_slope=0.5, causal=True)
    assert r.scaled_scores.tolist() == [[2, -np.inf, -np.inf], [1.5, 2, -np.inf],
                                        [1, 1.5, 2]]
    assert r.bias.tolist() == alibi_bias(3, 3, 0.5).tolist()  # the bias, masked or not
    e = [math.exp(1.5), math.exp(2)]
    close(r.weights[1], [e[0] / sum(e), e[1] / sum(e), 0], 1e-15)


@pytest.mark.parametrize("m, causal", [(None, False), (None, True), (5, False), (2, True)])
def test_alibi_matches_the_reference(m, causal):
    p = rng_problem(7, n=4, m=m)
    r = attention(**p, alibi_slope=0.3, causal=causal)
    ref = reference_modern(**lists(p), alibi_slope=0.3, causal=causal)
    agree(r, ref)
    close(r.bias, ref["bias"])


@pytest.mark.parametrize("H", [1, 2, 4, 8, 16])
def test_alibi_slopes_for_a_power_of_two_are_2_to_the_minus_8_h_over_H(H):
    assert list(alibi_slopes(H)) == pytest.approx([2 ** (-8 * (h + 1) / H) for h in range(H)],
                                                  rel=1e-15)


def test_alibi_slopes_by_hand():
    assert list(alibi_slopes(1)) == [0.00390625]
    assert list(alibi_slopes(4)) == [0.25, 0.0625, 0.015625, 0.00390625]
    # H = 3: P = 2 gives 2^-4, 2^-8; then every other slope of 4 heads (0.25, 0.015625),
    # the first 3 − 2 of them.
    assert list(alibi_slopes(3)) == [0.0625, 0.00390625, 0.25]
    # H = 6: P = 4 gives 2^-2 … 2^-8; then 0.5, 0.125 of 8 heads' 0.5, 0.25, 0.125, ….
    assert list(alibi_slopes(6)) == [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]


@pytest.mark.parametrize("H", [3, 5, 6, 7, 12, 16])
def test_alibi_slopes_follow_the_papers_rule(H):
    assert list(alibi_slopes(H)) == pytest.approx(paper_alibi_slopes(H), rel=1e-15)


def test_alibi_multi_head_gives_each_head_its_slope():
    slopes = [0.5, 0.125, 0.0]
    heads = [tuple(rng_problem(h).values())[1:] for h in range(3)]
    X = rng_problem(0)["X"]
    W_O = np.random.default_rng(1).standard_normal((6, 3))
    r = multi_head_attention(X, heads, W_O, alibi_slopes=slopes, causal=True)
    ref = reference_heads(lists(X), [dict(zip(("W_Q", "W_K", "W_V"), lists(h), strict=True))
                                     for h in heads], lists(W_O), alibi_slopes=slopes,
                          causal=True)
    close(r.output, ref["output"])
    for h, head in enumerate(r.heads):
        assert head.alibi_slope == slopes[h]
        close(head.bias, ref["heads"][h]["bias"])
