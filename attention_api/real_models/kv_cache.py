"""The answer of POST /api/model/kv-cache: one head of the real decoder generating the text
token by token (attention_core/kvcache.py), and the key/value cache of the whole model."""

from __future__ import annotations

from attention_core.kvcache import cache_numbers, generate

from ..attention.response import plain
from ..running.kv_cache import FLOAT_BYTES
from .request import ModelRequest

MODEL_BYTES = 2  # a cache as servers keep it: 16-bit floats (the engine computes in float64)


def whole_model_cache(info, context: int, n: int) -> dict:
    """Numbers and bytes of the whole model's cache: 2 · layers · kv_heads · d_head per
    token (a key and a value per key/value head of every layer), at the text's n tokens and
    at the model's ``context``, and what it would be without grouped-query heads."""
    per_token = info.layers * cache_numbers(1, info.d_head, info.d_head, info.kv_heads)
    without = info.layers * cache_numbers(1, info.d_head, info.d_head, info.heads)
    return {"per_token": per_token, "without_sharing_per_token": without,
            "bytes_per_number": MODEL_BYTES, "context": context,
            "at_text": {"tokens": n, "numbers": per_token * n,
                        "bytes": per_token * n * MODEL_BYTES},
            "at_context": {"tokens": context, "numbers": per_token * context,
                           "bytes": per_token * context * MODEL_BYTES,
                           "without_sharing_bytes": without * context * MODEL_BYTES}}


def model_kv_cache_body(request: ModelRequest, inputs: dict) -> dict:
    """The steps of ``request``'s head (its inputs: heads.head_inputs) and the whole model's
    cache. A step carries its row of weights and z, not its working (64 numbers a key: the
    whole run's would be megabytes); POST /api/model/attention writes any row's."""
    info, tokens = request.model.info, request.tokenized.tokens
    steps = generate(inputs["X"], inputs["W_Q"], inputs["W_K"], inputs["W_V"],
                     b_Q=inputs["b_Q"], b_K=inputs["b_K"], b_V=inputs["b_V"],
                     rope_base=inputs["rope_base"])
    head_cache = cache_numbers(1, info.d_head, info.d_head)  # per token, this head's group
    return plain({
        "model": info.id, "text": request.text, "tokens": tokens, "layer": request.layer,
        "head": request.head, "kv_head": inputs["kv_head"],
        "steps": [{"t": s.t, "token": tokens[s.t], "weights": s.weights, "z": s.z,
                   "cost": {"dot_products": s.dots, "without_cache": s.recompute_dots},
                   "cache": {"tokens": s.t + 1, "numbers": head_cache * (s.t + 1),
                             "bytes": head_cache * (s.t + 1) * FLOAT_BYTES}}
                  for s in steps],
        "model_cache": whole_model_cache(info, request.model.config.context, len(tokens)),
    })
