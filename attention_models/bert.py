"""The BERT encoder's maths in numpy: layer norm, the exact (erf) GELU, and the forward pass
that keeps every layer's attention.

Orientation is the engine's: hidden states are (n tokens, D), one row per token; every
projection W is (in, out), so that y = x·W + b (torch stores Linear weights (out, in): the
loader transposes them once). BERT is post-layernorm: each sublayer's output is added to
its input and the sum normalised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# all-MiniLM-L6-v2's config.json: layer_norm_eps 1e-12.
LAYER_NORM_EPS = 1e-12

# Numerical Recipes' erfc(z) = t·exp(−z² + P(t)), t = 1 / (1 + z/2), P of degree 9 (a
# Chebyshev fit): relative error below 1.2e-7 for every z ≥ 0. Evaluated in float64,
# gelu() is within a relative 1.05e-7 of x·erfc(−x/√2)/2 by math.erfc on [−10, 10],
# 1.6e-7 after rounding to float32 (whose own half-step is 6e-8): float32's precision, at
# most 1.2 steps of float32's spacing at x. The shorter Abramowitz–Stegun 7.1.26 is 1.5e-7
# absolute in erf, a large relative error for the tiny GELU of negative inputs; and the same
# formula evaluated in float32 loses 1.2e-6 (P(t) cancels to 0 near z = 0).
ERFC_P = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
          -1.13520398, 1.48851587, -0.82215223, 0.17087277)


@dataclass(frozen=True)
class Layer:
    """One encoder layer's weights, float32 but for the attention's, each W (in, out)."""

    # float64 (the file's float32 values, widened): self_attention says why.
    W_qkv: np.ndarray  # (D, 3D): W_Q | W_K | W_V side by side, head h at columns d·h … d·h+d−1
    b_qkv: np.ndarray  # (3D,)
    W_O: np.ndarray  # (D, D): the heads' concatenated outputs to the residual stream
    b_O: np.ndarray  # (D,)
    attention_norm: tuple[np.ndarray, np.ndarray]  # gain, bias (D,)
    W_in: np.ndarray  # (D, F): the feed-forward's expansion
    b_in: np.ndarray  # (F,)
    W_out: np.ndarray  # (F, D)
    b_out: np.ndarray  # (D,)
    output_norm: tuple[np.ndarray, np.ndarray]  # gain, bias (D,)


@dataclass(frozen=True)
class Embeddings:
    """The token, position and token-type embeddings and the layer norm after their sum."""

    words: np.ndarray  # (vocabulary, D)
    positions: np.ndarray  # (max positions, D): learned, one row per position
    token_type: np.ndarray  # (D,): type 0's row; a single sentence is all type 0
    norm: tuple[np.ndarray, np.ndarray]  # gain, bias (D,)


def erfc(z: np.ndarray) -> np.ndarray:
    """The complementary error function for z ≥ 0 (float64), relative error < 1.2e-7.

    >>> round(float(erfc(np.array(1.0))), 7)  # math.erfc(1) = 0.1572992070…
    0.1572992
    """
    t = 1.0 / (1.0 + 0.5 * z)
    p = np.full_like(t, ERFC_P[-1])
    for c in reversed(ERFC_P[:-1]):  # Horner, highest power first
        p *= t
        p += c
    p -= z * z
    return t * np.exp(p, out=p)


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU, x·Φ(x) = x·(1 + erf(x/√2))/2, elementwise, float32 from float32.

    Computed in float64: u = x/√2 rounded to float32 alone would cost 2u²·6e-8 of relative
    precision (1.5e-6 at x = 5). 1 + erf(u) is erfc(−u): written with erfc for u < 0 so that
    the small values of negative inputs keep their precision (1 − erfc would cancel them).
    """
    u = x.astype(np.float64)
    u *= 1.0 / np.sqrt(2.0)
    one_plus_erf = erfc(np.abs(u))
    np.subtract(2.0, one_plus_erf, out=one_plus_erf, where=u >= 0)
    one_plus_erf *= x
    one_plus_erf *= 0.5
    return one_plus_erf.astype(np.float32)


def layer_norm(x: np.ndarray, norm: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Each row of x (n, D) to mean 0 and variance 1 (biased variance, as torch), then
    scaled by the gain and shifted by the bias, both (D,)."""
    gain, bias = norm
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + LAYER_NORM_EPS) * gain + bias


def embed(embeddings: Embeddings, ids: list[int]) -> np.ndarray:
    """Layer 0's input (n, D): word + position + token-type embeddings, layer-normed."""
    n = len(ids)
    summed = embeddings.words[ids] + embeddings.positions[:n] + embeddings.token_type
    return layer_norm(summed, embeddings.norm)


def self_attention(layer: Layer, x: np.ndarray, heads: int) -> tuple[np.ndarray, np.ndarray]:
    """Every head's attention on x (n, D), bidirectional (no mask): the weights (H, n, n),
    queries down and each row summing to 1, and each head's A·V (H, n, d), float32.

    Computed in float64 from the float32 x and weights: the engine recomputes each head in
    float64 from the same numbers, and a float32 projection would differ from it by up to
    2.6e-6 on the real model (1.2e-7 this way, well inside the tests' 1e-6).
    """
    n, D = x.shape  # (n tokens, d_model)
    d = D // heads
    qkv = x.astype(np.float64) @ layer.W_qkv  # (n, 3D): one matmul for all three
    qkv += layer.b_qkv
    q, k, v = qkv.reshape(n, 3, heads, d).transpose(1, 2, 0, 3)  # each (H, n, d)
    scores = q @ k.transpose(0, 2, 1)  # (H, n, n)
    scores *= 1.0 / np.sqrt(d)
    # Subtracting each row's maximum keeps exp from overflowing; the softmax is unchanged.
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores, out=scores)
    weights /= weights.sum(axis=-1, keepdims=True)  # (H, n, n)
    return weights.astype(np.float32), (weights @ v).astype(np.float32)


def encoder_layer(layer: Layer, x: np.ndarray, heads: int):
    """One post-layernorm layer on x (n, D): (its output (n, D), weights, outputs)."""
    n, D = x.shape  # (n tokens, d_model)
    weights, outputs = self_attention(layer, x, heads)
    concat = outputs.transpose(1, 0, 2).reshape(n, D)  # (n, H·d): heads side by side
    x = layer_norm(x + concat @ layer.W_O + layer.b_O, layer.attention_norm)
    expanded = x @ layer.W_in  # (n, F)
    expanded += layer.b_in
    expanded = gelu(expanded)
    x = layer_norm(x + expanded @ layer.W_out + layer.b_out, layer.output_norm)
    return x, weights, outputs


def forward(embeddings: Embeddings, layers: list[Layer], heads: int, ids: list[int]):
    """The encoder on token ids: (X (L, n, D), weights (L, H, n, n), outputs (L, H, n, d),
    hidden (n, D)), where X[l] is layer l's input hidden states and hidden the last output."""
    x = embed(embeddings, ids)  # (n, D)
    X, weights, outputs = [], [], []
    for layer in layers:
        X.append(x)
        x, layer_weights, layer_outputs = encoder_layer(layer, x, heads)
        weights.append(layer_weights)
        outputs.append(layer_outputs)
    return np.stack(X), np.stack(weights), np.stack(outputs), x
