"""The request format shared by the HTTP API and the CLI, validated into numpy arrays.

A request is one head (``W_Q``, ``W_K``, ``W_V``) or several (``heads`` and
``W_O``), self-attention or cross-attention (``X_kv``), with optional positions,
masks and the row whose working to write out. Sizes are checked before any
array is built, so a huge request costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attention_core.positions import ROPE_BASE, alibi_slopes

from .declaration import (  # noqa: F401 (the request's names, where they always were)
    BIASES,
    ENCODINGS,
    FIELDS,
    KV_HEAD,
    POSITIONAL,
    PROJECTIONS,
    QUERY_HEAD,
    SETTINGS,
    Variant,
    declaration,
)
from .declaration import encoding as _encoding  # noqa: F401
from .fields import (  # noqa: F401
    CORNER,
    CORNERED,
    FIELD_NAMES,
    HEAD_FIELDS,
    RESPONSE_FIELDS,
    WORKING_FIELDS,
    WORKING_PARTS,
)
from .fields import fields_asked as _fields  # noqa: F401
from .limits import Limits


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


DEFAULT_LIMITS = Limits()


def parse_request(payload, limits: Limits = DEFAULT_LIMITS) -> AttentionRequest:
    """Validate a decoded request (see ``values.parse_json``) and build float64 arrays,
    by its declaration (declaration.py).

    Raises AttentionInputError naming the first offending field.
    """
    return request_of(declaration(limits).validate(payload))


def parse_body(payload, limits: Limits, variant: Variant):
    """A body that is a request with fields of its own (``variant``'s), validated: the
    body's model, and its request as parse_request builds it."""
    body = declaration(limits, variant).validate(payload)
    return body, request_of(body)


def request_of(r) -> AttentionRequest:
    """The AttentionRequest of a validated form (declaration.py's models)."""
    n = r.X.shape[0]  # query tokens
    if "heads" not in type(r).model_fields:  # one head, sent as W_Q, W_K, W_V
        heads = ({p: getattr(r, p) for p in (*PROJECTIONS, *BIASES)
                  if getattr(r, p) is not None},)
        kv_heads, W_O = None, None
    else:
        heads, kv_heads, W_O = r.heads, r.kv_heads, r.W_O
    positions = {"position_offset": r.position_offset or 0}
    if r.positional == "rope":
        positions["rope_base"] = ROPE_BASE if r.rope_base is None else float(r.rope_base)
    if r.positional == "alibi":
        positions["alibi_slopes"] = (alibi_slopes(len(heads)) if r.alibi_slopes is None
                                     else r.alibi_slopes)
    # An absent field keeps its default, None; a variant may not have fields or encoding.
    fields, corners = getattr(r, "fields", None) or (None, {})
    return AttentionRequest(
        tokens=r.tokens or [f"t{i + 1}" for i in range(n)], X=r.X, heads=heads,
        kv_heads=kv_heads, W_O=W_O, X_kv=r.X_kv,
        tokens_kv=None if r.X_kv is None else r.tokens_kv or [
            f"s{i + 1}" for i in range(r.X_kv.shape[0])],
        positional=r.positional, causal=bool(r.causal), scale=r.scale, mask=r.mask, row=r.row,
        fields=fields, encoding=getattr(r, "encoding", None) or "json", corners=corners,
        window=r.window, sinks=r.sinks or 0, **positions)
