"""The answer of POST /api/attention, its size count and GET /api/openapi.json, pinned to what
they were before the answer's fields were described in one table
(attention_api/attention/answer_fields.py): the table must change how the code is
written, never what it sends. Statuses, the size counts and the OpenAPI document are
pinned byte for byte; an answer's keys, their order, structure and texts exactly, and its
numbers within tests/numbers.py's tolerance, since another CPU's BLAS may give other last bits.

tests/data/answer_pinned.json was written by this module's ``main`` on the code before that
change (``.venv/bin/python -m tests.api.attention.test_answer_fields_pinned`` rewrites it:
do so only for a change meant to change answers, and say so in its commit).
"""

import json
from pathlib import Path

import pytest

from app import create_app
from attention_api.attention.answer_size import answer_cells, check_answer_size
from attention_api.attention.request import parse_request
from attention_core.errors import AttentionInputError
from tests.numbers import assert_same_answer

DATA = Path(__file__).resolve().parents[2] / "data" / "answer_pinned.json"
SMALL = {"TESTING": True, "MAX_TOKENS": 8, "MAX_DIM": 8, "MAX_MODEL_DIM": 8, "MAX_HEADS": 4,
         "MAX_CONTENT_LENGTH": 64 * 1024, "MAX_ANSWER_CELLS": 5000}
CONFIGS = {"default": {"TESTING": True}, "small": SMALL}

