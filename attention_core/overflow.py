"""Which input to blame when a product overflows float64, and the sentence that says so.

The rule: the error names the first entry of the product (row by row) that is not finite,
and its ``field`` is the input cell of the largest magnitude among the cells that entry is
computed from; on a tie, the first of them in the order the blocks are given, row by row.
Shrinking that cell is the surest way back into float64's range (about ±1.8e308), and the
page can outline it. What each product is computed from:

- Q[i, c] = X[i, :]·W_Q[:, c] (+ b_Q[c]): row i of X, column c of W_Q and entry c of b_Q
  (K and V likewise, from X_kv). Under RoPE a column is turned with its pair, so every
  column of W_Q and of b_Q is named.
- scores[i, j] = q_i·k_j: row i of X, row j of X_kv (X in self-attention), all of W_Q and W_K.
- scaled scores = scale·scores, when the scores themselves are finite: ``scale`` alone
  (only a scale beyond ±1 can carry finite scores out of range); then ALiBi's bias added to
  finite scaled scores: ``alibi_slopes``.
- the terms q_i[c]·k_j[c] of a score, which the working writes out, when the scores are
  finite (a fused multiply-add can bring a term beyond float64 back within a sum): row i
  of X, column c of W_Q, row j of X_kv and column c of W_K.
- Concat·W_O[i, c]: column c of W_O, X_kv and every head's W_V (Concat is the heads' A·V).
"""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np

from .errors import NAME, AttentionInputError, Place

EVERY = slice(None)


def first_bad(product: np.ndarray) -> tuple[int, int]:
    """(row, column) of the first non-finite entry of a 2-D array, row by row."""
    i, j = np.argwhere(~np.isfinite(product))[0]
    return int(i), int(j)


def largest_cell(blocks) -> tuple[Place, float]:
    """(place, value) of the largest |cell| in ``blocks`` of (input, matrix, rows, cols).

    ``input`` is its name ("X") or a Place naming its head (Place("W_V", head=1));
    ``rows`` and ``cols`` are an index or ``EVERY``; the place has the indices of the whole
    matrix, 0-based. A bias is a vector: its ``rows`` are ignored and its place has only a
    column ("b_Q[2]").
    """
    best = None
    for name, m, rows, cols in blocks:
        at = name if isinstance(name, Place) else Place(name)
        if m.ndim == 1:
            c = np.arange(m.shape[0])[cols].reshape(-1)
            b = int(np.argmax(np.abs(m[c])))
            if best is None or abs(m[c[b]]) > best[2]:
                best = (replace(at, column=int(c[b])), float(m[c[b]]), abs(m[c[b]]))
            continue
        r = np.arange(m.shape[0])[rows].reshape(-1)  # the whole matrix's row indices
        c = np.arange(m.shape[1])[cols].reshape(-1)
        size = np.abs(m[np.ix_(r, c)])
        a, b = np.unravel_index(np.argmax(size), size.shape)
        if best is None or size[a, b] > best[2]:  # strictly larger: the first wins a tie
            best = (replace(at, row=int(r[a]), column=int(c[b])), float(m[r[a], c[b]]),
                    size[a, b])
    return best[0], best[1]


def overflow_error(what: str, entry: str, blocks=None, *, field: str | None = None,
                   why: str = "") -> AttentionInputError:
    """The error for a product ``what`` ("Q = X·W_Q") whose ``entry`` ("row 1 column 2 of Q")
    overflows: its place is the largest cell of ``blocks``, or the input ``field`` (a whole
    input such as "scale") with the reason ``why``."""
    at = Place(field)
    if blocks is not None:
        at, value = largest_cell(blocks)
        why = f"The largest number it is built from is {NAME} ({value:.4g}); make it smaller."
    return AttentionInputError(
        f"{what} is too large for float64: {entry} comes out beyond ±1.8e308, the largest "
        f"number a float64 can hold. {why}", **asdict(at))
