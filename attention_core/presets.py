"""Named example configurations, in the request format of ``POST /api/attention``."""

from __future__ import annotations

import copy

# Each entry: a name, one sentence on what it teaches, and the request itself.
# "the cat sat" comes first: it is the default view of the page and the CLI.
_PRESETS = (
    {
        "name": "the cat sat",
        "description": "Three tokens in two dimensions, small enough to check by hand.",
        "request": {
            "tokens": ["the", "cat", "sat"],
            "X": [[1, 0], [0, 1], [1, 1]],
            "W_Q": [[1, 0], [1, 2]],
            "W_K": [[2, 0], [0, 1]],
            "W_V": [[1, 0], [0, 2]],
            "causal": False,
        },
    },
    {
        "name": "equal scores",
        "description": "W_Q is zero, so every score is 0 and each token reads all keys equally.",
        "request": {
            "tokens": ["a", "b", "c", "d"],
            "X": [[1, 0], [0, 1], [1, 1], [-1, 1]],
            "W_Q": [[0, 0], [0, 0]],
            "W_K": [[1, 0], [0, 1]],
            "W_V": [[1, 0], [0, 1]],
            "causal": False,
        },
    },
    {
        "name": "sharp attention",
        "description": "Large weights make large scores, so the softmax puts almost all of "
                       "each row's weight, over 0.98, on one key.",
        # Each token's query points along its own key and away from the others (blue's
        # key, (−1, −1), is not the sum of red's and green's, which would tie it with them).
        "request": {
            "tokens": ["red", "green", "blue"],
            "X": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            "W_Q": [[6, 0], [0, 6], [-3, -3]],
            "W_K": [[1, 0], [0, 1], [-1, -1]],
            "W_V": [[1, 0], [0, 1], [1, 1]],
            "causal": False,
        },
    },
    {
        "name": "a causal sentence",
        "description": "Four tokens with the causal mask on: each reads only itself and the past.",
        "request": {
            "tokens": ["I", "like", "green", "tea"],
            "X": [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 1, 1]],
            "W_Q": [[1, 0], [0, 1], [1, 1]],
            "W_K": [[1, 1], [0, 1], [1, 0]],
            "W_V": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            "causal": True,
        },
    },
    {
        "name": "rotary positions",
        "description": "The cat sat with RoPE: each q and k turns by 1 radian per position "
                       "(d_k = 2), so a score depends on how far apart two tokens are.",
        "request": {
            "tokens": ["the", "cat", "sat"],
            "X": [[1, 0], [0, 1], [1, 1]],
            "W_Q": [[1, 0], [1, 2]],
            "W_K": [[2, 0], [0, 1]],
            "W_V": [[1, 0], [0, 2]],
            "causal": False,
            "positional": "rope",
        },
    },
    {
        "name": "grouped-query heads",
        "description": "Four query heads share two key/value heads: heads 1 and 2 read one "
                       "K and V, heads 3 and 4 the other, as in Llama-style models.",
        "request": {
            "tokens": ["the", "cat", "sat"],
            "X": [[1, 0], [0, 1], [1, 1]],
            "heads": [{"W_Q": [[1, 0], [1, 2]]}, {"W_Q": [[0, 1], [2, 0]]},
                      {"W_Q": [[1, 1], [0, 1]]}, {"W_Q": [[-1, 0], [1, 1]]}],
            "kv_heads": [{"W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]},
                         {"W_K": [[0, 1], [1, 0]], "W_V": [[0, 1], [1, 0]]}],
            "W_O": [[1, 0], [0, 1], [1, 0], [0, 1], [1, 0], [0, 1], [1, 0], [0, 1]],
            "causal": False,
        },
    },
    {
        "name": "ALiBi",
        "description": "W_Q is zero, so every score is 0: ALiBi's −0.5·|i − j| alone makes "
                       "the nearer keys win, with no position in X.",
        "request": {
            "tokens": ["I", "like", "green", "tea"],
            "X": [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 1, 1]],
            "W_Q": [[0, 0], [0, 0], [0, 0]],
            "W_K": [[1, 1], [0, 1], [1, 0]],
            "W_V": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            "causal": True,
            "positional": "alibi",
            "alibi_slopes": [0.5],
        },
    },
    {
        "name": "sliding window with a sink",
        "description": "Six tokens, causal, a window of 3 and one sink: each reads the 3 most "
                       "recent tokens and always the first.",
        "request": {
            "tokens": ["the", "cat", "sat", "on", "the", "mat"],
            "X": [[1, 0], [0, 1], [1, 1], [-1, 1], [1, 0.5], [0.5, -1]],
            "W_Q": [[1, 0], [1, 2]],
            "W_K": [[2, 0], [0, 1]],
            "W_V": [[1, 0], [0, 2]],
            "causal": True,
            "window": 3,
            "sinks": 1,
        },
    },
)


def presets() -> list[dict]:
    """Return the presets as fresh dicts: ``[{"name", "description", "request"}, ...]``."""
    return copy.deepcopy(list(_PRESETS))


def default_request() -> dict:
    """Return the request of the default example, "the cat sat"."""
    return presets()[0]["request"]
