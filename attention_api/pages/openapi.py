"""The OpenAPI 3.1 description of the HTTP API, built from the limits the app enforces.

Schemas are JSON Schema 2020-12, as OpenAPI 3.1 allows: a masked score is
``{"type": ["number", "null"]}``. Every bound here (maxItems of rows and columns,
the number of heads, the ranges of query parameters) is read from the same
settings and tables that validation uses, so the spec cannot drift from the checks.
"""

from __future__ import annotations

import sys
from typing import Literal

from pydantic import TypeAdapter

from attention_core.classroom.exercises import LEVELS
from attention_core.presets import default_request

from ..attention.answer_fields import HEAD, SEVERAL, STRONGEST, WHOLE, WORKING, Field, names
from ..attention.declaration import declaration
from ..attention.lab import CURVE_PARAMS, MAX_DRAWS, SAMPLE_PARAMS
from ..attention.request import PROJECTIONS, Limits
from ..classroom.openapi import exercise_paths, exercise_schemas
from ..declared import json_schema
from ..real_models.openapi import MODEL_LIMITS, model_paths, model_schemas, model_tiles_answer
from ..running.openapi import running_paths, running_schemas, tiles_answer
from ..web.errors import REFUSED

F64_MAX = sys.float_info.max  # ~1.8e308; a request number beyond it reads as infinity
NUMBER = {"type": "number"}
INPUT_NUMBER = {"type": "number", "minimum": -F64_MAX, "maximum": F64_MAX}
MASKABLE = {"type": ["number", "null"]}  # −∞ (masked) or +∞ (overflowed exp) is null
WEIGHT = {"type": "number", "minimum": 0, "maximum": 1}
BOOL = {"type": "boolean"}
TEXT = {"type": "string"}
HEAD_NAMES = frozenset(f.name for f in HEAD)
# A single head's parts that a multi-head answer has only inside each head.
ONE_HEAD_ONLY = names(f for f in HEAD if f.name not in {s.name for s in SEVERAL})

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


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _html(description: str) -> dict:
    return {"description": description,
            "content": {"text/html": {"schema": {"type": "string"}}}}


def _vector(cell: dict, n: int, what: str = "") -> dict:
    return {"type": "array", "minItems": 1, "maxItems": n, "items": cell,
            **({"description": what} if what else {})}


def _matrix(cell: dict, rows: int, cols: int, what: str = "") -> dict:
    """A non-empty rectangular list of rows; rectangularity itself is checked by the app."""
    return _vector(_vector(cell, cols), rows, what)


def _nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


ENCODED_ARRAY = {
    "type": "object", "required": ["dtype", "shape", "base64"], "additionalProperties": False,
    "description": 'An array of an answer asked with "encoding": "base64": its bytes in '
                   "row-major order, float64 little-endian (a masked score is −∞ itself), "
                   "bool as one byte 0 or 1 each, or uint8 (weights_u8).",
    "properties": {
        "dtype": {"enum": ["float64", "bool", "uint8"]},
        # (layers, heads, n, n): a real model's overview of weights_u8 has four axes
        "shape": {"type": "array", "minItems": 1, "maxItems": 4,
                  "items": {"type": "integer", "minimum": 0}},
        "base64": {"type": "string", "contentEncoding": "base64"},
    },
}


def _array(schema: dict, what: str = "") -> dict:
    """An array of the answer: nested lists, or an EncodedArray of the same numbers."""
    return {"anyOf": [schema, _ref("EncodedArray")], **({"description": what} if what else {})}


def _m(cell: dict, rows: int, cols: int, what: str = "") -> dict:
    return _array(_matrix(cell, rows, cols), what)


def _v(cell: dict, n: int, what: str = "") -> dict:
    return _array(_vector(cell, n), what)


