"""Why divide by √d_k: the numbers behind the scaling lab.

Dot products of vectors with independent unit-variance components have variance
d_k, so unscaled scores grow with the width and the softmax saturates: its
weights go to 0 or 1 and its Jacobian, and with it the gradient, to 0.
"""

from __future__ import annotations

import numpy as np


def winner_probability(d_k: int, scaled: bool = True) -> float:
    """The softmax weight of the larger of two scores one standard deviation apart.

    The scores are √d_k and 0 (one standard deviation of q·k is √d_k). Scaled by
    1/√d_k they become 1 and 0 whatever d_k is, so the winner gets σ(1) ≈ 0.731.

    >>> round(winner_probability(4, scaled=False), 3), round(winner_probability(64, scaled=False), 4)
    (0.881, 0.9997)
    >>> round(winner_probability(1024), 3)
    0.731
    """
    gap = 1.0 if scaled else float(np.sqrt(d_k))
    return float(1.0 / (1.0 + np.exp(-gap)))


def score_variance(d_k: int, samples: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """Measured variance of q·k and of q·k/√d_k for random q, k with N(0, 1) components.

    Returns (variance of q·k, variance of q·k/√d_k); expect about (d_k, 1).
    """
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((samples, d_k))
    k = rng.standard_normal((samples, d_k))
    dots = np.einsum("sd,sd->s", q, k)  # (samples,)
    return float(dots.var()), float((dots / np.sqrt(d_k)).var())


def entropy(weights) -> float:
    """Shannon entropy −Σ a log a of one row of weights, in nats (0 log 0 = 0)."""
    a = np.asarray(weights, dtype=np.float64)
    nz = a[a > 0]
    return float(-(nz * np.log(nz)).sum())


def softmax_jacobian(weights) -> np.ndarray:
    """∂a/∂s for a = softmax(s): the (m, m) matrix diag(a) − a aᵀ.

    Its size (``np.linalg.norm``, Frobenius) shrinks to 0 as the softmax saturates,
    which is the vanishing gradient that scaling by 1/√d_k prevents.
    """
    a = np.asarray(weights, dtype=np.float64)
    return np.diag(a) - np.outer(a, a)
