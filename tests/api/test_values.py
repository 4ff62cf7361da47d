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
    (b"\xff\xfe", "not UTF-8 text"), (b'["\xed\xa0\x80"]', "not UTF-8 text"),
    ("{", "not valid JSON: unexpected end of data at line 1 column 2."),
])
def test_what_is_not_json_is_said_plainly(body, words):
    with pytest.raises(JSONSyntaxError, match=words.replace(".", r"\.")):
        parse_json(body)


def test_a_valid_request_parses_as_orjson_reads_it(cat_sat):
    assert parse_json(json.dumps(cat_sat).encode()) == cat_sat


def test_a_lone_surrogate_escape_comes_back_as_that_surrogate_for_validation_to_refuse():
    # JSON's grammar allows "\ud800" (RFC 8259, 8.2); orjson refuses it, the marker keeps it.
    body = rb'["c\ud800t", {"k\udc00": 1, "\ud83d\ude00": 2}, "\\ud800", "\u00e9"]'
    assert parse_json(body) == ["c\ud800t", {"k\udc00": 1, "\U0001f600": 2}, "\\ud800", "é"]
    # Two lone halves, the wrong way round or doubled, are two lone surrogates.
    assert parse_json(rb'["\udc00\ud800", "\ud800\ud800", "\ud800\u0041"]') == [
        "\udc00\ud800", "\ud800\ud800", "\ud800A"]
    marked = parse_json(rb'["\ud800", NaN]')
    assert marked[0] == "\ud800" and marked[1].text == "NaN"


def test_an_error_after_a_lone_surrogate_is_placed_in_the_text_as_sent():
    # The same text with six plain characters where the escape is: orjson's own column.
    with pytest.raises(JSONSyntaxError) as plain:
        parse_json('{"tokens": ["abcdef", "x"] "X": 1}')
    with pytest.raises(JSONSyntaxError) as lone:
        parse_json('{"tokens": ["\\ud800", "x\\udfff"] "X": 1}')
    assert str(plain.value).endswith("at line 1 column 28.")
    assert str(lone.value).endswith("at line 1 column 34.")  # 6 more: "x\udfff" is 7 long


@pytest.mark.parametrize("text, shown", [
    ("café", '"café"'), ("naïve 日本", '"naïve 日本"'), ("a\tb\n", '"a\\tb\\n"'),
    ("c\ud800t", '"c\\ud800t"'), ("x" * 25, '"' + "x" * 20 + '…"'),
])
def test_a_string_in_a_message_is_shown_as_it_is(text, shown):
    assert values.describe(text) == f"the string {shown}"
