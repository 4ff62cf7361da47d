"""The OpenAPI description of how attention runs (openapi.py joins it to the rest): POST
/api/cost, /api/kv-cache and /api/tiles. Their requests' schemas come from their
declarations (declaration.py); their answers' are written here, their bounds from cost.py,
the limits and attention_core.cost."""

from __future__ import annotations

from attention_core.cost import SIZES

from ..attention.declaration import declaration
from ..attention.limits import Limits
from ..declared import components
from ..web.errors import REFUSED
from .cost import BLOCK, BUDGET
from .declaration import KV_CACHE, MAX_STEPS, TILES, cost_request

WHOLE = {"type": "integer", "minimum": 0}
RUNNING = {"type": ["number", "null"], "description": "null is −∞: no permitted key yet"}
NUMBER = {"type": "number"}
SPAN = {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0}}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def running_paths(op, json) -> dict:
    """The three routes; ``op`` and ``json`` are openapi.py's builders."""
    return {**_cost_path(op, json), **_kv_cache_path(op, json), **_tiles_path(op, json)}


def running_schemas(limits: Limits) -> dict:
    """The requests, from their declarations, and the answers."""
    return {**components(cost_request(limits)),
            **declaration(limits, KV_CACHE).json_schema(),
            **declaration(limits, TILES).json_schema(),
            **_cost_answer(), "KVCache": _kv_cache_answer(), "TilesAnswer": tiles_answer(limits)}


def _cost_path(op, json) -> dict:
    operation = op(
        "cost", "What the view costs by formula; measured on this server when asked.",
        json(_ref("Cost"), "Each step's multiply-adds and each matrix's bytes, with their "
                           "formulas; with measure, the times at n = "
                           f"{', '.join(map(str, SIZES))}."),
        (*REFUSED, "503"),
        description=f"A measurement takes up to {BUDGET:g} s of a core; one server makes one "
                    f"at a time and refuses another with a 503 meanwhile, with Retry-After.",
        requestBody={"required": True, "content": {"application/json": {
            "schema": _ref("CostRequest"),
            "examples": {"the cat sat": {"value": {"n": 3, "d_model": 2, "d_k": 2, "d_v": 2,
                                                   "measure": True}}}}}})
    return {"/api/cost": {"post": operation}}


def _kv_cache_path(op, json) -> dict:
    example = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
               "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]],
               "causal": True}
    return {"/api/kv-cache": {"post": op(
        "kvCache", "A causal view generated token by token, with a key/value cache.",
        json(_ref("KVCache"), "A step per token: its new row of weights, z, the row's "
                              "working, its cost and the cache it leaves."),
        REFUSED,
        description=f"The body is a request of POST /api/attention with \"causal\": true "
                    f"(no X_kv, no mask by hand; at most {MAX_STEPS} tokens), and \"head\" "
                    f"(0-based) to choose a query head.",
        requestBody={"required": True, "content": {"application/json": {
            "schema": _ref("KVCacheRequest"),
            "examples": {"the cat sat": {"value": example}}}}})}}


def _tiles_path(op, json) -> dict:
    example = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
               "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]],
               "causal": True, "row": 2, "block_q": 2, "block_k": 2}
    return {"/api/tiles": {"post": op(
        "tiles", "One query row through FlashAttention's tiles: the online softmax.",
        json(_ref("TilesAnswer"), "Each key block in order: the running maximum m, sum ℓ "
                                  "and output O before and after it, the rescale "
                                  "e^(m_before − m_after) and the scores it held; then z "
                                  "and the log-sum-exp, and the scores held at once."),
        (*REFUSED, "503"),
        requestBody={"required": True, "content": {"application/json": {
            "schema": _ref("TilesRequest"), "examples": {"example": {"value": example}}}}})}}


