"""The request format shared by the HTTP API and the CLI, validated into numpy arrays.

A request is one head (``W_Q``, ``W_K``, ``W_V``) or several (``heads`` and
``W_O``), self-attention or cross-attention (``X_kv``), with optional positions,
masks and the row whose working to write out. Sizes are checked before any
array is built, so a huge request costs nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

import settings
from attention_core.errors import NAME, AttentionInputError, Place, counted
from attention_core.positions import ROPE_BASE, alibi_slopes

from ..values import (
    bool_matrix,
    check_keys,
    describe,
    labels,
    matrix,
    number,
    vector,
)
from . import answer_fields

PROJECTIONS = ("W_Q", "W_K", "W_V")
BIASES = ("b_Q", "b_K", "b_V")
MATRICES = ("X", *PROJECTIONS)
FIELDS = ("tokens", "X", *PROJECTIONS, *BIASES, "heads", "kv_heads", "W_O", "X_kv", "tokens_kv",
          "positional", "rope_base", "position_offset", "alibi_slopes", "causal", "scale",
          "mask", "window", "sinks", "row", "fields", "encoding")
POSITIONAL = ("sinusoidal", "rope", "alibi")
QUERY_HEAD = ("W_Q", "b_Q")  # a query head's fields when kv_heads gives the keys and values
KV_HEAD = ("W_K", "W_V", "b_K", "b_V")
ENCODINGS = ("json", "base64")  # how the answer writes its arrays: see response.encode_arrays
# What the request computes, which the editor's "Export configuration" saves (in this order):
# every field but the two that say how the answer is written.
SETTINGS = tuple(f for f in FIELDS if f not in ("fields", "encoding"))

# What a response may hold, for the optional "fields" selection of a request: the answer's
# fields (answer_fields.ANSWER), those sent only when named last (response.select).
RESPONSE_FIELDS = (*answer_fields.names(f for f in answer_fields.ANSWER
                                        if f not in answer_fields.NAMED),
                   *answer_fields.names(answer_fields.NAMED))
# The matrices a field name may take a corner of: "Q[:16,:16]", "heads[1].weights[:8]".
CORNERED = answer_fields.CORNERED
# The working's parts; those of a variant only when it is on (RowWorking).
WORKING_FIELDS = answer_fields.names(answer_fields.WORKING)
# The names "fields" accepts: a response field, a part of the working, and (as "heads.x"
# for every head, "heads[k].x" for head k) any of those that one head's answer holds.
WORKING_PARTS = tuple(f"working.{f}" for f in WORKING_FIELDS)
_SEVERAL_ONLY = {f.name for f in answer_fields.SEVERAL} - {f.name for f in answer_fields.ANSWER
                                                          if f.where != "heads"}
HEAD_FIELDS = (*(f for f in RESPONSE_FIELDS if f not in _SEVERAL_ONLY), *WORKING_PARTS)
FIELD_NAMES = (*RESPONSE_FIELDS, *WORKING_PARTS, *(f"heads.{f}" for f in HEAD_FIELDS))


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


@dataclass(frozen=True)
class AttentionRequest:
    """A validated request: float64 matrices and options ready for the engine."""

    tokens: list[str]
    X: np.ndarray  # (n, d_model)
    # Each query head's {"W_Q", "W_K", "W_V"} and those of "b_Q", "b_K", "b_V" it has; with
    # kv_heads only {"W_Q"} (and "b_Q"). The engine takes them as they are.
    heads: tuple[dict, ...]
    kv_heads: tuple[dict, ...] | None  # {"W_K", "W_V"} (and "b_K", "b_V") each, or None
    W_O: np.ndarray | None  # (sum of d_v, d_out); None for a single head sent as W_Q…
    X_kv: np.ndarray | None  # (m, d_model) for cross-attention, else None
    tokens_kv: list[str] | None
    positional: str | None  # one of POSITIONAL, or None
    causal: bool
    scale: float | None
    mask: np.ndarray | None  # (n, m) bool
    row: int | None
    fields: frozenset[str] | None  # None: every response field
    encoding: str = "json"  # one of ENCODINGS
    # field name as in ``fields`` ("Q", "heads[1].Q") → (rows, cols) of its top-left corner
    # to send; cols None for every column.
    corners: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    rope_base: float | None = None  # θ when positional is "rope"
    position_offset: int = 0
    alibi_slopes: np.ndarray | None = None  # (H,) when positional is "alibi"
    window: int | None = None
    sinks: int = 0

    @property
    def multi_head(self) -> bool:
        return self.W_O is not None

    @property
    def projections(self) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
        """(W_Q, W_K, W_V) of each query head, its key/value head's W_K and W_V when shared."""
        groups = len(self.kv_heads) if self.kv_heads else None
        H = len(self.heads)
        return tuple((head["W_Q"], *((self.kv_heads[h * groups // H][p] for p in PROJECTIONS[1:])
                                     if groups else (head["W_K"], head["W_V"])))
                     for h, head in enumerate(self.heads))


def _require(payload: dict, names, where: dict | None = None, owner: str = "The request") -> None:
    for name in names:
        if name not in payload:
            raise AttentionInputError(f'{owner} needs the field "{name}"', name, **(where or {}))


def _heads(payload: dict, limits: Limits):
    """(heads, kv_heads, W_O) from the single-head or the multi-head form: each head a dict
    of its matrices and biases (see AttentionRequest.heads)."""
    dim, model_dim = limits.max_dim, limits.max_model_dim
    if "heads" not in payload:
        for name in ("W_O", "kv_heads"):
            if name in payload:
                raise AttentionInputError(
                    f"{name} goes with heads; a single head sent as W_Q, W_K and W_V has no "
                    f"{name}", name)
        _require(payload, MATRICES)
        head = {p: matrix(payload[p], p, model_dim, dim) for p in PROJECTIONS}
        return (head | _biases(payload, {}, dim),), None, None
    given = [p for p in (*PROJECTIONS, *BIASES) if p in payload]
    if given:
        raise AttentionInputError(
            f"Send either W_Q, W_K and W_V (one head) or heads with W_O, not both; this "
            f"request has heads and {', '.join(given)} (with heads, each head carries its own "
            "weights and biases)", given[0] if given[0] in BIASES else "heads")
    _require(payload, ("X", "W_O"))
    most = limits.max_heads
    heads = _objects(payload["heads"], "heads", "Head", "W_Q, W_K and W_V", most)
    kv = payload.get("kv_heads")
    kv_heads = None if kv is None else _objects(kv, "kv_heads", "Key/value head", "W_K and W_V",
                                                most)
    if kv_heads is not None and len(heads) % len(kv_heads):
        H, G = len(heads), len(kv_heads)
        raise AttentionInputError(
            f"kv_heads has {counted(G, 'key/value head')} but the request has "
            f"{counted(H, 'query head')}; the query heads "
            f"share them equally, so their number must divide {H} "
            f"({', '.join(str(g) for g in range(1, H + 1) if H % g == 0)})", "kv_heads")
    out = []
    for h, head in enumerate(heads):
        where, owner = {"head": h}, f"Head {h + 1}"  # the field 0-based, the sentence from 1
        if kv_heads is None:
            out.append(_head(head, where, owner, (*PROJECTIONS, *BIASES), PROJECTIONS, limits))
            continue
        for key in head:
            if key in KV_HEAD:
                raise AttentionInputError(
                    f"{owner} has {key}, but with kv_heads a query head carries only W_Q "
                    f"and b_Q: query head {h + 1} reads the keys and values of key/value "
                    f"head {h * len(kv_heads) // len(heads) + 1}", key, head=h)
        out.append(_head(head, where, owner, QUERY_HEAD, QUERY_HEAD[:1], limits))
    shared = None if kv_heads is None else tuple(
        _head(kv_head, {"kv_head": g}, f"Key/value head {g + 1}", KV_HEAD, KV_HEAD[:2], limits)
        for g, kv_head in enumerate(kv_heads))
    return tuple(out), shared, matrix(payload["W_O"], "W_O", dim * most, dim)


def _head(obj: dict, where: dict, owner: str, allowed, required, limits: Limits) -> dict:
    """One head's (or key/value head's) ``required`` matrices and its biases, its keys
    checked against ``allowed``; ``where`` is the head ({"kv_head": 1}: "kv_heads[1].")."""
    check_keys(obj, allowed, where, owner)
    _require(obj, required, where, owner)
    dim = limits.max_dim
    return ({p: matrix(obj[p], Place(p, **where), limits.max_model_dim, dim) for p in required}
            | _biases(obj, where, dim))


def _objects(value, name: str, owner: str, needs: str, most: int) -> list:
    """``value`` checked as a list of 1 to ``most`` objects (heads or kv_heads)."""
    if not isinstance(value, list) or not 1 <= len(value) <= most:
        got = describe(value) if not isinstance(value, list) else f"{len(value)} of them"
        raise AttentionInputError(
            f"{name} must be a list of 1 to {most} objects with {needs}, got {got}", name)
    for k, item in enumerate(value):
        if not isinstance(item, dict):
            raise AttentionInputError(
                f"{owner} {k + 1} must be an object with {needs}, got {describe(item)}",
                name, row=k)
    return value


def _biases(obj: dict, where: dict, max_dim: int) -> dict:
    """The biases of one head (or of the single head) as float64 vectors; their lengths
    are checked against the head's widths by the engine, which names them."""
    return {b: vector(obj[b], Place(b, **where), max_dim)
            for b in BIASES if obj.get(b) is not None}


def parse_request(payload, limits: Limits = Limits()) -> AttentionRequest:
    """Validate a decoded request (see ``values.parse_json``) and build float64 arrays.

    Raises AttentionInputError naming the first offending field.
    """
    if not isinstance(payload, dict):
        raise AttentionInputError(
            f"The request must be a JSON object with X, W_Q, W_K and W_V, "
            f"got {describe(payload)}")
    check_keys(payload, FIELDS)
    _require(payload, ("X",))
    X = matrix(payload["X"], "X", limits.max_tokens, limits.max_model_dim)
    n = X.shape[0]  # query tokens
    heads, kv_heads, W_O = _heads(payload, limits)
    tokens = labels(payload.get("tokens"), "tokens", n, "X", limits.max_label, "t")

    X_kv = payload.get("X_kv")
    if X_kv is not None:
        X_kv = matrix(X_kv, "X_kv", limits.max_tokens, limits.max_model_dim)
        tokens_kv = labels(payload.get("tokens_kv"), "tokens_kv", X_kv.shape[0], "X_kv",
                           limits.max_label, "s")
    elif payload.get("tokens_kv") is not None:
        raise AttentionInputError("tokens_kv labels the rows of X_kv, and there is no X_kv",
                                  "tokens_kv")
    else:
        tokens_kv = None
    m = n if X_kv is None else X_kv.shape[0]  # key/value tokens

    positional = payload.get("positional")
    if positional is not None and positional not in POSITIONAL:
        raise AttentionInputError(
            f"positional must be null, \"sinusoidal\", \"rope\" or \"alibi\", got "
            f"{describe(positional)}", "positional")
    positions = _positions(payload, positional, len(heads), limits)
    causal = payload.get("causal")
    if causal is None:
        causal = False
    elif not isinstance(causal, bool):
        raise AttentionInputError(f"causal must be true or false, got {describe(causal)}",
                                  "causal")
    scale = payload.get("scale")
    if scale is not None:
        scale = number(scale, "scale")
    mask = payload.get("mask")
    if mask is not None:
        mask = bool_matrix(mask, "mask", n, m, limits.max_tokens)
    window = _whole(payload.get("window"), "window", 1, limits.max_position,
                    "query i reads key j only when |i − j| < window")
    sinks = _whole(payload.get("sinks"), "sinks", 0, limits.max_position,
                   "the first keys, readable from every query whatever the window") or 0
    row = payload.get("row")
    if row is not None and (isinstance(row, bool) or not isinstance(row, int)
                            or not 0 <= row < n):
        raise AttentionInputError(
            f"row must be a whole number from 0 to {n - 1} (0-based, queries 1 to {n}), got "
            f"{describe(row)}", "row")
    fields, corners = _fields(payload.get("fields"), len(heads) if W_O is not None else 0)
    return AttentionRequest(tokens=tokens, X=X, heads=heads, kv_heads=kv_heads, W_O=W_O,
                            X_kv=X_kv, tokens_kv=tokens_kv, positional=positional,
                            causal=causal, scale=scale, mask=mask, row=row, fields=fields,
                            encoding=_encoding(payload.get("encoding")), corners=corners,
                            window=window, sinks=sinks, **positions)


def _positions(payload: dict, positional: str | None, heads: int, limits: Limits) -> dict:
    """rope_base, position_offset and alibi_slopes, each refused where it does not apply."""
    goes_with = {"rope_base": ("rope",), "position_offset": ("sinusoidal", "rope"),
                 "alibi_slopes": ("alibi",)}
    for name, kinds in goes_with.items():
        if payload.get(name) is not None and positional not in kinds:
            said = " or ".join(f'"{k}"' for k in kinds)
            has = "no positional" if positional is None else f'"positional": "{positional}"'
            raise AttentionInputError(
                f"{name} goes with \"positional\": {said}; this request has {has}", name)
    out = {"position_offset": _whole(payload.get("position_offset"), "position_offset", 0,
                                     limits.max_position, "the position of the first token")
           or 0}
    if positional == "rope":
        base = payload.get("rope_base")
        out["rope_base"] = ROPE_BASE if base is None else number(base, "rope_base")
        if out["rope_base"] <= 0:
            raise AttentionInputError(
                f"rope_base (θ) must be a positive number, got {describe(base)}", "rope_base")
    if positional == "alibi":
        given = payload.get("alibi_slopes")
        slopes = (alibi_slopes(heads) if given is None
                  else vector(given, "alibi_slopes", limits.max_heads))
        if len(slopes) != heads:
            raise AttentionInputError(
                f"alibi_slopes has {counted(len(slopes), 'slope')} but the request has "
                f"{counted(heads, 'head')}; give one slope per head", "alibi_slopes")
        negative = np.flatnonzero(slopes < 0)
        if negative.size:
            c = int(negative[0])
            raise AttentionInputError(
                f"{NAME} is {slopes[c]:g}; a slope must be 0 or more "
                "(the bias −slope·|i − j| must push far keys down, not up)", "alibi_slopes",
                head=c)
        out["alibi_slopes"] = slopes
    return out


def _whole(value, name: str, low: int, high: int, meaning: str) -> int | None:
    """A whole number from ``low`` to ``high``, or None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise AttentionInputError(
            f"{name} must be a whole number from {low:,} to {high:,} ({meaning}), got "
            f"{describe(value)}", name)
    return value


def _encoding(value) -> str:
    if value is None:
        return "json"
    if value not in ENCODINGS:
        raise AttentionInputError(
            f'encoding must be "json" (arrays as nested lists, the default) or "base64" '
            f"(each array as its float64 bytes), got {describe(value)}", "encoding")
    return value


def _fields(value, heads: int, known=None, listed=RESPONSE_FIELDS, cornered=CORNERED):
    """The response fields asked for, and the corners asked of them.

    A name is a top-level field, "working.<name>" for a part of the working, "heads.<name>"
    (and "heads.working.<name>") for a part of every head, or "heads[k].<name>" for a part
    of head k only (0-based; ``heads`` is how many there are, 0 for a single head sent as
    W_Q, W_K, W_V). A matrix's name may end in "[:r]" (its first r rows) or "[:r,:c]" (its
    top-left r × c corner), fewer where the matrix is smaller.

    Another endpoint's answer passes its own ``known`` names (all it accepts), ``listed``
    (the top-level ones its message lists) and ``cornered`` (its matrices).

    Returns (names without corners, {name: (r, c or None)}), or (None, {}) for every field.
    """
    known = _FIELD_NAMES if known is None else known
    if value is None:
        return None, {}
    if not isinstance(value, list):
        raise AttentionInputError(
            f"fields must be a list of response field names, got {describe(value)}", "fields")
    names, corners = [], {}
    for i, given in enumerate(value):
        said, where = NAME, {"row": i}  # "Entry 1 of fields", as the page names it
        name, corner = _corner(given) if isinstance(given, str) else (given, None)
        one = _ONE_HEAD.fullmatch(name) if isinstance(name, str) else None
        every = isinstance(name, str) and name.startswith("heads.") and name[6:] in _HEAD_FIELDS
        if (one and one[2] in _HEAD_FIELDS) or (every and not heads):
            # "heads.x" on a request without a heads list is refused as "heads[0].x" is.
            k = int(one[1]) if one else 0
            if k >= heads:
                raise AttentionInputError(
                    f"{said} is {describe(given)}, but the request has "
                    + (f"{counted(heads, 'head')}, so k in heads[k] runs from 0 to "
                       f"{heads - 1} (0-based, heads 1 to {heads})" if heads else
                       "no heads list (a single head sent as W_Q, W_K, W_V)"),
                    "fields", **where)
        # isinstance first: a list or object is unhashable.
        elif not isinstance(name, str) or name not in known:
            extra = ", heads.<field> and heads[k].<field>" if known is _FIELD_NAMES else ""
            raise AttentionInputError(
                f"{said} is {describe(given)}, which is not a response field; the "
                f"fields are {', '.join(listed)}, working.<part>{extra}",
                "fields", **where)
        if corner is not None:
            part = name.rsplit(".", 1)[-1]
            if part not in cornered or name.startswith("working.") or ".working." in name:
                raise AttentionInputError(
                    f"{said} is {describe(given)}, but only a matrix may be cut to a "
                    f"corner: {', '.join(cornered)}", "fields", **where)
            if name in corners or name in names:
                raise AttentionInputError(
                    f"{said} is {describe(given)}, but {name} is already asked for: "
                    "name each field once", "fields", **where)
            corners[name] = corner
        elif name in corners:
            raise AttentionInputError(
                f"{said} is {describe(given)}, but {name} is already asked for as a "
                "corner: name each field once", "fields", **where)
        names.append(name)
    return frozenset(names), corners


CORNER = r"\[:([1-9][0-9]{0,4})(?:, ?:([1-9][0-9]{0,4}))?\]"  # "[:16,:16]", "[:4]"; r, c ≥ 1
_CORNER = re.compile(r"(.+)" + CORNER)


def _corner(given: str) -> tuple[str, tuple[int, int | None] | None]:
    """("Q", (16, 16)) for "Q[:16,:16]", ("Q", (4, None)) for "Q[:4]", ("Q", None) for "Q"."""
    m = _CORNER.fullmatch(given)
    if not m:
        return given, None
    return m[1], (int(m[2]), None if m[3] is None else int(m[3]))


_HEAD_FIELDS, _FIELD_NAMES = frozenset(HEAD_FIELDS), frozenset(FIELD_NAMES)
_ONE_HEAD = re.compile(r"heads\[(0|[1-9][0-9]{0,2})\]\.(.+)")  # "heads[2].Q"
