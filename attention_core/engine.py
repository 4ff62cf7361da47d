"""Scaled dot-product attention in float64: Q, K, V, scores, softmax weights, output."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import AttentionInputError, page_name
from .overflow import EVERY, first_bad, overflow_error


@dataclass(frozen=True)
class AttentionResult:
    """Every intermediate of one attention computation (all float64 arrays).

    Orientation: row ``i`` is query token ``i``; column ``j`` is key token ``j``. In
    self-attention the m keys are the n queries' own tokens (m = n); in
    cross-attention they come from a second sequence X_kv of m tokens.

    Attributes
    ----------
    Q : (n, d_k)      projection X @ W_Q.
    K : (m, d_k)      projection X_kv @ W_K (X @ W_K in self-attention).
    V : (m, d_v)      projection X_kv @ W_V.
    scores : (n, m)   raw Q @ K.T, never masked.
    scaled_scores : (n, m)  scale * scores, with -inf where ``mask`` is False.
    mask : (n, m) bool  ``mask[i, j]`` is True where query i may read key j
        (the convention of torch's boolean ``attn_mask``).
    weights : (n, m)  row-wise softmax of ``scaled_scores``; ``weights[i, j]``
        is how much query i reads key j. Each row sums to 1, or is all 0 when
        the row has no permitted key. Disallowed entries are exactly 0.
    output : (n, d_v)  weights @ V.
    scale : float     the factor applied to the scores (1/sqrt(d_k) by default).
    d_k : int         width of the queries and keys.
    warnings : tuple of str  sentences about rows that could not attend anywhere.
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scores: np.ndarray
    scaled_scores: np.ndarray
    mask: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    scale: float
    d_k: int
    warnings: tuple[str, ...] = ()


def softmax_rows(scaled_scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax that tolerates -inf entries and whole rows of -inf.

    Parameters
    ----------
    scaled_scores : (n, m) float array; -inf marks a key the row may not read.

    Returns
    -------
    (n, m) float array. Each row sums to 1; a row that is entirely -inf is all 0
    (as torch's scaled_dot_product_attention returns), never NaN.

    Notes
    -----
    Subtracting the row maximum first keeps exp() from overflowing: softmax is
    unchanged by adding a constant to a row, and the largest exponent becomes 0.

    >>> softmax_rows(np.array([[0.0, np.log(3.0)], [-np.inf, -np.inf]])).round(3)
    array([[0.25, 0.75],
           [0.  , 0.  ]])
    """
    row_max = scaled_scores.max(axis=1, keepdims=True)
    # A fully masked row has max -inf; shifting by 0 leaves it at -inf -> exp 0.
    row_max[~np.isfinite(row_max)] = 0.0
    weights = scaled_scores - row_max
    np.exp(weights, out=weights)  # in place: this is the hot loop at n = 512
    totals = weights.sum(axis=1, keepdims=True)
    totals[totals == 0] = 1.0  # an all-zero row stays all zero
    weights /= totals
    return weights


def attention(X, W_Q, W_K, W_V, *, causal: bool = False, scale: float | None = None,
              mask=None, X_kv=None) -> AttentionResult:
    """Single-head scaled dot-product attention, softmax(scale * Q K^T) V.

    Parameters
    ----------
    X : (n, d_model) array-like   one embedding per row, one row per token.
    W_Q, W_K : (d_model, d_k)     query and key projections.
    W_V : (d_model, d_v)          value projection.
    causal : bool                 if True, query i may read only keys j <= i. With
        m != n keys the mask is aligned at the top left, as torch's ``is_causal``.
    scale : float or None         factor for the scores; None means 1/sqrt(d_k).
        Any finite number is used as given (``scale=1`` is unscaled attention).
    mask : (n, m) bool array-like or None  True where query i may read key j;
        combined with the causal mask by logical AND.
    X_kv : (m, d_model) array-like or None  the sequence the keys and values come
        from (cross-attention); None means X itself (self-attention).

    Returns
    -------
    AttentionResult

    Raises
    ------
    AttentionInputError
        for wrong shapes, non-finite inputs or products that overflow float64 (its field
        then names the input most to blame: see overflow.py).

    Examples
    --------
    >>> r = attention([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 2]],
    ...               [[2, 0], [0, 1]], [[1, 0], [0, 2]])
    >>> r.weights[2].round(3)
    array([0.187, 0.045, 0.768])
    """
    X, W_Q, W_K, W_V = (_as_matrix(a, name) for a, name in
                        ((X, "X"), (W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V")))
    n, d_model = X.shape  # (n tokens, d_model)
    if X_kv is None:
        X_kv = X
    else:
        X_kv = _as_matrix(X_kv, "X_kv")
        if X_kv.shape[1] != d_model:
            raise AttentionInputError(
                f"X_kv has {X_kv.shape[1]} numbers per token but X has {d_model}; both "
                "sequences must use the same embedding width d_model", "X_kv")
    m = X_kv.shape[0]  # key/value tokens
    _check_projection("W_Q", W_Q, d_model)
    _check_projection("W_K", W_K, d_model)
    _check_projection("W_V", W_V, d_model)
    d_k = W_Q.shape[1]
    if W_K.shape[1] != d_k:
        raise AttentionInputError(
            f"W_Q has {d_k} columns but W_K has {W_K.shape[1]}; queries and keys "
            "must have the same width d_k to take their dot product", "W_K")
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    scale = float(scale)
    if not np.isfinite(scale):
        raise AttentionInputError(f"scale must be a finite number, not {scale}", "scale")
    allowed = _allowed(n, m, causal, mask)

    source = "X" if X_kv is X else "X_kv"
    Q = _projection(X, "X", W_Q, "W_Q", "Q")  # (n, d_k)
    K = _projection(X_kv, source, W_K, "W_K", "K")  # (m, d_k)
    V = _projection(X_kv, source, W_V, "W_V", "V")  # (m, d_v)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = Q @ K.T  # (n, m)
        scaled = scores * scale
    # One pass over the n × m scores checks both: a non-finite score makes its scaled score
    # non-finite too (inf·0 is NaN), so only a failure needs the finer look that names the
    # culprit.
    if not np.isfinite(scaled).all():
        _check_scores(scores, scaled, scale, (X, W_Q), (X_kv, source, W_K))
    _check_terms(Q, K, (X, W_Q), (X_kv, source, W_K))
    scaled_scores = scaled  # a fresh array, so masking in place is safe
    if not allowed.all():
        scaled_scores[~allowed] = -np.inf
    weights = softmax_rows(scaled_scores)  # (n, m)
    with np.errstate(over="ignore", invalid="ignore"):
        output = weights @ V  # (n, d_v)
    if not np.isfinite(output).all():  # each z_i is an average of the v_j: all V's sources
        i, c = first_bad(output)
        raise overflow_error("The output Z = A·V", f"row {i + 1} column {c + 1} of Z",
                             [(source, X_kv, EVERY, EVERY), ("W_V", W_V, EVERY, EVERY)])

    blocked = np.flatnonzero(~allowed.any(axis=1))
    warnings = tuple(
        f"Query {i + 1} has no key it may read, so its weights and output are all 0."
        for i in blocked)
    return AttentionResult(Q=Q, K=K, V=V, scores=scores, scaled_scores=scaled_scores,
                           mask=allowed, weights=weights, output=output, scale=scale,
                           d_k=int(d_k), warnings=warnings)


def _as_matrix(a, name: str) -> np.ndarray:
    try:
        m = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise AttentionInputError(f"{name} must be a matrix of numbers ({exc})", name) from exc
    if m.ndim != 2 or 0 in m.shape:
        raise AttentionInputError(
            f"{name} must be a non-empty 2-D matrix, got shape {m.shape}", name)
    if not np.isfinite(m).all():
        i, j = np.argwhere(~np.isfinite(m))[0]
        field = f"{name}[{i}][{j}]"
        raise AttentionInputError(
            f"{page_name(field)} is {m[i, j]}; every entry must be a finite number", field)
    return m


def _check_projection(name: str, W: np.ndarray, d_model: int) -> None:
    if W.shape[0] != d_model:
        raise AttentionInputError(
            f"{name} has {W.shape[0]} rows but each embedding has {d_model} numbers; "
            f"{name} must have one row per embedding component", name)


def _allowed(n: int, m: int, causal: bool, mask) -> np.ndarray:
    """(n, m) bool: True where query i may read key j."""
    allowed = np.ones((n, m), dtype=bool)
    if causal:
        allowed = np.tril(allowed)  # key j visible to query i only when j <= i
    if mask is not None:
        given = np.asarray(mask)
        if given.shape != (n, m):
            raise AttentionInputError(
                f"mask has shape {given.shape} but there are {n} queries and {m} keys; "
                f"it must be {n}×{m}", "mask")
        if given.dtype != bool:
            raise AttentionInputError("mask must hold only true and false", "mask")
        allowed = allowed & given
    return allowed


def _projection(X: np.ndarray, x_name: str, W: np.ndarray, w_name: str, out: str) -> np.ndarray:
    """X @ W, or an error naming the largest of row i of X and column c of W when the
    product's entry (i, c) overflows (the rule is in overflow.py)."""
    with np.errstate(over="ignore", invalid="ignore"):
        product = X @ W
    if not np.isfinite(product).all():
        i, c = first_bad(product)
        raise overflow_error(f"{out} = {x_name}·{w_name}", f"row {i + 1} column {c + 1} of {out}",
                             [(x_name, X, i, EVERY), (w_name, W, EVERY, c)])
    return product


def _check_scores(scores, scaled, scale: float, queries, keys) -> None:
    """Raise for the first score (i, j) out of float64's range: built from row i of X, row j
    of X_kv and all of W_Q and W_K; or, when the scores are finite, for the scale."""
    (X, W_Q), (X_kv, source, W_K) = queries, keys
    if not np.isfinite(scores).all():
        i, j = first_bad(scores)
        raise overflow_error("Q·Kᵀ", f"the score of query {i + 1} for key {j + 1}",
                             [("X", X, i, EVERY), ("W_Q", W_Q, EVERY, EVERY),
                              (source, X_kv, j, EVERY), ("W_K", W_K, EVERY, EVERY)])
    i, j = first_bad(scaled)
    raise overflow_error(
        "scale·Q·Kᵀ", f"the scaled score of query {i + 1} for key {j + 1}", field="scale",
        why=f"It is the score {scores[i, j]:.4g} times the scale {scale:.4g}; make the scale "
            "smaller.")


def _check_terms(Q, K, queries, keys) -> None:
    """Raise for the first term q_i[c]·k_j[c] (score (i, j) row by row, then c) that is out of
    float64's range while every score is not: built from row i of X, column c of W_Q, row j
    of X_kv and column c of W_K.

    The working writes each score out term by term (``RowWorking.products``). A BLAS that
    fuses multiply and add can carry a term beyond float64 back into range within its sum,
    so the scores alone do not show it.
    """
    (X, W_Q), (X_kv, source, W_K) = queries, keys
    with np.errstate(over="ignore"):
        # Rounding is monotonic, so the largest |term| in component c is the product of
        # the largest |q_i[c]| and the largest |k_j[c]|: O((n + m)·d_k), not O(n·m·d_k).
        peak_k = np.abs(K).max(axis=0)  # (d_k,)
        if np.isfinite(np.abs(Q).max(axis=0) * peak_k).all():
            return
        rows = ~np.isfinite(np.abs(Q) * peak_k)  # (n, d_k): a term of query i overflows in c
        i = int(np.flatnonzero(rows.any(axis=1))[0])
        j, c = first_bad(Q[i] * K)  # (m, d_k): query i's terms
    raise overflow_error(
        "Q·Kᵀ", f"the term q_{i + 1}[{c + 1}]·k_{j + 1}[{c + 1}] of the score of query {i + 1} "
        f"for key {j + 1}", [("X", X, i, EVERY), ("W_Q", W_Q, EVERY, c),
                             (source, X_kv, j, EVERY), ("W_K", W_K, EVERY, c)])
