"""POST /api/exercise and /api/exercise/check (attention_api/classroom/exercise.py): the exercise
without its numbers, its request computed by POST /api/attention, and the check's
contract and its 422s."""

import json
import re

import pytest

from attention_core.classroom.exercises import LEVELS
from tests.api.helpers import strict_loads
from tests.core.helpers import exercise_reference as reference
from tests.core.helpers import exercise_value as value


def post(client, path, body):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    response = client.post(path, data=data, content_type="application/json")
    return response.status_code, strict_loads(response.get_data(as_text=True))


def numbers(obj):
    """Every number in a JSON value."""
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in numbers(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in numbers(v)]
    return [obj] if isinstance(obj, (int, float)) and not isinstance(obj, bool) else []


def answered_in(answer: dict, path: str) -> float:
    """The number at a blank's path in an answer of POST /api/attention."""
    value = answer
    for part in re.findall(r"[a-z_]+|\[\d+\]", path):
        value = value[int(part[1:-1])] if part.startswith("[") else value[part]
    return value


@pytest.mark.parametrize("level", LEVELS)
def test_an_exercise_holds_its_inputs_and_blanks_and_no_computed_number(client, level):
    status, body = post(client, "/api/exercise", {"seed": 17, "level": level})
    assert status == 200
    assert set(body) == {"seed", "level", "title", "request", "row", "blanks"}
    assert (body["seed"], body["level"], body["title"]) == (17, level, LEVELS[level])
    # Every number in the answer is a whole number: an input, a row, a seed; no weight,
    # sum or z (none of which is whole here) can be among them.
    assert all(float(x).is_integer() for x in numbers(body))
    assert body["row"] == body["request"]["row"]
    # The request computes the exercise, and each blank names a number of its answer.
    status, answer = post(client, "/api/attention", body["request"])
    assert status == 200
    expected = reference(body["request"])
    for path in body["blanks"]:
        assert answered_in(answer, path) == pytest.approx(value(expected, path), abs=1e-12)


def test_right_answers_as_shown_are_correct_and_a_wrong_one_gets_its_hint(client):
    _, body = post(client, "/api/exercise", {"seed": 17, "level": "weights"})
    _, answer = post(client, "/api/attention", body["request"])
    weights = answer["working"]["weights"]
    answers = {f"working.weights[{j}]": round(w, 3) for j, w in enumerate(weights)}
    status, checked = post(client, "/api/exercise/check",
                           {"seed": 17, "level": "weights", "answers": answers})
    assert status == 200
    assert checked["score"] == {"correct": len(weights), "answered": len(weights),
                                "blanks": len(weights)}
    assert all(r == {"correct": True, "tolerance": 0.001} for r in checked["results"].values())
    # The second key's e^s alone, not divided by the row's sum.
    e1 = answer["working"]["exp"][1]
    status, checked = post(client, "/api/exercise/check", {
        "seed": 17, "level": "weights", "answers": {"working.weights[1]": round(e1, 3)}})
    assert status == 200
    result = checked["results"]["working.weights[1]"]
    assert result["correct"] is False
    assert result["hint"].startswith(f"Your {e1:.3f} is e^s₂ itself")
    assert checked["score"] == {"correct": 0, "answered": 1, "blanks": len(weights)}


@pytest.mark.parametrize("path, body, field, words", [
    ("/api/exercise", {"seed": 17, "level": "softmax"}, "level", "level must be one of dots"),
    ("/api/exercise", {"seed": 1_000_000, "level": "z"}, "seed",
     "seed must be a whole number from 0 to 999999; got 1000000"),
    ("/api/exercise", {"seed": 2.5, "level": "z"}, "seed", "got 2.5"),
    ("/api/exercise", {"level": "z"}, "seed",
     "send a seed (a whole number from 0 to 999999) or a request of your own with its row"),
    ("/api/exercise", {"seed": 1, "level": "z", "request": {}}, "seed", "one of the two"),
    ("/api/exercise", {"seed": 1}, "level", "level is missing: one of dots, scaled"),
    ("/api/exercise", {"seed": 1, "level": "z", "answers": {}}, "answers",
     'Unknown field "answers". The fields are seed, level, request.'),
    ("/api/exercise/check", {"seed": 3, "level": "z"}, "answers", "answers is missing"),
    ("/api/exercise/check", {"seed": 3, "level": "z", "answers": {"working.z[0]": "1.5"}},
     'answers["working.z[0]"]', 'must be a number; got the string "1.5"'),
    ("/api/exercise/check", {"seed": 3, "level": "z", "answers": {"working.z[0]": None}},
     'answers["working.z[0]"]', "must be a number; got null"),
    ("/api/exercise/check", {"seed": 3, "level": "z", "answers": {"working.q[0]": 1}},
     "answers", "'working.q[0]', which is not a blank of this exercise; its blanks are "
                "working.z[0], working.z[1]"),
    ("/api/exercise/check", {"seed": 3, "level": "z", "answers": [1]}, "answers",
     "answers must be an object"),
])
def test_bad_input_is_a_422_naming_the_field_and_the_value(client, path, body, field, words):
    status, answer = post(client, path, body)
    assert status == 422
    assert answer["error"]["field"] == field
    assert words in answer["error"]["message"]


