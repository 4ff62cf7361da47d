"""One forward pass of a text, as kept for its answers: what runs.py keeps in memory and
shared_runs.py writes to and reads from the folder the workers share."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from attention_models.base import Tokenized


@dataclass(frozen=True)
class Run:
    """What one forward pass of a text leaves for its answers (L layers, H heads, n tokens)."""

    tokenized: Tokenized
    X: np.ndarray  # (L, n, d_model) float32: each layer's input to its projections
    overview_u8: np.ndarray  # (L, H, n, n) uint8: round(255 · weight) of every head
    first_token_share: np.ndarray  # (L, H) float64: mean weight on token 0, over queries
    next_tokens: list[dict] | None  # a decoder's most likely (next_tokens.py), else None

    @property
    def nbytes(self) -> int:
        """The bytes of its arrays, what keeping it costs (its tokens are a few KB more)."""
        return sum(getattr(self, name).nbytes for name in ARRAYS)


# Its arrays, by name: saved one .npy file each, and memory-mapped when read back.
ARRAYS = tuple(f.name for f in dataclasses.fields(Run) if f.type == "np.ndarray")
