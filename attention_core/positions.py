"""Where a token is: sinusoidal encodings added to X, rotary positions (RoPE) turning
queries and keys, and ALiBi's linear biases on the scores."""

from __future__ import annotations

import math

import numpy as np

from .errors import AttentionInputError
from .masks import distances

ROPE_BASE = 10000.0  # θ of RoFormer and of most models since; SmolLM2 uses 100000


def sinusoidal(n: int, d_model: int, offset: int = 0) -> np.ndarray:
    """The (n, d_model) encoding added to X before the projections, as in "Attention Is All
    You Need" (Vaswani et al., 2017).

    Row i is position ``pos = offset + i`` and holds, interleaved, for c = 0, 1, …:
    ``PE[i, 2c] = sin(pos / 10000^(2c/d_model))`` and
    ``PE[i, 2c+1] = cos(pos / 10000^(2c/d_model))``.
    With an odd d_model the last column is a sine.

    >>> sinusoidal(2, 4).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.01  , 1.    ]])
    """
    if n < 1 or d_model < 1:
        raise AttentionInputError(
            f"a positional encoding needs at least one token and one dimension, got "
            f"{n} × {d_model}", "positional")
    pos = (offset + np.arange(n, dtype=np.float64))[:, np.newaxis]  # (n, 1)
    i = np.arange(d_model) // 2  # the pair each column belongs to, (d_model,)
    angle = pos / 10000.0 ** (2 * i / d_model)  # (n, d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))


def rope_frequencies(d_k: int, base: float = ROPE_BASE) -> np.ndarray:
    """(d_k/2,) radians per position of each pair c: θ^(−2c/d_k), from 1 down towards 1/θ."""
    return base ** (-2.0 * np.arange(d_k // 2) / d_k)


def rope_angles(positions: np.ndarray, d_k: int, base: float = ROPE_BASE) -> np.ndarray:
    """(len(positions), d_k/2) angles p·θ^(−2c/d_k) in radians: row p's pair c turns by it."""
    return np.asarray(positions, dtype=np.float64)[:, np.newaxis] * rope_frequencies(d_k, base)


def rotate(x: np.ndarray, positions, base: float = ROPE_BASE) -> np.ndarray:
    """Rotary positions (RoFormer, Su et al., 2021) with interleaved pairs: row r of the
    (rows, d_k) ``x`` is turned by its position p = positions[r], pair by pair.

    For each pair c = 0 … d_k/2 − 1, (x[2c], x[2c+1]) becomes
    (x[2c]·cos φ − x[2c+1]·sin φ, x[2c]·sin φ + x[2c+1]·cos φ) with φ = p·θ^(−2c/d_k).
    d_k must be even. The dot product of a query turned by p and a key turned by p' depends
    on p − p' alone, which is the point: scores see relative positions.

    >>> rotate(np.array([[1.0, 0.0]]), [1]).round(4)  # p = 1 turns pair 0 by 1 radian
    array([[0.5403, 0.8415]])
    """
    rows, d_k = x.shape  # (tokens, d_k)
    angles = rope_angles(np.asarray(positions), d_k, base)  # (rows, d_k/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]  # (rows, d_k/2) each: the pairs' two numbers
    out = np.empty_like(x)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


def alibi_slopes(heads: int) -> np.ndarray:
    """(heads,) the ALiBi paper's slopes m_h (Press et al., 2022), head 0 first.

    For a power of two H: m_h = 2^(−8(h+1)/H), a geometric sequence from 2^(−8/H) down to
    2^−8. Otherwise the paper's rule: the slopes of the closest lower power of two P, then
    every other slope of 2P, the first H − P of them.

    >>> alibi_slopes(4).tolist(), alibi_slopes(3).tolist()
    ([0.25, 0.0625, 0.015625, 0.00390625], [0.0625, 0.00390625, 0.25])
    """
    if heads < 1:
        raise AttentionInputError(f"ALiBi needs at least one head, got {heads}", "alibi_slopes")
    power = 2 ** int(math.floor(math.log2(heads)))
    slopes = [2.0 ** (-8.0 * (h + 1) / power) for h in range(power)]
    if power < heads:
        slopes += alibi_slopes(2 * power)[0::2][:heads - power].tolist()
    return np.array(slopes)


def alibi_bias(n: int, m: int, slope: float, first: int = 0) -> np.ndarray:
    """(n, m) the term −slope·|i − j| that ALiBi adds to the scaled score of query i for key j:
    0 on the diagonal, more negative the farther key j is from query i, in either direction.
    With ``first``, query i is token first + i of the keys' sequence."""
    return 0.0 - float(slope) * distances(n, m, first)  # 0.0 − …: the diagonal is 0, not −0
