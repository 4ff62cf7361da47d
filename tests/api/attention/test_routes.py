"""attention_api.attention.routes: POST /api/attention, GET /api/presets, /health: statuses,
bodies, errors."""

import copy
import json
import math

import numpy as np
import pytest

from app import create_app
from attention_api.attention.request import Limits
from tests.api.helpers import decode, post, strict_loads
from tests.reference import reference_attention


def test_default_example_numbers(client, cat_sat):
    r = post(client, cat_sat)
    assert r.status_code == 200
    body = strict_loads(r.get_data(as_text=True))
    assert body["tokens"] == ["the", "cat", "sat"]
    assert body["d_k"] == 2 and body["scale"] == pytest.approx(1 / math.sqrt(2))
    assert np.round(body["weights"], 3).tolist() == [[0.446, 0.108, 0.446],
                                                     [0.164, 0.164, 0.673],
                                                     [0.187, 0.045, 0.768]]
    assert np.round(body["output"], 3).tolist() == [[0.892, 1.108], [0.836, 1.673],
                                                    [0.955, 1.627]]
    assert body["warnings"] == [] and "working" not in body
    ref = reference_attention(cat_sat["X"], cat_sat["W_Q"], cat_sat["W_K"], cat_sat["W_V"])
    for name in ("Q", "K", "V", "scores", "weights", "output"):
        np.testing.assert_allclose(body[name], ref[name], atol=1e-12)


def test_causal_masked_scores_are_null_and_weights_zero(client, cat_sat):
    r = post(client, {**cat_sat, "causal": True, "row": 1})
    assert r.status_code == 200
    body = strict_loads(r.get_data(as_text=True))
    assert body["scaled_scores"][0][1:] == [None, None]
    assert body["scaled_scores"][1][2] is None
    assert body["weights"][0] == [1.0, 0.0, 0.0] and body["weights"][1] == [0.5, 0.5, 0.0]
    assert body["mask"] == [[True, False, False], [True, True, False], [True, True, True]]
    w = body["working"]
    assert w["row"] == 1 and w["token"] == "cat"
    assert w["allowed"] == [True, True, False] and w["scaled"][2] is None
    assert w["exp"][2] == 0.0 and w["weights"][2] == 0.0


def test_working_of_row_three(client, cat_sat):
    r = post(client, {**cat_sat, "row": 2})
    assert r.status_code == 200
    w = r.get_json()["working"]
    assert w["q"] == [2.0, 2.0] and w["k"] == [[2.0, 0.0], [0.0, 1.0], [2.0, 1.0]]
    assert w["products"] == [[4.0, 0.0], [0.0, 2.0], [4.0, 2.0]]
    assert np.round(w["exp"], 2).tolist() == [16.92, 4.11, 69.59]
    assert round(w["exp_sum"], 2) == 90.62
    assert np.round(w["weights"], 3).tolist() == [0.187, 0.045, 0.768]
    assert np.round(w["z"], 3).tolist() == [0.955, 1.627]


def test_overflowing_exponential_is_null_in_strict_json(client):
    body = {"X": [[0.0], [1.0]], "W_Q": [[1.0]], "W_K": [[1000.0]], "W_V": [[1.0]],
            "scale": 1, "row": 1}
    r = post(client, body)
    assert r.status_code == 200
    w = strict_loads(r.get_data(as_text=True))["working"]
    assert w["exp_overflow"] is True and w["exp_sum"] is None and w["exp"][1] is None
    assert w["weights"] == pytest.approx([0.0, 1.0])


def test_fully_masked_row_warns(client, cat_sat):
    mask = [[False] * 3, [True] * 3, [True] * 3]
    r = post(client, {**cat_sat, "mask": mask})
    assert r.status_code == 200
    body = r.get_json()
    assert body["weights"][0] == [0.0, 0.0, 0.0] and body["output"][0] == [0.0, 0.0]
    assert len(body["warnings"]) == 1


def test_tokens_default_to_numbered_labels(client, cat_sat):
    body = {k: v for k, v in cat_sat.items() if k != "tokens"}
    r = post(client, body)
    assert r.status_code == 200 and r.get_json()["tokens"] == ["t1", "t2", "t3"]


def test_presets_default_first_and_each_one_computes(client):
    r = client.get("/api/presets")
    assert r.status_code == 200
    presets = r.get_json()["presets"]
    assert presets[0]["name"] == "the cat sat"
    assert presets[0]["request"]["X"] == [[1, 0], [0, 1], [1, 1]]
    assert len({p["name"] for p in presets}) == len(presets) >= 3
    for p in presets:
        assert p["description"]
        got = post(client, p["request"])
        assert got.status_code == 200, (p["name"], got.get_json())


