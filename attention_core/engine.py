"""Scaled dot-product attention in float64: Q, K, V, scores, softmax weights, output."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import masks
from .errors import NAME, AttentionInputError, counted
from .masks import check_window
from .overflow import EVERY, first_bad, overflow_error
from .positions import alibi_bias, rope_frequencies, rotate


@dataclass(frozen=True)
class AttentionResult:
    """Every intermediate of one attention computation (all float64 arrays).

    Orientation: row ``i`` is query token ``i``; column ``j`` is key token ``j``. In
    self-attention the m keys are the n queries' own tokens (m = n); in
    cross-attention they come from a second sequence X_kv of m tokens.

    Attributes
    ----------
    Q : (n, d_k)      what enters the scores: X @ W_Q + b_Q, then turned by RoPE if on.
    K : (m, d_k)      likewise from X_kv (X in self-attention), W_K and b_K.
    V : (m, d_v)      X_kv @ W_V + b_V (values are never rotated).
    scores : (n, m)   raw Q @ K.T, never masked.
    scaled_scores : (n, m)  scale * scores + bias (ALiBi), with -inf where ``mask`` is
        False: what enters the softmax.
    mask : (n, m) bool  ``mask[i, j]`` is True where query i may read key j
        (the convention of torch's boolean ``attn_mask``): causal, the mask given, the
        window and its sinks, combined.
    weights : (n, m)  row-wise softmax of ``scaled_scores``; ``weights[i, j]``
        is how much query i reads key j. Each row sums to 1, or is all 0 when
        the row has no permitted key. Disallowed entries are exactly 0.
    output : (n, d_v)  weights @ V.
    scale : float     the factor applied to the scores (1/sqrt(d_k) by default).
    d_k : int         width of the queries and keys.
    warnings : tuple of str  sentences about rows that could not attend anywhere.

    What the newer variants add (None when they are off):

    XW_Q, XW_K, XW_V : (n, d_k), (m, d_k), (m, d_v)  the projections before their bias;
        None when that bias is None.
    b_Q, b_K, b_V : (d_k,), (d_k,), (d_v,)  the biases added to every row.
    Q_unrotated, K_unrotated : (n, d_k), (m, d_k)  Q and K before RoPE turned them.
    rope_base : float  θ of RoPE; position_offset : int  the position of token 0 (queries'
        and keys' alike).
    bias : (n, m)     ALiBi's −alibi_slope·|i − j|, already in ``scaled_scores``.
    alibi_slope : float
    window : int      query i reads key j only when |i − j| < window, or j < sinks.
    sinks : int       0 when there are none.
    first_query : int  the position of query 0 among the keys (0 unless a step of
        generation computed the last query alone: attend's ``first``).
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
    XW_Q: np.ndarray | None = None
    XW_K: np.ndarray | None = None
    XW_V: np.ndarray | None = None
    b_Q: np.ndarray | None = None
    b_K: np.ndarray | None = None
    b_V: np.ndarray | None = None
    Q_unrotated: np.ndarray | None = None
    K_unrotated: np.ndarray | None = None
    rope_base: float | None = None
    position_offset: int = 0
    bias: np.ndarray | None = None
    alibi_slope: float | None = None
    window: int | None = None
    sinks: int = 0
    first_query: int = 0


@dataclass(frozen=True)
class Projected:
    """One side of attention projected: the queries (W = W_Q) or the keys (W = W_K), and
    what they were made from, so an overflow can name its input (overflow.py).

    x : (rows, d_model)  the tokens; x_name "X" or "X_kv".
    W : (d_model, d)     the projection; w_name "W_Q" or "W_K".
    b : (d,) or None     its bias; b_name "b_Q" or "b_K".
    XW : (rows, d)       x @ W.
    unrotated : (rows, d)  XW + b.
    out : (rows, d)      ``unrotated`` turned by RoPE, or ``unrotated`` itself.
    """

    x: np.ndarray
    x_name: str
    W: np.ndarray
    w_name: str
    b: np.ndarray | None
    b_name: str
    XW: np.ndarray
    unrotated: np.ndarray
    out: np.ndarray
    rotated: bool

    def blocks(self, row, col):
        """The inputs entry (row, col) of ``out`` is built from, for overflow_error: under
        RoPE a column mixes with its pair's, so every column of W and b is named."""
        col = EVERY if self.rotated else col
        blocks = [(self.x_name, self.x, row, EVERY), (self.w_name, self.W, EVERY, col)]
        return blocks + ([(self.b_name, self.b, EVERY, col)] if self.b is not None else [])


@dataclass(frozen=True)
class KeyValues:
    """The keys and values attention reads, computed once for every query head that
    shares them (grouped-query attention). K is a Projected; V : (m, d_v); XW_V is X_kv @
    W_V before b_V (None without b_V)."""

    K: Projected
    V: np.ndarray
    W_V: np.ndarray
    XW_V: np.ndarray | None
    b_V: np.ndarray | None


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
              mask=None, X_kv=None, b_Q=None, b_K=None, b_V=None,
              rope_base: float | None = None, position_offset: int = 0,
              alibi_slope: float | None = None, window: int | None = None,
              sinks: int = 0) -> AttentionResult:
    """Single-head scaled dot-product attention, softmax(scale * Q K^T + bias) V.

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
    b_Q, b_K : (d_k,) or None     biases added to every row of Q and of K (b_V: (d_v,)).
    rope_base : float or None     θ of rotary positions (RoPE, positions.rotate); None for
        none. Query i is at position position_offset + i, key j at position_offset + j.
    alibi_slope : float or None   ALiBi: −alibi_slope·|i − j| is added to each scaled
        score before the mask (positions.alibi_bias).
    window : int or None          query i reads key j only when |i − j| < window …
    sinks : int                   … or when j < sinks (masks.allowed).

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
    X, X_kv, source = sequences(X, X_kv)
    rope = _rope(rope_base, position_offset)
    keys = key_values(X_kv, source, W_K, W_V, b_K, b_V, rope)
    return attend(X, W_Q, b_Q, keys, causal=causal, scale=scale, mask=mask, rope=rope,
                  alibi_slope=alibi_slope, window=window, sinks=sinks)


def sequences(X, X_kv):
    """(X, X_kv, the name of X_kv's source): X_kv is X itself in self-attention."""
    X = _as_matrix(X, "X")
    if X_kv is None:
        return X, X, "X"
    X_kv = _as_matrix(X_kv, "X_kv")
    if X_kv.shape[1] != X.shape[1]:
        raise AttentionInputError(
            f"X_kv has {counted(X_kv.shape[1], 'number')} per token but X has {X.shape[1]}; both "
            "sequences must use the same embedding width d_model", "X_kv")
    return X, X_kv, "X_kv"


def _rope(base, offset):
    """(θ, offset) of rotary positions, checked, or None when they are off."""
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
        raise AttentionInputError(
            f"position_offset must be a whole number of at least 0, got {offset!r}",
            "position_offset")
    if base is None:
        return None
    number = isinstance(base, (int, float, np.integer, np.floating)) and not isinstance(base, bool)
    if not (number and np.isfinite(base) and base > 0):
        raise AttentionInputError(
            f"rope_base (θ) must be a positive finite number, got {base!r}", "rope_base")
    return float(base), int(offset)


def key_values(X_kv, source: str, W_K, W_V, b_K=None, b_V=None, rope=None) -> KeyValues:
    """K (turned by RoPE when ``rope`` is (θ, offset)) and V of the m tokens of X_kv."""
    d_model = X_kv.shape[1]
    W_K, W_V = _as_matrix(W_K, "W_K"), _as_matrix(W_V, "W_V")
    _check_projection("W_K", W_K, d_model)
    _check_projection("W_V", W_V, d_model)
    K = _side(X_kv, source, W_K, "W_K", b_K, "b_K", "K", rope)
    b_V = _as_bias(b_V, "b_V", W_V.shape[1])
    XW_V = _projection(X_kv, source, W_V, "W_V", "V")  # (m, d_v)
    V = XW_V if b_V is None else _add_bias(XW_V, b_V, (source, X_kv), ("W_V", W_V), "V")
    return KeyValues(K=K, V=V, W_V=W_V, XW_V=None if b_V is None else XW_V, b_V=b_V)


@dataclass(frozen=True)
class Prepared:
    """What the scores are made from, before any score is: the queries and the keys and
    values projected (and turned by RoPE), the scale, which keys each query may read and
    ALiBi's bias. ``attend`` computes the n × m scores from it at once; tiles.py a tile at
    a time.

    queries : Projected     its ``out`` is Q, (n, d_k).
    keys : KeyValues        K = keys.K.out (m, d_k), V = keys.V (m, d_v).
    scale : float           the factor of the scores.
    allowed : (n, m) bool   True where query i may read key j (masks.allowed).
    bias : (n, m) or None   ALiBi's −slope·|i − j|, added to the scaled scores.
    d_k : int
    first : int             the position of query 0 among the keys (queries_for).
    """

    queries: Projected
    keys: KeyValues
    scale: float
    allowed: np.ndarray
    bias: np.ndarray | None
    d_k: int
    first: int = 0  # the position of query 0 among the keys (queries_for)

    @property
    def Q(self) -> np.ndarray:
        return self.queries.out

    @property
    def K(self) -> np.ndarray:
        return self.keys.K.out

    @property
    def V(self) -> np.ndarray:
        return self.keys.V


def prepare(X, W_Q, W_K, W_V, *, causal: bool = False, scale: float | None = None,
            mask=None, X_kv=None, b_Q=None, b_K=None, b_V=None,
            rope_base: float | None = None, position_offset: int = 0,
            alibi_slope: float | None = None, window: int | None = None,
            sinks: int = 0) -> Prepared:
    """``attention``'s inputs, checked and projected as it projects them (Prepared), without
    computing a score; the same errors for the same inputs."""
    X, X_kv, source = sequences(X, X_kv)
    rope = _rope(rope_base, position_offset)
    keys = key_values(X_kv, source, W_K, W_V, b_K, b_V, rope)
    return queries_for(X, W_Q, b_Q, keys, causal=causal, scale=scale, mask=mask, rope=rope,
                       alibi_slope=alibi_slope, window=window, sinks=sinks)


def queries_for(X, W_Q, b_Q, keys: KeyValues, *, causal=False, scale=None, mask=None,
                rope=None, alibi_slope=None, window=None, sinks=0, first: int = 0) -> Prepared:
    """The queries X·W_Q (+ b_Q) over ``keys`` (key_values), with the scale, the mask and
    ALiBi's bias, checked: everything ``attend`` needs before the scores. Query i is token
    ``first`` + i of the keys' sequence: 0 for a whole sequence; t for token t alone over the
    keys of tokens 0 … t kept from earlier steps (kvcache.py), which places its causal mask,
    window, ALiBi distance and RoPE position where the whole computation puts row t's."""
    n, d_model = X.shape  # (n tokens, d_model)
    K = keys.K.out  # (m, d_k)
    m = K.shape[0]
    W_Q = _as_matrix(W_Q, "W_Q")
    _check_projection("W_Q", W_Q, d_model)
    d_k = W_Q.shape[1]
    if K.shape[1] != d_k:
        raise AttentionInputError(
            f"W_Q has {counted(d_k, 'column')} but W_K has {K.shape[1]}; queries and keys "
            "must have the same width d_k to take their dot product", "W_K")
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    scale = float(scale)
    if not np.isfinite(scale):
        raise AttentionInputError(f"scale must be a finite number, not {scale}", "scale")
    check_window(window, sinks)
    allowed = masks.allowed(n, m, causal=causal, mask=mask, window=window, sinks=sinks,
                            first=first)
    bias = None if alibi_slope is None else _alibi(n, m, alibi_slope, first)
    queries = _side(X, "X", W_Q, "W_Q", b_Q, "b_Q", "Q",
                    None if rope is None else (rope[0], rope[1] + first))
    return Prepared(queries=queries, keys=keys, scale=scale, allowed=allowed, bias=bias,
                    d_k=int(d_k), first=first)


def scaled_scores(p: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """(scores, scaled): the (n, m) Q·Kᵀ and scale·Q·Kᵀ + bias, unmasked, or the error that
    names the input to blame for one beyond float64 (overflow.py)."""
    with np.errstate(over="ignore", invalid="ignore"):
        scores = p.Q @ p.K.T  # (n, m)
        scaled = scores * p.scale
        if p.bias is not None:
            scaled += p.bias
    # One pass over the n × m scores checks both: a non-finite score makes its scaled score
    # non-finite too (inf·0 is NaN), so only a failure needs the finer look that names the
    # culprit.
    if not np.isfinite(scaled).all():
        _check_scores(scores, scaled, p.scale, p.bias, p.queries, p.keys.K)
    _check_terms(p.Q, p.K, p.queries, p.keys.K)
    return scores, scaled


def attend(X, W_Q, b_Q, keys: KeyValues, *, causal=False, scale=None, mask=None, rope=None,
           alibi_slope=None, window=None, sinks=0, first: int = 0) -> AttentionResult:
    """Attention of the queries X·W_Q (+ b_Q) over ``keys`` (key_values); query i is token
    ``first`` + i of the keys' sequence (queries_for)."""
    p = queries_for(X, W_Q, b_Q, keys, causal=causal, scale=scale, mask=mask, rope=rope,
                    alibi_slope=alibi_slope, window=window, sinks=sinks, first=first)
    Q, K, V, allowed, bias, queries = p.Q, p.K, p.V, p.allowed, p.bias, p.queries
    scale, d_k = p.scale, p.d_k
    scores, scaled = scaled_scores(p)
    masked = scaled  # a fresh array, so masking in place is safe
    if not allowed.all():
        masked[~allowed] = -np.inf
    weights = softmax_rows(masked)  # (n, m)
    with np.errstate(over="ignore", invalid="ignore"):
        output = weights @ V  # (n, d_v)
    if not np.isfinite(output).all():  # each z_i is an average of the v_j: all V's sources
        i, c = first_bad(output)
        K_side = keys.K
        blocks = [(K_side.x_name, K_side.x, EVERY, EVERY), ("W_V", keys.W_V, EVERY, EVERY)]
        blocks += [("b_V", keys.b_V, EVERY, EVERY)] if keys.b_V is not None else []
        raise overflow_error("The output Z = A·V", f"row {i + 1} column {c + 1} of Z", blocks)

    blocked = np.flatnonzero(~allowed.any(axis=1))
    warnings = tuple(
        f"Query {i + 1} has no key it may read, so its weights and output are all 0."
        for i in blocked)
    return AttentionResult(
        Q=Q, K=K, V=V, scores=scores, scaled_scores=masked, mask=allowed,
        weights=weights, output=output, scale=scale, d_k=int(d_k), warnings=warnings,
        XW_Q=queries.XW if queries.b is not None else None,
        XW_K=keys.K.XW if keys.K.b is not None else None, XW_V=keys.XW_V,
        b_Q=queries.b, b_K=keys.K.b, b_V=keys.b_V,
        Q_unrotated=queries.unrotated if rope else None,
        K_unrotated=keys.K.unrotated if rope else None,
        rope_base=rope[0] if rope else None, position_offset=rope[1] if rope else 0,
        bias=bias, alibi_slope=None if bias is None else float(alibi_slope),
        window=None if window is None else int(window), sinks=int(sinks), first_query=first)


def _side(x, x_name, W, w_name, b, b_name, out, rope) -> Projected:
    """x @ W (+ b), turned by RoPE when ``rope`` is (θ, offset)."""
    b = _as_bias(b, b_name, W.shape[1])
    XW = _projection(x, x_name, W, w_name, out)  # (rows, d)
    unrotated = XW if b is None else _add_bias(XW, b, (x_name, x), (w_name, W), out, b_name)
    turned = unrotated
    if rope is not None:
        d = W.shape[1]
        if d % 2:
            raise AttentionInputError(
                f"rotary positions turn the numbers of a query and a key in pairs, so d_k must "
                f"be even; it is {d}", "positional")
        positions = rope[1] + np.arange(x.shape[0])
        _check_angles(d, rope[0], int(positions[-1]))
        with np.errstate(over="ignore", invalid="ignore"):
            turned = rotate(unrotated, positions, rope[0])
        if not np.isfinite(turned).all():
            i, c = first_bad(turned)
            raise overflow_error(f"Rotating {out}", f"row {i + 1} column {c + 1} of {out}",
                                 [(x_name, x, i, EVERY), (w_name, W, EVERY, EVERY)]
                                 + ([(b_name, b, EVERY, EVERY)] if b is not None else []))
    return Projected(x=x, x_name=x_name, W=W, w_name=w_name, b=b, b_name=b_name, XW=XW,
                     unrotated=unrotated, out=turned, rotated=rope is not None)


def _check_angles(d_k: int, base: float, last: int) -> None:
    """Refuse a θ whose angles p·θ^(−2c/d_k) leave float64 (a θ far below 1 makes the
    frequencies grow with c), naming rope_base: the rotation would be NaN, and no input
    of X or W is to blame. The largest angle is the last position's at the fastest pair,
    and rounding is monotonic, so checking it checks them all."""
    with np.errstate(over="ignore", invalid="ignore"):
        fastest = rope_frequencies(d_k, base).max()
        ok = np.isfinite(fastest) and np.isfinite(last * fastest)
    if not ok:
        raise AttentionInputError(
            f"rope_base (θ) is {base:.4g}: the last pair of a d_k = {d_k} query or key at "
            f"position {last} turns by {last}·θ^(−{d_k - 2}/{d_k}) radians, beyond float64's "
            "range (about ±1.8e308), and a θ below 1 turns the later pairs faster; make θ larger "
            "(10000 is usual)", "rope_base")


def _as_bias(b, name: str, width: int) -> np.ndarray | None:
    """A bias as a (width,) float64 vector, or None."""
    if b is None:
        return None
    try:
        v = np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise AttentionInputError(f"{name} must be a list of numbers ({exc})", name) from exc
    if v.ndim != 1 or v.shape[0] != width:
        got = counted(v.shape[0], 'number') if v.ndim == 1 else f"shape {v.shape}"
        d = "d_v" if name == "b_V" else "d_k"
        raise AttentionInputError(
            f"{name} has {got}, but it is added to every row of {name[2]}, which is "
            f"{d} = {width} wide; it needs {counted(width, 'number')}", name)
    if not np.isfinite(v).all():
        c = int(np.flatnonzero(~np.isfinite(v))[0])
        raise AttentionInputError(
            f"{NAME} is {v[c]}; every entry must be a finite number", name, column=c)
    return v


def _add_bias(XW, b, x, w, out: str, b_name: str = "b_V") -> np.ndarray:
    """XW + b, or the error naming the largest input of the first entry beyond float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = XW + b
    if not np.isfinite(total).all():
        i, c = first_bad(total)
        (x_name, X), (w_name, W) = x, w
        raise overflow_error(f"{out} = {x_name}·{w_name} + {b_name}",
                             f"row {i + 1} column {c + 1} of {out}",
                             [(x_name, X, i, EVERY), (w_name, W, EVERY, c), (b_name, b, EVERY, c)])
    return total


def _alibi(n: int, m: int, slope, first: int = 0) -> np.ndarray:
    """ALiBi's (n, m) bias for a slope checked to be a finite number ≥ 0."""
    ok = isinstance(slope, (int, float, np.integer, np.floating)) and not isinstance(slope, bool)
    if not ok or not np.isfinite(slope) or slope < 0:
        raise AttentionInputError(
            f"an ALiBi slope must be a finite number of at least 0, got {slope!r}",
            "alibi_slopes")
    with np.errstate(over="ignore", invalid="ignore"):
        bias = alibi_bias(n, m, slope, first)
    if not np.isfinite(bias).all():
        raise AttentionInputError(
            f"the ALiBi slope {slope:.4g} times the distance {max(n, m) - 1} is beyond "
            "float64's range (about ±1.8e308); make the slope smaller", "alibi_slopes")
    return bias


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
        raise AttentionInputError(f"{NAME} is {m[i, j]}; every entry must be a finite number",
                                  name, row=int(i), column=int(j))
    return m


def _check_projection(name: str, W: np.ndarray, d_model: int) -> None:
    if W.shape[0] != d_model:
        raise AttentionInputError(
            f"{name} has {counted(W.shape[0], 'row')} but each embedding has "
            f"{counted(d_model, 'number')}; "
            f"{name} must have one row per embedding component", name)


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


def _check_scores(scores, scaled, scale: float, bias, queries: Projected,
                  keys: Projected) -> None:
    """Raise for the first score (i, j) out of float64's range: built from row i of X, row j
    of X_kv and all of W_Q and W_K (and their biases); or, when the scores are finite, for
    the scale, or for ALiBi's slope when the scaled scores are finite too."""
    if not np.isfinite(scores).all():
        i, j = first_bad(scores)
        raise overflow_error("Q·Kᵀ", f"the score of query {i + 1} for key {j + 1}",
                             queries.blocks(i, EVERY) + keys.blocks(j, EVERY))
    with np.errstate(over="ignore", invalid="ignore"):
        unbiased = scores * scale
    i, j = first_bad(scaled if np.isfinite(unbiased).all() else unbiased)
    if not np.isfinite(unbiased[i, j]):
        raise overflow_error(
            "scale·Q·Kᵀ", f"the scaled score of query {i + 1} for key {j + 1}", field="scale",
            why=f"It is the score {scores[i, j]:.4g} times the scale {scale:.4g}; make the "
                "scale smaller.")
    raise overflow_error(
        "scale·Q·Kᵀ + ALiBi's bias", f"the scaled score of query {i + 1} for key {j + 1}",
        field="alibi_slopes",
        why=f"It is {unbiased[i, j]:.4g} plus ALiBi's {bias[i, j]:.4g}; make the slope smaller.")


def _check_terms(Q, K, queries: Projected, keys: Projected) -> None:
    """Raise for the first term q_i[c]·k_j[c] (score (i, j) row by row, then c) that is out of
    float64's range while every score is not: built from row i of X, column c of W_Q, row j
    of X_kv and column c of W_K (every column under RoPE, and the biases).

    The working writes each score out term by term (``RowWorking.products``). A BLAS that
    fuses multiply and add can carry a term beyond float64 back into range within its sum,
    so the scores alone do not show it.
    """
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
        f"for key {j + 1}", queries.blocks(i, c) + keys.blocks(j, c))
