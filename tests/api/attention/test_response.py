"""attention_api.attention.response: the answer to several heads, a second sequence, positions and a
custom mask, what fields, corners, weights_u8 and strongest_keys keep of it, and the
working of the selected row."""

import base64
import json
import math

import numpy as np
import pytest

from attention_api import working_body
from attention_api.attention.request import WORKING_FIELDS
from attention_core import attention, working
from tests.api.helpers import (
    COS1,
    COS2,
    COS5,
    H1,
    I2,
    SCORES,
    SIN1,
    SIN2,
    SIN5,
    X,
    agree,
    close,
    decode,
    grouped,
    masked,
    ok,
    one_head,
    post,
    two_heads,
)
from tests.reference import (
    reference_attention,
    reference_entropy,
    reference_jacobian_norm,
    reference_multi_head,
    reference_sinusoidal,
)
from tests.reference_modern import (
    paper_alibi_slopes,
    reference_grouped,
    reference_heads,
    reference_modern,
)

H2 = {"W_Q": [[0, 1], [1, 0]], "W_K": [[1, 1], [0, 1]], "W_V": [[1], [1]]}
W_O = [[1, 0], [0, 1], [0.5, -0.5]]


def test_two_heads_give_each_head_concat_and_output(client):
    r = post(client, {"tokens": ["the", "cat", "sat"], "X": X, "heads": [H1, H2], "W_O": W_O,
                      "row": 2})
    assert r.status_code == 200
    body = r.get_json()
    assert set(body) >= {"tokens", "heads", "concat", "output", "warnings"}
    assert "weights" not in body
    assert len(body["heads"]) == 2
    # Head 1 is the default example: its numbers are the hand-worked ones.
    assert np.round(body["heads"][0]["weights"], 3).tolist()[2] == [0.187, 0.045, 0.768]
    assert np.round(body["heads"][0]["working"]["z"], 3).tolist() == [0.955, 1.627]
    ref = reference_multi_head(X, [[h["W_Q"], h["W_K"], h["W_V"]] for h in (H1, H2)], W_O)
    np.testing.assert_allclose(body["concat"], ref["concat"], atol=1e-12)
    np.testing.assert_allclose(body["output"], ref["output"], atol=1e-12)
    assert body["heads"][1]["d_k"] == 2 and np.array(body["heads"][1]["V"]).shape == (3, 1)


def test_cross_attention_with_labels_and_top_left_causal_mask(client):
    X_kv = [[1, 1], [2, 0], [0, 3], [1, -1]]
    r = post(client, {"X": X, **H1, "X_kv": X_kv, "tokens_kv": ["w", "x", "y", "z"],
                      "causal": True, "row": 0})
    assert r.status_code == 200
    body = r.get_json()
    assert body["tokens_kv"] == ["w", "x", "y", "z"]
    assert body["mask"] == [[True, False, False, False], [True, True, False, False],
                            [True, True, True, False]]
    ref = reference_attention(X, H1["W_Q"], H1["W_K"], H1["W_V"], X_kv=X_kv, causal=True)
    np.testing.assert_allclose(body["weights"], ref["weights"], atol=1e-12)
    assert body["working"]["token"] == "t1" and len(body["working"]["weights"]) == 4
    assert body["scaled_scores"][0][1:] == [None, None, None]


def test_sinusoidal_positions_are_added_to_x_and_returned(client):
    r = post(client, {"X": X, **H1, "positional": "sinusoidal"})
    assert r.status_code == 200
    body = r.get_json()
    pe = reference_sinusoidal(3, 2)
    np.testing.assert_allclose(body["positional_encoding"], pe, atol=1e-15)
    Xp = (np.array(X) + np.array(pe)).tolist()
    ref = reference_attention(Xp, H1["W_Q"], H1["W_K"], H1["W_V"])
    np.testing.assert_allclose(body["weights"], ref["weights"], atol=1e-12)


def test_a_padding_mask_leaving_a_row_empty_gives_zeros_and_a_warning(client):
    mask = [[False, False, False], [True, True, False], [True, True, True]]
    r = post(client, {"X": X, **H1, "mask": mask})
    assert r.status_code == 200
    body = r.get_json()
    assert body["weights"][0] == [0, 0, 0] and body["output"][0] == [0, 0]
    assert body["warnings"] == [
        "Query 1 has no key it may read, so its weights and output are all 0."]


