"""The bodies of how attention runs, declared once (see attention_api.declared): POST
/api/cost's sizes, and POST /api/tiles's and POST /api/kv-cache's attention request with
fields of their own (the request's forms as declaration.Variant takes them).

What JSON Schema cannot say is in the fields' descriptions: a head below the request's
number of heads, the tokens of a generation.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from pydantic import Field, create_model

from attention_core.errors import AttentionInputError, counted

from ..attention.declaration import FIELDS, Variant, causal
from ..attention.limits import Limits
from ..declared import Absent, Body, Finite, array, checked, retyped, sent
from ..values import describe, json_object, whole_number

# POST /api/tiles: the request's own fields and three more, side by side rather than a
# "request" field beside them (as POST /api/slide has): a view's request is sent as it is,
# and its "row" is the request's own, checked with the same words. fields and encoding
# choose parts of POST /api/attention's answer, which this route does not send.
EXTRA = ("block_q", "block_k", "head")
ALLOWED = (*(f for f in FIELDS if f not in ("fields", "encoding")), *EXTRA)
_SIDE = {"block_q": "query rows B_r", "block_k": "key columns B_c"}
MAX_STEPS = 64  # tokens generated in one answer: each step carries its row's whole working


def _heads(body) -> int:
    """How many query heads a validated form has (1 for one head sent as W_Q, W_K, W_V)."""
    return len(body.heads) if "heads" in type(body).model_fields else 1


# --- POST /api/cost ---------------------------------------------------------------------

def _size(name: str, high: int, what: str, default: str | None = None) -> tuple:
    """A size from 1 to ``high``; when not sent, the field ``default`` names (m: n), or a
    422 saying nothing was sent."""
    def check(value, info):
        if isinstance(value, Absent) and default is not None:
            return info.data[default]
        size = whole_number(value)
        if size is None or not 1 <= size <= high:
            got = "nothing" if isinstance(value, Absent) else describe(value)
            raise AttentionInputError(f"{name} must be a whole number from 1 to {high}; got "
                                      f"{got}", name)
        return size
    return sent(check, Annotated[int, Field(ge=1, le=high)], what, required=default is None)


def _measure(value, info) -> bool:
    if not isinstance(value, bool):
        raise AttentionInputError(f"measure must be true or false; got {describe(value)}",
                                  "measure")
    return value


@functools.lru_cache(maxsize=16)
def cost_request(limits: Limits) -> type[Body]:
    """POST /api/cost's body for ``limits``: the view's sizes, and whether to measure."""
    n, D, d = limits.max_tokens, limits.max_model_dim, limits.max_dim
    return create_model(
        "CostRequest", __base__=Body, __doc__="The sizes of a view, and whether to time it.",
        n=_size("n", n, "queries"), m=_size("m", n, "keys; n when left out", "n"),
        d_model=_size("d_model", D, "d_model"), d_k=_size("d_k", d, "d_k"),
        d_v=_size("d_v", d, "d_v"),
        measure=(checked(_measure, bool, "time the engine and the tiles on this server"),
                 False))


# --- POST /api/tiles --------------------------------------------------------------------

def block_size(p: dict, name: str) -> int:
    """A block size: a whole number of at least 1 (a block beyond the tokens holds them all)."""
    if name not in p:
        raise AttentionInputError(f"{name} is missing: the {_SIDE[name]} of a tile, 1 or more",
                                  name)
    value = p[name]
    size = whole_number(value)
    if size is None or size < 1:
        raise AttentionInputError(f"{name} must be a whole number of at least 1 (the "
                                  f"{_SIDE[name]} of a tile), got {describe(value)}", name)
    return size


def _tiles_first(p, limits: Limits) -> dict:
    """The body a JSON object of ALLOWED fields, with a row and the tile's sides."""
    json_object(p, ALLOWED)
    if p.get("row") is None:
        raise AttentionInputError("row is missing: the query (0-based) whose tiles to follow",
                                  "row")
    block_size(p, "block_q"), block_size(p, "block_k")
    return {k: v for k, v in p.items() if k not in EXTRA}


def _tiles_head(value, info) -> int:
    heads = _heads_so_far(info)
    head = whole_number(value)
    if head is None or not 0 <= head < heads:
        raise AttentionInputError(f"head must be a whole number from 0 to {heads - 1} (the "
                                  f"head, 0-based, of {counted(heads, 'head')}), got "
                                  f"{describe(value)}", "head")
    return head