X = [[1, 0], [0, 1], [1, 1]]
ONE = {"tokens": ["the", "cat", "sat"], "X": X, "W_Q": [[1, 0], [1, 2]],
       "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
HEAD = {p: ONE[p] for p in ("W_Q", "W_K", "W_V")}
OTHER = {"W_Q": [[0, 1], [1, 0]], "W_K": [[1, 1], [0, 1]], "W_V": [[0.5, 0], [1, -1]]}
W_O = [[1, 0], [0, 1], [0.5, -0.5], [0, 1]]
X_KV = [[1, 1], [2, 0], [0, 3], [1, -1]]
BIG_X = [[(i * 7 + j * 3) % 5 - 2 for j in range(4)] for i in range(20)]
BIG_W = [[(i + 2 * j) % 3 - 1 for j in range(4)] for i in range(4)]
EDITOR_WORKING = [f"working.{f}" for f in (
    "row", "token", "q", "dots", "scale", "scaled", "allowed", "exp", "exp_sum",
    "exp_overflow", "shift", "exp_shifted", "exp_shifted_sum", "weights", "z", "entropy",
    "jacobian_norm", "q_unbiased", "b_Q", "k_unbiased", "b_K", "v_unbiased", "b_V",
    "q_unrotated", "k_unrotated", "position", "positions_k", "frequencies", "angles",
    "angles_k", "bias", "alibi_slope", "window", "in_window", "sinks", "sink")]

CASES = {
    "one head": ONE,
    "one head, its working": {**ONE, "row": 2},
    "two heads and W_O": {"X": X, "heads": [HEAD, OTHER], "W_O": W_O, "row": 0},
    "kv_heads, rope, window, sinks": {
        "X": X, "heads": [{"W_Q": HEAD["W_Q"]}, {"W_Q": [[0, 1], [1, 0]], "b_Q": [1, 0]}],
        "kv_heads": [{"W_K": HEAD["W_K"], "W_V": HEAD["W_V"], "b_K": [0, 1], "b_V": [1, 1]}],
        "W_O": W_O, "positional": "rope", "position_offset": 5, "causal": True, "window": 1,
        "sinks": 1, "row": 2},
    "kv_heads, two groups, alibi": {
        "X": X, "heads": [{"W_Q": HEAD["W_Q"]}, {"W_Q": OTHER["W_Q"]}, {"W_Q": [[1, 1], [0, 1]]},
                          {"W_Q": [[2, 0], [0, 1]]}],
        "kv_heads": [{"W_K": HEAD["W_K"], "W_V": HEAD["W_V"]}, {"W_K": OTHER["W_K"],
                                                                "W_V": OTHER["W_V"]}],
        "W_O": [[1, 0]] * 8, "positional": "alibi", "row": 1},
    "cross-attention, sinusoidal": {
        **ONE, "X_kv": X_KV, "tokens_kv": ["w", "x", "y", "z"], "positional": "sinusoidal",
        "causal": True, "row": 1},
    "cross-attention, fields": {
        **ONE, "X_kv": X_KV, "positional": "sinusoidal", "position_offset": 3, "row": 1,
        "fields": ["weights", "scaled_scores", "working.weights", "positional_encoding_kv"]},
    "cross-attention, two heads": {
        "X": X, "X_kv": X_KV, "heads": [HEAD, OTHER], "W_O": W_O, "row": 2},
    "rope, biases": {**ONE, "b_Q": [0.5, 0], "b_K": [0, 1], "b_V": [1, -1],
                     "positional": "rope", "rope_base": 100, "row": 1},
    "alibi, biases": {**ONE, "b_Q": [0.5, 0], "b_K": [0, 1], "b_V": [1, -1],
                      "positional": "alibi", "alibi_slopes": [0.5], "row": 2},
    "alibi, two heads": {"X": X, "heads": [HEAD, {**OTHER, "b_V": [1, 2]}], "W_O": W_O,
                         "positional": "alibi", "alibi_slopes": [0.25, 1], "row": 0},
    "mask and scale": {**ONE, "mask": [[True, False, True], [False, True, False],
                                       [True, True, False]], "scale": 2, "row": 2},
    "a masked row": {**ONE, "mask": [[False, False, False], [True, True, True],
                                     [True, False, True]], "row": 0},
    "window, causal": {**ONE, "causal": True, "window": 2, "row": 2},
    "window and sinks, two heads": {"X": X, "heads": [HEAD, OTHER], "W_O": W_O, "window": 1,
                                    "sinks": 2, "row": 1},
    "the editor's fields, one head": {
        **ONE, "positional": "sinusoidal", "row": 2,
        "fields": ["tokens", "tokens_kv", "causal", "positional_encoding[:2,:1]",
                   "positional_encoding_kv[:16,:16]", "d_k", "scale", "alibi_slope", "Q[:2,:1]",
                   "K", "V", "mask", "output[:1]", *EDITOR_WORKING, "scores", "scaled_scores",
                   "weights_u8", "strongest_keys"]},
    "the editor's fields, two heads": {
        "X": X, "heads": [HEAD, OTHER], "W_O": W_O, "row": 1, "causal": True,
        "fields": ["tokens", "causal", "concat[:2,:3]", "output[:1]", "heads.weights_u8",
                   "heads.kv_head", *(f"heads[1].{f}" for f in (
                       "d_k", "scale", "alibi_slope", "Q[:2]", "K", "V", "mask", "output",
                       *EDITOR_WORKING, "strongest_keys"))]},
    "corners of every head and one": {
        "X": X, "heads": [HEAD, OTHER], "W_O": W_O, "row": 1,
        "fields": ["heads.Q[:1]", "heads[0].Q[:2,:2]", "heads.working.z", "heads[1].weights",
                   "heads.scores[:2,:1]", "tokens", "heads[0].working"]},
    "working parts only": {**ONE, "row": 0, "fields": ["working.q", "working.exp_overflow",
                                                       "working.positions_k"]},
    "strongest keys of 20 tokens": {
        "X": BIG_X, "W_Q": BIG_W, "W_K": BIG_W, "W_V": BIG_W, "causal": True, "window": 5,
        "sinks": 1, "fields": ["strongest_keys", "weights_u8[:3,:4]", "mask[:2]"]},
    "base64, one head": {**ONE, "row": 1, "positional": "rope", "mask": [[True] * 3] * 3,
                         "encoding": "base64"},
    "base64, two heads with fields": {
        "X": X, "heads": [HEAD, OTHER], "W_O": W_O, "row": 2, "encoding": "base64",
        "positional": "alibi",
        "fields": ["heads.weights_u8", "heads[0].working", "concat", "heads[1].strongest_keys",
                   "heads.bias[:1]"]},
    "unknown field": {**ONE, "fields": ["weights", "nope"]},
    "a corner of a number": {**ONE, "fields": ["d_k[:2]"]},
    "a corner of the working": {**ONE, "row": 0, "fields": ["working.k[:2]"]},
    "heads. without heads": {**ONE, "fields": ["heads.Q"]},
    "a head beyond the last": {"X": X, "heads": [HEAD], "W_O": [[1], [0]],
                               "fields": ["heads[3].Q"]},
    "a field twice": {**ONE, "fields": ["Q", "Q[:1]"]},
}


def answers(config: dict) -> dict:
    """Every case's status and body as the app sends them."""
    client = create_app(config).test_client()
    out = {}
    for name, body in CASES.items():
        r = client.post("/api/attention", data=json.dumps(body), content_type="application/json")
        out[name] = {"status": r.status_code, "body": r.get_data(as_text=True)}
    return out


def sizes() -> dict:
    """Every valid case's count of cells, and the message refusing it at a limit of 1."""
    out = {}
    for name, body in CASES.items():
        try:
            request = parse_request(body)
        except AttentionInputError:
            continue
        try:
            check_answer_size(request, 1)
        except AttentionInputError as exc:
            out[name] = {"cells": answer_cells(request), "refused": str(exc)}
    return out


def openapi(config: dict) -> str:
    return create_app(config).test_client().get("/api/openapi.json").get_data(as_text=True)


def current() -> dict:
    return {"answers": {c: answers(CONFIGS[c]) for c in CONFIGS}, "sizes": sizes(),
            "openapi": {c: openapi(CONFIGS[c]) for c in CONFIGS}}


@pytest.fixture(scope="module")
def pinned():
    return json.loads(DATA.read_text())


@pytest.mark.parametrize("config", CONFIGS)
def test_answers_are_as_pinned(pinned, config):
    got = answers(CONFIGS[config])
    assert got.keys() == pinned["answers"][config].keys()
    for name, answer in pinned["answers"][config].items():
        assert got[name]["status"] == answer["status"], name
        assert_same_answer(got[name]["body"], answer["body"], name)


def test_answer_sizes_are_as_pinned(pinned):
    assert sizes() == pinned["sizes"]


@pytest.mark.parametrize("config", CONFIGS)
def test_openapi_document_is_as_pinned(pinned, config):
    assert openapi(CONFIGS[config]) == pinned["openapi"][config]


def test_the_cases_cover_what_they_say(pinned):
    """Each kind of answer is among the pinned ones (a 200 with its part present)."""
    bodies = {name: json.loads(a["body"]) for name, a in pinned["answers"]["default"].items()}
    ok = {name for name, a in pinned["answers"]["default"].items() if a["status"] == 200}
    refused = set(CASES) - ok
    assert refused == {"unknown field", "a corner of a number", "a corner of the working",
                       "heads. without heads", "a head beyond the last", "a field twice"}
    text = "\n".join(pinned["answers"]["default"][name]["body"] for name in ok)
    for part in ("kv_head", "Q_unrotated", "angles_k", "alibi_slope", "in_window", "sink",
                 "positional_encoding_kv", "tokens_kv", "weights_u8", "strongest_keys",
                 "q_unbiased", "v_unbiased", '"base64"', "concat", "exp_overflow"):
        assert f'"{part}"' in text or part in text, part
    assert bodies["two heads and W_O"]["heads"][1]["working"]["row"] == 0


if __name__ == "__main__":
    DATA.write_text(json.dumps(current(), indent=1, ensure_ascii=False) + "\n")
