"""The OpenAPI description of POST /api/kv-cache (openapi.py joins it to the rest); its
bound from kv_cache.py."""

from __future__ import annotations

from .kv_cache import MAX_STEPS

WHOLE = {"type": "integer", "minimum": 0}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def kv_cache_paths(op, json) -> dict:
    """The route; ``op`` and ``json`` are openapi.py's builders."""
    example = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
               "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]],
               "causal": True}
    return {"/api/kv-cache": {"post": op(
        "kvCache", "A causal view generated token by token, with a key/value cache.",
        json(_ref("KVCache"), "A step per token: its new row of weights, z, the row's "
                              "working, its cost and the cache it leaves."),
        ("400", "413", "415", "422"),
        description=f"The body is a request of POST /api/attention with \"causal\": true "
                    f"(no X_kv, no mask by hand; at most {MAX_STEPS} tokens), and \"head\" "
                    f"(0-based) to choose a query head.",
        requestBody={"required": True, "content": {"application/json": {
            "schema": _ref("KVCacheRequest"),
            "examples": {"the cat sat": {"value": example}}}}})}}


def kv_cache_schemas(request: dict) -> dict:
    """KVCacheRequest (``request``, the AttentionRequest schema, with causal true and
    "head") and KVCache, the answer."""
    asked = {**request, "required": [*request["required"], "causal"],
             "description": "a request of POST /api/attention, causal, and the query head "
                            "whose steps to answer",
             "properties": {**request["properties"], "causal": {"const": True},
                            "head": {**WHOLE, "default": 0}}}
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
    return {"KVCacheRequest": asked, "KVCache": {"type": "object", "additionalProperties": False,
                        "required": ["tokens", "head", "heads", "steps"],
                        "properties": {"tokens": {"type": "array", "items": {"type": "string"}},
                                       "head": WHOLE, "heads": WHOLE,
                                       "steps": {"type": "array", "items": step}}}}
