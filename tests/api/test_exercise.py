"""POST /api/exercise and /api/exercise/check (attention_api/exercise.py): the exercise
without its numbers, its request computed by POST /api/attention, and the check's
contract and its 422s."""

import json
import re

import pytest

from attention_core.exercises import LEVELS
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
    ("/api/exercise", {"level": "z"}, "seed", "seed is missing"),
    ("/api/exercise", {"seed": 1, "level": "z", "answers": {}}, "answers",
     "'answers' is not a field of this request"),
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

    guide = (Path(__file__).resolve().parents[2] / "docs/http-api.md").read_text()
    section = guide.split("## Exercises:")[1].split("\n## ")[0]
    exercise_block, check_block = re.findall(r"```text\n(.*?)```", section, re.S)
    status, body = post(client, "/api/exercise", {"seed": 17, "level": "weights"})
    assert status == 200 and json.loads(exercise_block) == body
    asked, answered = check_block.split("→")
    status, body = post(client, "/api/exercise/check", json.loads(asked))
    assert status == 200 and json.loads(answered) == body