def test_a_body_that_is_not_json_is_a_400_and_another_type_a_415(client):
    status, answer = post(client, "/api/exercise", b'{"seed": 1,')
    assert status == 400 and answer["error"]["message"]
    response = client.post("/api/exercise/check", data="seed=1", content_type="text/plain")
    assert response.status_code == 415


def test_the_examples_in_the_http_guide_are_what_the_api_answers(client):
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[3] / "docs/http-api.md").read_text()
    section = guide.split("## Exercises:")[1].split("\n## ")[0]
    exercise_block, check_block = re.findall(r"```text\n(.*?)```", section, re.S)
    status, body = post(client, "/api/exercise", {"seed": 17, "level": "weights"})
    assert status == 200 and json.loads(exercise_block) == body
    asked, answered = check_block.split("→")
    status, body = post(client, "/api/exercise/check", json.loads(asked))
    assert status == 200 and json.loads(answered) == body


TEXTBOOK = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
            "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]], "row": 2}


def test_an_example_of_ones_own_is_practised_and_checked_by_its_request(client):
    """The textbook's row by hand: weights 0.187, 0.045, 0.768 (e^s 16.92, 4.113, 69.59)."""
    status, body = post(client, "/api/exercise", {"request": TEXTBOOK, "level": "weights"})
    assert status == 200
    assert (body["seed"], body["row"], body["blanks"]) == (
        None, 2, ["working.weights[0]", "working.weights[1]", "working.weights[2]"])
    assert body["title"] == "the weights aⱼ = exp(sⱼ) / Σ exp(s), on your own example"
    assert body["request"] == TEXTBOOK
    status, checked = post(client, "/api/exercise/check", {
        "request": TEXTBOOK, "level": "weights",
        "answers": {"working.weights[0]": 0.187, "working.weights[2]": 69.59}})
    assert status == 200
    assert checked["results"]["working.weights[0]"] == {"correct": True, "tolerance": 0.001}
    assert checked["results"]["working.weights[2]"]["hint"] == (
        "Your 69.590 is e^s₃ itself: the weight divides it by the row's sum, Σ e^s.")
    # Two heads and a mask of one's own: each head's blanks, the masked key's weight asked.
    two = {**{k: TEXTBOOK[k] for k in ("tokens", "X", "row")},
           "heads": [{p: TEXTBOOK[p] for p in ("W_Q", "W_K", "W_V")}] * 2,
           "W_O": [[1, 0], [0, 1], [1, 0], [0, 1]],
           "mask": [[True, True, True], [True, True, True], [True, False, True]]}
    status, body = post(client, "/api/exercise", {"request": two, "level": "scaled"})
    assert status == 200
    assert body["blanks"] == [f"heads[{h}].working.scaled[{j}]" for h in (0, 1) for j in (0, 2)]


@pytest.mark.parametrize("change, level, field, words", [
    ({"positional": "rope"}, "weights", "request", "not RoPE"),
    ({"b_Q": [1, 0]}, "weights", "request", "not biases"),
    ({"window": 2}, "weights", "request", "not a window"),
    ({"row": None}, "z", "request.row", "request.row is missing"),
    ({"X": [[1, 0], [0, 1], [1, "a"]]}, "z", "request.X[2][1]", "X row 3 column 2"),
    ({"X": [[1, 0]] * 9, "tokens": list("abcdefghi")}, "z", "request.X",
     "at most 8 tokens and d_model, d_k and d_v at most 8; this one has 9 tokens"),
    ({}, "causal", "level", "level must be one of dots, scaled, exp, weights, z, row for an "
                            "example of your own; got 'causal'"),
])
def test_an_example_of_ones_own_that_cannot_be_worked_by_hand_is_a_422(client, change, level,
                                                                      field, words):
    request = {k: v for k, v in {**TEXTBOOK, **change}.items() if v is not None}
    status, answer = post(client, "/api/exercise", {"request": request, "level": level})
    assert status == 422
    assert answer["error"]["field"] == field
    assert words in answer["error"]["message"]


def test_a_seed_sent_as_a_float_is_that_seed(client):
    """7.0 is the seed 7 (JSON Schema's "integer" takes it); 7.5 is refused, quoted."""
    assert post(client, "/api/exercise", {"seed": 7.0, "level": "dots"}) == \
        post(client, "/api/exercise", {"seed": 7, "level": "dots"})
    status, body = post(client, "/api/exercise", {"seed": 7.5, "level": "dots"})
    assert (status, body) == (422, {"error": {
        "message": "seed must be a whole number from 0 to 999999; got 7.5", "field": "seed"}})
