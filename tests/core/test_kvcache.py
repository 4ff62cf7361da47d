"""attention_core/kvcache.py: generation with a key/value cache. Stepping through a
sequence token by token reproduces, row by row, the causal attention of the whole sequence
as the independent loops of tests/reference_modern.py compute it (1e-12), with biases, RoPE
and its offset, ALiBi, windows with sinks and grouped-query heads; each step's working is
row t's; the cache grows by one key and one value a step."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core.kvcache import cache_numbers, generate, generate_heads, step
from tests.reference_modern import reference_grouped, reference_modern

TOL = 1e-12


def lists(a):
    return None if a is None else np.asarray(a).tolist()


@st.composite
def problems(draw):
    """X (n, d_model) and one head's weights, with any of the newer variants."""
    n = draw(st.integers(1, 7))
    d_model = draw(st.integers(1, 4))
    d_k = 2 * draw(st.integers(1, 3))  # even, for RoPE
    d_v = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(n, d_model))
    W = {"W_Q": rng.normal(size=(d_model, d_k)), "W_K": rng.normal(size=(d_model, d_k)),
         "W_V": rng.normal(size=(d_model, d_v))}
    options = {}
    if draw(st.booleans()):
        options.update(b_Q=rng.normal(size=d_k), b_K=rng.normal(size=d_k),
                       b_V=rng.normal(size=d_v))
    if draw(st.booleans()):
        options.update(rope_base=draw(st.sampled_from([10.0, 100.0, 10000.0])),
                       position_offset=draw(st.integers(0, 20)))
    if draw(st.booleans()):
        options.update(alibi_slope=draw(st.sampled_from([0.0, 0.25, 1.0])))
    if draw(st.booleans()):
        options.update(window=draw(st.integers(1, n + 1)), sinks=draw(st.integers(0, 2)))
    if draw(st.booleans()):
        options.update(scale=draw(st.sampled_from([1.0, 0.3])))
    return X, W, options


@settings(max_examples=150, deadline=None)
@given(problems())
def test_stepping_reproduces_the_whole_causal_attention_row_by_row(problem):
    X, W, options = problem
    ref = reference_modern(X.tolist(), **{k: lists(v) for k, v in W.items()}, causal=True,
                           **{k: lists(v) if isinstance(v, np.ndarray) else v
                              for k, v in options.items()})
    steps = generate(X, **W, **options)
    assert [s.t for s in steps] == list(range(len(X)))
    for s in steps:
        t = s.t
        np.testing.assert_allclose(s.weights, ref["weights"][t][:t + 1], rtol=0, atol=TOL)
        np.testing.assert_allclose(s.z, ref["output"][t], rtol=0, atol=TOL)
        # the cache: the keys and values of tokens 0 … t, as the whole computation has them
        np.testing.assert_allclose(s.cache.K.out, ref["K"][:t + 1], rtol=0, atol=TOL)
        np.testing.assert_allclose(s.cache.V, ref["V"][:t + 1], rtol=0, atol=TOL)
        w = s.working
        assert w.row == t
        np.testing.assert_allclose(w.q, ref["Q"][t], rtol=0, atol=TOL)
        assert list(w.allowed) == ref["allowed"][t][:t + 1]
        if "rope_base" in options:
            assert w.position == options["position_offset"] + t
            assert list(w.positions_k) == [options["position_offset"] + j for j in range(t + 1)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.sampled_from([(4, 2), (4, 1), (2, 2), (3, 1)]),
       st.integers(0, 2**32 - 1), st.booleans())
def test_grouped_query_heads_share_one_cache_per_key_value_head(n, shape, seed, alibi):
    H, G = shape
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    queries = [{"W_Q": rng.normal(size=(3, 2))} for _ in range(H)]
    kv_heads = [{"W_K": rng.normal(size=(3, 2)), "W_V": rng.normal(size=(3, 2))}
                for _ in range(G)]
    slopes = [0.5 / (h + 1) for h in range(H)] if alibi else None
    W_O = np.eye(2 * H).tolist()
    ref = reference_grouped(X.tolist(), [{k: lists(v) for k, v in q.items()} for q in queries],
                            [{k: lists(v) for k, v in kv.items()} for kv in kv_heads], W_O,
                            causal=True, rope_base=10.0, alibi_slopes=slopes)
    steps = generate_heads(X, queries, kv_heads, alibi_slopes=slopes, rope_base=10.0)
    for t, row in enumerate(steps):
        assert len(row) == H
        for h, s in enumerate(row):
            head = ref["heads"][h]
            np.testing.assert_allclose(s.weights, head["weights"][t][:t + 1], rtol=0, atol=TOL)
            np.testing.assert_allclose(s.z, head["output"][t], rtol=0, atol=TOL)
        # the heads of one group read one cache: the first head of its group's
        for h in range(H):
            first_of_group = (h * G // H) * H // G
            np.testing.assert_array_equal(row[h].cache.K.out, row[first_of_group].cache.K.out)
            np.testing.assert_array_equal(row[h].cache.V, row[first_of_group].cache.V)


def test_a_hand_worked_two_token_generation():
    """X = [[1, 0], [0, 1]], W_Q = W_K = W_V = I (d_k 2). Step 0: q_0 = (1, 0) reads k_0 only:
    weight 1, z_0 = v_0 = (1, 0), one dot product. Step 1: q_1 = (0, 1); q_1·k_0 = 0,
    q_1·k_1 = 1; scaled 0 and 1/√2; weights 1/(1 + e^(1/√2)) = 0.33027… and e^(1/√2)/(1 +
    e^(1/√2)) = 0.66972…; z_1 = (0.33027…, 0.66972…); two dot products, four without the
    cache; the cache holds 2 · (2 + 2) = 8 numbers."""
    eye = np.eye(2)
    first = step(None, [1, 0], eye, eye, eye)
    assert first.t == 0 and first.dots == 1 and first.recompute_dots == 1
    np.testing.assert_allclose(first.weights, [1.0], atol=TOL)
    np.testing.assert_allclose(first.z, [1.0, 0.0], atol=TOL)
    second = step(first.cache, [0, 1], eye, eye, eye)
    e = math.exp(1 / math.sqrt(2))
    np.testing.assert_allclose(second.weights, [1 / (1 + e), e / (1 + e)], atol=TOL)
    np.testing.assert_allclose(second.z, [1 / (1 + e), e / (1 + e)], atol=TOL)
    np.testing.assert_allclose(second.working.dots, [0.0, 1.0], atol=TOL)
    assert (second.dots, second.recompute_dots) == (2, 4)
    assert second.cache.K.out.shape == (2, 2) and second.cache.V.shape == (2, 2)
    assert first.cache.V.shape == (1, 2)  # a step leaves the cache it was given as it was
    assert cache_numbers(2, 2, 2) == 8 and cache_numbers(2, 2, 2, kv_heads=3) == 24


def test_a_step_checks_its_inputs_as_the_engine_does():
    from attention_core.errors import AttentionInputError

    with pytest.raises(AttentionInputError, match="W_Q"):
        step(None, [1, 0], np.ones((3, 2)), np.eye(2), np.eye(2))
