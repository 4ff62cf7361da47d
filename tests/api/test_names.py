"""attention_api.names: the request's errors carry where their input is, and the page's names
for it spell their sentences (the 422 body and the CLI)."""

import copy

import pytest

from attention_api.attention.request import parse_request
from attention_api.names import page_message, page_name
from attention_core.errors import AttentionInputError, Place

I2 = [[1, 0], [0, 1]]
HEADS = {"X": I2, "heads": [{"W_Q": I2, "W_K": I2, "W_V": I2}] * 2, "W_O": [[1]] * 4}
ONE = {"X": I2, "W_Q": I2, "W_K": I2, "W_V": I2}


def refused(body) -> AttentionInputError:
    with pytest.raises(AttentionInputError) as info:
        parse_request(body)
    return info.value


def with_head(h, **given):
    body = copy.deepcopy(HEADS)
    body["heads"][h] = {**body["heads"][h], **given}
    return body


@pytest.mark.parametrize("place, name", [
    (Place("tokens", row=0), "Token 1 label"),
    (Place("tokens_kv", row=1), "Key token 2 label"),
    (Place("heads", row=1), "Head 2"),
    (Place("kv_heads", row=2), "Key/value head 3"),
    (Place("fields", row=0), "Entry 1 of fields"),
    (Place("alibi_slopes", head=1), "ALiBi slope head 2"),
    (Place("W_Q", head=1, row=0, column=2), "W_Q head 2 row 1 column 3"),
    (Place("W_K", kv_head=0, row=1, column=0), "W_K row 2 column 1"),
    (Place("b_V", head=1, column=0), "b_V head 2 column 1"),
    (Place("scale"), "scale"),
])
def test_the_page_names_each_kind_of_place(place, name):
    assert page_name(place) == name


def test_a_cell_of_a_head_is_refused_with_its_head_row_and_column():
    exc = refused(with_head(1, W_Q=[[1, 0, "a"], [0, 1, 0]]))
    assert (exc.input, exc.head, exc.kv_head, exc.row, exc.column) == ("W_Q", 1, None, 0, 2)
    assert exc.field == "heads[1].W_Q[0][2]"
    assert page_message(exc) == 'W_Q head 2 row 1 column 3 must be a number, got the string "a"'


def test_a_row_of_a_key_value_head_is_refused_with_its_head_and_row():
    body = copy.deepcopy(HEADS)
    body["heads"] = [{"W_Q": I2}] * 2
    body["kv_heads"] = [{"W_K": I2, "W_V": I2}, {"W_K": [[1, 0], [0]], "W_V": I2}]
    exc = refused(body)
    assert (exc.input, exc.head, exc.kv_head, exc.row, exc.column) == ("W_K", None, 1, 1, None)
    assert exc.field == "kv_heads[1].W_K[1]"
    assert page_message(exc) == ("W_K key/value head 2 row 2 has 1 number but W_K key/value "
                                 "head 2 row 1 has 2; every row must be the same length")


def test_a_label_an_entry_of_fields_and_a_slope_are_named_as_the_page_names_them():
    exc = refused({**ONE, "tokens": ["a", 3]})
    assert (exc.input, exc.row, exc.field) == ("tokens", 1, "tokens[1]")
    assert page_message(exc) == "Token 2 label must be text, got 3"
    assert exc.message == "tokens row 2 must be text, got 3"  # the engine's own spelling
    exc = refused({**ONE, "fields": ["Q", "nope"]})
    assert (exc.input, exc.row, exc.field) == ("fields", 1, "fields[1]")
    assert page_message(exc).startswith('Entry 2 of fields is the string "nope", which is not')
    exc = refused({**HEADS, "positional": "alibi", "alibi_slopes": [0.5, -1]})
    assert (exc.input, exc.head, exc.row, exc.column) == ("alibi_slopes", 1, None, None)
    assert exc.field == "alibi_slopes[1]"
    assert page_message(exc).startswith("ALiBi slope head 2 is -1; a slope must be 0 or more")
    exc = refused({**HEADS, "positional": "alibi", "alibi_slopes": [0.5, "x"]})
    assert (exc.head, exc.field) == (1, "alibi_slopes[1]")
    assert page_message(exc) == 'ALiBi slope head 2 must be a number, got the string "x"'


def test_an_unknown_key_of_a_head_is_that_heads():
    exc = refused(with_head(1, Q=1))
    assert (exc.input, exc.head, exc.field) == ("Q", 1, "heads[1].Q")


def test_the_422_body_spells_the_page_name(client):
    r = client.post("/api/attention", json=with_head(1, W_Q=[[1, 0, "a"], [0, 1, 0]]))
    assert r.status_code == 422
    assert r.get_json() == {"error": {
        "message": 'W_Q head 2 row 1 column 3 must be a number, got the string "a"',
        "field": "heads[1].W_Q[0][2]"}}
    r = client.post("/api/attention", json={**ONE, "tokens": ["a", 3]})
    assert r.get_json()["error"] == {"message": "Token 2 label must be text, got 3",
                                     "field": "tokens[1]"}
