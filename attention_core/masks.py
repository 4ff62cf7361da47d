"""Which keys each query may read: the causal mask, a mask given by hand, a sliding window
and its sinks, combined by AND (the sinks only reopen what the window closed)."""

from __future__ import annotations

import numpy as np

from .errors import AttentionInputError, counted


def distances(n: int, m: int, first: int = 0) -> np.ndarray:
    """(n, m) |i − j| between query i, which is token ``first`` + i of the keys' sequence,
    and key j (``first`` > 0: the queries are the sequence's last tokens, as in a step of
    generation with a key/value cache)."""
    return np.abs(first + np.arange(n)[:, np.newaxis] - np.arange(m)[np.newaxis, :])


def in_window(n: int, m: int, window: int | None, first: int = 0) -> np.ndarray:
    """(n, m) bool: True where |i − j| < window (everywhere when window is None)."""
    if window is None:
        return np.ones((n, m), dtype=bool)
    return distances(n, m, first) < window


def sink_keys(m: int, sinks: int) -> np.ndarray:
    """(m,) bool: True for the keys 0 … sinks − 1, readable from every query whatever the
    window (the "attention sinks" of StreamingLLM, Xiao et al., 2023)."""
    return np.arange(m) < sinks


def allowed(n: int, m: int, *, causal: bool = False, mask=None, window: int | None = None,
            sinks: int = 0, first: int = 0) -> np.ndarray:
    """(n, m) bool: True where query i may read key j.

    causal: j <= i (aligned at the top left when m != n, as torch's ``is_causal``); with
    ``first``, query i is token first + i of the keys' sequence and reads j <= first + i.
    mask: (n, m) bool given by hand, True where allowed (torch's boolean ``attn_mask``).
    window, sinks: |i − j| < window, or j < sinks. With causal, a window of w leaves the w
    most recent keys, the query's own included.
    """
    ok = np.ones((n, m), dtype=bool)
    if causal:
        ok = np.tril(ok, first)  # key j visible to query i only when j <= first + i
    if mask is not None:
        given = np.asarray(mask)
        if given.shape != (n, m):
            raise AttentionInputError(
                f"mask has shape {given.shape}; with {counted(n, 'query', 'queries')} and "
                f"{counted(m, 'key')} it must be {n}×{m}", "mask")
        if given.dtype != bool:
            raise AttentionInputError("mask must hold only true and false", "mask")
        ok = ok & given
    if window is not None:
        ok &= in_window(n, m, window, first) | sink_keys(m, sinks)[np.newaxis, :]
    return ok


def check_window(window, sinks) -> None:
    """Refuse a window below 1 or sinks below 0, naming the field."""
    if window is not None and (isinstance(window, bool) or not isinstance(window, (int, np.integer))
                               or window < 1):
        raise AttentionInputError(
            f"window must be a whole number of at least 1 (query i reads key j when "
            f"|i − j| < window), got {window!r}", "window")
    if isinstance(sinks, bool) or not isinstance(sinks, (int, np.integer)) or sinks < 0:
        raise AttentionInputError(
            f"sinks must be a whole number of at least 0 (the first keys every query may "
            f"read), got {sinks!r}", "sinks")
