"""POST /api/kv-cache (attention_api/running/kv_cache.py): a causal view generated token by token,
each step's row and z those of an independent computation (tests/reference*.py), its cost
and its cache counted by hand, and every bad input a 422 naming its field."""

import numpy as np
import pytest

from attention_core import default_request
from tests.reference import reference_attention, reference_sinusoidal
from tests.reference_modern import reference_grouped

TOL = 1e-12
CAUSAL = {**default_request(), "causal": True}


def post(client, body):
    r = client.post("/api/kv-cache", json=body)
    return r.status_code, r.get_json()


def test_each_step_is_its_row_of_the_causal_attention_with_its_cost_and_cache(client):
    """The default example (3 tokens, d_k = d_v = 2): step t reads t + 1 keys, takes t + 1
    dot products against (t + 1)² without the cache, and leaves (t + 1) · (2 + 2) numbers,
    8 bytes each."""
    status, body = post(client, CAUSAL)
    assert status == 200
    ref = reference_attention(CAUSAL["X"], CAUSAL["W_Q"], CAUSAL["W_K"], CAUSAL["W_V"],
                              causal=True)
    assert body["tokens"] == ["the", "cat", "sat"] and (body["head"], body["heads"]) == (0, 1)
    assert [s["t"] for s in body["steps"]] == [0, 1, 2]
    for t, s in enumerate(body["steps"]):
        assert s["token"] == CAUSAL["tokens"][t]
        np.testing.assert_allclose(s["weights"], ref["weights"][t][:t + 1], rtol=0, atol=TOL)
        np.testing.assert_allclose(s["z"], ref["output"][t], rtol=0, atol=TOL)
        assert s["working"]["row"] == t and s["working"]["token"] == CAUSAL["tokens"][t]
        np.testing.assert_allclose(s["working"]["dots"], ref["scores"][t][:t + 1], atol=TOL)
        assert s["cost"] == {"dot_products": t + 1, "without_cache": (t + 1) ** 2}
        assert s["cache"] == {"tokens": t + 1, "kv_heads": 1, "numbers": (t + 1) * 4,
                              "bytes": (t + 1) * 32, "per_kv_head": (t + 1) * 4,
                              "without_sharing": (t + 1) * 4}
    # the last step's row is the page's row 3 of "the cat sat": 0.187, 0.045, 0.768
    assert [round(w, 3) for w in body["steps"][2]["weights"]] == [0.187, 0.045, 0.768]


def test_grouped_query_heads_share_a_cache_and_sinusoidal_positions_are_added():
    """4 query heads over 2 key/value heads, with sinusoidal positions: head 3's steps are
    its rows (by the reference's repetition of key/value heads), and the cache is counted for
    2 key/value heads against 4 without sharing."""
    from app import create_app

    client = create_app({"TESTING": True}).test_client()
    rng = np.random.default_rng(5)
    n, d = 5, 4
    X = rng.integers(-2, 3, size=(n, d)).tolist()
    queries = [{"W_Q": rng.integers(-1, 2, size=(d, 2)).tolist()} for _ in range(4)]
    kv = [{"W_K": rng.integers(-1, 2, size=(d, 2)).tolist(),
           "W_V": rng.integers(-1, 2, size=(d, 3)).tolist()} for _ in range(2)]
    W_O = np.eye(12).tolist()
    request = {"tokens": list("abcde"), "X": X, "heads": queries, "kv_heads": kv,
               "W_O": W_O, "causal": True, "positional": "sinusoidal", "head": 3}
    status, body = post(client, request)
    assert status == 200, body
    pe = reference_sinusoidal(n, d)
    X_pe = [[x + p for x, p in zip(row, pe_row, strict=True)]
            for row, pe_row in zip(X, pe, strict=True)]
    ref = reference_grouped(X_pe, queries, kv, W_O, causal=True)["heads"][3]
    for t, s in enumerate(body["steps"]):
        np.testing.assert_allclose(s["weights"], ref["weights"][t][:t + 1], rtol=0, atol=TOL)
        np.testing.assert_allclose(s["z"], ref["output"][t], rtol=0, atol=TOL)
        assert s["cache"] == {"tokens": t + 1, "kv_heads": 2, "numbers": 2 * (t + 1) * 5,
                              "bytes": 2 * (t + 1) * 5 * 8, "per_kv_head": (t + 1) * 5,
                              "without_sharing": 4 * (t + 1) * 5}


@pytest.mark.parametrize(("change", "field", "says"), [
    ({"causal": False}, "causal", "causal must be true"),
    ({"causal": None}, "causal", "causal must be true"),
    ({"X_kv": [[1, 0], [0, 1]], "tokens_kv": ["a", "b"]}, "X_kv", "cross-attention"),
    ({"mask": [[True, False, False], [True, True, False], [True, True, True]]}, "mask",
     "a mask by hand"),
    ({"head": 1}, "head", "from 0 to 0"),
    ({"head": True}, "head", "got true"),
    ({"X": [[1, 0], [0, "x"], [1, 1]]}, "X[1][1]", "x"),
    ({"tokens": [f"t{i}" for i in range(65)], "X": [[1, 0]] * 65}, "tokens",
     "at most 64 steps"),
])
def test_bad_input_is_a_422_naming_the_field(client, change, field, says):
    body = {**CAUSAL, **change}
    if change.get("causal") is None and "causal" in change:
        del body["causal"]
    status, answer = post(client, body)
    assert status == 422, answer
    assert answer["error"]["field"] == field
    assert says in answer["error"]["message"]


def test_a_head_sent_as_a_float_is_that_head(client):
    body = {**default_request(), "causal": True}
    as_float, as_int = post(client, {**body, "head": 0.0}), post(client, {**body, "head": 0})
    assert as_float == as_int and as_int[0] == 200