def test_health_computes_nothing(client):
    r = client.get("/health")
    assert r.status_code == 200 and r.get_json()["status"] == "ok"


# ---- bad input: one table, status + JSON shape + named field ----

def cat():
    return {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
            "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}


def with_(path, value, base=None):
    """cat() with the cell at ``path`` (a tuple of keys/indices) replaced by ``value``."""
    body = copy.deepcopy(base or cat())
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(body)


def raw_cell(text):
    """cat() with W_K[0][1] replaced by the literal JSON text ``text``."""
    return json.dumps(cat()).replace('"W_K": [[2, 0]', f'"W_K": [[2, {text}]')


BIG = 10 ** 400
BAD = [
    # (id, body, status, field, words in the message)
    ("malformed", "{", 400, None, "not valid JSON"),
    ("trailing-garbage", json.dumps(cat()) + "x", 400, None, "not valid JSON"),
    ("not-utf8", b"\xff\xfe", 400, None, None),
    ("deep-nesting", "[" * 100_000 + "]" * 100_000, 400, None, "nested too deeply"),
    ("nan-literal", raw_cell("NaN"), 422, "W_K[0][1]", "NaN"),
    ("infinity-literal", raw_cell("Infinity"), 422, "W_K[0][1]", "Infinity"),
    ("minus-infinity-literal", raw_cell("-Infinity"), 422, "W_K[0][1]", "-Infinity"),
    ("1e999", raw_cell("1e999"), 422, "W_K[0][1]", "too large for float64"),
    ("-1e999", raw_cell("-1e999"), 422, "W_K[0][1]", "too large for float64"),
    ("huge-integer", raw_cell(str(BIG)), 422, "W_K[0][1]", "float64"),
    ("string-cell", with_(("W_K", 0, 1), "abc"), 422, "W_K[0][1]", '"abc"'),
    ("bool-cell", with_(("X", 2, 0), True), 422, "X[2][0]", "true"),
    ("null-cell", with_(("W_V", 1, 1), None), 422, "W_V[1][1]", "null"),
    ("list-cell", with_(("W_Q", 0, 0), [1]), 422, "W_Q[0][0]", "a list"),
    ("ragged", with_(("X", 1), [0, 1, 2]), 422, "X[1]", "same length"),
    ("empty-matrix", with_(("W_Q",), []), 422, "W_Q", "empty"),
    ("empty-row", with_(("X", 0), []), 422, "X[0]", "empty"),
    ("matrix-not-list", with_(("X",), 3), 422, "X", "matrix"),
    ("row-not-list", with_(("X", 0), 3), 422, "X[0]", "row"),
    ("wq-rows-mismatch", with_(("W_Q",), [[1, 0], [1, 2], [0, 0]]), 422, "W_Q",
     "W_Q has 3 rows but each embedding has 2"),
    ("wk-width-mismatch", with_(("W_K",), [[1], [0]]), 422, "W_K",
     "W_Q has 2 columns but W_K has 1"),
    ("wv-rows-mismatch", with_(("W_V",), [[1, 0]]), 422, "W_V", "W_V has 1 row but"),
    ("token-count", with_(("tokens",), ["a", "b"]), 422, "tokens", "2 labels but X has 3"),
    ("token-not-text", with_(("tokens", 1), 5), 422, "tokens[1]", "text"),
    ("label-too-long", with_(("tokens", 0), "x" * 65), 422, "tokens[0]", "65 characters"),
    ("too-many-tokens", with_(("X",), [[0, 0]] * 513), 422, "X", "513 rows; at most 512"),
    ("dimension-too-big", with_(("W_V",), [[0] * 257] * 2), 422, "W_V[0]",
     "257 numbers; at most 256"),
    ("unknown-key", with_(("W_q",), [[1]]), 422, "W_q", 'did you mean "W_Q"'),
    ("missing-key", json.dumps({k: v for k, v in cat().items() if k != "W_V"}), 422, "W_V",
     "needs"),
    ("not-an-object", "[1, 2]", 422, None, "JSON object"),
    ("causal-not-bool", with_(("causal",), "yes"), 422, "causal", "true or false"),
    ("scale-string", with_(("scale",), "1"), 422, "scale", "number"),
    ("scale-nan", json.dumps(cat())[:-1] + ', "scale": NaN}', 422, "scale", "NaN"),
    ("row-out-of-range", with_(("row",), 3), 422, "row", "0 to 2"),
    ("row-negative", with_(("row",), -1), 422, "row", "0 to 2"),
    ("row-float", with_(("row",), 1.5), 422, "row", "whole number"),
    ("row-bool", with_(("row",), True), 422, "row", "whole number"),
    ("mask-shape", with_(("mask",), [[True, True], [True, True]]), 422, "mask", "3×3"),
    ("mask-non-bool", with_(("mask",), [[1, 1, 1]] * 3), 422, "mask[0][0]", "true or false"),
    ("product-overflow", with_(("X",), [[1e200, 1e200]] * 3), 422, "X[0][0]",
     "too large for float64"),
]


@pytest.mark.parametrize("body, status, field, words", [b[1:] for b in BAD],
                         ids=[b[0] for b in BAD])
def test_bad_input_gets_a_clear_json_error(client, body, status, field, words):
    r = post(client, body)
    assert r.status_code == status
    assert r.mimetype == "application/json"
    payload = strict_loads(r.get_data(as_text=True))
    assert set(payload) == {"error"} and set(payload["error"]) == {"message", "field"}
    assert payload["error"]["field"] == field
    assert isinstance(payload["error"]["message"], str) and payload["error"]["message"]
    if words:
        assert words in payload["error"]["message"]
    assert "Traceback" not in r.get_data(as_text=True)


def model_width(D, d=2, n=2):
    """One head of d_model ``D`` (a real model's width) and d_k = d_v = ``d``."""
    rng = np.random.default_rng(D)
    draw = lambda *shape: rng.normal(size=shape).tolist()  # noqa: E731
    return {"X": draw(n, D), "W_Q": draw(D, d), "W_K": draw(D, d), "W_V": draw(D, d)}


def test_d_model_has_its_own_limit_of_1024_beside_d_k_s_256(client):
    """A real model's head (SmolLM2's d_model 576, up to 1024) opens in the page, while d_k,
    d_v and W_O's width keep their limit of 256; each refusal names its field and the limit."""
    assert (Limits.max_model_dim, Limits.max_dim) == (1024, 256)
    wide = model_width(1024)
    r = post(client, json.dumps(wide))
    assert r.status_code == 200
    X, W_Q, W_K = (np.array(wide[k]) for k in ("X", "W_Q", "W_K"))
    scores = (X @ W_Q) @ (X @ W_K).T
    assert np.allclose(r.get_json()["scores"], scores, rtol=1e-12)
    refused = [
        ({**wide, "X": model_width(1025)["X"]}, "X[0]",
         "X row 1 has 1025 numbers; at most 1024 are allowed"),
        ({**model_width(1025), "X": wide["X"]}, "W_Q",
         "W_Q has 1025 rows; at most 1024 are allowed"),
        (model_width(8, d=257), "W_Q[0]", "W_Q row 1 has 257 numbers; at most 256 are allowed"),
        ({**wide, "X_kv": model_width(1025)["X"]}, "X_kv[0]",
         "X_kv row 1 has 1025 numbers; at most 1024 are allowed"),
        ({"X": wide["X"], "heads": [{k: wide[k] for k in ("W_Q", "W_K", "W_V")}],
          "W_O": np.zeros((2, 1024)).tolist()}, "W_O[0]",
         "W_O row 1 has 1024 numbers; at most 256 are allowed"),
    ]
    for body, field, message in refused:
        r = post(client, json.dumps(body))
        assert r.status_code == 422, field
        assert r.get_json()["error"] == {"field": field, "message": message}


def test_a_lowered_model_dim_limit_is_the_apps(cat_sat):
    client = create_app({"TESTING": True, "MAX_MODEL_DIM": 576}).test_client()
    assert post(client, json.dumps(model_width(576))).status_code == 200
    r = post(client, json.dumps(model_width(577)))
    assert r.status_code == 422 and r.get_json()["error"] == {
        "field": "X[0]", "message": "X row 1 has 577 numbers; at most 576 are allowed"}


def test_a_lowered_head_limit_is_the_apps():
    """ATTENTION_MAX_HEADS bounds the query heads, the key/value heads and W_O's rows."""
    client = create_app({"TESTING": True, "MAX_HEADS": 2}).test_client()
    I2 = [[1, 0], [0, 1]]
    head = {"W_Q": I2, "W_K": I2, "W_V": I2}
    two = {"X": I2, "heads": [head] * 2, "W_O": np.eye(4, 2).tolist()}
    r = post(client, json.dumps(two))
    assert r.status_code == 200
    # Two identity heads concatenated, then averaged back by W_O = [I; 0]: head 1's output,
    # softmax((1, 0)/√2)·I for row 1, by hand.
    e = np.exp(np.array([1, 0]) / np.sqrt(2))
    assert np.allclose(r.get_json()["output"][0], e / e.sum(), atol=1e-12)
    r = post(client, json.dumps({**two, "heads": [head] * 3, "W_O": np.eye(6, 2).tolist()}))
    assert r.status_code == 422 and r.get_json()["error"] == {
        "field": "heads",
        "message": "heads must be a list of 1 to 2 objects with W_Q, W_K and W_V, got 3 of them"}


def test_limits_are_refused_before_building_arrays(client, monkeypatch):
    import numpy
    built = []
    monkeypatch.setattr(numpy, "array", lambda *a, **k: built.append(1))
    r = post(client, with_(("X",), [[0, 0]] * 513))
    assert r.status_code == 422 and built == []


def test_fields_selects_parts_of_the_answer(client, cat_sat):
    r = post(client, {**cat_sat, "row": 2, "fields": ["weights", "mask", "working.q", "working.z"]})
    assert r.status_code == 200
    body = r.get_json()
    assert set(body) == {"weights", "mask", "working"}
    assert body["working"] == {"row": 2, "q": [2.0, 2.0],
                               "z": pytest.approx([0.9546, 1.6266], abs=1e-4)}
    assert np.round(body["weights"], 3).tolist()[2] == [0.187, 0.045, 0.768]


@pytest.mark.parametrize("fields, field", [("weights", "fields"), (["weights", "W_Q"], "fields[1]"),
                                           (["working.nope"], "fields[0]"), ([3], "fields[0]")])
def test_fields_must_name_response_fields(client, cat_sat, fields, field):
    r = post(client, {**cat_sat, "fields": fields})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == field


def test_base64_encoding_sends_the_same_numbers_exactly(client, cat_sat):
    asked = {**cat_sat, "causal": True, "row": 2}
    plain, packed = post(client, asked), post(client, {**asked, "encoding": "base64"})
    assert plain.status_code == packed.status_code == 200
    plain, packed = plain.get_json(), packed.get_json()
    assert set(packed) == set(plain)
    assert packed["weights"]["dtype"] == "float64" and packed["weights"]["shape"] == [3, 3]
    assert packed["mask"]["dtype"] == "bool"
    got = decode(packed)
    # Masked scores are −∞ itself, not null; every other number is bit for bit the JSON one.
    assert got["scaled_scores"][0].tolist() == [plain["scaled_scores"][0][0], -math.inf, -math.inf]
    for key in ("Q", "K", "V", "scores", "weights", "output"):
        assert got[key].tolist() == plain[key], key
    assert got["mask"].tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    assert got["working"]["z"].tolist() == plain["working"]["z"]
    assert np.round(got["weights"][2], 3).tolist() == [0.187, 0.045, 0.768]  # hand-worked
    assert got["tokens"] == ["the", "cat", "sat"] and got["d_k"] == 2


def test_base64_encoding_with_fields_and_heads(client, cat_sat):
    H = {k: cat_sat[k] for k in ("W_Q", "W_K", "W_V")}
    r = post(client, {"X": cat_sat["X"], "heads": [H, H], "W_O": np.eye(4, 2).tolist(),
                      "encoding": "base64", "fields": ["heads.weights", "concat"]})
    assert r.status_code == 200
    body = decode(r.get_json())
    assert body["concat"].shape == (3, 4)
    assert np.array_equal(body["heads"][0]["weights"], body["heads"][1]["weights"])
    assert np.round(body["heads"][0]["weights"][2], 3).tolist() == [0.187, 0.045, 0.768]


@pytest.mark.parametrize("encoding", ["binary", 1, ["base64"]])
def test_encoding_must_be_json_or_base64(client, cat_sat, encoding):
    r = post(client, {**cat_sat, "encoding": encoding})
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["field"] == "encoding"
    assert '"json"' in error["message"] and "base64" in error["message"]


HEAD = {"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}


def two_heads(**changes):
    """The default example as two equal heads (W_O: head 1's output), with changes."""
    body = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
            "heads": [copy.deepcopy(HEAD), copy.deepcopy(HEAD)],
            "W_O": [[1, 0], [0, 1], [0, 0], [0, 0]]}
    body.update(changes)
    return body


def cross(**changes):
    return {**cat(), "X_kv": [[1, 0], [0, 1]], "tokens_kv": ["a", "b"], **changes}


WORDING = [
    # (id, body, field as the API spells it, the whole message, numbered from 1 as on the page)
    ("cell", with_(("W_Q", 1, 0), "abc"), "W_Q[1][0]",
     'W_Q row 2 column 1 must be a number, got the string "abc"'),
    ("nan-cell", raw_cell("NaN"), "W_K[0][1]",
     "W_K row 1 column 2 is NaN; every number must be finite and within float64's range "
     "(about ±1.8e308)"),
    ("head-cell", with_(("heads", 1, "W_Q", 0, 0), "x", two_heads()), "heads[1].W_Q[0][0]",
     'W_Q head 2 row 1 column 1 must be a number, got the string "x"'),
    ("w-o-cell", with_(("W_O", 0, 0), "x", two_heads()), "W_O[0][0]",
     'W_O row 1 column 1 must be a number, got the string "x"'),
    ("x-kv-cell", with_(("X_kv", 0, 1), None, cross()), "X_kv[0][1]",
     "X_kv row 1 column 2 must be a number, got null"),
    ("row-not-list", with_(("X", 2), 3), "X[2]",
     "X row 3 must be a row (a list of numbers), got 3"),
    ("ragged", with_(("X", 1), [0, 1, 2]), "X[1]",
     "X row 2 has 3 numbers but X row 1 has 2; every row must be the same length"),
    ("ragged-one", with_(("X", 1), [0]), "X[1]",
     "X row 2 has 1 number but X row 1 has 2; every row must be the same length"),
    ("ragged-after-one", json.dumps({**cat(), "X": [[1], [0, 1], [1]], "W_Q": [[1]],
                                     "W_K": [[1]], "W_V": [[1]]}), "X[1]",
     "X row 2 has 2 numbers but X row 1 has 1; every row must be the same length"),
    ("mask-shape-one", json.dumps({**cat(), "tokens": ["the"], "X": [[1, 0]],
                                   "mask": [[True], [True]]}), "mask",
     "mask is 2×1; with 1 query and 1 key it must be 1×1"),
    ("mask-shape", with_(("mask",), [[True, True]]), "mask",
     "mask is 1×2; with 3 queries and 3 keys it must be 3×3"),
    ("empty-row", with_(("X", 0), []), "X[0]", "X row 1 is an empty row"),
    ("too-wide-head", with_(("heads", 0, "W_V", 1), [0] * 257, two_heads()), "heads[0].W_V[1]",
     "W_V row 2 has 257 numbers; at most 256 are allowed"),  # head 1's is the page's plain W_V
    ("label", with_(("tokens", 1), 5), "tokens[1]", "Token 2 label must be text, got 5"),
    ("label-too-long", with_(("tokens", 0), "x" * 65), "tokens[0]",
     "Token 1 label is 65 characters long; at most 64 are allowed"),
    ("key-label", with_(("tokens_kv", 1), 7, cross()), "tokens_kv[1]",
     "Key token 2 label must be text, got 7"),
    ("mask-cell", with_(("mask",), [[True, True, True], [True, 1, True], [True] * 3]),
     "mask[1][1]", "mask row 2 column 2 must be true or false, got 1"),
    ("head-not-object", with_(("heads", 1), 3, two_heads()), "heads[1]",
     "Head 2 must be an object with W_Q, W_K and W_V, got 3"),
    ("head-unknown-field", with_(("heads", 1, "W_k"), [[1]], two_heads()), "heads[1].W_k",
     'Head 2 has an unknown field "W_k"; did you mean "W_K"? The fields are W_Q, W_K, W_V, '
     "b_Q, b_K, b_V."),
    ("head-missing-field", json.dumps(two_heads(heads=[HEAD, {"W_Q": HEAD["W_Q"],
                                                              "W_K": HEAD["W_K"]}])),
     "heads[1].W_V", 'Head 2 needs the field "W_V"'),
    ("head-shapes", with_(("heads", 1, "W_K"), [[1], [0]], two_heads()), "heads[1].W_K",
     "Head 2: W_Q has 2 columns but W_K has 1; queries and keys must have the same width d_k "
     "to take their dot product"),
    ("shared-x-kv", json.dumps(two_heads(X_kv=[[1, 0, 0]])), "X_kv",
     "X_kv has 3 numbers per token but X has 2; both sequences must use the same embedding "
     "width d_model"),
    ("x-kv-one", json.dumps({**cat(), "X_kv": [[1], [2]], "tokens_kv": ["a", "b"]}), "X_kv",
     "X_kv has 1 number per token but X has 2; both sequences must use the same embedding "
     "width d_model"),
    ("row", with_(("row",), 5), "row",
     "row must be a whole number from 0 to 2 (0-based, queries 1 to 3), got 5"),
    ("fields-head", json.dumps(two_heads(fields=["Q", "heads[2].Q"])), "fields[1]",
     'Entry 2 of fields is the string "heads[2].Q", but the request has 2 heads, so k in '
     "heads[k] runs from 0 to 1 (0-based, heads 1 to 2)"),
]


@pytest.mark.parametrize("body, field, message", [w[1:] for w in WORDING],
                         ids=[w[0] for w in WORDING])
def test_messages_name_inputs_as_the_page_does(client, body, field, message):
    """The field keeps the API's 0-based spelling; the sentence counts from 1."""
    r = post(client, body)
    assert r.status_code == 422
    assert r.get_json()["error"] == {"field": field, "message": message}


def test_warnings_number_heads_and_queries_from_1(client):
    mask = [[True, False, False], [False, False, False], [True, True, True]]
    r = post(client, {**two_heads(), "mask": mask})
    assert r.status_code == 200
    line = "query 2 has no key it may read, so its weights and output are all 0."
    assert r.get_json()["warnings"] == [f"Head 1: {line}", f"Head 2: {line}"]


TOO_LARGE = "comes out beyond ±1.8e308, the largest number a float64 can hold."
I2 = [[1, 0], [0, 1]]
OVERFLOWS = [
    # (id, body, field, message): the field is the largest cell the overflowing entry is
    # built from (overflow.py), worked out here by hand.
    # Q[0][0] = 1e300·1e10: X[0][0] (1e300) beats W_Q[0][0] (1e10).
    ("q", {"X": [[1e300, 0], [0, 1]], "W_Q": [[1e10, 0], [0, 1]], "W_K": I2, "W_V": I2},
     "X[0][0]", f"Q = X·W_Q is too large for float64: row 1 column 1 of Q {TOO_LARGE} The "
     "largest number it is built from is X row 1 column 1 (1e+300); make it smaller."),
    # Q and K are 1e300 and 1: finite; the score q_1·k_1 = 1e300·1e300 is not.
    ("scores", {"X": [[1e300, 0], [0, 1]], "W_Q": I2, "W_K": I2, "W_V": I2}, "X[0][0]",
     f"Q·Kᵀ is too large for float64: the score of query 1 for key 1 {TOO_LARGE} The largest "
     "number it is built from is X row 1 column 1 (1e+300); make it smaller."),
    # X = I: the score of query 2 for key 2 is W_Q[1]·W_K[1] = 1e160·1e160; W_K[1][1] is
    # larger than anything else.
    ("scores-from-weights", {"X": I2, "W_Q": [[1, 0], [0, 1e160]], "W_K": [[1, 0], [0, 2e160]],
                             "W_V": I2}, "W_K[1][1]",
     f"Q·Kᵀ is too large for float64: the score of query 2 for key 2 {TOO_LARGE} The largest "
     "number it is built from is W_K row 2 column 2 (2e+160); make it smaller."),
    # Scores 4, 0, 0, 1 are finite; 4 × 1e308 is not: the scale is to blame.
    ("scale", {"X": [[2, 0], [0, 1]], "W_Q": I2, "W_K": I2, "W_V": I2, "scale": 1e308},
     "scale", f"scale·Q·Kᵀ is too large for float64: the scaled score of query 1 for key 1 "
     f"{TOO_LARGE} It is the score 4 times the scale 1e+308; make the scale smaller."),
    # The scale is shared, but it is a head's scores that it carries out of range: say which.
    ("head-scale", {"X": [[2, 0], [0, 1]], "heads": [{"W_Q": I2, "W_K": I2, "W_V": I2}] * 2,
                    "W_O": [[1, 0]] * 4, "scale": 1e308}, "scale",
     f"Head 1: scale·Q·Kᵀ is too large for float64: the scaled score of query 1 for key 1 "
     f"{TOO_LARGE} It is the score 4 times the scale 1e+308; make the scale smaller."),
    # Cross-attention: V[1][0] = X_kv[1]·W_V[:, 0] = 1e10·1e300; W_V[0][0] is the larger.
    ("cross-v", {"X": I2, "W_Q": I2, "W_K": I2, "W_V": [[1e300, 0], [0, 1]],
                 "X_kv": [[1, 0], [1e10, 0]]}, "W_V[0][0]",
     f"V = X_kv·W_V is too large for float64: row 2 column 1 of V {TOO_LARGE} The largest "
     "number it is built from is W_V row 1 column 1 (1e+300); make it smaller."),
    # Head 2's Q = X·W_Q overflows in row 1 column 1; its own W_Q[0][0] is the largest.
    ("head", {"X": I2, "heads": [{"W_Q": I2, "W_K": I2, "W_V": I2},
                                 {"W_Q": [[1e300, 0], [0, 1]], "W_K": [[1e10, 0], [0, 1]],
                                  "W_V": I2}], "W_O": [[1, 0]] * 4}, "heads[1].W_Q[0][0]",
     f"Head 2: Q·Kᵀ is too large for float64: the score of query 1 for key 1 {TOO_LARGE} The "
     "largest number it is built from is W_Q head 2 row 1 column 1 (1e+300); make it smaller."),
    # Head 2's V is 1e300 in row 1; Concat row 1 column 3 ≈ 0.67e300, times W_O[2][0] = 1e10.
    ("concat-w-o-head", {"X": I2, "heads": [{"W_Q": I2, "W_K": I2, "W_V": I2},
                                            {"W_Q": I2, "W_K": I2, "W_V": [[1e300, 0], [0, 1]]}],
                         "W_O": [[1, 0], [0, 1], [1e10, 0], [0, 0]]}, "heads[1].W_V[0][0]",
     f"The output Concat·W_O is too large for float64: row 1 column 1 of the output "
     f"{TOO_LARGE} The largest number it is built from is W_V head 2 row 1 column 1 (1e+300); "
     "make it smaller."),
    # Concat ≈ 1e200 (head 2's V); W_O[2][0] = 1e300 is the largest: the output is 1e500.
    ("concat-w-o", {"X": I2, "heads": [{"W_Q": I2, "W_K": I2, "W_V": I2},
                                       {"W_Q": I2, "W_K": I2, "W_V": [[1e200, 0], [0, 1]]}],
                    "W_O": [[1, 0], [0, 1], [1e300, 0], [0, 0]]}, "W_O[2][0]",
     f"The output Concat·W_O is too large for float64: row 1 column 1 of the output "
     f"{TOO_LARGE} The largest number it is built from is W_O row 3 column 1 (1e+300); "
     "make it smaller."),
]


@pytest.mark.parametrize("body, field, message", [o[1:] for o in OVERFLOWS],
                         ids=[o[0] for o in OVERFLOWS])
def test_an_overflow_names_the_input_most_to_blame(client, body, field, message):
    r = post(client, body)
    assert r.status_code == 422
    assert r.get_json()["error"] == {"field": field, "message": message}


CAT_TEXT = ('"X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], '
            '"W_V": [[1, 0], [0, 2]]')
# Every field of a request, as an unknown key's message lists them.
ALL_FIELDS = ("tokens, X, W_Q, W_K, W_V, b_Q, b_K, b_V, heads, kv_heads, W_O, X_kv, tokens_kv, "
              "positional, rope_base, position_offset, alibi_slopes, causal, scale, mask, "
              "window, sinks, row, fields, encoding.")
LONE = [
    # (id, what the body adds to the default example, as JSON text, field, message). A lone
    # surrogate escape is JSON's grammar but no character: the field holding it is refused.
    ("label", r'"tokens": ["the", "c\ud800t", "sat"]', "tokens[1]",
     r'Token 2 label is "c\ud800t": its character 2, \ud800, is a lone UTF-16 surrogate '
     "(half of a pair, with no other half), which no text can hold"),
    # Beyond the 20 characters the message quotes: its place and its escape say where.
    ("key-label", r'"X_kv": [[1, 0]], "tokens_kv": ["' + "x" * 24 + r'\udfff"]', "tokens_kv[0]",
     'Key token 1 label is "' + "x" * 20 + r'…": its character 25, \udfff, is a lone UTF-16 '
     "surrogate (half of a pair, with no other half), which no text can hold"),
    # An unknown key: the field spells the surrogate as its escape, which JSON can carry.
    ("unknown-key", r'"x\ud800": 1', r"x\ud800",
     r'Unknown field "x\ud800". The fields are ' + ALL_FIELDS),
    ("value", r'"positional": "\udc00"', "positional",
     r'positional must be null, "sinusoidal", "rope" or "alibi", got the string "\udc00"'),
]


@pytest.mark.parametrize("extra, field, message", [c[1:] for c in LONE], ids=[c[0] for c in LONE])
def test_a_lone_surrogate_is_a_422_naming_its_field(client, extra, field, message):
    r = post(client, "{" + CAT_TEXT + ", " + extra + "}")
    assert r.status_code == 422
    assert strict_loads(r.get_data(as_text=True))["error"] == {"field": field, "message": message}


def test_a_lone_surrogate_in_a_heads_key_names_the_head(client):
    head = r'{"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]], ' \
        r'"\ud800": 0}'
    r = post(client, '{"X": [[1, 0], [0, 1]], "heads": [' + head + '], "W_O": [[1, 0], [0, 1]]}')
    assert r.status_code == 422
    assert r.get_json()["error"] == {
        "field": r"heads[0].\ud800",
        "message": r'Head 1 has an unknown field "\ud800". The fields are W_Q, W_K, W_V, '
                   "b_Q, b_K, b_V."}


def test_a_surrogate_pair_is_a_character_and_64_of_them_one_label(client, cat_sat):
    emoji = "\U0001f600" * 64  # 64 characters, 128 UTF-16 units: the limit counts characters
    r = post(client, {**cat_sat, "tokens": ["the", emoji, "sat"]})
    assert r.status_code == 200 and r.get_json()["tokens"][1] == emoji
    r = post(client, {**cat_sat, "tokens": ["the", emoji + "\U0001f600", "sat"]})
    assert r.status_code == 422
    assert r.get_json()["error"] == {
        "field": "tokens[1]",
        "message": "Token 2 label is 65 characters long; at most 64 are allowed"}


@pytest.mark.parametrize("change, field, message", [
    ({"positional": "café"}, "positional",
     'positional must be null, "sinusoidal", "rope" or "alibi", got the string "café"'),
    ({"naïve": 1}, "naïve", 'Unknown field "naïve". The fields are ' + ALL_FIELDS),
    ({"X": [[1, 0], [0, "一"], [1, 1]]}, "X[1][1]",
     'X row 2 column 2 must be a number, got the string "一"'),
])
def test_messages_show_non_ascii_as_it_is(client, cat_sat, change, field, message):
    r = post(client, {**cat_sat, **change})
    assert r.status_code == 422
    assert "\\u" not in r.get_data(as_text=True)  # orjson writes UTF-8, and so does the message
    assert r.get_json()["error"] == {"field": field, "message": message}


def test_a_long_unknown_key_is_named_whole_once_and_quoted_short(client, cat_sat):
    key = "k" * 10_000
    r = post(client, {**cat_sat, key: 1})
    assert r.status_code == 422
    assert r.get_data(as_text=True).count(key) == 1  # in "field", not again in the message
    error = r.get_json()["error"]
    assert error["field"] == key
    assert error["message"].startswith('Unknown field "' + "k" * 40 + '…". The fields are tokens,')


def test_a_term_of_a_score_beyond_float64_is_a_422_never_a_null_product(client):
    # Q = W_Q (X = I): q_1 = (-1e307, 1e308), k_1 = k_2 = (1, 1.8). The term 1e308·1.8 is
    # beyond float64; the score -1e307 + 1.8e308 = 1.7e308 is not, when the BLAS fuses the
    # multiply and the add (and is infinite when it does not). Either way the answer is a 422
    # that names W_Q[0][1] (1e308, the largest cell the term or the score is built from):
    # working.products never holds a null.
    I2 = [[1, 0], [0, 1]]
    body = {"X": I2, "W_Q": [[-1e307, 1e308], [-1e307, 1e308]], "W_K": [[1, 1.8], [1, 1.8]],
            "W_V": I2}
    for row in (None, 0):
        r = post(client, {**body, "row": row})
        assert r.status_code == 422
        error = r.get_json()["error"]
        assert error["field"] == "W_Q[0][1]"
        assert error["message"].startswith("Q·Kᵀ is too large for float64: the ")
        assert error["message"].endswith(
            "The largest number it is built from is W_Q row 1 column 2 (1e+308); make it smaller.")



