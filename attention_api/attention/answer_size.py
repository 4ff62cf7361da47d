"""How many numbers an answer of ``POST /api/attention`` holds, counted from the request's
shapes before anything is computed, so that a request whose answer is too large is refused
at no cost (``Limits.max_answer_cells``, ATTENTION_MAX_ANSWER_CELLS).

A cell is one number of the answer as JSON writes it: an entry of an array (a boolean of
``mask`` counts as one, a masked score's ``null`` too) or a single number (``d_k``,
``scale``, ``causal`` …). Labels and warnings are text and count nothing; they are bounded
by the request's own limits. With ``"encoding": "base64"`` the cells are the same, only
written as bytes. The count takes each field's shape from answer_fields (the table
response.py's answer follows) and ``response.select``'s rules;
tests/api/attention/test_answer_size.py checks it against real answers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import prod

import numpy as np

from attention_core.errors import AttentionInputError
from attention_core.masks import allowed

from .answer_fields import HEAD, NAMED, SEVERAL, STRONGEST, WHOLE_SENT, WORKING
from .request import AttentionRequest

NUMBER, BOOL, BYTE = "number", "bool", "byte"  # float64 (or a small int), bool, uint8
# Bytes per cell, roughly: as JSON (orjson prints a float64 in up to ~20 characters and a
# comma; "true," or "false,"; "128,"), and as base64 (4 characters per 3 bytes).
JSON_BYTES = {NUMBER: 20, BOOL: 5.5, BYTE: 4}
BASE64_BYTES = {NUMBER: 8 * 4 / 3, BOOL: 4 / 3, BYTE: 4 / 3}


@dataclass(frozen=True)
class Part:
    """One array or number of the answer: its shape (() for a single number) and kind."""

    shape: tuple[int, ...]
    kind: str = NUMBER

    def corner(self, rows: int, cols: int | None) -> Part:
        """The top-left corner a field name's "[:rows,:cols]" keeps (fewer where smaller)."""
        r, c = self.shape
        return Part((min(r, rows), c if cols is None else min(c, cols)), self.kind)


TEXT = None  # a label or warnings (no cells)


# Cells of each kind of answer_fields.Field; a text has none.
CELLS = {"number": NUMBER, "int": NUMBER, "bool": BOOL, "uint8": BYTE}


def parts(fields, sizes: dict, on: dict) -> dict:
    """The shapes of ``fields`` (answer_fields.Field) whose variants are ``on`` (see
    ``variants``), for ``sizes`` of the shapes' symbols; the working nested."""
    body = {}
    for f in fields:
        if not all(on.get(v) for v in f.when):
            continue
        if f.kind == "working":
            body[f.name] = parts(WORKING, sizes, on)
        elif f.kind in CELLS:
            body[f.name] = Part(tuple(sizes[s] for s in f.shape), CELLS[f.kind])
        else:
            body[f.name] = TEXT
    return body


