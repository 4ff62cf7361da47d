"""The response format of the HTTP API and of ``--format json``.

``response_body`` assembles the answer with numpy arrays left as they are; a
non-finite entry in it (−∞ for a masked score, +∞ for an exponential beyond
float64) means JSON ``null``, since JSON has no infinities. Serialisers must keep
that rule: the HTTP layer's orjson does it natively, and ``plain`` does it for the
standard library's json. NaN never occurs: the engine refuses inputs that would make it.

With ``"encoding": "base64"`` every array is sent as its bytes instead (``encode_arrays``):
exact, −∞ included, half the size of printed digits and read by a client without parsing
a single number. The page asks for it; a 256 × 256 weight matrix is 0.7 MB instead of 1.4.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

from attention_core.engine import AttentionResult, attention
from attention_core.multihead import MultiHeadResult, multi_head_attention
from attention_core.positions import sinusoidal
from attention_core.working import RowWorking, working

from .answer_fields import HEAD, NAMED, STRONGEST, WHOLE_SENT, WORKING
from .request import AttentionRequest


@dataclass(frozen=True)
class Computed:
    """What a request computes: one result per head and, with W_O, their combination."""

    results: tuple[AttentionResult, ...]
    multi: MultiHeadResult | None  # None for a single head sent as W_Q, W_K, W_V
    rows: tuple[RowWorking | None, ...]  # the asked row's working in each head
    positional_encoding: np.ndarray | None  # (n, d_model) added to X
    positional_encoding_kv: np.ndarray | None  # (m, d_model) added to X_kv


def positioned(request: AttentionRequest):
    """(X, X_kv, pe, pe_kv): the tokens the heads read, with the sinusoidal encodings added
    when the request asks for them (pe (n, d_model) and pe_kv (m, d_model), else None)."""
    X, X_kv = request.X, request.X_kv
    pe = pe_kv = None
    if request.positional == "sinusoidal":
        pe = sinusoidal(*X.shape, request.position_offset)
        X = X + pe
        if X_kv is not None:
            pe_kv = sinusoidal(*X_kv.shape, request.position_offset)
            X_kv = X_kv + pe_kv
    return X, X_kv, pe, pe_kv


def engine_options(request: AttentionRequest, X_kv) -> dict:
    """The keyword arguments every head of the request shares (ALiBi's slope aside)."""
    return dict(causal=request.causal, scale=request.scale, mask=request.mask, X_kv=X_kv,
                rope_base=request.rope_base, position_offset=request.position_offset,
                window=request.window, sinks=request.sinks)


def compute(request: AttentionRequest) -> Computed:
    """Run the engine on a validated request (sinusoidal positions first, then every head)."""
    X, X_kv, pe, pe_kv = positioned(request)
    options = engine_options(request, X_kv)
    slopes = request.alibi_slopes
    if request.multi_head:
        multi = multi_head_attention(X, request.heads, request.W_O, kv_heads=request.kv_heads,
                                     alibi_slopes=slopes, **options)
        results = multi.heads
    else:
        multi = None
        head = request.heads[0]
        results = (attention(X, head["W_Q"], head["W_K"], head["W_V"], b_Q=head.get("b_Q"),
                             b_K=head.get("b_K"), b_V=head.get("b_V"),
                             alibi_slope=None if slopes is None else float(slopes[0]),
                             **options),)
    rows = tuple(working(r, request.row) if request.row is not None else None
                 for r in results)
    return Computed(results=results, multi=multi, rows=rows, positional_encoding=pe,
                    positional_encoding_kv=pe_kv)


def working_body(w: RowWorking, tokens: list[str]) -> dict:
    """The hand calculation of one row (see RowWorking for each field), its parts in the
    order of answer_fields.WORKING, a variant's steps only when it is on (not None)."""
    body = {}
    for part in WORKING:
        value = tokens[w.row] if part.name == "token" else getattr(w, part.name)
        if value is not None or not part.when:
            body[part.name] = value
    return body


# A head's fields as head_body writes them: those response.select derives aside.
_HEAD_SENT = tuple(f for f in HEAD if f not in NAMED)


def head_body(result: AttentionResult, row: RowWorking | None, keys: list[str],
              kv_head: int | None = None) -> dict:
    """One head's matrices (and working), as in a single-head answer, in the order of
    answer_fields.HEAD; ``kv_head`` is the key/value head it reads, when they are shared.
    A variant's fields come only when it is on (not None)."""
    own = {"kv_head": kv_head, "warnings": list(result.warnings),
           "working": None if row is None else working_body(row, keys)}
    body = {}
    for field in _HEAD_SENT:
        value = own[field.name] if field.name in own else getattr(result, field.name)
        if value is not None or not field.when:
            body[field.name] = value
    return body


def response_body(request: AttentionRequest, computed: Computed) -> dict:
    """The body of a successful ``POST /api/attention``, arrays unconverted.

    One head: its matrices at the top level. Several: ``heads`` (one such body each),
    ``concat`` and ``output``.
    """
    whole = {"tokens": request.tokens, "causal": request.causal, "tokens_kv": request.tokens_kv,
             "positional_encoding": computed.positional_encoding,
             "positional_encoding_kv": computed.positional_encoding_kv}
    body = {f.name: whole[f.name] for f in WHOLE_SENT
            if whole[f.name] is not None or not f.when}
    shared = computed.multi is not None and request.kv_heads is not None
    heads = [head_body(r, w, request.tokens, computed.multi.kv_heads[h] if shared else None)
             for h, (r, w) in enumerate(zip(computed.results, computed.rows, strict=True))]
    if computed.multi is None:
        body.update(heads[0])
    else:
        body.update(heads=heads, concat=computed.multi.concat, output=computed.multi.output,
                    warnings=list(computed.multi.warnings))
    if request.fields is not None:
        body = select(body, request.fields, request.corners)
    return encode_arrays(body) if request.encoding == "base64" else body


def weights_u8(weights: np.ndarray) -> np.ndarray:
    """round(255 · a) as one byte per weight: a heatmap's colours at an eighth of the bytes.

    Sent only when a request's fields name it. The page draws the heads it does not show
    in detail from it (a 512-token head is 0.26 MB instead of 2 MB).

    >>> weights_u8(np.array([[0.0, 0.5, 0.998, 1.0]]))
    array([[  0, 128, 254, 255]], dtype=uint8)
    """
    return np.rint(weights * 255).astype(np.uint8)


def encode_arrays(obj):
    """``obj`` with every numpy array as ``{"dtype", "shape", "base64"}``.

    dtype is "float64" (IEEE 754 little-endian, so a masked score is −∞ itself), "bool"
    (one byte each, 0 or 1) or "uint8" (``weights_u8``); the bytes are the array in
    row-major (C) order.

    >>> encode_arrays({"w": np.array([[0.5, -np.inf]]), "ok": np.array([True, False]), "n": 2})
    {'w': {'dtype': 'float64', 'shape': [1, 2], 'base64': 'AAAAAAAA4D8AAAAAAADw/w=='}, \
'ok': {'dtype': 'bool', 'shape': [2], 'base64': 'AQA='}, 'n': 2}
    """
    if isinstance(obj, np.ndarray):
        dtype = {np.dtype(bool): "bool", np.dtype(np.uint8): "uint8"}.get(obj.dtype, "float64")
        raw = np.ascontiguousarray(obj, dtype="<f8" if dtype == "float64" else np.uint8)
        return {"dtype": dtype, "shape": list(obj.shape),
                "base64": base64.b64encode(raw.tobytes()).decode("ascii")}
    if isinstance(obj, dict):
        return {k: encode_arrays(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [encode_arrays(v) for v in obj]
    return obj


def select(body: dict, fields: frozenset[str], corners: dict | None = None) -> dict:
    """Keep the fields named; "working.q" keeps that part of the working (and its row),
    "heads.weights" that field of every head, "heads[2].Q" that field of head 2 only.
    ``corners`` maps a name to the (rows, cols or None) of the top-left corner to keep;
    a head's own corner ("heads[2].Q") wins over every head's ("heads.Q").

    A client that draws 256 tokens does not need every n × m matrix of the answer:
    choosing fields cuts the bytes sent, not the work done.
    """
    corners = corners or {}
    out = {k: v for k, v in body.items() if k in fields}
    if "weights" in body and "weights_u8" in fields:
        out["weights_u8"] = weights_u8(body["weights"])
    if "weights" in body and "strongest_keys" in fields:
        out["strongest_keys"] = strongest_keys(body["weights"], body["mask"])
    for name, (rows, cols) in corners.items():
        if isinstance(out.get(name), np.ndarray):  # a copy: orjson writes only C order
            out[name] = np.ascontiguousarray(out[name][:rows, :cols])
    parts = {f.split(".", 1)[1] for f in fields if f.startswith("working.")}
    if "working" in body and parts and "working" not in fields:
        out["working"] = {k: v for k, v in body["working"].items() if k in parts or k == "row"}

    def under(prefix: str, names) -> tuple[frozenset[str], dict]:
        """The names (and corners) that start with ``prefix``, without it."""
        return (frozenset(f[len(prefix):] for f in names if f.startswith(prefix)),
                {f[len(prefix):]: c for f, c in corners.items() if f.startswith(prefix)})

    each, each_corners = under("heads.", fields)
    own = [under(f"heads[{k}].", fields) for k in range(len(body.get("heads", ())))]
    if "heads" in body and (each or any(mine for mine, _ in own)) and "heads" not in fields:
        out["heads"] = [select(head, each | mine, {**each_corners, **mine_corners})
                        for head, (mine, mine_corners) in zip(body["heads"], own, strict=True)]
    return out


def strongest_keys(weights: np.ndarray, mask: np.ndarray) -> list[list[list]]:
    """Each query's STRONGEST permitted keys, largest weight first, as [key j, weight].

    ``weights`` and ``mask`` are (n, m), queries down, keys across. Equal weights keep
    key order (the lower j first); a query that may read no key has an empty list. Sent
    only when named in fields: what a screen reader says of a heatmap row too long to read
    out, for 8 bytes per query instead of 8 per weight.

    >>> strongest_keys(np.array([[0.2, 0.5, 0.3, 0.0], [0.5, 0.5, 0.0, 0.0]]),
    ...                np.array([[True, True, True, False], [True, True, False, False]]))
    [[[1, 0.5], [2, 0.3], [0, 0.2]], [[0, 0.5], [1, 0.5]]]
    """
    n, m = weights.shape
    k = min(STRONGEST, m)
    ranked = np.where(mask, weights, -1.0)  # a masked key below every weight (all ≥ 0)
    top = np.argpartition(ranked, m - k, axis=1)[:, m - k:]  # (n, k): the k largest
    kth = np.take_along_axis(ranked, top, 1).min(axis=1, keepdims=True)
    tied = ((ranked >= kth) & mask).sum(axis=1) > k  # more keys share the k-th weight
    values = np.take_along_axis(weights, top, 1)
    order = np.lexsort((top, -values), axis=1)  # weight ↓, then j ↑
    top, values = np.take_along_axis(top, order, 1), np.take_along_axis(values, order, 1)
    allowed = np.take_along_axis(mask, top, 1)
    out = [[[j, a] for j, a, ok in zip(js, vs, oks, strict=True) if ok]
           for js, vs, oks in zip(top.tolist(), values.tolist(), allowed.tolist(), strict=True)]
    for i in np.flatnonzero(tied):  # argpartition picks among equal weights at will:
        js = np.flatnonzero((ranked[i] >= kth[i]) & mask[i])  # the lowest keys win
        js = js[np.argsort(-weights[i, js], kind="stable")[:k]]
        out[i] = [[int(j), float(weights[i, j])] for j in js]
    return out


def plain(obj):
    """``obj`` with arrays as nested lists and every non-finite number as None.

    >>> plain({"s": np.array([1.5, -np.inf]), "n": float("inf"), "ok": np.array([True])})
    {'s': [1.5, None], 'n': None, 'ok': [True]}
    """
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind != "f" or np.isfinite(obj).all():
            return obj.tolist()
        return np.where(np.isfinite(obj), obj, None).tolist()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj
