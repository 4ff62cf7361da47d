"""POST /api/attention with today's additions — b_Q, b_K, b_V; positional "rope" (rope_base,
position_offset), "sinusoidal" with position_offset and "alibi" (alibi_slopes); kv_heads;
window and sinks — against hand-worked numbers and the independent tests/reference_modern:
their answers and working, what fields, corners and base64 make of them, every combination,
and a 422 naming the field for every bad value."""

import copy
import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from tests.reference import reference_sinusoidal
from tests.reference_modern import (
    paper_alibi_slopes,
    reference_grouped,
    reference_heads,
    reference_modern,
)
from tests.test_api import decode, post, strict_loads

X = [[1, 0], [0, 1], [1, 1]]
H1 = {"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
# With H1: Q = X·W_Q = [[1, 0], [1, 2], [2, 2]], K = [[2, 0], [0, 1], [2, 1]],
# V = [[1, 0], [0, 2], [1, 2]], and the scores Q·Kᵀ = [[2, 0, 2], [2, 2, 4], [4, 2, 6]].
SCORES = [[2, 0, 2], [2, 2, 4], [4, 2, 6]]
I2 = [[1, 0], [0, 1]]
SIN1, COS1, SIN2, COS2 = math.sin(1), math.cos(1), math.sin(2), math.cos(2)
SIN5, COS5 = math.sin(5), math.cos(5)


def one_head(**changes):
    return {"tokens": ["the", "cat", "sat"], "X": X, **H1, **changes}


def two_heads(heads=None, **changes):
    return {"X": X, "heads": heads or [H1, H1], "W_O": [[1, 0], [0, 1], [0, 0], [0, 0]],
            **changes}


def grouped(**changes):
    """Four query heads on two key/value heads (query heads 1, 2 read key/value head 1)."""
    return copy.deepcopy({  # no list shared, so that a test may change one cell
        "X": X, "heads": [{"W_Q": [[1, 0], [1, 2]]}, {"W_Q": [[1, 0], [0, 1]]},
                          {"W_Q": [[0, 1], [1, 0]]}, {"W_Q": [[1, 1], [0, 1]]}],
        "kv_heads": [{"W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]},
                     {"W_K": [[1, 0], [0, 1]], "W_V": [[1], [-1]]}],
        "W_O": np.eye(6, 2).tolist(), **changes})  # d_v 2 + 2 + 1 + 1


def ok(client, body):
    """The answer to ``body``, checked to be a 200 of strict JSON."""
    r = post(client, body)
    assert r.status_code == 200, r.get_json()
    assert r.mimetype == "application/json"
    return strict_loads(r.get_data(as_text=True))


def masked(rows):
    """An answer's scaled scores with null (JSON's −∞) back as −∞."""
    return [[-math.inf if v is None else v for v in row] for row in rows]


def close(actual, expected):
    np.testing.assert_allclose(np.array(actual, dtype=float), np.array(expected, dtype=float),
                               rtol=1e-12, atol=1e-12)


def agree(head, ref):
    """One head's answer and the reference's agree to 1e-12."""
    for name in ("Q", "K", "V", "scores", "weights", "output"):
        close(head[name], ref[name])
    close(masked(head["scaled_scores"]), ref["scaled_scores"])
    assert head["mask"] == ref["allowed"]
    if ref["bias"] is not None:
        close(head["bias"], ref["bias"])


# ---- biases ----


def test_biases_are_added_to_every_row_by_hand(client):
    body = ok(client, one_head(b_Q=[1, 0], b_K=[0, 1], b_V=[1, 1], row=0))
    assert body["Q"] == [[2, 0], [2, 2], [3, 2]]
    assert body["K"] == [[2, 1], [0, 2], [2, 2]]
    assert body["V"] == [[2, 1], [1, 3], [2, 3]]
    assert body["scores"][0] == [4, 0, 4]  # q_1 = (2, 0) against the biased keys
    w = body["working"]
    assert w["q_unbiased"] == [1, 0] and w["b_Q"] == [1, 0] and w["q"] == [2, 0]
    assert w["k_unbiased"] == [[2, 0], [0, 1], [2, 1]] and w["b_K"] == [0, 1]
    assert w["v_unbiased"] == [[1, 0], [0, 2], [1, 2]] and w["b_V"] == [1, 1]
    ref = reference_modern(X, **H1, b_Q=[1, 0], b_K=[0, 1], b_V=[1, 1])
    agree(body, ref)


def test_b_k_leaves_the_weights_exactly_as_they_were_b_q_and_b_v_do_not(client):
    # b_K = (0, 1) adds q_i·b_K = q_i[1] to every score of row i: 0, 2 and 2. With the scale
    # 1 every score is a whole number, so the softmax sees the same differences exactly.
    plain = ok(client, one_head(scale=1))
    with_b_K = ok(client, one_head(scale=1, b_K=[0, 1]))
    assert with_b_K["scores"] == [[2, 0, 2], [4, 4, 6], [6, 4, 8]]
    assert with_b_K["weights"] == plain["weights"]
    assert ok(client, one_head(scale=1, b_Q=[0, 1]))["weights"] != plain["weights"]
    with_b_V = ok(client, one_head(scale=1, b_V=[1, 0]))
    assert with_b_V["weights"] == plain["weights"] and with_b_V["output"] != plain["output"]
    close(np.array(with_b_V["output"]) - np.array(plain["output"]), [[1, 0]] * 3)  # rows sum to 1


def test_biases_in_each_head_and_in_each_key_value_head(client):
    heads = [{**H1, "b_Q": [1, 0]}, {**H1, "b_K": [0, 2], "b_V": [1, -1]}]
    body = ok(client, two_heads(heads, row=1))
    ref = reference_heads(X, heads, two_heads()["W_O"])
    for head, r in zip(body["heads"], ref["heads"], strict=True):
        agree(head, r)
    close(body["output"], ref["output"])
    assert set(body["heads"][0]["working"]) >= {"q_unbiased", "b_Q"}
    assert not set(body["heads"][0]["working"]) & {"k_unbiased", "b_K", "v_unbiased", "b_V"}
    assert body["heads"][1]["working"]["b_K"] == [0, 2] and "b_Q" not in body["heads"][1]["working"]


# ---- rotary positions ----

# The scores of H1 under RoPE with d_k = 2 (one pair, turned by p radians): q_i·R(p_j − p_i)·k_j
# with R(φ)(a, b) = (a cos φ − b sin φ, a sin φ + b cos φ), whatever the offset.
ROPE_SCORES = [[2, -SIN1, 2 * COS2 - SIN2],
               [2 * COS1 - 4 * SIN1, 2, 4 * COS1 + 3 * SIN1],
               [4 * COS2 - 4 * SIN2, 2 * SIN1 + 2 * COS1, 6]]


@pytest.mark.parametrize("offset", [None, 0, 2, 1_000_000])
def test_rope_scores_by_hand_are_the_same_at_every_offset(client, offset):
    body = ok(client, one_head(positional="rope", position_offset=offset, row=1))
    p = offset or 0
    close(body["scores"], ROPE_SCORES)  # one pair turns by exactly p radians: p·θ⁰ = p
    assert body["Q_unrotated"] == [[1, 0], [1, 2], [2, 2]]
    assert body["K_unrotated"] == [[2, 0], [0, 1], [2, 1]]
    close(body["Q"][0], [math.cos(p), math.sin(p)])  # q_1 = (1, 0) turned by p
    close(body["K"][1], [-math.sin(p + 1), math.cos(p + 1)])  # k_2 = (0, 1) turned by p + 1
    w = body["working"]
    assert w["position"] == p + 1 and w["positions_k"] == [p, p + 1, p + 2]
    assert w["frequencies"] == [1] and w["angles"] == [p + 1]
    assert w["angles_k"] == [[p], [p + 1], [p + 2]]
    assert w["q_unrotated"] == [1, 2] and w["k_unrotated"] == body["K_unrotated"]
    assert w["q"] == body["Q"][1] and w["k"] == body["K"]


def test_rope_base_sets_the_second_pairs_frequency(client):
    # d_k = 4, θ = 100: pair 0 turns 1 radian per position, pair 1 θ^(−2/4) = 0.1.
    W = [[1, 0, 1, 0], [0, 1, 0, 1]]
    body = ok(client, one_head(W_Q=W, W_K=W, positional="rope", rope_base=100,
                               position_offset=3, row=2))
    w = body["working"]
    close(w["frequencies"], [1, 0.1])
    close(w["angles"], [5, 0.5])
    close(w["angles_k"], [[3, 0.3], [4, 0.4], [5, 0.5]])
    # x_3 = (1, 1): q_3 unrotated (1, 1, 1, 1), each pair turned by its angle.
    close(w["q"], [COS5 - SIN5, SIN5 + COS5, math.cos(0.5) - math.sin(0.5),
                   math.sin(0.5) + math.cos(0.5)])
    agree(body, reference_modern(X, W, W, H1["W_V"], rope_base=100, position_offset=3))


def test_rope_turns_after_the_biases_and_the_keys_of_x_kv_from_the_offset(client):
    W = [[1, 0, 2, 0], [0, 1, 0, -1]]
    X_kv = [[1, 2], [0, -1], [3, 1], [1, 1]]
    options = dict(b_Q=[1, 0, 0, 1], b_K=[0, 1, 1, 0], rope_base=50, position_offset=4)
    body = ok(client, one_head(W_Q=W, W_K=W, X_kv=X_kv, positional="rope", row=0, **options))
    agree(body, reference_modern(X, W, W, H1["W_V"], X_kv=X_kv, **options))
    close(body["Q_unrotated"], np.array(X) @ W + [1, 0, 0, 1])
    assert body["working"]["positions_k"] == [4, 5, 6, 7]


def test_sinusoidal_positions_from_the_offset(client):
    X_kv = [[1, 2], [0, -1]]
    body = ok(client, one_head(positional="sinusoidal", position_offset=3, X_kv=X_kv))
    close(body["positional_encoding"][0], [math.sin(3), math.cos(3)])  # d_model 2: 1 rad/pos
    close(body["positional_encoding"], reference_sinusoidal(6, 2)[3:])
    close(body["positional_encoding_kv"], reference_sinusoidal(5, 2)[3:])
    moved = (np.array(X) + reference_sinusoidal(6, 2)[3:]).tolist()
    moved_kv = (np.array(X_kv) + reference_sinusoidal(5, 2)[3:]).tolist()
    agree(body, reference_modern(moved, **H1, X_kv=moved_kv))
    assert "Q_unrotated" not in body and "working" not in body
    # Unlike RoPE's, these scores move with the offset.
    assert ok(client, one_head(positional="sinusoidal"))["scores"] != body["scores"]


# ---- ALiBi ----


def test_alibi_bias_by_hand_is_in_the_scaled_scores(client):
    body = ok(client, one_head(positional="alibi", alibi_slopes=[0.5], scale=1, row=2))
    assert body["alibi_slope"] == 0.5
    assert body["bias"] == [[0, -0.5, -1], [-0.5, 0, -0.5], [-1, -0.5, 0]]
    assert body["scores"] == SCORES  # the bias is not in the raw scores
    assert body["scaled_scores"] == [[2, -0.5, 1], [1.5, 2, 3.5], [3, 1.5, 6]]
    w = body["working"]
    assert w["bias"] == [-1, -0.5, 0] and w["alibi_slope"] == 0.5 and w["scaled"] == [3, 1.5, 6]


def test_alibi_default_slope_of_one_head_and_a_causal_mask_after_it(client):
    body = ok(client, one_head(positional="alibi", causal=True))
    assert body["alibi_slope"] == 2 ** -8 == 0.00390625
    assert body["bias"][2] == [-0.0078125, -0.00390625, 0]
    s = 1 / math.sqrt(2)
    assert body["scaled_scores"][0] == [2 * s, None, None]
    close(masked(body["scaled_scores"])[2], [4 * s - 2 ** -7, 2 * s - 2 ** -8, 6 * s])
    agree(body, reference_modern(X, **H1, alibi_slope=2 ** -8, causal=True))


def test_alibi_slopes_of_four_heads_are_the_papers(client):
    heads = [H1, {**H1, "W_Q": I2}, {**H1, "W_K": I2}, {**H1, "W_V": I2}]
    body = ok(client, two_heads(heads, W_O=np.eye(8, 2).tolist(), positional="alibi"))
    assert [h["alibi_slope"] for h in body["heads"]] == [0.25, 0.0625, 0.015625, 0.00390625]
    assert paper_alibi_slopes(4) == [0.25, 0.0625, 0.015625, 0.00390625]
    ref = reference_heads(X, heads, np.eye(8, 2).tolist(), alibi_slopes=paper_alibi_slopes(4))
    for head, r in zip(body["heads"], ref["heads"], strict=True):
        agree(head, r)
    close(body["output"], ref["output"])


def test_alibi_slopes_given_and_zero_is_plain_attention(client):
    body = ok(client, two_heads(positional="alibi", alibi_slopes=[0, 2]))
    plain = ok(client, two_heads())
    assert body["heads"][0]["bias"] == [[0] * 3] * 3
    assert body["heads"][0]["weights"] == plain["heads"][0]["weights"]
    assert body["heads"][1]["alibi_slope"] == 2 and body["heads"][1]["bias"][0] == [0, -2, -4]


# ---- grouped-query heads ----


def test_four_query_heads_on_two_key_value_heads(client):
    request = grouped(row=2)
    body = ok(client, request)
    assert [h["kv_head"] for h in body["heads"]] == [0, 0, 1, 1]
    # Query heads 1 and 2 read the same keys and values, query heads 3 and 4 the others.
    assert body["heads"][0]["K"] == body["heads"][1]["K"] == [[2, 0], [0, 1], [2, 1]]
    assert body["heads"][2]["V"] == body["heads"][3]["V"] == [[1], [-1], [0]]
    assert body["heads"][2]["working"]["k"] == [[1, 0], [0, 1], [1, 1]]
    ref = reference_grouped(X, request["heads"], request["kv_heads"], request["W_O"])
    for head, r in zip(body["heads"], ref["heads"], strict=True):
        agree(head, r)
    close(body["concat"], ref["concat"])
    close(body["output"], ref["output"])


def test_one_key_value_head_is_multi_query_attention_and_g_equal_h_is_multi_head(client):
    kv = {"W_K": H1["W_K"], "W_V": H1["W_V"]}
    mqa = ok(client, two_heads([{"W_Q": H1["W_Q"]}, {"W_Q": I2}], kv_heads=[kv]))
    assert [h["kv_head"] for h in mqa["heads"]] == [0, 0]
    plain = ok(client, two_heads([H1, {**H1, "W_Q": I2}]))
    assert [h["weights"] for h in mqa["heads"]] == [h["weights"] for h in plain["heads"]]
    assert "kv_head" not in plain["heads"][0]
    same = ok(client, two_heads([{"W_Q": H1["W_Q"]}, {"W_Q": I2}], kv_heads=[kv, kv]))
    assert [h["kv_head"] for h in same["heads"]] == [0, 1]
    assert same["output"] == plain["output"]


# ---- window and sinks ----


def test_a_causal_window_of_one_with_one_sink_by_hand(client):
    body = ok(client, one_head(window=1, sinks=1, causal=True, row=2))
    assert body["mask"] == [[True, False, False], [True, True, False], [True, False, True]]
    w = body["working"]
    assert w["window"] == 1 and w["in_window"] == [False, False, True]
    assert w["sinks"] == 1 and w["sink"] == [True, False, False]
    assert w["allowed"] == [True, False, True] and w["scaled"][1] is None
    # Row 3 reads the sink (score 4) and itself (6), both ÷ √2: weights 1 : e^√2.
    e = math.exp(math.sqrt(2))
    close(body["weights"][2], [1 / (1 + e), 0, e / (1 + e)])


def test_a_window_is_a_band_on_both_sides_and_sinks_without_one_change_nothing(client):
    band = ok(client, one_head(window=2, row=0))
    assert band["mask"] == [[True, True, False], [True, True, True], [False, True, True]]
    assert "sinks" not in band["working"] and band["working"]["window"] == 2
    assert ok(client, one_head(sinks=2)) == ok(client, one_head())
    agree(band, reference_modern(X, **H1, window=2))


def test_a_window_that_leaves_a_row_without_keys_warns(client):
    mask = [[False, True, True], [True, True, True], [True, True, True]]
    body = ok(client, one_head(window=1, mask=mask, sinks=1))  # row 1: its own key masked
    assert body["weights"][0] == [0, 0, 0] and body["output"][0] == [0, 0]
    assert body["warnings"] == ["Query 1 has no key it may read, so its weights and output "
                                "are all 0."]


# ---- everything together ----


def test_one_head_with_every_option_against_the_reference(client):
    W = [[1, 0, 2, -1], [0.5, 1, 0, 1]]
    X_kv = [[1, 2], [0, -1], [3, 1], [1, 1], [-1, 0]]
    mask = [[True, True, False, True, True], [True] * 5, [False, True, True, True, True]]
    options = dict(b_Q=[1, 0, 0, 1], b_K=[0, 1, 1, 0], b_V=[0.5, -1], rope_base=30,
                   position_offset=2, causal=True, scale=0.3, mask=mask, window=2, sinks=1)
    body = ok(client, one_head(W_Q=W, W_K=W, X_kv=X_kv, positional="rope", row=2, **options))
    agree(body, reference_modern(X, W, W, H1["W_V"], X_kv=X_kv, **options))
    assert body["scale"] == 0.3


def test_several_heads_with_alibi_biases_cross_attention_mask_and_window(client):
    heads = [{**H1, "b_Q": [1, 1], "b_V": [0, 1]}, {"W_Q": I2, "W_K": I2, "W_V": [[2], [1]],
                                                      "b_K": [1, -1]}]
    X_kv = [[1, 2], [0, -1], [3, 1], [1, 1]]
    mask = [[True, True, False, True], [True] * 4, [False, True, True, True]]
    options = dict(X_kv=X_kv, causal=False, scale=0.5, mask=mask, window=2, sinks=1)
    W_O = [[1, 0], [0, 1], [1, 1]]
    body = ok(client, two_heads(heads, W_O=W_O, positional="alibi", alibi_slopes=[0.5, 0.25],
                                row=1, **options))
    ref = reference_heads(X, heads, W_O, alibi_slopes=[0.5, 0.25], **options)
    for head, r in zip(body["heads"], ref["heads"], strict=True):
        agree(head, r)
    close(body["output"], ref["output"])
    assert body["heads"][1]["working"]["bias"] == [-0.25, 0, -0.25, -0.5]


@pytest.mark.parametrize("positional", ["rope", "alibi"])
def test_grouped_heads_with_biases_positions_causal_window_and_sinks(client, positional):
    request = grouped(causal=True, window=2, sinks=1, scale=0.7, positional=positional, row=2)
    request["heads"][1]["b_Q"] = [1, -1]
    request["kv_heads"][1] |= {"b_K": [0.5, 0.5], "b_V": [2]}
    X_kv = [[1, 2], [0, -1], [3, 1], [1, 1]]
    request["X_kv"] = X_kv
    body = ok(client, request)
    slopes = paper_alibi_slopes(4) if positional == "alibi" else None
    rope = dict(rope_base=10000) if positional == "rope" else {}
    ref = reference_grouped(X, request["heads"], request["kv_heads"], request["W_O"],
                            causal=True, window=2, sinks=1, scale=0.7, X_kv=X_kv,
                            alibi_slopes=slopes, **rope)
    for head, r in zip(body["heads"], ref["heads"], strict=True):
        agree(head, r)
    close(body["output"], ref["output"])
    assert body["heads"][3]["working"]["b_V"] == [2]
    assert body["heads"][1]["working"]["b_Q"] == [1, -1]


# ---- which parts an answer holds ----

TOP = {"tokens", "causal", "d_k", "scale", "Q", "K", "V", "scores", "scaled_scores", "mask",
       "weights", "output", "warnings", "working"}
WORKING = {"row", "token", "q", "k", "v", "products", "dots", "scale", "scaled", "allowed",
           "exp", "exp_sum", "exp_overflow", "shift", "exp_shifted", "exp_shifted_sum",
           "weights", "entropy", "jacobian_norm", "terms", "z"}
ROTATION = {"q_unrotated", "k_unrotated", "position", "positions_k", "frequencies", "angles",
            "angles_k"}


@pytest.mark.parametrize("changes, top, steps", [
    ({}, set(), set()),
    ({"b_Q": [1, 1]}, set(), {"q_unbiased", "b_Q"}),
    ({"b_K": [1, 1]}, set(), {"k_unbiased", "b_K"}),
    ({"b_V": [1, 1]}, set(), {"v_unbiased", "b_V"}),
    ({"positional": "rope"}, {"Q_unrotated", "K_unrotated"}, ROTATION),
    ({"positional": "rope", "rope_base": 5, "position_offset": 0},
     {"Q_unrotated", "K_unrotated"}, ROTATION),
    ({"positional": "sinusoidal", "position_offset": 4}, {"positional_encoding"}, set()),
    ({"positional": "alibi"}, {"bias", "alibi_slope"}, {"bias", "alibi_slope"}),
    ({"positional": "alibi", "alibi_slopes": [0]}, {"bias", "alibi_slope"},
     {"bias", "alibi_slope"}),
    ({"window": 5}, set(), {"window", "in_window"}),
    ({"window": 1, "sinks": 0}, set(), {"window", "in_window"}),
    ({"window": 1, "sinks": 2}, set(), {"window", "in_window", "sinks", "sink"}),
    ({"sinks": 2}, set(), set()),  # without a window, sinks change nothing
    ({"positional": None, "window": None, "sinks": None, "b_Q": None}, set(), set()),
])
def test_each_variants_parts_are_in_the_answer_exactly_when_it_is_on(client, changes, top,
                                                                    steps):
    body = ok(client, one_head(row=1, **changes))
    assert set(body) == TOP | top
    assert set(body["working"]) == WORKING | steps


def test_kv_head_is_in_each_heads_answer_exactly_with_kv_heads(client):
    for request, expected in ((grouped(), [0, 0, 1, 1]), (two_heads(), None)):
        for head in ok(client, request)["heads"]:
            assert ("kv_head" in head) == (expected is not None)
    body = ok(client, grouped(positional="rope", row=0))
    head = TOP - {"tokens", "causal"}
    assert set(body["heads"][0]) == head | {"kv_head", "Q_unrotated", "K_unrotated"}
    assert set(body["heads"][0]["working"]) == WORKING | ROTATION


# ---- fields, corners and base64 ----


def test_fields_select_the_new_parts_and_their_corners(client):
    body = ok(client, one_head(positional="alibi", alibi_slopes=[1], row=2,
                               fields=["bias[:2,:2]", "alibi_slope", "working.bias"]))
    assert body == {"bias": [[0, -1], [-1, 0]], "alibi_slope": 1,
                    "working": {"row": 2, "bias": [-2, -1, 0]}}
    body = ok(client, one_head(positional="rope", fields=["Q_unrotated[:1]", "K_unrotated[:3,:1]",
                                                          "bias", "kv_head"]))
    assert body == {"Q_unrotated": [[1, 0]], "K_unrotated": [[2], [0], [2]]}  # no ALiBi here


def test_fields_of_every_head_and_of_one_head_name_the_new_parts(client):
    body = ok(client, grouped(positional="rope", row=1,
                              fields=["heads.kv_head", "heads[1].working.angles",
                                      "heads[3].Q_unrotated[:1,:1]", "heads.working.position"]))
    assert body == {"heads": [
        {"kv_head": 0, "working": {"row": 1, "position": 1}},
        {"kv_head": 0, "working": {"row": 1, "position": 1, "angles": [1]}},
        {"kv_head": 1, "working": {"row": 1, "position": 1}},
        {"kv_head": 1, "Q_unrotated": [[1]], "working": {"row": 1, "position": 1}}]}
    body = ok(client, two_heads(positional="alibi", fields=["heads.alibi_slope",
                                                            "heads[0].bias[:1]"]))
    # Two heads: the paper's 2^(−8(h+1)/2), 2^−4 and 2^−8.
    assert body == {"heads": [{"alibi_slope": 0.0625, "bias": [[0, -0.0625, -0.125]]},
                              {"alibi_slope": 0.00390625}]}
    body = ok(client, one_head(window=1, sinks=1, row=0,
                               fields=["working.in_window", "working.sink", "working.sinks"]))
    assert body == {"working": {"row": 0, "in_window": [True, False, False], "sinks": 1,
                                "sink": [True, False, False]}}


@pytest.mark.parametrize("fields", [["working.angles[:1]"], ["alibi_slope[:1]"],
                                    ["kv_head[:1]"], ["heads.bias"]])
def test_no_corner_of_a_new_number_or_vector_and_no_heads_of_one_head(client, fields):
    r = post(client, one_head(positional="alibi", row=0, fields=fields))
    assert r.status_code == 422
    assert r.get_json()["error"]["field"] == "fields[0]"


def test_base64_sends_the_new_arrays_exactly(client):
    asked = one_head(positional="rope", position_offset=2, row=1, window=2, sinks=1,
                     b_Q=[0.5, 0], causal=True)
    plain = ok(client, asked)
    packed = ok(client, {**asked, "encoding": "base64"})
    assert packed["Q_unrotated"]["dtype"] == "float64" and packed["Q_unrotated"]["shape"] == [3, 2]
    assert packed["working"]["in_window"]["dtype"] == "bool"
    assert packed["working"]["position"] == 3 and packed["working"]["window"] == 2
    got = decode(packed)
    for name in ("Q_unrotated", "K_unrotated", "Q", "K"):
        assert got[name].tolist() == plain[name], name
    w = got["working"]
    for name in ("q_unbiased", "b_Q", "q_unrotated", "k_unrotated", "positions_k",
                 "frequencies", "angles", "angles_k"):
        assert w[name].tolist() == plain["working"][name], name
    assert w["positions_k"].tolist() == [2, 3, 4]
    assert w["in_window"].tolist() == [True, True, True]
    assert w["sink"].tolist() == [True, False, False]
    assert got["scaled_scores"][0][1] == -math.inf  # causal


def test_base64_alibi_and_kv_heads(client):
    packed = ok(client, grouped(positional="alibi", encoding="base64", row=0))
    got = decode(packed)
    assert [h["kv_head"] for h in got["heads"]] == [0, 0, 1, 1]
    assert got["heads"][0]["bias"].tolist() == [[0, -0.25, -0.5], [-0.25, 0, -0.25],
                                                [-0.5, -0.25, 0]]
    assert got["heads"][3]["working"]["bias"].tolist() == [0, -2 ** -8, -2 ** -7]
    assert got["heads"][1]["alibi_slope"] == 0.0625


# ---- bad input: a 422 naming the field, its value in the message ----

FOUR = grouped()


def at(base, path, value):
    """A copy of ``base`` with the value at ``path`` (keys and indices) set, or deleted
    when ``value`` is DELETE."""
    body = copy.deepcopy(base)
    target = body
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return body


DELETE = object()
D3 = [[1, 0, 0], [0, 1, 0]]  # d_model 2 × d_k 3: odd, for RoPE
ROPE_TEXT = ("rotary positions turn the numbers of a query and a key in pairs, so d_k must be "
             "even; it is 3")


def _whole(name, low, meaning, got):
    return (f"{name} must be a whole number from {low} to 1,000,000 ({meaning}), got {got}")


OFFSET, WINDOW = "the position of the first token", "query i reads key j only when |i − j| < window"
SINKS = "the first keys, readable from every query whatever the window"

BAD = [
    # biases
    ("b_K too long", one_head(b_K=[1, 2, 3]), "b_K",
     "b_K has 3 numbers, but it is added to every row of K, which is d_k = 2 wide; it needs 2 "
     "numbers"),
    ("b_V too short", one_head(b_V=[1]), "b_V",
     "b_V has 1 number, but it is added to every row of V, which is d_v = 2 wide; it needs 2 "
     "numbers"),
    ("b_Q of head 2 too long", two_heads([H1, {**H1, "b_Q": [1, 2, 3]}]), "heads[1].b_Q",
     "Head 2: b_Q has 3 numbers, but it is added to every row of Q, which is d_k = 2 wide; it "
     "needs 2 numbers"),
    ("b_V of kv head 2 too long", at(FOUR, ("kv_heads", 1, "b_V"), [1, 2]), "kv_heads[1].b_V",
     "Key/value head 2: b_V has 2 numbers, but it is added to every row of V, which is d_v = 1 "
     "wide; it needs 1 number"),
    ("b_Q a string in it", one_head(b_Q=[1, "a"]), "b_Q[1]",
     'b_Q column 2 must be a number, got the string "a"'),
    ("b_K null in it", at(FOUR, ("kv_heads", 1, "b_K"), [None, 1]), "kv_heads[1].b_K[0]",
     "b_K key/value head 2 column 1 must be a number, got null"),
    ("b_Q of head 2 a bool in it", two_heads([H1, {**H1, "b_Q": [1, True]}]), "heads[1].b_Q[1]",
     "b_Q head 2 column 2 must be a number, got true"),
    ("b_V not a list", one_head(b_V=3), "b_V", "b_V must be a list of numbers, got 3"),
    ("b_K empty", one_head(b_K=[]), "b_K", "b_K has 0 numbers; it needs 1 to 256"),
    ("b_Q at the top of several heads", two_heads(b_Q=[1, 0]), "b_Q",
     "Send either W_Q, W_K and W_V (one head) or heads with W_O, not both; this request has "
     "heads and b_Q (with heads, each head carries its own weights and biases)"),
    # kv_heads
    ("kv_heads with one head", one_head(kv_heads=FOUR["kv_heads"]), "kv_heads",
     "kv_heads goes with heads; a single head sent as W_Q, W_K and W_V has no kv_heads"),
    ("kv_heads 3 for 4 heads", {**FOUR, "kv_heads": [FOUR["kv_heads"][0]] * 3}, "kv_heads",
     "kv_heads has 3 key/value heads but the request has 4 query heads; the query heads share "
     "them equally, so their number must divide 4 (1, 2, 4)"),
    ("kv_heads 2 for 1 head", {**FOUR, "heads": FOUR["heads"][:1], "W_O": I2}, "kv_heads",
     "kv_heads has 2 key/value heads but the request has 1 query head; the query heads share "
     "them equally, so their number must divide 1 (1)"),
    ("kv_heads empty", {**FOUR, "kv_heads": []}, "kv_heads",
     "kv_heads must be a list of 1 to 16 objects with W_K and W_V, got 0 of them"),
    ("kv_heads not a list", {**FOUR, "kv_heads": {"W_K": I2}}, "kv_heads",
     "kv_heads must be a list of 1 to 16 objects with W_K and W_V, got an object"),
    ("a kv head not an object", at(FOUR, ("kv_heads", 1), [I2, I2]), "kv_heads[1]",
     "Key/value head 2 must be an object with W_K and W_V, got a list"),
    ("a query head with W_K", at(FOUR, ("heads", 2, "W_K"), I2), "heads[2].W_K",
     "Head 3 has W_K, but with kv_heads a query head carries only W_Q and b_Q: query head 3 "
     "reads the keys and values of key/value head 2"),
    ("a query head with b_V", at(FOUR, ("heads", 1, "b_V"), [1]), "heads[1].b_V",
     "Head 2 has b_V, but with kv_heads a query head carries only W_Q and b_Q: query head 2 "
     "reads the keys and values of key/value head 1"),
    ("a query head without W_Q", at(FOUR, ("heads", 0), {"b_Q": [1, 1]}), "heads[0].W_Q",
     'Head 1 needs the field "W_Q"'),
    ("a kv head without W_V", at(FOUR, ("kv_heads", 1, "W_V"), DELETE), "kv_heads[1].W_V",
     'Key/value head 2 needs the field "W_V"'),
    ("a kv head with W_Q", at(FOUR, ("kv_heads", 0, "W_Q"), I2), "kv_heads[0].W_Q",
     'Key/value head 1 has an unknown field "W_Q"; did you mean "W_V"? The fields are W_K, '
     "W_V, b_K, b_V."),
    ("a kv head with b_k", at(FOUR, ("kv_heads", 1, "b_k"), [1, 1]), "kv_heads[1].b_k",
     'Key/value head 2 has an unknown field "b_k"; did you mean "b_K"? The fields are W_K, '
     "W_V, b_K, b_V."),
    ("a kv head's W_K cell", at(FOUR, ("kv_heads", 1, "W_K", 0, 1), "x"), "kv_heads[1].W_K[0][1]",
     'W_K key/value head 2 row 1 column 2 must be a number, got the string "x"'),
    ("a kv head's W_K too wide", at(FOUR, ("kv_heads", 1, "W_K"), D3), "kv_heads[1].W_K",
     "Head 3 (reading key/value head 2): W_Q has 2 columns but W_K has 3; queries and keys "
     "must have the same width d_k to take their dot product"),
    # positional and rope_base
    ("positional unknown", one_head(positional="RoPE"), "positional",
     'positional must be null, "sinusoidal", "rope" or "alibi", got the string "RoPE"'),
    ("positional true", one_head(positional=True), "positional",
     'positional must be null, "sinusoidal", "rope" or "alibi", got true'),
    ("rope with odd d_k", one_head(positional="rope", W_Q=D3, W_K=D3), "positional", ROPE_TEXT),
    ("rope with odd d_k in head 2", two_heads([H1, {**H1, "W_Q": D3, "W_K": D3}],
                                              positional="rope"), "positional",
     f"Head 2: {ROPE_TEXT}"),
    ("rope with odd d_k in kv head 1", at(at(FOUR, ("kv_heads", 0, "W_K"), D3),
                                          ("heads",), [{"W_Q": D3}] * 4) | {"positional": "rope"},
     "positional", f"Key/value head 1: {ROPE_TEXT}"),
    ("rope_base 0", one_head(positional="rope", rope_base=0), "rope_base",
     "rope_base (θ) must be a positive number, got 0"),
    ("rope_base negative", one_head(positional="rope", rope_base=-2.5), "rope_base",
     "rope_base (θ) must be a positive number, got -2.5"),
    ("rope_base a string", one_head(positional="rope", rope_base="10000"), "rope_base",
     'rope_base must be a number, got the string "10000"'),
    ("rope_base true", one_head(positional="rope", rope_base=True), "rope_base",
     "rope_base must be a number, got true"),
    ("rope_base with positional null", one_head(positional=None, rope_base=500), "rope_base",
     'rope_base goes with "positional": "rope"; this request has no positional'),
    ("rope_base with sinusoidal", one_head(positional="sinusoidal", rope_base=500), "rope_base",
     'rope_base goes with "positional": "rope"; this request has "positional": "sinusoidal"'),
    ("rope_base so small the angles overflow", one_head(
        positional="rope", rope_base=1e-320, W_Q=np.eye(2, 64).tolist(),
        W_K=np.eye(2, 64).tolist()), "rope_base",
     "rope_base (θ) is 1e-320: the last pair of a d_k = 64 query or key at position 2 turns by "
     "2·θ^(−62/64) radians, beyond float64's range (about ±1.8e308), and a θ below 1 turns the "
     "later pairs faster; make θ larger (10000 is usual)"),
    ("rope_base so small the angles overflow, two heads", two_heads(
        [{**H1, "W_Q": np.eye(2, 64).tolist(), "W_K": np.eye(2, 64).tolist()}] * 2,
        positional="rope", rope_base=1e-320, W_O=np.eye(4, 2).tolist()), "rope_base",
     "rope_base (θ) is 1e-320: the last pair of a d_k = 64 query or key at position 2 turns by "
     "2·θ^(−62/64) radians, beyond float64's range (about ±1.8e308), and a θ below 1 turns the "
     "later pairs faster; make θ larger (10000 is usual)"),
    # position_offset
    *[(f"position_offset {said}", one_head(positional="rope", position_offset=value),
       "position_offset", _whole("position_offset", 0, OFFSET, said))
      for value, said in ((-1, "-1"), (1.5, "1.5"), (True, "true"), (1_000_001, "1000001"),
                          ("3", 'the string "3"'), (2.0, "2.0"))],
    ("position_offset with alibi", one_head(positional="alibi", position_offset=2),
     "position_offset", 'position_offset goes with "positional": "sinusoidal" or "rope"; this '
     'request has "positional": "alibi"'),
    ("position_offset without positions", one_head(position_offset=2), "position_offset",
     'position_offset goes with "positional": "sinusoidal" or "rope"; this request has no '
     "positional"),
    # alibi_slopes
    ("alibi_slopes too many", one_head(positional="alibi", alibi_slopes=[0.5, 0.25]),
     "alibi_slopes", "alibi_slopes has 2 slopes but the request has 1 head; give one slope per "
     "head"),
    ("alibi_slopes too few", two_heads(positional="alibi", alibi_slopes=[0.5]), "alibi_slopes",
     "alibi_slopes has 1 slope but the request has 2 heads; give one slope per head"),
    ("alibi_slopes for 4 query heads, not 2 kv heads", FOUR | {"positional": "alibi",
                                                             "alibi_slopes": [1, 1]},
     "alibi_slopes", "alibi_slopes has 2 slopes but the request has 4 heads; give one slope per "
     "head"),
    ("alibi slope negative", two_heads(positional="alibi", alibi_slopes=[0.5, -0.25]),
     "alibi_slopes[1]", "ALiBi slope head 2 is -0.25; a slope must be 0 or more (the bias "
     "−slope·|i − j| must push far keys down, not up)"),
    ("alibi slope a string", two_heads(positional="alibi", alibi_slopes=["1", 1]),
     "alibi_slopes[0]", 'ALiBi slope head 1 must be a number, got the string "1"'),
    ("alibi_slopes empty", one_head(positional="alibi", alibi_slopes=[]), "alibi_slopes",
     "alibi_slopes has 0 numbers; it needs 1 to 16"),
    ("alibi_slopes without alibi", one_head(positional="rope", alibi_slopes=[1]),
     "alibi_slopes", 'alibi_slopes goes with "positional": "alibi"; this request has '
     '"positional": "rope"'),
    ("alibi slope too large", two_heads(positional="alibi", alibi_slopes=[1, 1e308]),
     "alibi_slopes[1]", "Head 2: the ALiBi slope 1e+308 times the distance 2 is beyond "
     "float64's range (about ±1.8e308); make the slope smaller"),
    # window and sinks
    *[(f"window {said}", one_head(window=value), "window", _whole("window", 1, WINDOW, said))
      for value, said in ((0, "0"), (1.5, "1.5"), ("3", 'the string "3"'), (True, "true"),
                          (-2, "-2"), (1_000_001, "1000001"))],
    *[(f"sinks {said}", one_head(window=2, sinks=value), "sinks",
       _whole("sinks", 0, SINKS, said))
      for value, said in ((-1, "-1"), (0.5, "0.5"), ("1", 'the string "1"'), (False, "false"),
                          (1_000_001, "1000001"))],
]


@pytest.mark.parametrize("body, field, message", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_values_of_the_new_fields_are_a_422_naming_them(client, body, field, message):
    r = post(client, body)
    assert r.status_code == 422
    assert r.mimetype == "application/json"
    assert strict_loads(r.get_data(as_text=True)) == {"error": {"message": message,
                                                                "field": field}}


def test_the_largest_offset_window_and_sinks_are_accepted(client):
    body = ok(client, one_head(positional="sinusoidal", position_offset=1_000_000,
                               window=1_000_000, sinks=1_000_000))
    assert body["mask"] == [[True] * 3] * 3
    close(body["positional_encoding"][0], [math.sin(1e6), math.cos(1e6)])


def test_a_small_rope_base_whose_angles_stay_finite_is_computed(client):
    # θ = 1e-300 turns pair c by θ^(−2c/64) = 10^(300·2c/64) radians per position: up to
    # 10^290.6, finite, so the request is computed (its angles are huge but exact numbers).
    W = np.eye(2, 64).tolist()
    body = ok(client, one_head(W_Q=W, W_K=W, positional="rope", rope_base=1e-300, row=2))
    w = body["working"]
    close(w["frequencies"][:3], [1, 10 ** (600 / 64), 10 ** (1200 / 64)])
    assert w["angles"][31] == 2 * w["frequencies"][31] and math.isfinite(w["angles"][31])


# ---- the documented examples ----

HTTP_API = Path(__file__).resolve().parents[1] / "docs/http-api.md"
NEW_FIELDS = ("b_Q", "positional", "kv_heads", "window")  # one in each new example


def guide_requests(route="/api/attention"):
    """The request bodies of docs/http-api.md's JSON blocks (some indented under a list item) for
    ``route``: a body naming a "model" is the real models' (/api/model/attention)."""
    blocks = re.findall(r"^ *```json\n(.*?)^ *```", HTTP_API.read_text(), re.M | re.S)
    return [b for b in map(json.loads, blocks) if ("model" in b) == (route != "/api/attention")]


def docs_requests(client, route="/api/attention"):
    r = client.get("/api/docs")
    assert r.status_code == 200
    blocks = re.findall(r'<pre tabindex="0"><code>(\{.*?\})</code></pre>',
                        r.get_data(as_text=True), re.S)
    bodies = [json.loads(html.unescape(b)) for b in blocks]
    return [b for b in bodies if ("model" in b) == (route != "/api/attention")]


def test_the_guide_and_the_docs_page_give_the_same_example_of_each_new_field(client):
    guide = [b for b in guide_requests() if any(f in b for f in NEW_FIELDS)]
    docs = [b for b in docs_requests(client) if any(f in b for f in NEW_FIELDS)]
    assert guide == docs and len(guide) == 5
    assert [sorted(set(b) & {"b_Q", "positional", "kv_heads", "window", "sinks"})
            for b in guide] == [["b_Q"], ["positional"], ["positional"], ["kv_heads"],
                                 ["sinks", "window"]]


def test_every_documented_example_computes(client):
    answers = [ok(client, body) for body in [*guide_requests(), *docs_requests(client)]]
    assert len(answers) == 6 + 6
    biases, rope, alibi, kv, window = answers[1:6]
    assert biases["working"]["q"] == [2, 0]  # x_1·W_Q + b_Q = (1, 0) + (1, 0)
    close(rope["Q"][0], [math.cos(5), math.sin(5)])  # q_1 = (1, 0) at position 5
    assert alibi["bias"][2] == [-1, -0.5, 0]
    assert [h["kv_head"] for h in kv["heads"]] == [0, 0]
    # Token 4 reads its window (tokens 3, 4) and the sink, token 1.
    assert window["working"]["allowed"] == [True, False, True, True]
