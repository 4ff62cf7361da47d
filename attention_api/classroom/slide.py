"""Slides, for POST /api/slide: ``{"request": …, "row": 2, "what": "heatmap" or "working",
"format": "png" or "svg"}`` (and ``"head"`` with several) becomes a 1920 × 1080 PNG or an SVG,
typeset by typst as the worksheets are: a head's heatmap of A, or one row's working.
POST /api/model/slide (real_models/routes.py) makes the same of a real model's head, through
``typeset_slide``.
"""

from __future__ import annotations

import dataclasses
import math

from attention_core.engine import AttentionResult
from attention_core.errors import AttentionInputError, counted
from attention_core.working import RowWorking

from ..attention.request import DEFAULT_LIMITS, Limits
from ..attention.response import compute
from ..typesetting.typeset import FORMATS, compile_source, literal
from .declaration import (  # noqa: F401 (the slides' bounds, where they always were)
    MAX_HEATMAP,
    MAX_WORKING_KEYS,
    NEEDS_ROW,
    SLIDE_FORMATS,
    WHATS,
    SlideRequest,
    slide_options,
)
from .exercise import body_of
from .slide_typst import PPI, heatmap_slide, short_label, slide_source, working_slide
from .worksheet import Sheet


def _checked(p, limits: Limits) -> tuple:
    """The body's request, row, head, what and format, by its declaration (declaration.py)."""
    body = body_of(SlideRequest, p, limits)
    req = dataclasses.replace(body.request, row=body.row, fields=None)
    return req, body.row, body.head, body.what, body.format


def check_size(what: str, n: int, m: int, row: int | None) -> None:
    """A 422 for a slide that would not hold the view legibly, or a working without a row."""
    if what in NEEDS_ROW and row is None:
        raise AttentionInputError("row is missing: the query whose working to show, 0-based",
                                  "row")
    if what == "heatmap" and max(n, m) > MAX_HEATMAP:
        raise AttentionInputError(
            f"a heatmap slide holds at most {MAX_HEATMAP} × {MAX_HEATMAP} weights; this view "
            f"has {n} × {m}", "request")
    if what == "working" and m > MAX_WORKING_KEYS:
        raise AttentionInputError(
            f"a working slide holds at most {MAX_WORKING_KEYS} keys; this view has {m}",
            "request")


def _about(req, head: int) -> str:
    """The view in a line: its tokens and what it adds to the textbook's attention."""
    parts = [counted(len(req.tokens), "token")]
    if req.tokens_kv is not None:
        parts.append(f"{counted(len(req.tokens_kv), 'key')} (cross-attention)")
    if req.causal:
        parts.append("causal mask")
    if req.mask is not None:
        parts.append("a mask")
    if req.scale is not None:
        parts.append(f"scale {req.scale:g}")
    if req.positional is not None:
        parts.append(f"{req.positional} positions")
    if req.window is not None:
        sinks = f", {counted(req.sinks, 'sink')}" if req.sinks else ""
        parts.append(f"window {req.window}{sinks}")
    if len(req.heads) > 1:
        parts.append(f"head {head + 1} of {len(req.heads)}")
    return " · ".join(parts)


def _default_scale(result: AttentionResult) -> bool:
    return math.isclose(result.scale, 1 / math.sqrt(result.d_k), rel_tol=1e-15)


def _scores(result: AttentionResult, alibi: bool) -> str:
    """What the softmax takes, in typst maths, as this view makes it: Q Kᵀ / √d_k, or times
    the scale given, plus ALiBi's bias B."""
    made = "Q K^T \\/ sqrt(d_k)" if _default_scale(result) else f"Q K^T times {result.scale:g}"
    return made + (" + B" if alibi else "")


def _scaled(result: AttentionResult, row: int, alibi: bool) -> str:
    """How s_j is made, in typst maths: q·kⱼ / √d_k, or × the scale given, and ALiBi's
    bias."""
    i = row + 1
    made = f"q_{i} dot k_j \\/ sqrt({result.d_k})" if _default_scale(result) \
        else f"q_{i} dot k_j times {result.scale:g}"
    return made + (f" - m abs({i} - j)" if alibi else "")


def typeset_slide(what: str, fmt: str, result: AttentionResult, w: RowWorking | None,
                  queries: list[str], keys: list[str], about: str, name: str,
                  alibi: bool = False) -> Sheet:
    """The slide of ``result`` (a heatmap, its row ``w.row`` outlined) or of the working
    ``w``, as ``fmt``; ``about`` describes the view, ``name`` is the file's, without its
    suffix."""
    row = None if w is None else w.row
    words = " ".join(queries)
    words = words if len(words) <= 70 else words[:69].rstrip() + "…"  # one line
    subtitle = f"“{words}” · {about}"
    if what == "heatmap":
        title = f"Attention weights $A = \"softmax\"({_scores(result, alibi)})$"
        body = heatmap_slide(result, queries, keys, row, title, subtitle)
        foot = "Row $i$: how much query $i$ reads each key $j$. A masked cell's weight is 0."
    else:
        title = (f"Query {row + 1} · #{literal(f'“{short_label(queries[row])}”')}: from the scores "
                 f"to $z_{row + 1}$")
        body = working_slide(w, keys, title, subtitle, _scaled(result, row, alibi))
        foot = (f"The weights $a_j$ add up to 1, and $z_{row + 1}$ is their mix of the "
                f"values $v_j$." if w.allowed.any()
                else "This query may read no key: every weight is 0.")
    source = slide_source(body, f"Attention Explorer · {what}", foot)
    data = source.encode() if fmt == "typ" else compile_source(source, fmt, ppi=PPI)
    return Sheet(data, FORMATS[fmt], f"{name}.{fmt}")


def slide(p, limits: Limits = DEFAULT_LIMITS) -> Sheet:
    """The body ``p`` typeset: a heatmap or working slide as PNG, SVG or typst source; its
    request within ``limits`` (the app's)."""
    req, row, head, what, fmt = _checked(p, limits)
    keys = req.tokens_kv or req.tokens
    check_size(what, len(req.tokens), len(keys), row)
    computed = compute(req)
    name = f"slide-{what}{'' if row is None else f'-row{row + 1}'}" + \
        (f"-head{head + 1}" if len(req.heads) > 1 else "")
    return typeset_slide(what, fmt, computed.results[head], computed.rows[head], req.tokens,
                         keys, _about(req, head), name, alibi=req.positional == "alibi")
