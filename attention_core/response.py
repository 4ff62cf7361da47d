"""The response format of the HTTP API and of ``--format json``.

``response_body`` assembles the answer with numpy arrays left as they are; a
non-finite entry in it (−∞ for a masked score, +∞ for an exponential beyond
float64) means JSON ``null``, since JSON has no infinities. Serialisers must keep
that rule: the HTTP layer's orjson does it natively, and ``plain`` does it for the
standard library's json. NaN never occurs: the engine refuses inputs that would make it.
"""

from __future__ import annotations

import numpy as np

from .engine import AttentionResult, attention
from .request import AttentionRequest
from .working import RowWorking, working


def compute(request: AttentionRequest) -> tuple[AttentionResult, RowWorking | None]:
    """Run the engine on a validated request; the working only when a row is asked for."""
    result = attention(request.X, request.W_Q, request.W_K, request.W_V,
                       causal=request.causal, scale=request.scale, mask=request.mask)
    row = working(result, request.row) if request.row is not None else None
    return result, row


def working_body(w: RowWorking, tokens: list[str]) -> dict:
    """The hand calculation of one row (see RowWorking for each field)."""
    return {
        "row": w.row, "token": tokens[w.row], "q": w.q, "k": w.k, "v": w.v,
        "products": w.products, "dots": w.dots, "scale": w.scale, "scaled": w.scaled,
        "allowed": w.allowed, "exp": w.exp,
        "exp_sum": w.exp_sum, "exp_overflow": w.exp_overflow, "shift": w.shift,
        "exp_shifted": w.exp_shifted, "exp_shifted_sum": w.exp_shifted_sum,
        "weights": w.weights, "terms": w.terms, "z": w.z,
    }


def response_body(request: AttentionRequest, result: AttentionResult,
                  row: RowWorking | None) -> dict:
    """The body of a successful ``POST /api/attention``, arrays unconverted."""
    body = {
        "tokens": request.tokens, "d_k": result.d_k, "scale": result.scale,
        "causal": request.causal, "Q": result.Q, "K": result.K, "V": result.V,
        "scores": result.scores, "scaled_scores": result.scaled_scores, "mask": result.mask,
        "weights": result.weights, "output": result.output, "warnings": list(result.warnings),
    }
    if row is not None:
        body["working"] = working_body(row, request.tokens)
    return body if request.fields is None else select(body, request.fields)


def select(body: dict, fields: frozenset[str]) -> dict:
    """Keep the fields named; "working.q" keeps that part of the working (and its row).

    A client that draws 256 tokens does not need every n × n matrix of the answer:
    choosing fields cuts the bytes sent, not the work done.
    """
    out = {k: v for k, v in body.items() if k in fields}
    parts = {f.split(".", 1)[1] for f in fields if f.startswith("working.")}
    if "working" in body and parts and "working" not in fields:
        out["working"] = {k: v for k, v in body["working"].items() if k in parts or k == "row"}
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
