"""The hand calculation of one query row: dot products term by term, exp, sum, weights, z_i."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import AttentionResult
from .errors import AttentionInputError
from .scaling import entropy, softmax_jacobian


@dataclass(frozen=True)
class RowWorking:
    """Everything needed to write query row ``i`` out by hand (float64 arrays).

    Index ``j`` runs over the keys (m of them; m = n in self-attention), ``c`` over the d_k
    components.

    Attributes
    ----------
    row : int                 the query row i (0-based).
    q : (d_k,)                q_i.
    k : (m, d_k)              the keys k_j (rows of K).
    v : (m, d_v)              the values v_j (rows of V).
    products : (m, d_k)       products[j, c] = q_i[c] * k_j[c], the terms of q_i·k_j.
    dots : (m,)               q_i·k_j, the raw scores of row i.
    scale : float             factor applied to the dots.
    scaled : (m,)             scale * dots; -inf where key j is masked.
    allowed : (m,) bool       True where query i may read key j.
    exp : (m,)                e^{scaled_j} as taught (0 for masked keys); may be
                              inf when a scaled score exceeds ~709.78.
    exp_sum : float           sum of ``exp``; inf if any term is.
    exp_overflow : bool       True when the textbook exponentials overflow float64.
    shift : float             the row maximum subtracted before exp (0 if no key allowed).
    exp_shifted : (m,)        e^{scaled_j - shift}, what the code really computes.
    exp_shifted_sum : float   sum of ``exp_shifted``.
    weights : (m,)            exp_shifted / exp_shifted_sum (all 0 if no key allowed).
    entropy : float           −Σ_j weights[j] ln weights[j], in nats (0 ln 0 = 0): 0 when
                              one key takes all, ln m when the row is uniform over m keys;
                              0 if no key is allowed.
    jacobian_norm : float     Frobenius norm of the softmax Jacobian ∂a/∂s = diag(a) − a aᵀ
                              of this row's weights a (weight per unit of scaled score);
                              near 0 when the softmax saturates; 0 if no key is allowed.
    terms : (m, d_v)          terms[j] = weights[j] * v_j.
    z : (d_v,)                z_i = sum over j of terms[j].
    """

    row: int
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    products: np.ndarray
    dots: np.ndarray
    scale: float
    scaled: np.ndarray
    allowed: np.ndarray
    exp: np.ndarray
    exp_sum: float
    exp_overflow: bool
    shift: float
    exp_shifted: np.ndarray
    exp_shifted_sum: float
    weights: np.ndarray
    entropy: float
    jacobian_norm: float
    terms: np.ndarray
    z: np.ndarray


def working(result: AttentionResult, i: int) -> RowWorking:
    """Return the step-by-step calculation of query row ``i`` (0-based).

    Examples
    --------
    >>> from attention_core import attention
    >>> r = attention([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 2]],
    ...               [[2, 0], [0, 1]], [[1, 0], [0, 2]])
    >>> w = working(r, 2)
    >>> w.exp.round(2), round(w.exp_sum, 2)
    (array([16.92,  4.11, 69.59]), 90.62)
    >>> round(w.entropy, 4), round(w.jacobian_norm, 4)
    (0.6565, 0.3168)
    """
    n = result.weights.shape[0]
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
        raise AttentionInputError(
            f"row must be a whole number from 0 to {n - 1} (0-based, queries 1 to {n}), got "
            f"{i!r}", "row")
    i = int(i)
    q = result.Q[i]  # (d_k,)
    products = q[np.newaxis, :] * result.K  # (m, d_k)
    allowed = result.mask[i]  # (m,)
    scaled = result.scaled_scores[i]  # (m,), -inf where masked
    with np.errstate(over="ignore"):
        exp = np.exp(scaled)  # textbook form; may overflow to inf
    exp_overflow = not np.isfinite(exp).all()
    shift = float(scaled[allowed].max()) if allowed.any() else 0.0
    exp_shifted = np.exp(scaled - shift)
    weights = result.weights[i]
    terms = weights[:, np.newaxis] * result.V  # (m, d_v)
    return RowWorking(
        row=i, q=q, k=result.K, v=result.V, products=products, dots=result.scores[i],
        scale=result.scale, scaled=scaled, allowed=allowed, exp=exp, exp_sum=float(exp.sum()),
        exp_overflow=exp_overflow, shift=shift, exp_shifted=exp_shifted,
        exp_shifted_sum=float(exp_shifted.sum()), weights=weights, entropy=entropy(weights),
        jacobian_norm=float(np.linalg.norm(softmax_jacobian(weights))), terms=terms,
        z=result.output[i])
