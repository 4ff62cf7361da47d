"""attention_api/attention/admission.py: which requests are large, and the turns they take."""

import numpy as np
import pytest

from app import create_app
from attention_api.attention import admission
from attention_api.attention.admission import BOUNDS, LargeRequests, Slots, work_bytes
from attention_api.attention.request import Limits, parse_request


def request_of(n: int, m: int, heads: int, d_k: int, fields=None):
    rng = np.random.default_rng(0)
    draw = lambda *shape: rng.normal(size=shape).round(2).tolist()  # noqa: E731
    body = {"X": draw(n, 2), "X_kv": draw(m, 2), "W_O": draw(heads * d_k, 2),
            "heads": [{"W_Q": draw(2, d_k), "W_K": draw(2, d_k), "W_V": draw(2, d_k)}
                      for _ in range(heads)]}
    if fields is not None:
        body["fields"] = fields
    return parse_request(body, Limits())


def test_work_is_six_n_by_m_arrays_a_head_its_projections_and_the_answer_at_24_bytes():
    req = request_of(3, 4, 2, 5, fields=["output"])  # the answer: output, 3 × 2 = 6 numbers
    per_head = 6 * 3 * 4 + (3 + 4) * 5 + 4 * 5 + 3 * 5  # 72 + 35 + 20 + 15 = 142
    assert work_bytes(req) == 8 * 2 * per_head + 24 * 6


def test_the_largest_requests_are_large_and_the_default_example_is_not(cat_sat):
    default = parse_request(cat_sat, Limits())
    assert work_bytes(default) < 10_000
    largest = request_of(512, 512, 16, 256, fields=[])  # every head computed, nothing sent
    assert work_bytes(largest) == 8 * 16 * (6 * 512 * 512 + 1024 * 256 + 2 * 512 * 256)
    assert work_bytes(largest) > admission.LARGE_BYTES


def test_turns_are_given_out_up_to_the_slots_and_back():
    turns = LargeRequests(2)
    big = request_of(512, 512, 16, 256, fields=[])
    first, second = turns.admit(big), turns.admit(big)
    assert first is not None and second is not None and turns.admit(big) is None
    first()
    third = turns.admit(big)
    assert third is not None
    small = request_of(2, 2, 1, 1)
    assert turns.admit(small) is not None  # not large: no turn needed, even with none free


@pytest.fixture
def every_request_large(monkeypatch):
    monkeypatch.setattr(admission, "LARGE_BYTES", 0)


def test_a_large_request_without_a_turn_is_503_with_retry_after(every_request_large, cat_sat):
    app = create_app({"TESTING": True, "LARGE_REQUESTS": 1})
    client = app.test_client()
    taken = app.extensions["admission"]["LARGE_REQUESTS"].admit(parse_request(cat_sat, Limits()))
    r = client.post("/api/attention", json=cat_sat)
    assert r.status_code == 503 and r.headers["Retry-After"] == "1"
    assert r.get_json()["error"] == {
        "message": "This server is computing 1 other large answer, as many as it takes at "
                   "once; nothing was computed. Send it again in a moment (the page does so "
                   "on its own).", "field": None}
    taken()
    r = client.post("/api/attention", json=cat_sat)
    assert r.status_code == 200 and r.get_json()["tokens"] == ["the", "cat", "sat"]
    r.close()
    # The answer written, its turn is free again; a refused request gives none back.
    assert client.post("/api/attention", json=cat_sat).status_code == 200


def test_a_turn_is_given_back_when_the_request_fails(every_request_large, cat_sat):
    app = create_app({"TESTING": True, "LARGE_REQUESTS": 1})
    client = app.test_client()
    overflow = {**cat_sat, "X": [[1e200, 0], [0, 1], [1, 1]], "W_Q": [[1e200, 0], [1, 2]]}
    r = client.post("/api/attention", json=overflow)
    assert r.status_code == 422  # from the engine, after the turn was taken
    assert r.get_json()["error"]["message"].startswith("Q = X·W_Q is too large for float64")
    assert client.post("/api/attention", json=cat_sat).status_code == 200


def test_each_bound_is_read_from_its_attention_variable(monkeypatch):
    for value, name in enumerate(BOUNDS, start=3):
        monkeypatch.setenv(f"ATTENTION_{name}", str(value))
    app = create_app({"TESTING": True})
    assert {name: turns.slots for name, turns in app.extensions["admission"].items()} == {
        "LARGE_REQUESTS": 3, "TYPESETS": 4, "TILES_AND_COSTS": 5}
    assert isinstance(app.extensions["admission"]["LARGE_REQUESTS"], LargeRequests)
    monkeypatch.delenv("ATTENTION_TYPESETS")
    assert create_app({"TESTING": True}).extensions["admission"]["TYPESETS"].slots == \
        BOUNDS["TYPESETS"].default == 2


def test_slots_are_given_out_up_to_their_number_and_back():
    slots = Slots(2)
    first, second = slots.take(), slots.take()
    assert first is not None and second is not None and slots.take() is None
    second()
    assert slots.take() is not None and slots.take() is None


SLIDE_REQUEST = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
                 "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
HEAD = {"model": "smollm2-135m", "text": "The cat sat", "layer": 0, "head": 0, "row": 1}
TYPESETTING = ("This server is typesetting 1 other document, as many as it takes at once; "
               "nothing was computed. Send it again in a moment (the page does so on its own).")
TRACING = ("This server is tracing tiles or costs for 1 other request, as many as it takes at "
           "once; nothing was computed. Send it again in a moment.")
GUARDED = [  # path, a body it answers 200, its kind, the 503's Retry-After and message
    ("/api/worksheet", {"seeds": [17], "level": "dots", "format": "pdf"}, "TYPESETS", "2",
     TYPESETTING),
    ("/api/slide", {"request": SLIDE_REQUEST, "what": "heatmap", "format": "svg"}, "TYPESETS",
     "2", TYPESETTING),
    ("/api/model/slide", {**HEAD, "what": "working", "format": "svg"}, "TYPESETS", "2",
     TYPESETTING),
    ("/api/tiles", {**SLIDE_REQUEST, "row": 2, "block_q": 2, "block_k": 2}, "TILES_AND_COSTS",
     "1", TRACING),
    ("/api/model/tiles", {**HEAD, "block_q": 2, "block_k": 2}, "TILES_AND_COSTS", "1",
     TRACING),
    ("/api/cost", {"n": 3, "d_model": 2, "d_k": 2, "d_v": 2}, "TILES_AND_COSTS", "1", TRACING),
]


@pytest.mark.parametrize(("path", "body", "kind", "retry", "message"), GUARDED,
                         ids=[g[0] for g in GUARDED])
def test_a_guarded_route_without_a_turn_is_503_with_retry_after(path, body, kind, retry,
                                                                  message):
    app = create_app({"TESTING": True, kind: 1})
    client = app.test_client()
    turns = app.extensions["admission"][kind]
    taken = turns.take()
    r = client.post(path, json=body)
    assert (r.status_code, r.headers["Retry-After"], r.mimetype) == \
        (503, retry, "application/json")
    assert r.get_json() == {"error": {"message": message, "field": None}}
    taken()
    r = client.post(path, json=body)
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    assert turns.take() is not None  # given back once the answer was made


def test_a_guarded_route_gives_its_turn_back_when_the_request_is_refused():
    app = create_app({"TESTING": True, "TYPESETS": 1})
    client = app.test_client()
    r = client.post("/api/worksheet", json={"seeds": [17], "level": "sums"})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "level"
    assert app.extensions["admission"]["TYPESETS"].take() is not None
