"""The answers of POST /api/cost, /api/kv-cache and /api/tiles declared as pydantic models,
for the API document (openapi.py); cost.py, kv_cache.py and tiles.py build them. Their bounds
come from cost.py and the limits (a real model's tiles are wider: ``tiles_answer``)."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Literal

from pydantic import Field, create_model

from ..attention.limits import Limits
from ..declared import UNSENT, Answer, array, ref, said
from .cost import BLOCK

Whole = Annotated[int, Field(ge=0)]
# The running maximum m, or the log-sum-exp: null is −∞.
Running = Annotated[float | None, Field(description="null is −∞: no permitted key yet")]
# [start, stop]: a span of tokens, 0-based.
Span = Annotated[list[Whole], Field(min_length=2, max_length=2)]


# Cost: each step's multiply-adds and each matrix's bytes; measured when asked.
class Step(Answer):
    step: str
    formula: str
    multiply_adds: Whole


class Matrix(Answer):
    matrix: str
    shape: str
    bytes: Whole


class Timing(Answer):
    seconds: list[float]
    slope: Annotated[float | None, Field(description="of log seconds against log n, fitted; "
                                                     "2 when time grows as n²")]
    score_bytes: Annotated[list[Whole], Field(description="the scores held at once")]


class Measured(Answer):
    sizes: list[Whole]
    complete: Annotated[bool, Field(description="false when the budget ran out first")]
    block: Literal[BLOCK]
    standard: Timing
    tiled: Timing


class Cost(Answer):
    steps: list[Step]
    matrices: list[Matrix]
    measured: Measured = UNSENT


# KVCache: a step per token, with the cache it leaves.
class Cache(Answer):
    model_config = said("the cache after the step: K and V of every token so far")

    tokens: Whole
    kv_heads: Whole
    numbers: Annotated[int, Field(ge=0, description="tokens · (d_k + d_v) per key/value "
                                                    "head, for every key/value head")]
    bytes: Annotated[int, Field(ge=0, description="numbers × 8 (float64)")]
    per_kv_head: Whole
    without_sharing: Annotated[int, Field(ge=0, description="what every query head would "
                                                            "keep without grouped-query heads")]


class StepCost(Answer):
    dot_products: Annotated[int, Field(ge=0, description="t + 1")]
    without_cache: Annotated[int, Field(ge=0, description="(t + 1)²: every row again")]


class Generated(Answer):
    t: Annotated[int, Field(ge=0, description="the token added, 0-based")]
    token: str
    weights: Annotated[list[float], Field(description="row t of A: t + 1 weights")]
    z: list[float]
    working: ref("Working")
    cost: StepCost
    cache: Cache


class KVCache(Answer):
    tokens: list[str]
    head: Whole
    heads: Whole
    steps: list[Generated]


# TilesAnswer: one query row through FlashAttention's tiles.
class Memory(Answer):
    held: Annotated[int, Field(ge=1, description="scores held at once: "
                                                 "min(B_r, n)·min(B_c, m)")]
    whole: Annotated[int, Field(ge=1, description="n·m, the whole score matrix")]


@cache
def tiles_answer(limits: Limits, name: str = "TilesAnswer") -> type[Answer]:
    """POST /api/tiles' answer for ``limits`` (a real model's are wider), as ``name``."""
    n, d = limits.max_tokens, limits.max_dim
    vector = array(float, d)
    tile = create_model(
        "Tile", __base__=Answer,
        key_block=(Annotated[int, Field(ge=0, description="c: keys c·B_c to (c + 1)·B_c − 1")],
                   ...),
        keys=(Annotated[Span, Field(description="[start, stop]: the keys j of this tile, "
                                                "start ≤ j < stop, 0-based")], ...),
        skipped=(Annotated[bool, Field(description="every entry of the B_r × B_c tile is "
                                                   "masked: its scores are never computed")],
                 ...),
        m_before=(Running, ...), m_after=(Running, ...),
        l_before=(Annotated[float, Field(ge=0)], ...), l_after=(Annotated[float, Field(ge=0)],
                                                               ...),
        O_before=(vector, ...), O_after=(vector, ...),
        rescale=(Annotated[float, Field(ge=0, le=1, description=(
            "e^(m_before − m_after), by which the old ℓ and O are multiplied: 1 when the "
            "maximum did not grow, 0 at the row's first permitted key"))], ...),
        scores=(Annotated[array(float | None, n), Field(description=(
            "the row's scaled scores in this key block; null where masked (all null when "
            "skipped)"))], ...))
    final = create_model(
        "Final", __base__=Answer,
        z=(Annotated[vector, Field(description="O/ℓ, the row's z (0 when it may read no "
                                               "key)")], ...),
        logsumexp=(Annotated[float | None, Field(description="m + ln ℓ; null when the row "
                                                             "may read no key")], ...))
    return create_model(
        name, __base__=Answer,
        rows=(Annotated[Span, Field(description="[start, stop]: the queries i of the row's "
                                                "query block, start ≤ i < stop, 0-based")], ...),
        tiles=(array(tile, n), ...), final=(final, ...), memory=(Memory, ...))
