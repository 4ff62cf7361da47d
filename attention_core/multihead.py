"""Multi-head attention: h single heads side by side, concatenated, then projected by W_O."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import AttentionResult, attention
from .errors import AttentionInputError, page_name
from .overflow import EVERY, first_bad, overflow_error

MAX_HEADS = 16


@dataclass(frozen=True)
class MultiHeadResult:
    """Every head's own result, their concatenation and the projected output.

    Attributes
    ----------
    heads : tuple of AttentionResult, one per head (each with its own d_k, d_v).
    concat : (n, sum of d_v)  the heads' outputs side by side, heads[0] first.
    output : (n, d_out)       concat @ W_O.
    warnings : tuple of str   each head's warnings, prefixed with the head ("Head 1: …").
    """

    heads: tuple[AttentionResult, ...]
    concat: np.ndarray
    output: np.ndarray
    warnings: tuple[str, ...] = ()


def multi_head_attention(X, heads, W_O, *, causal: bool = False, scale: float | None = None,
                         mask=None, X_kv=None) -> MultiHeadResult:
    """MultiHead(X) = Concat(head_1, …, head_h) · W_O, where
    head_i = Attention(X W_Q^i, X W_K^i, X W_V^i).

    Parameters
    ----------
    X : (n, d_model)          the queries' tokens.
    heads : sequence of (W_Q, W_K, W_V)  1 to 16 heads; W_Q, W_K (d_model, d_k_h),
        W_V (d_model, d_v_h).
    W_O : (sum of d_v_h, d_out)  the output projection.
    causal, scale, mask, X_kv : as for ``attention``, shared by every head (scale=None
        means 1/sqrt(d_k) of each head's own d_k).

    >>> I = [[1, 0], [0, 1]]
    >>> r = multi_head_attention([[1, 0], [0, 1]], [(I, I, I), (I, I, I)],
    ...                          [[1, 0], [0, 1], [0, 0], [0, 0]])
    >>> r.concat.shape, r.output.shape
    ((2, 4), (2, 2))
    """
    heads = list(heads)
    if not 1 <= len(heads) <= MAX_HEADS:
        raise AttentionInputError(
            f"there must be 1 to {MAX_HEADS} heads, got {len(heads)}", "heads")
    results = []
    for h, (W_Q, W_K, W_V) in enumerate(heads):
        try:
            results.append(attention(X, W_Q, W_K, W_V, causal=causal, scale=scale,
                                     mask=mask, X_kv=X_kv))
        except AttentionInputError as exc:
            # A head's own weights are named as the request spells them: heads[1].W_K. An
            # input all heads share is no one head's fault, so its message names no head.
            own = (exc.field or "").startswith(("W_Q", "W_K", "W_V"))
            field = f"heads[{h}].{exc.field}" if own else exc.field
            message = exc.message
            if own and "[" in exc.field:  # "W_Q row 1 column 1" -> "W_Q head 2 row 1 column 1"
                message = message.replace(page_name(exc.field), page_name(field))
            if exc.field not in ("X", "X_kv", "mask"):  # a head's scaling may overflow: say which
                message = f"Head {h + 1}: {message}"
            raise AttentionInputError(message, field) from None
    concat = np.concatenate([r.output for r in results], axis=1)  # (n, sum d_v)
    W_O = np.asarray(W_O, dtype=np.float64)
    if W_O.ndim != 2 or W_O.shape[0] != concat.shape[1]:
        raise AttentionInputError(
            f"W_O has {W_O.shape[0] if W_O.ndim == 2 else 'no'} rows but the heads' "
            f"outputs concatenate to {concat.shape[1]} columns (the sum of their d_v); "
            "W_O needs one row per concatenated column", "W_O")
    if not np.isfinite(W_O).all():
        raise AttentionInputError("every entry of W_O must be a finite number", "W_O")
    with np.errstate(over="ignore", invalid="ignore"):
        output = concat @ W_O  # (n, d_out)
    if not np.isfinite(output).all():
        raise _output_overflow(output, W_O, X if X_kv is None else X_kv,
                               "X" if X_kv is None else "X_kv", heads)
    # Heads are numbered from 1 in what a person reads, as on the page.
    warnings = tuple(f"Head {h + 1}: {w[0].lower()}{w[1:]}" for h, r in enumerate(results)
                     for w in r.warnings)
    return MultiHeadResult(heads=tuple(results), concat=concat, output=output,
                           warnings=warnings)


def _output_overflow(output, W_O, X_kv, source: str, heads) -> AttentionInputError:
    """The error for an entry (i, c) of Concat·W_O beyond float64: built from column c of
    W_O and from what Concat is (each head's A·V): X_kv and every head's W_V."""
    i, c = first_bad(output)
    blocks = [("W_O", W_O, EVERY, c), (source, np.asarray(X_kv, dtype=np.float64), EVERY, EVERY)]
    blocks += [(f"heads[{h}].W_V", np.asarray(W_V, dtype=np.float64), EVERY, EVERY)
               for h, (_, _, W_V) in enumerate(heads)]
    return overflow_error("The output Concat·W_O", f"row {i + 1} column {c + 1} of the output",
                          blocks)
