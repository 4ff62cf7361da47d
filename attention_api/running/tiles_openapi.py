"""The OpenAPI description of POST /api/tiles (openapi.py joins it to the rest): its body is
the attention request's schema with the tile's fields (tiles.py's EXTRA) in place of fields
and encoding, so the two cannot drift apart."""

from __future__ import annotations

import copy

from ..attention.request import Limits
from .tiles import ALLOWED

RUNNING = {"type": ["number", "null"], "description": "null is −∞: no permitted key yet"}
NUMBER = {"type": "number"}
SPAN = {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0}}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def tiles_paths(op, json) -> dict:
    """The route; ``op`` and ``json`` are openapi.py's builders."""
    example = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
               "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]],
               "causal": True, "row": 2, "block_q": 2, "block_k": 2}
    return {"/api/tiles": {"post": op(
        "tiles", "One query row through FlashAttention's tiles: the online softmax.",
        json(_ref("TilesAnswer"), "Each key block in order: the running maximum m, sum ℓ "
                                  "and output O before and after it, the rescale "
                                  "e^(m_before − m_after) and the scores it held; then z "
                                  "and the log-sum-exp, and the scores held at once."),
        ("400", "413", "415", "422", "503"),
        requestBody={"required": True, "content": {"application/json": {
            "schema": _ref("TilesRequest"), "examples": {"example": {"value": example}}}}})}}


def tiles_schemas(attention_request: dict, limits: Limits) -> dict:
    """TilesRequest (from the AttentionRequest schema given) and TilesAnswer."""
    n, d = limits.max_tokens, limits.max_dim
    request = copy.deepcopy(attention_request)
    request["properties"] = {k: v for k, v in request["properties"].items() if k in ALLOWED}
    block = {"type": "integer", "minimum": 1}
    request["properties"].update(
        row={"type": "integer", "minimum": 0, "maximum": n - 1,
             "description": "the query, 0-based, whose pass through the tiles to follow"},
        block_q={**block, "description": "B_r, the query rows of a tile; the row's query "
                                         "block is ⌊row / B_r⌋"},
        block_k={**block, "description": "B_c, the key columns of a tile"},
        head={"type": "integer", "minimum": 0, "maximum": limits.max_heads - 1, "default": 0,
              "description": "the head, 0-based, with several"})
    request["required"] = ["X", "row", "block_q", "block_k"]
    request["description"] = ("An attention request as POST /api/attention takes it, "
                              "without fields and encoding, with row, block_q and block_k.")
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
    return {"TilesRequest": request, "TilesAnswer": answer}
