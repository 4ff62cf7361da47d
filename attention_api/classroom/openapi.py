"""The OpenAPI description of the classroom's routes, the exercises, the worksheets and the
slides (openapi.py joins it to the rest): their bodies' schemas from their declarations
(declaration.py), the answers' from answer.py's."""

from __future__ import annotations

from ..attention.limits import Limits
from ..declared import answer_components, ref, schema_of
from ..web.errors import REFUSED
from .answer import Exercise, ExerciseCheck
from .declaration import classroom_schemas


def _ref(name: str) -> dict:
    return schema_of(ref(name))


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
             "content": {"application/pdf": {"schema": schema_of(bytes)},
                         "text/plain": {"schema": schema_of(str)}}},
            (*REFUSED, "503"),
            requestBody=_body("WorksheetRequest", {"seeds": [17, 18], "level": "weights",
                                                   "key": True}))},
        "/api/slide": {"post": op(
            "slide", "A head's heatmap or a row's working as a slide: PNG or SVG.",
            {"description": "A 1920 × 1080 PNG (or an SVG of 960 × 540 pt, or with format typ "
                            "its typst source), as an attachment named for what it shows: "
                            "slide-heatmap-row3.png, slide-working-row3-head2.svg.",
             "content": {"image/png": {"schema": schema_of(bytes)},
                         "image/svg+xml": {"schema": schema_of(str)},
                         "text/plain": {"schema": schema_of(str)}}},
            (*REFUSED, "503"),
            requestBody=_body("SlideRequest", {"request": {
                "tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
                "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]},
                "row": 2, "what": "heatmap", "format": "png"}))},
    }


def exercise_schemas(limits: Limits) -> dict:
    """The bodies' schemas from their declarations (declaration.py), for ``limits``, and the
    answers' from answer.py's."""
    return {**classroom_schemas(limits), **answer_components(Exercise, ExerciseCheck)}
