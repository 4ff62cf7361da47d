"""attention_api.real_models.runs: the runs kept within a budget of bytes, the least recently asked
let go first (the model stood in for by runs of known sizes); forward passes run a few at
a time, the others waiting or refused, while a head of a kept run is answered at once."""

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from app import create_app
from attention_api.real_models import runs as model_runs
from attention_api.real_models.runs import Busy, Run, Runs, Turns

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


# ---- turns: forward passes a few at a time ----

WAIT = 10  # seconds a test waits for a thread before it fails


def hold(turns, entered, go, done):
    """A thread that takes a turn, says so, and gives it back once ``go`` is set."""
    def work():
        with turns.turn():
            entered.set()
            assert go.wait(WAIT)
        done.append(True)
    thread = threading.Thread(target=work)
    thread.start()
    return thread


def test_a_turn_is_waited_for_while_one_may_wait_and_refused_beyond():
    turns = Turns(computing=1, waiting=1)
    first, second, go, done = threading.Event(), threading.Event(), threading.Event(), []
    a = hold(turns, first, go, done)
    assert first.wait(WAIT)
    b = hold(turns, second, go, done)  # waits for a's turn
    with turns._changed:  # b is counted as waiting before a third comes
        assert turns._changed.wait_for(lambda: turns._queued == 1, WAIT)
    assert not second.is_set()
    with pytest.raises(Busy) as refused, turns.turn():
        pass
    assert (refused.value.computing, refused.value.waiting) == (1, 1)
    go.set()
    a.join(WAIT)
    b.join(WAIT)
    assert second.is_set() and done == [True, True]
    with turns.turn():  # every turn given back
        assert turns._running == 1


def test_two_requests_for_one_new_text_run_it_once(monkeypatch):
    entered, go = threading.Event(), threading.Event()

    def slow(model, text, tokenized):
        entered.set()
        assert go.wait(WAIT)
        return sized(1)
    monkeypatch.setattr(model_runs, "run", slow)
    runs = Runs(budget=10 * MB, turns=Turns(computing=1, waiting=1))
    got = []
    threads = [threading.Thread(target=lambda: got.append(runs.get(MODEL, "same", None)))
               for _ in range(2)]
    threads[0].start()
    assert entered.wait(WAIT)
    threads[1].start()  # waits for the turn, then finds the run kept
    with runs.turns._changed:
        assert runs.turns._changed.wait_for(lambda: runs.turns._queued == 1, WAIT)
    go.set()
    for thread in threads:
        thread.join(WAIT)
    assert runs.computed == 1 and got[0] is got[1]


def test_while_the_model_runs_a_kept_head_is_answered_and_a_new_text_is_a_503(monkeypatch):
    app = create_app({"TESTING": True, "FORWARDS": 1, "FORWARDS_WAITING": 0})
    body = {"model": "minilm-l6", "text": "one two three", "layer": 0, "head": 0}
    assert app.test_client().post("/api/model/attention", json=body).status_code == 200
    entered, go, real = threading.Event(), threading.Event(), model_runs.run

    def slow(*args):
        entered.set()
        assert go.wait(WAIT)
        return real(*args)
    monkeypatch.setattr(model_runs, "run", slow)
    statuses = []
    running = threading.Thread(target=lambda: statuses.append(app.test_client().post(
        "/api/model/attention", json={**body, "text": "a text of its own"}).status_code))
    running.start()
    assert entered.wait(WAIT)
    client = app.test_client()
    switch = client.post("/api/model/attention", json={**body, "layer": 5, "head": 11})
    assert switch.status_code == 200 and switch.get_json()["tokens"][1] == "one"
    refused = client.post("/api/model/attention", json={**body, "text": "and another"})
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
    assert refused.get_json()["error"] == {
        "message": "This server is running the model on 1 text with 0 more waiting, as many "
                   "as it takes at once; nothing was computed. Send it again in a moment (the "
                   "page does so on its own).", "field": None}
    go.set()
    running.join(WAIT)
    assert statuses == [200]


def test_the_turns_are_attention_forwards_and_forwards_waiting(monkeypatch):
    monkeypatch.setenv("ATTENTION_FORWARDS", "2")
    monkeypatch.setenv("ATTENTION_FORWARDS_WAITING", "5")
    turns = create_app().extensions["model_runs"].turns
    assert (turns.computing, turns.waiting) == (2, 5)
    monkeypatch.delenv("ATTENTION_FORWARDS")
    monkeypatch.delenv("ATTENTION_FORWARDS_WAITING")
    turns = create_app().extensions["model_runs"].turns
    assert (turns.computing, turns.waiting) == (2, 32)
