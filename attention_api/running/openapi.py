"""The OpenAPI description of how attention runs (openapi.py joins it to the rest): POST
/api/cost, /api/kv-cache and /api/tiles. Their requests' schemas come from their
declarations (declaration.py), their answers' from answer.py's."""

from __future__ import annotations

from attention_core.cost import SIZES

from ..attention.declaration import declaration
from ..attention.limits import Limits
from ..declared import answer_components, components, ref, schema_of
from ..web.errors import REFUSED
from .answer import Cost, KVCache, tiles_answer
from .cost import BUDGET
from .declaration import KV_CACHE, MAX_STEPS, TILES, cost_request


def _ref(name: str) -> dict:
    return schema_of(ref(name))


def running_paths(op, json) -> dict:
    """The three routes; ``op`` and ``json`` are openapi.py's builders."""
    return {**_cost_path(op, json), **_kv_cache_path(op, json), **_tiles_path(op, json)}


def running_schemas(limits: Limits) -> dict:
    """The requests, from their declarations, and the answers."""
    return {**components(cost_request(limits)),
            **declaration(limits, KV_CACHE).json_schema(),
            **declaration(limits, TILES).json_schema(),
            **answer_components(Cost, KVCache, tiles_answer(limits))}


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
