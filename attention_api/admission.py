"""How many large requests one server process computes at once; the rest are answered
503 with Retry-After, so that no mix of valid requests can exhaust memory.

A request is large when computing and writing its answer holds, by ``work_bytes``, more
than LARGE_BYTES. The answer-size limit bounds what one answer holds, not how many are
computed together: sixteen of the largest accepted requests at once (every thread of two
8-thread workers) took the two workers to 3.18 GB, where six took 1.5 GB. Waiting for a
turn would hold a thread each, so /health could starve behind them: refusing at once
keeps the other threads for everything else.
"""

from __future__ import annotations

import threading

from .answer_size import answer_cells
from .request import AttentionRequest

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


class LargeRequests:
    """At most ``slots`` large requests computed at once in this process (thread-safe)."""

    def __init__(self, slots: int):
        self.slots = slots
        self._free = threading.BoundedSemaphore(slots)

    def admit(self, request: AttentionRequest, cells: int | None = None):
        """A function that gives the turn back, or None when every turn is taken. A
        request that is not large needs no turn (its function does nothing). ``cells``:
        the answer's numbers, when they are already counted."""
        if work_bytes(request, cells) <= LARGE_BYTES:
            return lambda: None
        if not self._free.acquire(blocking=False):
            return None
        return self._free.release
