"""attention_core.attention against hand-worked numbers and a plain-loop reference."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import AttentionInputError, attention, softmax_rows
from tests.reference import reference_attention

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