def variants(request: AttentionRequest, h: int) -> dict:
    """Which of the variants (answer_fields.Field.when) head h's answer shows: its parts
    of a variant are sent only then."""
    head = request.heads[h]
    kv = request.kv_heads[h * len(request.kv_heads) // len(request.heads)] \
        if request.kv_heads else head
    return {"b_Q": "b_Q" in head, "b_K": "b_K" in kv, "b_V": "b_V" in kv,
            "rope": request.positional == "rope", "alibi": request.positional == "alibi",
            "sinusoidal": request.positional == "sinusoidal", "X_kv": request.X_kv is not None,
            "kv_heads": request.kv_heads is not None, "window": request.window is not None,
            "sinks": request.window is not None and request.sinks > 0,
            "row": request.row is not None}


# Those response.select derives aside, when named, are not in the body it selects from.
_HEAD_SENT = tuple(f for f in HEAD if f not in NAMED)


def body_parts(request: AttentionRequest) -> dict:
    """The shapes of ``response.response_body`` before ``fields`` selects from it."""
    n, d_model = request.X.shape  # (n queries, d_model)
    m = n if request.X_kv is None else request.X_kv.shape[0]  # keys
    # W_Q is (d_model, d_k) and W_V (d_model, d_v); the engine refuses other shapes.
    heads = [parts(_HEAD_SENT, {"n": n, "m": m, "d_k": W_Q.shape[1], "d_v": W_V.shape[1],
                                "pairs": W_Q.shape[1] // 2}, variants(request, h))
             for h, (W_Q, _, W_V) in enumerate(request.projections)]
    body = parts(WHOLE_SENT, {"n": n, "m": m, "d_model": d_model}, variants(request, 0))
    if request.W_O is None:
        body.update(heads[0])
    else:
        concat = sum(W_V.shape[1] for _, _, W_V in request.projections)
        body.update(heads=heads)
        beside = (f for f in SEVERAL if f.kind != "heads")
        body.update(parts(beside, {"n": n, "concat": concat, "d_out": request.W_O.shape[1]},
                          {}))
    return body


def strongest_part(request: AttentionRequest) -> Part:
    """``strongest_keys``'s [j, weight] pairs: up to STRONGEST per query, of those it may
    read (the causal mask, ``mask``, the window and its sinks, as the engine combines them)."""
    n = request.X.shape[0]
    m = n if request.X_kv is None else request.X_kv.shape[0]
    readable = allowed(n, m, causal=request.causal, mask=request.mask, window=request.window,
                       sinks=request.sinks)
    pairs = int(np.minimum(readable.sum(axis=1), STRONGEST).sum())
    return Part((pairs, 2))


def select_parts(body: dict, fields: frozenset[str], corners: dict, strongest: Part) -> dict:
    """``response.select`` on shapes: the parts the answer keeps, corners cut."""
    out = {k: v for k, v in body.items() if k in fields}
    if "weights" in body and "weights_u8" in fields:
        out["weights_u8"] = Part(body["weights"].shape, BYTE)
    if "weights" in body and "strongest_keys" in fields:
        out["strongest_keys"] = strongest
    for name, (rows, cols) in corners.items():
        if isinstance(out.get(name), Part) and len(out[name].shape) == 2:
            out[name] = out[name].corner(rows, cols)
    parts = {f.split(".", 1)[1] for f in fields if f.startswith("working.")}
    if "working" in body and parts and "working" not in fields:
        out["working"] = {k: v for k, v in body["working"].items() if k in parts or k == "row"}

    def under(prefix: str) -> tuple[frozenset[str], dict]:
        return (frozenset(f[len(prefix):] for f in fields if f.startswith(prefix)),
                {f[len(prefix):]: c for f, c in corners.items() if f.startswith(prefix)})

    each, each_corners = under("heads.")
    own = [under(f"heads[{k}].") for k in range(len(body.get("heads", ())))]
    if "heads" in body and (each or any(mine for mine, _ in own)) and "heads" not in fields:
        out["heads"] = [select_parts(head, each | mine, {**each_corners, **mine_corners},
                                     strongest)
                        for head, (mine, mine_corners) in zip(body["heads"], own, strict=True)]
    return out


def answer_parts(request: AttentionRequest) -> dict:
    """The answer's arrays and numbers as Parts, nested as the answer nests them."""
    body = body_parts(request)
    if request.fields is None:
        return body
    return select_parts(body, request.fields, request.corners, strongest_part(request))


def leaves(parts, path: str = ""):
    """(name, Part) for every array and number, a head's as "heads.<name>" (each head apart)."""
    if isinstance(parts, Part):
        yield path, parts
    elif isinstance(parts, dict):
        for key, value in parts.items():
            yield from leaves(value, f"{path}.{key}" if path else key)
    elif isinstance(parts, list):
        for head in parts:
            yield from leaves(head, path)


def tally(request: AttentionRequest) -> Counter:
    """The answer's cells by (name, kind), a name as fields spells it for every head at
    once: ("heads.scores", NUMBER) counts the scores of all heads."""
    counts = Counter()
    for name, part in leaves(answer_parts(request)):
        counts[name, part.kind] += prod(part.shape)
    return counts


def answer_cells(request: AttentionRequest) -> int:
    """How many numbers the answer to ``request`` holds (see the module's docstring)."""
    return sum(tally(request).values())


def _about(size: float) -> str:
    """A byte count as people say it: "about 610 MB", "about 48 kB"."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"about {size / scale:.3g} {unit}"
    return f"about {size:.0f} bytes"


def check_answer_size(request: AttentionRequest, limit: int) -> int:
    """The numbers the answer to ``request`` holds; or raise a 422's AttentionInputError
    (field "fields") when they are more than ``limit``: how many, roughly how many bytes,
    its largest parts, and how ``fields`` and corners make it smaller."""
    counts = tally(request)
    cells = sum(counts.values())
    if cells <= limit:
        return cells
    kinds, by_name = Counter(), Counter()
    for (name, kind), size in counts.items():
        kinds[kind] += size
        by_name[name] += size
    as_json = sum(JSON_BYTES[k] * c for k, c in kinds.items())
    as_base64 = sum(BASE64_BYTES[k] * c for k, c in kinds.items())
    largest = ", ".join(f"{name} ({size:,})" for name, size in by_name.most_common(3))
    example = "heads.K[:16,:16]" if request.W_O is not None else "K[:16,:16]"
    raise AttentionInputError(
        f"This answer would hold {cells:,} numbers ({_about(as_json)} as JSON, "
        f"{_about(as_base64)} with \"encoding\": \"base64\"), more than this server's limit "
        f"of {limit:,} numbers in one answer. Its largest parts: {largest}. Name only the "
        f"parts you need in fields, and cut a matrix to its top-left corner (\"{example}\"); "
        "\"encoding\": \"base64\" makes the bytes fewer, not the numbers.", "fields")
