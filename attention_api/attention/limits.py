"""Upper bounds on a request, configurable per app (routes.limits reads its config)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Upper bounds on a request, so one request cannot exhaust a worker."""

    max_tokens: int = 512  # n and m; a 512×512 weight matrix is ~2 MB of float64
    # d_model (the columns of X and X_kv, the rows of W_Q, W_K and W_V): a real model's
    # head opened in the page (SmolLM2 576, MiniLM 384; BERT-large and GPT-2 medium 1024).
    max_model_dim: int = 1024
    max_dim: int = 256  # d_k, d_v and W_O's width each
    max_label: int = 64  # characters in one token label
    # Query heads, and key/value heads: the sum of 16 heads' d_v is W_O's rows (4,096 at
    # d 256), and 16 heads' weights at 512 tokens are 4.2 million of the answer's numbers.
    max_heads: int = 16
    # Numbers in one answer (attention_api/attention/answer_size.py counts them before computing).
    # The page asks for at most ~4.7 million (512 tokens, 16 heads, d 256: the heads'
    # weights_u8 and the shown head's K, V and mask). 10 million floats are ~200 MB of JSON,
    # and six such answers at once keep two workers under 2.5 GB (test_answer_memory.py);
    # 16 heads' every intermediate at 512 tokens is ~36 million, 0.6 GB of JSON.
    max_answer_cells: int = 10_000_000
    # position_offset, window and sinks: far beyond any context a model reads today, and
    # small enough that p·θ^(−2c/d_k) keeps float64's precision to ~1e-10 radians.
    max_position: int = 1_000_000
