"""attention_core/tiles.py: FlashAttention's online softmax, tile by tile, against the
independent loops of tests/reference_modern.py and a direct numpy computation, written here,
of the running maximum, sum and output over the keys seen so far."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core.engine import prepare
from attention_core.errors import AttentionInputError
from attention_core.tiles import block_tiles, row_tiles
from tests.core.helpers import close, gqa_problem, lists
from tests.reference_modern import reference_grouped, reference_modern

X3 = [[1, 0], [0, 1], [1, 1]]
W_Q3, W_K3, W_V3 = [[1, 0], [1, 2]], [[2, 0], [0, 1]], [[1, 0], [0, 2]]


def test_three_tokens_one_key_at_a_time_by_hand():
    """Row 3 (row=2) of X = [[1, 0], [0, 1], [1, 1]] with scale 1 and B_c = 1.

    q_3 = x_3·W_Q = [2, 2]; K = X·W_K = [[2, 0], [0, 1], [2, 1]]; V = X·W_V =
    [[1, 0], [0, 2], [1, 2]]. The scores of row 3 are s = [4, 2, 6].

    tile 0 (key 1, s = 4): m −∞ → 4, the first key: rescale e^(−∞) = 0;
        ℓ = 0·0 + e^(4−4) = 1; O = 0·0 + 1·v_1 = [1, 0].
    tile 1 (key 2, s = 2): m stays 4, rescale 1; ℓ = 1 + e^(2−4) = 1 + e^−2 = 1.135335;
        O = [1, 0] + e^−2·[0, 2] = [1, 2e^−2] = [1, 0.270671].
    tile 2 (key 3, s = 6): m 4 → 6, rescale e^(4−6) = e^−2 = 0.135335;
        ℓ = e^−2·(1 + e^−2) + e^0 = 1 + e^−2 + e^−4 = 1.153652;
        O = e^−2·[1, 2e^−2] + [1, 2] = [1 + e^−2, 2 + 2e^−4] = [1.135335, 2.036631].
    z_3 = O/ℓ = [0.984124, 1.765379]; m + ln ℓ = 6 + ln(1 + e^−2 + e^−4) = 6.142932
        = ln(e^4 + e^2 + e^6).
    """
    r = row_tiles(X3, W_Q3, W_K3, W_V3, row=2, block_q=1, block_k=1, scale=1)
    e2, e4 = math.exp(-2), math.exp(-4)
    assert [t.keys for t in r.tiles] == [(0, 1), (1, 2), (2, 3)]
    assert [t.key_block for t in r.tiles] == [0, 1, 2]
    assert [t.m_before for t in r.tiles] == [-math.inf, 4, 4]
    assert [t.m_after for t in r.tiles] == [4, 4, 6]
    close([t.rescale for t in r.tiles], [0, 1, e2])
    close([t.l_before for t in r.tiles], [0, 1, 1 + e2])
    close([t.l_after for t in r.tiles], [1, 1 + e2, 1 + e2 + e4])
    close([t.O_after for t in r.tiles], [[1, 0], [1, 2 * e2], [1 + e2, 2 + 2 * e4]])
    close([t.scores for t in r.tiles], [[4], [2], [6]])
    assert not any(t.skipped for t in r.tiles) and r.skipped == 0
    close(r.final.z, [(1 + e2) / (1 + e2 + e4), (2 + 2 * e4) / (1 + e2 + e4)])
    close(r.final.z, [0.984124, 1.765379], tol=1e-6)  # the docstring's figures
    close(r.final.logsumexp, math.log(math.exp(4) + math.exp(2) + math.exp(6)))
    assert (r.memory.held, r.memory.whole) == (1, 9)


def causal4(**options):
    """Four tokens of width 1 with a causal mask; only the mask matters here."""
    X = [[1.0], [2.0], [-1.0], [0.5]]
    return dict(X=X, W_Q=[[1.0]], W_K=[[1.0]], W_V=[[1.0]], causal=True, **options)


def test_causal_n4_blocks_of_2_skip_the_tile_above_the_diagonal():
    """n = 4, B_r = B_c = 2: tiles (query block, key block). Causal reads j ≤ i, so tile
    (0, 1) — queries 0, 1 against keys 2, 3 — has no permitted entry and is skipped; (0, 0),
    (1, 0) and (1, 1) each hold one (tile (1, 1) holds (2, 2), (3, 2), (3, 3); its (2, 3) is
    masked for row 2 but the tile is computed). Row 1 is in query block 0: its key block 1
    is skipped (1 of its 2). Row 3 is in query block 1: neither is skipped."""
    row1 = row_tiles(**causal4(), row=1, block_q=2, block_k=2)
    assert row1.query_block == 0 and [t.skipped for t in row1.tiles] == [False, True]
    assert row1.skipped == 1
    skipped = row1.tiles[1]
    assert (skipped.m_after, skipped.l_after, skipped.rescale) == \
        (row1.tiles[0].m_after, row1.tiles[0].l_after, 1)
    assert np.isneginf(skipped.scores).all() and skipped.scores.shape == (2,)
    row3 = row_tiles(**causal4(), row=3, block_q=2, block_k=2)
    assert row3.query_block == 1 and [t.skipped for t in row3.tiles] == [False, False]
    assert row3.skipped == 0
    row2 = row_tiles(**causal4(), row=2, block_q=2, block_k=2)
    assert row2.tiles[1].scores[1] == -math.inf and not row2.tiles[1].skipped
    p = prepare(**causal4())
    assert [block_tiles(p, b, 2, 2).skipped for b in (0, 1)] == [1, 0]  # 1 of the 4 tiles
    assert row3.memory.held == 4 and row3.memory.whole == 16


def test_a_causal_window_of_1_skips_every_tile_off_the_diagonal():
    """Window 1 with causal: query i reads key i only. With B = 2 the off-diagonal tiles
    (0, 1) and (1, 0) are skipped; so row 3 skips key block 0."""
    p = prepare(**causal4(window=1))
    assert [[t.skipped for t in block_tiles(p, b, 2, 2).tiles] for b in (0, 1)] == \
        [[False, True], [True, False]]
    # One sink reopens key 0 to every query: tile (1, 0) is back.
    p = prepare(**causal4(window=1, sinks=1))
    assert [t.skipped for t in block_tiles(p, 1, 2, 2).tiles] == [False, False]


def test_a_row_with_no_permitted_key_gives_z_0_and_logsumexp_minus_infinity():
    """Row 0 masked whole: m stays −∞ and ℓ 0 through every tile; z = 0, as the engine's
    output and weights are 0 for such a row."""
    mask = [[False, False, False], [True, True, False], [True, True, True]]
    r = row_tiles(X3, W_Q3, W_K3, W_V3, row=0, block_q=1, block_k=2, mask=mask)
    assert [t.skipped for t in r.tiles] == [True, True] and r.skipped == 2
    assert all(t.m_after == -math.inf and t.l_after == 0 for t in r.tiles)
    assert r.final.z.tolist() == [0.0, 0.0] and r.final.logsumexp == -math.inf
    # With B_r = 3 the tiles hold rows 1 and 2's keys, so are computed; row 0 still reads none.
    r = row_tiles(X3, W_Q3, W_K3, W_V3, row=0, block_q=3, block_k=2, mask=mask)
    assert [t.skipped for t in r.tiles] == [False, False]
    assert all(t.m_after == -math.inf and t.rescale == 1 and t.l_after == 0 for t in r.tiles)
    assert r.final.z.tolist() == [0.0, 0.0] and r.final.logsumexp == -math.inf


@pytest.mark.parametrize("kwargs, field", [
    (dict(block_q=0, block_k=1), "block_q"), (dict(block_q=1, block_k=0), "block_k"),
    (dict(block_q=1.5, block_k=1), "block_q"), (dict(block_q=1, block_k=True), "block_k"),
    (dict(block_q=1, block_k=1, row=3), "row"), (dict(block_q=1, block_k=1, row=-1), "row"),
])
def test_bad_blocks_and_rows_are_refused_naming_them(kwargs, field):
    with pytest.raises(AttentionInputError) as info:
        row_tiles(X3, W_Q3, W_K3, W_V3, **{"row": 0, **kwargs})
    assert info.value.field == field and repr(kwargs.get(field)) in str(info.value)


def test_a_score_beyond_float64_is_refused_as_the_engine_names_it():
    """q_1 = k_1 = 1e160: the score 1e320 is beyond float64, though Q and K are not."""
    with pytest.raises(AttentionInputError, match="score of query 1 for key 1") as info:
        row_tiles([[1e160]], [[1.0]], [[1.0]], [[1.0]], row=0, block_q=1, block_k=1)
    assert info.value.field is not None and info.value.field.startswith(("X", "W_"))


# ---- property tests: every variant, every block size, against the reference ----

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw):
    """A random attention with any of its options, and block sizes from 1 to n + 2."""
    n, m, d_model, d_v = (draw(st.integers(1, 5)) for _ in range(4))
    rope = draw(st.booleans())
    d_k = 2 * draw(st.integers(1, 2)) if rope else draw(st.integers(1, 4))
    cross = draw(st.booleans())
    m = m if cross else n

    def mat(r, c):
        return draw(arrays(np.float64, (r, c), elements=finite))

    def maybe(value):
        return value if draw(st.booleans()) else None

    p = dict(X=mat(n, d_model), W_Q=mat(d_model, d_k), W_K=mat(d_model, d_k),
             W_V=mat(d_model, d_v), causal=draw(st.booleans()),
             X_kv=mat(m, d_model) if cross else None,
             mask=maybe(draw(arrays(np.bool_, (n, m)))),
             b_Q=maybe(mat(1, d_k)[0]), b_K=maybe(mat(1, d_k)[0]), b_V=maybe(mat(1, d_v)[0]),
             rope_base=10000.0 if rope else None,
             position_offset=draw(st.integers(0, 7)) if rope else 0,
             alibi_slope=maybe(draw(st.floats(0, 1))), window=maybe(draw(st.integers(1, 5))),
             scale=maybe(draw(st.floats(0.1, 2))))
    p["sinks"] = draw(st.integers(0, 3)) if p["window"] else 0
    blocks = (draw(st.integers(1, n + 2)), draw(st.integers(1, m + 2)))
    return p, blocks


def direct(scaled, V, stop):
    """m, ℓ and O of one row over the permitted keys j < stop, in one numpy pass each:
    m = max s_j, ℓ = Σ e^(s_j − m), O = Σ e^(s_j − m)·v_j (m −∞, ℓ 0, O 0 for none)."""
    seen = scaled[:stop]
    ok = np.isfinite(seen)
    if not ok.any():
        return -math.inf, 0.0, np.zeros(V.shape[1])
    top = seen[ok].max()
    e = np.exp(seen[ok] - top)
    return top, e.sum(), e @ V[:stop][ok]


def check_row(r, ref, i, block_q, block_k):
    """Row i's tiles (r) against the reference's scaled scores, mask, V and output."""
    scaled = np.array(ref["scaled_scores"][i], float)  # (m,), −inf where masked
    allowed = np.array(ref["allowed"], bool)  # (n, m)
    V = np.array(ref["V"], float)
    n, m = allowed.shape
    rows = slice(i // block_q * block_q, min((i // block_q + 1) * block_q, n))
    assert len(r.tiles) == math.ceil(m / block_k)
    for c, t in enumerate(r.tiles):
        start, stop = c * block_k, min((c + 1) * block_k, m)
        assert (t.key_block, t.keys) == (c, (start, stop))
        assert t.skipped == (not allowed[rows, start:stop].any())
        m_run, l_run, O_run = direct(scaled, V, stop)
        m_old, l_old, _ = direct(scaled, V, start)
        close([t.m_before, t.m_after], [m_old, m_run])  # −∞ before any permitted key
        close([t.l_before, t.l_after], [l_old, l_run])
        close(t.O_after, O_run)
        # e^(m_old − m_run) when the maximum grew: 0 from −∞, 1 when it did not (e^0 too).
        close(t.rescale, math.exp(m_old - m_run) if m_run > m_old else 1.0)
        if not t.skipped:
            close(t.scores, scaled[start:stop])
    assert r.skipped == sum(t.skipped for t in r.tiles)
    close(r.final.z, ref["output"][i])
    ok = np.isfinite(scaled)
    if ok.any():
        top = scaled[ok].max()
        close(r.final.logsumexp, top + math.log(sum(math.exp(s - top) for s in scaled[ok])))
    else:
        assert r.final.logsumexp == -math.inf and not r.final.z.any()
    assert r.memory.held == min(block_q, n) * min(block_k, m) and r.memory.whole == n * m


@settings(max_examples=200, deadline=None)
@given(problems())
def test_every_row_agrees_with_the_reference_tile_by_tile(problem):
    p, (block_q, block_k) = problem
    ref = reference_modern(**lists(p))
    for i in range(len(p["X"])):
        r = row_tiles(**p, row=i, block_q=block_q, block_k=block_k)
        check_row(r, ref, i, block_q, block_k)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(2, 1), (2, 2), (4, 2), (4, 1)]),
       st.booleans(), st.integers(1, 5), st.integers(1, 5))
def test_several_heads_each_agree_with_the_reference(seed, shape, cross, block_q, block_k):
    """Grouped-query heads (G dividing H) with biases, causal, RoPE and ALiBi: each query
    head's tiles, through the key/value head it reads, agree with the reference's head."""
    H, G = shape
    p = gqa_problem(seed, H, G, n=4, m=5 if cross else None, biases=True)
    slopes = [0.25 * (h + 1) for h in range(H)]
    options = dict(causal=True, rope_base=100.0, position_offset=2, X_kv=p["X_kv"])
    ref = reference_grouped(*lists([p["X"], p["heads"], p["kv_heads"], p["W_O"]]),
                            alibi_slopes=slopes, **lists(options))
    for h, head in enumerate(p["heads"]):
        kv = p["kv_heads"][h * G // H]
        for i in range(4):
            r = row_tiles(p["X"], head["W_Q"], kv["W_K"], kv["W_V"], b_Q=head["b_Q"],
                          b_K=kv["b_K"], b_V=kv["b_V"], alibi_slope=slopes[h], row=i,
                          block_q=block_q, block_k=block_k, **options)
            check_row(r, ref["heads"][h], i, block_q, block_k)


@settings(max_examples=50, deadline=None)
@given(problems())
def test_a_query_block_is_its_rows_side_by_side(problem):
    """block_tiles keeps every row of the block at once: its Z and log-sum-exp are the rows'
    own, and its tile holds B_r × B_c scores."""
    p, (block_q, block_k) = problem
    ref = reference_modern(**lists(p))
    n = len(p["X"])
    for b in range(math.ceil(n / block_q)):
        block = block_tiles(prepare(**p), b, block_q, block_k)
        rows = range(b * block_q, min((b + 1) * block_q, n))
        assert block.rows == (rows.start, rows.stop)
        close(block.Z, [ref["output"][i] for i in rows])
        for t in block.tiles:
            assert t.scores.shape == (len(rows), t.keys[1] - t.keys[0])