BAD = [
    ({"X": X, **H1, "heads": [H1], "W_O": W_O}, "heads", "not both"),
    ({"X": X, **H1, "W_O": W_O}, "W_O", "W_O goes with heads"),
    ({"X": X, "heads": [H1]}, "W_O", "needs"),
    ({"X": X, "heads": [], "W_O": W_O}, "heads", "1 to 16"),
    ({"X": X, "heads": "x", "W_O": W_O}, "heads", "list"),
    ({"X": X, "heads": [H1, {**H2, "W_q": [[1]]}], "W_O": W_O}, "heads[1].W_q",
     'did you mean "W_Q"'),
    ({"X": X, "heads": [H1, {"W_Q": H2["W_Q"], "W_K": H2["W_K"]}], "W_O": W_O}, "heads[1].W_V",
     "needs"),
    ({"X": X, "heads": [H1, {**H2, "W_V": [[1], ["a"]]}], "W_O": W_O}, "heads[1].W_V[1][0]",
     '"a"'),
    ({"X": X, "heads": [H1, H2], "W_O": [[1, 0]]}, "W_O", "concatenate to 3"),
    ({"X": X, **H1, "tokens_kv": ["a"]}, "tokens_kv", "no X_kv"),
    ({"X": X, **H1, "X_kv": [[1, 2]], "tokens_kv": ["a", "b"]}, "tokens_kv",
     "2 labels but X_kv has 1"),
    ({"X": X, **H1, "X_kv": [[1, 2, 3]]}, "X_kv", "3 numbers per token but X has 2"),
    ({"X": X, **H1, "X_kv": [[1, 2]], "mask": [[True]] * 3 + [[True]]}, "mask", "must be 3×1"),
    ({"X": X, **H1, "positional": "learned"}, "positional", "sinusoidal"),
]


