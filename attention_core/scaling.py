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

    >>> round(winner_probability(4, scaled=False), 3)
    0.881
    >>> round(winner_probability(64, scaled=False), 4)
    0.9997
    >>> round(winner_probability(1024), 3)
    0.731
    """
    gap = 1.0 if scaled else float(np.sqrt(d_k))
    return float(1.0 / (1.0 + np.exp(-gap)))


# Numbers drawn per block in score_variance: 2**20 float64 is 8 MB for q and as much for k.
BLOCK = 1 << 20


def score_variance(d_k: int, samples: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """Measured variance of q·k and of q·k/√d_k for random q, k with N(0, 1) components.

    ``d_k`` is the number of components, ``samples`` the number of (q, k) pairs and
    ``seed`` any integer ≥ 0. Returns (variance of q·k, variance of q·k/√d_k), in
    squared score units; expect about (d_k, 1). q and k come from two independent
    streams of ``seed`` and are drawn a block of rows at a time, so memory stays near
    16 MB whatever samples × d_k is and the numbers do not depend on the block size.

    >>> raw, scaled = score_variance(16, samples=40_000, seed=3)
    >>> abs(raw / 16 - 1) < 0.06, abs(scaled - 1) < 0.06
    (True, True)
    """
    q_rng, k_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    rows = max(1, BLOCK // d_k)
    dots = np.empty(samples)  # (samples,)
    for start in range(0, samples, rows):
        stop = min(start + rows, samples)
        q = q_rng.standard_normal((stop - start, d_k))
        k = k_rng.standard_normal((stop - start, d_k))
        dots[start:stop] = np.einsum("sd,sd->s", q, k)
    return float(dots.var()), float((dots / np.sqrt(d_k)).var())


def entropy(weights) -> float:
    """Shannon entropy −Σ a ln a of one row of weights, in nats (0 ln 0 = 0).

    A row of zeros (no key allowed) or a single 1 has entropy 0.0 (never −0.0).

    >>> round(entropy([0.5, 0.5]), 4), entropy([0.0, 0.0]), entropy([1.0, 0.0])
    (0.6931, 0.0, 0.0)
    """
    a = np.asarray(weights, dtype=np.float64)
    nz = a[a > 0]
    return float(0.0 - (nz * np.log(nz)).sum())  # 0.0 − x, not −x: no −0.0


def softmax_jacobian(weights) -> np.ndarray:
    """∂a/∂s for a = softmax(s): the (m, m) matrix diag(a) − a aᵀ.

    Its size (``np.linalg.norm``, Frobenius) shrinks to 0 as the softmax saturates,
    which is the vanishing gradient that scaling by 1/√d_k prevents.
    """
    a = np.asarray(weights, dtype=np.float64)
    return np.diag(a) - np.outer(a, a)
