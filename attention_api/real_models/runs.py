"""The forward passes the server has run, kept per (model, text), and run a few at a time.

Switching the head, the row or the mask of the same text reuses its run, so only the
first question about a text runs the model (SmolLM2: ~0.2 s at 64 tokens; one head from
a kept run: a few ms). What is kept is what answers need, not the whole forward: each
layer's X, the overview's bytes and first-token shares, and the next tokens.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path

from attention_models.base import Model, Tokenized
from attention_models.heads import first_token_share

from ..attention.response import weights_u8
from .next_tokens import next_tokens
from .run import Run
from .shared_runs import Folder, key_of

# Megabytes of runs kept (ATTENTION_RUNS_MB) by a server, in the folder its workers share
# (shared_runs.py), or by a process of its own, the least recently asked let go first.
# One 128-token SmolLM2 run is ~13 MB (X: 30 × 128 × 576 float32, the overview:
# 30 × 9 × 128 × 128 bytes); a class's sentences of 9–42 tokens ~1–4 MB each. Kept 8 at a
# time, a class of 30 evicted each other's runs, and a head switch ran the model again
# (benchmarks/bench_classroom.py: head switch p95 5.5–6.4 s; 64 kept: 0.23–0.51 s).
RUNS_MB = 256
# Forward passes at once per process (ATTENTION_FORWARDS), and requests that may wait for
# one (ATTENTION_FORWARDS_WAITING). A class of 30 sends its first texts at once, and the
# two workers take them from gunicorn's socket as fast as each accepts, not in turn: of
# the forward passes in runs of bench_classroom.py, 29 and 8, 30 and 6, 21 and 9. So one
# worker may hold the whole class: 32 may wait (22 refused a text in 1 of 3 runs), and 2
# run at once, so that a worker holding most of the class has both cores (numpy lets go
# of the GIL in its products). With 1 at once, 30 and 7 gave a first view p95 of 4.8 s;
# with 2, eight runs gave 2.8-3.7 s whatever the share, head switch p95 17-26 ms (9-14
# with 1), /health at most 17 ms, nothing refused. Two at once on a balanced server share
# the cores, and a pass is bound by memory as much as by its core (SmolLM2, 18 tokens:
# 55 ms alone, 92 ms each with two at once in two processes), so they cost it little.
# Before any limit (every pass at once, under load): first view p95 4.7-5.2 s.
FORWARDS = 2
FORWARDS_WAITING = 32
CLAIM_WAIT = 60  # seconds a request waits for another worker's run of its text, at a time


def run(model: Model, text: str, tokenized: Tokenized) -> Run:
    """Run the model on a text's tokens and keep what answers need."""
    forward = model.forward(tokenized.ids)
    return Run(tokenized=tokenized, X=forward.X, overview_u8=weights_u8(forward.weights),
               first_token_share=first_token_share(forward.weights),
               next_tokens=None if forward.next_probabilities is None
               else next_tokens(model, text, tokenized, forward.next_probabilities))


class Busy(Exception):
    """Every turn to run the model is taken, and as many requests wait for one as may."""

    def __init__(self, computing: int, waiting: int):
        super().__init__(f"{computing} running, {waiting} waiting")
        self.computing, self.waiting = computing, waiting


class Turns:
    """At most ``computing`` forward passes at once in this process, and at most ``waiting``
    more waiting for a turn; any other is refused (Busy). A class of 30 sent its texts at
    once, and forward passes held every thread of a worker, so that /health and head
    switches on kept runs waited seconds behind them (benchmarks/bench_classroom.py);
    refused, a request holds no thread, and the page sends it again (Retry-After)."""

    def __init__(self, computing: int, waiting: int):
        self.computing, self.waiting = computing, waiting
        self._changed = threading.Condition()
        self._running = self._queued = 0

    @contextmanager
    def turn(self):
        with self._changed:
            if self._running >= self.computing:
                if self._queued >= self.waiting:
                    raise Busy(self.computing, self.waiting)
                self._queued += 1
                try:
                    self._changed.wait_for(lambda: self._running < self.computing)
                finally:
                    self._queued -= 1
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._changed.notify()


class Runs:
    """The runs most recently asked for, within ``budget`` bytes (the newest is kept even
    when it alone is larger), computed in ``turns``; thread-safe (a worker serves
    many threads). Kept in this process's memory, or, given ``folder``, in that folder,
    shared with the server's other workers (shared_runs.py)."""

    def __init__(self, budget: int = RUNS_MB * 2**20, turns: Turns | None = None,
                 folder: Path | None = None):
        self.budget = budget
        self.turns = turns or Turns(FORWARDS, FORWARDS_WAITING)
        self.shared = None if folder is None else Folder(folder, budget)
        self._runs: OrderedDict[tuple[str, str], Run] = OrderedDict()
        self._lock = threading.Lock()
        self.computed = 0  # forward passes run, for tests and benchmarks

    def get(self, model: Model, text: str, tokenized: Tokenized) -> Run:
        key = (model.info.id, text)
        kept = self._kept(key)
        if kept is not None:
            return kept
        if self.shared is None:
            return self._run(key, model, text, tokenized)
        name = key_of(*key)
        # Another thread or worker running this text: its run, once saved (or, if it gave
        # up, the claim for this one).
        while not self.shared.claim(name):
            kept = self.shared.wait(name, CLAIM_WAIT)
            if kept is not None:
                return kept
        try:
            return self._run(key, model, text, tokenized)
        finally:
            self.shared.release(name)

    def _run(self, key: tuple[str, str], model: Model, text: str, tokenized: Tokenized) -> Run:
        with self.turns.turn():
            # Asked again once the turn comes: a request for the same text, run meanwhile.
            kept = self._kept(key)
            if kept is not None:
                return kept
            fresh = run(model, text, tokenized)
        with self._lock:
            self.computed += 1
        if self.shared is not None:
            self.shared.save(key_of(*key), fresh)
            return fresh
        with self._lock:
            self._runs[key] = fresh
            self._runs.move_to_end(key)
            self._let_go()
        return fresh

    def _kept(self, key: tuple[str, str]) -> Run | None:
        if self.shared is not None:
            return self.shared.load(key_of(*key))
        with self._lock:
            kept = self._runs.get(key)
            if kept is not None:
                self._runs.move_to_end(key)
            return kept

    def _let_go(self) -> None:
        """Drop the least recent runs until the rest fit the budget (the newest stays)."""
        held = sum(r.nbytes for r in self._runs.values())
        while held > self.budget and len(self._runs) > 1:
            _, old = self._runs.popitem(last=False)
            held -= old.nbytes
