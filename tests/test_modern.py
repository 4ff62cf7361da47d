"""attention_core with today's additions — biases, RoPE, ALiBi, grouped-query heads, sliding
windows and sinks — against hand-worked numbers and the independent reference_modern."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import AttentionInputError, attention, multi_head_attention, working
from attention_core.positions import alibi_bias, alibi_slopes, rope_frequencies, rotate, sinusoidal
from tests.reference import reference_sinusoidal
from tests.reference_modern import (
    paper_alibi_slopes,
    reference_grouped,
    reference_heads,
    reference_modern,
    rotate_complex,
)

I2 = [[1.0, 0.0], [0.0, 1.0]]
COS1, SIN1 = 0.5403023058681398, 0.8414709848078965  # cos 1, sin 1 (1 radian)


def lists(value):
    """Arrays (also inside dicts and lists) as nested lists, for the reference."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [lists(v) for v in value]
    return value


def close(actual, expected, tol=1e-12):
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


def agree(result, ref, names=("Q", "K", "V", "scores", "scaled_scores", "weights", "output")):
    """The engine's result and the reference's agree to 1e-12 in every named array."""
    for name in names:
        close(getattr(result, name), ref[name])
    assert result.mask.tolist() == ref["allowed"]


def rng_problem(seed, n=3, m=None, d_model=3, d_k=4, d_v=2):
    """A fixed random problem: X (n, d_model), X_kv (m, d_model) when m is given, weights."""
    rng = np.random.default_rng(seed)
    p = dict(X=rng.standard_normal((n, d_model)), W_Q=rng.standard_normal((d_model, d_k)),
             W_K=rng.standard_normal((d_model, d_k)), W_V=rng.standard_normal((d_model, d_v)))
    if m is not None:
        p["X_kv"] = rng.standard_normal((m, d_model))
    return p


def rng_biases(seed, d_k=4, d_v=2):
    rng = np.random.default_rng(seed)
    return dict(b_Q=rng.standard_normal(d_k), b_K=rng.standard_normal(d_k),
                b_V=rng.standard_normal(d_v))


# ---- biases ----


def test_biases_are_added_to_every_row_of_q_k_v_by_hand():
    # X = W = I, so X·W = I; b_Q = (1, 0), b_K = (0, 2), b_V = (10, 20).
    r = attention(I2, I2, I2, I2, b_Q=[1, 0], b_K=[0, 2], b_V=[10, 20])
    assert r.Q.tolist() == [[2, 0], [1, 1]]
    assert r.K.tolist() == [[1, 2], [0, 3]]
    assert r.V.tolist() == [[11, 20], [10, 21]]
    assert r.scores.tolist() == [[2, 0], [3, 3]]  # Q·Kᵀ of the biased projections
    assert r.XW_Q.tolist() == I2 and r.XW_K.tolist() == I2 and r.XW_V.tolist() == I2
    assert r.b_Q.tolist() == [1, 0] and r.b_K.tolist() == [0, 2] and r.b_V.tolist() == [10, 20]


def test_without_biases_the_bias_fields_are_none():
    r = attention(I2, I2, I2, I2, b_K=[0, 2])
    assert r.b_Q is None and r.b_V is None and r.XW_Q is None and r.XW_V is None
    assert r.XW_K.tolist() == I2


@pytest.mark.parametrize("m", [None, 4])
def test_biases_single_head_match_the_reference(m):
    p = dict(rng_problem(1, m=m), **rng_biases(2))
    agree(attention(**p, causal=True), reference_modern(**lists(p), causal=True))


def test_biases_multi_head_match_the_reference():
    heads = [dict(rng_problem(h, d_k=2 + h, d_v=2), **rng_biases(10 + h, d_k=2 + h, d_v=2))
             for h in range(3)]
    X = heads[0].pop("X")
    for head in heads[1:]:
        head.pop("X")
    W_O = np.random.default_rng(9).standard_normal((6, 2))
    r = multi_head_attention(X, heads, W_O)
    ref = reference_heads(lists(X), lists(heads), lists(W_O))
    close(r.concat, ref["concat"])
    close(r.output, ref["output"])
    for got, want in zip(r.heads, ref["heads"], strict=True):
        agree(got, want)