def _heads_so_far(info) -> int:
    return len(info.data["heads"]) if "heads" in info.data else 1


def _tiles_fields(limits: Limits, fields: dict) -> dict:
    n, H = limits.max_tokens, limits.max_heads
    side = Annotated[int, Field(ge=1)]
    own = {k: v for k, v in fields.items() if k not in ("fields", "encoding")}
    own["row"] = retyped(own["row"], Annotated[int, Field(ge=0, le=n - 1)],
                         "the query, 0-based (below n), whose pass through the tiles to follow",
                         ...)
    return {
        **own,
        "block_q": (checked(lambda v, info: block_size({"block_q": v}, "block_q"), side,
                            "B_r, the query rows of a tile; the row's query block is "
                            "⌊row / B_r⌋"), ...),
        "block_k": (checked(lambda v, info: block_size({"block_k": v}, "block_k"), side,
                            "B_c, the key columns of a tile"), ...),
        "head": (checked(_tiles_head, Annotated[int, Field(ge=0, le=H - 1)],
                         "the head, 0-based, below the number of heads"), 0),
    }


TILES = Variant("Tiles", "An attention request as POST /api/attention takes it, without "
                "fields and encoding, with row, block_q and block_k.", _tiles_first,
                _tiles_fields, listed=ALLOWED)


# --- POST /api/kv-cache -----------------------------------------------------------------

def _kv_first(p, limits: Limits) -> dict:
    json_object(p)
    return {k: v for k, v in p.items() if k != "head"}


def _kv_causal(value, info):
    """The causal mask as sent (None for null), False when not sent: the whole body's check
    (_kv_after) says it must be true."""
    if isinstance(value, Absent):
        return False
    causal(value)
    return value


def _kv_fields(limits: Limits, fields: dict) -> dict:
    n, D, H = min(limits.max_tokens, MAX_STEPS), limits.max_model_dim, limits.max_heads
    own = dict(fields)
    own["X"] = retyped(own["X"], array(array(Finite, D), n),
                       f"n × d_model: one row per token generated, at most {MAX_STEPS}, every "
                       "row the same length", ...)
    own["causal"] = sent(_kv_causal, Literal[True], "a key/value cache needs the causal mask",
                         required=True)
    own["X_kv"] = retyped(own["X_kv"], None, "none: generation is self-attention")
    own["mask"] = retyped(own["mask"], None, "none: a step reads every earlier token its "
                                             "window allows")
    own["head"] = (checked(_whole_or_as_sent, Annotated[int, Field(ge=0, le=H - 1)],
                           "the query head, 0-based (below the number of heads), whose steps "
                           "to answer"), 0)
    return own


def _whole_or_as_sent(value, info):
    """A whole number as an int (2.0 as 2); anything else as sent, for _kv_after to refuse
    in its turn, after the view's own checks."""
    number = whole_number(value)
    return value if number is None else number


def _kv_after(body) -> None:
    """What a generation needs beyond the request's own checks, in the order they are made."""
    if body.causal is not True:
        raise AttentionInputError("causal must be true: generation reads only the tokens "
                                  "before, so a key/value cache needs the causal mask; got "
                                  f"{describe(body.causal)}", "causal")
    if body.X_kv is not None:
        raise AttentionInputError("X_kv: cross-attention's keys are all there from the start, "
                                  "so nothing is generated into a cache; send self-attention",
                                  "X_kv")
    if body.mask is not None:
        raise AttentionInputError("mask: a step of generation reads every earlier token its "
                                  "window allows; a mask by hand has no step-by-step form",
                                  "mask")
    n, H = body.X.shape[0], _heads(body)
    if n > MAX_STEPS:
        raise AttentionInputError(f"a generation holds at most {MAX_STEPS} steps, one per "
                                  f"token; this view has {n} tokens", "tokens")
    if whole_number(body.head) is None or not 0 <= body.head < H:
        raise AttentionInputError(f"head must be a whole number from 0 to {H - 1} (0-based, "
                                  f"of {H}); got {describe(body.head)}", "head")


KV_CACHE = Variant("KVCache", "A request of POST /api/attention, causal, self-attention "
                   "without a mask by hand, and the query head whose steps to answer.",
                   _kv_first, _kv_fields, _kv_after, listed=(*FIELDS, "head"))
