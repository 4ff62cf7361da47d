"""provider: answers written by orjson, a large one in pieces that join to the same bytes."""

import numpy as np
import orjson
import pytest

from attention_api.attention.response import encode_arrays
from attention_api.web.provider import OPTIONS, PIECE_CELLS, json_pieces

RNG = np.random.default_rng(5)


def body():
    """An answer's kinds of value: large and small float, bool and uint8 arrays, ±∞, nested
    heads, text and plain numbers."""
    scores = RNG.normal(size=(700, 200))
    scores[3, :5] = -np.inf
    return {"tokens": ["a", "b\u00e9"], "causal": True, "d_k": 2, "exp_sum": float("inf"),
            "heads": [{"scores": scores, "mask": RNG.random((300, 300)) > 0.5,
                       "weights_u8": RNG.integers(0, 256, (400, 400), dtype=np.uint8),
                       "q": RNG.normal(size=70_000), "warnings": ["Head 1: x"]},
                      {"Q": RNG.normal(size=(3, 2)), "working": {"row": 0, "z": np.ones(2)}}],
            "strongest_keys": [[[1, 0.5], [0, 0.25]]], "concat": np.zeros((1, 1))}


@pytest.mark.parametrize("encode", [lambda b: b, encode_arrays], ids=["json", "base64"])
def test_the_pieces_join_to_orjson_s_own_bytes(encode):
    answer = encode(body())
    pieces = json_pieces(answer)
    assert b"".join(pieces) == orjson.dumps(answer, option=OPTIONS)
    assert len(pieces) > 10
    # No piece is much more than PIECE_CELLS numbers: ~20 bytes each at most in JSON.
    assert max(len(p) for p in pieces) < 25 * PIECE_CELLS


def test_a_small_answer_is_one_piece():
    answer = {"weights": np.eye(3), "tokens": ["a"], "n": None}
    assert json_pieces(answer) == [b'{"weights":[[1.0,0.0,0.0],[0.0,1.0,0.0],[0.0,0.0,1.0]],'
                                   b'"tokens":["a"],"n":null}']


def test_an_answer_of_the_app_has_its_content_length(client, cat_sat):
    big = {**cat_sat, "X": RNG.normal(size=(400, 2)).round(3).tolist(), "tokens": None}
    r = client.post("/api/attention", json=big)
    assert r.status_code == 200
    assert int(r.headers["Content-Length"]) == len(r.get_data()) > 400 * 400 * 10
    assert np.allclose(np.sum(r.get_json()["weights"], axis=1), 1)


def test_jsonify_takes_one_value_several_or_keywords_as_flask_s_own_does(app):
    """The provider's response reads jsonify's arguments itself (no private name of
    Flask's): one value as it is, several as a list, keywords as an object."""
    from flask import jsonify
    with app.test_request_context():
        assert jsonify([1, 2]).get_json() == [1, 2]
        assert jsonify(1, "a").get_json() == [1, "a"]
        assert jsonify(a=np.arange(2)).get_json() == {"a": [0, 1]}
        assert jsonify().get_json() == {}
        with pytest.raises(TypeError):
            jsonify(1, a=2)


def test_the_provider_calls_no_private_name_of_flask():
    from pathlib import Path
    source = (Path(__file__).parents[3] / "attention_api/web/provider.py").read_text()
    assert "._" not in source.replace("self._large", "")
