"""The classroom's bodies as the API document says them: a request of one's own is the subset
an example worked by hand takes (ClassroomRequest: its row, at most 8 tokens and d 8, none of
the newer variants), which a JSON Schema validator refuses where the server does, and the
server's refusal unchanged."""

import json

import jsonschema_rs
import pytest

from attention_api.attention.declaration import GOES_WITH, NEEDS
from attention_api.classroom.declaration import BEYOND

OWN = ("ExerciseOfOwn", "ExerciseCheckOfOwn", "WorksheetOfOwn")
ROUTES = {"/api/exercise": "ExerciseRequest", "/api/exercise/check": "ExerciseCheckRequest",
          "/api/worksheet": "WorksheetRequest"}


@pytest.fixture(scope="module")
def spec():
    from app import create_app
    r = create_app({"TESTING": True}).test_client().get("/api/openapi.json")
    assert r.status_code == 200
    return r.get_json()


def schemas(spec) -> dict:
    return spec["components"]["schemas"]


def valid(spec, name, body) -> bool:
    return jsonschema_rs.Draft202012Validator(
        {"$ref": f"#/components/schemas/{name}", "components": spec["components"]}).is_valid(body)


@pytest.mark.parametrize("name", OWN)
def test_a_request_of_ones_own_is_the_classrooms(spec, name):
    own = schemas(spec)[name]["properties"]["request"]
    assert own["$ref"] == "#/components/schemas/ClassroomRequest"


def test_the_classrooms_request_needs_its_row_and_takes_no_newer_variant(spec):
    forms = [f["$ref"].rsplit("/", 1)[1] for f in schemas(spec)["ClassroomRequest"]["oneOf"]]
    assert forms == ["ClassroomOneHeadRequest", "ClassroomSeveralHeadsRequest"]  # no kv_heads
    for form in forms:
        schema = schemas(spec)[form]
        assert "row" in schema["required"]
        assert schema["properties"]["row"]["maximum"] == 7
        assert schema["properties"]["X"]["maxItems"] == 8
        assert schema["properties"]["X"]["items"]["maxItems"] == 8
        for name in set(BEYOND) - {"b_Q", "kv_heads", "position_offset"}:
            assert schema["properties"][name]["type"] == "null", name
        assert set(schema["dependentSchemas"]) == set(GOES_WITH) | set(NEEDS)
    head = schemas(spec)["ClassroomHead"]["properties"]
    assert head["W_Q"]["items"]["maxItems"] == 8
    assert all(head[b]["type"] == "null" for b in ("b_Q", "b_K", "b_V"))


def own(cat_sat, **extra) -> dict:
    return {**cat_sat, "row": 1, **extra}


# A request of one's own the server refuses, with the field and today's message.
REFUSED = [
    ({"row": None}, "request.row", "request.row is missing: the query to work out, 0-based"),
    ({"window": 2}, "request", "an example worked by hand may have a mask, a scale, "
     "sinusoidal positions and several heads, not a window"),
    ({"positional": "rope"}, "request", "an example worked by hand may have a mask, a scale, "
     "sinusoidal positions and several heads, not RoPE"),
    ({"b_Q": [0, 1]}, "request", "an example worked by hand may have a mask, a scale, "
     "sinusoidal positions and several heads, not biases"),
    ({"X": [[1, 0]] * 9, "tokens": None}, "request.X", "an example worked by hand has at most "
     "8 tokens and d_model, d_k and d_v at most 8; this one has 9 tokens, d_model 2 and d_k "
     "or d_v up to 2"),
    ({"rope_base": 5}, "request.rope_base",
     'rope_base goes with "positional": "rope"; this request has no positional'),
]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("extra", "field", "message"), REFUSED)
def test_the_document_refuses_what_the_server_refuses_in_its_own_words(
        spec, client, cat_sat, route, extra, field, message):
    request = {k: v for k, v in own(cat_sat, **extra).items() if v is not None}
    body = {"request": request, "level": "weights",
            **({"answers": {}} if route == "/api/exercise/check" else {})}
    assert not valid(spec, ROUTES[route], body)
    r = client.post(route, data=json.dumps(body), content_type="application/json")
    assert r.status_code == 422
    assert r.get_json()["error"] == {"message": message, "field": field}


@pytest.mark.parametrize("extra", [{}, {"positional": "sinusoidal", "position_offset": 0},
                                   {"causal": True, "scale": 0.5, "sinks": 1}])
def test_an_example_worked_by_hand_is_valid_and_answered(spec, client, cat_sat, extra):
    body = {"request": own(cat_sat, **extra), "level": "weights"}
    assert valid(spec, "ExerciseRequest", body)
    r = client.post("/api/exercise", data=json.dumps(body), content_type="application/json")
    assert r.status_code == 200


def test_a_working_slide_needs_a_row_in_the_document_as_on_the_server(spec, client, cat_sat):
    body = {"request": cat_sat, "what": "working", "format": "typ"}
    assert not valid(spec, "SlideRequest", body)
    r = client.post("/api/slide", data=json.dumps(body), content_type="application/json")
    assert r.status_code == 422
    assert r.get_json()["error"] == {"message": "row is missing: the query whose working to "
                                                "show, 0-based", "field": "row"}
    for given in ({**body, "row": 1}, {**body, "request": {**cat_sat, "row": 1}},
                  {**body, "what": "heatmap"}):
        assert valid(spec, "SlideRequest", given)
        r = client.post("/api/slide", data=json.dumps(given), content_type="application/json")
        assert r.status_code == 200, r.get_data(as_text=True)
