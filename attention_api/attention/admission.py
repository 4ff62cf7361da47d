"""How many requests of each heavy kind one server process serves at once; the rest are
answered 503 with Retry-After, so that no mix of valid requests can exhaust memory or
every thread: large attention answers, documents typeset (worksheets and slides), and the
tiles' traces and costs. The real models' forward passes have turns of their own, with a
queue (model_runs.Turns).

A request is large when computing and writing its answer holds, by ``work_bytes``, more
than LARGE_BYTES. The answer-size limit bounds what one answer holds, not how many are
computed together: sixteen of the largest accepted requests at once (every thread of two
8-thread workers) took the two workers to 3.18 GB, where six took 1.5 GB. Waiting for a
turn would hold a thread each, so /health could starve behind them: refusing at once
keeps the other threads for everything else.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

from flask import current_app

import settings
from attention_core.errors import counted

from ..web.errors import retry_later
from .answer_size import answer_cells
from .request import AttentionRequest


@dataclass(frozen=True)
class Bound:
    """A kind of request: how many a process serves at once by default (its setting is
    ATTENTION_ and its name), what the 503 says a busy process is doing, Retry-After, and
    whether the page sends such a request again on its own after it."""

    default: int
    doing: str  # "{n}" is the bound, counted
    thing: str
    retry: int  # seconds
    page_retries: bool  # lib/api.js's compute, lib/typeset.js's saveTypeset


# Each bound's default, why, and its ATTENTION_ variable: settings.py's ADMISSION.
BOUNDS = {
    "LARGE_REQUESTS": Bound(settings.LARGE_REQUESTS.default, "computing {n}",
                            "other large answer", 1, True),
    "TYPESETS": Bound(settings.TYPESETS.default, "typesetting {n}", "other document", 2, True),
    "TILES_AND_COSTS": Bound(settings.TILES_AND_COSTS.default,
                             "tracing tiles or costs for {n}", "other request", 1, False),
}

LARGE_BYTES = 64 * 1024 * 1024
FLOAT = 8  # bytes of a float64
ANSWER_BYTES = 24  # bytes a number of the answer holds: its JSON and the array behind it


def work_bytes(request: AttentionRequest, cells: int | None = None) -> int:
    """Roughly the bytes computing ``request`` holds at its peak: per head, the n × m
    scores, scaled scores, mask, weights and the softmax's two temporaries (and ALiBi's
    bias), its Q, K, V
    and output; then the answer (``cells`` numbers, counted if not given) at ANSWER_BYTES
    a number."""
    n, m = request.X.shape[0], (request.X if request.X_kv is None else request.X_kv).shape[0]
    per_head = 0
    squares = 6 + (request.positional == "alibi")  # ALiBi's bias is one more n × m array
    for W_Q, _, W_V in request.projections:  # W_Q (d_model, d_k), W_V (d_model, d_v)
        d_k, d_v = W_Q.shape[1], W_V.shape[1]
        per_head += squares * n * m + (n + m) * d_k + m * d_v + n * d_v
    cells = answer_cells(request) if cells is None else cells
    return FLOAT * per_head + ANSWER_BYTES * cells


class Slots:
    """At most ``slots`` requests at once in this process (thread-safe)."""

    def __init__(self, slots: int):
        self.slots = slots
        self._free = threading.BoundedSemaphore(slots)

    def take(self):
        """A function that gives the turn back, or None when every turn is taken."""
        return self._free.release if self._free.acquire(blocking=False) else None


class LargeRequests(Slots):
    """At most ``slots`` large requests computed at once in this process (thread-safe)."""

    def admit(self, request: AttentionRequest, cells: int | None = None):
        """A function that gives the turn back, or None when every turn is taken. A
        request that is not large needs no turn (its function does nothing). ``cells``:
        the answer's numbers, when they are already counted."""
        if work_bytes(request, cells) <= LARGE_BYTES:
            return lambda: None
        return self.take()


def slots_of(config) -> dict[str, Slots]:
    """Each kind's turns in this process, as many as the app's config says."""
    return {name: (LargeRequests if name == "LARGE_REQUESTS" else Slots)(config[name])
            for name in BOUNDS}


def busy(name: str):
    """503 with Retry-After: this process serves as many requests of kind ``name`` as it may."""
    bound, slots = BOUNDS[name], current_app.extensions["admission"][name].slots
    doing = bound.doing.format(n=counted(slots, bound.thing))
    again = " (the page does so on its own)" if bound.page_retries else ""
    return retry_later(f"This server is {doing}, as many as it takes at once; nothing was "
                       f"computed. Send it again in a moment{again}.", bound.retry)


def admitted(name: str):
    """A route run only when a turn of kind ``name`` is free, 503 with Retry-After
    otherwise. The turn is given back when the view returns: its answer is made by then
    (a document's bytes, JSON written by jsonify), and what is left, nginx takes whole."""
    def wrap(view):
        @functools.wraps(view)
        def guarded(*args, **kwargs):
            release = current_app.extensions["admission"][name].take()
            if release is None:
                return busy(name)
            try:
                return view(*args, **kwargs)
            finally:
                release()
        guarded.admission = name  # for the OpenAPI document's test: its 503 is declared
        return guarded
    return wrap


def keep_slots(state) -> None:
    """A blueprint's record_once: the app's turns of every kind, made by the first blueprint
    that admits requests, from the app's config (slots_of)."""
    state.app.extensions.setdefault("admission", slots_of(state.app.config))
