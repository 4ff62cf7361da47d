"""The OpenAPI description of POST /api/cost (openapi.py joins it to the rest); its bounds
from cost.py and the limits."""

from __future__ import annotations

from attention_core.cost import SIZES

from .cost import BLOCK, BUDGET

WHOLE = {"type": "integer", "minimum": 0}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def cost_paths(op, json) -> dict:
    """The route; ``op`` and ``json`` are openapi.py's builders."""
    operation = op(
        "cost", "What the view costs by formula; measured on this server when asked.",
        json(_ref("Cost"), "Each step's multiply-adds and each matrix's bytes, with their "
                           "formulas; with measure, the times at n = "
                           f"{', '.join(map(str, SIZES))}."),
        ("400", "413", "415", "422", "503"),
        description=f"A measurement takes up to {BUDGET:g} s of a core; one server makes one "
                    f"at a time and refuses another with a 503 meanwhile, with Retry-After.",
        requestBody={"required": True, "content": {"application/json": {
            "schema": _ref("CostRequest"),
            "examples": {"the cat sat": {"value": {"n": 3, "d_model": 2, "d_k": 2, "d_v": 2,
                                                   "measure": True}}}}}})
    return {"/api/cost": {"post": operation}}


def cost_schemas(limits) -> dict:
    def size(high: int, what: str) -> dict:
        return {"type": "integer", "minimum": 1, "maximum": high, "description": what}
    timing = {"type": "object", "additionalProperties": False,
              "required": ["seconds", "slope", "score_bytes"], "properties": {
                  "seconds": {"type": "array", "items": {"type": "number"}},
                  "slope": {"type": ["number", "null"], "description": "of log seconds "
                            "against log n, fitted; 2 when time grows as n²"},
                  "score_bytes": {"type": "array", "items": WHOLE,
                                  "description": "the scores held at once"}}}
    return {
        "CostRequest": {"type": "object", "additionalProperties": False,
                        "required": ["n", "d_model", "d_k", "d_v"], "properties": {
                            "n": size(limits.max_tokens, "queries"),
                            "m": size(limits.max_tokens, "keys; n when left out"),
                            "d_model": size(limits.max_model_dim, "d_model"),
                            "d_k": size(limits.max_dim, "d_k"),
                            "d_v": size(limits.max_dim, "d_v"),
                            "measure": {"type": "boolean", "default": False}}},
        "Cost": {"type": "object", "additionalProperties": False,
                 "required": ["steps", "matrices"], "properties": {
                     "steps": {"type": "array", "items": {
                         "type": "object", "required": ["step", "formula", "multiply_adds"],
                         "additionalProperties": False, "properties": {
                             "step": {"type": "string"}, "formula": {"type": "string"},
                             "multiply_adds": WHOLE}}},
                     "matrices": {"type": "array", "items": {
                         "type": "object", "required": ["matrix", "shape", "bytes"],
                         "additionalProperties": False, "properties": {
                             "matrix": {"type": "string"}, "shape": {"type": "string"},
                             "bytes": WHOLE}}},
                     "measured": {"type": "object", "additionalProperties": False,
                                  "required": ["sizes", "complete", "block", "standard",
                                               "tiled"], "properties": {
                                      "sizes": {"type": "array", "items": WHOLE},
                                      "complete": {"type": "boolean", "description":
                                                   "false when the budget ran out first"},
                                      "block": {"const": BLOCK},
                                      "standard": timing, "tiled": timing}}}},
    }
