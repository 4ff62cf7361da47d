"""Generation with a key/value cache, one token at a time.

A decoder generating text computes token t's attention from its own query q_t and the keys
and values of tokens 0 … t. Those of tokens 0 … t − 1 were computed at earlier steps and are
kept (the cache), so step t projects only x_t, takes t + 1 dot products, and appends k_t and
v_t: t + 1 dot products instead of the (t + 1)² of computing every row again. Stepping
through a sequence gives, row by row, exactly the causal attention of the whole sequence
(the engine's ``attend`` places query t among the keys: its mask, window, ALiBi distance and
RoPE position are row t's).

Orientation as in engine.py: row j of K (t, d_k) and V (t, d_v) is token j; t is 0-based.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .engine import AttentionResult, KeyValues, attend, key_values, sequences
from .working import RowWorking, working


@dataclass(frozen=True)
class Step:
    """Step t: token t's attention over the cached keys and its own (t + 1 of them).

    result : AttentionResult of one query row (n = 1) over the t + 1 keys; its weights[0]
        is row t of the whole causal weights, its output[0] is z_t.
    working : RowWorking of that row, its ``row`` t as in the whole computation.
    cache : KeyValues of tokens 0 … t, the cache after this step (K: (t + 1, d_k)).
    """

    t: int
    result: AttentionResult
    working: RowWorking
    cache: KeyValues

    @property
    def weights(self) -> np.ndarray:  # (t + 1,)
        return self.result.weights[0]

    @property
    def z(self) -> np.ndarray:  # (d_v,)
        return self.result.output[0]

    @property
    def dots(self) -> int:
        """Dot products this step takes: q_t with each of the t + 1 keys."""
        return self.t + 1

    @property
    def recompute_dots(self) -> int:
        """Dot products of computing every row again, without a cache: (t + 1)²."""
        return (self.t + 1) ** 2


def _rows(a, b):
    return None if a is None else np.concatenate([a, b])


def grow(cache: KeyValues | None, new: KeyValues) -> KeyValues:
    """The cache with token t's key and value (``new``, one row) appended."""
    if cache is None:
        return new
    k, nk = cache.K, new.K
    K = replace(k, x=_rows(k.x, nk.x), XW=_rows(k.XW, nk.XW),
                unrotated=_rows(k.unrotated, nk.unrotated), out=_rows(k.out, nk.out))
    return replace(cache, K=K, V=_rows(cache.V, new.V), XW_V=_rows(cache.XW_V, new.XW_V))


def step(cache: KeyValues | None, x_t, W_Q, W_K, W_V, *, b_Q=None, b_K=None, b_V=None,
         scale: float | None = None, rope_base: float | None = None, position_offset: int = 0,
         alibi_slope: float | None = None, window: int | None = None, sinks: int = 0,
         kv=None) -> Step:
    """Token t's step, t being the cache's length (0 for an empty cache).

    x_t : (d_model,) its embedding. W_Q, W_K, W_V, b_Q, b_K, b_V and the options are those of
    engine.attention(); the causal mask is implied (token t reads tokens 0 … t). ``kv``: the
    new token's KeyValues when another query head of its group already computed them
    (grouped-query heads share one cache).
    """
    t = 0 if cache is None else cache.V.shape[0]
    x = np.atleast_2d(np.asarray(x_t, dtype=np.float64))  # (1, d_model)
    rope = None if rope_base is None else (float(rope_base), int(position_offset))
    if kv is None:
        kv = key_values(x, "X", W_K, W_V, b_K, b_V,
                        None if rope is None else (rope[0], rope[1] + t))
    keys = grow(cache, kv)
    result = attend(x, W_Q, b_Q, keys, causal=True, scale=scale, rope=rope,
                    alibi_slope=alibi_slope, window=window, sinks=sinks, first=t)
    return Step(t=t, result=result, working=replace(working(result, 0), row=t), cache=keys)


def generate(X, W_Q, W_K, W_V, **options) -> list[Step]:
    """Every step of X's n tokens (X: (n, d_model)), each from the cache the one before
    left: steps[t].weights is row t of the causal attention of X."""
    X, _, _ = sequences(X, None)
    steps: list[Step] = []
    cache = None
    for x_t in X:
        steps.append(step(cache, x_t, W_Q, W_K, W_V, **options))
        cache = steps[-1].cache
    return steps


def generate_heads(X, heads, kv_heads=None, alibi_slopes=None, **options) -> list[list[Step]]:
    """Every step of every query head: steps[t][h]. ``heads``: each query head's {"W_Q",
    "W_K", "W_V"} (and biases), or with ``kv_heads`` (G of them, each {"W_K", "W_V"} and
    biases) each query head's {"W_Q"} only: head h reads key/value head h·G // H, whose one
    cache its group shares, each token's k and v computed once per step."""
    X, _, _ = sequences(X, None)
    H = len(heads)
    groups = kv_heads if kv_heads else heads  # the heads that own a cache
    G = len(groups)
    caches: list[KeyValues | None] = [None] * G
    steps = []
    rope = options.get("rope_base")
    for t, x_t in enumerate(X):
        x = x_t[np.newaxis, :]  # (1, d_model)
        turn = None if rope is None else (float(rope), options.get("position_offset", 0) + t)
        new = [key_values(x, "X", g["W_K"], g["W_V"], g.get("b_K"), g.get("b_V"), turn)
               for g in groups]
        row = []
        for h, head in enumerate(heads):
            g = h * G // H
            kv_g = groups[g]
            slope = None if alibi_slopes is None else float(alibi_slopes[h])
            row.append(step(caches[g], x_t, head["W_Q"], kv_g["W_K"], kv_g["W_V"],
                            b_Q=head.get("b_Q"), alibi_slope=slope, kv=new[g], **options))
        caches = [grow(caches[g], new[g]) for g in range(G)]
        steps.append(row)
    return steps


def cache_numbers(t: int, d_k: int, d_v: int, kv_heads: int = 1) -> int:
    """Numbers a cache of t tokens holds: t · (d_k + d_v) per key/value head."""
    return kv_heads * t * (d_k + d_v)