def test_b_k_adds_one_number_per_row_so_the_weights_stay_b_q_changes_them():
    p = rng_problem(3)
    plain = attention(**p)
    b_K = np.array([0.5, -1.0, 2.0, 0.25])
    with_b_K = attention(**p, b_K=b_K)
    # Score (i, j) gains q_i·b_K, the same for every key j of row i.
    gain = with_b_K.scores - plain.scores
    close(gain, np.repeat((plain.Q @ b_K)[:, np.newaxis], 3, axis=1))
    close(with_b_K.weights, plain.weights)
    assert not np.allclose(attention(**p, b_Q=b_K).weights, plain.weights)


bias_el = st.floats(-3, 3, allow_nan=False)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_any_b_k_leaves_the_weights_unchanged(data):
    n, d_model, d_k = (data.draw(st.integers(1, 4)) for _ in range(3))
    p = dict(X=data.draw(arrays(np.float64, (n, d_model), elements=bias_el)),
             W_Q=data.draw(arrays(np.float64, (d_model, d_k), elements=bias_el)),
             W_K=data.draw(arrays(np.float64, (d_model, d_k), elements=bias_el)),
             W_V=data.draw(arrays(np.float64, (d_model, 2), elements=bias_el)),
             causal=data.draw(st.booleans()))
    b_K = data.draw(arrays(np.float64, (d_k,), elements=bias_el))
    close(attention(**p, b_K=b_K).weights, attention(**p).weights)


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


# ---- grouped-query heads ----


def gqa_problem(seed, H, G, n=3, m=None, d_model=3, d_k=2, d_v=2, biases=False):
    """H query heads {W_Q(, b_Q)}, G key/value heads {W_K, W_V(, b_K, b_V)}, X, X_kv, W_O."""
    rng = np.random.default_rng(seed)
    queries = [{"W_Q": rng.standard_normal((d_model, d_k))} for _ in range(H)]
    kv = [{"W_K": rng.standard_normal((d_model, d_k)), "W_V": rng.standard_normal((d_model, d_v))}
          for _ in range(G)]
    if biases:
        for q in queries:
            q["b_Q"] = rng.standard_normal(d_k)
        for g in kv:
            g.update(b_K=rng.standard_normal(d_k), b_V=rng.standard_normal(d_v))
    X = rng.standard_normal((n, d_model))
    X_kv = None if m is None else rng.standard_normal((m, d_model))
    return dict(X=X, heads=queries, kv_heads=kv, W_O=rng.standard_normal((H * d_v, 2)),
                X_kv=X_kv)


@pytest.mark.parametrize("H, G, expected", [(4, 1, (0, 0, 0, 0)), (4, 2, (0, 0, 1, 1)),
                                            (6, 3, (0, 0, 1, 1, 2, 2)), (4, 4, (0, 1, 2, 3))])
def test_query_head_h_reads_kv_head_floor_h_g_over_h(H, G, expected):
    r = multi_head_attention(**gqa_problem(H, H, G))
    assert r.kv_heads == expected
    for h, head in enumerate(r.heads):  # heads that share a key/value head share K and V
        first = r.heads[expected.index(expected[h])]
        assert head.K.tolist() == first.K.tolist() and head.V.tolist() == first.V.tolist()


def test_without_kv_heads_each_head_is_its_own_kv_head():
    p = gqa_problem(0, 3, 3)
    heads = [(q["W_Q"], kv["W_K"], kv["W_V"]) for q, kv in zip(p["heads"], p["kv_heads"],
                                                                strict=True)]
    assert multi_head_attention(p["X"], heads, p["W_O"]).kv_heads == (0, 1, 2)


@pytest.mark.parametrize("H, G, m, biases", [(4, 1, None, False), (4, 2, None, True),
                                             (4, 2, 5, True), (3, 3, None, True),
                                             (6, 2, 2, False)])
def test_grouped_query_matches_repeating_k_and_v(H, G, m, biases):
    p = gqa_problem(10 * H + G, H, G, m=m, biases=biases)
    r = multi_head_attention(**p, causal=True)
    ref = reference_grouped(lists(p["X"]), lists(p["heads"]), lists(p["kv_heads"]),
                            lists(p["W_O"]), X_kv=lists(p["X_kv"]), causal=True)
    close(r.concat, ref["concat"])
    close(r.output, ref["output"])
    for got, want in zip(r.heads, ref["heads"], strict=True):
        agree(got, want)


