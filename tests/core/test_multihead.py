"""attention_core.multihead: several heads and W_O against plain loops, errors naming the head;
grouped-query heads (query heads sharing key/value heads) against tests/reference_modern."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import AttentionInputError, multi_head_attention
from tests.core.helpers import (
    agree,
    close,
    gqa_problem,
    lists,
)
from tests.reference import reference_multi_head
from tests.reference_modern import (
    reference_grouped,
)


@st.composite
def multi_problems(draw):
    n, m, d_model, h = (draw(st.integers(1, 4)) for _ in range(4))
    cross = draw(st.booleans())
    el = st.floats(-3, 3, allow_nan=False)

    def mat(r, c):
        return draw(arrays(np.float64, (r, c), elements=el))

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
    ([], [[1]], "heads", "at least 1 head"),
    ([([[1]], [[1]], [[1]])] * 2, [[1]], "W_O",
     "W_O has 1 row but the heads' outputs concatenate to 2 columns"),
    ([([[1]], [[1, 2]], [[1]])], [[1]], "heads[0].W_K", "Head 1: W_Q has 1 column but W_K has 2"),
])
def test_multi_head_errors_name_the_head(heads, W_O, field, words):
    with pytest.raises(AttentionInputError) as e:
        multi_head_attention([[1.0]], heads, W_O)
    assert e.value.field == field and words in e.value.message


def test_the_library_takes_any_number_of_heads():
    """The bound on heads is the server's (Limits.max_heads), not the library's: 17 heads
    of the identity read the same keys, so each output is the one head's, 17 times over."""
    X = [[1, 0], [0, 1], [1, 1]]
    eye = np.eye(2)
    r = multi_head_attention(X, [(eye, eye, eye)] * 17, np.tile(eye, (17, 1)) / 17)
    # softmax(X·Xᵀ/√2)·X, by hand for row 1: scores (1, 0, 1)/√2.
    e = np.exp(np.array([1, 0, 1]) / np.sqrt(2))
    assert np.allclose(r.output[0], (e / e.sum()) @ np.array(X), atol=1e-12)
    assert r.concat.shape == (3, 34)


# ---- grouped-query heads ----


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
