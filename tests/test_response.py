"""attention_api.response: the answer to several heads, a second sequence, positions and a
custom mask, what fields, corners, weights_u8 and strongest_keys keep of it, and the
working of the selected row."""

import base64
import json

import numpy as np
import pytest

from attention_api import working_body
from attention_api.request import WORKING_FIELDS
from attention_core import attention, working
from tests.reference import (
    reference_attention,
    reference_entropy,
    reference_jacobian_norm,
    reference_multi_head,
    reference_sinusoidal,
)

X = [[1, 0], [0, 1], [1, 1]]
H1 = {"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
H2 = {"W_Q": [[0, 1], [1, 0]], "W_K": [[1, 1], [0, 1]], "W_V": [[1], [1]]}
W_O = [[1, 0], [0, 1], [0.5, -0.5]]


def post(client, body):
    return client.post("/api/attention", data=json.dumps(body), content_type="application/json")


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
