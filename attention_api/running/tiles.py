"""POST /api/tiles: one query row's pass through FlashAttention's tiles (attention_core/tiles.py).

The body is an attention request as POST /api/attention takes it, with ``row`` (now
required), ``block_q`` (B_r), ``block_k`` (B_c) and, with several heads, ``head`` (0-based,
default 0). The answer: ``tiles`` (each key block's running m, ℓ and O before and after it,
its rescale and its scores), ``final`` {z, logsumexp} and ``memory`` {held, whole}; −∞ is
null, as everywhere in the API.
"""

from __future__ import annotations

from attention_core.multihead import named
from attention_core.tiles import RowTiles, row_tiles

from ..attention.request import Limits, parse_body
from ..attention.response import engine_options, plain, positioned
from .declaration import TILES


def tiles_body(p, limits: Limits) -> dict:
    """The answer to the body ``p``: its row's tiles, for the head asked (JSON-ready)."""
    body, req = parse_body(p, limits, TILES)  # declaration.py
    return answer(_trace(req, body.head, body.block_q, body.block_k))


def _trace(req, h: int, block_q: int, block_k: int) -> RowTiles:
    """Head h's row, tile by tile: the engine's inputs as POST /api/attention gives them
    (positions added, the key/value head it reads), its errors named as there."""
    X, X_kv, _, _ = positioned(req)
    W_Q, W_K, W_V = req.projections[h]
    g = h * len(req.kv_heads) // len(req.heads) if req.kv_heads else None
    own = req.heads[h]
    kv = own if g is None else req.kv_heads[g]
    slope = None if req.alibi_slopes is None else float(req.alibi_slopes[h])
    options = dict(engine_options(req, X_kv), b_Q=own.get("b_Q"), b_K=kv.get("b_K"),
                   b_V=kv.get("b_V"), alibi_slope=slope, row=req.row, block_q=block_q,
                   block_k=block_k)
    if not req.multi_head:  # a single head sent as W_Q, W_K, W_V: no head to name
        return row_tiles(X, W_Q, W_K, W_V, **options)
    return named(h, g, row_tiles, X, W_Q, W_K, W_V, **options)


def answer(r: RowTiles) -> dict:
    """The JSON answer: the row's query block (its rows, start ≤ i < stop), every tile (its
    keys, start ≤ j < stop), the final z and log-sum-exp, the scores held at once."""
    tiles = [{"key_block": t.key_block, "keys": list(t.keys), "skipped": t.skipped,
              "m_before": t.m_before, "m_after": t.m_after, "l_before": t.l_before,
              "l_after": t.l_after,
              "O_before": t.O_before, "O_after": t.O_after, "rescale": t.rescale,
              "scores": t.scores} for t in r.tiles]
    return plain({"rows": list(r.rows), "tiles": tiles,
                  "final": {"z": r.final.z, "logsumexp": r.final.logsumexp},
                  "memory": {"held": r.memory.held, "whole": r.memory.whole}})
