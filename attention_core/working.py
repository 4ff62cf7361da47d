"""The hand calculation of one query row: dot products term by term, exp, sum, weights, z_i."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import AttentionResult
from .errors import AttentionInputError
from .masks import sink_keys
from .positions import rope_angles, rope_frequencies
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

    The steps of the newer variants, each None when its variant is off:

    q_unbiased : (d_k,)       x_i·W_Q, before b_Q; b_Q : (d_k,); q_unbiased + b_Q is q
                              (before RoPE turns it).
    k_unbiased, b_K : (m, d_k), (d_k,)   likewise for the keys; v_unbiased, b_V : (m, d_v),
                              (d_v,) for the values.
    q_unrotated : (d_k,)      q_i before RoPE; k_unrotated : (m, d_k) the keys before it.
    position : int            p_i, the query's position (offset + i); positions_k : (m,)
                              the keys' (offset + j).
    frequencies : (d_k/2,)    θ^(−2c/d_k), radians per position of pair c.
    angles : (d_k/2,)         p_i·frequencies, the query's turn of each pair; angles_k :
                              (m, d_k/2) each key's.
    bias : (m,)               ALiBi's −alibi_slope·|i − j|, already in ``scaled``.
    alibi_slope : float
    window : int              the window; in_window : (m,) bool, |i − j| < window.
    sinks : int               the sinks (None when 0); sink : (m,) bool, j < sinks.
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
    q_unbiased: np.ndarray | None = None
    b_Q: np.ndarray | None = None
    k_unbiased: np.ndarray | None = None
    b_K: np.ndarray | None = None
    v_unbiased: np.ndarray | None = None
    b_V: np.ndarray | None = None
    q_unrotated: np.ndarray | None = None
    k_unrotated: np.ndarray | None = None
    position: int | None = None
    positions_k: np.ndarray | None = None
    frequencies: np.ndarray | None = None
    angles: np.ndarray | None = None
    angles_k: np.ndarray | None = None
    bias: np.ndarray | None = None
    alibi_slope: float | None = None
    window: int | None = None
    in_window: np.ndarray | None = None
    sinks: int | None = None
    sink: np.ndarray | None = None


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
        z=result.output[i], **_biases(result, i), **_rotation(result, i),
        **_alibi(result, i), **_window(result, i))


def _biases(r: AttentionResult, i: int) -> dict:
    """The projections of row i and of the keys and values before their biases."""
    out = {}
    if r.b_Q is not None:
        out.update(q_unbiased=r.XW_Q[i], b_Q=r.b_Q)
    if r.b_K is not None:
        out.update(k_unbiased=r.XW_K, b_K=r.b_K)
    if r.b_V is not None:
        out.update(v_unbiased=r.XW_V, b_V=r.b_V)
    return out


def _rotation(r: AttentionResult, i: int) -> dict:
    """Positions, frequencies and angles of RoPE for query i and every key."""
    if r.rope_base is None:
        return {}
    m = r.K.shape[0]
    position = r.position_offset + r.first_query + i
    positions_k = r.position_offset + np.arange(m)  # (m,)
    frequencies = rope_frequencies(r.d_k, r.rope_base)  # (d_k/2,)
    return dict(q_unrotated=r.Q_unrotated[i], k_unrotated=r.K_unrotated, position=position,
                positions_k=positions_k, frequencies=frequencies,
                angles=rope_angles(np.array([position]), r.d_k, r.rope_base)[0],
                angles_k=rope_angles(positions_k, r.d_k, r.rope_base))


def _alibi(r: AttentionResult, i: int) -> dict:
    return {} if r.bias is None else dict(bias=r.bias[i], alibi_slope=r.alibi_slope)


def _window(r: AttentionResult, i: int) -> dict:
    """Which keys query i's window holds, and which are sinks."""
    if r.window is None:
        return {}
    m = r.K.shape[0]
    out = dict(window=r.window,
               in_window=np.abs(r.first_query + i - np.arange(m)) < r.window)  # (m,)
    if r.sinks:
        out.update(sinks=r.sinks, sink=sink_keys(m, r.sinks))
    return out
