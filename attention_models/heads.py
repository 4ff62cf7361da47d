"""One head of a real model, computed by the engine from that head's own matrices.

The model's forward pass (float32) keeps each layer's input X; this module takes that X
and the head's slices of W_Q, W_K, W_V (and biases), widens them to float64 and calls the
same ``attention()`` the editor uses. So the page's working of a real head is the
editor's working, on the numbers the model really multiplied.
"""

from __future__ import annotations

import numpy as np

from attention_core import AttentionResult, attention

from .base import Model


def head_inputs(model: Model, forward, layer: int, head: int) -> dict:
    """The engine's inputs for query head ``head`` of layer ``layer`` (0-based), float64:
    X (n, D), W_Q, W_K, W_V (D, d), b_Q, b_K, b_V (d,) or None, rope_base or None, and
    kv_head, the key/value head it reads. ``forward``: a Forward, or anything holding its
    X (L, n, D)."""
    weights = model.head(layer, head)
    info = model.info
    return {"X": forward.X[layer].astype(np.float64), "W_Q": weights.W_Q, "W_K": weights.W_K,
            "W_V": weights.W_V, "b_Q": weights.b_Q, "b_K": weights.b_K, "b_V": weights.b_V,
            "rope_base": info.rope_base if info.positional == "rope" else None,
            "kv_head": weights.kv_head}


def attend(inputs: dict, causal: bool) -> AttentionResult:
    """The engine's attention of one head's inputs (head_inputs), with or without the
    causal mask."""
    return attention(inputs["X"], inputs["W_Q"], inputs["W_K"], inputs["W_V"], causal=causal,
                     b_Q=inputs["b_Q"], b_K=inputs["b_K"], b_V=inputs["b_V"],
                     rope_base=inputs["rope_base"])


def head_attention(model: Model, forward, layer: int, head: int,
                   causal: bool | None = None) -> AttentionResult:
    """That head's attention as the engine computes it; ``causal`` None is the model's own
    mask, the opposite a counterfactual on the same X."""
    return attend(head_inputs(model, forward, layer, head),
                  model.info.causal if causal is None else causal)


def first_token_share(weights: np.ndarray) -> np.ndarray:
    """The mean weight each head puts on the first token, over its queries: (L, H) from the
    forward's (L, H, n, n) weights. Many heads of trained models park most of their
    attention there (an "attention sink") when nothing else in the text is relevant."""
    return weights[..., 0].mean(axis=-1, dtype=np.float64)
