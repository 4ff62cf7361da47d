"""The response format of the HTTP API and of ``--format json``: plain, strict-JSON-safe data.

JSON has no infinity, so a masked entry of ``scaled_scores`` (−∞) is ``null``,
as is an exponential that overflows float64. Nothing here ever yields NaN.
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


def _finite_or_null(a: np.ndarray) -> list:
    """``a.tolist()`` with every non-finite entry (−∞ for a masked score) as None."""
    out = a.tolist()
    bad = np.argwhere(~np.isfinite(a))
    if a.ndim == 1:
        for (j,) in bad:
            out[j] = None
    else:
        for i, j in bad:
            out[i][j] = None
    return out


def working_json(w: RowWorking, tokens: list[str]) -> dict:
    """The hand calculation of one row as JSON-ready data (see RowWorking)."""
    return {
        "row": w.row,
        "token": tokens[w.row],
        "q": w.q.tolist(),
        "k": w.k.tolist(),
        "v": w.v.tolist(),
        "products": w.products.tolist(),
        "dots": w.dots.tolist(),
        "scale": w.scale,
        "scaled": _finite_or_null(w.scaled),
        "allowed": w.allowed.tolist(),
        "exp": _finite_or_null(w.exp),
        "exp_sum": w.exp_sum if np.isfinite(w.exp_sum) else None,
        "exp_overflow": w.exp_overflow,
        "shift": w.shift,
        "exp_shifted": w.exp_shifted.tolist(),
        "exp_shifted_sum": w.exp_shifted_sum,
        "weights": w.weights.tolist(),
        "terms": w.terms.tolist(),
        "z": w.z.tolist(),
    }


def response_json(request: AttentionRequest, result: AttentionResult,
                  row: RowWorking | None) -> dict:
    """The body of a successful ``POST /api/attention``."""
    body = {
        "tokens": request.tokens,
        "d_k": result.d_k,
        "scale": result.scale,
        "causal": request.causal,
        "Q": result.Q.tolist(),
        "K": result.K.tolist(),
        "V": result.V.tolist(),
        "scores": result.scores.tolist(),
        "scaled_scores": _finite_or_null(result.scaled_scores),
        "mask": result.mask.tolist(),
        "weights": result.weights.tolist(),
        "output": result.output.tolist(),
        "warnings": list(result.warnings),
    }
    if row is not None:
        body["working"] = working_json(row, request.tokens)
    return body