def _cost_answer() -> dict:
    timing = {"type": "object", "additionalProperties": False,
              "required": ["seconds", "slope", "score_bytes"], "properties": {
                  "seconds": {"type": "array", "items": {"type": "number"}},
                  "slope": {"type": ["number", "null"], "description": "of log seconds "
                            "against log n, fitted; 2 when time grows as n²"},
                  "score_bytes": {"type": "array", "items": WHOLE,
                                  "description": "the scores held at once"}}}
    return {
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


def _kv_cache_answer() -> dict:
    cache = {"type": "object", "additionalProperties": False,
             "required": ["tokens", "kv_heads", "numbers", "bytes", "per_kv_head",
                          "without_sharing"],
             "description": "the cache after the step: K and V of every token so far",
             "properties": {
                 "tokens": WHOLE, "kv_heads": WHOLE,
                 "numbers": {**WHOLE, "description": "tokens · (d_k + d_v) per key/value "
                                                     "head, for every key/value head"},
                 "bytes": {**WHOLE, "description": "numbers × 8 (float64)"},
                 "per_kv_head": WHOLE,
                 "without_sharing": {**WHOLE, "description": "what every query head would "
                                                             "keep without grouped-query heads"}}}
    step = {"type": "object", "additionalProperties": False,
            "required": ["t", "token", "weights", "z", "working", "cost", "cache"],
            "properties": {
                "t": {**WHOLE, "description": "the token added, 0-based"},
                "token": {"type": "string"},
                "weights": {"type": "array", "items": {"type": "number"},
                            "description": "row t of A: t + 1 weights"},
                "z": {"type": "array", "items": {"type": "number"}},
                "working": _ref("Working"),
                "cost": {"type": "object", "additionalProperties": False,
                         "required": ["dot_products", "without_cache"], "properties": {
                             "dot_products": {**WHOLE, "description": "t + 1"},
                             "without_cache": {**WHOLE, "description": "(t + 1)²: every "
                                                                       "row again"}}},
                "cache": cache}}
    return {"type": "object", "additionalProperties": False,
                        "required": ["tokens", "head", "heads", "steps"],
                        "properties": {"tokens": {"type": "array", "items": {"type": "string"}},
                                       "head": WHOLE, "heads": WHOLE,
                                       "steps": {"type": "array", "items": step}}}


def tiles_answer(limits: Limits) -> dict:
    """POST /api/tiles' answer for ``limits`` (a real model's are wider)."""
    n, d = limits.max_tokens, limits.max_dim
    vector = {"type": "array", "minItems": 1, "maxItems": d, "items": NUMBER}
    tile = {
        "type": "object", "additionalProperties": False,
        "required": ["key_block", "keys", "skipped", "m_before", "m_after", "l_before", "l_after",
                     "O_before", "O_after", "rescale", "scores"],
        "properties": {
            "key_block": {"type": "integer", "minimum": 0,
                          "description": "c: keys c·B_c to (c + 1)·B_c − 1"},
            "keys": {**SPAN, "description": "[start, stop]: the keys j of this tile, "
                                            "start ≤ j < stop, 0-based"},
            "skipped": {"type": "boolean", "description": "every entry of the B_r × B_c "
                        "tile is masked: its scores are never computed"},
            "m_before": RUNNING, "m_after": RUNNING,
            "l_before": {**NUMBER, "minimum": 0}, "l_after": {**NUMBER, "minimum": 0},
            "O_before": vector, "O_after": vector,
            "rescale": {**NUMBER, "minimum": 0, "maximum": 1, "description":
                        "e^(m_before − m_after), by which the old ℓ and O are multiplied: 1 "
                        "when the maximum did not grow, 0 at the row's first permitted key"},
            "scores": {"type": "array", "minItems": 1, "maxItems": n,
                       "items": {"type": ["number", "null"]},
                       "description": "the row's scaled scores in this key block; null "
                                      "where masked (all null when skipped)"},
        }}
    answer = {
        "type": "object", "additionalProperties": False,
        "required": ["rows", "tiles", "final", "memory"],
        "properties": {
            "rows": {**SPAN, "description": "[start, stop]: the queries i of the row's query "
                                            "block, start ≤ i < stop, 0-based"},
            "tiles": {"type": "array", "minItems": 1, "maxItems": n, "items": tile},
            "final": {"type": "object", "additionalProperties": False,
                      "required": ["z", "logsumexp"], "properties": {
                          "z": {**vector, "description": "O/ℓ, the row's z (0 when it may "
                                                         "read no key)"},
                          "logsumexp": {**RUNNING, "description": "m + ln ℓ; null when "
                                                                  "the row may read no key"}}},
            "memory": {"type": "object", "additionalProperties": False,
                       "required": ["held", "whole"], "properties": {
                           "held": {"type": "integer", "minimum": 1, "description":
                                    "scores held at once: min(B_r, n)·min(B_c, m)"},
                           "whole": {"type": "integer", "minimum": 1,
                                     "description": "n·m, the whole score matrix"}}},
        }}
    return answer