def _cell(field: Field, limits: Limits) -> dict:
    """The schema of one number (or flag, or label) of ``field``, as its values say."""
    n, d, H = limits.max_tokens, limits.max_dim, limits.max_heads
    integer = {"type": "integer"}
    return {
        "number": {"": NUMBER, "masked is null": MASKABLE, "≥ 0": {**NUMBER, "minimum": 0},
                   "≥ 0 or null": {"type": ["number", "null"], "minimum": 0}, "0 … 1": WEIGHT,
                   "−1 … 1": {**NUMBER, "minimum": -1, "maximum": 1}},
        "int": {"≥ 0": {**integer, "minimum": 0}, "≥ 1": {**integer, "minimum": 1},
                "0 … n − 1": {**integer, "minimum": 0, "maximum": n - 1},
                "1 … d_k": {**integer, "minimum": 1, "maximum": d},
                "0 … heads − 1": {**integer, "minimum": 0, "maximum": H - 1}},
        "bool": {"": BOOL}, "uint8": {"": {**integer, "minimum": 0, "maximum": 255}},
        "text": {"": TEXT},
    }[field.kind][field.values]


def _field_schema(field: Field, limits: Limits) -> dict:
    """The schema of one answer field or working part, from its row of answer_fields."""
    n, d, H = limits.max_tokens, limits.max_dim, limits.max_heads
    most = {"n": n, "m": n, "d_k": d, "d_v": d, "d_model": limits.max_model_dim,
            "pairs": d // 2, "concat": d * H, "d_out": d}  # each shape symbol at most
    if field.kind == "working":
        return _ref("Working")
    if field.kind == "heads":
        return {"type": "array", "minItems": 1, "maxItems": H, "items": _ref("HeadAnswer")}
    if field.kind == "pairs":  # strongest_keys
        return {"type": "array", "maxItems": n, "description": field.about,
                "items": {"type": "array", "maxItems": STRONGEST, "items": {
                    "type": "array", "minItems": 2, "maxItems": 2,
                    "prefixItems": [{"type": "integer", "minimum": 0, "maximum": n - 1},
                                    WEIGHT]}}}
    cell = _cell(field, limits)
    if field.kind == "text" and field.shape:  # labels, or warnings (of any number)
        return _vector(TEXT, most[field.shape[0]]) if field.shape != ("*",) \
            else {"type": "array", "items": TEXT}
    if not field.shape:
        return {**cell, "description": field.about} if field.about else cell
    dims = [most[s] for s in field.shape]
    return _array(_vector(cell, *dims) if len(dims) == 1 else _matrix(cell, *dims), field.about)


def answer_schemas(limits: Limits) -> dict:
    """AttentionAnswer (what ``fields`` may trim), HeadAnswer, Working and the full shapes,
    each field's from its row of answer_fields."""
    def properties(fields) -> dict:
        return {f.name: _field_schema(f, limits) for f in fields}

    working = {
        "type": "object", "required": ["row"], "additionalProperties": False,
        "description": "The hand calculation of one query row; j runs over the m keys.",
        "properties": properties(WORKING),
    }
    head = {"type": "object", "additionalProperties": False, "properties": properties(HEAD)}
    # The labels and flags, then the arrays; beside heads the combination's output and
    # warnings, whose schemas are a head's.
    whole = sorted(WHOLE, key=lambda f: f.kind == "number")
    answer = {
        "type": "object", "additionalProperties": False,
        "description": "Every part is present unless the request's fields leaves it out; "
                       "several heads put each head's parts under heads.",
        "properties": {**head["properties"], **properties(whole), **properties(SEVERAL)},
        # A multi-head answer keeps one head's parts under heads only, whatever is selected.
        "dependentSchemas": {key: {"properties": dict.fromkeys(ONE_HEAD_ONLY, False)}
                             for key in names(f for f in SEVERAL if f.name not in HEAD_NAMES)},
    }
    # The parts always sent: not those of a variant, of a row's working or named in fields.
    per_head = sorted(names(f for f in HEAD if not f.when))
    whole_always = names(f for f in WHOLE if not f.when)
    beside = names(f for f in SEVERAL if not f.when)
    return {
        "AttentionAnswer": answer, "HeadAnswer": head, "Working": working,
        "EncodedArray": ENCODED_ARRAY,
        "OneHeadAnswer": {
            "allOf": [_ref("AttentionAnswer"), {"required": [*per_head, *sorted(whole_always)]}],
            "description": "The answer to one head without fields."},
        "SeveralHeadsAnswer": {
            "allOf": [_ref("AttentionAnswer"),
                      {"required": sorted({*whole_always, *beside}),
                       "properties": {"heads": {"items": {"required": per_head}}}}],
            "description": "The answer to several heads without fields."},
    }


def other_schemas(version: str) -> dict:
    """Error, the scaling lab's two answers, presets and health."""
    curve_len = CURVE_PARAMS["d_k_max"].high.bit_length()  # d_k = 1, 2, 4 … ≤ d_k_max
    probabilities = {"type": "array", "minItems": 1, "maxItems": curve_len, "items": WEIGHT}
    sample = {name: {"type": "integer", "minimum": p.low, "maximum": p.high}
              for name, p in SAMPLE_PARAMS.items()}
    return {
        "Error": {
            "type": "object", "required": ["error"], "additionalProperties": False,
            "properties": {"error": {
                "type": "object", "required": ["message", "field"],
                "additionalProperties": False,
                "properties": {
                    "message": {"type": "string", "minLength": 1,
                                "description": "a sentence a student can act on; it names "
                                               "inputs as the page does, numbered from 1: "
                                               '"W_K row 1 column 2", "Head 2: …"'},
                    "field": {"type": ["string", "null"],
                              "description": 'the input to fix, as the request spells it: '
                                             '"W_K[0][1]", "heads[1].W_V", "d_k"; or null'},
                }}},
        },
        "ScalingCurve": {
            "type": "object", "required": ["d_k", "unscaled", "scaled"],
            "additionalProperties": False,
            "properties": {
                "d_k": {"type": "array", "minItems": 1, "maxItems": curve_len,
                        "items": {"type": "integer", "minimum": 1}},
                "unscaled": probabilities, "scaled": probabilities,
            },
        },
        "ScalingSample": {
            "type": "object", "required": [*SAMPLE_PARAMS, "variance_raw", "variance_scaled"],
            "additionalProperties": False,
            "properties": {**sample, "variance_raw": {**NUMBER, "minimum": 0},
                           "variance_scaled": {**NUMBER, "minimum": 0}},
        },
        "Presets": {
            "type": "object", "required": ["presets"], "additionalProperties": False,
            "properties": {"presets": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["name", "description", "request"],
                "additionalProperties": False,
                "properties": {"name": TEXT, "description": TEXT,
                               "request": _ref("AttentionRequest")}}}},
        },
        "Health": {
            "type": "object", "required": ["status", "version"], "additionalProperties": False,
            "properties": {"status": {"const": "ok"}, "version": {"const": version}},
        },
    }


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
             "schema": {"type": "integer", "minimum": p.low, "maximum": p.high,
                        "default": p.default}} for name, p in params.items()]


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
                     "schema": {"type": "string", "pattern": "^([0-9]{0,6}|0[0-9]{6})$",
                                "default": "1"},
                     "description": "a whole number from 0 to 999999; empty for the default"},
                    {"name": "level", "in": "query", "required": False,
                     "schema": {**json_schema(TypeAdapter(Literal[tuple(LEVELS)])),
                                "default": "dots"}}])
    practise["responses"]["422"] = _html("A seed or a level that is not one: the page says "
                                         "which, with the controls to choose another.")
    errors = {status: _json(_ref("Error"), text) for status, text in ERRORS.items()}
    errors["422"]["description"] = (
        f"{ERRORS['422'][:-1]}; or an answer that would hold more than "
        f"{limits.max_answer_cells} numbers (every array entry, true/false and single number "
        "counts one), refused before it is computed: its message says how many and roughly "
        "how many bytes, and its field is fields. Name fewer fields, or cut a matrix to a "
        "corner (\"heads.K[:16,:16]\"); base64 makes the bytes fewer, not the numbers.")
    errors["503"]["headers"] = {"Retry-After": {"required": True, "schema": {"type": "integer"},
                                                "description": "Seconds to wait."}}
    errors["405"]["headers"] = {"Allow": {"required": True, "schema": TEXT,
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
                _json({"type": "object", "required": ["openapi", "info", "paths"]},
                      "The OpenAPI 3.1 document."))},
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
                        "ModelTilesAnswer": model_tiles_answer(tiles_answer(MODEL_LIMITS)),
                        **model_schemas(answer_schemas(MODEL_LIMITS), _array)},
            "responses": errors,
        },
    }