@pytest.mark.parametrize("body, field, words", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_multi_head_and_cross_requests_are_422_naming_the_field(client, body, field, words):
    r = post(client, body)
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["field"] == field and words in error["message"], error


def test_fields_select_parts_of_every_head(client):
    r = post(client, {"X": X, "heads": [H1, H2], "W_O": W_O, "row": 1,
                      "fields": ["output", "heads.weights", "heads.working.z"]})
    assert r.status_code == 200
    body = r.get_json()
    assert set(body) == {"output", "heads"}
    assert [set(h) for h in body["heads"]] == [{"weights", "working"}] * 2
    assert body["heads"][0]["working"] == {"row": 1, "z": pytest.approx([0.8364, 1.6728], abs=1e-4)}
    bad = post(client, {"X": X, **H1, "fields": ["heads.nope"]})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "fields[0]"


def test_fields_select_parts_of_one_head(client):
    # The page draws every head's heatmap but the matrices and working of one head only.
    r = post(client, {"X": X, "heads": [H1, H2], "W_O": W_O, "row": 2,
                      "fields": ["heads.weights", "heads[0].Q", "heads[0].working.z"]})
    assert r.status_code == 200
    heads = r.get_json()["heads"]
    assert [set(h) for h in heads] == [{"weights", "Q", "working"}, {"weights"}]
    assert heads[0]["Q"] == [[1.0, 0.0], [1.0, 2.0], [2.0, 2.0]]  # X·W_Q of the hand-worked example
    assert np.round(heads[0]["working"]["z"], 3).tolist() == [0.955, 1.627]
    # Head 2's weights, from the plain-loop reference.
    expected = reference_attention(X, H2["W_Q"], H2["W_K"], H2["W_V"])["weights"]
    assert np.allclose(heads[1]["weights"], expected, atol=1e-12)


@pytest.mark.parametrize("body, words", [
    ({"X": X, "heads": [H1, H2], "W_O": W_O, "fields": ["heads[2].Q"]},
     "2 heads, so k in heads[k] runs from 0 to 1 (0-based, heads 1 to 2)"),
    ({"X": X, **H1, "fields": ["output", "heads[0].Q"]}, "no heads list"),
    # Every head's field is refused as head 1's is: a single head has no heads list.
    ({"X": X, **H1, "fields": ["output", "heads.Q"]}, "no heads list"),
    ({"X": X, **H1, "fields": ["heads.working.z[:1]"]}, "no heads list"),
    ({"X": X, "heads": [H1, H2], "W_O": W_O, "fields": ["heads[0].nope"]}, "not a response field"),
    ({"X": X, "heads": [H1, H2], "W_O": W_O, "fields": ["heads[01].Q"]}, "not a response field"),
])
def test_one_head_fields_must_name_a_head_and_a_field(client, body, words):
    r = post(client, body)
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["field"] == f"fields[{len(body['fields']) - 1}]", error
    assert words in error["message"], error


def test_weights_u8_is_the_weights_at_heatmap_precision_only_when_asked(client):
    body = {"X": X, "heads": [H1, H2], "W_O": W_O}
    assert "weights_u8" not in post(client, body).get_json()["heads"][0]
    r = post(client, {**body, "fields": ["heads.weights_u8", "heads[0].weights"]})
    assert r.status_code == 200
    heads = r.get_json()["heads"]
    assert set(heads[0]) == {"weights", "weights_u8"} and set(heads[1]) == {"weights_u8"}
    for k, H in enumerate((H1, H2)):
        A = np.array(reference_attention(X, H["W_Q"], H["W_K"], H["W_V"])["weights"])
        assert heads[k]["weights_u8"] == np.floor(A * 255 + 0.5).astype(int).tolist()
    # Row 3 of head 1, by hand: 255 × (0.18657, 0.04535, 0.76808) = 47.6, 11.6, 195.9.
    assert heads[0]["weights_u8"][2] == [48, 12, 196]
    packed = post(client, {**body, "fields": ["heads.weights_u8"], "encoding": "base64"}).get_json()
    assert packed["heads"][1]["weights_u8"]["dtype"] == "uint8"
    import base64
    unpacked = base64.b64decode(packed["heads"][1]["weights_u8"]["base64"])
    assert list(unpacked) == [b for row in heads[1]["weights_u8"] for b in row]


def test_a_corner_of_a_matrix_is_its_first_rows_and_columns(client):
    # Q = X·W_Q of the hand-worked example is [[1, 0], [1, 2], [2, 2]].
    r = post(client, {"X": X, **H1, "fields": ["Q[:2,:1]", "K[:1]", "V[:16,:16]", "weights"]})
    assert r.status_code == 200
    body = r.get_json()
    assert body["Q"] == [[1.0], [1.0]]
    assert body["K"] == [[2.0, 0.0]]  # first row of K = X·W_K
    assert body["V"] == [[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]], "a corner larger than V is all of V"
    assert set(body) == {"Q", "K", "V", "weights"}
    packed = post(client, {"X": X, **H1, "fields": ["Q[:2, :1]"], "encoding": "base64"}).get_json()
    assert packed["Q"]["shape"] == [2, 1]
    assert np.frombuffer(base64.b64decode(packed["Q"]["base64"]), "<f8").tolist() == [1.0, 1.0]


def test_corners_of_every_head_and_of_one_head(client):
    fields = ["heads.Q[:2]", "heads[1].Q[:1,:1]", "concat[:1]", "output[:3,:1]"]
    r = post(client, {"X": X, "heads": [H1, H2], "W_O": W_O, "fields": fields})
    assert r.status_code == 200
    body = r.get_json()
    ref = reference_multi_head(X, [(H["W_Q"], H["W_K"], H["W_V"]) for H in (H1, H2)], W_O)
    q2 = reference_attention(X, H2["W_Q"], H2["W_K"], H2["W_V"])["Q"]
    assert body["heads"][0]["Q"] == [[1.0, 0.0], [1.0, 2.0]]
    assert body["heads"][1]["Q"] == [q2[0][:1]], "a head's own corner wins over every head's"
    assert np.allclose(body["concat"], ref["concat"][:1], atol=1e-12)
    assert np.allclose(body["output"], [row[:1] for row in ref["output"]], atol=1e-12)


@pytest.mark.parametrize("fields, words", [
    (["Q[:0]"], "not a response field"),
    (["Q[:01]"], "not a response field"),
    (["Q[1:2]"], "not a response field"),
    (["Q", "Q[:2]"], "already asked for"),
    (["Q[:2]", "Q"], "already asked for as a corner"),
    (["Q[:2]", "Q[:3]"], "already asked for"),
    (["tokens[:2]"], "only a matrix may be cut"),
    (["working.k[:2]"], "only a matrix may be cut"),
    (["strongest_keys[:2]"], "only a matrix may be cut"),
])
def test_a_bad_corner_is_422_naming_the_field(client, fields, words):
    r = post(client, {"X": X, **H1, "row": 0, "fields": fields})
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["field"] == f"fields[{len(fields) - 1}]" and words in error["message"], error
    assert json.dumps(fields[-1]) in error["message"], "the message quotes what was sent"


def test_strongest_keys_are_each_querys_three_largest_permitted_weights(client):
    ref = reference_attention(X, H1["W_Q"], H1["W_K"], H1["W_V"])["weights"]
    # By hand, A ≈ [[0.446, 0.108, 0.446], [0.164, 0.164, 0.673], [0.187, 0.045, 0.768]]:
    # equal weights keep key order (row 1: keys 0 and 2; row 2: keys 0 and 1).
    r = post(client, {"X": X, **H1, "fields": ["strongest_keys"]})
    assert r.status_code == 200
    got = r.get_json()["strongest_keys"]
    assert [[j for j, _ in row] for row in got] == [[0, 2, 1], [2, 0, 1], [2, 0, 1]]
    for i, row in enumerate(got):
        assert [a for _, a in row] == pytest.approx([ref[i][j] for j, _ in row], abs=1e-15)
    assert "strongest_keys" not in post(client, {"X": X, **H1}).get_json(), "only when named"
    # Causal: query 1 reads key 1 only; a row masked by hand reads none.
    mask = [[True, True, True], [False, False, False], [True, True, True]]
    r = post(client, {"X": X, **H1, "causal": True, "mask": mask, "fields": ["strongest_keys"]})
    got = r.get_json()["strongest_keys"]
    ref = reference_attention(X, H1["W_Q"], H1["W_K"], H1["W_V"], causal=True, mask=mask)["weights"]
    assert got[0] == [[0, 1.0]] and got[1] == []
    assert [j for j, _ in got[2]] == [2, 0, 1]
    assert got[2][0][1] == pytest.approx(ref[2][2], abs=1e-15)


def test_strongest_keys_of_one_head_beside_another_heads_bytes(client):
    # What the page asks beyond 24 tokens: every head as bytes, the shown head's top keys.
    r = post(client, {"X": X, "heads": [H1, H2], "W_O": W_O,
                      "fields": ["heads.weights_u8", "heads[1].strongest_keys"]})
    assert r.status_code == 200
    heads = r.get_json()["heads"]
    assert set(heads[0]) == {"weights_u8"} and set(heads[1]) == {"weights_u8", "strongest_keys"}
    A2 = reference_attention(X, H2["W_Q"], H2["W_K"], H2["W_V"])["weights"]
    for i, row in enumerate(heads[1]["strongest_keys"]):
        want = sorted(range(3), key=lambda j: (-A2[i][j], j))
        assert [j for j, _ in row] == want
        assert [a for _, a in row] == pytest.approx([A2[i][j] for j in want], abs=1e-15)


# ---- the working of the selected row ----

def test_the_working_of_a_row_carries_its_entropy_and_jacobian_norm(client):
    a = reference_attention(X, **H1)["weights"][2]
    r = post(client, {"X": X, **H1, "row": 2})
    assert r.status_code == 200
    w = r.get_json()["working"]
    assert w["entropy"] == pytest.approx(reference_entropy(a), rel=1e-12)
    assert w["jacobian_norm"] == pytest.approx(reference_jacobian_norm(a), rel=1e-12)


def test_fields_can_select_the_workings_entropy_and_jacobian_norm(client):
    fields = ["working.entropy", "working.jacobian_norm"]
    r = post(client, {"X": X, **H1, "row": 2, "fields": fields})
    assert r.status_code == 200
    body = r.get_json()
    assert set(body) == {"working"}
    assert set(body["working"]) == {"row", "entropy", "jacobian_norm"}
    assert round(body["working"]["entropy"], 4) == 0.6565


def test_a_row_with_no_permitted_key_answers_entropy_and_jacobian_norm_zero_not_minus_zero(
        client):
    mask = [[False] * 3, [True] * 3, [True] * 3]
    r = post(client, {"X": X, **H1, "mask": mask, "row": 0})
    assert r.status_code == 200
    got = r.get_json()["working"]
    assert got["entropy"] == 0 and got["jacobian_norm"] == 0
    assert "-0.0" not in r.get_data(as_text=True)


def test_every_working_body_key_can_be_selected_by_fields():
    w = working(attention(X, **H1), 2)
    assert list(working_body(w, ["the", "cat", "sat"])) == list(WORKING_FIELDS[:21])
    # Every variant on at once (ALiBi and RoPE are one choice at the API, not the engine's).
    every = attention(X, **H1, b_Q=[1, 0], b_K=[0, 1], b_V=[1, 1], rope_base=100,
                      alibi_slope=0.5, window=2, sinks=1)
    assert list(working_body(working(every, 2), ["the", "cat", "sat"])) == list(WORKING_FIELDS)


def test_each_heads_working_carries_its_entropy_and_jacobian_norm(client):
    r = post(client, {"X": X, "heads": [H1, H1], "W_O": [[1, 0]] * 4, "row": 2})
    assert r.status_code == 200
    for h in r.get_json()["heads"]:
        assert round(h["working"]["entropy"], 4) == 0.6565
        assert round(h["working"]["jacobian_norm"], 4) == 0.3168


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
