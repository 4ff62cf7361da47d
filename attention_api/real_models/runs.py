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

import settings
from attention_models.base import Model, Tokenized
from attention_models.heads import first_token_share

from ..attention.response import weights_u8
from .next_tokens import next_tokens
from .run import Run
from .shared_runs import Folder, key_of

# Megabytes of runs kept, forward passes at once per process and requests that may wait
# for one, unless the app's config says otherwise: their defaults, and why, in settings.py.
RUNS_MB = settings.RUNS_MB.default
FORWARDS = settings.FORWARDS.default
FORWARDS_WAITING = settings.FORWARDS_WAITING.default
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
