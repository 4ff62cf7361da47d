"""attention_core.attention against hand-worked numbers and a plain-loop reference; with today's
additions (biases on the projections, every option at once, what changes nothing, the bad
options named) against the independent tests/reference_modern."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import AttentionInputError, attention, multi_head_attention, softmax_rows
from tests.core.helpers import (
    I2,
    agree,
    close,
    gqa_problem,
    lists,
    rng_biases,
    rng_problem,
)
from tests.reference import reference_attention
from tests.reference_modern import (
    reference_grouped,
    reference_heads,
    reference_modern,
)

CAT = dict(X=[[1, 0], [0, 1], [1, 1]], W_Q=[[1, 0], [1, 2]], W_K=[[2, 0], [0, 1]],
           W_V=[[1, 0], [0, 2]])


def test_default_example_weights_and_output_match_the_hand_calculation():
    r = attention(**CAT)
    # Scores QK^T = [[2,0,2],[2,2,4],[4,2,6]] divided by sqrt(2); softmax by hand.
    assert r.scores.tolist() == [[2, 0, 2], [2, 2, 4], [4, 2, 6]]
    assert r.d_k == 2 and r.scale == pytest.approx(1 / math.sqrt(2))
    np.testing.assert_allclose(r.weights, [[0.446, 0.108, 0.446], [0.164, 0.164, 0.673],
                                           [0.187, 0.045, 0.768]], atol=5e-4)
    np.testing.assert_allclose(r.output, [[0.892, 1.108], [0.836, 1.673], [0.955, 1.627]],
                               atol=5e-4)
    e = [math.exp(4 / math.sqrt(2)), math.exp(2 / math.sqrt(2)), math.exp(6 / math.sqrt(2))]
    assert r.weights[2].tolist() == pytest.approx([x / sum(e) for x in e], abs=1e-15)


def test_causal_mask_zeroes_the_future_and_renormalises():
    r = attention(**CAT, causal=True)
    assert r.weights[0].tolist() == [1.0, 0.0, 0.0]
    assert r.weights[1].tolist() == [0.5, 0.5, 0.0]
    np.testing.assert_allclose(r.weights[2], attention(**CAT).weights[2], rtol=0, atol=0)
    assert r.scaled_scores[0, 1] == -np.inf and r.scaled_scores[1, 2] == -np.inf
    assert r.mask.tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_scale_one_is_unscaled_attention():
    r = attention(**CAT, scale=1)
    e = [math.exp(4), math.exp(2), math.exp(6)]
    assert r.weights[2].tolist() == pytest.approx([x / sum(e) for x in e])


def test_fully_masked_row_gives_zero_weights_zero_output_and_a_warning():
    mask = [[False, False, False], [True, True, True], [True, False, True]]
    r = attention(**CAT, mask=mask)
    assert r.weights[0].tolist() == [0.0, 0.0, 0.0]
    assert r.output[0].tolist() == [0.0, 0.0]
    assert r.warnings == ("Query 1 has no key it may read, so its weights and output are all 0.",)
    assert not np.isnan(r.weights).any()


def test_mask_is_combined_with_causal_by_and():
    mask = np.ones((3, 3), dtype=bool)
    mask[2, 0] = False
    r = attention(**CAT, causal=True, mask=mask)
    assert r.mask.tolist() == [[True, False, False], [True, True, False], [False, True, True]]
    ref = reference_attention(**CAT, causal=True, mask=mask.tolist())
    np.testing.assert_allclose(r.weights, ref["weights"], atol=1e-15)


@pytest.mark.parametrize("big", [1e3, -1e3, 5e4, 1e150])
def test_huge_scores_still_give_finite_correct_weights(big):
    # Scores of 0, big and 2*big (scaled by 1): softmax picks the largest.
    X = [[0.0], [1.0], [2.0]]
    r = attention(X, [[1.0]], [[big]], [[1.0]], scale=1)
    assert np.isfinite(r.weights).all()
    ref = reference_attention(X, [[1.0]], [[big]], [[1.0]], scale=1)
    np.testing.assert_allclose(r.weights, ref["weights"], atol=1e-12)


def test_overflowing_product_is_an_error_not_inf():
    # Q[0][0] = 1e200·1e200 + 1e200·1 = 1e400; X[0][0] and W_Q[0][0] tie at 1e200: X first.
    with pytest.raises(AttentionInputError, match="too large for float64") as info:
        attention([[1e200, 1e200]], [[1e200], [1.0]], [[1.0], [1.0]], [[1.0], [1.0]])
    assert info.value.field == "X[0][0]"


def test_a_term_of_a_score_beyond_float64_names_the_largest_cell_it_is_built_from():
    # X = I, so Q = W_Q and K = W_K: q_2 = (3, 1e308), k_1 = (1, 1.8), k_2 = (5, 0.5). The
    # first term out of range is q_2[2]·k_1[2] = 1e308·1.8; it is built from row 2 of X,
    # column 2 of W_Q (2, 1e308), row 1 of X and column 2 of W_K (1.8, 0.5): W_Q[1][1].
    # Called directly: with these numbers the score itself overflows first, in any BLAS.
    from attention_core.engine import _check_terms, _side
    X, W_Q, W_K = np.eye(2), np.array([[1, 2], [3, 1e308]]), np.array([[1, 1.8], [5, 0.5]])

    def side(W, name):  # the projection X·W, as attention() makes it
        return _side(X, "X", W, name, None, "b" + name[1:], name[2], None)

    with pytest.raises(AttentionInputError) as info:
        _check_terms(X @ W_Q, X @ W_K, side(W_Q, "W_Q"), side(W_K, "W_K"))
    assert info.value.field == "W_Q[1][1]"
    assert info.value.message == (
        "Q·Kᵀ is too large for float64: the term q_2[2]·k_1[2] of the score of query 2 for "
        "key 1 comes out beyond ±1.8e308, the largest number a float64 can hold. The largest "
        "number it is built from is W_Q row 2 column 2 (1e+308); make it smaller.")
    W_K = np.array([[1, 1.7], [5, 0.5]])  # the term is 1.7e308: within range
    _check_terms(X @ W_Q, X @ W_K, side(W_Q, "W_Q"), side(W_K, "W_K"))


@pytest.mark.parametrize("kwargs, field, words", [
    (dict(CAT, W_Q=[[1, 0], [1, 2], [0, 0]]), "W_Q", "W_Q has 3 rows but each embedding has 2"),
    (dict(CAT, W_K=[[1], [0]]), "W_K", "W_Q has 2 columns but W_K has 1"),
    (dict(CAT, W_V=[[1, 0, 0]]), "W_V", "W_V has 1 row but each embedding has 2 numbers"),
    (dict(CAT, X=[1, 2]), "X", "2-D"),
    (dict(CAT, X=[[1, float("nan")], [0, 1], [1, 1]]), "X[0][1]", "finite"),
    (dict(CAT, scale=float("inf")), "scale", "finite"),
    (dict(CAT, mask=[[True, True]]), "mask", "3×3"),
])
def test_bad_inputs_raise_one_error_type_naming_the_field(kwargs, field, words):
    with pytest.raises(AttentionInputError) as info:
        attention(**kwargs)
    assert info.value.field == field
    assert words in str(info.value)


def test_softmax_rows_handles_minus_infinity():
    out = softmax_rows(np.array([[0.0, -np.inf, 0.0], [-np.inf, -np.inf, -np.inf]]))
    assert out.tolist() == [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]


# ---- property tests against the reference and the algebra of softmax ----

finite = st.floats(-4, 4, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw):
    n, d_model, d_k, d_v = (draw(st.integers(1, 5)) for _ in range(4))

    def mat(r, c):
        return draw(arrays(np.float64, (r, c), elements=finite))

    mask = draw(arrays(np.bool_, (n, n))) if draw(st.booleans()) else None
    return dict(X=mat(n, d_model), W_Q=mat(d_model, d_k), W_K=mat(d_model, d_k),
                W_V=mat(d_model, d_v), causal=draw(st.booleans()), mask=mask)


@settings(max_examples=150, deadline=None)
@given(problems())
def test_engine_agrees_with_the_plain_loop_reference(p):
    r = attention(**p)
    ref = reference_attention(p["X"].tolist(), p["W_Q"].tolist(), p["W_K"].tolist(),
                              p["W_V"].tolist(), causal=p["causal"],
                              mask=None if p["mask"] is None else p["mask"].tolist())
    for name in ("Q", "K", "V", "scores", "weights", "output"):
        np.testing.assert_allclose(getattr(r, name), ref[name], rtol=1e-9, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_rows_sum_to_one_or_are_all_zero_and_masked_weights_are_exactly_zero(p):
    r = attention(**p)
    sums = r.weights.sum(axis=1)
    has_key = r.mask.any(axis=1)
    np.testing.assert_allclose(sums[has_key], 1.0, rtol=1e-12)
    assert (sums[~has_key] == 0).all()
    assert (r.weights[~r.mask] == 0).all()
    assert (r.scaled_scores[~r.mask] == -np.inf).all()


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 6)), elements=finite),
       st.floats(-50, 50))
def test_adding_a_constant_to_a_score_row_changes_nothing(scores, c):
    shifted = scores.copy()
    shifted[0] += c
    np.testing.assert_allclose(softmax_rows(shifted), softmax_rows(scores), atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(problems(), st.randoms())
def test_permuting_tokens_permutes_q_k_v_z_the_same_way(p, rnd):
    n = p["X"].shape[0]
    perm = list(range(n))
    rnd.shuffle(perm)
    a = attention(p["X"], p["W_Q"], p["W_K"], p["W_V"])
    b = attention(p["X"][perm], p["W_Q"], p["W_K"], p["W_V"])
    for name in ("Q", "K", "V", "output"):
        np.testing.assert_allclose(getattr(b, name), getattr(a, name)[perm], atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(problems())
def test_scale_none_equals_one_over_sqrt_dk(p):
    d_k = p["W_Q"].shape[1]
    a = attention(**p)
    b = attention(**p, scale=1 / math.sqrt(d_k))
    assert a.scale == 1 / math.sqrt(d_k)
    np.testing.assert_array_equal(a.weights, b.weights)


# ---- cross-attention ----

def test_cross_attention_reads_keys_and_values_from_the_second_sequence():
    X = [[1, 0], [0, 1]]
    X_kv = [[1, 1], [2, 0], [0, 3]]
    W = [[1, 0.5], [0, 1]]
    r = attention(X, W, W, W, X_kv=X_kv)
    assert r.weights.shape == (2, 3) and r.K.shape == (3, 2)
    ref = reference_attention(X, W, W, W, X_kv=X_kv)
    for name in ("Q", "K", "V", "scores", "weights", "output"):
        np.testing.assert_allclose(getattr(r, name), ref[name], atol=1e-12)


@pytest.mark.parametrize("n, m", [(2, 4), (4, 2)])
def test_causal_with_n_not_m_is_aligned_top_left_like_torch(n, m):
    rng = np.random.default_rng(n * 10 + m)
    X, X_kv = rng.standard_normal((n, 3)), rng.standard_normal((m, 3))
    W = rng.standard_normal((3, 2))
    r = attention(X, W, W, W, X_kv=X_kv, causal=True)
    expected = [[j <= i for j in range(m)] for i in range(n)]  # torch.ones(n, m).tril()
    assert r.mask.tolist() == expected
    ref = reference_attention(X.tolist(), W.tolist(), W.tolist(), W.tolist(),
                              X_kv=X_kv.tolist(), causal=True)
    np.testing.assert_allclose(r.weights, ref["weights"], atol=1e-12)


def test_cross_attention_checks_widths_and_mask_shape():
    with pytest.raises(AttentionInputError, match="X_kv has 3 numbers per token but X has 2") as e:
        attention([[1, 0]], [[1], [0]], [[1], [0]], [[1], [0]], X_kv=[[1, 2, 3]])
    assert e.value.field == "X_kv"
    with pytest.raises(AttentionInputError, match="it must be 1×2") as e:
        attention([[1, 0]], [[1], [0]], [[1], [0]], [[1], [0]], X_kv=[[1, 2], [3, 4]],
                  mask=[[True]])
    assert e.value.field == "mask"


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
    assert f"3 query heads cannot share {G} key/value heads" in info.value.message


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
