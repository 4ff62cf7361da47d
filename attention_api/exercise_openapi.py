"""The OpenAPI description of the exercise routes and the worksheets (openapi.py joins it
to the rest), its bounds from their one source: the levels and seeds of the numeric core
(attention_core/exercises.py), the worksheets' of worksheet.py."""

from __future__ import annotations

from attention_core.exercises import LEVELS, SEEDS

from .worksheet import MAX_SHEETS, SHEET_FORMATS

SEED = {"type": "integer", "minimum": 0, "maximum": SEEDS - 1,
        "description": "the same seed and level give the same exercise on every machine"}
LEVEL = {"enum": list(LEVELS), "description": "; ".join(f"{k}: {v}" for k, v in LEVELS.items())}
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
            ("400", "413", "415", "422"),
            requestBody=_body("ExerciseRequest", {"seed": 17, "level": "weights"}))},
        "/api/exercise/check": {"post": op(
            "exerciseCheck", "A student's numbers for an exercise, checked, with hints.",
            json(_ref("ExerciseCheck"), "Each answered blank: correct or not, the tolerance, "
                                        "and for a wrong one a hint built from the "
                                        "student's own numbers (never the number asked for)."),
            ("400", "413", "415", "422"),
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
            ("400", "413", "415", "422"),
            requestBody=_body("WorksheetRequest", {"seeds": [17, 18], "level": "weights",
                                                   "key": True}))},
    }


def exercise_schemas() -> dict:
    own = {**_ref("AttentionRequest"), "description":
           "instead of a seed, an example of one's own with its row (at most 8 tokens, d 8; "
           "a mask, a scale, sinusoidal positions and heads, no newer variant), at the "
           "levels dots, scaled, exp, weights, z, row"}
    asked = {"seed": SEED, "level": LEVEL, "request": own}
    return {
        "WorksheetRequest": {
            "type": "object", "required": ["level"], "additionalProperties": False,
            "properties": {
                "seeds": {"type": "array", "minItems": 1, "maxItems": MAX_SHEETS, "items": SEED,
                          "description": "a page per seed, in this order"},
                "request": own, "level": LEVEL,
                "key": {"type": "boolean", "default": False,
                        "description": "true: the answer key, every blank filled in"},
                "format": {"enum": list(SHEET_FORMATS), "default": "pdf",
                           "description": "pdf, or typ: the typst source it is typeset from"},
            }},
        "ExerciseRequest": {"type": "object", "required": ["level"],
                            "additionalProperties": False, "properties": asked},
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
        "ExerciseCheckRequest": {
            "type": "object", "required": ["level", "answers"],
            "additionalProperties": False,
            "properties": {**asked, "answers": {
                "type": "object", "additionalProperties": {"type": "number"},
                "description": "a blank's path → the student's number; any of the blanks"}}},
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
                    }}},
                "score": {"type": "object", "required": ["correct", "answered", "blanks"],
                          "additionalProperties": False, "properties": {
                              k: {"type": "integer", "minimum": 0}
                              for k in ("correct", "answered", "blanks")}},
            }},
    }
