"""Issue 4's engine: scaling, cross-attention, multi-head, positions, the scaling lab."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import AttentionInputError, attention, multi_head_attention, sinusoidal
from attention_core.scaling import entropy, score_variance, softmax_jacobian, winner_probability
from tests.reference import reference_attention, reference_multi_head, reference_sinusoidal

# Raw scores of the last query are 1, 1, 2 (q_3 = (1, 1); keys (1, 0), (1, 0), (1, 1)).
ONE_ONE_TWO = dict(X=[[1, 0], [1, 0], [1, 1]], W_Q=[[1, 0], [0, 1]], W_K=[[1, 0], [0, 1]],
                   W_V=[[1, 0], [0, 1]])


def test_scaled_and_unscaled_weights_of_scores_1_1_2():
    r = attention(**ONE_ONE_TWO)
    assert r.scores[2].tolist() == [1, 1, 2]
    assert np.round(r.weights[2], 3).tolist() == [0.248, 0.248, 0.503]
    r1 = attention(**ONE_ONE_TWO, scale=1)
    assert np.round(r1.weights[2], 3).tolist() == [0.212, 0.212, 0.576]


@pytest.mark.parametrize("d_k, unscaled", [(4, 0.881), (64, 0.9997), (1024, 1.0000)])
def test_winner_probability_one_standard_deviation_apart(d_k, unscaled):
    digits = len(str(unscaled).split(".")[1])
    assert round(winner_probability(d_k, scaled=False), digits) == unscaled
    assert round(winner_probability(d_k, scaled=True), 3) == 0.731


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_dot_product_variance_grows_with_dk_and_scaling_undoes_it(d_k):
    raw, scaled = score_variance(d_k, samples=40_000, seed=3)
    # Var(q·k) = d_k for independent N(0, 1) components; sampling error ~ 2–3 %.
    assert raw == pytest.approx(d_k, rel=0.06)
    assert scaled == pytest.approx(1.0, rel=0.06)


def test_entropy_and_the_jacobian_vanishing_as_softmax_saturates():
    assert entropy([0.5, 0.5]) == pytest.approx(math.log(2))
    assert entropy([1.0, 0.0, 0.0]) == 0.0
    sharp = np.array([1 - 2e-9, 1e-9, 1e-9])
    flat = np.array([1 / 3] * 3)
    assert np.linalg.norm(softmax_jacobian(sharp)) < 1e-8 < np.linalg.norm(softmax_jacobian(flat))


def test_softmax_jacobian_matches_finite_differences():
    s = np.array([0.3, -1.2, 2.0, 0.5])
    soft = lambda v: np.exp(v - v.max()) / np.exp(v - v.max()).sum()  # noqa: E731
    h = 1e-6
    numeric = np.column_stack([(soft(s + h * e) - soft(s - h * e)) / (2 * h)
                               for e in np.eye(len(s))])
    np.testing.assert_allclose(softmax_jacobian(soft(s)), numeric, atol=1e-9)


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


# ---- multi-head ----

@st.composite
def multi_problems(draw):
    n, m, d_model, h = (draw(st.integers(1, 4)) for _ in range(4))
    cross = draw(st.booleans())
    el = st.floats(-3, 3, allow_nan=False)
    mat = lambda r, c: draw(arrays(np.float64, (r, c), elements=el))  # noqa: E731
    heads = []
    for _ in range(h):
        d_k, d_v = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        heads.append((mat(d_model, d_k), mat(d_model, d_k), mat(d_model, d_v)))
    width = sum(head[2].shape[1] for head in heads)
    return dict(X=mat(n, d_model), heads=heads, W_O=mat(width, draw(st.integers(1, 3))),
                X_kv=mat(m, d_model) if cross else None, causal=draw(st.booleans()))


@settings(max_examples=120, deadline=None)
@given(multi_problems())
def test_multi_head_agrees_with_plain_loops_to_1e12(p):
    r = multi_head_attention(p["X"], p["heads"], p["W_O"], causal=p["causal"], X_kv=p["X_kv"])
    ref = reference_multi_head(p["X"].tolist(), [[w.tolist() for w in head] for head in p["heads"]],
                               p["W_O"].tolist(), causal=p["causal"],
                               X_kv=None if p["X_kv"] is None else p["X_kv"].tolist())
    np.testing.assert_allclose(r.concat, ref["concat"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.output, ref["output"], rtol=0, atol=1e-12)


def test_one_head_with_identity_w_o_is_plain_attention():
    r = multi_head_attention([[1, 0], [0, 1], [1, 1]], [([[1, 0], [1, 2]], [[2, 0], [0, 1]],
                                                          [[1, 0], [0, 2]])], np.eye(2))
    assert np.round(r.output, 3).tolist() == [[0.892, 1.108], [0.836, 1.673], [0.955, 1.627]]


@pytest.mark.parametrize("heads, W_O, field, words", [
    ([], [[1]], "heads", "1 to 16 heads"),
    ([([[1]], [[1]], [[1]])] * 17, [[1]] * 17, "heads", "1 to 16 heads"),
    ([([[1]], [[1]], [[1]])] * 2, [[1]], "W_O", "W_O has 1 rows but the heads' outputs concatenate to 2"),
    ([([[1]], [[1, 2]], [[1]])], [[1]], "heads[0].W_K", "Head 1: W_Q has 1 columns but W_K has 2"),
])
def test_multi_head_errors_name_the_head(heads, W_O, field, words):
    with pytest.raises(AttentionInputError) as e:
        multi_head_attention([[1.0]], heads, W_O)
    assert e.value.field == field and words in e.value.message


# ---- positions ----

@pytest.mark.parametrize("n, d_model", [(1, 1), (5, 4), (7, 5), (3, 16)])
def test_sinusoidal_matches_the_paper_formula(n, d_model):
    np.testing.assert_allclose(sinusoidal(n, d_model), reference_sinusoidal(n, d_model),
                               rtol=0, atol=1e-15)


def test_sinusoidal_first_rows_by_hand():
    pe = sinusoidal(2, 2)
    assert pe[0].tolist() == [0.0, 1.0]  # sin 0, cos 0
    assert pe[1].tolist() == pytest.approx([math.sin(1), math.cos(1)])
