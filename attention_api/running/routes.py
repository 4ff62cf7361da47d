"""How attention runs: the key/value cache, FlashAttention's tiles, the cost of n²."""

from __future__ import annotations

from flask import Blueprint, jsonify

from ..attention.admission import admitted, keep_slots
from ..attention.routes import limits
from ..web.body import json_payload
from ..web.errors import retry_later
from .cost import Measuring, cost_body
from .kv_cache import kv_cache_body
from .tiles import tiles_body

bp = Blueprint("running", __name__)
bp.record_once(keep_slots)


@bp.post("/api/cost")
@admitted("TILES_AND_COSTS")
def api_cost():
    """The view's costs by formula; with "measure": true, the engine timed at n = 64 … 512."""
    try:
        return jsonify(cost_body(json_payload(), limits()))
    except Measuring:
        return retry_later("This server is measuring for another request, one measurement at a "
                           "time (each takes up to 2 s); nothing was measured. Send it again in "
                           "a moment.", 2)


@bp.post("/api/kv-cache")
def api_kv_cache():
    """A causal view generated token by token with a key/value cache: a step per token."""
    return jsonify(kv_cache_body(json_payload(), limits()))


@bp.post("/api/tiles")
@admitted("TILES_AND_COSTS")
def api_tiles():
    """One query row through FlashAttention's tiles: its running m, ℓ and O, block by block."""
    return jsonify(tiles_body(json_payload(), limits()))
