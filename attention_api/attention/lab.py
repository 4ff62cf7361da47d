"""The scaling lab's answers, from query-string parameters checked here.

``scaling_curve`` and ``scaling_sample`` take the query as (name, text) pairs, as a
URL gives them, and return plain dicts. Every parameter is a whole number in a
range; a bad one raises AttentionInputError naming the parameter, with the range
and the value as sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, create_model

from attention_core.errors import AttentionInputError
from attention_core.scaling import score_variance, winner_probability

from ..declared import Answer, array
from ..values import did_you_mean, quoted


@dataclass(frozen=True)
class Whole:
    """A whole-number query parameter: its inclusive range and its default."""

    low: int
    high: int
    default: int

    def type(self) -> Any:
        """Its type, for the API document."""
        return Annotated[int, Field(ge=self.low, le=self.high)]


CURVE_PARAMS = {"d_k_max": Whole(1, 4096, 1024)}  # widest d_k on the curve (components)
SAMPLE_PARAMS = {
    "d_k": Whole(1, 1024, 64),  # components of q and k
    "samples": Whole(100, 100_000, 10_000),  # (q, k) pairs drawn
    "seed": Whole(0, 2 ** 32 - 1, 0),
}

# samples × d_k numbers are drawn twice; beyond this a request would take seconds.
MAX_DRAWS = 4_000_000

# The answers' declarations, for the API document.
_PROBABILITIES = array(Annotated[float, Field(ge=0, le=1)],
                       CURVE_PARAMS["d_k_max"].high.bit_length())  # d_k = 1, 2, 4 … ≤ d_k_max


class ScalingCurve(Answer):
    d_k: array(Annotated[int, Field(ge=1)], CURVE_PARAMS["d_k_max"].high.bit_length())
    unscaled: _PROBABILITIES
    scaled: _PROBABILITIES


ScalingSample = create_model(
    "ScalingSample", __base__=Answer,
    **{name: (p.type(), ...) for name, p in SAMPLE_PARAMS.items()},
    variance_raw=(Annotated[float, Field(ge=0)], ...),
    variance_scaled=(Annotated[float, Field(ge=0)], ...))

# ASCII digits only, at most 12 of them: anything longer is out of every range anyway.
_WHOLE = re.compile(r"-?[0-9]{1,12}")


def _quoted(text: str) -> str:
    return quoted(text, 40)


def query_ints(pairs: Iterable[tuple[str, str]], params: dict[str, Whole]) -> dict[str, int]:
    """Each parameter of ``params`` as an int: the one given in ``pairs`` or its default.

    >>> query_ints([("d_k", "16")], SAMPLE_PARAMS)
    {'d_k': 16, 'samples': 10000, 'seed': 0}
    >>> query_ints([("d_k", "1.5")], SAMPLE_PARAMS)
    Traceback (most recent call last):
    attention_core.errors.AttentionInputError: d_k must be a whole number from 1 to 1024, got "1.5"
    """
    given: dict[str, int] = {}
    sent: dict[str, str] = {}
    for name, text in pairs:
        if name not in params:
            raise AttentionInputError(
                f"Unknown parameter {_quoted(name)}{did_you_mean(name, params)} The parameters are "
                f"{', '.join(params)}.", name)
        if name in given:
            raise AttentionInputError(
                f"{name} is given more than once ({_quoted(sent[name])}, then "
                f"{_quoted(text)}); give it once", name)
        p = params[name]
        if not _WHOLE.fullmatch(text) or not p.low <= int(text) <= p.high:
            raise AttentionInputError(
                f"{name} must be a whole number from {p.low} to {p.high}, got {_quoted(text)}",
                name)
        given[name], sent[name] = int(text), text
    return {name: given.get(name, p.default) for name, p in params.items()}


def scaling_curve(pairs: Iterable[tuple[str, str]]) -> dict:
    """The body of ``GET /api/scaling``: winner probabilities for d_k = 1, 2, 4, … ≤ d_k_max.

    ``unscaled[i]`` and ``scaled[i]`` are the softmax weight (a probability, 0 to 1)
    of the larger of two scores √d_k apart, without and with the 1/√d_k scaling.

    >>> body = scaling_curve([("d_k_max", "5")])
    >>> body["d_k"], [round(p, 3) for p in body["unscaled"]]
    ([1, 2, 4], [0.731, 0.804, 0.881])
    """
    d_k_max = query_ints(pairs, CURVE_PARAMS)["d_k_max"]
    d_ks = [2 ** p for p in range(d_k_max.bit_length())]  # powers of two ≤ d_k_max
    return {"d_k": d_ks,
            "unscaled": [winner_probability(d, scaled=False) for d in d_ks],
            "scaled": [winner_probability(d, scaled=True) for d in d_ks]}


def scaling_sample(pairs: Iterable[tuple[str, str]]) -> dict:
    """The body of ``GET /api/scaling/sample``: the parameters and the measured variances.

    ``variance_raw`` is the variance of q·k over ``samples`` random pairs (about d_k),
    ``variance_scaled`` that of q·k/√d_k (about 1), in squared score units.
    """
    p = query_ints(pairs, SAMPLE_PARAMS)
    if p["samples"] * p["d_k"] > MAX_DRAWS:
        raise AttentionInputError(
            f"samples × d_k is {p['samples']} × {p['d_k']} = {p['samples'] * p['d_k']:,}; at "
            f"most {MAX_DRAWS:,} numbers are drawn per request, so use at most "
            f"{MAX_DRAWS // p['d_k']} samples at d_k = {p['d_k']}", "samples")
    raw, scaled = score_variance(p["d_k"], samples=p["samples"], seed=p["seed"])
    return {**p, "variance_raw": raw, "variance_scaled": scaled}
