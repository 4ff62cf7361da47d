"""The OpenAPI 3.1 description of the HTTP API, built from the limits the app enforces.

Schemas are JSON Schema 2020-12, as OpenAPI 3.1 allows, and none is written by hand: the
requests' come from each feature's declaration.py, the answers' from the declarations beside
the code that builds them (answer.py in attention/, running/, classroom/ and real_models/;
lab.py; web/errors.py; Health and this document's own, here), the parameters' and headers'
from their types, all turned into JSON Schema by declared.py. Every bound (maxItems of rows
and columns, the number of heads, the ranges of query parameters) is read from the same
settings and tables that validation uses, so the spec cannot drift from the checks.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, create_model

from attention_core.classroom.exercises import LEVELS
from attention_core.presets import default_request

from ..attention.answer import Presets, answers
from ..attention.declaration import declaration
from ..attention.lab import CURVE_PARAMS, MAX_DRAWS, SAMPLE_PARAMS, ScalingCurve, ScalingSample
from ..attention.request import PROJECTIONS, Limits
from ..classroom.openapi import exercise_paths, exercise_schemas
from ..declared import Answer, answer_components, ref, schema_of
from ..real_models.openapi import model_paths, model_schemas
from ..running.openapi import running_paths, running_schemas
from ..web.errors import REFUSED, Error

ERRORS = {  # status: when the app answers it, always with the Error body
    "400": "The body is not JSON (malformed, not UTF-8 or nested too deeply).",
    "404": "There is nothing at this path.",
    "408": "The body stopped arriving before it was complete (the client went silent).",
    "405": "The path does not accept this method; the Allow header lists those it does.",
    "413": "The body is larger than the limit.",
    "415": "The body is not sent as application/json.",
    "422": "A value or shape that cannot be computed; field names it.",
    "500": "A fault of the server; the request was not computed.",
    "503": ("The server is serving as many requests of this kind as it may at once (large "
            "answers, documents typeset, tiles and costs, a measurement); nothing was "
            "computed. Send it again after Retry-After seconds."),
}


class Document(BaseModel):  # this document, as GET /api/openapi.json answers it
    openapi: Any
    info: Any
    paths: Any


def _ref(name: str) -> dict:
    return schema_of(ref(name))


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _html(description: str) -> dict:
    return {"description": description,
            "content": {"text/html": {"schema": schema_of(str)}}}


def answer_schemas(limits: Limits) -> dict:
    """AttentionAnswer (what ``fields`` may trim), HeadAnswer, Working, EncodedArray and the
    full shapes, from their declarations (attention/answer.py)."""
    return answer_components(*answers(limits).models())


def other_schemas(version: str) -> dict:
    """Error, the scaling lab's two answers, presets and health."""
    health = create_model("Health", __base__=Answer, status=(Literal["ok"], ...),
                          version=(Literal[version], ...))
    return answer_components(Error, ScalingCurve, ScalingSample, Presets, health)


def _op(operation_id: str, summary: str, ok: dict, errors=(), missing_models=None,
        **extra) -> dict:
    """One operation: its 200 answer, the error statuses it can give, and its own 503 where
    the real models are not installed (a page's, or the models' routes')."""
    responses = {"200": ok, **{s: {"$ref": f"#/components/responses/{s}"} for s in errors}}
    if missing_models:
        responses["503"] = missing_models
    return {"operationId": operation_id, "summary": summary, **extra, "responses": responses}


def _query(params: dict) -> list[dict]:
    return [{"name": name, "in": "query", "required": False,
             "schema": {**schema_of(p.type()), "default": p.default}}
            for name, p in params.items()]


def request_examples() -> dict:
    """The default example with its working, the same as two heads, cross-attention, and
    the newer variants: grouped-query heads with RoPE and a window, ALiBi with biases."""
    one = {**default_request(), "row": 2}
    head = {p: one[p] for p in PROJECTIONS}
    X_kv = [[1, 1], [2, 0], [0, 3], [1, -1]]
    return {
        "one head": {"value": one},
        "two heads": {"value": {"X": one["X"], "heads": [head, head], "row": 0,
                                "W_O": [[1, 0], [0, 1], [0.5, -0.5], [0, 1]]}},
        "cross-attention": {"value": {
            "X": one["X"], **head, "X_kv": X_kv, "tokens_kv": ["w", "x", "y", "z"],
            "positional": "sinusoidal", "causal": True, "row": 1,
            "fields": ["weights", "scaled_scores", "working.weights"]}},
        "grouped-query heads with RoPE, a window and a sink": {"value": {
            "X": one["X"], "heads": [{"W_Q": head["W_Q"]}, {"W_Q": [[0, 1], [1, 0]]}],
            "kv_heads": [{"W_K": head["W_K"], "W_V": head["W_V"]}],
            "W_O": [[1, 0], [0, 1], [0.5, -0.5], [0, 1]], "positional": "rope",
            "position_offset": 5, "causal": True, "window": 1, "sinks": 1, "row": 2}},
        "ALiBi with biases": {"value": {
            **one, "b_Q": [0.5, 0], "b_K": [0, 1], "b_V": [1, -1], "positional": "alibi",
            "alibi_slopes": [0.5]}},
    }


