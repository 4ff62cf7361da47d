"""Multi-head attention: h single heads side by side, concatenated, then projected by W_O."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import AttentionResult, _rope, attend, key_values, sequences
from .errors import AttentionInputError, Place, counted
from .overflow import EVERY, first_bad, overflow_error


@dataclass(frozen=True)
class MultiHeadResult:
    """Every head's own result, their concatenation and the projected output.

    Attributes
    ----------
    heads : tuple of AttentionResult, one per query head (each with its own d_k, d_v).
    concat : (n, sum of d_v)  the heads' outputs side by side, heads[0] first.
    output : (n, d_out)       concat @ W_O.
    kv_heads : tuple of int   the key/value head each query head reads (0-based): h itself
        when every head has its own W_K and W_V, ⌊h·G/H⌋ with G shared key/value heads.
    warnings : tuple of str   each head's warnings, prefixed with the head ("Head 1: …").
    """

    heads: tuple[AttentionResult, ...]
    concat: np.ndarray
    output: np.ndarray
    warnings: tuple[str, ...] = ()
    kv_heads: tuple[int, ...] = ()


def multi_head_attention(X, heads, W_O, *, kv_heads=None, causal: bool = False,
                         scale: float | None = None, mask=None, X_kv=None,
                         rope_base: float | None = None, position_offset: int = 0,
                         alibi_slopes=None, window: int | None = None,
                         sinks: int = 0) -> MultiHeadResult:
    """MultiHead(X) = Concat(head_1, …, head_H) · W_O, where
    head_h = Attention(X W_Q^h + b_Q^h, X W_K^g + b_K^g, X W_V^g + b_V^g), g = ⌊h·G/H⌋.

    Parameters
    ----------
    X : (n, d_model)          the queries' tokens.
    heads : sequence of 1 or more query heads. Without ``kv_heads`` each is (W_Q, W_K, W_V)
        or a dict {"W_Q", "W_K", "W_V", and optionally "b_Q", "b_K", "b_V"}: W_Q, W_K
        (d_model, d_k_h), W_V (d_model, d_v_h). With ``kv_heads`` each is a W_Q matrix or
        a dict {"W_Q", "b_Q"}.
    W_O : (sum of d_v_h, d_out)  the output projection.
    kv_heads : sequence of G key/value heads or None, each (W_K, W_V) or a dict {"W_K",
        "W_V", "b_K", "b_V"}: grouped-query attention (G = 1 is multi-query attention). H
        must be a multiple of G; consecutive query heads share one key/value head, as
        torch's ``scaled_dot_product_attention(..., enable_gqa=True)`` does.
    alibi_slopes : sequence of H slopes or None; head h adds −slopes[h]·|i − j| to its
        scaled scores (positions.alibi_slopes gives the ALiBi paper's).
    causal, scale, mask, X_kv, rope_base, position_offset, window, sinks : as for
        ``attention``, shared by every head (scale=None means 1/sqrt(d_k) of each head's d_k).

    >>> I = [[1, 0], [0, 1]]
    >>> r = multi_head_attention([[1, 0], [0, 1]], [(I, I, I), (I, I, I)],
    ...                          [[1, 0], [0, 1], [0, 0], [0, 0]])
    >>> r.concat.shape, r.output.shape
    ((2, 4), (2, 2))
    >>> multi_head_attention([[1, 0]], [I, I, I, I], np.eye(8, 2), kv_heads=[(I, I)] * 2).kv_heads
    (0, 0, 1, 1)
    """
    heads = list(heads)
    if not heads:
        raise AttentionInputError("there must be at least 1 head, got none", "heads")
    H = len(heads)
    groups = _groups(H, kv_heads)  # (H,): the key/value head of each query head
    slopes = _slopes(H, alibi_slopes)
    X, X_kv, source = named(None, None, sequences, X, X_kv)
    rope = named(None, None, _rope, rope_base, position_offset)
    specs = [_query_spec(head, h, kv_heads is not None) for h, head in enumerate(heads)]
    if kv_heads is None:  # every head its own keys and values
        shared = [named(h, None, key_values, X_kv, source, *spec[2:], rope)
                  for h, spec in enumerate(specs)]
    else:
        shared = [named(None, g, key_values, X_kv, source, *_kv_spec(kv, g), rope)
                  for g, kv in enumerate(kv_heads)]
    results = [
        named(h, groups[h] if kv_heads is not None else None, attend, X, W_Q, b_Q,
               shared[groups[h]], causal=causal, scale=scale, mask=mask, rope=rope,
               alibi_slope=slopes[h], window=window, sinks=sinks)
        for h, (W_Q, b_Q, *_) in enumerate(specs)]
    concat = np.concatenate([r.output for r in results], axis=1)  # (n, sum d_v)
    W_O = np.asarray(W_O, dtype=np.float64)
    if W_O.ndim != 2 or W_O.shape[0] != concat.shape[1]:
        raise AttentionInputError(
            f"W_O has {counted(W_O.shape[0], 'row') if W_O.ndim == 2 else 'no rows'} but "
            f"the heads' outputs concatenate to {counted(concat.shape[1], 'column')} "
            "(the sum of their d_v); "
            "W_O needs one row per concatenated column", "W_O")
    if not np.isfinite(W_O).all():
        raise AttentionInputError("every entry of W_O must be a finite number", "W_O")
    with np.errstate(over="ignore", invalid="ignore"):
        output = concat @ W_O  # (n, d_out)
    if not np.isfinite(output).all():
        values = [(Place("W_V", head=h), kv.W_V) for h, kv in enumerate(shared)] \
            if kv_heads is None else [(Place("W_V", kv_head=g), kv.W_V)
                                      for g, kv in enumerate(shared)]
        raise _output_overflow(output, W_O, X_kv, source, values)
    # Heads are numbered from 1 in what a person reads, as on the page.
    warnings = tuple(f"Head {h + 1}: {w[0].lower()}{w[1:]}" for h, r in enumerate(results)
                     for w in r.warnings)
    return MultiHeadResult(heads=tuple(results), concat=concat, output=output,
                           warnings=warnings, kv_heads=tuple(int(g) for g in groups))


def _groups(H: int, kv_heads) -> np.ndarray:
    """(H,) the key/value head of each query head: ⌊h·G/H⌋, or h without kv_heads."""
    if kv_heads is None:
        return np.arange(H)
    G = len(kv_heads)
    if not 1 <= G <= H or H % G:
        raise AttentionInputError(
            f"{counted(H, 'query head')} cannot share {counted(G, 'key/value head')} equally: "
            f"the number of key/value heads must divide {H} "
            f"({', '.join(str(g) for g in range(1, H + 1) if H % g == 0)})", "kv_heads")
    return np.arange(H) * G // H


def _slopes(H: int, alibi_slopes) -> list:
    """One ALiBi slope (or None) per head."""
    if alibi_slopes is None:
        return [None] * H
    slopes = list(alibi_slopes)
    if len(slopes) != H:
        raise AttentionInputError(
            f"alibi_slopes has {counted(len(slopes), 'slope')} for {counted(H, 'head')}; give one "
            "per head",
            "alibi_slopes")
    return slopes


_QUERY, _OWN, _KV = ("W_Q", "b_Q"), ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"), \
    ("W_K", "W_V", "b_K", "b_V")


def _query_spec(head, h: int, grouped: bool):
    """(W_Q, b_Q, W_K, W_V, b_K, b_V) of query head h (the last four None when grouped)."""
    if isinstance(head, dict):
        names = _QUERY if grouped else _OWN
        unknown = sorted(set(head) - set(names))
        if unknown:
            raise AttentionInputError(
                f"Head {h + 1} has {unknown[0]}, but "
                + ("with kv_heads a query head has only W_Q and b_Q; its keys and values "
                   "come from its key/value head" if grouped and unknown[0] in _KV else
                   f"a head has only {', '.join(names)}"), unknown[0], head=h)
        missing = [p for p in names[:1 if grouped else 3] if p not in head]
        if missing:
            raise AttentionInputError(f"Head {h + 1} needs {missing[0]}", missing[0], head=h)
        if grouped:
            return head["W_Q"], head.get("b_Q"), None, None, None, None
        return (head["W_Q"], head.get("b_Q"), head["W_K"], head["W_V"], head.get("b_K"),
                head.get("b_V"))
    if grouped:
        return head, None, None, None, None, None
    W_Q, W_K, W_V = head
    return W_Q, None, W_K, W_V, None, None


def _kv_spec(kv, g: int):
    """(W_K, W_V, b_K, b_V) of key/value head g."""
    if isinstance(kv, dict):
        unknown = sorted(set(kv) - set(_KV))
        if unknown:
            raise AttentionInputError(
                f"Key/value head {g + 1} has {unknown[0]}, but a key/value head has only "
                "W_K, W_V, b_K and b_V", unknown[0], kv_head=g)
        missing = [p for p in _KV[:2] if p not in kv]
        if missing:
            raise AttentionInputError(f"Key/value head {g + 1} needs {missing[0]}", missing[0],
                                      kv_head=g)
        return kv["W_K"], kv["W_V"], kv.get("b_K"), kv.get("b_V")
    W_K, W_V = kv
    return W_K, W_V, None, None


_SHARED = ("X", "X_kv", "mask", "window", "sinks", "position_offset", "rope_base")


def named(h: int | None, g: int | None, compute, *args, **kwargs):
    """``compute(*args, **kwargs)``, its AttentionInputError naming its head as the request
    spells it: a query head's own inputs are heads[h].W_Q, the key/value head's are
    heads[h].W_K (each head its own) or kv_heads[g].W_K (shared). An input every head
    shares is no one head's fault, so its message names no head."""
    try:
        return compute(*args, **kwargs)
    except AttentionInputError as exc:
        if exc.input in _SHARED or (h is None and g is None):
            raise
        raise exc.in_head(h, g) from None


def _output_overflow(output, W_O, X_kv, source: str, values) -> AttentionInputError:
    """The error for an entry (i, c) of Concat·W_O beyond float64: built from column c of
    W_O and from what Concat is (each head's A·V): X_kv and every W_V, ``values`` of
    (Place, W_V)."""
    i, c = first_bad(output)
    blocks = [("W_O", W_O, EVERY, c), (source, X_kv, EVERY, EVERY)]
    blocks += [(name, W_V, EVERY, EVERY) for name, W_V in values]
    return overflow_error("The output Concat·W_O", f"row {i + 1} column {c + 1} of the output",
                          blocks)
