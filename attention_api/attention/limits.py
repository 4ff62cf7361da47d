"""Upper bounds on a request, configurable per app (routes.limits reads its config)."""

from __future__ import annotations

from dataclasses import dataclass

import settings


@dataclass(frozen=True)
class Limits:
    """Upper bounds on a request, so one request cannot exhaust a worker."""

    # Each limit a server reads from the environment: its default, and why, in settings.py.
    max_tokens: int = settings.MAX_TOKENS.default  # n and m
    max_model_dim: int = settings.MAX_MODEL_DIM.default  # d_model: X's columns, W_Q's rows
    max_dim: int = settings.MAX_DIM.default  # d_k, d_v and W_O's width each
    max_label: int = 64  # characters in one token label
    max_heads: int = settings.MAX_HEADS.default  # query heads, and key/value heads
    max_answer_cells: int = settings.MAX_ANSWER_CELLS.default  # numbers in one answer
    # position_offset, window and sinks: far beyond any context a model reads today, and
    # small enough that p·θ^(−2c/d_k) keeps float64's precision to ~1e-10 radians.
    max_position: int = 1_000_000
