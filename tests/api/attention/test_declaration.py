"""The request's declaration as the API document says it: which fields go together (GOES_WITH,
NEEDS) and a single head's fields, stated so that a JSON Schema validator refuses what the
server refuses, and the server's refusal unchanged."""

import json

import jsonschema_rs
import pytest

from attention_api.attention.declaration import GOES_WITH, NEEDS

FORMS = ("OneHeadRequest", "SeveralHeadsRequest", "GroupedHeadsRequest")
VARIANTS = ("", "Tiles", "KVCache")


@pytest.fixture(scope="module")
def spec():
    from app import create_app
    r = create_app({"TESTING": True}).test_client().get("/api/openapi.json")
    assert r.status_code == 200
    return r.get_json()


def valid(spec, name, body) -> bool:
    return jsonschema_rs.Draft202012Validator(
        {"$ref": f"#/components/schemas/{name}", "components": spec["components"]}).is_valid(body)


def post(client, body):
    return client.post("/api/attention", data=json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("form", FORMS)
def test_every_form_states_which_fields_go_together(spec, variant, form):
    schema = spec["components"]["schemas"][variant + form]
    assert set(schema["dependentSchemas"]) == set(GOES_WITH) | set(NEEDS)


# A request breaking each rule, the field refused and today's message.
BROKEN = [
    ({"rope_base": 5}, "rope_base",
     'rope_base goes with "positional": "rope"; this request has no positional'),
    ({"positional": "sinusoidal", "rope_base": 5}, "rope_base",
     'rope_base goes with "positional": "rope"; this request has "positional": "sinusoidal"'),
    ({"position_offset": 2}, "position_offset", 'position_offset goes with "positional": '
     '"sinusoidal" or "rope"; this request has no positional'),
    ({"positional": "alibi", "position_offset": 0}, "position_offset", 'position_offset goes '
     'with "positional": "sinusoidal" or "rope"; this request has "positional": "alibi"'),
    ({"alibi_slopes": [0.5]}, "alibi_slopes",
     'alibi_slopes goes with "positional": "alibi"; this request has no positional'),
    ({"positional": "rope", "alibi_slopes": [0.5]}, "alibi_slopes",
     'alibi_slopes goes with "positional": "alibi"; this request has "positional": "rope"'),
    ({"tokens_kv": ["a", "b", "c"]}, "tokens_kv",
     "tokens_kv labels the rows of X_kv, and there is no X_kv"),
    ({"X_kv": None, "tokens_kv": ["a"]}, "tokens_kv",
     "tokens_kv labels the rows of X_kv, and there is no X_kv"),
    ({"fields": ["heads.Q"]}, "fields[0]", 'Entry 1 of fields is the string "heads.Q", but the '
     "request has no heads list (a single head sent as W_Q, W_K, W_V)"),
    ({"fields": ["weights", "heads[0].Q"]}, "fields[1]", 'Entry 2 of fields is the string '
     '"heads[0].Q", but the request has no heads list (a single head sent as W_Q, W_K, W_V)'),
    ({"fields": ["heads.K[:2]"]}, "fields[0]", 'Entry 1 of fields is the string "heads.K[:2]", '
     "but the request has no heads list (a single head sent as W_Q, W_K, W_V)"),
]


@pytest.mark.parametrize(("extra", "field", "message"), BROKEN)
def test_the_document_refuses_what_the_server_refuses_in_its_own_words(
        spec, client, cat_sat, extra, field, message):
    body = {**cat_sat, **extra}
    assert not valid(spec, "AttentionRequest", body)
    r = post(client, body)
    assert r.status_code == 422
    assert r.get_json()["error"] == {"message": message, "field": field}


@pytest.mark.parametrize("extra", [
    {"rope_base": None, "alibi_slopes": None, "position_offset": None, "tokens_kv": None},
    {"positional": "rope", "rope_base": 5, "position_offset": 3},
    {"positional": "sinusoidal", "position_offset": 0},
    {"positional": "alibi", "alibi_slopes": [0.5]},
    {"X_kv": [[1, 0], [0, 1]], "tokens_kv": ["a", "b"]},
    {"fields": ["weights", "Q[:2]", "working.z", "heads", "concat"], "row": 0},
])
def test_what_goes_together_is_valid_and_answered(spec, client, cat_sat, extra):
    body = {**cat_sat, **extra}
    assert valid(spec, "AttentionRequest", body)
    assert post(client, body).status_code == 200


def test_with_a_heads_list_fields_may_name_the_heads(spec, cat_sat):
    head = {p: cat_sat[p] for p in ("W_Q", "W_K", "W_V")}
    two = {"X": cat_sat["X"], "heads": [head] * 2, "W_O": [[1, 0]] * 4}
    for name in ("heads.Q", "heads[1].Q", "heads.K[:2]"):
        assert valid(spec, "AttentionRequest", {**two, "fields": [name]}), name
