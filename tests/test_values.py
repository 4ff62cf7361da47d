"""attention_api.values: the one JSON front door (orjson, a depth limit) and its markers."""

import json

import orjson
import pytest

from attention_api import values
from attention_api.values import MAX_DEPTH, JSONSyntaxError, nesting_depth, parse_json


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_the_depth_limit_is_far_above_any_request_and_below_every_orjson():
    assert 4 < MAX_DEPTH == 64 < 1024  # a request nests ≤ 4; orjson's own limit is 1024 in 3.x


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 2000])
def test_a_body_nested_deeper_than_the_limit_is_a_400_saying_so(client, depth):
    r = client.post("/api/attention", data=nested(depth), content_type="application/json")
    assert r.status_code == 400
    assert r.get_json()["error"] == {
        "message": f"The JSON is nested too deeply to be a request: {depth} levels of [ and "
                   f"{{, at most {MAX_DEPTH} are allowed (a request nests at most 4).",
        "field": None}


def test_a_body_at_the_limit_is_parsed(client):
    r = client.post("/api/attention", data=nested(MAX_DEPTH), content_type="application/json")
    assert r.status_code == 422 and "JSON object" in r.get_json()["error"]["message"]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 2000, 100_000])
def test_orjson_never_sees_a_body_nested_too_deeply(monkeypatch, depth):
    # Whatever orjson's own limit (or none), the answer is the same: it is not asked.
    def refuse(_):
        raise AssertionError("orjson was handed a body nested too deeply")
    monkeypatch.setattr(orjson, "loads", refuse)
    with pytest.raises(JSONSyntaxError, match="nested too deeply"):
        parse_json(nested(depth))


@pytest.mark.parametrize("text, depth", [
    ("1", 0), ("[]", 1), ('{"X": [[1, 0]]}', 3), ('{"heads": [{"W_Q": [[1]]}]}', 5),
    ('["[[[[", "]]]]"]', 1), (r'["\"[[[", "\\", [2]]', 2), ("[[]][[[]]]", 3),
])
def test_nesting_depth_counts_brackets_outside_strings(text, depth):
    assert nesting_depth(text.encode()) == depth


def test_orjson_is_the_parser_and_there_is_no_other():
    assert values.orjson is orjson
    assert not hasattr(values, "_parse_int")  # the standard library's hooks are gone


def test_a_client_string_that_looks_like_a_marker_stays_a_string():
    assert parse_json('["NaN", "Infinity", NaN]')[:2] == ["NaN", "Infinity"]
    marked = parse_json("[NaN, 1e999, -Infinity, 1" + "0" * 500 + "]")
    assert [m.text for m in marked] == [
        "NaN", "a number too large for float64, which reads as infinity", "-Infinity",
        "100000000000…"]


def test_an_error_after_a_marker_is_placed_in_the_text_as_sent():
    with pytest.raises(JSONSyntaxError) as caught:
        parse_json('{"X": [NaN,\n  -Infinity, }')
    assert str(caught.value).endswith("at line 2 column 14.")


@pytest.mark.parametrize("body, words", [
    (b"\xff\xfe", "not UTF-8 text"), (b'["\\ud800"]', "not valid JSON"),
    ("{", "not valid JSON: unexpected end of data at line 1 column 2."),
])
def test_what_is_not_json_is_said_plainly(body, words):
    with pytest.raises(JSONSyntaxError, match=words.replace(".", r"\.")):
        parse_json(body)


def test_a_valid_request_parses_as_orjson_reads_it(cat_sat):
    assert parse_json(json.dumps(cat_sat).encode()) == cat_sat
