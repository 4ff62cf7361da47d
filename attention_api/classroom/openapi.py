"""The OpenAPI description of the classroom's routes, the exercises, the worksheets and the
slides (openapi.py joins it to the rest): their bodies' schemas from their declarations
(declaration.py), the answers' written here with the levels of the numeric core
(attention_core/classroom/exercises.py)."""

from __future__ import annotations

from attention_core.classroom.exercises import LEVELS

from ..attention.limits import Limits
from ..web.errors import REFUSED
from .declaration import SAID_LEVEL, classroom_schemas

LEVEL = {"enum": list(LEVELS), "description": SAID_LEVEL}
PATH = {"type": "string", "description": "a blank: its path in the answer of POST "
                                         "/api/attention for the exercise's request, "
                                         '"working.weights[1]", "heads[1].working.z[0]"'}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _body(schema: str, example: dict) -> dict:
    return {"required": True, "content": {"application/json": {
        "schema": _ref(schema), "examples": {"example": {"value": example}}}}}


def exercise_paths(op, json) -> dict:
    """The two routes; ``op`` and ``json`` are openapi.py's builders."""
    return {
        "/api/exercise": {"post": op(
            "exercise", "An exercise from a seed and a level, without its numbers.",
            json(_ref("Exercise"), "Its inputs (a request for POST /api/attention), the row "
                                   "asked about and the blanks to fill."),
            REFUSED,
            requestBody=_body("ExerciseRequest", {"seed": 17, "level": "weights"}))},
        "/api/exercise/check": {"post": op(
            "exerciseCheck", "A student's numbers for an exercise, checked, with hints.",
            json(_ref("ExerciseCheck"), "Each answered blank: correct or not, the tolerance, "
                                        "and for a wrong one a hint built from the "
                                        "student's own numbers (never the number asked for)."),
            REFUSED,
            requestBody=_body("ExerciseCheckRequest", {
                "seed": 17, "level": "weights",
                "answers": {"working.weights[0]": 0.469, "working.weights[1]": 0.2}}))},
        "/api/worksheet": {"post": op(
            "worksheet", "Worksheets, a page per seed, or their answer key, typeset as PDF.",
            {"description": "The PDF (or with format typ, its typst source), as an attachment "
                            "named for its level and seeds: worksheet-weights-17-18.pdf, "
                            "key-weights-17-18.pdf. The seed and level are printed on every "
                            "page.",
             "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}},
                         "text/plain": {"schema": {"type": "string"}}}},
            (*REFUSED, "503"),
            requestBody=_body("WorksheetRequest", {"seeds": [17, 18], "level": "weights",
                                                   "key": True}))},
        "/api/slide": {"post": op(
            "slide", "A head's heatmap or a row's working as a slide: PNG or SVG.",
            {"description": "A 1920 × 1080 PNG (or an SVG of 960 × 540 pt, or with format typ "
                            "its typst source), as an attachment named for what it shows: "
                            "slide-heatmap-row3.png, slide-working-row3-head2.svg.",
             "content": {"image/png": {"schema": {"type": "string", "format": "binary"}},
                         "image/svg+xml": {"schema": {"type": "string"}},
                         "text/plain": {"schema": {"type": "string"}}}},
            (*REFUSED, "503"),
            requestBody=_body("SlideRequest", {"request": {
                "tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
                "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]},
                "row": 2, "what": "heatmap", "format": "png"}))},
    }


def exercise_schemas(limits: Limits) -> dict:
    """The bodies' schemas from their declarations (declaration.py), for ``limits``, and the
    answers'."""
    return {
        **classroom_schemas(limits),
        "Exercise": {
            "type": "object", "additionalProperties": False,
            "required": ["seed", "level", "title", "request", "row", "blanks"],
            "properties": {
                "seed": {"type": ["integer", "null"], "description": "null for an example "
                                                                     "of one's own"},
                "level": LEVEL, "title": {"type": "string", "description": "what the level asks"},
                "request": _ref("AttentionRequest"),
                "row": {"type": "integer", "minimum": 0, "description": "the query, 0-based"},
                "blanks": {"type": "array", "minItems": 1, "items": PATH},
            }},
        "ExerciseCheck": {
            "type": "object", "required": ["seed", "level", "results", "score"],
            "additionalProperties": False,
            "properties": {
                "seed": {"type": ["integer", "null"]}, "level": LEVEL,
                "results": {"type": "object", "additionalProperties": {
                    "type": "object", "required": ["correct", "tolerance"],
                    "additionalProperties": False,
                    "properties": {
                        "correct": {"type": "boolean"},
                        "tolerance": {"type": "number", "description":
                                      "one unit in the last place the page shows for the "
                                      "step: 0.001 for 3 decimals, 0.01 for 16.92"},
                        "hint": {"type": "string", "description": "only for a wrong one"},
                        "hint_tex": {"type": "string", "description":
                                     "the hint with its maths as TeX between $ signs (a $ "
                                     "or \\ in its words escaped with \\), as the page "
                                     "typesets it; only for a wrong one"},
                    }}},
                "score": {"type": "object", "required": ["correct", "answered", "blanks"],
                          "additionalProperties": False, "properties": {
                              k: {"type": "integer", "minimum": 0}
                              for k in ("correct", "answered", "blanks")}},
            }},
    }