def openapi_document(limits: Limits, max_body_bytes: int, version: str) -> dict:
    """The OpenAPI 3.1 document of every route, for the limits and body size given.

    ``max_body_bytes`` is the request body limit (413 beyond it); ``version`` the app's.
    """
    attention = _op(
        "attention", "Compute attention and return every intermediate.",
        _json(_ref("AttentionAnswer"), "Every intermediate, or those named in fields; at most "
                                       f"{limits.max_answer_cells} numbers."),
        (*REFUSED, "503"),
        requestBody={
            "required": True, "x-max-body-bytes": max_body_bytes,
            "x-max-answer-cells": limits.max_answer_cells,
            "description": f"At most {max_body_bytes} bytes, {limits.max_tokens} tokens, "
                           f"d_model {limits.max_model_dim} (the columns of X and X_kv, the "
                           f"rows of W_Q, W_K and W_V) and {limits.max_dim} numbers in any "
                           "other row (d_k, d_v, W_O's width).",
            "content": {"application/json": {"schema": _ref("AttentionRequest"),
                                             "examples": request_examples()}},
        })
    practise = _op(
        "practise", "Practise by hand: an exercise whose blanks are checked as they are "
                    "filled (?seed=17&level=weights).", _html("The page."),
        # The seed as practise.parse_seed reads the URL's text: up to 7 digits of a number
        # below SEEDS (10⁶), or nothing for the default.
        parameters=[{"name": "seed", "in": "query", "required": False,
                     "schema": {**schema_of(Annotated[str, Field(
                         pattern="^([0-9]{0,6}|0[0-9]{6})$")]), "default": "1"},
                     "description": "a whole number from 0 to 999999; empty for the default"},
                    {"name": "level", "in": "query", "required": False,
                     "schema": {**schema_of(Literal[tuple(LEVELS)]), "default": "dots"}}])
    practise["responses"]["422"] = _html("A seed or a level that is not one: the page says "
                                         "which, with the controls to choose another.")
    errors = {status: _json(_ref("Error"), text) for status, text in ERRORS.items()}
    errors["422"]["description"] = (
        f"{ERRORS['422'][:-1]}; or an answer that would hold more than "
        f"{limits.max_answer_cells} numbers (every array entry, true/false and single number "
        "counts one), refused before it is computed: its message says how many and roughly "
        "how many bytes, and its field is fields. Name fewer fields, or cut a matrix to a "
        "corner (\"heads.K[:16,:16]\"); base64 makes the bytes fewer, not the numbers.")
    errors["503"]["headers"] = {"Retry-After": {"required": True, "schema": schema_of(int),
                                                "description": "Seconds to wait."}}
    errors["405"]["headers"] = {"Allow": {"required": True, "schema": schema_of(str),
                                          "description": "The methods the path accepts."}}
    requests = declaration(limits).json_schema()  # the request's forms, from its declaration
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "Attention Explorer API", "version": version,
            "description": "Scaled dot-product attention in float64 with every intermediate. "
                           "Every JSON answer is strict: JSON has no infinities, so a masked "
                           "score is null. Every GET also answers HEAD, every path OPTIONS. "
                           "Any path may answer 404, 405 or 500 with the Error body.",
        },
        "paths": {
            "/": {"get": _op("index", "The interactive page.", _html("The page."))},
            "/practise": {"get": practise},
            "/model": {"get": _op("modelView", "A real model's attention, on your own text.",
                                  _html("The page."), missing_models=_html(
                                      "The real models are not installed on this server: "
                                      "a page naming what is missing and the command that "
                                      "installs them."))},
            "/health": {"get": _op("health", "Liveness: answers without computing anything.",
                                   _json(_ref("Health"), "The app is up."))},
            "/api/presets": {"get": _op("presets", "The named examples, default first.",
                                        _json(_ref("Presets"), "Each in the request format."))},
            "/api/attention": {"post": attention},
            "/api/docs": {"get": _op("apiDocs", "A human-readable description of the API.",
                                     _html("The description."))},
            "/api/openapi.json": {"get": _op(
                "openapi", "This document.",
                _json(schema_of(Document), "The OpenAPI 3.1 document."))},
            "/api/scaling": {"get": _op(
                "scalingCurve", "Winner probability of two keys √d_k apart, d_k = 1, 2, 4 …",
                _json(_ref("ScalingCurve"), "unscaled[i] and scaled[i] are for d_k[i]."),
                ("422",), parameters=_query(CURVE_PARAMS))},
            "/api/scaling/sample": {"get": _op(
                "scalingSample", "Measured variance of q·k and q·k/√d_k for random q, k.",
                _json(_ref("ScalingSample"), "The parameters used and the two variances."),
                ("422",), parameters=_query(SAMPLE_PARAMS),
                description=f"samples × d_k may be at most {MAX_DRAWS} (422 beyond).")},
            **exercise_paths(_op, _json),
            **running_paths(_op, _json),
            **model_paths(_op, _json),
        },
        "components": {
            "schemas": {**requests, **answer_schemas(limits),
                        **other_schemas(version), **exercise_schemas(limits),
                        **running_schemas(limits),
                        # a model's head is wider than the editor's limits: its own bounds
                        **model_schemas()},
            "responses": errors,
        },
    }