def test_heads_may_be_bare_w_q_matrices_and_kv_heads_pairs():
    p = gqa_problem(5, 4, 2)
    bare = multi_head_attention(p["X"], [q["W_Q"] for q in p["heads"]], p["W_O"],
                                kv_heads=[(g["W_K"], g["W_V"]) for g in p["kv_heads"]])
    np.testing.assert_array_equal(bare.output, multi_head_attention(**p).output)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_g_equal_to_h_is_ordinary_multi_head_attention(H, seed, biases, cross):
    p = gqa_problem(seed, H, H, m=4 if cross else None, biases=biases)
    grouped = multi_head_attention(**p, causal=True)
    ordinary = [{**q, **kv} for q, kv in zip(p["heads"], p["kv_heads"], strict=True)]
    plain = multi_head_attention(p["X"], ordinary, p["W_O"], X_kv=p["X_kv"], causal=True)
    np.testing.assert_array_equal(grouped.output, plain.output)
    for a, b in zip(grouped.heads, plain.heads, strict=True):
        np.testing.assert_array_equal(a.weights, b.weights)


# ---- sliding window and sinks ----

T, F = True, False


def test_window_with_causal_reads_the_w_most_recent_keys_itself_included():
    r = attention(np.eye(5), np.eye(5), np.eye(5), np.eye(5), causal=True, window=2)
    assert r.mask.tolist() == [[T, F, F, F, F], [T, T, F, F, F], [F, T, T, F, F],
                               [F, F, T, T, F], [F, F, F, T, T]]
    assert r.window == 2 and r.sinks == 0


def test_sinks_stay_readable_outside_the_window():
    r = attention(np.eye(5), np.eye(5), np.eye(5), np.eye(5), causal=True, window=2, sinks=1)
    assert r.mask.tolist() == [[T, F, F, F, F], [T, T, F, F, F], [T, T, T, F, F],
                               [T, F, T, T, F], [T, F, F, T, T]]
    assert r.sinks == 1


def test_window_without_causal_is_a_band_of_both_sides():
    r = attention(np.eye(4), np.eye(4), np.eye(4), np.eye(4), window=2, sinks=2)
    assert r.mask.tolist() == [[T, T, F, F], [T, T, T, F], [T, T, T, T], [T, T, T, T]]


def test_custom_mask_still_applies_to_sinks_and_window():
    mask = [[T, T, T, T], [F, T, T, T], [F, T, T, T], [T, T, F, T]]
    r = attention(np.eye(4), np.eye(4), np.eye(4), np.eye(4), window=2, sinks=1, mask=mask)
    assert r.mask.tolist() == [[T, T, F, F], [F, T, T, F], [F, T, T, T], [T, F, F, T]]


def test_window_in_cross_attention_compares_query_and_key_indices():
    # n = 2 queries, m = 5 keys: query i reads key j when |i − j| < 2.
    p = rng_problem(8, n=2, m=5)
    r = attention(**p, window=2)
    assert r.mask.tolist() == [[T, T, F, F, F], [T, T, T, F, F]]
    agree(r, reference_modern(**lists(p), window=2))


def test_rows_the_window_leaves_without_a_key_are_zero_with_a_warning():
    # n = 4 queries, m = 2 keys, window 1: only key i is readable, and queries 3, 4 have none.
    p = rng_problem(9, n=4, m=2)
    r = attention(**p, window=1)
    assert r.mask.tolist() == [[T, F], [F, T], [F, F], [F, F]]
    assert r.weights[2:].tolist() == [[0, 0], [0, 0]]
    assert r.output[2:].tolist() == [[0, 0], [0, 0]]
    assert r.warnings == (
        "Query 3 has no key it may read, so its weights and output are all 0.",
        "Query 4 has no key it may read, so its weights and output are all 0.")
    agree(r, reference_modern(**lists(p), window=1))


@pytest.mark.parametrize("window, sinks, causal, m", [(1, 0, False, None), (2, 1, True, None),
                                                      (3, 2, False, 6), (2, 3, True, 3)])
def test_window_and_sinks_match_the_reference(window, sinks, causal, m):
    p = rng_problem(window + 10 * sinks, n=5, m=m)
    options = dict(window=window, sinks=sinks, causal=causal)
    agree(attention(**p, **options), reference_modern(**lists(p), **options))


# ---- properties: what changes nothing ----

el = st.floats(-2, 2, allow_nan=False)


