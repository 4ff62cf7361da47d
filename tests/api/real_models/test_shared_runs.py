"""attention_api.real_models.shared_runs: the runs a server's workers share in a folder. Two
Runs on one folder stand for two workers; the model is stood in for by runs of known contents."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from app import create_app
from attention_api.real_models import runs as model_runs
from attention_api.real_models.runs import Busy, Run, Runs, Turns
from attention_api.real_models.shared_runs import Folder, key_of
from attention_models.base import Tokenized
from tests.api.real_models.test_runs import MB, MODEL, WAIT

TOKENS = Tokenized(ids=[5, 7], tokens=["␣the", "cat"], words=[{"text": "the cat"}])


def made(text: str, megabytes: float = 0) -> Run:
    """A run whose X holds the text's length and ``megabytes`` MB more."""
    size = max(2, int(megabytes * MB) // 4)
    return Run(tokenized=TOKENS, X=np.full((1, 1, size), len(text), dtype=np.float32),
               overview_u8=np.arange(8, dtype=np.uint8).reshape(1, 2, 2, 2),
               first_token_share=np.array([[0.25, 0.5]]),
               next_tokens=[{"id": 1, "text": " mat", "probability": 0.5}])


@pytest.fixture
def runs_made(monkeypatch):
    """Every forward pass stood in for by ``made``; the texts run, in order."""
    texts = []

    def run(model, text, tokenized):
        texts.append(text)
        return made(text)
    monkeypatch.setattr(model_runs, "run", run)
    return texts


def workers(folder, budget=10 * MB, n=2):
    return [Runs(budget, Turns(1, 4), folder) for _ in range(n)]


def test_a_run_made_by_one_worker_is_read_by_the_other_memory_mapped(tmp_path, runs_made):
    a, b = workers(tmp_path)
    first = a.get(MODEL, "hello", TOKENS)
    got = b.get(MODEL, "hello", TOKENS)
    assert runs_made == ["hello"] and (a.computed, b.computed) == (1, 0)
    assert type(got.X) is np.ndarray and isinstance(got.X.base, np.memmap)
    assert not got.X.flags.writeable
    for name in ("X", "overview_u8", "first_token_share"):
        assert np.array_equal(getattr(got, name), getattr(first, name))
        assert getattr(got, name).dtype == getattr(first, name).dtype
    assert got.tokenized == TOKENS and got.next_tokens == first.next_tokens
    assert sorted(p.name for p in tmp_path.iterdir()) == [key_of("m", "hello")]


def test_a_text_asked_of_both_workers_at_once_is_run_once(tmp_path, monkeypatch):
    entered, go, texts = threading.Event(), threading.Event(), []

    def slow(model, text, tokenized):
        texts.append(text)
        entered.set()
        assert go.wait(WAIT)
        return made(text)
    monkeypatch.setattr(model_runs, "run", slow)
    a, b = workers(tmp_path)
    got = []
    first = threading.Thread(target=lambda: got.append(a.get(MODEL, "same", TOKENS)))
    first.start()
    assert entered.wait(WAIT)  # a holds the claim and runs it
    second = threading.Thread(target=lambda: got.append(b.get(MODEL, "same", TOKENS)))
    second.start()  # b finds the claim and waits for a's run
    go.set()
    for thread in (first, second):
        thread.join(WAIT)
    assert texts == ["same"] and len(got) == 2
    assert np.array_equal(got[0].X, got[1].X)
    assert not (tmp_path / f"{key_of('m', 'same')}.claim").exists()


def test_a_claim_whose_process_died_is_taken_over(tmp_path, runs_made):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    claim = tmp_path / f"{key_of('m', 'orphan')}.claim"
    claim.mkdir()
    (claim / dead).touch()
    (b,) = workers(tmp_path, n=1)
    assert b.get(MODEL, "orphan", TOKENS).X[0, 0, 0] == len("orphan")
    assert runs_made == ["orphan"] and not claim.exists()


def test_a_claim_given_up_without_a_run_lets_the_waiting_worker_run_it(tmp_path, runs_made):
    folder = Folder(tmp_path, MB)
    name = key_of("m", "refused")
    assert folder.claim(name) and not folder.claim(name)
    threading.Timer(0.2, folder.release, [name]).start()  # its worker was busy (a 503)
    (b,) = workers(tmp_path, n=1)
    assert b.get(MODEL, "refused", TOKENS).X[0, 0, 0] == len("refused")
    assert runs_made == ["refused"]


def test_a_refused_turn_gives_the_claim_back(tmp_path, runs_made):
    (a,) = workers(tmp_path, n=1)
    a.turns = Turns(computing=0, waiting=0)  # every turn refused
    with pytest.raises(Busy):
        a.get(MODEL, "busy", TOKENS)
    assert list(tmp_path.iterdir()) == []


def test_the_runs_of_all_workers_are_kept_within_one_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(model_runs, "run", lambda model, text, tokenized: made(text, 1))
    a, b = workers(tmp_path, budget=int(2.5 * MB))
    a.get(MODEL, "one", TOKENS)
    b.get(MODEL, "two", TOKENS)
    os.utime(tmp_path / key_of("m", "one"), (1, 1))  # read longest ago
    a.get(MODEL, "three", TOKENS)
    assert {p.name for p in tmp_path.iterdir()} == {key_of("m", t) for t in ("two", "three")}
    assert b.get(MODEL, "one", TOKENS) is not None and b.computed == 2  # run again


def test_keys_are_file_names_whatever_the_text():
    names = {key_of("m", text) for text in ("a/../b", "\0", "x" * 10_000, "é", "a", "b")}
    assert len(names) == 6 and all(n.isalnum() and len(n) == 40 for n in names)


def test_the_api_answers_from_a_shared_run_as_from_its_own(tmp_path):
    body = {"model": "minilm-l6", "text": "one two three", "layer": 2, "head": 3, "row": 1}
    own = create_app({"TESTING": True}).test_client().post("/api/model/attention", json=body)
    shared = [create_app({"TESTING": True, "RUNS_DIR": str(tmp_path)}).test_client()
              for _ in range(2)]  # two workers on one folder: the second reads the first's
    answers = [client.post("/api/model/attention", json=body) for client in shared]
    assert own.status_code == 200 and [a.status_code for a in answers] == [200, 200]
    assert answers[0].get_json() == answers[1].get_json() == own.get_json()
    assert len(list(tmp_path.iterdir())) == 1


def test_a_run_that_finds_no_space_is_answered_unshared(tmp_path, runs_made, monkeypatch):
    def full(path, array):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(np, "save", full)
    (a,) = workers(tmp_path, n=1)
    assert a.get(MODEL, "no room", TOKENS).X[0, 0, 0] == len("no room")
    assert list(tmp_path.iterdir()) == []  # neither a draft nor a claim left


def test_the_budget_is_at_most_three_quarters_of_the_folders_file_system(tmp_path):
    space = os.statvfs(tmp_path)
    assert Folder(tmp_path, 10**18).budget == space.f_frsize * space.f_blocks * 3 // 4
    assert Folder(tmp_path, MB).budget == MB


def test_a_claim_not_yet_signed_is_waited_for_not_taken(tmp_path, runs_made):
    folder = Folder(tmp_path, MB)
    name = key_of("m", "early")
    (tmp_path / f"{name}.claim").mkdir()  # made, its process id not written yet
    assert folder._holder(name) is None and folder.wait(name, 0.1) is None
    assert (tmp_path / f"{name}.claim").exists()  # left to its maker
    os.utime(tmp_path / f"{name}.claim", (1, 1))  # made long ago, never signed: abandoned
    (b,) = workers(tmp_path, n=1)
    assert b.get(MODEL, "early", TOKENS).X[0, 0, 0] == len("early")
    assert runs_made == ["early"]
