"""POST /api/cost: what the current view costs by formula, and "Measure on this server":
the engine and the tiled computation timed at n = 64 … 512 (attention_core/cost.py).

A measurement takes up to 2 s of a core, so one server makes one at a time: every worker
process takes the same lock file (fcntl.flock, released when the measurement ends or its
process dies), and a request that finds it taken is refused at once (503, Retry-After).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from contextlib import contextmanager

from attention_core.cost import matrix_bytes, measure, slope, step_costs

from ..attention.request import Limits
from ..declared import validate
from .declaration import cost_request

BUDGET = 2.0  # seconds a measurement may take
BLOCK = 64  # B_r = B_c of the tiled computation measured
LOCK_FILE = os.path.join(tempfile.gettempdir(), "attention-explorer-cost.lock")


class Measuring(Exception):
    """Another measurement runs on this server."""


@contextmanager
def one_at_a_time(path: str):
    """Hold the server's measurement lock, or raise Measuring at once when it is held."""
    with open(path, "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Measuring from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _slope(sizes, seconds) -> float | None:
    """The fitted slope, or None when the budget left fewer than two sizes to fit."""
    return slope(sizes, seconds) if len(sizes) >= 2 else None


def cost_body(p, limits: Limits) -> dict:
    """The answer to ``{"n", "m", "d_model", "d_k", "d_v", "measure"}``: the view's costs by
    formula and, with ``"measure": true``, the times at n = 64 … 512."""
    r = validate(cost_request(limits), p)  # declaration.py
    n, m, d_model, d_k, d_v = r.n, r.m, r.d_model, r.d_k, r.d_v
    body = {"steps": step_costs(n, m, d_model, d_k, d_v),
            "matrices": matrix_bytes(n, m, d_k, d_v)}
    if r.measure:
        with one_at_a_time(LOCK_FILE):
            r = measure(d_model, d_k, d_v, block=BLOCK, budget=BUDGET)
        body["measured"] = {
            "sizes": list(r.sizes), "complete": r.complete, "block": r.block,
            "standard": {"seconds": list(r.standard), "slope": _slope(r.sizes, r.standard),
                         "score_bytes": r.standard_bytes},
            "tiled": {"seconds": list(r.tiled), "slope": _slope(r.sizes, r.tiled),
                      "score_bytes": r.tiled_bytes}}
    return body