@st.composite
def problems(draw, even_d_k=False):
    """Every option at random, as keyword arguments of ``attention``."""
    n, d_model = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    m = draw(st.integers(1, 4)) if draw(st.booleans()) else None
    d_k = 2 * draw(st.integers(1, 2)) if even_d_k else draw(st.integers(1, 4))
    d_v = draw(st.integers(1, 3))

    def mat(r, c):
        return draw(arrays(np.float64, (r, c), elements=el))

    def maybe(d):
        return mat(1, d)[0] if draw(st.booleans()) else None

    p = dict(X=mat(n, d_model), W_Q=mat(d_model, d_k), W_K=mat(d_model, d_k),
             W_V=mat(d_model, d_v), X_kv=None if m is None else mat(m, d_model),
             causal=draw(st.booleans()), b_Q=maybe(d_k), b_K=maybe(d_k), b_V=maybe(d_v))
    if draw(st.booleans()):
        p["mask"] = draw(arrays(np.bool_, (n, n if m is None else m)))
    if draw(st.booleans()):
        p["alibi_slope"] = draw(st.floats(0, 2))
    if draw(st.booleans()):
        p["window"] = draw(st.integers(1, 5))
    p["sinks"] = draw(st.integers(0, 3))
    return p


def same(a, b):
    """Two results are identical, to the last bit."""
    for name in ("Q", "K", "V", "scores", "scaled_scores", "weights", "output"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(a.mask, b.mask)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_alibi_with_slope_zero_is_plain_attention(p):
    p.pop("alibi_slope", None)
    same(attention(**p, alibi_slope=0.0), attention(**p))


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_alibi_slopes_all_zero_is_plain_multi_head_attention(H, seed):
    p = gqa_problem(seed, H, H)
    heads = [(q["W_Q"], kv["W_K"], kv["W_V"]) for q, kv in zip(p["heads"], p["kv_heads"],
                                                                strict=True)]
    a = multi_head_attention(p["X"], heads, p["W_O"], alibi_slopes=[0.0] * H)
    b = multi_head_attention(p["X"], heads, p["W_O"])
    np.testing.assert_array_equal(a.output, b.output)


@settings(max_examples=100, deadline=None)
@given(problems(), st.integers(0, 3))
def test_a_window_of_max_n_m_or_more_changes_nothing(p, extra):
    p.pop("window", None)
    n, m = p["X"].shape[0], (p["X"] if p["X_kv"] is None else p["X_kv"]).shape[0]
    same(attention(**p, window=max(n, m) + extra), attention(**p))


@settings(max_examples=100, deadline=None)
@given(problems())
def test_sinks_zero_changes_nothing(p):
    window = p.pop("window", None)
    p.pop("sinks")
    same(attention(**p, window=window, sinks=0), attention(**p, window=window))


@settings(max_examples=50, deadline=None)
@given(problems())
def test_sinks_without_a_window_change_nothing(p):
    p.pop("window", None)
    sinks = p.pop("sinks")
    same(attention(**p, sinks=sinks), attention(**p))


@settings(max_examples=150, deadline=None)
@given(problems(even_d_k=True), st.booleans(), st.sampled_from([10000.0, 100.0, 2.5]),
       st.integers(0, 50))
def test_every_option_together_agrees_with_the_reference(p, rope, base, offset):
    if rope:
        p.update(rope_base=base, position_offset=offset)
    r = attention(**p)
    ref = reference_modern(**lists(p))
    agree(r, ref)
    if rope:
        close(r.Q_unrotated, ref["Q_unrotated"])
        close(r.K_unrotated, ref["K_unrotated"])
    if "alibi_slope" in p:
        close(r.bias, ref["bias"])


# ---- everything at once ----


def test_rope_window_sinks_causal_cross_attention_and_biases_together():
    p = dict(rng_problem(11, n=6, m=7, d_k=4), **rng_biases(12))
    options = dict(rope_base=500, position_offset=3, window=3, sinks=2, causal=True,
                   alibi_slope=0.25)
    r = attention(**p, **options)
    ref = reference_modern(**lists(p), **options)
    agree(r, ref)
    close(r.Q_unrotated, ref["Q_unrotated"])
    close(r.K_unrotated, ref["K_unrotated"])
    close(r.bias, ref["bias"])


def test_grouped_heads_with_biases_rope_alibi_window_and_sinks_together():
    p = gqa_problem(13, 4, 2, n=5, m=6, d_k=4, biases=True)
    options = dict(rope_base=10000, position_offset=7, window=3, sinks=1, causal=True,
                   scale=0.7, alibi_slopes=[0.5, 0.25, 0.125, 0.0625])
    r = multi_head_attention(**p, **options)
    ref = reference_grouped(lists(p["X"]), lists(p["heads"]), lists(p["kv_heads"]),
                            lists(p["W_O"]), X_kv=lists(p["X_kv"]), **options)
    assert r.kv_heads == (0, 0, 1, 1)
    close(r.concat, ref["concat"])
    close(r.output, ref["output"])
    for got, want in zip(r.heads, ref["heads"], strict=True):
        agree(got, want)
        close(got.bias, want["bias"])


# ---- bad input ----


@pytest.mark.parametrize("options, field", [
    (dict(b_K=[1.0]), "b_K"),
    (dict(b_Q=[1.0, 2.0, 3.0]), "b_Q"),
    (dict(b_V=[[1.0, 2.0]]), "b_V"),
    (dict(b_Q=[1.0, math.nan]), "b_Q[1]"),
    (dict(rope_base=0), "rope_base"),
    (dict(rope_base=-2), "rope_base"),
    (dict(rope_base=math.inf), "rope_base"),
    (dict(rope_base=10000, position_offset=-1), "position_offset"),
    (dict(window=0), "window"),
    (dict(window=1.5), "window"),
    (dict(sinks=-1), "sinks"),
])
def test_bad_options_name_their_field(options, field):
    with pytest.raises(AttentionInputError) as info:
        attention(I2, I2, I2, I2, **options)
    assert info.value.field == field


def test_odd_d_k_with_rope_names_positional():
    with pytest.raises(AttentionInputError) as info:
        attention(I2, [[1.0], [0.0]], [[1.0], [0.0]], I2, rope_base=10000)
    assert info.value.field == "positional" and "d_k" in info.value.message


def test_a_negative_slope_is_refused():
    with pytest.raises(AttentionInputError) as info:
        attention(I2, I2, I2, I2, alibi_slope=-0.5)
    assert info.value.field in ("alibi_slopes", "alibi_slopes[0]")
    heads = [(I2, I2, I2)] * 3
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, heads, np.ones((6, 1)), alibi_slopes=[0.5, 0.25, -1])
    assert info.value.field == "alibi_slopes[2]"
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, heads, np.ones((6, 1)), alibi_slopes=[0.5, 0.25])
    assert info.value.field == "alibi_slopes"


