"""attention_api.model_runs: the runs kept within a budget of bytes, the least recently asked
let go first, with the model stood in for by runs of known sizes."""

from types import SimpleNamespace

import numpy as np
import pytest

from app import create_app
from attention_api import model_runs
from attention_api.model_runs import Run, Runs

MB = 2**20


def sized(megabytes: float) -> Run:
    """A run holding ``megabytes`` MB in X (its overview and shares, 1 × 1 × 1 × 1 and
    1 × 1, add 9 bytes)."""
    return Run(tokenized=None, X=np.zeros(int(megabytes * MB), dtype=np.uint8),
               overview_u8=np.zeros((1, 1, 1, 1), dtype=np.uint8),
               first_token_share=np.zeros((1, 1)), next_tokens=None)


@pytest.fixture
def sizes(monkeypatch):
    """Each text's run has the size this dict gives it, in MB; every forward is counted."""
    given = {}
    monkeypatch.setattr(model_runs, "run", lambda model, text, tokenized: sized(given[text]))
    return given


MODEL = SimpleNamespace(info=SimpleNamespace(id="m"))


def ask(runs, *texts):
    """Ask for each text's run in turn; the forward passes that took."""
    before = runs.computed
    for text in texts:
        runs.get(MODEL, text, None)
    return runs.computed - before


def test_a_run_holds_the_bytes_of_its_arrays():
    assert sized(1).nbytes == MB + 1 + 8


def test_runs_are_kept_within_the_budget_and_the_least_recent_goes_first(sizes):
    sizes.update(a=1, b=1, c=1, d=1)
    runs = Runs(budget=3 * MB + 30)  # three runs of 1 MB and 9 bytes
    assert ask(runs, "a", "b", "c") == 3
    assert ask(runs, "a", "b", "c") == 0  # all three kept
    assert ask(runs, "a") == 0  # a is now the most recent: b is the least
    assert ask(runs, "d") == 1  # b let go
    assert ask(runs, "a", "c", "d") == 0
    assert ask(runs, "b") == 1  # run again; a, the least recent after a, c, d, let go
    assert ask(runs, "c", "d", "b") == 0
    assert ask(runs, "a") == 1


def test_a_run_larger_than_the_budget_is_kept_until_the_next(sizes):
    sizes.update(small=1, huge=5)
    runs = Runs(budget=2 * MB)
    assert ask(runs, "small", "huge", "huge") == 2  # the small one let go, the huge one kept
    assert ask(runs, "small") == 1  # and now the huge one goes
    assert ask(runs, "small") == 0


def test_the_budget_is_attention_runs_mb(monkeypatch):
    monkeypatch.setenv("ATTENTION_RUNS_MB", "12")
    assert create_app().extensions["model_runs"].budget == 12 * MB
    monkeypatch.delenv("ATTENTION_RUNS_MB")
    assert create_app().extensions["model_runs"].budget == 256 * MB
