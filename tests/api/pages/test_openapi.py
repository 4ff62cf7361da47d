"""GET /api/openapi.json: the document and its limits. schemathesis holds the server to it
with every check in tests/serving/test_fuzzed.py."""

import copy
import json
import re

import jsonschema_rs
import pytest
import schemathesis

import attention_core as core
from app import create_app
from attention_api.attention.request import parse_request

# Small limits, easy to tell from the defaults (512 tokens, 256 dimensions, 5 MiB) in the
# document.
SMALL = {"TESTING": True, "MAX_TOKENS": 8, "MAX_DIM": 8, "MAX_MODEL_DIM": 8,
         "MAX_CONTENT_LENGTH": 64 * 1024}


@pytest.fixture(scope="module")
def small_app():
    return create_app(SMALL)


@pytest.fixture(scope="module")
def spec(small_app):
    r = small_app.test_client().get("/api/openapi.json")
    assert r.status_code == 200 and r.mimetype == "application/json"
    return r.get_json()


def validator(spec, name):
    """A JSON Schema 2020-12 validator for components.schemas[name], its $refs resolved."""
    return jsonschema_rs.Draft202012Validator(
        {"$ref": f"#/components/schemas/{name}", "components": spec["components"]})


def fields_items(spec):
    """The two forms of a fields entry with a heads list: [{"enum": names}, {"pattern":
    "heads[k].<part>"}] (a single head's names no head: tests/api/attention/test_declaration)."""
    fields = spec["components"]["schemas"]["SeveralHeadsRequest"]["properties"]["fields"]
    return fields["anyOf"][0]["items"]["anyOf"]


def post(client, body):
    return client.post("/api/attention", data=json.dumps(body), content_type="application/json")


def test_the_document_is_openapi_3_1_for_this_version(spec):
    assert re.fullmatch(r"3\.1\.\d+", spec["openapi"])
    assert spec["info"]["version"] == core.__version__
    assert spec["info"]["title"] == "Attention Explorer API"