def test_multi_head_bias_errors_name_the_head():
    heads = [{"W_Q": I2, "W_K": I2, "W_V": I2}, {"W_Q": I2, "W_K": I2, "W_V": I2, "b_Q": [1.0]}]
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, heads, np.ones((4, 1)))
    assert info.value.field == "heads[1].b_Q"
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, [{"W_Q": I2}] * 2, np.ones((4, 1)),
                             kv_heads=[{"W_K": I2, "W_V": I2, "b_V": [1.0, 2.0, 3.0]}])
    assert info.value.field == "kv_heads[0].b_V"


def test_odd_d_k_in_a_multi_head_names_positional_and_the_head():
    heads = [(I2, I2, I2), ([[1.0], [0.0]], [[1.0], [0.0]], I2)]
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, heads, np.ones((4, 1)), rope_base=10000)
    assert info.value.field == "positional" and "Head 2" in info.value.message


@pytest.mark.parametrize("G", [2, 0, 4])
def test_h_not_a_multiple_of_g_names_kv_heads(G):
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, [I2] * 3, np.ones((6, 1)), kv_heads=[(I2, I2)] * G)
    assert info.value.field == "kv_heads"
    assert f"3 query heads and {G} key/value heads" in info.value.message


def test_with_kv_heads_a_query_head_has_no_keys_of_its_own():
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, [{"W_Q": I2, "W_K": I2}] * 2, np.ones((4, 1)),
                             kv_heads=[(I2, I2)])
    assert info.value.field == "heads[0].W_K"


def test_a_kv_head_narrower_than_its_query_heads_is_named():
    with pytest.raises(AttentionInputError) as info:
        multi_head_attention(I2, [I2, I2], np.ones((4, 1)), kv_heads=[([[1.0], [0.0]], I2)])
    assert info.value.field == "kv_heads[0].W_K"
    assert info.value.message == ("Head 1 (reading key/value head 1): W_Q has 2 columns but "
                                  "W_K has 1; queries and keys must have the same width d_k to "
                                  "take their dot product")


@pytest.mark.parametrize("base", ["abc", [1, 2], True])
def test_a_rope_base_that_is_not_a_number_names_rope_base(base):
    with pytest.raises(AttentionInputError) as info:
        attention(I2, I2, I2, I2, rope_base=base)
    assert info.value.field == "rope_base"


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
