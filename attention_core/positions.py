"""Sinusoidal positional encoding, as in "Attention Is All You Need" (Vaswani et al., 2017)."""

from __future__ import annotations

import numpy as np

from .errors import AttentionInputError


def sinusoidal(n: int, d_model: int) -> np.ndarray:
    """The (n, d_model) encoding added to X before the projections.

    Row ``pos`` (counted from 0) holds, interleaved, for i = 0, 1, …:
    ``PE[pos, 2i] = sin(pos / 10000^(2i/d_model))`` and
    ``PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model))``.
    With an odd d_model the last column is a sine.

    >>> sinusoidal(2, 4).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.01  , 1.    ]])
    """
    if n < 1 or d_model < 1:
        raise AttentionInputError(
            f"a positional encoding needs at least one token and one dimension, got "
            f"{n} × {d_model}", "positional")
    pos = np.arange(n, dtype=np.float64)[:, np.newaxis]  # (n, 1)
    i = np.arange(d_model) // 2  # the pair each column belongs to, (d_model,)
    angle = pos / 10000.0 ** (2 * i / d_model)  # (n, d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))