def test_every_route_is_described_with_its_methods(small_app, spec):
    routes = {}
    for rule in small_app.url_map.iter_rules():
        if rule.endpoint == "assets.asset":  # files, not the API
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)  # <int:id> → {id}
        # Every GET answers HEAD and every path OPTIONS; info.description says so once.
        routes[path] = {m.lower() for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert {path: set(ops) for path, ops in spec["paths"].items()} == routes
    assert len(routes) >= 8  # not vacuous: the url_map was read


def test_every_admitted_route_declares_its_503_with_retry_after(small_app, spec):
    # The routes admission.admitted guards (a bounded number at once, then 503), read from
    # the app's own views: each operation documents that 503 and its Retry-After.
    guarded = {}
    for rule in small_app.url_map.iter_rules():
        kind = getattr(small_app.view_functions[rule.endpoint], "admission", None)
        if kind is not None:
            guarded[rule.rule] = kind
    assert guarded == {
        "/api/worksheet": "TYPESETS", "/api/slide": "TYPESETS", "/api/model/slide": "TYPESETS",
        "/api/tiles": "TILES_AND_COSTS", "/api/model/tiles": "TILES_AND_COSTS",
        "/api/cost": "TILES_AND_COSTS"}
    shared = spec["components"]["responses"]["503"]
    assert shared["headers"]["Retry-After"]["required"] is True
    assert shared["description"] == (
        "The server is serving as many requests of this kind as it may at once (large "
        "answers, documents typeset, tiles and costs, a measurement); nothing was computed. "
        "Send it again after Retry-After seconds.")
    for path in guarded:
        declared = spec["paths"][path]["post"]["responses"]["503"]
        declared = shared if declared.get("$ref") == "#/components/responses/503" else declared
        assert declared["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"}, path
        assert declared["headers"]["Retry-After"]["schema"] == {"type": "integer"}, path
        # A real model's route says both of its 503s: a model missing, or a busy server.
        assert "send it again after retry-after seconds" in declared["description"].lower()
        assert ("missing on this server" in declared["description"]) == \
            path.startswith("/api/model/"), path


@pytest.mark.parametrize("config, tokens, model_dim, dim, heads, body, cells", [
    (SMALL, 8, 8, 8, 16, 65536, 10_000_000),
    ({"MAX_TOKENS": 5, "MAX_MODEL_DIM": 7, "MAX_DIM": 3, "MAX_HEADS": 4,
      "MAX_CONTENT_LENGTH": 1000, "MAX_ANSWER_CELLS": 99}, 5, 7, 3, 4, 1000, 99),
    ({}, 512, 1024, 256, 16, 5 * 1024 * 1024, 10_000_000),
])
def test_the_limits_are_the_configured_ones(config, tokens, model_dim, dim, heads, body, cells):
    r = create_app({"TESTING": True, **config}).test_client().get("/api/openapi.json")
    assert r.status_code == 200
    spec = r.get_json()
    schemas = spec["components"]["schemas"]
    # The request is one of three forms: one head, several heads, grouped-query heads.
    assert spec["components"]["schemas"]["AttentionRequest"]["oneOf"] == [
        {"$ref": f"#/components/schemas/{form}Request"}
        for form in ("OneHead", "SeveralHeads", "GroupedHeads")]
    req = {**schemas["OneHeadRequest"]["properties"],
           **schemas["SeveralHeadsRequest"]["properties"],
           "kv_heads": schemas["GroupedHeadsRequest"]["properties"]["kv_heads"]}
    for name, rows, cols in (("X", tokens, model_dim), ("W_Q", model_dim, dim),
                             ("W_V", model_dim, dim), ("W_O", dim * heads, dim)):
        assert (req[name]["maxItems"], req[name]["items"]["maxItems"]) == (rows, cols), name
    assert (req["heads"]["minItems"], req["heads"]["maxItems"]) == (1, heads)
    assert req["kv_heads"]["maxItems"] == heads
    tokens_schema = req["tokens"]["anyOf"][0]
    assert tokens_schema["maxItems"] == tokens and tokens_schema["items"]["maxLength"] == 64
    mask = req["mask"]["anyOf"][0]
    assert (mask["maxItems"], mask["items"]["maxItems"]) == (tokens, tokens)
    row = req["row"]["anyOf"][0]  # or null
    assert (row["type"], row["minimum"], row["maximum"]) == ("integer", 0, tokens - 1)
    answer = spec["components"]["schemas"]["AttentionAnswer"]["properties"]
    weights = answer["weights"]["anyOf"][0]  # or an EncodedArray
    assert weights["maxItems"] == weights["items"]["maxItems"] == tokens
    request_body = spec["paths"]["/api/attention"]["post"]["requestBody"]
    assert request_body["x-max-body-bytes"] == body
    assert request_body["x-max-answer-cells"] == cells
    too_large = spec["components"]["responses"]["422"]["description"]
    assert f"an answer that would hold more than {cells} numbers" in too_large
    assert "corner" in too_large and "fields" in too_large
    assert f"At most {body} bytes, {tokens} tokens" in request_body["description"]


def test_the_scaling_parameters_are_the_lab_ranges(spec):
    params = {p["name"]: p["schema"] for p in
              spec["paths"]["/api/scaling/sample"]["get"]["parameters"]}
    assert params == {
        "d_k": {"type": "integer", "minimum": 1, "maximum": 1024, "default": 64},
        "samples": {"type": "integer", "minimum": 100, "maximum": 100000, "default": 10000},
        "seed": {"type": "integer", "minimum": 0, "maximum": 4294967295, "default": 0},
    }
    (curve,) = spec["paths"]["/api/scaling"]["get"]["parameters"]
    assert curve["name"] == "d_k_max" and curve["schema"]["maximum"] == 4096
    assert spec["components"]["schemas"]["ScalingCurve"]["properties"]["d_k"]["maxItems"] == 13


def test_the_document_validates_and_every_ref_resolves(spec):
    schemathesis.openapi.from_dict(copy.deepcopy(spec)).validate()  # the OpenAPI 3.1 schema
    for name, component in spec["components"]["schemas"].items():
        assert jsonschema_rs.meta.is_valid(component), name  # each one JSON Schema 2020-12
    assert not jsonschema_rs.meta.is_valid({"type": "matrix"})  # the check can fail

    refs = []

    def walk(node):
        if isinstance(node, dict):
            refs.extend(v for k, v in node.items() if k == "$ref")
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(spec)
    assert len(refs) > 10
    for ref in refs:
        target = spec
        for part in ref.removeprefix("#/").split("/"):
            assert isinstance(target, dict) and part in target, ref
            target = target[part]


def test_the_default_example_answer_matches_the_full_one_head_shape(small_app, spec, cat_sat):
    r = post(small_app.test_client(), {**cat_sat, "causal": True, "row": 1})
    assert r.status_code == 200
    body = r.get_json()
    assert body["scaled_scores"][0][1] is None  # a masked score, null in the answer
    one_head = validator(spec, "OneHeadAnswer")
    one_head.validate(body)
    # The schema is not vacuous: each of these breaks it.
    for broken in ({k: v for k, v in body.items() if k != "weights"},  # weights required
                   {**body, "weights": [[1.5, 0, 0]] * 3},  # a weight above 1
                   {**body, "scaled_scores": [["-inf"] * 3] * 3},  # a string for −∞
                   {**body, "heads": []},  # heads beside one head's matrices
                   {**body, "working": {"q": [1.0]}}):  # working without its row
        assert not one_head.is_valid(broken), broken


def test_a_base64_answer_matches_the_full_shape_too(small_app, spec, cat_sat):
    for extra, shape in (({}, "OneHeadAnswer"),
                         ({"heads": [{k: cat_sat[k] for k in ("W_Q", "W_K", "W_V")}] * 2,
                           "W_O": [[1, 0], [0, 1], [1, 0], [0, 1]]}, "SeveralHeadsAnswer")):
        asked = {**cat_sat, **extra, "causal": True, "row": 1, "encoding": "base64"}
        if extra:
            asked = {k: v for k, v in asked.items() if k not in ("W_Q", "W_K", "W_V")}
        r = post(small_app.test_client(), asked)
        assert r.status_code == 200
        body = r.get_json()
        validator(spec, shape).validate(body)
        weights = (body["heads"][0] if extra else body)["weights"]
        assert weights["dtype"] == "float64" and weights["shape"] == [3, 3]
        assert not validator(spec, shape).is_valid(
            {**body, "concat" if extra else "weights": {**weights, "dtype": "float32"}})


@pytest.mark.parametrize("name", ["one head", "two heads", "cross-attention",
                                  "grouped-query heads with RoPE, a window and a sink",
                                  "ALiBi with biases"])
def test_the_documented_examples_compute_and_match(small_app, spec, name):
    media = spec["paths"]["/api/attention"]["post"]["requestBody"]["content"]["application/json"]
    example = media["examples"][name]["value"]
    validator(spec, "AttentionRequest").validate(example)
    r = post(small_app.test_client(), example)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    validator(spec, "AttentionAnswer").validate(body)
    if name.startswith(("two heads", "grouped")):
        validator(spec, "SeveralHeadsAnswer").validate(body)
        assert not validator(spec, "OneHeadAnswer").is_valid(body)
    if name.startswith("grouped"):  # two query heads on one key/value head
        assert [h["kv_head"] for h in body["heads"]] == [0, 0]
        assert body["heads"][1]["working"]["in_window"] == [False, False, True]
    if name == "ALiBi with biases":
        validator(spec, "OneHeadAnswer").validate(body)
        assert body["alibi_slope"] == 0.5 and body["working"]["b_V"] == [1, -1]
    if name == "cross-attention":  # fields: exactly what was asked, and the working's row
        assert set(body) == {"weights", "scaled_scores", "working"}
        assert set(body["working"]) == {"row", "weights"}


def test_every_fields_name_in_the_spec_is_accepted_and_no_other(spec, cat_sat):
    items = fields_items(spec)
    names, one_head = items[0]["enum"], re.compile(items[1]["pattern"])
    # 26 top-level names, 40 parts of the working, and both again under heads (but for
    # heads and concat themselves).
    assert len(names) == len(set(names)) == 26 + 40 + 24 + 40
    head = {p: cat_sat[p] for p in ("W_Q", "W_K", "W_V")}
    two = {"X": cat_sat["X"], "heads": [head] * 2, "W_O": [[1, 0]] * 4}
    for name in names:  # heads.<part> needs a heads list, as heads[k].<part> does
        request = two if name.startswith("heads.") else cat_sat
        assert parse_request({**request, "fields": [name]}).fields == {name}
    for name in ("heads.heads", "heads.concat", "working.nope", "heads.working.nope"):
        assert name not in names and not one_head.search(name)
        with pytest.raises(core.AttentionInputError):
            parse_request({**cat_sat, "fields": [name]})


def test_fields_of_one_head_follow_the_pattern(spec, cat_sat):
    one_head = re.compile(fields_items(spec)[1]["pattern"])
    head = {p: cat_sat[p] for p in ("W_Q", "W_K", "W_V")}
    sixteen = {"X": cat_sat["X"], "heads": [head] * 16, "W_O": [[1, 0]] * 32}
    for name in ("heads[0].Q", "heads[15].working.z", "heads[9].tokens"):
        assert one_head.search(name)
        assert parse_request({**sixteen, "fields": [name]}).fields == {name}
    for name in ("heads[16].Q", "heads[01].Q", "heads[0].heads", "heads[0].nope", "heads[-1].Q"):
        assert not one_head.search(name), name
        with pytest.raises(core.AttentionInputError):
            parse_request({**sixteen, "fields": [name]})


@pytest.mark.parametrize("fields", [[{}], [[1]], ["weights", {"a": 1}]])
def test_a_fields_entry_that_is_not_text_is_a_422_not_a_500(client, cat_sat, fields):
    # Found by schemathesis: {"fields": [{}]} was a 500 (a dict is unhashable).
    r = post(client, {**cat_sat, "fields": fields})
    assert r.status_code == 422
    assert r.get_json()["error"]["field"] == f"fields[{len(fields) - 1}]"


def test_every_error_status_has_the_error_shape(spec):
    client = create_app({**SMALL, "MAX_CONTENT_LENGTH": 100}).test_client()
    answers = {
        400: client.post("/api/attention", data="{", content_type="application/json"),
        404: client.get("/api/nowhere"),
        405: client.get("/api/attention"),
        413: client.post("/api/attention", data=" " * 101, content_type="application/json"),
        415: client.post("/api/attention", data="{}", content_type="text/plain"),
        422: client.get("/api/scaling?d_k_max=0"),
    }
    error = validator(spec, "Error")
    for status, r in answers.items():
        assert r.status_code == status and r.mimetype == "application/json"
        error.validate(r.get_json())
        assert str(status) in spec["components"]["responses"]
    assert answers[405].headers["Allow"]


def test_every_get_answer_matches_its_documented_schema(small_app, spec):
    client = small_app.test_client()
    for path, ops in spec["paths"].items():
        if "get" not in ops:
            continue
        r = client.get(path)
        assert r.status_code == 200, path
        (media, content), = ops["get"]["responses"]["200"]["content"].items()
        assert r.mimetype == media, path
        body = r.get_json() if media == "application/json" else r.get_data(as_text=True)
        documented = {**content["schema"], "components": spec["components"]}
        jsonschema_rs.Draft202012Validator(documented).validate(body)


def test_the_presets_fit_the_default_limits(client):
    spec = client.get("/api/openapi.json").get_json()
    presets = client.get("/api/presets").get_json()
    validator(spec, "Presets").validate(presets)


def test_corners_follow_their_pattern_and_the_parser_agrees(spec, cat_sat):
    corner = re.compile(fields_items(spec)[2]["pattern"])
    head = {p: cat_sat[p] for p in ("W_Q", "W_K", "W_V")}
    two = {"X": cat_sat["X"], "heads": [head] * 2, "W_O": [[1, 0]] * 4}
    good = {"Q[:16,:16]": ("Q", (16, 16)), "weights[:3]": ("weights", (3, None)),
            "heads.V[:2, :1]": ("heads.V", (2, 1)), "heads[1].weights_u8[:99999]":
            ("heads[1].weights_u8", (99999, None)), "concat[:1,:2]": ("concat", (1, 2)),
            "positional_encoding_kv[:4]": ("positional_encoding_kv", (4, None))}
    for name, (plain, size) in good.items():
        assert corner.search(name), name
        request = parse_request({**(two if "heads" in name or "concat" in name else cat_sat),
                                      "fields": [name]})
        assert request.fields == {plain} and request.corners == {plain: size}
    for name in ("Q[:0]", "Q[:016]", "Q[1:2]", "Q[:2,]", "Q[:2,:0]", "Q[: 2]", "tokens[:2]",
                 "working.k[:2]", "heads.concat[:2]", "strongest_keys[:2]", "Q[:123456]"):
        assert not corner.search(name), name
        with pytest.raises(core.AttentionInputError):
            parse_request({**two, "fields": [name]})


# One request for each of the newer variants, and one with all of them at once.
HEAD = {"W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
KV = {"W_K": HEAD["W_K"], "W_V": HEAD["W_V"], "b_K": [0, 1], "b_V": [1, 1]}
VARIANTS = {
    "biases": {"b_Q": [1, 0], "b_K": [0, 1], "b_V": [1, 1]},
    "rope": {"positional": "rope", "rope_base": 100, "position_offset": 3},
    "sinusoidal": {"positional": "sinusoidal", "position_offset": 3},
    "alibi": {"positional": "alibi", "causal": True},
    "window": {"window": 1, "sinks": 1, "causal": True},
}
EVERYTHING = {"X_kv": [[1, 1], [2, 0], [0, 3], [1, -1]], "positional": "rope",
              "position_offset": 2, "window": 2, "sinks": 1, "scale": 0.5, "causal": True}


def several(**changes):
    """Four query heads with b_Q on two key/value heads with b_K and b_V."""
    return {"X": [[1, 0], [0, 1], [1, 1]], "heads": [{"W_Q": HEAD["W_Q"], "b_Q": [1, 1]}] * 4,
            "kv_heads": [KV, KV], "W_O": [[1, 0]] * 8, **changes}


@pytest.mark.parametrize("encoding", ["json", "base64"])
@pytest.mark.parametrize("variant", [*VARIANTS, "everything"])
def test_the_newer_variants_answers_match_the_full_shapes(small_app, spec, cat_sat, variant,
                                                          encoding):
    changes = EVERYTHING if variant == "everything" else VARIANTS[variant]
    client = small_app.test_client()
    for request, shape in (({**cat_sat, **changes}, "OneHeadAnswer"),
                           (several(**{k: v for k, v in changes.items() if k[0] != "b"}),
                            "SeveralHeadsAnswer")):
        r = post(client, {**request, "row": 2, "encoding": encoding})
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        validator(spec, shape).validate(body)
        validator(spec, "AttentionAnswer").validate(body)
        head = body["heads"][3] if shape == "SeveralHeadsAnswer" else body
        assert ("Q_unrotated" in head) == (changes.get("positional") == "rope")
        assert ("bias" in head) == (changes.get("positional") == "alibi")
        assert ("window" in head["working"]) == ("window" in changes)


def test_the_schema_of_the_newer_parts_is_not_vacuous(small_app, spec):
    client = small_app.test_client()
    r = post(client, several(positional="alibi", window=2, sinks=1, row=1))
    assert r.status_code == 200
    body = r.get_json()
    answer = validator(spec, "SeveralHeadsAnswer")
    answer.validate(body)
    head = body["heads"][0]
    for broken in ({**head, "kv_head": -1}, {**head, "kv_head": 1.5},
                   {**head, "alibi_slope": -0.25}, {**head, "bias": [[None] * 3] * 3},
                   {**head, "working": {**head["working"], "sinks": 0}},
                   {**head, "working": {**head["working"], "window": 0}},
                   {**head, "working": {**head["working"], "in_window": [1, 0, 1]}},
                   {**head, "working": {**head["working"], "alibi_slope": "0.25"}},
                   {**head, "alibi": 1}):
        assert not answer.is_valid({**body, "heads": [broken, *body["heads"][1:]]}), broken
    r = post(client, {**several(positional="rope", row=0), "fields": ["heads[0].Q_unrotated",
                                                                   "heads.working.position"]})
    assert r.status_code == 200
    validator(spec, "AttentionAnswer").validate(r.get_json())
    working = r.get_json()["heads"][1]["working"]
    assert working == {"row": 0, "position": 0}
    assert not validator(spec, "Working").is_valid({**working, "position": -1})


@pytest.mark.parametrize("changes, field", [
    ({"positional": "rope", "rope_base": 0}, "rope_base"),
    ({"positional": "rope", "rope_base": -1}, "rope_base"),
    ({"positional": "rope", "position_offset": -1}, "position_offset"),
    ({"positional": "rope", "position_offset": 1.5}, "position_offset"),
    ({"positional": "rope", "position_offset": 1_000_001}, "position_offset"),
    ({"window": 0}, "window"), ({"sinks": -1}, "sinks"),
    ({"positional": "alibi", "alibi_slopes": [-1]}, "alibi_slopes[0]"),
    ({"positional": "alibi", "alibi_slopes": []}, "alibi_slopes"),
    ({"kv_heads": []}, "kv_heads"), ({"positional": "yarn"}, "positional"), ({"b_Q": []}, "b_Q"),
])
def test_the_spec_refuses_what_the_app_refuses(small_app, spec, cat_sat, changes, field):
    """The request schema is as strict as validation about each new field's range."""
    request = {**cat_sat, **changes}
    assert not validator(spec, "AttentionRequest").is_valid(request)
    r = post(small_app.test_client(), request)
    assert r.status_code == 422 and r.get_json()["error"]["field"] == field


def test_without_the_models_their_routes_answer_the_documented_503(small_app, spec,
                                                                     minilm_missing):
    client = small_app.test_client()
    answers = {"/model": client.get("/model"), "/api/models": client.get("/api/models"),
               "/api/model/attention": client.post(
                   "/api/model/attention",
                   json={"model": "minilm-l6", "text": "Hi", "layer": 0, "head": 0})}
    for path, r in answers.items():
        (operation,) = spec["paths"][path].values()
        ((media, content),) = operation["responses"]["503"]["content"].items()
        assert (r.status_code, r.mimetype) == (503, media), path
        body = r.get_json() if media == "application/json" else r.get_data(as_text=True)
        documented = {**content["schema"], "components": spec["components"]}
        jsonschema_rs.Draft202012Validator(documented).validate(body)
        assert "no_such_reader_for_tests is not installed" in r.get_data(as_text=True), path


def valid(spec, name, body) -> bool:
    return validator(spec, name).is_valid(body)


def test_the_document_says_what_json_schema_can(spec, cat_sat):
    one = {k: cat_sat[k] for k in ("X", "W_Q", "W_K", "W_V")}
    head = {k: cat_sat[k] for k in ("W_Q", "W_K", "W_V")}
    several = {"X": cat_sat["X"], "W_O": [[1, 0], [0, 1]]}
    # A size is an integer, not any number.
    sizes = {"n": 3, "d_model": 2, "d_k": 2, "d_v": 2}
    assert valid(spec, "CostRequest", sizes)
    assert spec["components"]["schemas"]["CostRequest"]["properties"]["m"]["type"] == "integer"
    assert not valid(spec, "CostRequest", {**sizes, "m": 2.5})
    assert not valid(spec, "CostRequest", {k: v for k, v in sizes.items() if k != "d_v"})
    # One of three forms, each with its own required fields.
    assert valid(spec, "AttentionRequest", one)
    assert valid(spec, "AttentionRequest", {**several, "heads": [head]})
    assert not valid(spec, "AttentionRequest", {**several, "heads": [{"W_Q": head["W_Q"],
                                                                       "W_V": head["W_V"]}]})
    assert valid(spec, "AttentionRequest", {**several, "heads": [{"W_Q": head["W_Q"]}],
                                            "kv_heads": [{"W_K": head["W_K"],
                                                          "W_V": head["W_V"]}]})
    assert not valid(spec, "AttentionRequest", {**one, "W_O": several["W_O"]})
    # A seed or a request, one of the two.
    assert valid(spec, "ExerciseRequest", {"seed": 17, "level": "weights"})
    assert valid(spec, "ExerciseRequest", {"request": {**one, "row": 1}, "level": "z"})
    assert not valid(spec, "ExerciseRequest", {"seed": 17, "request": one, "level": "z"})
    assert not valid(spec, "ExerciseRequest", {"level": "z"})
    assert not valid(spec, "WorksheetRequest", {"seeds": [1], "level": "nonsense"})
    # Each model's own layers and heads; the key/value cache only where a decoder serves.
    text = {"text": "The cat sat", "head": 0}
    assert valid(spec, "ModelAttentionRequest", {"model": "minilm-l6", "layer": 5, **text})
    assert not valid(spec, "ModelAttentionRequest", {"model": "minilm-l6", "layer": 6, **text})
    assert valid(spec, "ModelAttentionRequest", {"model": "smollm2-135m", "layer": 29, **text})
    assert not valid(spec, "ModelAttentionRequest", {"model": "smollm2-135m", "layer": 0,
                                                     "text": "a", "head": 9})
    assert valid(spec, "ModelKVCacheRequest", {"model": "smollm2-135m", "layer": 0, **text})
    assert not valid(spec, "ModelKVCacheRequest", {"model": "minilm-l6", "layer": 0, **text})
    # No null where the server takes none; the key/value cache is causal.
    tiles = {**one, "row": 1, "block_q": 2, "block_k": 2}
    assert valid(spec, "TilesRequest", tiles)
    assert not valid(spec, "TilesRequest", {**tiles, "block_q": None})
    assert not valid(spec, "TilesRequest", {**tiles, "fields": ["weights"]})
    assert valid(spec, "KVCacheRequest", {**one, "causal": True})
    assert not valid(spec, "KVCacheRequest", {**one, "causal": False})
    assert not valid(spec, "KVCacheRequest", {**one, "causal": True, "mask": [[True]]})
    level = {p["name"]: p["schema"] for p in spec["paths"]["/practise"]["get"]["parameters"]}
    assert "weights" in level["level"]["enum"] and "nonsense" not in level["level"]["enum"]


def test_the_docs_page_lists_each_request_s_fields_from_the_document(small_app, spec):
    page = small_app.test_client().get("/api/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    rows = re.findall(r'<tr><th scope="row"><code>([^<]+)</code></th><td>(yes|no)</td>', html)
    cost = html[html.index("<summary><code>POST /api/cost</code>"):]
    cost = cost[:cost.index("</details>")]
    listed = re.findall(r'<tr><th scope="row"><code>([^<]+)</code></th><td>(yes|no)</td>', cost)
    declared = spec["components"]["schemas"]["CostRequest"]
    assert listed == [(name, "yes" if name in declared["required"] else "no")
                      for name in declared["properties"]]
    assert "a whole number from 1 to 8" in cost  # this app's limit, from the declaration
    # Every form of every body is listed: the attention request's three among them.
    forms = re.findall(r"<h3><code>([^<]+)</code></h3>", html)
    assert {"OneHeadRequest", "SeveralHeadsRequest", "GroupedHeadsRequest",
            "ExerciseBySeed", "ExerciseOfOwn"} <= set(forms)
    assert len(rows) > 100
