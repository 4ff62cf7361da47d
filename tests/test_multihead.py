"""attention_core.multihead: several heads and W_O against plain loops, errors naming the head."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import AttentionInputError, multi_head_attention
from tests.reference import reference_multi_head


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
