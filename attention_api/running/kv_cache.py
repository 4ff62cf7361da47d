"""POST /api/kv-cache: a causal view generated token by token with a key/value cache
(attention_core/kvcache.py). The body is the view's request, as POST /api/attention takes
it, with ``"causal": true`` and optionally ``"head"``; the answer has a step per token: the
new row of weights, z, the row's working, what the step cost and the cache it leaves.
"""

from __future__ import annotations

from attention_core.kvcache import cache_numbers, generate_heads
from attention_core.positions import sinusoidal

from ..attention.request import DEFAULT_LIMITS, AttentionRequest, Limits, parse_body
from ..attention.response import plain, working_body
from .declaration import KV_CACHE, MAX_STEPS  # noqa: F401 (the bound, where it was)

FLOAT_BYTES = 8  # float64, as the engine keeps K and V


def _checked(payload, limits: Limits) -> tuple[AttentionRequest, int]:
    """The request (causal, self-attention, no mask by hand, at most MAX_STEPS tokens) and
    the query head whose steps to answer, by their declaration (declaration.py)."""
    body, req = parse_body(payload, limits, KV_CACHE)
    return req, body.head


def _sizes(req: AttentionRequest, tokens: int) -> dict:
    """The cache after ``tokens`` tokens: numbers and bytes of every key/value head's K and
    V, one head's, and what the query heads would keep without sharing."""
    W_Q, W_K, W_V = req.projections[0]
    d_k, d_v = W_K.shape[1], W_V.shape[1]
    H = len(req.heads)
    G = len(req.kv_heads) if req.kv_heads else H
    numbers = cache_numbers(tokens, d_k, d_v, G)
    return {"tokens": tokens, "kv_heads": G, "numbers": numbers,
            "bytes": numbers * FLOAT_BYTES, "per_kv_head": cache_numbers(tokens, d_k, d_v),
            "without_sharing": cache_numbers(tokens, d_k, d_v, H)}


def kv_cache_body(payload, limits: Limits = DEFAULT_LIMITS) -> dict:
    """The answer: ``steps``, one per token t (0-based), of the chosen head, within
    ``limits`` (the app's, for the route)."""
    req, head = _checked(payload, limits)
    X = req.X
    if req.positional == "sinusoidal":  # added to X before the projections, as compute() does
        X = X + sinusoidal(*X.shape, req.position_offset)
    options = {"scale": req.scale, "window": req.window, "sinks": req.sinks,
               "rope_base": req.rope_base, "position_offset": req.position_offset}
    queries = [{k: v for k, v in h.items() if k in ("W_Q", "b_Q", "W_K", "W_V", "b_K", "b_V")}
               for h in req.heads]
    steps = generate_heads(X, queries, req.kv_heads, alibi_slopes=req.alibi_slopes, **options)
    out = []
    for t, row in enumerate(steps):
        s = row[head]
        out.append({"t": t, "token": req.tokens[t], "weights": s.weights, "z": s.z,
                    "working": working_body(s.working, req.tokens),
                    "cost": {"dot_products": s.dots, "without_cache": s.recompute_dots},
                    "cache": _sizes(req, t + 1)})
    return plain({"tokens": req.tokens, "head": head, "heads": len(req.heads), "steps": out})
